"""The view's contract: docs/protocol.md ("The view (JSON)"), the type views.View, and
the views themselves name the same keys, in the same order, with values of the same kinds.

Every byte a player receives comes from ``views.view_for``, whose result is typed
``View`` (TypedDicts, nested). Three ways that can drift apart, each checked here:

* the JSON examples of the protocol's view section against the type, both ways: every
  key documented is in the type and every key of the type is documented, nested parts
  too, in the type's order, each example value of a kind the type allows;
* real views of many game states against the type: exactly its keys, in its order, and
  every value of its declared kind (so a key added to ``view_for`` alone, or to the type
  alone, fails here -- and one added to both fails the documentation check);
* ``Settings`` (the dataclass) against ``SettingsDict``, the settings' plain form.
"""

from __future__ import annotations

import json
import re
import types
import typing
from dataclasses import fields
from pathlib import Path

import pytest

import endgames
from auction.game import rules, views
from auction.game.settings import Settings, SettingsDict
from scenario import game, lobby, settings
from test_views import after_round, finished

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
SECTION = "## The view (JSON)"


# -- reading the contract -----------------------------------------------------------------


def documented_examples() -> list[dict]:
    """The JSON examples of the protocol's view section, parsed."""
    text = PROTOCOL.read_text()
    assert SECTION in text, f"docs/protocol.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1]
    section = re.split(r"^## ", section, maxsplit=1, flags=re.M)[0]
    blocks = re.findall(r"^```json\n(.*?)^```", section, flags=re.M | re.S)
    assert blocks, "the view section has no JSON example"
    return [json.loads(block) for block in blocks]


def hints(typed_dict: type) -> dict[str, object]:
    """A TypedDict's keys and their types, in declaration order (the order sent)."""
    assert typing.is_typeddict(typed_dict), typed_dict
    assert not typed_dict.__optional_keys__, "every key of the view is always sent"
    found = typing.get_type_hints(typed_dict)
    assert set(found) == typed_dict.__required_keys__
    return found


