"""One Hypothesis state machine over the whole rules engine and its projection.

It plays random rooms — joins, AI players, the start, presses and releases
(some dated earlier, as the hold socket dates them), leaves, ticks at random
later moments, and plain waits that let a tick arrive late — on every preset
with random settings, and checks after every step:

- no bank is ever below zero, and no bid exceeds the bank it came from;
- what the banks lost is exactly the sum of every bid in the history;
- tokens never decrease;
- each round has exactly one outcome (one RoundResult, one RoundEnded);
- nothing pending is overdue, so a tick at the same moment changes nothing;
- a refused action leaves the state alone;
- no view holds another player's hidden facts: each view equals the view of a
  twin game where everyone else's holds and banks differ, and a twin game that
  skipped a press or release gives every other player byte-identical views
  until the round ends.
"""

import json
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from auction.game.rules import (
    PRESETS,
    AddBot,
    ChangeSettings,
    Hold,
    Join,
    Kick,
    Leave,
    Phase,
    Press,
    Release,
    RemoveBot,
    RoundEnded,
    RuleError,
    Start,
    Tick,
    apply,
    entry_close,
    new_game,
    next_deadline,
    to_dict,
)
from auction.game.views import view_for

T0 = 1_000_000
ROUND_PHASES = (Phase.COUNTDOWN, Phase.FREE, Phase.SPENDING)

# Small banks and few rounds, so banks run out and games end within a run.
SETTINGS = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 5),
        "bank_ms": st.sampled_from([30_000, 30_100, 45_000]),
    },
    optional={
        "ready_ms": st.sampled_from([2_000, 3_000]),
        "free_ms": st.sampled_from([0, 100, 2_000, 5_000]),
        "tie": st.sampled_from(["tenth", "margin"]),
        "tie_margin_ms": st.sampled_from([1, 100, 1_000]),
        "tie_rule": st.sampled_from(["nobody", "all"]),
        "reveal": st.sampled_from(["winner", "winning_bid", "all_bids"]),
        "own_bank": st.sampled_from(["shown", "toggle", "hidden"]),
        "rank_ties": st.sampled_from(["time_left", "shared"]),
        "result_ms": st.sampled_from([2_000, 5_000]),
    },
)
NAMES = st.sampled_from(["Ann", "Bo", " Cy ", "Dee Dee", "Ada", "x" * 24, "", "x" * 25])
SEAT = st.integers(0, 9)            # an index into the seats; past the end: nobody seated
BACK = st.none() | st.integers(0, 4_000)
STEP = st.sampled_from([1, 99, 100, 250, 500, 1_000, 1_000, 2_000, 3_000, 5_000, 10_000, 30_000])


def hidden_twins(game, viewer):
    """Twins of the game where every other player's bank and holds differ (the viewer's kept).

    In one twin nobody else pressed; in the other everyone else is still holding.
    """
    twins = []
    for others_hold in (False, True):
        twin = game.copy()
        for p in twin.players:
            if p.id != viewer:
                p.bank_ms += 777
        rnd = twin.current
        if rnd is not None:
            mine = rnd.holds.get(viewer)
            rnd.holds = {} if mine is None else {viewer: mine}
            if others_hold:
                rnd.holds.update({p.id: Hold(rnd.start_ms) for p in twin.players if p.id != viewer})
        twins.append(twin)
    return twins


class RoomMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.now = T0
        self.applied_at = T0
        self.tokens = {}
        self.outcomes = Counter()
        self.twin = None  # (game, the player whose action it skipped, history length)

    # -- set-up ---------------------------------------------------------------

    @initialize(preset=st.sampled_from(sorted(PRESETS)), changes=SETTINGS,
                humans=st.integers(1, 4), bots=st.integers(0, 4),
                start=st.sampled_from([True, True, True, False]),
                grace=st.sampled_from([0, 0, 900]))
    def open_room(self, preset, changes, humans, bots, start, grace):
        self.game = new_game("TEST", preset, grace_ms=grace)
        for i in range(humans):
            self.act(Join(f"Player {i}"))
        self.act(ChangeSettings("p1", {k: str(v) for k, v in changes.items()}))
        for _ in range(bots):
            self.act(AddBot("p1", "easy"))
        if start:
            while len(self.game.players) < self.game.settings.min_players:
                self.act(AddBot("p1", "hard"))
            self.act(Start("p1"))

    # -- the engine, and the twin that skipped one press or release --------------

    def act(self, action, twin_of=None):
        """Apply ``action`` now; on a press or release maybe start a twin without it."""
        before = self.game
        frozen = to_dict(before)
        try:
            after, events = apply(before, action, self.now)
        except RuleError:
            assert to_dict(before) == frozen, "a refused action changed the state"
            self.step_twin(action)
            return
        assert to_dict(before) == frozen, "apply changed the state it was given"
        self.check_outcomes(before, after, events)
        self.game = after
        self.applied_at = self.now
        self.step_twin(action)
        if twin_of is not None and self.twin is None and before.current is not None:
            skipped, _ = apply(before, Tick(), self.now)
            self.twin = (skipped, twin_of, len(before.history))

    def step_twin(self, action):
        if self.twin is None:
            return
        twin, skipped_player, rounds = self.twin
        try:
            twin, _ = apply(twin, action, self.now)
        except RuleError:
            pass
        self.twin = (twin, skipped_player, rounds)

    def check_outcomes(self, before, after, events):
        banks_before = {p.id: p.bank_ms for p in before.players}
        for event in events:
            if isinstance(event, RoundEnded):
                result = event.result
                self.outcomes[result.round] += 1
                for pid, bid in result.bids.items():
                    if bid is not None:
                        assert 0 <= bid <= banks_before[pid], "a bid exceeded its bank"
                for pid in result.winners:
                    assert result.bids[pid] is not None

    # -- rules ------------------------------------------------------------------

    def seat(self, index):
        players = self.game.players
        return players[index].id if index < len(players) else f"p{index + 50}"

    def host(self):
        return self.game.host or "p1"

    @precondition(lambda self: self.game.phase is Phase.LOBBY)
    @rule(name=NAMES)
    def join(self, name):
        self.act(Join(name))

    @precondition(lambda self: self.game.phase is Phase.LOBBY)
    @rule(difficulty=st.sampled_from(["easy", "medium", "hard"]))
    def add_bot(self, difficulty):
        self.act(AddBot(self.host(), difficulty))

    @precondition(lambda self: self.game.phase is Phase.LOBBY)
    @rule(index=SEAT)
    def remove_bot_or_kick(self, index):
        target = self.seat(index)
        self.act(RemoveBot(self.host(), target) if target.startswith("b") else Kick(self.host(), target))

    @precondition(lambda self: self.game.phase is Phase.LOBBY)
    @rule(preset=st.sampled_from(sorted(PRESETS)), changes=SETTINGS)
    def change_settings(self, preset, changes):
        self.act(ChangeSettings(self.host(), {"preset": preset, **changes}))

    @rule()
    def start(self):
        self.act(Start(self.host()))

    @rule(presses=st.lists(st.tuples(SEAT, BACK), min_size=1, max_size=4))
    def press(self, presses):
        for index, back in presses:
            pid = self.seat(index)
            self.act(Press(pid, None if back is None else self.now - back), twin_of=pid)

    @precondition(lambda self: self.game.phase is Phase.COUNTDOWN)
    @rule(seats=st.sets(SEAT, min_size=1), back=BACK)
    def press_in_the_countdown(self, seats, back):
        """As ``press``, more often where presses count."""
        self.press([(index, back) for index in sorted(seats)])

    @rule(index=SEAT, back=BACK)
    def release(self, index, back):
        pid = self.seat(index)
        self.act(Release(pid, None if back is None else self.now - back), twin_of=pid)

    @rule(index=st.integers(0, 29))  # mostly nobody, so rooms do not empty too soon
    def leave(self, index):
        self.act(Leave(self.seat(index)))

    @rule(step=STEP)
    def tick(self, step):
        self.now += step
        self.act(Tick())

    @rule(step=STEP)
    def wait(self, step):
        """Time passes and no tick comes: the next action arrives late."""
        self.now += step

    # -- invariants ---------------------------------------------------------------

    @invariant()
    def banks_never_go_below_zero(self):
        assert all(p.bank_ms >= 0 for p in self.game.players)

    @invariant()
    def banks_lost_exactly_the_bids(self):
        g = self.game
        if g.phase is Phase.LOBBY:
            return
        spent = sum(g.settings.bank_ms - p.bank_ms for p in g.players)
        bids = sum(b for r in g.history for b in r.bids.values() if b is not None)
        assert spent == bids

    @invariant()
    def tenths_mode_keeps_banks_in_tenths(self):
        g = self.game
        if g.settings.tie == "tenth" and g.phase is not Phase.LOBBY:
            assert all(p.bank_ms % 100 == 0 for p in g.players)

    @invariant()
    def tokens_never_decrease(self):
        g = self.game
        if g.phase is Phase.LOBBY:
            self.tokens = {}
            return
        for p in g.players:
            assert p.tokens >= self.tokens.get(p.id, 0)
        self.tokens = {p.id: p.tokens for p in g.players}
        assert sum(self.tokens.values()) == sum(len(r.winners) for r in g.history)

    @invariant()
    def every_round_has_exactly_one_outcome(self):
        g = self.game
        assert [r.round for r in g.history] == list(range(1, len(g.history) + 1))
        assert all(n == 1 for n in self.outcomes.values())
        assert sorted(self.outcomes) == [r.round for r in g.history]
        in_round = g.phase in ROUND_PHASES
        assert (g.current is not None) == in_round
        assert g.round == len(g.history) + in_round

    @invariant()
    def nothing_is_overdue(self):
        due = next_deadline(self.game)
        assert due is None or due > self.applied_at
        if self.game.phase is not Phase.LOBBY:
            assert apply(self.game, Tick(), self.applied_at) == (self.game, [])

    @invariant()
    def views_hold_no_hidden_fact(self):
        g = self.game
        viewers = [p.id for p in g.players] + [None]
        for viewer in viewers:
            view = view_for(g, viewer, self.now)
            json.dumps(view)
            if g.phase not in (Phase.LOBBY, Phase.ENDED):  # nothing is hidden there
                for twin in hidden_twins(g, viewer):
                    assert view_for(twin, viewer, self.now) == view

    @invariant()
    def nothing_shows_before_the_entry_closes(self):
        """Until go plus the grace, every view is the same whoever else holds --
        even as time passes: an empty round is not called before then."""
        g, _ = apply(self.game, Tick(), self.now)
        if g.current is None or g.phase is Phase.COUNTDOWN or self.now >= entry_close(g):
            return
        if self.game.current is None or self.game.current.number != g.current.number:
            return      # twins of an earlier round: who held then may show by now
        for viewer in [p.id for p in g.players] + [None]:
            view = view_for(g, viewer, self.now)
            for twin in hidden_twins(self.game, viewer):
                later, _ = apply(twin, Tick(), self.now)
                assert view_for(later, viewer, self.now) == view, viewer

    @invariant()
    def skipping_a_press_or_release_changes_no_one_elses_view(self):
        if self.twin is None:
            return
        twin, skipped_player, rounds = self.twin
        # Bring both up to now: a refused action advances neither, so they may lag.
        g, _ = apply(self.game, Tick(), self.now)
        twin, _ = apply(twin, Tick(), self.now)
        if len(g.history) != rounds or len(twin.history) != rounds:
            self.twin = None  # the round ended in one of them: the end is visible
            return
        assert g.current is not None and twin.current is not None and twin.phase is g.phase
        for viewer in [p.id for p in g.players if p.id != skipped_player] + [None]:
            a = json.dumps(view_for(g, viewer, self.now), sort_keys=True)
            b = json.dumps(view_for(twin, viewer, self.now), sort_keys=True)
            assert a == b, viewer


RoomMachine.TestCase.settings = settings(
    max_examples=150,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_room_machine = RoomMachine.TestCase
