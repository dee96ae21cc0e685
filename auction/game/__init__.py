"""The game: rules, settings, state, views, and what a finished game is.

Owns every rule of both rule books (settings, presets, the phases of a round,
bids, ties, standings), what each player may see (views.view_for), the timing
model's formulas (fairness), and the charts and exports of a finished game.

Pure Python from the standard library: no Flask, Redis, gevent, clock, I/O or
randomness (tests/test_purity.py). It imports nothing else of the project, and
mypy checks it strictly.
"""
