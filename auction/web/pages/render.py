"""HTML for the room page, rendered only from a player's view.

``partials(view, ctx)`` gives the inner HTML of every live part of the room
page, keyed by the SSE event name the page's ``sse-swap`` attributes listen
for; ``page(view, ctx)`` is the whole room page with the same parts inside.
``ctx`` carries only ``code``, ``csrf_token`` and ``invite_url`` (and, for the
whole page alone, ``join``: the join card's kept name and refusal).

Nothing here reads the game: the stream sends a part again only when its HTML
changes, so the HTML must follow the view exactly. The one time-varying
number, ``deadline_ms``, appears only in a ``data-`` attribute that the page's
script counts down locally.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache, partial

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape
from jinja2.runtime import new_context
from markupsafe import Markup, escape

from ...game.charts import charts as end_charts
from ...game.rules import HOST_TURN_MS, NAME_MAX
from ...game.settings import PRESETS, RANGES, preset_of
from ...game.views import View
from ...server import to_json
from .. import i18n
from . import template_inputs, words
from .words import N_
from .qr import LABEL as QR_LABEL
from .qr import room_qr

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TEMPLATES = os.path.join(_ROOT, "templates")
STATIC = os.path.join(_ROOT, "static")

# The live parts, in page order; each is a template in templates/partials/.
PARTS = ("announce", "status", "final", "result", "me", "lobby", "players", "history",
         "settings")

GAME_PHASES = ("countdown", "free", "spending", "result")


# -- formatting (also Jinja filters): auction/web/pages/words.py, each in English by default --

secs, clock, duration, plural, names = (words.secs, words.clock, words.duration, words.plural,
                                        words.names)
LABELS, STYLES, PRESET_NAMES = words.LABELS, words.STYLES, words.PRESET_NAMES


# How long a game takes, honestly: every round has its countdown, free window and result,
# and its spending phase lasts as long as its top bid. Over a game the top bids add up to a
# number of banks that grows with the rounds, measured over whole games of AI tables of five
# through the rules engine (bench/lengths.py): 0.65 banks for one round (the one winner bids
# part of a bank), 1.0 for two, 1.25 for three, 1.5 for five, 1.85 for nine, 2.3 for 19 --
# within a few hundredths of 0.65 + 0.57 ln(rounds); tables of four and six spend within
# 10 % of it. The old flat 2.5 banks said "about 8 min" for one round of a 3 min bank, which
# cannot last more than 3 min and 13 s.
SPENT_FIRST, SPENT_PER_LOG_ROUND = 0.65, 0.57


def spent_banks(rounds: int) -> float:
    """About how many banks the top bids of a game of ``rounds`` rounds add up to (never
    more than one a round: a top bid is at most a bank)."""
    return min(float(rounds), SPENT_FIRST + SPENT_PER_LOG_ROUND * math.log(max(1, rounds)))


def game_seconds(settings: dict) -> float:
    """About how long a game of these settings lasts, in seconds (docs/ui.md, "The length")."""
    per_round = settings["ready_ms"] + settings["free_ms"] + settings["result_ms"]
    return (settings["rounds"] * per_round
            + spent_banks(settings["rounds"]) * settings["bank_ms"]) / 1000


def game_minutes(settings: dict) -> int:
    """About how many minutes a game of these settings lasts (docs/ui.md has the formula):
    to the minute up to a quarter of an hour, to five minutes above."""
    minutes = max(1, math.ceil(game_seconds(settings) / 60))
    return minutes if minutes <= 15 else 5 * round(minutes / 5)


# The rule books as plain settings, for the home page's choices.
PRESET_SETTINGS = {name: preset.to_dict() for name, preset in PRESETS.items()}


# -- settings: what the host picks from, in human units (option values in ms) --


def _span(name: str, step: int) -> list[int]:
    """Every ``step`` through the rules' range of setting ``name`` (settings.RANGES)."""
    low, high, _ = RANGES[name]
    return list(range(low, high + 1, step))


# The rules say the ranges; this says the steps a host picks among (and the bank's and the
# tie margin's round figures, within their ranges).
_NUMERIC: dict[str, tuple[list[int], Callable[[int, str], str]]] = {
    "rounds": (_span("rounds", 1), lambda n, locale: str(n)),
    "bank_ms": ([30_000, 60_000, 90_000, 120_000, 180_000, 240_000, 300_000, 360_000,
                 420_000, 480_000, 540_000, 600_000, 720_000, 900_000, 1_200_000,
                 1_500_000, 1_800_000], duration),
    "ready_ms": (_span("ready_ms", 1_000), duration),
    "free_ms": (_span("free_ms", 1_000), duration),
    "tie_margin_ms": ([10, 20, 50, 100, 200, 250, 500, 1_000], words.margin),
    "result_ms": (_span("result_ms", 1_000), duration),
}


