"""A room as stored: the game, plus what only the server needs to run it.

The record is plain JSON: the game, the seats (device-token digests ->
player ids; the tokens themselves are never stored), the AI seed and the
queue of AI presses and releases planned for the current round, the devices
the host kicked, and when the current round's spending was published.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..ai.bots import BotStep
from ..game import rules

# While humans hold, the room is looked at this often for silent sockets. The
# look is only for a socket whose worker died with it (a live worker ends a
# silent hold itself after 800 ms, holds.py), and the release is dated at
# the last sign of life whenever it is found, so a slower look costs no one
# time, only delays that round's end. Each look is a load and a heartbeat read
# per holding room: at 400 ms they were most of the timer loop's work.
WATCH_MS = 1_000


def digest(token: str) -> str:
    """How a device token is stored and named: never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


@dataclass
class Room:
    """A room as stored: the game plus what only the server needs."""

    game: rules.Game
    seats: dict[str, str] = field(default_factory=dict)
    bot_seed: str = ""
    bot_queue: list[BotStep] = field(default_factory=list)
    # Digests of devices the host kicked: they may not join this room again.
    kicked: list[str] = field(default_factory=list)
    # [round, ms]: when the view of that round's spending was published to
    # everyone at once; releases are dated back by the lag (docs/fairness.md).
    shown: list | None = None
    # The room's invitation: a random secret its invite link carries, made with the
    # room and gone with it, so a later room under the same code has another.
    invite: str = ""
    # The site as the host reached it when creating the room ("" if unknown): the
    # base of its invite link and QR code when PUBLIC_URL is unset, so no later
    # request's Host can change what the others are shown (web/pages/room.py).
    site: str = ""

    def seat_of(self, token: str | None) -> str | None:
        """The player id of this device, if it is seated and has not left."""
        pid = self.seats.get(digest(token)) if token else None
        player = self.game.player(pid) if pid else None
        return pid if player and not player.left else None

    def human_holders(self) -> list[str]:
        rnd = self.game.current
        if rnd is None:
            return []
        players = [self.game.player(pid) for pid in rnd.holders()]
        return [p.id for p in players if p is not None and not p.bot]

    def spending_shown(self, rnd: int) -> int | None:
        """When round ``rnd``'s spending was published, if it was."""
        return self.shown[1] if self.shown and self.shown[0] == rnd else None

    def deadline(self, now_ms: int) -> int | None:
        """The next moment this room needs a look: a timer, an AI action, a watch."""
        times = [t for t in (rules.next_deadline(self.game),) if t is not None]
        times += [item[0] for item in self.bot_queue[:1]]
        if self.human_holders():
            times.append(now_ms + WATCH_MS)
        return min(times, default=None)

    def to_record(self) -> dict:
        # The queue's steps as lists, as JSON loads them: an unchanged room is not saved.
        return {"game": rules.to_dict(self.game), "seats": self.seats,
                "bot_seed": self.bot_seed, "bot_queue": [list(s) for s in self.bot_queue],
                "kicked": self.kicked, "shown": self.shown, "invite": self.invite,
                "site": self.site}

    @classmethod
    def from_record(cls, record: dict) -> Room:
        return cls(rules.from_dict(record["game"]), record["seats"], record["bot_seed"],
                   [BotStep(*s) for s in record["bot_queue"]], record.get("kicked", []),
                   record.get("shown"), record.get("invite", ""), record.get("site", ""))
