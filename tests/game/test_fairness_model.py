"""The fairness formulas on their own: estimate, compensated release, entry grace."""

from __future__ import annotations

import random

from auction.game import fairness

CAP = 300


def test_estimate_is_the_median_of_the_newest_samples():
    assert fairness.estimate_rtt([]) is None
    assert fairness.estimate_rtt([100]) == 100
    assert fairness.estimate_rtt([100, 120, 900]) == 120          # a spike is ignored
    old = [5] * 100
    assert fairness.estimate_rtt([300] * fairness.SAMPLES + old) == 300   # only the newest count


def test_estimate_is_not_biased_low_by_jitter():
    rng = random.Random(1)
    samples = [300 + rng.randint(-30, 30) for _ in range(fairness.SAMPLES)]
    assert abs(fairness.estimate_rtt(samples) - 300) <= 10
    assert min(samples) < 285        # the minimum would be


def test_release_is_charged_from_the_view_of_spending_less_one_round_trip():
    # Spending at 10_000; the server sent this player's view at 10_020; 200 ms
    # round trip; the player let go 1_000 ms after seeing it: arrival 11_220.
    spend, shown, rtt, held = 10_000, 10_020, 200, 1_000
    arrived = shown + rtt // 2 + held + rtt // 2
    at = fairness.release_moment(arrived, rtt, CAP, spend, shown)
    assert at - spend == held


def test_without_a_view_record_only_the_round_trip_is_taken_off():
    assert fairness.release_moment(5_000, 120, CAP) == 4_880
    assert fairness.release_moment(5_000, None, CAP) == 5_000   # nothing known: nothing taken


def test_compensation_is_capped():
    assert fairness.compensation(900, CAP) == CAP
    assert fairness.compensation(-5, CAP) == 0
    # The server's own send lag is bounded too, and never negative.
    assert fairness.compensation(0, CAP, 1_000, 1_000 + 5_000) == fairness.LAG_CAP_MS
    assert fairness.compensation(0, CAP, 1_000, 900) == 0
    assert fairness.compensation(900, CAP, 1_000, 1_040) == CAP + 40


def test_a_seats_own_stream_lateness_is_credited_within_the_cap():
    # The room showed spending at 10_020; this seat's stream wrote it 60 ms later still,
    # its worker busy with the other streams: the release is dated from 10_080.
    spend, shown, rtt, held, late = 10_000, 10_020, 200, 1_000, 60
    arrived = shown + late + rtt + held
    assert fairness.release_moment(arrived, rtt, CAP, spend, shown, late) - spend == held
    # Capped like the round trip, and nothing at all with compensation off.
    assert fairness.compensation(0, CAP, spend, spend, 900) == CAP
    assert fairness.release_moment(5_000, 200, 0, 4_000, 4_050, 60) == 5_000


def test_a_streams_lateness_is_only_the_servers_own_wait():
    # Published at 1_000, the write ready at 1_070: 70 ms the server's.
    assert fairness.stream_lateness(1_000, 900, 1_070) == 70
    # The stream's previous write went out only at 1_050 (a client slow to read it):
    # the wait counts from there, so stalling a stream earns nothing.
    assert fairness.stream_lateness(1_000, 1_050, 1_070) == 20
    assert fairness.stream_lateness(1_000, 1_200, 1_070) == 0


def test_cap_zero_switches_everything_off():
    assert fairness.release_moment(5_000, 200, 0, 4_000, 4_050) == 5_000
    assert fairness.entry_grace(200, 0) == 0
    assert fairness.press_moment(5_000, 4_900, 200, 0) == 5_000


def test_a_press_before_go_keeps_its_arrival():
    assert fairness.press_moment(4_000, 4_500, 300, CAP) == 4_000
    assert fairness.press_moment(4_000, None, 300, CAP) == 4_000


def test_a_press_after_go_gets_a_grace_of_two_round_trips_capped():
    go = 10_000
    assert fairness.entry_grace(100, CAP) == 200
    assert fairness.press_moment(go + 150, go, 100, CAP) == go - 50       # in
    assert fairness.press_moment(go + 250, go, 100, CAP) == go + 50       # still after go
    assert fairness.entry_grace(1_000, CAP) == 2 * CAP                    # a slow answerer


def test_a_socket_that_answered_no_ping_earns_no_grace():
    assert fairness.entry_grace(None, CAP) == 0
    assert fairness.press_moment(10_050, 10_000, None, CAP) == 10_050     # too late


def test_over_tls_the_grace_is_three_round_trips():
    assert fairness.entry_grace(100, CAP, tls=True) == 300
    assert fairness.entry_grace(1_000, CAP, tls=True) == 3 * CAP
    assert fairness.press_moment(10_250, 10_000, 100, CAP, tls=True) == 9_950   # in
    assert fairness.longest_entry_wait(CAP, tls=True) == 3 * CAP + 2 * CAP


def test_the_longest_wait_for_a_press_on_its_way():
    assert fairness.longest_entry_wait(CAP) == 2 * CAP + 2 * CAP          # grace + one ping
    assert fairness.longest_entry_wait(0) == 0


def test_what_a_client_that_delays_its_answers_can_gain():
    """However slow it pretends to be, a release moves back at most the cap plus
    the (server-measured) send lag, and a press at most GRACE_RTTS caps."""
    for fake in (0, 100, 300, 600, 10_000):
        assert fairness.compensation(fake, CAP, 0, 10) <= CAP + 10
        assert fairness.entry_grace(fake, CAP) <= fairness.GRACE_RTTS * CAP
        assert fairness.entry_grace(fake, CAP, tls=True) <= fairness.TLS_GRACE_RTTS * CAP
