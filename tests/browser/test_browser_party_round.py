"""The round for whoever is out of it: no dead air, nothing leaked, words that say what is on.

Three players in a Time Stake room (spending starts at go): Ann and Cy hold through go, Bob
sits out; Ann lets go while Cy holds on. Ann and Bob see the round's running clock and a
"waiting for the others" line; a press after go says it is too late; the big screen shows
the clock large. The last round never promises a next one, a page reopened in the countdown
says why it sits the round out, and eight long names fit their chips on a 390 px phone.
Screenshots go to test-artifacts/party/.
"""

from __future__ import annotations

import re
import time

import phone
from client import Player

PARTY = "party/"
SCREEN = {"viewport": {"width": 1280, "height": 720}}
LONG_NAMES = ["Christabel Featherstone", "Bartholomew Higgins", "Maximilian Ostrowski",
              "Anastasia Romanova", "Wolfgang Amadeus", "Evangeline Montgomery", "Guinevere Lancaster"]


class Expect:
    """Every expectation of a test checked, the misses reported together at the end (so
    one run of the code before a fix shows, and screenshots, every screen that was wrong)."""

    def __init__(self):
        self.misses: list[str] = []

    def __call__(self, ok: bool, detail: object = "") -> None:
        if not ok:
            self.misses.append(repr(detail))

    def done(self) -> None:
        assert not self.misses, "\n".join(self.misses)


def clock_of(page, selector: str) -> int:
    """The tenths of a second a clock shows (0 when it shows none): whole numbers, so
    7.2 s and 0.4 s more make 7.6 s (in floats 7.6000000000000005 > 7.6)."""
    found = re.search(r"(\d+)\.(\d)", page.inner_text(selector))
    return int(found.group(1)) * 10 + int(found.group(2)) if found else 0


def ticking(page, selector: str) -> tuple[int, int]:
    """The clock of ``selector`` read twice, 0.6 s apart, in tenths."""
    first = clock_of(page, selector)
    time.sleep(0.6)
    return first, clock_of(page, selector)


