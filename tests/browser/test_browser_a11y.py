"""axe-core finds no serious or critical problem on any page, in any phase of a game."""

from __future__ import annotations

import time

import phone


def test_every_page_passes_axe(server, open_phone, axe_source):
    page = open_phone(touch=True)
    problems = []

    def scan(target=None):
        problems.extend(phone.axe_problems(target or page, axe_source))

    for path in ("/", "/rules", "/strategy", "/offline", "/r/QQQQ"):
        page.goto(server.url + path)
        scan()

    # The lobby as the host, and the join form as a visitor.
    phone.create_room(page, server.url, "Ada Host", preset="stake")
    page.tap("form[action$='/bots'] button[type=submit]")
    phone.players_listed(page, 2)
    # A countdown long enough for three axe scans and a reload before the press, on a
    # loaded machine too (at 2 s the press came after go: "too late").
    phone.fast(page, rounds=2, ready_ms=8_000, free_ms=1_000, result_ms=6_000,
               own_bank="toggle", reveal="all_bids")
    scan()
    visitor = open_phone(touch=False)
    visitor.goto(page.url)
    visitor.wait_for_selector("#join-name")
    scan(visitor)
    # The big screen, in the lobby and (below) during a round.
    tv = open_phone(touch=False)
    tv.goto(page.url + "/screen")
    tv.wait_for_selector('#room[data-live="true"]', state="attached")
    scan(tv)

    # A round: the countdown with the button, then the bidding while holding.
    page.tap("text=Start the game")
    phone.wait_state(page, "countdown", 1)
    scan()
    visitor.reload()                         # a late visitor watches
    visitor.wait_for_selector("text=you are watching")
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
