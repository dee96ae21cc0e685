"""The TV as a party uses it (issue 44): typed in at ``/tv`` with a remote, showing the names
as people join, following the room into its rematch within a second, readable from a sofa
in every phase at 1280×720 and 1920×1080, and heard (a key turns the sound on once).

The screenshots go to test-artifacts/tv/ (every phase, both sizes).
"""

from __future__ import annotations

import time

import pytest

import phone
from client import Player
from doors import big_screen_on

SIZES = ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080})
# The game's own 5 s free window: the countdown's screens of both TVs come before it.
SHORT = {"bank_ms": 30_000, "ready_ms": 3_000, "free_ms": 5_000, "result_ms": 4_000}
HTML = {"Accept": "text/html"}
# Which sound played, by its length in seconds (tools/make_sounds.py draws them).
SOUNDS = {"0.09": "tick", "0.42": "go", "0.80": "end", "1.05": "podium"}
# Records each sound the page starts (tv.js plays them through Web Audio).
HEAR = """window.taHeard = [];
const start = AudioBufferSourceNode.prototype.start;
AudioBufferSourceNode.prototype.start = function (...args) {
  window.taHeard.push(this.buffer ? this.buffer.duration.toFixed(2) : '?');
  return start.apply(this, args);
};"""


def a_tv(browser, size: dict, **options):
    ctx = browser.new_context(viewport=size, **options)
    ctx.add_init_script(HEAR)
    tv = ctx.new_page()
    phone.watch(tv)
    return ctx, tv


def type_code(tv, base: str, code: str) -> None:
    """As a person with a TV remote: open /tv, type the code, press Enter."""
    tv.goto(base + "/tv")
    # The field is focused as the page opens: the remote's keyboard types straight in.
    assert tv.evaluate("document.activeElement.id") == "tv-code"
    tv.keyboard.type(code.lower())
    with tv.expect_navigation(url=f"**/r/{code}/screen"):
        tv.keyboard.press("Enter")
    phone.live(tv)


def name(size: dict) -> str:
    return f"{size['width']}x{size['height']}"


def fits(tv, size: dict, what: str) -> None:
    """Nothing sideways, and nothing to scroll: nobody scrolls a TV."""
    assert phone.overflow(tv) == [], (what, phone.overflow(tv))
    height = tv.evaluate("document.documentElement.scrollHeight")
    assert height <= size["height"], (what, height, size)


def test_the_tv_types_the_code_and_shows_the_names_as_they_arrive(server, browser):
    base = server.url
    host = Player(base)
    code = host.create("Hana", "stake")
    ctx, tv = a_tv(browser, SIZES[0])
    try:
        # A code that cannot be one is said so at once; one of no room is a miss (404).
        shown = tv.goto(base + "/tv?code=12%234")
        assert shown.status == 400 and "is not a room code" in tv.inner_text(".field-error")
        shown = tv.goto(base + "/tv?code=qqqq")
        assert shown.status == 404 and "There is no room QQQQ" in tv.inner_text(".field-error")
        assert tv.input_value("#tv-code") == "qqqq"          # kept, to correct
        phone.shot(tv, "tv/door-no-room")

        started = time.monotonic()
        type_code(tv, base, code)
        print(f"/tv to the live big screen: {time.monotonic() - started:.2f} s")
        # A TV that typed the code is a stranger: the code and the site, no invitation.
        assert tv.inner_text(".tv-code") == code
        assert tv.locator(".tv-qr").count() == 0
        assert tv.inner_text(".tv-site") == base.split("://")[1]

        guest = Player(base)
        joined = time.monotonic()
        guest.join(code, "Zoë")
        row = tv.locator('.tv-tokens tbody tr:has-text("Zoë")')
        row.wait_for(timeout=5_000)
        print(f"a joining name on the TV: {time.monotonic() - joined:.2f} s")
        # The newcomer pops in; the host, there already, stays still.
        assert "arrive" in row.get_attribute("class")
        assert "arrive" not in (tv.locator('.tv-tokens tbody tr:has-text("Hana")').get_attribute("class") or "")
        assert "2 of" in tv.inner_text(".status .sub")
        phone.shot(tv, "tv/lobby-name-arrived")
        phone.check_clean(tv)
        host.stop()
        guest.stop()
    finally:
        ctx.close()


