"""Fair over slow links: the formulas, and nothing else.

Standard library only; no clock, no store, no web. The server measures
(round-trip samples, arrival moments, when each player was sent the view of
spending, how late a seat's own stream showed it) and its hold
(auction/server/holds.py) asks this module what to charge. The model and its limits are
written up in docs/fairness.md.
"""

from __future__ import annotations

from statistics import median

# Samples the estimate looks at: 15 pings of 200 ms are the last 3 s of
# holding, so a phone that moves from Wi-Fi to 4G is tracked within a round
# or two, while a spike or two never moves the median.
SAMPLES = 15

# A press made just before go reaches the server late by the screen's own
# lag (the countdown was sent half a round trip ago) plus the socket's
# handshake (TCP SYN, SYN-ACK, then the upgrade request: 1.5 round trips).
GRACE_RTTS = 2.0
# Over TLS (1.3) the new socket costs one round trip more.
TLS_GRACE_RTTS = 3.0

# The server's own delay in sending the view of spending: a few ms of timer
# loop, Redis and rendering -- or, when nobody held at go, the wait for a
# late press still on its way (the entry grace, up to 2 caps and one ping:
# 900 ms by default), after which the round goes on with that press and
# spending is shown only then. Measured by the server, never claimed by the
# client; bounded so a server far behind cannot hide it.
LAG_CAP_MS = 1_000


def estimate_rtt(samples: list[int]) -> int | None:
    """The round trip to expect: the median of the newest samples (newest first).

    The median ignores spikes and, unlike the minimum, is not biased low by
    jitter: the release and the view it answers each take a typical path,
    not the luckiest one. None without samples.
    """
    recent = [s for s in samples[:SAMPLES] if s >= 0]
    return round(median(recent)) if recent else None


def compensation(rtt_ms: int | None, cap_ms: int, spend_ms: int | None = None,
                 shown_ms: int | None = None, late_ms: int = 0) -> int:
    """How far back to date a release: one round trip (capped) plus the server's send lag.

    A player lets go H after their screen shows spending, which happened one
    way after the server sent that view (``shown_ms``); the release takes the
    other way back. So arrival = shown + RTT + H, and H = arrival - shown - RTT.
    Measured from ``spend_ms``, that is a release dated (shown - spend) + RTT
    earlier. ``late_ms``: how much later still the seat's own stream showed it,
    the server's doing (``stream_lateness``), capped like the round trip.
    ``cap_ms`` 0 switches compensation off altogether.
    """
    if cap_ms <= 0:
        return 0
    comp = min(max(rtt_ms or 0, 0), cap_ms)
    if spend_ms is not None and shown_ms is not None:
        shown_ms += min(late_ms, cap_ms)
        comp += min(max(shown_ms - spend_ms, 0), LAG_CAP_MS)
    return comp


def release_moment(arrived_ms: int, rtt_ms: int | None, cap_ms: int,
                   spend_ms: int | None = None, shown_ms: int | None = None,
                   late_ms: int = 0) -> int:
    """The moment to charge a release that reached the server at ``arrived_ms``.

    The rules clamp it to [press, bank exhausted], and a release dated before
    spending costs nothing, so the charge is never below 0 nor above the bank.
    """
    return arrived_ms - compensation(rtt_ms, cap_ms, spend_ms, shown_ms, late_ms)


def stream_lateness(shown_ms: int, idle_ms: int, ready_ms: int) -> int:
    """How late a seat's own stream showed spending, by the server's doing alone.

    From the room's publication (``shown_ms``) -- or, if later, from when the
    stream's previous write had gone out (``idle_ms``) -- to when its write of
    spending was ready (``ready_ms``). A worker busy with the other streams the
    same change woke is the server's wait; a client that stops reading its
    stream holds it up in an *earlier* write, which is its own and earns nothing.
    """
    return max(0, ready_ms - max(shown_ms, idle_ms))


def entry_grace(rtt_ms: int | None, cap_ms: int, tls: bool = False) -> int:
    """How long after go a press may arrive and still count as made before it.

    ``GRACE_RTTS`` round trips (``TLS_GRACE_RTTS`` for a socket opened over
    TLS), with the round trip capped like compensation, so a client that slows
    its ping answers gains at most that many caps. Unknown round trip -- a
    socket that did not answer the server's ping in time -- earns no grace:
    silence must not buy the longest one.
    """
    if cap_ms <= 0 or rtt_ms is None:
        return 0
    rtts = TLS_GRACE_RTTS if tls else GRACE_RTTS
    return round(rtts * min(max(rtt_ms, 0), cap_ms))


def entry_ping_wait(cap_ms: int) -> int:
    """How long a never-measured socket that pressed after go waits for the answer
    to its one ping: two caps, so an honest link of the cap's round trip (plus
    jitter) is measured in time. A slower answer is still credited at most the cap."""
    return 2 * max(cap_ms, 0)


def longest_entry_wait(cap_ms: int, tls: bool = False) -> int:
    """How long after go a press may still be on its way: the longest grace, plus
    the ping a never-measured socket waits for. Until then nothing about the
    round may show (rules.Game.grace_ms)."""
    if cap_ms <= 0:
        return 0
    return entry_grace(cap_ms, cap_ms, tls) + entry_ping_wait(cap_ms)


def press_moment(arrived_ms: int, go_ms: int | None, rtt_ms: int | None, cap_ms: int,
                 tls: bool = False) -> int:
    """The moment to date a press whose socket request arrived at ``arrived_ms``.

    Before go the arrival itself; from go on, the arrival less the entry
    grace, so a press made before go counts however slow the link (within
    the cap). The rules refuse it if that is still at or after go, and count
    any bid from the spending start.
    """
    if go_ms is None or arrived_ms < go_ms:
        return arrived_ms
    return arrived_ms - entry_grace(rtt_ms, cap_ms, tls)
