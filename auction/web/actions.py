"""The posts: create, join, host settings, AI seats, kick, start, leave.

Each answers JSON (the device's view) to JSON clients and a 303 to the page
to browsers, so every form works without JavaScript.
"""

from __future__ import annotations

from functools import partial

from flask import Blueprint, g

from .. import rules
from ..store import NoSuchRoom
from ..views import view_for
from .common import room_code, services
from .respond import done, form

bp = Blueprint("actions", __name__)

SOLO_MODES = {"full": "auction", "quick": "quick"}


def _view(outcome, code: str):
    pid = outcome.room.seat_of(g.device_token)
    return done(view_for(outcome.room.game, pid, services().clock.now_ms()), to=f"/r/{code}")


def _whole(value, name: str, low: int, high: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if type(value) is not int or not low <= value <= high:
        raise rules.RuleError(f"{name} must be a whole number from {low} to {high}")
    return value


@bp.post("/rooms")
def create_room():
    svc = services()
    data = form()
    preset = data.get("preset", "auction")
    if preset not in rules.PRESETS:
        raise rules.InvalidSettings(f"preset must be one of {', '.join(rules.PRESETS)}")
    code = svc.rooms.create(g.device_token, data.get("name", ""), preset)
    return done({"code": code}, 201, to=f"/r/{code}")


@bp.post("/solo")
def create_solo():
    """You against AI players; the hard ones play with no bank display."""
    svc = services()
    data = form()
    players = _whole(data.get("players", 5), "players", 4, 6)
    difficulty = data.get("difficulty", "medium")
    mode = data.get("mode", "full")
    if difficulty not in rules.DIFFICULTIES:
        raise rules.RuleError(f"difficulty must be one of {', '.join(rules.DIFFICULTIES)}")
    if mode not in SOLO_MODES:
        raise rules.RuleError("mode must be full or quick")
    setup = [partial(rules.AddBot, difficulty=difficulty)] * (players - 1)
    # Every seat is taken: nobody else can join a game against the computer.
    settings = {"max_players": players}
    if difficulty == "hard":
        settings["own_bank"] = "hidden"
    setup.append(lambda host: rules.ChangeSettings(host, settings))
    code = svc.rooms.create(g.device_token, data.get("name", ""), SOLO_MODES[mode], setup,
                            kind="solo")
    return done({"code": code}, 201, to=f"/r/{code}")


@bp.post("/r/<code>/join")
def join(code):
    svc = services()
    code = room_code(code)
    name = form().get("name", "")
    try:
        outcome = svc.rooms.join(code, g.device_token, name)
    except rules.WrongPhase:
        raise NoSuchRoom(code)  # a game under way is locked: same answer as no room
    return _view(outcome, code)


@bp.post("/r/<code>/settings")
def settings(code):
    svc = services()
    code = room_code(code)
    changes = {k: v for k, v in form().items() if k != "csrf_token"}
    outcome = svc.rooms.as_player(code, g.device_token,
                                  lambda pid: rules.ChangeSettings(pid, changes))
    return _view(outcome, code)


@bp.post("/r/<code>/bots")
def seat_bots(code):
    svc = services()
    code = room_code(code)
    data = form()
    kind = data.get("action")
    if kind == "add":
        make = lambda pid: rules.AddBot(pid, data.get("difficulty", "medium"))  # noqa: E731
    elif kind == "remove":
        make = lambda pid: rules.RemoveBot(pid, data.get("player") or None)  # noqa: E731
    else:
        raise rules.RuleError("action must be add or remove")
    return _view(svc.rooms.as_player(code, g.device_token, make), code)


@bp.post("/r/<code>/kick")
def kick(code):
    svc = services()
    code = room_code(code)
    target = form().get("player", "")
    outcome = svc.rooms.as_player(code, g.device_token, lambda pid: rules.Kick(pid, target))
    return _view(outcome, code)


@bp.post("/r/<code>/start")
def start(code):
    svc = services()
    code = room_code(code)
    return _view(svc.rooms.as_player(code, g.device_token, rules.Start), code)


@bp.post("/r/<code>/leave")
def leave(code):
    svc = services()
    code = room_code(code)
    svc.rooms.leave(code, g.device_token)
    return done({"left": True}, to="/")