def on_first_screen(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["height"] > 0 and box["y"] + box["height"] <= 844


def widest(page) -> int:
    """The page's widest scroll width over 0.7 s (more than a quarter turn of the ring's arc)."""
    return page.evaluate("""() => new Promise(done => { let most = 0; const until = performance.now() + 700;
        (function look() { most = Math.max(most, document.documentElement.scrollWidth);
          if (performance.now() < until) requestAnimationFrame(look); else done(most); })(); })""")


def room_of_three(base: str, ann, bob, **settings) -> tuple[str, Player]:
    """Ann hosts a Time Stake room (short timings), Bob joins in his browser, Cy by the protocol."""
    code = phone.room_with_ai(ann, base, "Ann", bots=0, preset="stake", open_page=False, **settings)
    phone.post(bob, f"{base}/r/{code}/join", {"name": "Bob"})
    cy = Player(base)
    cy.join(code, "Cy")
    for page in (ann, bob):
        page.goto(f"{base}/r/{code}")
        phone.live(page)
    return code, cy


def test_whoever_is_out_of_the_round_sees_its_clock_and_waits(server, open_phone, browser):
    base = server.url
    expect = Expect()
    ann, bob = open_phone(), open_phone()
    code, cy = room_of_three(base, ann, bob, rounds=1, ready_ms=3_000)
    tv_context = browser.new_context(**SCREEN)
    tv = tv_context.new_page()
    phone.watch(tv)
    try:
        tv.goto(f"{base}/r/{code}/screen")
        phone.live(tv)
        phone.start(ann, base, code)
        finger = phone.Finger(ann)
        finger.down()
        phone.button(ann, "in")
        hold = cy.press()
        assert hold.accepted, hold.first
        for page in (ann, bob, tv):
            phone.wait_state(page, "spending", 1)
        time.sleep(1.2)
        finger.up()
        phone.released(ann)
        time.sleep(0.8)
        phone.shot(bob, PARTY + "phone-waiting-after")
        phone.shot(ann, PARTY + "phone-let-go-after")

        # Ann let go: her bid, that the round goes on, and its clock ticking on the button.
        msg = ann.inner_text("#hold-msg")
        expect(re.search(r"You let go at \d+\.\d s — waiting for the others", msg), msg)
        first, then = ticking(ann, "#hold-clock")
        expect(then >= first + 4 and first >= 15, ("Ann's clock", first, then))
        # Bob sat out: the same clock, and why he waits, on the first screen.
        msg = bob.inner_text("#hold-msg")
        expect("You sat this round out — waiting for the others" in msg, msg)
        first, then = ticking(bob, "#hold-clock")
        expect(then >= first + 4 and first >= 15, ("Bob's clock", first, then))
        expect(on_first_screen(bob, "#hold-clock") and on_first_screen(bob, "#hold-msg"), "first screen")
        # The turning arc never widens the page: no sideways scroll on a 390 px phone.
        expect(widest(ann) <= 390 and widest(bob) <= 390, ("page wider than the phone", widest(ann)))

        # Bob presses after go: too late, and the hint no longer asks for a press.
        bob_finger = phone.Finger(bob)
        bob_finger.down()
        time.sleep(0.3)
        bob_finger.up()
        time.sleep(0.2)
        phone.shot(bob, PARTY + "too-late-after")
        zone = bob.inner_text(".hold-zone")
        expect("Too late — press during the countdown" in zone and "Touch and hold" not in zone, zone)

        # The big screen: the clock large and moving, not a word over an empty half.
        phone.shot(tv, PARTY + "screen-spending-after")
        clock = ".status .tv-clock"
        expect(tv.locator(clock).count() == 1, "no clock on the big screen")
        if tv.locator(clock).count() == 1:
            first, then = ticking(tv, clock)
            expect(then >= first + 4 and first >= 15, ("the big screen's clock", first, then))
            size = tv.evaluate(f"parseFloat(getComputedStyle(document.querySelector('{clock}')).fontSize)")
            expect(size >= 64, ("the big screen's clock is small", size))
        expect(tv.evaluate("getComputedStyle(document.querySelector('.tv-ring')).display") != "none",
               "no ring on the big screen")
        expect(tv.evaluate("document.getAnimations().some(a => a.playState === 'running')"),
               "nothing moves on the big screen")

        hold.release()
        for page in (ann, bob):
            phone.wait_round_over(page, 1)
        # The last round: nothing promises a next one.
        time.sleep(0.3)
        phone.shot(ann, PARTY + "last-round-after")
        for page in (ann, bob):
            said = page.text_content("#hold-msg") + page.inner_text(".status")
            expect("Next round" not in said and "Final standings" in said, said)
    finally:
        phone.check_clean(tv)
        tv_context.close()
        cy.stop()
    expect.done()


def test_a_page_reopened_in_the_countdown_says_it_sits_the_round_out(server, open_phone):
    base = server.url
    ann, bob = open_phone(), open_phone()
    code, cy = room_of_three(base, ann, bob, rounds=1, ready_ms=6_000)
    try:
        phone.start(ann, base, code)
        phone.wait_state(bob, "countdown", 1)
        bob.reload()
        phone.live(bob)
        phone.wait_state(bob, "countdown", 1)
        phone.button(bob, "out")
        phone.shot(bob, PARTY + "came-back-after")
        msg = bob.inner_text("#hold-msg")
        assert "You came back during the countdown: you sit this round out" in msg, msg
        assert on_first_screen(bob, "#hold-msg")
        # Nothing to press this round, so no hint asks for a press.
        assert not bob.locator("#hold-help").is_visible() or "hold the button" not in bob.inner_text("#hold-help")
    finally:
        cy.stop()


def test_eight_long_names_fit_their_chips_on_a_phone(server, open_phone):
    base = server.url
    ann = open_phone()
    code = phone.room_with_ai(ann, base, "Ann", bots=0, preset="stake", open_page=False,
                              max_players=8, ready_ms=9_000)
    guests = []
    try:
        for name in LONG_NAMES:
            guest = Player(base)
            guest.join(code, name)
            guests.append(guest)
        ann.goto(f"{base}/r/{code}")
        phone.live(ann)
        phone.start(ann, base, code)
        phone.shot(ann, PARTY + "chips-eight-after")
        chips = ann.evaluate("""() => [...document.querySelectorAll('.strip .chip:not(.is-me) .chip-name')]
            .map(el => ({text: el.textContent.trim(), clipped: el.scrollHeight > el.clientHeight + 1
                         || el.scrollWidth > el.clientWidth + 1}))""")
        assert [c["text"] for c in chips] == LONG_NAMES
        assert not [c for c in chips if c["clipped"]], chips
        assert phone.overflow(ann) == []
        # The whole button still on the first screen, under the strip.
        assert on_first_screen(ann, "#hold") and on_first_screen(ann, "#hold-msg")
    finally:
        for guest in guests:
            guest.stop()
