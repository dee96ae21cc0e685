"""The end of a party game: play again comes first on every phone, the big screen's end
fits a wide screen with nothing to press, and the end's words are honest about ties.

Three phones (Ann hosts, Bob and Dana join) play one round in which nobody bids, so all
three end level on tokens and time: a three-way tie for first, which has no winner.
Screenshots go to test-artifacts/party/end-*.png.
"""

from __future__ import annotations

import phone

SCREEN = 844          # the phone's first screen, in CSS px
TV_SIZES = ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080})


def top_and_bottom(page, locator) -> tuple[float, float]:
    """Where ``locator`` sits on the page (document coordinates, not the viewport's)."""
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not on the page (hidden, or swapped out under the test)"
    scroll = page.evaluate("window.scrollY")
    return box["y"] + scroll, box["y"] + scroll + box["height"]


def on_first_screen(page, locator, height: int = SCREEN) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    assert locator.is_visible()
    top, bottom = top_and_bottom(page, locator)
    assert bottom <= height, f"{locator} ends at {bottom:.0f} px, below the first {height} px"


def three_phones_tied(server, open_phone):
    """A one-round game nobody bid in, ended; returns (code, host, guests)."""
    base = server.url
    host = open_phone(touch=True)
    code = phone.post(host, base + "/rooms", {"name": "Ann", "preset": "stake"}, 201)["code"]
    phone.post(host, f"{base}/r/{code}/settings",
               {"rounds": 1, "bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 1_000,
                "result_ms": 2_000})
    guests = []
    for name in ("Bob", "Dana"):
        guest = open_phone(touch=True)
        guest.goto(f"{base}/r/{code}")          # the device's cookie, then a seat
        phone.post(guest, f"{base}/r/{code}/join", {"name": name})
        guests.append(guest)
    for page in (host, *guests):
        page.goto(f"{base}/r/{code}")
        phone.live(page)
    phone.start(host, base, code)
    for page in (host, *guests):
        phone.wait_state(page, "ended", timeout_s=20)
        page.wait_for_selector(".final .podium", state="visible")
        podium_risen(page)
    return code, host, guests


