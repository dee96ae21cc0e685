"""The end-of-game charts as SVG, drawn from the final view and nothing else.

Pure: ``series.game_series(view)`` turns a finished game's view
(``views.view_for`` once the phase is ``ended``) into per-round series, and
the three chart functions draw them -- banks over the rounds, every bid of every round,
tokens over the rounds. No Flask, no Redis, no clock.

Hand-written rather than pygal: pygal styles its charts with an inline
``<style>`` and a config ``<script>`` in every SVG (both refused by the
page's CSP, ``style-src 'self'``), colours series through class names of
its own stylesheet, marks single values only with ``style`` attributes (also
refused), and stamps a random id on each chart, so the same view would never
render to the same bytes (the stream resends a part whenever its bytes
change). Using it would mean post-processing its tree and copying its CSS --
more code than these three charts. Colours here are presentation attributes
(``stroke=``/``fill=``), which the CSP allows; sizes are in viewBox units, so
the charts scale to the screen.

Colours, dash patterns and markers per player come with the series
(``auction.game.series``).

Words: each function that writes some takes ``_``, a translate callable (the web layer
passes its language's gettext; English by default), and calls ``_("...")`` on whole
sentences with %(name)s places, so the catalog's extraction finds them and a language
can order a sentence its own way. The game layer itself knows no catalog.
"""

from __future__ import annotations

import math
from html import escape
from typing import Callable, Sequence, TypedDict

from . import views
from .series import Series, Track, game_series

INK, MUTED, GRID = "#eef1f6", "#b4bccb", "#353d52"

WIDTH = 340          # viewBox width; the page scales the chart to its column
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 10, 30
FONT = 12

Translate = Callable[[str], str]


def _same(message: str) -> str:
    """English: the words as written."""
    return message


# -- formatting ---------------------------------------------------------------


def clock(ms: int) -> str:
    """A bank as m:ss.t, truncated to the tenth (as on the rest of the page)."""
    return f"{ms // 60_000}:{ms // 1000 % 60:02d}.{ms % 1000 // 100}"


def secs(ms: int, _: Translate = _same) -> str:
    return _("%(s)s s") % {"s": f"{ms // 1000}.{ms % 1000 // 100}"}


