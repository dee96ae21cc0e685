"""Answering in the client's language: JSON for JSON clients, HTML for browsers."""

from __future__ import annotations

from flask import jsonify, redirect, request

from ..game.rules import NotAllowed, RoomFull, RuleError, WrongPhase
from .door import bodies
from .pages.render import template
from .pages.words import gettext


def wants_json() -> bool:
    """docs/protocol.md: ``Accept: application/json`` gets JSON, anything else HTML."""
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and "application/json" in request.accept_mimetypes


# What each refusal of the rules means over HTTP (docs/protocol.md).
STATUS = [(NotAllowed, 403), (WrongPhase, 409), (RoomFull, 404), (RuleError, 400)]


def status_of(exc: RuleError) -> int:
    return next(status for kind, status in STATUS if isinstance(exc, kind))


def wants_page() -> bool:
    """A browser's form post: its refusals come back on the page it came from."""
    return not (wants_json() or request.is_json)


def said(message: str) -> str:
    """A refusal's message as a sentence: 'A name is needed.'"""
    message = message[:1].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


def error(status: int, message: str, **values: object):
    """A refusal: ``message`` (English, marked for the catalog where it is written) is
    said in the request's language, ``values`` filled in."""
    message = gettext(message, **values)
    if not wants_page():
        return jsonify(error=message), status
    return template("error.html", status=status, message=message), status


def done(json_body, status: int = 200, to: str = "/"):
    """A successful post: the JSON answer, or a 303 to the page to show."""
    if wants_json():
        return jsonify(json_body), status
    return redirect(to, 303)


def form() -> dict:
    """The post's fields, from a JSON body or a form; a JSON body must be an object, and
    every string in it Unicode text."""
    if request.is_json:
        data = bodies.parse(request.get_data(cache=True))   # bounded: never get_json
        if not isinstance(data, dict):
            raise RuleError("the body must be a JSON object")
    else:
        data = request.form.to_dict()
    for field, value in data.items():
        if not _encodable(field):
            raise RuleError("the body is not valid JSON")
        if not _encodable(value):
            raise RuleError("%(field)s is not valid Unicode text", field=field)
    return data


def _encodable(value: object) -> bool:
    """Whether every string in ``value`` can be written as UTF-8. JSON may spell a lone
    surrogate ("\\ud800"), which Python reads into a str that no cookie, page or log can
    encode: a seated player's name in its cookie raised UnicodeEncodeError (a 500)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_encodable(k) and _encodable(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_encodable(item) for item in value)
    return True


def text(data: dict, name: str, default: str = "") -> str:
    """A field that must be a string (a JSON list or number where a word belongs is 400)."""
    value = data.get(name, default)
    if not isinstance(value, str):
        raise RuleError("%(field)s must be text", field=name)
    return value
