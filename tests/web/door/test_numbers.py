"""Numbers and JSON bodies read within bounds: the pure parsers behind test_bounds.py."""

from __future__ import annotations

import pytest

from auction.game.rules import RuleError
from auction.game.settings import InvalidSettings, PRESETS, whole_number
from auction.web.door import bodies


@pytest.mark.parametrize("value, number", [(7, 7), (" 12 ", 12), ("-3", -3), ("0", 0),
                                           ("999999999", 999_999_999), (2**80, 2**80)])
def test_whole_numbers_are_ints_or_up_to_nine_ascii_digits(value, number):
    assert whole_number(value) == number


@pytest.mark.parametrize("value", [True, False, None, 3.0, "", "²", "٣", "3٣", "+5", "5.0",
                                   "1" * 10, "9" * 5_000, "0" * 5_000 + "3", "-", ["3"]])
def test_anything_else_is_no_whole_number(value):
    assert whole_number(value) is None


@pytest.mark.parametrize("rounds", ["٣", "9" * 5_000, True])
def test_a_setting_refuses_what_is_no_whole_number(rounds):
    with pytest.raises(InvalidSettings, match="rounds must be a whole number"):
        PRESETS["auction"].changed({"rounds": rounds})


def test_a_setting_still_takes_digits_and_ints():
    assert PRESETS["auction"].changed({"rounds": " 7", "bank_ms": 60_000}).rounds == 7


@pytest.mark.parametrize("raw, value", [
    (b'{"name": "Ann", "rounds": 7}', {"name": "Ann", "rounds": 7}),
    (b'{"name": "[[[[[[[[[[{{{{{{{{"}', {"name": "[[[[[[[[[[{{{{{{{{"}),   # in a string
    (b'{"name": "a\\"[[[[[[[[[["}', {"name": 'a"[[[[[[[[[['}),             # escaped quote
    (b"[[[[[[[[1]]]]]]]]", [[[[[[[[1]]]]]]]]),                              # 8 levels: fine
    (b'{"a": -123456789, "b": 1.5e300}', {"a": -123456789, "b": 1.5e300}),
])
def test_bounded_bodies_parse(raw, value):
    assert bodies.parse(raw) == value


@pytest.mark.parametrize("raw, words", [
    (b"[" * 9 + b"]" * 9, "deeper than 8"), (b"[" * 5_000, "deeper"),
    (b'{"a":' * 3_000, "deeper"), (b'{"a": 1234567890}', "at most 9 digits"),
    (b'{"a": -' + b"9" * 5_000 + b"}", "at most 9 digits"), (b"{", "not valid JSON"),
    (b"\xff\xfe{", "not valid JSON"), (b"", "not valid JSON"),
])
def test_deep_long_or_broken_bodies_are_refused(raw, words):
    with pytest.raises(RuleError, match=words):
        bodies.parse(raw)