def choices(name: str, current, low: int = 2, locale: str = "en") -> list[tuple[object, str]]:
    """(value, label) options of a setting; the current value is always one of them."""
    if name in LABELS:
        say = words.say(locale)
        return [(value, say(label)) for value, label in LABELS[name].items()]
    if name == "max_players":
        return [(n, str(n)) for n in _span(name, 1) if n >= low]
    values, label = _NUMERIC[name]
    return [(value, label(value, locale)) for value in sorted(set(values) | {current})]


# -- static assets: versioned URLs so caches can keep them forever ------------


def _asset_versions() -> dict[str, str]:
    versions = {}
    for folder, _, files in os.walk(STATIC):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, STATIC).replace(os.sep, "/")
            with open(path, "rb") as f:
                versions[rel] = hashlib.sha256(f.read()).hexdigest()[:10]
    return versions


ASSET_VERSIONS = _asset_versions()
# Changes whenever any static file changes: names the service worker's cache.
BUILD = hashlib.sha256(repr(sorted(ASSET_VERSIONS.items())).encode()).hexdigest()[:10]


def asset(rel: str) -> str:
    """The URL of a static file, with its content hash as a cache-busting query."""
    version = ASSET_VERSIONS.get(rel)
    return f"/static/{rel}?v={version}" if version else f"/static/{rel}"


# The big screen's sounds (tools/make_sounds.py draws them), by the moment each marks.
TV_SOUNDS = {"tick": "sounds/tick.wav", "go": "sounds/go.wav", "end": "sounds/end.wav",
             "podium": "sounds/podium.wav"}


def address_of(url: str) -> str:
    """A site's URL as a person types it on a TV's keyboard: no scheme, no final slash."""
    return url.partition("://")[2].rstrip("/") or url


def tv_address(invite_url: str) -> str:
    """Where a TV opens the big screen of the room of ``invite_url``: its site's /tv."""
    return address_of(invite_url.partition("/r/")[0]) + "/tv"


def tv_invite(invite_url: str, locale: str = "en") -> Markup:
    """The host's lobby line beside the QR (templates/room.html): where a TV opens the big
    screen, the address in large type. Drawn here so its words are in the catalog."""
    address = Markup('<strong class="tv-address-url">{}</strong>').format(tv_address(invite_url))
    said = escape(i18n.translations(locale).gettext(N_("On a TV, open %(address)s and type the code")))
    return Markup(said) % {"address": address}


def shell_assets() -> list[str]:
    """Static URLs the service worker caches as the app shell (not icons' big twins)."""
    # practice.js: the rules page is in the shell, and its practice hold works offline too.
    # The big screen's script, style and sounds: a TV plays them from the cache, at once.
    keep = ("app.css", "clock.js", "app.js", "hold.js", "feel.js", "practice.js", "learn.css",
            "screen.css", "tv.js", *TV_SOUNDS.values(), "icons/favicon-32.png",
            "icons/icon-192.png")
    vendored = [rel for rel in ASSET_VERSIONS if rel.startswith("vendor/") and rel.endswith(".js")]
    return [asset(rel) for rel in (*keep, *sorted(vendored)) if rel in ASSET_VERSIONS]


def _env(locale: str) -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
        # Templates are read once per process, like the code: a stream draws its parts
        # on every change, and looking at each file's time for each was a system call apiece.
        auto_reload=False,
    )
    # {% trans %} and _() draw from this language's catalog (auction/web/i18n.py); a trans
    # block's whitespace is folded, so a template's line breaks never change a message.
    env.policies["ext.i18n.trimmed"] = True
    # |tojson (the scripts' words, partials/words.html) writes Hangul as itself, not \uXXXX.
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    env.install_gettext_translations(i18n.translations(locale), newstyle=True)  # type: ignore[attr-defined]
    # The filters and the choices write numbers and counts in this language (words.py).
    env.filters.update({name: partial(getattr(words, name), locale=locale) for name in
                        ("secs", "tenths", "clock", "duration", "margin", "names", "plural")})
    env.globals.update(asset=asset, GAME_PHASES=GAME_PHASES, choices=partial(choices, locale=locale),
                       LABELS=LABELS, STYLES=STYLES, PRESET_NAMES=PRESET_NAMES,
                       # The end's charts, their titles and descriptions in this language.
                       charts=partial(end_charts, _=i18n.translations(locale).gettext),
                       STYLE_NAMES=words.STYLE_NAMES, DIFFICULTIES=words.DIFFICULTIES,
                       SETTING_NAMES=words.SETTING_NAMES,
                       preset_of=preset_of, game_minutes=game_minutes, tv_address=tv_address,
                       tv_invite=partial(tv_invite, locale=locale),
                       TV_SOUNDS=TV_SOUNDS,
                       PRESET_SETTINGS=PRESET_SETTINGS, NAME_MAX=NAME_MAX, HOST_TURN_MS=HOST_TURN_MS,
                       LOCALE=locale, LOCALES=i18n.LOCALES, LOCALE_NAMES=i18n.NAMES,
                       here=i18n.here)
    return env


