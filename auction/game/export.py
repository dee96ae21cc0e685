"""A finished game as a CSV table, from its final view. Pure: no Flask, no Redis.

One row per player per round ("tidy" data: every row stands alone, so a
spreadsheet can filter and pivot it): the bid (empty = sat out), whether it
won the token, the bank and tokens after that round, the player's final
place, and the room's settings. The JSON export is the final view itself.

Names are typed by players; one that starts like a spreadsheet formula
(``=``, ``+``, ``-``, ``@``) is written with a leading apostrophe, so opening
the file never runs it (OWASP's advice on CSV injection).
"""

from __future__ import annotations

import csv
import io

from . import views
from .series import game_series

PLAYER_COLUMNS = ("code", "round", "player_id", "name", "bot", "difficulty", "left", "host",
                  "bid_ms", "won", "bank_after_ms", "tokens_after", "place")


def cell_text(text: str) -> str:
    """Text a spreadsheet will show as text, never evaluate."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def columns(view: views.View) -> list[str]:
    return [*PLAYER_COLUMNS, *(f"setting_{name}" for name in view["settings"])]


def rows(view: views.View) -> list[dict[str, object]]:
    """Every bid of every round with the bank and tokens after it; ValueError before the end."""
    series = game_series(view)
    final = view["final"]
    assert final is not None        # game_series refused a game that has not ended
    players = {p["id"]: p for p in view["players"]}
    place = {s["id"]: s["place"] for s in final["standings"]}
    settings = {f"setting_{k}": v for k, v in view["settings"].items()}
    out: list[dict[str, object]] = []
    for i, rnd in enumerate(series.rounds):
        for t in series.tracks:
            p = players[t.id]
            out.append({
                "code": view["code"], "round": rnd, "player_id": t.id, "name": cell_text(t.name),
                "bot": int(p["bot"]), "difficulty": p["difficulty"] or "", "left": int(p["left"]),
                "host": int(p["host"]), "bid_ms": "" if t.bids[i] is None else t.bids[i],
                "won": int(t.won[i]), "bank_after_ms": t.banks[i + 1],
                "tokens_after": t.tokens[i + 1], "place": place[t.id], **settings,
            })
    return out


def to_csv(view: views.View) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns(view), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows(view))
    return buffer.getvalue()