# It measures a second: run alone (`make test`'s second pass), since three browsers beside it
# on two cores made it 1.26 s once.
@pytest.mark.timing
def test_the_tv_follows_the_rematch_within_a_second(server, browser):
    base = server.url
    host = Player(base)
    code = host.create("Hana", "stake")
    host.post(f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    host.post(f"/r/{code}/settings", {**SHORT, "rounds": 1, "result_ms": 2_000})
    ctx, tv = a_tv(browser, SIZES[0])
    try:
        type_code(tv, base, code)
        host.post(f"/r/{code}/start")
        phone.wait_state(tv, "ended", timeout_s=phone.ROUND_S)
        time.sleep(0.5)
        asked = time.monotonic()
        new = host.post(f"/r/{code}/rematch", expect=201).json()["code"]
        tv.wait_for_url(f"**/r/{new}/screen", timeout=5_000)
        # Timed to the live stream's first view, not through phone.live's 0.2 s of settling
        # after it: that sleep is the test's, and it was a fifth of the second measured.
        tv.wait_for_selector('#room[data-live="true"]', state="attached", timeout=10_000)
        took = time.monotonic() - asked
        print(f"the TV in the rematch's lobby, live: {took:.2f} s")
        assert took < 1.0, took
        # It arrives a stranger to the new room: the new code large, no QR.
        assert tv.inner_text(".tv-code") == new and tv.locator(".tv-qr").count() == 0
        phone.shot(tv, "tv/rematch-arrived")
        phone.check_clean(tv)
        host.stop()
    finally:
        ctx.close()


def test_the_tv_in_every_phase_at_1280_and_1920(server, browser):
    """Two TVs (1280×720 and 1920×1080) through a two-round game: lobby (typed in, then as
    the host opens it), countdown, free window, bidding, result, end; each whole on its
    screen. A key press on each turns the sound on; each hears the countdown, go, the
    round's end and the podium."""
    base = server.url
    host, guest = Player(base), Player(base)
    code = host.create("Hana", "stake")
    host.post(f"/r/{code}/settings", {**SHORT, "rounds": 2, "reveal": "all_bids"})
    guest.join(code, "Gus")
    host.post(f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    tvs = [a_tv(browser, size) for size in SIZES]
    try:
        for (_, tv), size in zip(tvs, SIZES):
            type_code(tv, base, code)
            # The question, once, large; a key on the remote answers it.
            assert tv.locator("[data-sound-ask]").is_visible()
            phone.shot(tv, f"tv/lobby-typed-{name(size)}")
            fits(tv, size, "lobby")
        # As the host's "Big screen" button opens it: with the invitation, so the QR too.
        button = big_screen_on(host.http.get(f"{base}/r/{code}", headers=HTML, timeout=10).text)
        for (_, tv), size in zip(tvs, SIZES):
            tv.goto(base + button)
            phone.live(tv)
            assert tv.locator(".tv-qr svg").count() == 1
            tv.keyboard.press("Enter")
            tv.wait_for_selector("[data-sound-ask]", state="hidden")
            phone.shot(tv, f"tv/lobby-{name(size)}")
            fits(tv, size, "lobby")

        def every_tv(phase: str, round_no: int | None = None, settle: float = 0.0) -> None:
            for _, tv in tvs:
                phone.wait_state(tv, phase, round_no)
            time.sleep(settle)
            for (_, tv), size in zip(tvs, SIZES):
                phone.shot(tv, f"tv/{phase}-{name(size)}")
                fits(tv, size, phase)

        host.follow()
        host.post(f"/r/{code}/start")
        # Pressed first, then looked at: the round then waits for this hold, and a slow
        # look (two large screens on a busy machine; CI once took more than the 8 s of a
        # whole short round) cannot make the press come after go or after the round.
        host.wait_view(lambda v: v["phase"] == "countdown")
        hold = host.press()
        assert hold.accepted
        every_tv("countdown", 1, settle=0.6)
        for _, tv in tvs:
            assert tv.inner_text(".status .beat").strip().isdigit()
        every_tv("free", 1, settle=0.3)
        every_tv("spending", 1, settle=1.2)
        for _, tv in tvs:
            clock = tv.inner_text(".status .tv-clock")
            assert clock.endswith(" s") and float(clock.split()[0]) >= 0.5, clock
        hold.release()
        every_tv("result", 1, settle=1.2)       # the reveal has played
        for _, tv in tvs:
            size = tv.evaluate("parseFloat(getComputedStyle(document.querySelector('.reveal-who')).fontSize)")
            assert size >= 0.09 * tv.viewport_size["height"], ("the winner's name is small", size)
        for _, tv in tvs:
            phone.wait_state(tv, "ended", timeout_s=2 * phone.ROUND_S)
        time.sleep(1.5)                         # the podium has risen
        for (_, tv), size in zip(tvs, SIZES):
            phone.shot(tv, f"tv/end-{name(size)}")
            fits(tv, size, "end")
            step = tv.locator(".stage .podium .step-1 .step-block").bounding_box()
            assert step["height"] >= 0.15 * size["height"], ("a small podium", step)
        for _, tv in tvs:
            heard = [SOUNDS.get(d, d) for d in tv.evaluate("window.taHeard")]
            assert {"tick", "go", "end", "podium"} <= set(heard), heard
            assert heard[-1] == "podium", heard
            phone.check_clean(tv)
        host.stop()
        guest.stop()
    finally:
        for ctx, _ in tvs:
            ctx.close()


def test_eight_long_names_fit_the_tv_in_every_phase(server, browser):
    """A full table of eight, long names and Hangul among them: the names, every bid and
    the whole standings stay on a 1280×720 screen (tighter rows, never a scroll bar). This
    TV asks for reduced motion: the winner is shown without the reveal's animation."""
    base = server.url
    host = Player(base)
    code = host.create("Maximilian-Alexander", "stake")
    guests = [Player(base) for _ in range(3)]
    for guest, who in zip(guests, ("Gustav Wilhelmsson", "Zoë", "민수")):
        guest.join(code, who)
    for _ in range(4):
        host.post(f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    host.post(f"/r/{code}/settings", {**SHORT, "rounds": 1, "result_ms": 3_000, "reveal": "all_bids"})
    size = SIZES[0]
    ctx, tv = a_tv(browser, size, reduced_motion="reduce")
    try:
        type_code(tv, base, code)
        tv.keyboard.press("Enter")                       # the sound's question answered
        fits(tv, size, "lobby of eight")
        phone.shot(tv, "tv/eight-lobby-1280x720")
        host.post(f"/r/{code}/start")
        for phase in ("spending", "result", "ended"):
            phone.wait_state(tv, phase, timeout_s=phone.ROUND_S)
            time.sleep(1.5 if phase == "ended" else 1.0)
            fits(tv, size, f"{phase} of eight")
            phone.shot(tv, f"tv/eight-{phase}-1280x720")
            if phase == "result":
                assert tv.evaluate("document.getAnimations().length") == 0
        assert tv.locator(".standings tbody tr").count() == 8
        phone.check_clean(tv)
    finally:
        ctx.close()
        host.stop()
        for guest in guests:
            guest.stop()
