"""The suspense setting: a secret pause before a round's result. Pure: standard library only.

Why: a round's result comes when its last holder lets go, so anyone who times their own
stream from spending to the result learns the top bid within the delivery jitter, even
where the reveal setting shows only the winner (docs/security.md). With ``suspense``
"on", a round that is decided (nobody holds and the entry has closed) shows its result
only after a pause drawn uniformly from 0-3 s; until then nothing a player sees changes.

The rules read no clock and draw no randomness, so the server gives each game a secret
``seed`` when it creates it (rooms.py) and each round's pause is derived from the seed
here: deterministic for the rules and for replays, unknowable without the seed. Neither
the seed nor a pause is ever in a view (views.view_for).
"""

from __future__ import annotations

import hashlib
import hmac

from .state import Game

PAUSE_MAX_MS = 3_000


def pause_ms(seed: str, round_number: int) -> int:
    """Round ``round_number``'s pause, 0-PAUSE_MAX_MS ms: HMAC-SHA256 of the round keyed by
    the seed (64 bits modulo 3,001: the bias is below 2**-50)."""
    mac = hmac.new(seed.encode(), f"pause {round_number}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big") % (PAUSE_MAX_MS + 1)


def on(game: Game) -> bool:
    return game.settings.suspense == "on"


def reveal_ms(game: Game) -> int | None:
    """When the current round's result shows, once it is decided and waits; else None."""
    rnd = game.current
    if rnd is None or rnd.over_ms is None:
        return None
    return rnd.over_ms + pause_ms(game.seed, rnd.number)
