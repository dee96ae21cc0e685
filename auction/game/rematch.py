"""The lobby of a rematch: the same table, seated again. Pure: rules only.

``rooms.Rooms.rematch`` stores what this builds; nothing here touches the store.
"""

from __future__ import annotations

from . import rules


def table_again(old: rules.Game, seats: dict[str, str], game: rules.Game,
                opener: str | None = None) -> tuple[rules.Game, dict[str, str]]:
    """``game`` (a fresh lobby) with ``old``'s settings, humans and AI seats.

    Players who left are not seated again, nor anyone who only watched. Seat
    order is kept, except that whoever opened the rematch (``opener``: the host,
    or the seated player who stood in for a host who was gone,
    ``rules.may_open_rematch``) comes first and hosts it: a host whose phone
    died would otherwise hold a lobby nobody can start. ``seats`` maps device
    digests to the old player ids; the result maps the same digests to the new
    ids, so every device finds its seat without typing anything. The lobby is locked: its code
    is public (every results page names it), so only this table sits in it until
    the host opens it. Returns (game, seats).
    """
    first = opener if opener is not None else old.host
    people = sorted((p for p in old.players if not p.left), key=lambda p: p.id != first)
    device = {pid: d for d, pid in seats.items()}
    new_seats: dict[str, str] = {}
    host = ""       # no host until the first seat (the opener's) is taken: "" is nobody's id
    for p in people:
        if p.bot:       # (an AI seat always has a difficulty)
            game, events = rules.apply(game, rules.AddBot(host, p.difficulty or ""), 0)
        else:
            game, events = rules.apply(game, rules.Join(p.name), 0)
        (joined,) = (e.player for e in events if isinstance(e, rules.Joined))
        if not p.bot and p.id in device:
            new_seats[device[p.id]] = joined
        if not host:      # the first seat is the host's: now the settings can follow
            host = joined
            changes = old.settings.to_dict()
            game, _ = rules.apply(game, rules.ChangeSettings(host, changes), 0)
    game, _ = rules.apply(game, rules.Lock(host, True), 0)
    return game, new_seats
