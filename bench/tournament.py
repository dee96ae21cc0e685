"""Tournament: whole games of AI players through the rules engine, in simulated time.

    python bench/tournament.py                      # every line-up, 2,000 games each
    python bench/tournament.py --games 300          # a quicker look
    python bench/tournament.py --lineup "hard + 4 medium" --processes 1
    python bench/tournament.py --preset quick --seats 4   # other tables (no targets)

No server and no sleeping. Each round, every seat's plan is made from its own
view at the start of the countdown — ``bots.round_plans`` for the AI seats, the
``decide``-shaped reference strategies below for the fixed seats — turned into
Press/Release actions by ``bots.bot_actions`` and applied with ``rules.apply``
in time order; ``Tick`` then moves the clock to each next deadline.

The tested seat rotates through every seat and style, and the other seats'
styles rotate too, so neither seat order nor style favours anyone. Per row:
games; wins (the sole first place) and last places, each with a 95 % Wilson
interval; entry = share of the rounds begun with bank left in which the seat
held into spending; mean bid of those rounds; mean tokens at the end.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections import defaultdict
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from auction.ai import bots  # noqa: E402

from auction.game import rules, views  # noqa: E402

# -- fixed reference strategies (bench only; same shape as bots.decide) -----


def steady_30(view: dict, rng: random.Random) -> bots.Plan:
    """Hold about 30 s every round while the bank lasts."""
    seat = bots.read_seat(view)
    if seat is None or seat.bank_ms <= 0:
        return bots.SIT_OUT
    hold = bots.natural_hold(30_000, seat.bank_ms, rng)
    return bots.Plan(True, bots.press_moment(seat.ready_ms, rng), hold)


def late_even(view: dict, rng: random.Random) -> bots.Plan:
    """Sit out the first half, then spend the bank evenly over the rounds left."""
    seat = bots.read_seat(view)
    if seat is None or seat.bank_ms <= 0 or seat.round <= seat.rounds // 2:
        return bots.SIT_OUT
    hold = bots.natural_hold(seat.bank_ms / seat.rounds_left, seat.bank_ms, rng)
    return bots.Plan(True, bots.press_moment(seat.ready_ms, rng), hold)


FIXED = {"steady-30": steady_30, "late-even": late_even}

# (tested difficulty, kind of every other seat)
LINEUPS = [
    ("hard", "medium"),
    ("medium", "easy"),
    ("hard", "easy"),
    ("easy", "steady-30"),
    ("medium", "steady-30"),
    ("hard", "steady-30"),
    ("easy", "late-even"),
    ("medium", "late-even"),
    ("hard", "late-even"),
]

# The targets, for 5-player games of these presets: (line-up, min win rate).
TARGET_PRESETS = ("auction", "quick")
WIN_TARGETS = [("hard + 4 medium", 0.35), ("medium + 4 easy", 0.35), ("hard + 4 easy", 0.50)]
HARD_LAST_MAX = 0.10
AGGRESSIVE_ENTRY_MIN, PATIENT_ENTRY_MAX = 0.70, 0.50


def lineup_name(lineup: tuple, seats: int) -> str:
    tested, other = lineup
    if not isinstance(other, str):
        return f"{tested} + field of {', '.join(other)}"
    return f"{tested} + {seats - 1} {other}"


# -- one game --------------------------------------------------------------


def seating(lineup: tuple, index: int, seats: int) -> tuple[list[rules.Player], int]:
    """The seats of game ``index`` and which one is tested; seat and styles rotate."""
    tested, other = lineup
    tested_seat = index % seats
    style_offset = (index // seats) % len(bots.STYLES)
    players = []
    others = (other,) if isinstance(other, str) else tuple(other)
    for i in range(seats):
        # A mixed field (a tuple of kinds) rotates its kinds through the other seats.
        j = (i - (i > tested_seat) + index // seats) % len(others)
        kind = tested if i == tested_seat else others[j]
        if kind in FIXED:
            # A fixed strategy sits in a human seat; the bench plays it.
            players.append(rules.Player(f"p{i}", f"{kind} {i}", difficulty=kind))
        else:
            style = bots.STYLES[(i + style_offset) % len(bots.STYLES)]
            players.append(rules.Player(f"b{i}", f"{kind} {i}", bot=True,
                                        difficulty=kind, style=style))
    return players, tested_seat


def play(lineup: tuple, index: int, seats: int = 5, preset: str = "auction",
         changes: dict | None = None) -> dict:
    """One whole game in simulated time; the finished game and per-seat figures."""
    players, tested = seating(lineup, index, seats)
    game = rules.new_game("BENCH", preset)
    game.settings = game.settings.changed({**(changes or {}), "min_players": 2,
                                           "max_players": 8})
    game.players = players
    game.host = players[0].id
    seed = f"{lineup_name(lineup, seats)}:{preset}:{index}"
    game, _ = rules.apply(game, rules.Start(game.host), 0)
    affordable = defaultdict(int)
    while game.phase is not rules.Phase.ENDED:
        game, began = play_round(game, seed)
        for pid in began:
            affordable[pid] += 1
    won, last = rules.winners(game), rules.last_place(game)
    figures = []
    for i, p in enumerate(game.players):
        bids = [r.bids[p.id] for r in game.history if r.bids[p.id] is not None]
        figures.append({
            "tested": i == tested, "kind": p.difficulty, "style": p.style,
            "win": won == [p.id], "last": p.id in last,
            "affordable": affordable[p.id], "entered": len(bids), "bid_sum": sum(bids),
            "tokens": p.tokens, "bank": p.bank_ms,
        })
    return {"game": game, "seats": figures}


def play_round(game: rules.Game, seed) -> tuple[rules.Game, list[str]]:
    """Play the round whose countdown is starting; return the game at the next one."""
    assert game.phase is rules.Phase.COUNTDOWN, game.phase
    number, start = game.round, game.current.start_ms
    began = [p.id for p in game.players if p.bank_ms > 0 and not p.left]
    plans = bots.round_plans(game, start, seed)
    for p in game.players:
        if not p.bot and not p.left:
            rng = random.Random(f"{seed}:{number}:{p.id}")
            plans[p.id] = FIXED[p.difficulty](views.view_for(game, p.id, start), rng)
    for at, action in bots.bot_actions(game, plans):
        game, _ = rules.apply(game, action, at)
    while game.phase is not rules.Phase.ENDED and not (
            game.phase is rules.Phase.COUNTDOWN and game.round > number):
        game, _ = rules.apply(game, rules.Tick(), rules.next_deadline(game))
    return game, began


# -- many games ------------------------------------------------------------

FIELDS = ("games", "wins", "lasts", "affordable", "entered", "bid_sum", "tokens")


def run_chunk(job) -> tuple[int, dict]:
    """Play games [start, stop) of one line-up; totals per (role, kind, style).

    The line-up is an index into LINEUPS or a (tested, other) pair itself.
    """
    lineup_index, start, stop, seats, preset, changes = job
    lineup = LINEUPS[lineup_index] if isinstance(lineup_index, int) else lineup_index
    totals = defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    for index in range(start, stop):
        for s in play(lineup, index, seats, preset, changes)["seats"]:
            role = "tested" if s["tested"] else "others"
            keys = [(role, s["kind"], "all")]
            if s["style"]:
                keys.append((role, s["kind"], s["style"]))
            for key in keys:
                t = totals[key]
                t["games"] += 1
                t["wins"] += s["win"]
                t["lasts"] += s["last"]
                for name in ("affordable", "entered", "bid_sum", "tokens"):
                    t[name] += s[name]
    return lineup_index, dict(totals)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    """The share k/n and its 95 % Wilson score interval."""
    if n == 0:
        return 0.0, 0.0, 0.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


def pct(k: int, n: int) -> str:
    p, lo, hi = wilson(k, n)
    lo, hi = max(0.0, lo), min(1.0, hi)
    return f"{100 * p:5.1f} % [{100 * lo:4.1f}–{100 * hi:4.1f}]"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games per line-up (default 2000)")
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seats", type=int, default=5, help="players per game (default 5)")
    ap.add_argument("--preset", default="auction", choices=sorted(rules.PRESETS))
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="change a setting of the preset, e.g. reveal=all_bids (repeatable)")
    ap.add_argument("--lineup", action="append", metavar="NAME",
                    help='only this line-up, e.g. "hard + 4 medium" (repeatable)')
    args = ap.parse_args(argv)
    names = [lineup_name(lu, args.seats) for lu in LINEUPS]
    chosen = [i for i, name in enumerate(names) if not args.lineup or name in args.lineup]
    if not chosen:
        ap.error(f"no such line-up; choose from: {', '.join(names)}")
    chunk = 25
    changes = dict(item.split("=", 1) for item in args.set)
    jobs = [(i, a, min(a + chunk, args.games), args.seats, args.preset, changes)
            for i in chosen for a in range(0, args.games, chunk)]
    began = time.perf_counter()
    results = defaultdict(lambda: defaultdict(lambda: dict.fromkeys(FIELDS, 0)))
    if args.processes > 1:
        with Pool(args.processes) as pool:
            for i, totals in pool.imap_unordered(run_chunk, jobs):
                _merge(results[i], totals)
    else:
        for job in jobs:
            i, totals = run_chunk(job)
            _merge(results[i], totals)
    elapsed = time.perf_counter() - began

    s = rules.PRESETS[args.preset].changed(changes)
    extra = "".join(f", {k}={v}" for k, v in changes.items())
    print(f"Time Auction tournament — {args.seats}-player '{args.preset}' games "
          f"({s.rounds} rounds, {s.bank_ms / 60000:g} min banks{extra}), "
          f"{args.games} games per line-up")
    print("win = sole first place; entry = rounds held into spending / rounds begun with "
          "bank left; bids in s\n")
    head = (f"{'line-up':<21} {'seat':<6} {'player':<18} {'games':>5}  "
            f"{'win [95 % CI]':<21} {'last [95 % CI]':<21} {'entry':>6} {'mean bid':>8} "
            f"{'tokens':>6}")
    print(head)
    print("-" * len(head))
    styles_total = defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    for i in chosen:
        for (role, kind, style), t in sorted(results[i].items(), key=_row_order):
            n = t["games"]
            label = kind if style == "all" else f"{kind}/{style}"
            print(f"{names[i]:<21} {role:<6} {label:<18} {n:>5}  {pct(t['wins'], n):<21} "
                  f"{pct(t['lasts'], n):<21} {_entry(t):>6} {_mean_bid(t):>8} "
                  f"{t['tokens'] / n:6.2f}")
            if style != "all":
                for k in FIELDS:
                    styles_total[(kind, style)][k] += t[k]
        print()

    print("Styles over every line-up above (all seats)")
    print(f"{'difficulty/style':<20} {'seat-games':>10} {'entry':>6} {'mean bid':>8}")
    for (kind, style), t in sorted(styles_total.items(), key=lambda kv: (
            kv[0][0], bots.STYLES.index(kv[0][1]))):
        print(f"{kind + '/' + style:<20} {t['games']:>10} {_entry(t):>6} {_mean_bid(t):>8}")
    print()
    if args.seats == 5 and args.preset in TARGET_PRESETS and not changes:
        _check_targets(results, names, chosen, styles_total)
    print(f"\n{args.games * len(chosen)} games in {elapsed:.1f} s on "
          f"{args.processes} process(es)")
    return 0


def _check_targets(results, names, chosen, styles_total) -> None:
    print("Targets")
    by_name = {names[i]: results[i] for i in chosen}
    for name, low in WIN_TARGETS:
        if name in by_name:
            t = by_name[name][("tested", name.split()[0], "all")]
            ok = t["wins"] / t["games"] >= low
            print(f"  {'PASS' if ok else 'FAIL'}  {name}: {name.split()[0]} wins "
                  f"{pct(t['wins'], t['games']).strip()} ≥ {100 * low:.0f} %")
    for name, totals in by_name.items():
        if name.startswith("hard "):
            t = totals[("tested", "hard", "all")]
            ok = t["lasts"] / t["games"] <= HARD_LAST_MAX
            print(f"  {'PASS' if ok else 'FAIL'}  {name}: hard last "
                  f"{pct(t['lasts'], t['games']).strip()} ≤ {100 * HARD_LAST_MAX:.0f} %")
    for kind in bots.DIFFICULTIES:
        agg, pat = styles_total.get((kind, "aggressive")), styles_total.get((kind, "patient"))
        if not agg or not pat:
            continue
        e_agg, e_pat = _share(agg), _share(pat)
        ok = (e_agg >= AGGRESSIVE_ENTRY_MIN and e_pat <= PATIENT_ENTRY_MAX
              and _bid(pat) > _bid(agg))
        print(f"  {'PASS' if ok else 'FAIL'}  {kind}: aggressive enters {100 * e_agg:.1f} % "
              f"(≥ 70), patient {100 * e_pat:.1f} % (≤ 50); mean bid patient "
              f"{_bid(pat) / 1000:.1f} s > aggressive {_bid(agg) / 1000:.1f} s")


def _share(t) -> float:
    return t["entered"] / t["affordable"] if t["affordable"] else 0.0


def _bid(t) -> float:
    return t["bid_sum"] / t["entered"] if t["entered"] else 0.0


def _entry(t) -> str:
    return f"{100 * _share(t):5.1f}%"


def _mean_bid(t) -> str:
    return f"{_bid(t) / 1000:7.1f}s"


def _row_order(item):
    (role, kind, style), _ = item
    order = ("all",) + bots.STYLES
    return (role != "tested", kind, order.index(style))


def _merge(into, totals) -> None:
    for key, t in totals.items():
        for k, v in t.items():
            into[key][k] += v


if __name__ == "__main__":
    sys.exit(main())