def _n(x: float) -> str:
    """Coordinates to a tenth, so the same view always gives the same bytes."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _ticks(rounds: tuple[int, ...]) -> list[int]:
    """Which x positions (0 = start) get a label: all of them for short games."""
    n = len(rounds)
    step = 1 if n <= 10 else 5
    return sorted({0, n, *range(step, n, step)})


def marker(shape: str, x: float, y: float, colour: str, r: float = 4.0) -> str:
    """A small filled shape; the same shapes mark players in the legend."""
    if shape == "circle":
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{colour}"/>'
    if shape == "square":
        return (f'<rect x="{_n(x - r)}" y="{_n(y - r)}" width="{_n(2 * r)}" height="{_n(2 * r)}" '
                f'fill="{colour}"/>')
    points = {"triangle": ((0, -1.2), (1.1, .8), (-1.1, .8)),
              "down": ((0, 1.2), (1.1, -.8), (-1.1, -.8)),
              "diamond": ((0, -1.3), (1.1, 0), (0, 1.3), (-1.1, 0))}[shape]
    pts = " ".join(f"{_n(x + dx * r)},{_n(y + dy * r)}" for dx, dy in points)
    return f'<polygon points="{pts}" fill="{colour}"/>'


def _svg(key: str, title: str, desc: str, height: float, body: list[str], prefix: str) -> str:
    """The chart: one image for screen readers, named by its title and description."""
    tid, did = f"{prefix}{key}-title", f"{prefix}{key}-desc"
    return (f'<svg class="chart chart-{key}" viewBox="0 0 {WIDTH} {_n(height)}" role="img" '
            f'aria-labelledby="{tid} {did}" xmlns="http://www.w3.org/2000/svg" '
            f'font-size="{FONT}" font-family="system-ui, sans-serif">'
            f'<title id="{tid}">{escape(title)}</title><desc id="{did}">{escape(desc)}</desc>'
            + "".join(body) + "</svg>")


# -- line charts: banks and tokens ------------------------------------------


def _lines(s: Series, key: str, values: Callable[[Track], Sequence[int]], ticks_y: list[int],
           labels: Callable[[int], str], title: str, desc: str, prefix: str, step: bool,
           _: Translate = _same) -> str:
    height = 200
    plot_w, plot_h = WIDTH - LEFT - RIGHT, height - TOP - BOTTOM
    n = max(len(s.rounds), 1)
    low, top = ticks_y[0], ticks_y[-1]

    def x(i: int) -> float:
        return LEFT + plot_w * i / n

    def y(v: int) -> float:
        return TOP + plot_h * (1 - (v - low) / (top - low))

    body = []
    for v in ticks_y:
        body.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{_n(y(v))}" y2="{_n(y(v))}" '
                    f'stroke="{GRID}" stroke-width="1"/>')
        body.append(f'<text x="{LEFT - 5}" y="{_n(y(v) + 4)}" text-anchor="end" '
                    f'fill="{MUTED}">{escape(labels(v))}</text>')
    for i in _ticks(s.rounds):
        body.append(f'<text x="{_n(x(i))}" y="{height - BOTTOM + 16}" text-anchor="middle" '
                    f'fill="{MUTED}">{i}</text>')
    axis = escape(_("round"))     # not inside the f-string: extraction reads no f-strings
    body.append(f'<text x="{_n(LEFT + plot_w / 2)}" y="{height - 3}" text-anchor="middle" '
                f'fill="{MUTED}">{axis}</text>')
    # Lines that coincide (everyone starts at the same bank, many sit out) are
    # moved apart by a pixel or two so each stays visible.
    count = len(s.tracks)
    for k, t in enumerate(s.tracks):
        off = (k - (count - 1) / 2) * 1.6
        pts = []
        for i, v in enumerate(values(t)):
            if step and i:
                pts.append((x(i), y(values(t)[i - 1]) + off))
            pts.append((x(i), y(v) + off))
        dash = f' stroke-dasharray="{t.dash}"' if t.dash else ""
        path = " ".join(f"{_n(px)},{_n(py)}" for px, py in pts)
        body.append(f'<g class="track" data-player="{escape(t.id)}">'
                    f'<polyline points="{path}" fill="none" stroke="{t.colour}" stroke-width="2.4" '
                    f'stroke-linejoin="round"{dash}/>'
                    + marker(t.marker, *pts[-1], t.colour) + "</g>")
    return _svg(key, title, desc, height, body, prefix)


# Steps of the bank axis (ms): round numbers of seconds and minutes.
BANK_STEPS = (1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000)


def bank_ticks(start: int, lowest: int) -> list[int]:
    """At most five round-number ticks: from zero when half the bank or more was
    spent, else zoomed in below the start, so that small bids still show."""
    if lowest * 2 < start:
        step = next(k for k in BANK_STEPS if 4 * k >= start)
        return list(range(0, -(-start // step) * step + 1, step))
    step = next(k for k in BANK_STEPS if 4 * k >= start - lowest)
    return [start - step * i for i in range(4, -1, -1)]


def _bank_label(ms: int) -> str:
    return clock(ms) if ms % 1000 else clock(ms)[:-2]


def bank_chart(s: Series, prefix: str = "", _: Translate = _same) -> str:
    """Each player's bank after every round."""
    ticks = bank_ticks(s.bank_ms, min((b for t in s.tracks for b in t.banks), default=0))
    ends = "; ".join(_bank_story(s, t, _) for t in s.tracks)
    scale = (" " + _("The scale runs from %(low)s to %(high)s.")
             % {"low": clock(ticks[0]), "high": clock(ticks[-1])}) if ticks[0] else ""
    start = _("Everyone started with %(bank)s.") % {"bank": clock(s.bank_ms)}
    return _lines(s, "bank", lambda t: t.banks, ticks, _bank_label,
                  _("Time left after each round"), f"{start} {ends}.{scale}", prefix,
                  step=False, _=_)


def _bank_story(s: Series, t: Track, _: Translate = _same) -> str:
    dry = next((s.rounds[i - 1] for i, b in enumerate(t.banks) if i and b <= 0), None)
    if dry is not None:
        return _("%(name)s ran out of time in round %(round)s") % {"name": t.name, "round": dry}
    return _("%(name)s ended with %(bank)s") % {"name": t.name, "bank": clock(t.banks[-1])}


def tokens_chart(s: Series, prefix: str = "", _: Translate = _same) -> str:
    """Each player's token count after every round, as steps."""
    top = max((t.tokens[-1] for t in s.tracks), default=0)
    step = 1 if top <= 6 else 2 if top <= 12 else 5
    ticks = list(range(0, max(top, 1) + 1, step))
    ends = "; ".join(f"{t.name} {t.tokens[-1]}" for t in s.tracks)
    if ticks[-1] < top:
        ticks.append(ticks[-1] + step)
    return _lines(s, "tokens", lambda t: t.tokens, ticks, str, _("Tokens after each round"),
                  _("Tokens at the end: %(ends)s.") % {"ends": ends}, prefix, step=True, _=_)


# -- the bid grid ------------------------------------------------------------

ROW = 30
NAME_W = 76


