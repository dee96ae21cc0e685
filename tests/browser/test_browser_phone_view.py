"""The phone never moves away from the game (issue 44, item 5), on a 390×844 touch screen.

Start is on the first screen of both lobbies (solo, and the host's online lobby); a guest
reads "You're in" before anything meant for the host; at each countdown the hold button, the
countdown and the token strip are in view whatever the player scrolled before (a scrolled
Start, a scroll down during the round and its result); the end opens on the podium and
Rematch. Each screen as the player sees it (the viewport, not the whole page) goes to
test-artifacts/phone/.
"""

from __future__ import annotations

import time

import pytest

import phone

SCREEN_H = 844


def viewport_shot(page, name: str) -> None:
    """What the player sees: the screen as it is, not the whole page."""
    folder = phone.ARTIFACTS / "phone"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def in_view(page, selector: str) -> None:
    """``selector`` is shown whole on the screen as it is now (no scrolling)."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    print(f"{selector}: {box['y']:.0f}..{box['y'] + box['height']:.0f} px on the screen")
    assert box["y"] >= -0.5 and box["y"] + box["height"] <= SCREEN_H + 0.5, \
        f"{selector} spans {box['y']:.0f}..{box['y'] + box['height']:.0f} px, " \
        f"scrolled {page.evaluate('window.scrollY')} px: not all on the {SCREEN_H} px screen"


# Korean's words are as long on the screen as English's, but they are other words.
LOCALES = pytest.mark.parametrize("locale", ["en-US", "ko-KR"])


@LOCALES
def test_start_is_on_the_first_screen_of_the_solo_lobby(server, open_phone, locale):
    page = open_phone(touch=True, locale=locale)
    page.goto(server.url + "/")
    page.fill("#name", "Tess")
    page.check('input[name="mode"][value="quick"]')
    page.check('input[name="difficulty"][value="easy"]')
    page.select_option("#solo-players", "4")
    page.tap("button[formaction='/solo']")
    page.wait_for_url("**/r/*")
    phone.live(page)
    assert page.evaluate("window.scrollY") == 0
    in_view(page, "#start-game")
    viewport_shot(page, f"solo-lobby-{locale[:2]}")


@LOCALES
def test_start_is_on_the_first_screen_of_the_hosts_lobby(server, open_phone, locale):
    page = open_phone(touch=True, locale=locale)
    phone.create_room(page, server.url, "Hana")
    phone.live(page)
    viewport_shot(page, f"host-lobby-{locale[:2]}")
    in_view(page, "#start-game")
    # The room's code stays on that first screen too (the invite card, with its QR code,
    # follows the host's card).
    in_view(page, ".room-code .code")
    invite, card = page.locator(".invite").bounding_box(), page.locator(".host-card").bounding_box()
    assert invite["y"] > card["y"]


def test_a_guest_reads_youre_in_before_the_hosts_invite(server, open_phone):
    host, guest = open_phone(touch=True), open_phone(touch=True)
    phone.create_room(host, server.url, "Hana")
    phone.live(host)
    guest.goto(host.input_value("#invite-url"))
    phone.live(guest)
    guest.fill("#join-name", "Gus")
    with guest.expect_navigation():
        guest.tap(".join-card button[type=submit]")
    phone.live(guest)
    card = guest.locator(".lobby .card", has_text="You're in")
    in_view(guest, ".lobby .card:has(h2:text-is(\"You're in\"))")
    invite = guest.locator(".invite")
    if invite.count():
        assert invite.bounding_box()["y"] > card.bounding_box()["y"] + card.bounding_box()["height"]
    viewport_shot(guest, "guest-lobby")


def scroll_down(page) -> None:
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")


def test_the_button_stays_in_view_round_after_round_and_the_end_opens_on_the_podium(
        server, open_phone):
    page = open_phone(touch=True)
    # Countdowns of 4 s, so a busy machine's test still finds each one.
    phone.room_with_ai(page, server.url, "Pia", bots=1, rounds=3, ready_ms=4_000)
    # Start below the fold as a person reaches it: scrolled to, then tapped.
    page.locator("#start-game").scroll_into_view_if_needed()
    scroll_down(page)
    page.locator("#start-game").tap()
    scrolls = {}
    for round_no in (1, 2, 3):
        phone.wait_state(page, "countdown", round_no)
        time.sleep(0.15)
        scrolls[round_no] = page.evaluate("window.scrollY")
        print(f"round {round_no} countdown: scrollY {scrolls[round_no]}")
        viewport_shot(page, f"round-{round_no}-countdown")
        for selector in ("#hold", ".status .beat", ".status .round-no", ".players .strip"):
            in_view(page, selector)
        # The player scrolls away during the round and its result.
        scroll_down(page)
        phone.wait_round_over(page, round_no)
        time.sleep(0.3)
        scroll_down(page)
    # Never pushed further down round after round.
    assert scrolls[2] <= scrolls[1] and scrolls[3] <= scrolls[1], scrolls
    phone.wait_state(page, "ended", timeout_s=20)
    page.wait_for_selector(".final .podium", state="visible")
    time.sleep(1.2)     # the podium's steps rise
    print("end: scrollY", page.evaluate("window.scrollY"))
    viewport_shot(page, "end")
    in_view(page, ".final .podium")
    in_view(page, ".final .rematch button")
