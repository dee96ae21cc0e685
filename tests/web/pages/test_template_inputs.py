"""A stream draws a part again only when a view key its template reads has changed.

The reading of the templates (auction/web/pages/template_inputs.py) must never miss an
input: a missed one would leave a phone showing a stale part. So whole games are
played through the rules, with presses, releases, lobby moves and every phase,
and at every step each viewer's parts are drawn twice: by a stream's renderer that
skips unchanged inputs, and from scratch. They must be the same, part for part.
"""

from __future__ import annotations

import random

import pytest
from jinja2 import DictLoader, Environment

from auction.game import rules as R
from auction.game.views import view_for
from auction.web.pages import render, screen
from auction.web.pages.template_inputs import CLOSED, gate, inputs, reader, reading
from test_render import CTX, lobby

SETTINGS = [
    {},
    {"reveal": "all_bids", "own_bank": "shown", "free_ms": 0, "rounds": 3},
    {"reveal": "winning_bid", "own_bank": "hidden", "tie": "margin", "rounds": 4},
]
VIEWERS = ("p1", "p2", "b3", "p4", None)
PLAYERS = ("p1", "p2", "b3", "p4")


def steps(settings: dict, seed: int):
    """(game, now) after each move of a game played at random to its end."""
    rng = random.Random(seed)
    game, now, left = lobby(**settings), 0, set()
    yield game, now
    for action in (R.Join("Cy"), R.ChangeSettings("p1", {"result_ms": 4000}),
                   R.Lock("p1", True), R.Lock("p1", False)):
        game, _ = R.apply(game, action, now)
        yield game, now
    game, _ = R.apply(game, R.Start("p1"), 1_000)
    now = 1_000
    yield game, now
    while game.phase is not R.Phase.ENDED:
        due = R.next_deadline(game)
        rnd = game.current
        holding = [p for p in PLAYERS if rnd and p in rnd.holds
                   and rnd.holds[p].release_ms is None]
        waiting = [p for p in PLAYERS if rnd and p not in rnd.holds]
        phase, roll = game.phase, rng.random()
        if game.round == 2 and phase is R.Phase.COUNTDOWN and "p4" not in left:
            left.add("p4")                  # a player leaves mid-game: only "me" changes
            action: R.Action = R.Leave("p4")
        elif phase is R.Phase.COUNTDOWN and waiting and roll < 0.7:
            action = R.Press(rng.choice(waiting))
        elif holding and (phase is R.Phase.SPENDING or (phase is R.Phase.FREE and roll < 0.3)):
            action = R.Release(rng.choice(holding))
        elif due is not None:
            game, _ = R.apply(game, R.Tick(), due)
            now = due
            yield game, now
            continue
        else:
            action = R.Release(holding[0]) if holding else R.Tick()
        now = min(now + rng.randint(1, 900), (due or now + 900) - 1)
        try:
            game, _ = R.apply(game, action, now)
        except (R.NotAllowed, R.PressRefused):
            continue
        yield game, now


def afresh(view, ctx, names=render.PARTS, folder="partials") -> dict[str, str]:
    """Every part drawn from this view and ctx alone: no memo, no part drawn for someone
    else, no marks in place of the form token or the clocks (render._shared)."""
    data = render._context(view, ctx)
    return {name: render._draw(f"{folder}/{name}.html", ctx["locale"], data).strip()
            for name in names}


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("locale", ["en", "ko"])
def test_a_part_drawn_only_when_its_inputs_changed_is_the_part_drawn_afresh(settings, locale):
    """...and a part copied from another device's drawing (draw once, with marks for the
    form token and the clocks) is too: every viewer's stream here has a token of its own,
    and a second stream of each viewer (another device of the same seat) copies."""
    ctx = {**CTX, "locale": locale}
    tokens = {viewer: f"{i:032x}" for i, viewer in enumerate(VIEWERS, start=7)}
    memos: dict = {viewer: {} for viewer in VIEWERS}
    twins: dict = {viewer: {} for viewer in VIEWERS}
    big_screen: dict = {}
    phases = set()
    for game, now in steps(settings, seed=len(settings)):
        phases.add(game.phase.value)
        for viewer in VIEWERS:
            view = view_for(game, viewer, now)
            mine = {**ctx, "csrf_token": tokens[viewer]}
            kept = render.partials(view, mine, memo=memos[viewer])
            assert kept == afresh(view, mine), (viewer, view["phase"])
            twin = {**ctx, "csrf_token": tokens[viewer][::-1]}
            assert render.partials(view, twin, memo=twins[viewer]) == afresh(view, twin)
        view = view_for(game, None, now)
        kept = screen._parts(view, ctx, memo=big_screen)
        assert kept == afresh(view, ctx, screen.PARTS, "screen")
    assert phases >= {"lobby", "countdown", "spending", "result", "ended"}


def test_a_part_is_drawn_once_for_every_device_that_sees_it_alike(monkeypatch):
    """A hundred spectators' streams of one room, each with a form token of its own, at
    one change: one drawing of each part, and a hundred copies with their own tokens."""
    drawn: list[str] = []
    draw = render._draw
    monkeypatch.setattr(render, "_draw", lambda name, *a: drawn.append(name) or draw(name, *a))
    render._drawn.clear()
    game, _ = R.apply(lobby(), R.Start("p1"), 1_000)
    copies = []
    for i in range(100):
        view = view_for(game, None, 1_000 + i)      # each drawn at its own moment
        ctx = {**CTX, "locale": "en", "csrf_token": f"{i:032x}"}
        copies.append((render.partials(view, ctx, memo={}), view, ctx))
    assert sorted(drawn) == sorted(f"partials/{name}.html" for name in render.PARTS)
    for parts, view, ctx in copies:
        assert parts == afresh(view, ctx)


