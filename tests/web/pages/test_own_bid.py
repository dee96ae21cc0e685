"""My own bid, the moment I let go: the figure the round will charge, and mine alone.

The button used to freeze on the page's own measure of the hold (60.0 s) while the result
said what the server charged (60.1 s). The view now carries ``me.bid_ms`` from the moment
a seat lets go during spending, so the page shows the charged figure everywhere; nobody
else's view changes by a byte when I let go.
"""

from __future__ import annotations

import re

from auction.game import rules as R
from auction.game.views import view_for
from auction.web.pages import render
from test_render import CTX, started
from test_round_clock import spending

MY_BID = re.compile(r'data-my-bid-ms="(\d*)"')


def test_my_bid_is_known_to_me_when_i_let_go_and_is_what_the_round_charges():
    game = spending("p1", "p2")
    spend = game.current.spend_ms
    assert view_for(game, "p2", spend + 100)["me"]["bid_ms"] is None      # still holding
    game, _ = R.apply(game, R.Release("p2"), spend + 60_080)
    mine = view_for(game, "p2", spend + 61_000)["me"]["bid_ms"]
    assert mine == 60_000                       # tenths, truncated: the rule book's charge
    game, _ = R.apply(game, R.Release("p1"), spend + 70_000)
    while game.phase is not R.Phase.RESULT:
        game, _ = R.apply(game, R.Tick(), R.next_deadline(game))
    result = view_for(game, "p2", R.next_deadline(game) - 1)
    assert result["history"][-1]["my_bid_ms"] == mine
    page = render.partials(result, CTX)["status"]
    assert MY_BID.search(page).group(1) == str(mine)


def test_a_hold_that_cost_nothing_has_no_bid():
    game = started()
    for pid in ("p1", "p2"):
        game, _ = R.apply(game, R.Press(pid), 1_100)
    game, _ = R.apply(game, R.Release("p2"), 1_200)         # let go in the countdown
    game, _ = R.apply(game, R.Tick(), game.current.go_ms)
    go = game.current.go_ms
    game, _ = R.apply(game, R.Release("p1"), go + 500)   # in the free window
    for pid in ("p1", "p2"):
        assert view_for(game, pid, go + 600)["me"]["bid_ms"] is None


def test_nobody_else_sees_a_byte_of_my_release():
    game = spending("p1", "p2")
    spend = game.current.spend_ms
    let_go, _ = R.apply(game, R.Release("p2"), spend + 5_000)
    now = spend + 6_000
    for viewer in ("p1", "p3", None):
        before, after = view_for(game, viewer, now), view_for(let_go, viewer, now)
        assert before == after
        assert render.partials(before, CTX) == render.partials(after, CTX)
    mine_after = render.partials(view_for(let_go, "p2", now), CTX)["status"]
    assert MY_BID.search(mine_after).group(1) == "5000"