# One environment per language, made once: a stream draws in the language it was opened in.
ENVS = {locale: _env(locale) for locale in i18n.LOCALES}


def _draw(name: str, locale: str, data: dict) -> str:
    """``name`` drawn with ``data``: Template.render, less its copying of every global
    into a new dict and its set of their names, each time (a ChainMap walked twice: a
    stream's small parts spent most of their drawing there). The globals are copied
    once per template; a draw's own dict is one C-level merge."""
    tpl = ENVS.get(locale, ENVS[i18n.DEFAULT]).get_template(name)
    glob = _globals(tpl)
    ctx = new_context(tpl.environment, tpl.name, tpl.blocks, {**glob, **data}, True, glob)
    try:
        html = tpl.environment.concat(tpl.root_render_func(ctx))
    except Exception:
        tpl.environment.handle_exception()
    return i18n.particles(html) if locale == "ko" else html


@lru_cache(maxsize=None)
def _globals(tpl: Template) -> dict:
    """A template's globals (its own and its environment's) as one plain dict; the
    environments are made once at import and templates are never reloaded."""
    return dict(tpl.globals)


def template(name: str, **context) -> str:
    """Render any template of templates/ (also used by pages.py), in the request's language
    unless ``locale`` is given."""
    return _draw(name, context.get("locale") or i18n.current(), context)


# -- the room page ----------------------------------------------------------


def _qr(code: str, url: str, locale: str) -> str:
    """The room's QR code (drawn once), named for a screen reader in ``locale``."""
    return room_qr(code, url).replace(
        f'aria-label="{QR_LABEL}"', f'aria-label="{escape(i18n.gettext(locale, QR_LABEL))}"', 1)


def _context(view: View, ctx: dict) -> dict:
    """What every part sees: the view, ctx, and lookups derived from the view alone."""
    players = {p["id"]: p for p in view["players"]}
    me = view["me"]
    locale = ctx.get("locale") or i18n.current()
    you = i18n.gettext(locale, words.N_("(you)"))

    def name_of(pid):
        return players[pid]["name"] if pid in players else "?"

    def named(pid):
        # Your own name, wherever you see it, is marked the same way: "Dana (you)".
        if me is not None and pid == me["id"]:
            return Markup('{} <span class="you">{}</span>').format(name_of(pid), you)
        return name_of(pid)

    return {
        "v": view,
        "me": me,
        "s": view["settings"],
        "phase": view["phase"],
        "players": players,
        "name_of": name_of,
        "named": named,
        # Markup separators, so a marked name is neither escaped again nor left raw.
        "who": lambda ids: names((escape(named(pid)) for pid in ids), Markup(", "), locale),
        "seated": me is not None and not me.get("left"),
        "code": ctx["code"],
        "csrf_token": ctx.get("csrf_token", ""),
        "invite_url": ctx.get("invite_url", ""),
        # The big screen's: the site phones type the code on (screen.py).
        "site": ctx.get("site", ""),
        "qr_svg": lambda url: _qr(ctx["code"], url, locale),
    }


# Drawing a part once for everyone who sees it alike. A part's HTML is a function of what
# its template reads of the view (template_inputs.py), the room's fixed names (its code,
# the invite link shown or not, the site) and the language -- and of two things that
# differ between two devices seeing the same: the device's form token, and the running
# clocks (``deadline_ms``, ``elapsed_ms``), which differ by the moment each stream draws.
# Both are only ever printed as they are (a token of hex digits; the clocks as integers in
# data attributes, views.RUNNING), so a part is drawn once with marks in their place and
# each device's copy has its own values put in. 176 streams of one room from one address
# drew every part 176 times at each change (a stall of the worker at each phase); now the
# first stream of a change draws and the rest copy.
CSRF_MARK = "csrf" + secrets.token_hex(14)          # as long as a form token, and as safe
CLOCK_MARKS = {"deadline_ms": 9_000_000_000_000_000_001, "elapsed_ms": 9_000_000_000_000_000_002}
DRAWN_MOST = 4096           # parts kept (a few kilobytes each), the least recently used out
_drawn: OrderedDict[tuple, str] = OrderedDict()


