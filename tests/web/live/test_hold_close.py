"""A hold socket's connection ends with the socket, under `python app.py` too.

After a hold, pressed or refused, the two sides trade close frames. gevent's
server kept the connection open for a next HTTP request, so the client's close
frame arriving after the handler was read as one: a 400 and an "Invalid HTTP
method" line in the log for a hold socket, pressed or refused, whenever the
server's close went first. gunicorn closes an upgraded connection itself; the handler of `python app.py` now does
too (auction/web/operations/http_server.py).
"""

from __future__ import annotations

import time

from client import Player


def test_hold_sockets_leave_no_bad_request_behind(server):
    host, me, stranger = Player(server.url), Player(server.url), Player(server.url)
    code = host.create("Host", "stake")
    me.join(code, "Me")
    host.post(f"/r/{code}/settings", {"ready_ms": 10_000})
    host.post(f"/r/{code}/start")
    stranger.code = code
    answers = []
    for player in (me, me, stranger):    # pressed; out this round; not seated
        hold = player.press()
        answers.append(hold.first)
        hold.release()
        assert hold.closed.wait(5)
    assert answers == [{"type": "in"}, {"type": "refused", "reason": "out_this_round"},
                       {"type": "refused", "reason": "not_seated"}]
    time.sleep(1.5)                      # any close frame after its socket's end is read
    log = server.output()
    assert log.count("/hold HTTP/1.1") == 3, log[-3000:]
    assert "Invalid HTTP method" not in log and '" 400 ' not in log, log[-3000:]
    for p in (host, me, stranger):
        p.stop()