def parts(hint: object) -> tuple[object, bool]:
    """(the type without None, whether None is allowed)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        assert len(args) == 1, hint
        return args[0], len(args) < len(typing.get_args(hint))
    return hint, False


# -- one checker for documented examples and real views ------------------------------------


class Check:
    """Walks a JSON value along a type, collecting where it disagrees.

    ``partial_root``: the value at the top may name only some of the type's keys (a
    documented example that shows one part of the view); nested objects never may.
    """

    def __init__(self, partial_root: bool = False):
        self.partial_root = partial_root
        self.problems: list[str] = []
        self.seen: set[tuple[str, str]] = set()      # (path, "null" | "value")
        self.objects: set[type] = set()               # the TypedDicts met with a value

    def __call__(self, value: object, hint: object, path: str = "view") -> None:
        inner, nullable = parts(hint)
        if value is None:
            self.seen.add((path, "null"))
            if not nullable:
                self.problems.append(f"{path}: null, but {hint} does not allow it")
            return
        self.seen.add((path, "value"))
        if typing.is_typeddict(inner):
            self._object(value, inner, path)
        elif typing.get_origin(inner) is list:
            if not isinstance(value, list):
                self.problems.append(f"{path}: {value!r} is no list")
                return
            (item,) = typing.get_args(inner)
            for element in value:
                self(element, item, f"{path}[]")
        elif typing.get_origin(inner) is dict:        # keyed by player id: no fixed keys
            if not isinstance(value, dict):
                self.problems.append(f"{path}: {value!r} is no object")
                return
            key_type, item = typing.get_args(inner)
            assert key_type is str, inner
            for element in value.values():
                self(element, item, f"{path}{{}}")
        elif type(value) is not inner:                # exact: a bool is no int, nor 1 a bool
            self.problems.append(f"{path}: {value!r} is a {type(value).__name__}, not {inner}")

    def _object(self, value: object, typed_dict: type, path: str) -> None:
        if not isinstance(value, dict):
            self.problems.append(f"{path}: {value!r} is no object")
            return
        self.objects.add(typed_dict)
        declared = hints(typed_dict)
        keys = list(value)
        extra = [k for k in keys if k not in declared]
        missing = [k for k in declared if k not in value]
        if extra:
            self.problems.append(f"{path}: {extra} not in {typed_dict.__name__}")
        if missing and not (self.partial_root and path == "view"):
            self.problems.append(f"{path}: {typed_dict.__name__}'s {missing} missing")
        if [k for k in declared if k in value] != [k for k in keys if k in declared]:
            self.problems.append(f"{path}: keys in the order {keys}, "
                                 f"not {typed_dict.__name__}'s {list(declared)}")
        for key in keys:
            if key in declared:
                self(value[key], declared[key], f"{path}.{key}")


def typed_dicts(hint: object, found: set[type] | None = None) -> set[type]:
    """Every TypedDict the type is made of."""
    found = set() if found is None else found
    inner, _ = parts(hint)
    if typing.is_typeddict(inner):
        if inner not in found:
            found.add(inner)
            for nested in hints(inner).values():
                typed_dicts(nested, found)
    for arg in typing.get_args(inner):
        typed_dicts(arg, found)
    return found


# -- the documentation and the type ------------------------------------------------------


def test_the_documented_view_has_exactly_the_types_keys_in_order_and_kinds():
    examples = documented_examples()
    check = Check(partial_root=True)
    for example in examples:
        check(example, views.View)
    assert not check.problems, "\n".join(check.problems)
    # The examples together show every key of the view...
    shown = [k for example in examples for k in example]
    assert set(shown) == set(hints(views.View)), set(hints(views.View)) ^ set(shown)
    # ...and the first, the whole view, in the order it is sent.
    assert list(examples[0]) == list(hints(views.View))
    # Every part of the view is documented with a value, not only as null.
    undocumented = typed_dicts(views.View) - check.objects
    assert not undocumented, f"no example shows {sorted(t.__name__ for t in undocumented)}"


def test_a_key_the_documentation_lacks_or_adds_is_found():
    """The check itself: a view with a key more, or one fewer, than documented."""
    whole = documented_examples()[0]
    for broken in ({**whole, "secret": 1}, {k: v for k, v in whole.items() if k != "locked"},
                   {**whole, "me": {**whole["me"], "bank_ms": "512300"}},
                   {**whole, "locked": None}, dict(reversed(whole.items()))):
        check = Check()
        check(broken, views.View)
        assert check.problems, broken


def test_the_settings_plain_form_is_every_setting_in_order():
    assert list(hints(SettingsDict)) == [f.name for f in fields(Settings)]
    assert list(Settings().to_dict()) == [f.name for f in fields(Settings)]
    check = Check()
    for preset in rules.PRESETS.values():
        check(preset.to_dict(), SettingsDict, "settings")
    assert not check.problems, check.problems


# -- real views and the type ------------------------------------------------------------


def real_views() -> list[views.View]:
    """Views of many states, for seats and spectators, so every nullable field is met both
    null and with a value."""
    states = [
        lobby("p1", "p2"),
        rules.apply(lobby("p1", "p2"), rules.AddBot("p1", "hard"), 0)[0],   # a style shown
        game("countdown", ("p1", "b2", "p3"), bots=("b2",)),
        game("spending", holds={"p1": 0, "p2": (0, 9_000)}, history=[({"p1": 100}, ("p1",))]),
        after_round(),
        after_round(reveal="winning_bid"),
        after_round(reveal="all_bids", own_bank="hidden"),
        finished(),
        finished(reveal="all_bids"),
        game("result", result_end=20_000, settings=settings(tie_rule="all"),
             history=[({"p1": 4_000, "p2": 4_000}, ("p1", "p2"))]),
    ]
    states.append(rules.apply(finished(), rules.Rematch("p1", "WXYZ"), 0)[0])
    states += list(endgames.scenarios().values())
    out = []
    for state in states:
        for pid in [p.id for p in state.players] + [None, "stranger"]:
            for now in (0, 1_000, 9_000, 16_000, 10**12):
                out.append(views.view_for(state, pid, now))
    return out


@pytest.fixture(scope="module")
def many_views() -> list[views.View]:
    return real_views()


def test_every_real_view_has_exactly_the_types_keys_in_order_and_kinds(many_views):
    check = Check()
    for view in many_views:
        check(view, views.View)
    assert not check.problems, "\n".join(sorted(set(check.problems))[:20])
    # Not a hollow pass: every part of the type was met, and every field that may be
    # null was met both null and with a value.
    assert check.objects == typed_dicts(views.View)
    nullable = {path for path, _ in check.seen if (path, "null") in check.seen}
    half = {path for path in nullable if (path, "value") not in check.seen}
    assert not half, f"only ever null in these views: {sorted(half)}"
    assert {"view.me", "view.final", "view.rematch", "view.deadline_ms", "view.me.bank_ms",
            "view.players[].difficulty", "view.players[].style", "view.history[].winner",
            "view.history[].my_bid_ms", "view.history[].winning_bid_ms",
            "view.history[].bids", "view.history[].bids{}", "view.history[].clock_ms",
            "view.final.bids[].bids{}"} <= nullable


def test_the_json_sent_is_the_views_keys_in_the_types_order(many_views):
    """Key order makes the bytes: the JSON of a view lists the type's keys in order."""
    for view in many_views[:50]:
        sent = json.loads(json.dumps(view))
        assert list(sent) == list(hints(views.View))
        if sent["me"] is not None:
            assert list(sent["me"]) == list(hints(views.MeView))
