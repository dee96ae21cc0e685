"""The room's words and numbers, per language: what render.py's templates format and name.

English is written here as the game has always said it ("12.3 s", "1 min 30 s",
"Ann, Bob and Cy"); Korean gets its own forms, with Babel's digits ("12.3초",
"1분 30초", "민수, 지연, 철수": a list with no particle, so Latin names read alike).
The labels of the settings, the AI styles and the rule books are catalog words
(``N_`` marks them for extraction; a template says them with ``_()``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal

from babel.numbers import format_decimal
from markupsafe import Markup

from .. import i18n


def N_(message: str) -> str:
    """Marks a word for the catalog where it is written; it is translated where it is said."""
    return message


# -- numbers and durations ---------------------------------------------------


def _tenths(ms: int, locale: str) -> str:
    """Seconds to a tenth, truncated like the rules: '12.3'."""
    if locale == "en":
        return f"{ms // 1000}.{ms % 1000 // 100}"
    return format_decimal(Decimal(ms // 100) / 10, format="0.0", locale=locale)


def tenths(ms: int | None, locale: str = "en") -> str:
    """A bid as its number alone, as a table of bids shows it: '12.3'."""
    return "—" if ms is None else _tenths(ms, locale)


def secs(ms: int | None, locale: str = "en") -> str:
    """A bid or a duration as seconds to a tenth, truncated like the rules: '12.3 s'."""
    if ms is None:
        return "—"
    return i18n.gettext(locale, N_("%(s)s s"), s=_tenths(ms, locale))


def clock(ms: int | None, locale: str = "en") -> str:
    """A bank as m:ss.t, truncated to the tenth: '9:47.3' (Korean reads a clock the same)."""
    if ms is None:
        return "—"
    return f"{ms // 60_000}:{ms // 1000 % 60:02d}.{ms % 1000 // 100}"


def duration(ms: int, locale: str = "en") -> str:
    """A setting in words: '10 min', '1 min 30 s', '5 s', '0.1 s' (every unit a catalog word,
    English too, so the pseudo-locale sees them)."""
    if ms % 1000:
        return secs(ms, locale)
    s = ms // 1000
    if s < 60:
        return i18n.gettext(locale, N_("%(s)s s"), s=s)
    m, s = divmod(s, 60)
    if s:
        return i18n.gettext(locale, N_("%(m)s min %(s)s s"), m=m, s=s)
    return i18n.gettext(locale, N_("%(m)s min"), m=m)


def margin(ms: int, locale: str = "en") -> str:
    """The tie margin: '50 ms' (Korean says it in seconds, as its apps do: '0.05초')."""
    if locale == "en":
        return i18n.gettext(locale, N_("%(ms)s ms"), ms=ms)
    return i18n.gettext(locale, N_("%(s)s s"), s=format_decimal(Decimal(ms) / 1000, locale=locale))


# -- counts and lists ---------------------------------------------------------


def _counted(locale: str) -> dict[str, Callable[[int], str]]:
    """The counted nouns the pages use, as whole catalog phrases (Korean: '19라운드')."""
    t = i18n.translations(locale)
    return {
        "round": lambda n: t.ngettext("%(num)d round", "%(num)d rounds", n) % {"num": n},
        "token": lambda n: t.ngettext("%(num)d token", "%(num)d tokens", n) % {"num": n},
        "player": lambda n: t.ngettext("%(num)d player", "%(num)d players", n) % {"num": n},
        "AI player": lambda n: t.ngettext("%(num)d AI player", "%(num)d AI players", n)
        % {"num": n},
    }


def plural(n: int, word: str, words: str | None = None, locale: str = "en") -> str:
    """A count with its noun: '1 round', '2 rounds' (``words`` for an irregular plural)."""
    if word in _counted(locale):
        return _counted(locale)[word](n)
    return f"{n} {word if n == 1 else words or word + 's'}"


def names(items: Iterable, sep: str = ", ", locale: str = "en") -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cy' (Korean: '민수, 지연, 철수': "과(와)" before the
    last name read "Ada과(와) Boole" for AI players). Marked-up names stay Markup, and a plain one is
    escaped among them."""
    items = list(items)
    if len(items) < 2:
        return items[0] if items else ""     # the item itself: a Markup name stays Markup
    both = {"most": sep.join(items[:-1]), "last": items[-1]}
    joined = i18n.translations(locale).gettext(N_("%(most)s and %(last)s"))
    if any(isinstance(v, Markup) for v in both.values()):
        return Markup(joined) % both
    return joined % both


