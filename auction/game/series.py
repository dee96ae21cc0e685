"""A finished game's per-round series, from its final view. Pure: no Flask, no Redis.

The charts (``auction.game.charts``) and the CSV export (``auction.game.export``) both read
these: each player's bid, win, bank and tokens round by round, and the look
(colour, dash pattern, marker) that marks the player in every chart.

Colours: Okabe & Ito's palette, safe for the common colour-vision deficiencies,
with its black swapped for a light grey on the dark theme; every player also has
their own dash pattern and marker shape, so nothing depends on colour alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import views

PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
           "#D9D9D9")
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 4", "1 2", "12 4", "6 2 2 2")
MARKERS = ("circle", "square", "triangle", "diamond", "down", "circle", "square", "triangle")


@dataclass(frozen=True)
class Track:
    """One player's lines: look, and the values after each round (index 0: the start)."""

    id: str
    name: str
    colour: str
    dash: str
    marker: str
    bids: tuple[int | None, ...]    # per round: the bid in ms, or None (sat out)
    won: tuple[bool, ...]           # per round: took the token
    banks: tuple[int, ...]          # len rounds + 1
    tokens: tuple[int, ...]         # len rounds + 1


@dataclass(frozen=True)
class Series:
    rounds: tuple[int, ...]     # round numbers played
    bank_ms: int                # everyone's bank at the start
    tracks: tuple[Track, ...]


def game_series(view: views.View) -> Series:
    """Per-player series of a finished game's view; ValueError before the end."""
    final = view["final"]
    if view["phase"] != "ended" or not final:
        raise ValueError("only a finished game's view has these series")
    start = view["settings"]["bank_ms"]
    history = {h["round"]: h for h in view["history"]}
    rows = final["bids"]
    tracks = []
    for i, p in enumerate(view["players"]):
        bids = tuple(row["bids"].get(p["id"]) for row in rows)
        won = tuple(p["id"] in history[row["round"]]["winners"] for row in rows)
        banks, tokens = [start], [0]
        for bid, w in zip(bids, won):
            banks.append(banks[-1] - (bid or 0))
            tokens.append(tokens[-1] + w)
        k = i % len(PALETTE)
        tracks.append(Track(p["id"], p["name"], PALETTE[k], DASHES[k], MARKERS[k], bids, won,
                            tuple(banks), tuple(tokens)))
    return Series(tuple(row["round"] for row in rows), start, tuple(tracks))
