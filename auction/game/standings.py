"""The end of the game: the final table, the winners and last place.

Pure: reads a ``Game``, decides nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from .state import Game, Player


@dataclass(frozen=True)
class Standing:
    """One line of the final table."""

    player: str
    place: int
    tokens: int
    bank_ms: int


def standings(game: Game) -> list[Standing]:
    """Everyone ranked: most tokens, then (by setting) more time left or a shared place."""
    by_time = game.settings.rank_ties == "time_left"

    def key(p: Player) -> tuple[int, int]:
        return (p.tokens, p.bank_ms if by_time else 0)

    ranked = sorted(game.players, key=key, reverse=True)
    table, place = [], 0
    for i, p in enumerate(ranked):
        if i == 0 or key(p) != key(ranked[i - 1]):
            place = i + 1
        table.append(Standing(p.id, place, p.tokens, p.bank_ms))
    return table


def winners(game: Game) -> list[str]:
    """The sole first place; a tie for first wins only when places are shared."""
    first = [s.player for s in standings(game) if s.place == 1]
    if len(first) == 1 or game.settings.rank_ties == "shared":
        return first
    return []


def last_place(game: Game) -> list[str]:
    """Fewest tokens, then least time -- whatever the ranking setting ("on the show,
    eliminated"); nobody when everyone ties, and never a winner."""
    if not game.players:
        return []
    key = {p.id: (p.tokens, p.bank_ms) for p in game.players}
    worst = min(key.values())
    if all(k == worst for k in key.values()):
        return []
    won = set(winners(game))
    return [pid for pid, k in key.items() if k == worst and pid not in won]