# -- the settings, the AI styles and the rule books, as players read them ------

LABELS = {
    "tie": {"tenth": N_("same tenth of a second"), "margin": N_("within a margin")},
    "tie_rule": {"nobody": N_("nobody wins"), "all": N_("every tied player wins a token")},
    "reveal": {"winner": N_("the winner only"), "winning_bid": N_("the winner and the top bid"),
               "all_bids": N_("every bid")},
    "own_bank": {"shown": N_("always shown"), "toggle": N_("a “Show my bank” switch"),
                 "hidden": N_("hidden — keep count")},
    "rank_ties": {"time_left": N_("more time left places higher"),
                  "shared": N_("tied players share the place")},
    "suspense": {"off": N_("as soon as everyone has let go"),
                 "on": N_("after a secret pause of 0–3 s")},
}

# The AI players' styles, as the lobby explains them (docs/ai.md).
STYLES = {"aggressive": N_("bids in most rounds"), "patient": N_("skips more, bids bigger"),
          "random": N_("hard to read")}
# The style's own name, shown before its explanation.
STYLE_NAMES = {"aggressive": N_("aggressive"), "patient": N_("patient"), "random": N_("random")}
DIFFICULTIES = {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")}

PRESET_NAMES = {"auction": N_("Time Auction"), "quick": N_("Time Auction quick"),
                "stake": N_("Time Stake")}

# The room's settings by name, as the settings card heads them (and a refusal names them).
SETTING_NAMES = {
    "rounds": N_("Rounds"), "bank_ms": N_("Time bank"), "ready_ms": N_("Countdown before go"),
    "free_ms": N_("Free window after go"), "tie": N_("Tie test"), "tie_margin_ms": N_("Tie margin"),
    "tie_rule": N_("On a tie"), "reveal": N_("After each round everyone sees"),
    "own_bank": N_("Your own bank"), "rank_ties": N_("Tokens tied at the end"),
    "result_ms": N_("Result shown for"), "suspense": N_("Suspense: each result comes"),
    "max_players": N_("Most players"), "min_players": N_("Fewest players"),
}


def say(locale: str) -> Callable[[str], str]:
    """A word of the tables above in ``locale`` (unknown words as they are)."""
    return lambda word: i18n.translations(locale).gettext(word) if word else word


# -- what the server says to a player: refusals and errors -------------------

# The server layer's words (a Conflict's message), marked here for the catalog.
CONFLICTS = (N_("no free room code"), N_("the room is busy; try again"))


def gettext(message: str, **values: object) -> str:
    """``message`` in the language of the request being answered, values filled in."""
    return i18n.gettext(i18n.current(), message, **values)


def refusal(exc: Exception, locale: str | None = None) -> str:
    """Why the rules (or the server) refused, in ``locale`` (default: the request's).
    English is ``str(exc)`` as ever; another language translates the rule's message and
    fills in its values, a setting's name said as the settings card says it."""
    locale = locale or i18n.current()
    message, params = getattr(exc, "message", None), dict(getattr(exc, "params", {}))
    if message is None:
        return i18n.gettext(locale, str(exc))
    setting = params.get("setting")
    if locale != "en" and isinstance(setting, str):
        params["setting"] = say(locale)(SETTING_NAMES.get(setting, setting))
    return i18n.gettext(locale, message, **params)