def _marked(view: View) -> View:
    """``view`` with its running clocks replaced by their marks (where it has them)."""
    marked = dict(view)
    for field, mark in CLOCK_MARKS.items():
        if marked.get(field) is not None:
            marked[field] = mark
    return marked  # type: ignore[return-value]


def _unmarked(html: str, view: View, csrf: str) -> str:
    """A part drawn with the marks, with this device's values in their place."""
    if CSRF_MARK in html:
        html = html.replace(CSRF_MARK, csrf)
    for field, mark in CLOCK_MARKS.items():
        if view.get(field) is not None:
            html = html.replace(str(mark), str(view[field]))  # type: ignore[literal-required]
    return html


def _shared(key: tuple, draw: Callable[[], str]) -> str:
    """The part of ``key`` as drawn once by this worker (``draw`` if it is not kept)."""
    html = _drawn.get(key)
    if html is None:
        html = _drawn[key] = draw()
        if len(_drawn) > DRAWN_MOST:
            _drawn.popitem(last=False)
    else:
        _drawn.move_to_end(key)
    return html


def partials(view: View, ctx: dict, names: Sequence[str] = PARTS,
             folder: str = "partials", memo: dict | None = None) -> dict[str, str]:
    """The inner HTML of every live part, keyed by its SSE event name
    (the room page's, or another page's: the big screen's live in ``screen/``).

    ``memo`` (a stream's own, kept between calls with the same ``ctx``): a part
    whose template reads only view keys equal to last time is not drawn again,
    its HTML is last time's (template_inputs.py says why that is the same). A part
    this worker drew for another device that sees it alike is copied (``_shared``)."""
    marked = _marked(view)
    locale = ctx.get("locale") or i18n.current()
    fixed = (locale, ctx["code"], ctx.get("invite_url", ""), ctx.get("site", ""))
    csrf = ctx.get("csrf_token", "")
    data: dict | None = None
    out = {}
    for name in names:
        template = f"{folder}/{name}.html"
        inputs = _inputs_of(template)(marked)
        kept = memo.get(name) if memo is not None else None
        if kept is not None and kept[0] == inputs:
            out[name] = _unmarked(kept[1], view, csrf)
            continue
        if data is None:
            data = _context(marked, {**ctx, "csrf_token": CSRF_MARK})
        drawing = data
        html = _shared((template, *fixed, to_json(inputs)),
                       lambda: _draw(template, locale, drawing).strip())
        if memo is not None:
            memo[name] = (inputs, html)
        out[name] = _unmarked(html, view, csrf)
    return out


@lru_cache(maxsize=None)
def _inputs_of(template: str) -> Callable[[View], object]:
    """What ``template``'s drawing of a view depends on, as a function of the view
    (template_inputs.reading), found once per process."""
    return template_inputs.reading(ENVS[i18n.DEFAULT], template)


def warm(parts: dict[str, Sequence[str]]) -> None:
    """Compile every template in every language, and find what each live part (``parts``:
    by folder, the part names) reads, before the worker serves. Done on the way, a fresh
    worker's first room page took 200 ms instead of 18: a stall of its event loop while
    the evening's first rooms arrived, which the door read as a busy worker and turned
    them away (docs/scaling.md)."""
    for env in ENVS.values():
        for name in env.list_templates(filter_func=lambda name: name.endswith(".html")):
            _globals(env.get_template(name))
    for folder, names in parts.items():
        for name in names:
            _inputs_of(f"{folder}/{name}.html")


def page_of(name: str, view: View, ctx: dict) -> str:
    """Another page drawn from a view, with what the parts see (the results page)."""
    return _draw(name, ctx.get("locale") or i18n.current(), {**_context(view, ctx), **ctx})


def page(view: View | None, ctx: dict, name: str = "room.html", parts: Sequence[str] = PARTS,
         folder: str = "partials") -> str:
    """A whole room page (every part included), or a 'no such room' page."""
    if view is None:
        return template("room_missing.html", code=ctx.get("code", ""))
    data = _context(view, ctx)
    # The join card's kept name and refusal: the page's alone, never a streamed part.
    data["join"] = ctx.get("join", {})
    data["parts"] = partials(view, ctx, parts, folder)
    locale = ctx.get("locale") or i18n.current()
    data["qr"] = _qr(ctx["code"], data["invite_url"], locale) if data["invite_url"] else ""
    return _draw(name, ctx.get("locale") or i18n.current(), data)