def bids_chart(s: Series, prefix: str = "", _: Translate = _same) -> str:
    """Every bid of every round: a row per player, a bar per round (height to
    scale), a star over each winning bid, a ring where the player sat out."""
    n = max(len(s.rounds), 1)
    col = (WIDTH - NAME_W - RIGHT) / n
    top = max((b for t in s.tracks for b in t.bids if b), default=0) or 1
    height = TOP + ROW * len(s.tracks) + BOTTOM
    body = []
    for r, t in enumerate(s.tracks):
        base = TOP + ROW * (r + 1) - 4
        label = t.name if len(t.name) <= 8 else t.name[:7] + "…"
        body.append(f'<g class="row" data-player="{escape(t.id)}">'
                    f'<text x="{NAME_W - 18}" y="{_n(base - 6)}" text-anchor="end" '
                    f'fill="{INK}">{escape(label)}</text>'
                    + marker(t.marker, NAME_W - 10, base - 10, t.colour, 3.5)
                    + f'<line x1="{NAME_W}" x2="{WIDTH - RIGHT}" y1="{_n(base)}" y2="{_n(base)}" '
                      f'stroke="{GRID}"/>')
        for i, (bid, won) in enumerate(zip(t.bids, t.won)):
            cx = NAME_W + col * (i + .5)
            if bid is None:     # a ring: a shape no bar can be mistaken for
                ring = min(2.6, col * .3)
                body.append(f'<circle class="sat-out" cx="{_n(cx)}" cy="{_n(base - ring - 1)}" '
                            f'r="{_n(ring)}" fill="none" stroke="{MUTED}" stroke-width="1.2"/>')
                continue
            h = max(3.0, (ROW - 11) * bid / top)
            w = min(18.0, max(2.0, col * .6))
            body.append(f'<rect class="bid{" won" if won else ""}" x="{_n(cx - w / 2)}" '
                        f'y="{_n(base - h)}" width="{_n(w)}" height="{_n(h)}" fill="{t.colour}"/>')
            if won:
                body.append(_star(cx, base - h - 5))
        body.append("</g>")
    for i in _ticks(s.rounds):
        if i:
            body.append(f'<text x="{_n(NAME_W + col * (i - .5))}" y="{height - BOTTOM + 14}" '
                        f'text-anchor="middle" fill="{MUTED}">{i}</text>')
    axis = escape(_("round"))
    body.append(f'<text x="{_n(NAME_W + (WIDTH - NAME_W - RIGHT) / 2)}" y="{height - 3}" '
                f'text-anchor="middle" fill="{MUTED}">{axis}</text>')
    lines = "; ".join(_bid_story(t, _) for t in s.tracks)
    desc = (_("A bar for each bid, its height to scale (the tallest is %(top)s); "
              "a star marks a bid that won the token, a ring a round sat out.")
            % {"top": secs(top, _)}) + f" {lines}."
    return _svg("bids", _("Every bid of every round"), desc, height, body, prefix)


def _star(x: float, y: float, r: float = 4.2) -> str:
    """A five-pointed star: the winner's mark (a shape, not a colour)."""
    pts = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * .45
        angle = math.pi * k / 5 - math.pi / 2
        pts.append(f"{_n(x + radius * math.cos(angle))},{_n(y + radius * math.sin(angle))}")
    return f'<polygon class="win-mark" points="{" ".join(pts)}" fill="{INK}"/>'


def _bid_story(t: Track, _: Translate = _same) -> str:
    made = [b for b in t.bids if b is not None]
    if not made:
        return _("%(name)s never bid") % {"name": t.name}
    return (_("%(name)s bid in %(made)s of %(rounds)s rounds, won %(won)s, top bid %(top)s")
            % {"name": t.name, "made": len(made), "rounds": len(t.bids), "won": sum(t.won),
               "top": secs(max(made), _)})


def swatch(t: Track) -> str:
    """The player's line and marker, as drawn in the charts: for the legend."""
    dash = f' stroke-dasharray="{t.dash}"' if t.dash else ""
    return (f'<svg class="swatch" viewBox="0 0 28 12" width="28" height="12" aria-hidden="true" '
            f'focusable="false" xmlns="http://www.w3.org/2000/svg"><line x1="1" x2="27" y1="6" '
            f'y2="6" stroke="{t.colour}" stroke-width="2.4"{dash}/>'
            + marker(t.marker, 14, 6, t.colour, 3.6) + "</svg>")


class Drawn(TypedDict):
    """What the charts partial shows."""

    series: Series
    legend: list[tuple[Track, str]]     # each player's track and swatch
    bank: str
    bids: str
    tokens: str


def charts(view: views.View, prefix: str = "chart-", _: Translate = _same) -> Drawn:
    """Everything the charts partial shows: the series, the legend and the three SVGs,
    their words in the language of ``_``."""
    s = game_series(view)
    return {"series": s, "legend": [(t, swatch(t)) for t in s.tracks],
            "bank": bank_chart(s, prefix, _), "bids": bids_chart(s, prefix, _),
            "tokens": tokens_chart(s, prefix, _)}
