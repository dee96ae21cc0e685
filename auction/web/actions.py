"""The posts: create, join, host settings, AI seats, kick, start, leave.

Each answers JSON (the device's view) to JSON clients and a 303 to the page
to browsers, so every form works without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from flask import Blueprint, g, request
from flask.typing import ResponseReturnValue

from ..game import rules
from ..game.settings import whole_number
from ..server import NoSuchRoom, View
from .common import room_code, services
from .respond import done, form, text

bp = Blueprint("actions", __name__)

SOLO_MODES = {"full": "auction", "quick": "quick"}


def _view(view: View, code: str) -> ResponseReturnValue:
    return done(view, to=f"/r/{code}")


def _whole(value, name: str, low: int, high: int) -> int:
    number = whole_number(value)      # bounded ASCII digits: "²" and 5,000 digits are 400
    if number is None or not low <= number <= high:
        raise rules.RuleError(f"{name} must be a whole number from {low} to {high}")
    return number


@bp.post("/rooms")
def create_room() -> ResponseReturnValue:
    svc = services()
    data = form()
    preset = text(data, "preset", "auction")
    if preset not in rules.PRESETS:
        raise rules.InvalidSettings(f"preset must be one of {', '.join(rules.PRESETS)}")
    code = svc.create(g.device_token, text(data, "name"), preset, tls=request.is_secure)
    return done({"code": code}, 201, to=f"/r/{code}")


@bp.post("/solo")
def create_solo() -> ResponseReturnValue:
    """You against AI players; the hard ones play with no bank display."""
    svc = services()
    data = form()
    players = _whole(data.get("players", 5), "players", 4, 6)
    difficulty = text(data, "difficulty", "medium")
    mode = text(data, "mode", "full")
    if difficulty not in rules.DIFFICULTIES:
        raise rules.RuleError(f"difficulty must be one of {', '.join(rules.DIFFICULTIES)}")
    if mode not in SOLO_MODES:
        raise rules.RuleError("mode must be full or quick")
    add_bot = partial(rules.AddBot, difficulty=difficulty)
    setup: list[Callable[[str], rules.Action]] = [add_bot] * (players - 1)
    # Every seat is taken: nobody else can join a game against the computer.
    settings: dict[str, object] = {"max_players": players}
    if difficulty == "hard":
        settings["own_bank"] = "hidden"
    setup.append(lambda host: rules.ChangeSettings(host, settings))
    code = svc.create(g.device_token, text(data, "name"), SOLO_MODES[mode], setup,
                      tls=request.is_secure, kind="solo")
    return done({"code": code}, 201, to=f"/r/{code}")


@bp.post("/r/<code>/join")
def join(code: str) -> ResponseReturnValue:
    svc = services()
    code = room_code(code)
    name = text(form(), "name")
    try:
        view = svc.join(code, g.device_token, name)
    except rules.WrongPhase:
        raise NoSuchRoom(code)  # a game under way is locked: same answer as no room
    return _view(view, code)


@bp.post("/r/<code>/settings")
def settings(code: str) -> ResponseReturnValue:
    svc = services()
    code = room_code(code)
    changes = {k: v for k, v in form().items() if k != "csrf_token"}
    return _view(svc.act(code, g.device_token, lambda pid: rules.ChangeSettings(pid, changes)),
                 code)


@bp.post("/r/<code>/bots")
def seat_bots(code: str) -> ResponseReturnValue:
    svc = services()
    code = room_code(code)
    data = form()
    kind = text(data, "action")
    make: Callable[[str], rules.Action]
    if kind == "add":
        difficulty = text(data, "difficulty", "medium")
        make = lambda pid: rules.AddBot(pid, difficulty)  # noqa: E731
    elif kind == "remove":
        player = text(data, "player") or None
        make = lambda pid: rules.RemoveBot(pid, player)  # noqa: E731
    else:
        raise rules.RuleError("action must be add or remove")
    return _view(svc.act(code, g.device_token, make), code)


@bp.post("/r/<code>/kick")
def kick(code: str) -> ResponseReturnValue:
    svc = services()
    code = room_code(code)
    target = text(form(), "player")
    return _view(svc.kick(code, g.device_token, target), code)


@bp.post("/r/<code>/start")
def start(code: str) -> ResponseReturnValue:
    svc = services()
    code = room_code(code)
    return _view(svc.act(code, g.device_token, rules.Start), code)


@bp.post("/r/<code>/leave")
def leave(code: str) -> ResponseReturnValue:
    svc = services()
    code = room_code(code)
    svc.leave(code, g.device_token)
    return done({"left": True}, to="/")


@bp.post("/r/<code>/lock")
def lock(code: str) -> ResponseReturnValue:
    """The host locks the lobby to new joins (``locked`` true) or opens it (false)."""
    svc = services()
    code = room_code(code)
    value = form().get("locked")
    # Exactly a JSON boolean or the form's words: 1 == True in Python, so the type counts.
    if type(value) not in (bool, str) or value not in (True, False, "true", "false"):
        raise rules.RuleError("locked must be true or false")
    locked = value in (True, "true")
    return _view(svc.act(code, g.device_token, lambda pid: rules.Lock(pid, locked)), code)
