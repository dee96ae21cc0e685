"""How long whole games last, measured, against the length the pages promise.

    python bench/lengths.py                    # each preset at 1-19 rounds, tables of 3-6, 60 games each
    python bench/lengths.py --games 200

Whole games of AI tables (bench/tournament.py's line-ups of the three difficulties, every
style) played through the rules engine in simulated time: a game lasts from Start to the
moment its last result ends (``Game.ended_ms``), every countdown, free window, bidding and
result included. Per row: the banks the rounds' top bids added up to (each round's bidding
lasts as long as its top bid), the game's minutes (mean, and the shortest and longest), and
what ``render.game_seconds`` says before the game (the lobby's "about N min" rounds it up).
tests/web/pages/test_join_pages.py holds the estimate to these measurements.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tournament  # noqa: E402

from auction.web.pages.render import PRESET_SETTINGS, game_minutes, game_seconds, spent_banks  # noqa: E402

LINEUPS = (("medium", "easy"), ("hard", "medium"), ("hard", "easy"))


def measure(preset: str, rounds: int, seats: int, games: int = 60) -> dict:
    """Mean, shortest and longest game in minutes, and the mean banks spent by top bids."""
    minutes, banks = [], []
    for i in range(games):
        game = tournament.play(LINEUPS[i % len(LINEUPS)], i, seats, preset,
                               {"rounds": rounds})["game"]
        assert game.ended_ms is not None
        minutes.append(game.ended_ms / 60_000)
        top = sum(max((b for b in r.bids.values() if b is not None), default=0)
                  for r in game.history)
        banks.append(top / game.settings.bank_ms)
    return {"minutes": statistics.mean(minutes), "shortest": min(minutes),
            "longest": max(minutes), "banks": statistics.mean(banks)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60)
    args = parser.parse_args()
    print(f"{'preset':8} {'rounds':>6} {'seats':>5} {'banks':>6} {'model':>6} "
          f"{'minutes (range)':>20} {'estimate':>9} {'shown':>6}")
    for preset in PRESET_SETTINGS:
        for rounds in (1, 2, 3, 5, 9, 19):
            settings = {**PRESET_SETTINGS[preset], "rounds": rounds}
            for seats in (3, 4, 5, 6):
                m = measure(preset, rounds, seats, args.games)
                span = f"{m['minutes']:.1f} ({m['shortest']:.1f}-{m['longest']:.1f})"
                print(f"{preset:8} {rounds:6} {seats:5} {m['banks']:6.2f} "
                      f"{spent_banks(rounds):6.2f} {span:>20} "
                      f"{game_seconds(settings) / 60:9.1f} {game_minutes(settings):6}")


if __name__ == "__main__":
    main()
