"""A whole quick game against the computer, played by touch on a phone screen."""

from __future__ import annotations

import time

import phone


def test_quick_game_against_the_computer_by_touch(server, open_phone):
    page = open_phone(touch=True)
    page.goto(server.url + "/")
    phone.shot(page, "home")
    page.fill("#name", "Tess")
    page.check('input[name="mode"][value="quick"]')
    page.check('input[name="difficulty"][value="easy"]')
    page.select_option("#solo-players", "4")
    page.tap("button[formaction='/solo']")
    page.wait_for_url("**/r/*")

    # A lobby of its own: the AI players with name, difficulty and style, the game, one Start.
    phone.live(page)
    opponents = page.locator(".players-list .player")
    assert opponents.count() == 3
    for i, style in enumerate(("aggressive", "patient", "random")):
        text = opponents.nth(i).inner_text()
        assert "AI · easy" in text and style in text, text
    assert page.inner_text(".solo-card .game-name") == "Time Auction quick"
    assert "9 rounds" in page.inner_text(".solo-card")
    assert page.locator("form[action$='/start'] button").count() == 1
    assert page.locator("#invite-url, .qr-box, .big-code").count() == 0
    lobby_text = page.inner_text("#room")
    assert "seats" not in lobby_text and "Invite" not in lobby_text
    assert page.inner_text(".room-code") == "You vs the computer"
    # Nobody else can take a seat in a game against the computer.
    code = page.url.rsplit("/", 1)[1]
    stranger = page.context.browser.new_context()
    try:
        refused = stranger.request.post(f"{server.url}/r/{code}/join", data={"name": "Zed"},
                                        headers=phone.JSON)
        assert refused.status == 404
    finally:
        stranger.close()
    # Short timings for the test: the rules are folded away; a JSON post sets them.
    phone.post(page, f"{server.url}/r/{code}/settings",
               {"bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 2_000, "result_ms": 2_000})
    page.wait_for_selector(".solo-card .sub:has-text('30 s bank')", state="attached")
    phone.shot(page, "lobby")
    page.tap("#start-game")

    finger = phone.Finger(page)
    for n in range(1, 10):
        phone.wait_state(page, "countdown", n)
        phone.button(page, "idle")
        finger.down()
        phone.button(page, "in")
        plan = n % 3
        if plan == 0:                      # let go before go: out, costs nothing
            finger.up()
        elif plan == 2:                    # enter, then leave in the free window
            phone.wait_state(page, "free", n)
            finger.up()
        else:                              # bid about a third of a second
            phone.wait_state(page, "spending", n)
            time.sleep(0.3)
            if n == 1:
                phone.shot(page, "round")
            finger.up()
        phone.released(page)
        phone.wait_round_over(page, n)
        if n < 9:
            bid = phone.my_bid(page)
            if plan == 1:
                assert 0.1 <= phone.seconds(bid) <= 1.5, bid
            else:
                assert bid == "you sat out"
            if n == 1:
                phone.shot(page, "result")

    phone.wait_state(page, "ended")
    final = page.locator(".final")
    assert final.locator(".standings tbody tr").count() == 4
    assert final.locator(".all-bids tbody tr").count() == 9
    assert "Tess" in final.inner_text()
    # Rounds 1, 4 and 7 were bids; the others sat out ('—').
    tess_column = [row.locator("td").nth(0).inner_text()
                   for row in final.locator(".all-bids tbody tr").all()]
    assert [cell.startswith("—") for cell in tess_column] == [n % 3 != 1 for n in range(1, 10)]
    phone.shot(page, "end")
