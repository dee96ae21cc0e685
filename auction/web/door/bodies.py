"""A JSON post's body, parsed within bounds.

Every post is one flat object of short strings and small numbers, at most
MAX_CONTENT_LENGTH (16 KiB) long. Python's parser recurses once per level of
nesting, so 5,000 ``[`` raise RecursionError, and it turns any run of digits
into an int, 4,301 of them raising ValueError: each was a 500 with a
traceback. The depth is counted in one pass before parsing, and integers are
read only up to MAX_DIGITS digits; anything past either is a 400.
"""

from __future__ import annotations

import json

from ...game.rules import RuleError

MAX_DEPTH = 8       # a post needs 1; a few more still earn "must be text", not this
MAX_DIGITS = 9      # every number a post carries is below 10**7


def _too_deep(raw: bytes) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:          # backslash
                escaped = True
            elif byte == 0x22:          # closing quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in b"]}":
            depth -= 1
    return False


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise RuleError("numbers have at most %(max)s digits", max=MAX_DIGITS)
    return int(text)


def parse(raw: bytes):
    """The body's JSON value; RuleError (a 400) if it is nested too deep, has too
    long a number, or is not JSON at all."""
    if _too_deep(raw):
        raise RuleError("the body nests deeper than %(max)s levels", max=MAX_DEPTH)
    try:
        return json.loads(raw, parse_int=_integer)
    except RuleError:
        raise
    except ValueError:      # not JSON, or not UTF-8 (UnicodeDecodeError is one too)
        raise RuleError("the body is not valid JSON") from None
