"""The hold socket's messages, the whole closed set (docs/protocol.md, *The hold socket*).

The server sends four: ``in`` (the press counts), ``refused`` (it does not, and
why), ``released`` (the server ended the hold, and why) and ``beat``; the client
sends one, ``release``. Each is written here once, as the exact JSON text that
goes out, and the reasons are closed sets a type checker can hold every sender to.
"""

from __future__ import annotations

import json
from typing import Literal, get_args

from ..game import rules

# Why a press does not count: the rules' own refusals (PressRefused), and the socket's.
Refusal = Literal[rules.Refusal, "no_room", "second_socket", "too_many_holds", "unavailable"]
# Why the server ended a hold.
Ending = Literal["bank_empty", "round_over", "connection_lost", "unavailable"]

REFUSALS: frozenset[str] = frozenset(get_args(Refusal))
ENDINGS: frozenset[str] = frozenset(get_args(Ending))


def in_message(worker: int | None = None) -> str:
    """The press counts; a test server names the worker process that holds it."""
    if worker is None:
        return json.dumps({"type": "in"})
    return json.dumps({"type": "in", "worker": worker})


def refused_message(reason: Refusal) -> str:
    return json.dumps({"type": "refused", "reason": reason})


def released_message(reason: Ending) -> str:
    return json.dumps({"type": "released", "reason": reason})


# With each ping goes this tiny text message, which the page itself can see (a
# protocol ping is invisible to scripts): a page that hears nothing for about a
# second knows its link stalled, and shows that it let go.
BEAT_MESSAGE = json.dumps({"type": "beat"})


def is_release_message(message: str | bytes | None) -> bool:
    """Whether a client's message is its ``{"type": "release"}``."""
    if message is None:
        return False
    try:
        return json.loads(message).get("type") == "release"
    except (ValueError, AttributeError):
        return False