def podium_risen(page) -> None:
    """Once the steps have risen (app.css, rise), each stands whole inside the podium, whose
    floor clips them while they rise: a screenshot before then shows cut-off steps."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running'"
                           " || a.effect.getComputedTiming().endTime === Infinity)", timeout=5_000)
    cut = page.evaluate("""() => { const floor = document.querySelector('.final .podium').getBoundingClientRect();
        return [...document.querySelectorAll('.final .podium .step')].filter(step => {
          const box = step.getBoundingClientRect(), block = step.querySelector('.step-block');
          return box.bottom > floor.bottom + 0.5 || block.scrollHeight > block.clientHeight;
        }).map(step => step.textContent.trim()); }""")
    assert not cut, f"podium steps cut off at its floor: {cut}"


def test_the_rematch_comes_first_and_the_words_are_honest(server, open_phone):
    code, host, (bob, dana) = three_phones_tied(server, open_phone)
    phone.shot(host, "party/end-host-after")
    phone.shot(dana, "party/end-guest-after")

    # The host's one tap to play again, on the first screen, right under the podium.
    rematch = host.locator("form[action$='/rematch'] button[type=submit]")
    on_first_screen(host, rematch)
    assert rematch.inner_text().strip() == "Rematch"
    assert top_and_bottom(host, host.locator(".final .podium"))[1] <= top_and_bottom(host, rematch)[0]
    # Starting over from scratch is there, lower down, as a plain link (not a button).
    new_game = host.locator(".final a[href='/']", has_text="A new game from the start")
    assert new_game.count() == 1
    assert "button" not in (new_game.get_attribute("class") or "")
    assert top_and_bottom(host, new_game)[0] > top_and_bottom(host, rematch)[1]

    # A guest is told the rematch is the host's, on the first screen too.
    for guest in (bob, dana):
        # Only the host's (a guest's own shows once the host's turn is over: rules.HOST_TURN_MS).
        assert guest.locator("form[action$='/rematch']:visible").count() == 0
        on_first_screen(guest, guest.locator(".final .rematch-wait",
                                             has_text="Waiting for the host to start a rematch"))

    # The words: one round is "1 round", and a tie for first says who tied and that nobody wins.
    for page, me in ((host, "Ann"), (bob, "Bob"), (dana, "Dana")):
        text = page.inner_text("#room")
        assert "1 round played" in text and "1 rounds" not in text
        tied = ", ".join(n + (" (you)" if n == me else "") for n in ("Ann", "Bob", "Dana"))
        tied = " and ".join(tied.rsplit(", ", 1))
        assert page.inner_text(".final .verdict").strip() == \
            f"A three-way tie for first: {tied} — so nobody wins."
        steps = page.locator(".final .podium .step")
        assert steps.count() == 3
        # No gold winner's step for a game nobody won: three equal, marked tied first places.
        assert page.locator(".final .podium .step.winner").count() == 0
        for step in steps.all():
            assert step.locator(".step-place").inner_text().strip() == "1"
            assert "tied" in step.inner_text()
            colour = step.locator(".step-block").evaluate("el => getComputedStyle(el).backgroundColor")
            assert colour != "rgb(255, 176, 32)", "a tied first place is drawn as the winner's gold"
    # Dana's own row reads the same in the podium and the table: "Dana (you)".
    assert dana.locator(".final .podium .is-me .step-name").inner_text().strip() == "Dana (you)"
    assert dana.locator(".final .standings tr.is-me th").inner_text().strip() == "Dana (you)"

    # Once the rematch is open, an end screen opened afresh offers to join it, first thing.
    with host.expect_navigation(url="**/r/*"):
        host.tap("form[action$='/rematch'] button[type=submit]")
    new = host.url.rsplit("/", 1)[1]
    bob.wait_for_url(f"**/r/{new}", timeout=10_000)
    bob.goto(f"{server.url}/r/{code}")
    # The stream's first view swaps #room's contents: measured before it lands, the link
    # can be replaced between being found and being measured.
    phone.live(bob)
    join = bob.locator("[data-rematch-follow]")
    on_first_screen(bob, join)
    assert join.inner_text().strip() == "Join the rematch"
    phone.shot(bob, "party/end-rematch-open-after")


def test_the_big_screen_end_fits_a_wide_screen_with_nothing_to_press(server, open_phone, browser):
    code, host, guests = three_phones_tied(server, open_phone)
    for size in TV_SIZES:
        ctx = browser.new_context(viewport=size)
        try:
            tv = ctx.new_page()
            phone.watch(tv)
            tv.goto(f"{server.url}/r/{code}/screen")
            tv.wait_for_selector('#room[data-live="true"]', state="attached")
            tv.wait_for_selector(".stage svg.chart", state="visible")
            width, height = size["width"], size["height"]
            tv.wait_for_timeout(1_200)             # the podium's steps have risen
            phone.shot(tv, f"party/end-tv-{width}x{height}-after")
            # Nothing to follow or press: no site links, no new game, no player buttons.
            links = tv.evaluate("""() => [...document.querySelectorAll('a[href]')]
                .filter(a => !a.classList.contains('skip') && a.getClientRects().length)
                .map(a => a.textContent.trim())""")
            assert links == [], links
            assert tv.locator("form").count() == 0
            pressable = tv.evaluate("""() => [...document.querySelectorAll('button')]
                .filter(b => !b.hasAttribute('data-sound') && b.getClientRects().length)
                .map(b => b.textContent.trim())""")
            assert pressable == [], pressable
            assert tv.locator("nav").count() == 0
            # The podium whole on the first screen, the charts beside it, nothing sideways.
            podium = tv.locator(".stage .podium")
            on_first_screen(tv, podium, height)
            chart = tv.locator(".stage svg.chart").first
            p, c = podium.bounding_box(), chart.bounding_box()
            assert c["x"] >= p["x"] + p["width"], "the charts are not beside the podium"
            assert c["y"] < height, "the charts start below the first screen"
            assert tv.evaluate("document.documentElement.scrollWidth") <= width
            # With three players the whole end fits: nothing to scroll on a TV nobody touches.
            assert tv.evaluate("document.documentElement.scrollHeight") <= height
            assert "A three-way tie for first: Ann, Bob and Dana" in tv.inner_text("#room")
            phone.check_clean(tv)
        finally:
            ctx.close()
