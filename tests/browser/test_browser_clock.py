"""The page's clock (docs/fairness.md, "The page's clock"): a countdown no late stream
can move, and nothing gained by a client that lies about its clock.

One phone's event stream crosses a proxy that delivers it 400 ms late while its other
requests (the page, GET /clock, the hold socket) are quick. Counting from the view's
arrival, that phone's screen would show go 400 ms after the server's go, and a press
made on it just before then would be refused ``too_late``; counting to go on the
server's clock, the press counts.
"""

from __future__ import annotations

import json
import time

import pytest

import phone
from proxy import Proxy, Way

# Press this long before go, as the phone's own screen shows it (its countdown's last
# second begins 1 s before go: the timer reads "1").
BEFORE_GO_S = 0.2


@pytest.fixture
def late_stream(server):
    link = Proxy(server.port, late={"/events": Way(400)})
    yield link
    link.close()


def press_late_in_the_countdown(page) -> None:
    """Press about BEFORE_GO_S before go on this page's screen, and check it still
    showed the countdown then."""
    page.wait_for_function(
        "() => { const t = document.querySelector('.status .timer.beat');"
        " return t && t.textContent === '1'; }", polling="raf", timeout=15_000)
    time.sleep(1.0 - 0.05 - BEFORE_GO_S)       # "1" shows from 1,000 to 900 ms before go
    shown = page.evaluate("() => [document.querySelector('.status .state').dataset.phase,"
                          " document.querySelector('.status .timer.beat').textContent,"
                          " document.getElementById('hold').dataset.state]")
    assert shown == ["countdown", "1", "idle"], shown
    phone.Finger(page).down()


def test_a_press_before_go_on_a_late_streams_screen_counts(late_stream, open_phone):
    page = open_phone(touch=True)
    code = phone.room_with_ai(page, late_stream.url, "Lou", ready_ms=3_000, free_ms=1_000)
    phone.start(page, late_stream.url, code)
    page.wait_for_function("() => window.taClock.offset() !== null", timeout=5_000)
    press_late_in_the_countdown(page)
    phone.button(page, "in")
    me = phone.server_view(page, late_stream.url, code)["me"]
    assert me["holding"] and me["in_round"], me


def test_a_page_that_lies_about_the_clock_gains_nothing(late_stream, open_phone):
    """A page told the server's clock is 1.5 s behind the truth believes go is 1.5 s
    later; with its stream 400 ms late its screen still shows the countdown 250 ms after
    the true go, and the page opens the hold socket. The server dates the press by its
    own clock alone (nothing the client says is a time): past go plus the grace this
    quick link earns, it is refused."""
    page = open_phone(touch=True)
    base = late_stream.url

    def lie(route):
        true_now = page.request.get(base + "/clock").json()["now_ms"]
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"now_ms": true_now - 1_500}))

    page.route("**/clock", lie)
    code = phone.room_with_ai(page, base, "Lia", ready_ms=3_000, free_ms=1_000)
    page.wait_for_function("() => window.taClock.offset() !== null", timeout=5_000)
    phone.start(page, base, code)
    go = phone.server_view(page, base, code)["deadline_at_ms"]
    now = page.request.get(base + "/clock").json()["now_ms"]
    time.sleep((go - now) / 1000 + 0.25)
    shown = page.evaluate("() => [document.querySelector('.status .state').dataset.phase,"
                          " document.getElementById('hold').dataset.state]")
    assert shown == ["countdown", "idle"], shown
    phone.Finger(page).down()
    phone.button(page, "out")
    me = phone.server_view(page, base, code)["me"]
    assert not me["holding"] and not me["in_round"], me