def test_the_memo_skips_parts_whose_inputs_did_not_change():
    ctx = dict(CTX)
    game = lobby()
    game, _ = R.apply(game, R.Start("p1"), 1_000)
    memo: dict = {}
    first = render.partials(view_for(game, "p2", 1_100), ctx, memo=memo)
    drawn = {name: id(entry) for name, entry in memo.items()}
    pressed, _ = R.apply(game, R.Press("p1"), 1_200)     # another's press: hidden from p2
    later = render.partials(view_for(pressed, "p2", 1_300), ctx, memo=memo)
    again = [name for name, entry in memo.items() if id(entry) != drawn[name]]
    # No part is drawn again. The end's hands the whole view to the charts (so it depends
    # on all of it) but draws nothing before the end (its gate, template_inputs.gate): it
    # was drawn again here before. The part that shows the countdown's clock (status) was
    # too, for the clock alone: it is drawn with a mark where the clock goes, and each
    # copy gets its own moment's (render.CLOCK_MARKS).
    assert again == []
    assert first["status"] != later["status"]
    assert later["status"] == render.partials(view_for(pressed, "p2", 1_300), ctx)["status"]
    assert 'data-deadline-ms="2700"' in later["status"]     # go at 4_000, seen at 1_300


def test_the_reading_of_templates_is_conservative():
    env = Environment(loader=DictLoader({
        "keys.html": "{{ v.round }}{{ v['phase'] }}{% include 'inner.html' %}",
        "inner.html": "{% set last = v.history[-1] %}{{ last.round }}{{ me.id }}"
                      "{% if me and phase == 'lobby' %}{{ me is none }}{% endif %}",
        "mine.html": "{{ 'x' or me }}{{ v.phase and me }}",
        "whole.html": "{{ v|tojson }}",
        "looped.html": "{% for k in v %}{{ k }}{% endfor %}",
        "unknown.html": "{{ something_else }}",
        "dynamic.html": "{% include v.kind ~ '.html' %}",
        "count.html": "{{ [2, v.players|length]|max }}",
        "counted.html": "{{ v.players|length }}{{ v.players[0] }}",
    }))
    assert inputs(env, "keys.html") == {("v", "round"), ("v", "phase"), ("v", "history"),
                                        ("me", "id"), ("me", "?"), ("phase", (("eq", "lobby"),))}
    for name in ("whole.html", "looped.html", "unknown.html", "dynamic.html"):
        assert inputs(env, name) is None, name
    # Where only the number of players is read, a change of who they are draws nothing.
    assert inputs(env, "count.html") == {("len", "players")}
    assert inputs(env, "counted.html") == {("len", "players"), ("v", "players")}
    count = reader(inputs(env, "count.html"))
    one, other = {"players": [{"id": "p1", "tokens": 0}]}, {"players": [{"id": "p1", "tokens": 1}]}
    assert count(one) == count(other) != count({"players": []})
    counted = reader(inputs(env, "counted.html"))
    assert counted(one) != counted(other)
    # Where my own seat is shown as a value, all of it is read; where only tested, not.
    assert inputs(env, "mine.html") == {("v", "me"), ("v", "phase")}


def test_a_part_gated_on_the_phase_depends_on_nothing_where_its_gate_is_shut():
    """A part whose whole output stands inside one {% if %} that asks for a phase draws
    nothing in any other phase, whatever else the view holds; anything else around the
    test, or output outside it, and there is no gate."""
    env = Environment(loader=DictLoader({
        "gated.html": "{# the end #}\n{% set f = v.final %}{% macro m() %}x{% endmacro %}\n"
                      "{% if phase == 'ended' and v.final %}{{ v|tojson }}{% endif %}\n",
        "among.html": "{% if v.round and phase in ('result', 'ended') %}{{ v.round }}{% endif %}",
        "else.html": "{% if phase == 'ended' %}a{% else %}b{% endif %}",
        "elif.html": "{% if phase == 'ended' %}a{% elif v.x %}b{% endif %}",
        "outside.html": "{% if phase == 'ended' %}a{% endif %}x",
        "either.html": "{% if phase == 'ended' or v.final %}a{% endif %}",
        "unasked.html": "{% if v.final %}a{% endif %}",
        "reset.html": "{% set phase = 'ended' %}{% if phase == 'ended' %}a{% endif %}",
    }))
    gated = gate(env, "gated.html")
    assert gated is not None
    assert not gated({"phase": "spending", "final": {"x": 1}}) and gated({"phase": "ended"})
    among = gate(env, "among.html")
    assert among is not None and among({"phase": "result"}) and not among({"phase": "lobby"})
    for name in ("else.html", "elif.html", "outside.html", "either.html", "unasked.html",
                 "reset.html"):
        assert gate(env, name) is None, name
    # What the stream's memo compares: nothing of the view where the gate is shut.
    depends = reading(env, "gated.html")
    assert depends({"phase": "spending", "final": 1}) == depends({"phase": "lobby"}) == CLOSED
    assert depends({"phase": "ended", "final": 1}) == {"phase": "ended", "final": 1}
