"""axe-core finds no serious or critical problem on any page, in any phase of a game, in
English and in Korean (each device's language from its browser, Accept-Language)."""

from __future__ import annotations

import time

import pytest

import phone


@pytest.mark.parametrize("locale", ["en-US", "ko-KR"])
def test_every_page_passes_axe(server, open_phone, axe_source, locale):
    page = open_phone(touch=True, locale=locale)
    problems = []

    def scan(target=None):
        problems.extend(phone.axe_problems(target or page, axe_source))

    for path in ("/", "/rules", "/strategy", "/offline", "/r/QQQQ"):
        page.goto(server.url + path)
        assert page.evaluate("document.documentElement.lang") == locale[:2]
        scan()

    # The lobby as the host, and the join form as a visitor.
    phone.create_room(page, server.url, "Ada Host", preset="stake")
    # An easy AI: a medium one spends its whole bank in the last round, 30 s of waiting.
    page.select_option("#bot-difficulty", "easy")
    page.tap("form[action$='/bots'] button[type=submit]")
    phone.players_listed(page, 2)
    # A countdown long enough for three axe scans and a reload before the press, on a
    # loaded machine too (at 2 s the press came after go: "too late").
    phone.fast(page, rounds=1, ready_ms=8_000, free_ms=1_000, result_ms=6_000,
               own_bank="toggle", reveal="all_bids")
    scan()
    visitor = open_phone(touch=False, locale=locale)
    visitor.goto(page.url)
    visitor.wait_for_selector("#join-name")
    scan(visitor)
    # The big screen, in the lobby and (below) during a round.
    tv = open_phone(touch=False, locale=locale)
    tv.goto(page.url + "/screen")
    tv.wait_for_selector('#room[data-live="true"]', state="attached")
    scan(tv)

    # A round: the countdown with the button, then the bidding while holding.
    page.tap("#start-game")
    phone.wait_state(page, "countdown", 1)
    scan()
    visitor.reload()                         # a late visitor watches
    visitor.wait_for_selector(".part.lobby .card.note")      # "you are watching"
    scan(visitor)
    finger = phone.Finger(page)
    finger.down()
    phone.button(page, "in")
    phone.wait_state(page, "spending", 1)
    scan()
    scan(tv)
    time.sleep(0.2)
    finger.up()
    phone.wait_state(page, "result", 1)
    scan()
    phone.wait_state(page, "ended", timeout_s=2 * phone.ROUND_S)
    scan()
    tv.wait_for_selector('.status .state[data-phase="ended"]', state="attached")
    scan(tv)

    # A solo lobby.
    page.goto(server.url + "/")
    page.fill("#name", "Ada Solo")
    with page.expect_navigation(url="**/r/*"):
        page.click("button[formaction='/solo']")
    phone.live(page)
    page.click("#rules-details summary")
    scan()
    assert not problems, "\n".join(problems)
