"""A hold the server ends because its store went away is said in words on the phone.

The store's outage itself is played against real servers in test_cluster_failover.py
(the socket ends 'released: unavailable'). Here the page is what is tested: a real
touch phone holds through the real server, and its hold socket -- passed through
Playwright, message for message -- is handed that same ending mid-bid, as the server
sends it. The page says why, in the page's language, and the finger no longer holds.
"""

from __future__ import annotations

import json
import time

import phone

ENDED = json.dumps({"type": "released", "reason": "unavailable"})


def test_a_hold_ended_by_an_outage_says_so(server, open_phone):
    page = open_phone(touch=True)
    phone.create_room(page, server.url, "Una", preset="stake")
    page.tap("form[action$='/bots'] button[type=submit]")
    phone.players_listed(page, 2)
    # A countdown long enough for a press through Playwright's socket relay on a loaded
    # machine (at 2 s it once came after go, refused 'too_late').
    phone.fast(page, rounds=1, free_ms=0, ready_ms=6_000)
    sockets = []

    def through(ws):             # the hold socket, passed on both ways
        upstream = ws.connect_to_server()
        sockets.append(ws)
        ws.on_message(lambda message: upstream.send(message))
        upstream.on_message(lambda message: ws.send(message))

    page.route_web_socket("**/hold", through)
    page.tap("text=Start the game")
    phone.wait_state(page, "countdown", 1)
    finger = phone.Finger(page)
    finger.down()
    phone.button(page, "in")
    phone.wait_state(page, "spending", 1)
    time.sleep(0.5)
    assert len(sockets) == 1
    sockets[0].send(ENDED)        # what the server sends when its store went away
    phone.released(page, timeout_s=3)
    words = page.locator("#hold-msg").inner_text()
    phone.shot(page, "outage-hold-ended")     # (the round may end at once: the AI was out)
    assert words == "The game's server had a fault: your hold ended where it was last recorded."
    assert phone.seconds(phone.my_bid(page)) > 0     # the bid as far as it was heard
    finger.up()
