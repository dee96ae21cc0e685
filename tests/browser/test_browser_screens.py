"""Every screen, on a 390×844 phone and a 1280×800 laptop, written to test-artifacts/screens/.

One online game (a phone host playing by touch, a laptop guest playing by Space,
AI players, the big screen on a third device), a solo lobby, and the pages
around them. Each screen is also checked for sideways overflow and script errors.
"""

from __future__ import annotations

import time

import phone

LAPTOP = {"viewport": {"width": 1280, "height": 800}}


def test_every_screen_at_phone_and_laptop_size(server, browser, open_phone):
    base = server.url
    host = open_phone(touch=True)
    laptop_ctx = browser.new_context(**LAPTOP)
    tv_ctx = browser.new_context(**LAPTOP)
    try:
        guest = laptop_ctx.new_page()
        tv = tv_ctx.new_page()
        for page in (guest, tv):
            phone.watch(page)

        def both(name, phone_page=host, laptop_page=guest):
            for page, size in ((phone_page, "phone"), (laptop_page, "laptop")):
                if page is None:
                    continue
                assert phone.overflow(page) == [], (name, size, phone.overflow(page))
                phone.shot(page, f"screens/{name}-{size}")

        def tv_shot(name):
            assert phone.overflow(tv) == [], (name, phone.overflow(tv))
            phone.shot(tv, f"screens/{name}-laptop")

        for path, name in (("/", "home"), ("/rules", "rules"), ("/strategy", "strategy"),
                           ("/offline", "offline"), ("/r/QQQQ", "no-room")):
            host.goto(base + path)
            guest.goto(base + path)
            both(name)

        # The game's own 5 s free window, not the helpers' 1 s: the countdown's screens of
        # each device come before the free window's (1.8 s here quiet, 2.7 s with six busy
        # loops on two cores, and more than 4 s on CI).
        code = phone.room_with_ai(host, base, "Hana", bots=3, rounds=2, reveal="all_bids",
                                  own_bank="toggle", ready_ms=3_000, free_ms=5_000)
        guest.goto(f"{base}/r/{code}")
        phone.live(guest)
        both("join", laptop_page=guest)
        guest.fill("#join-name", "Gus")
        with guest.expect_navigation():
            guest.click("form[action$='/join'] button[type=submit]")
        phone.live(guest)
        phone.players_listed(host, 5)
        # The TV as the host opens it: its "Big screen" button carries the invitation.
        tv.goto(base + host.get_attribute("a.button[href*='/screen']", "href"))
        tv.wait_for_selector('#room[data-live="true"]', state="attached")
        assert tv.inner_text(".tv-code") == code and tv.locator(".tv-qr svg.qr").count() == 1
        assert tv.locator(".tv-tokens tbody tr").count() == 5
        both("lobby-host", laptop_page=None)
        both("lobby-guest", phone_page=None)
        tv_shot("tv-lobby")

        phone.start(host, base, code)
        phone.wait_state(guest, "countdown", 1)
        # Pressed first, then looked at: slow screens on a busy machine (CI) must not
        # make the presses come after the free window.
        finger = phone.Finger(host)
        finger.down()
        guest.keyboard.down("Space")
        phone.button(host, "in")
        phone.button(guest, "in")
        time.sleep(0.6)
        both("countdown")
        assert tv.inner_text(".status .beat").strip().isdigit()
        tv_shot("tv-countdown")
        phone.wait_state(host, "free", 1)
        time.sleep(0.3)
        both("free-holding")
        phone.wait_state(host, "spending", 1)
        time.sleep(0.4)
        both("spending-holding")
        finger.up()
        phone.released(host)
        time.sleep(0.2)
        phone.shot(host, "screens/let-go-phone")
        guest.keyboard.up("Space")
        phone.wait_round_over(host, 1)
        phone.wait_round_over(guest, 1)
        tv.wait_for_selector('.status .state[data-phase="result"]', state="attached")
        time.sleep(0.8)                    # the reveal's animation has played
        both("result")
        tv_shot("tv-result")

        phone.wait_state(host, "ended", timeout_s=2 * phone.ROUND_S)
        phone.wait_state(guest, "ended")
        tv.wait_for_selector('.status .state[data-phase="ended"]', state="attached")
        time.sleep(1.2)                    # the podium has risen
        both("end")
        assert tv.locator(".standings tbody tr").count() == 5 and tv.locator(".podium .step").count() == 3
        tv_shot("tv-end")

        # A solo lobby of its own, at both sizes.
        for page in (host, guest):
            page.goto(base + "/")
            page.fill("#name", "Sol")
            page.check('input[name="mode"][value="quick"]')
            with page.expect_navigation(url="**/r/*"):
                page.click("button[formaction='/solo']")
            phone.live(page)
        both("solo-lobby")
    finally:
        for page in (guest, tv):
            phone.check_clean(page)
        laptop_ctx.close()
        tv_ctx.close()
