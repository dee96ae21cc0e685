"""gunicorn's settings for this app; gunicorn reads this file from the directory it
starts in, and options on its command line override it.

The bounds on a request's head are gunicorn's own defaults, stated here so they
are a decision, not an accident: `python app.py` applies the same figures
(auction/web/http_server.py). Every URL of the game is under 100 bytes and a
browser sends about 15 headers, so the figures leave room for any proxy's
additions and still cap what one request can make a worker read.
"""

limit_request_line = 4094           # bytes in the request line
limit_request_fields = 100          # header fields in a request
limit_request_field_size = 8190     # bytes in one header, cookies included
# A kept-alive connection with no next request this long is closed (as in
# python app.py). Streams and hold sockets are answers in progress, not idle.
keepalive = 5
