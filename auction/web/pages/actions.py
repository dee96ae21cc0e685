"""The posts: create, join, host settings, AI seats, kick, start, leave.

Each answers JSON (the device's view) to JSON clients and a 303 to the page
to browsers, so every form works without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, g, make_response, request
from flask.typing import ResponseReturnValue

from ...game import rules
from ...game.settings import whole_number
from ...server import Conflict, NoSuchRoom, View
from ..door import limits
from ..common import room_code, services
from ..door.hosts import site_url
from .name_cookie import remember
from .home import code_problem, home_page
from ..respond import done, error, form, said, status_of, text, wants_page
from .room import join_refused
from .words import gettext, refusal

bp = Blueprint("actions", __name__)

def _view(view: View, code: str) -> ResponseReturnValue:
    return done(view, to=f"/r/{code}")


def _home_again(data: dict, card: str, exc: Exception) -> ResponseReturnValue:
    """A refused create from the home page: the home page again, what was typed kept and
    the reason next to the field it is about (the name, or the card's choices)."""
    status = status_of(exc) if isinstance(exc, rules.RuleError) else 409     # Conflict
    about = "name" if isinstance(exc, rules.NameTaken) or "name" in str(exc) else card
    return home_page(data, {about: said(refusal(exc))}, status)


# Where on the home page each new game's post comes from: its refusal is told there.
_CARD = {"actions.create_room": "create", "actions.create_solo": "solo", "actions.join": "code"}


def busy_page(message: str, **values: object) -> ResponseReturnValue:
    """A new game this worker is too busy to take now (web/door/capacity.py). A browser's
    post comes back to the page it came from, what was typed kept and the message beside
    the card it pressed, so trying again is one tap; a JSON client, and the rematch (which
    typed nothing), get the plain refusal."""
    if not wants_page() or request.endpoint not in _CARD:
        return error(503, message, **values)
    data = form()
    told = said(gettext(message, **values))
    code = (request.view_args or {}).get("code")
    if code is not None:      # the room page's own card
        return join_refused(room_code(code), text(data, "name"), told, 503, "room")
    return home_page(data, {_CARD[str(request.endpoint)]: told}, 503)


def _created(code: str, name: str) -> ResponseReturnValue:
    return remember(make_response(done({"code": code}, 201, to=f"/r/{code}")), name)


@bp.post("/rooms")
def create_room() -> ResponseReturnValue:
    data = form()
    try:
        return _create_room(data)
    except (rules.RuleError, Conflict) as exc:
        if not wants_page():
            raise
        return _home_again(data, "create", exc)


def _create_room(data: dict) -> ResponseReturnValue:
    preset = text(data, "preset", "auction")     # rules.new_game checks it, first
    name = text(data, "name")
    code = services().create(g.device_token, name, preset, tls=request.is_secure,
                             site=site_url())
    return _created(code, name)


@bp.post("/solo")
def create_solo() -> ResponseReturnValue:
    data = form()
    try:
        return _create_solo(data)
    except (rules.RuleError, Conflict) as exc:
        if not wants_page():
            raise
        return _home_again(data, "solo", exc)


def _create_solo(data: dict) -> ResponseReturnValue:
    """You against AI players (the game's rules.solo says who sits and what is set)."""
    game = rules.solo(whole_number(data.get("players", 5)), text(data, "difficulty", "medium"),
                      text(data, "mode", "full"))
    name = text(data, "name")
    code = services().create(g.device_token, name, game.preset, game.setup,
                             tls=request.is_secure, kind="solo", site=site_url())
    return _created(code, name)


# One endpoint for both, so the home page's join meets the same limits (web/door/limits.py).
@bp.post("/join")
@bp.post("/r/<code>/join")
def join(code: str | None = None) -> ResponseReturnValue:
    """Take a seat: from a room's own page, or from the home page (the code typed)."""
    data = form()
    name = text(data, "name")
    from_home = code is None
    if code is None:
        typed = text(data, "code").strip()
        problem = code_problem(typed)
        if problem:
            if not wants_page():
                raise NoSuchRoom(typed.upper())
            return home_page(data, {"code": problem}, 400)   # said without a look-up
        code = typed
    code = room_code(code)
    try:
        view = services().join(code, g.device_token, name)
    except (rules.RuleError, NoSuchRoom, Conflict) as exc:
        if wants_page():
            return _join_refused(code, data, exc, from_home)
        if isinstance(exc, rules.WrongPhase):
            raise NoSuchRoom(code)  # a game under way is locked: same answer as no room
        raise
    return remember(make_response(_view(view, code)), name)


def _join_refused(code: str, data: dict, exc: Exception, from_home: bool) -> ResponseReturnValue:
    """A refused join, told on the page it came from. What JSON answers 404 (no room, a
    full one, a game under way) counts as a miss here too: no faster way to probe codes."""
    if isinstance(exc, rules.WrongPhase):
        status, about = 404, "code"
        message = gettext("The game in room %(code)s has already started, so nobody new can "
                          "join.", code=code)
    elif isinstance(exc, rules.RoomFull):
        status, about = 404, "code"
        message = gettext("Room %(code)s is full. Ask the host to make room.", code=code)
    elif isinstance(exc, NoSuchRoom):
        status, about = 404, "code"
        message = gettext("There is no open room %(code)s. Check the code with the host.",
                          code=code)
    else:
        status = status_of(exc) if isinstance(exc, rules.RuleError) else 409  # Conflict
        about = "name" if isinstance(exc, rules.NameTaken) or "name" in str(exc) else "code"
        message = said(refusal(exc))
    if status == 404:
        limits.missed_room()
    if from_home:
        return home_page(data, {about: message}, status)
    return join_refused(code, text(data, "name"), message, status,
                        "name" if about == "name" else "room")


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
        raise rules.RuleError("%(field)s must be %(one)s or %(other)s", field="action", one="add",
                              other="remove")
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
        raise rules.RuleError("%(field)s must be %(one)s or %(other)s", field="locked", one="true",
                              other="false")
    locked = value in (True, "true")
    return _view(svc.act(code, g.device_token, lambda pid: rules.Lock(pid, locked)), code)
