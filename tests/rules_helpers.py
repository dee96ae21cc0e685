"""What the rules tests (tests/game/test_rules_*.py) share: the moments a round turns and
what a game's players hold.

Times in the scenarios (see ``scenario.game``): round 1 starts at 0 ms. Under the
Time Auction preset go is at 3000 and spending starts at 8000; under Time Stake
go and spending are both at 5000.
"""

from auction.game.rules import Game

SPEND = 8_000          # spending starts here under the Time Auction preset
STAKE_SPEND = 5_000    # ... and here under Time Stake (no free window)
GRACE = 900     # the server's default: 2 round trips of the 300 ms cap, plus one ping


def bids_of(g: Game) -> dict:
    return g.history[-1].bids


def banks_of(g: Game) -> dict:
    return {p.id: p.bank_ms for p in g.players}


def tokens_of(g: Game) -> dict:
    return {p.id: p.tokens for p in g.players}
