"""Time Auction, in four layers; each imports only the layers below it.

    web     (auction.web)     Flask: pages, streams, the hold socket, limits.
      |                       The app factory is auction.web.app.create_app.
    server  (auction.server)  Rooms in Redis: the room service (the one face the
      |                       web calls), store, hub, timers, clock, config.
    ai      (auction.ai)      The AI players, deciding from a player's view.
      |
    game    (auction.game)    The rules, the views, finished games: pure Python.

Importing this package loads nothing: ``import auction.game.rules`` loads no
Flask, Redis or gevent (tests/test_purity.py checks each package's imports).
"""
