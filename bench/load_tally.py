"""What one generator process measured (bench/loadgen.py), in a form its parent merges."""

from __future__ import annotations

from collections import Counter


class Tally:
    """What one process measured; plain lists and counters, merged by the parent."""

    def __init__(self):
        self.bid_errors: list[float] = []      # charged bid - the client's own hold, ms
        self.hold_rounds: list[int] = []       # ... each one's round
        self.hold_at: list[float] = []         # ... and when it was let go (monotonic s)
        self.setups: list[list[float]] = []    # [start, end] of each room's set-up (monotonic s)
        self.endings: list[float] = []         # when each room's game ended (monotonic s)
        self.result_delays: list[float] = []   # last release -> result view, ms
        self.holds = 0                         # holds released by the client and charged
        self.cut = 0                           # holds the server ended while we held
        self.wrong_refusals = 0                # presses sent before go and refused
        self.refusals: Counter = Counter()     # every refusal, by reason
        self.lost = 0                          # round results a player never saw
        self.errors: Counter = Counter()       # failures, by kind
        self.statuses: Counter = Counter()     # every HTTP status answered
        self.inconsistent = 0                  # final tables whose banks do not add up
        self.rooms = 0
        self.rooms_ended = 0
        self.late_admitted = 0                 # rooms arriving mid-run that got in
        self.turned_away = 0                   # ... and that the server turned away
        self.reconnects = 0
        self.disturbed = 0                     # holds not measured: the stream reconnected
        self.cpu_s = 0.0
        self.gen_lag_ms = 0.0                  # the generator's own worst event-loop lag
        self.max_rss_kb = 0

    def as_dict(self) -> dict:
        return dict(vars(self))

    @classmethod
    def from_dict(cls, data: dict) -> Tally:
        """Back from ``as_dict`` (and JSON, whose object keys are strings)."""
        tally = cls()
        for key, value in data.items():
            if isinstance(value, dict):
                value = Counter({int(k) if key == "statuses" else k: v
                                 for k, v in value.items()})
            setattr(tally, key, value)
        return tally
