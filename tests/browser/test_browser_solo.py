"""A whole quick game against the computer, played by touch on a phone screen."""

from __future__ import annotations

import time

import phone


def test_quick_game_against_the_computer_by_touch(server, open_phone):
    page = open_phone(touch=True)
    page.goto(server.url + "/")
    phone.shot(page, "home")
    page.fill("#solo-name", "Tess")
    page.check('input[name="mode"][value="quick"]')
    page.check('input[name="difficulty"][value="easy"]')
    page.select_option("#solo-players", "4")
    page.tap("form[action='/solo'] button[type=submit]")
    page.wait_for_url("**/r/*")

    # The lobby: me and three AI players; the host may shorten the clock for the test.
    phone.players_listed(page, 4)
    assert page.locator(".players-list .badge.ai").count() == 3
    assert page.input_value("#set-rounds") == "9"      # the quick book
    phone.fast(page)
    phone.shot(page, "lobby")
    page.tap("text=Start the game")

    finger = phone.Finger(page)
    for n in range(1, 10):
        phone.wait_state(page, "countdown", n)
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
