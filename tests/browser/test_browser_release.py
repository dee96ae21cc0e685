"""Anything that looks like the finger leaving the button lets go, at that moment."""

from __future__ import annotations

import time

import phone


def started_against_one_ai(open_phone, server, name: str, rounds: int):
    """A touch phone in a started Time Stake room against one AI player, short timings."""
    page = open_phone(touch=True)
    phone.create_room(page, server.url, name, preset="stake")
    page.tap("form[action$='/bots'] button[type=submit]")
    phone.players_listed(page, 2)
    phone.fast(page, rounds=rounds, free_ms=0)
    page.tap("text=Start the game")
    return page


def test_hidden_page_and_sliding_off_release_at_once(server, open_phone):
    page = started_against_one_ai(open_phone, server, "Rita", rounds=2)
    finger = phone.Finger(page)
    state_url = page.url + "/state"

    def holding() -> bool:
        return page.request.get(state_url, headers={"Accept": "application/json"}).json()["me"]["holding"]

    # Round 1: the phone is locked (page hidden) 0.6 s into the bidding.
    phone.wait_state(page, "countdown", 1)
    finger.down()
    phone.button(page, "in")
    phone.wait_state(page, "spending", 1)
    time.sleep(0.6)
    phone.hide_page(page)
    phone.released(page, timeout_s=1)
    time.sleep(0.3)
    assert not holding()
    time.sleep(1.5)              # the finger stays down: it no longer counts
    finger.up()
    phone.hide_page(page, hidden=False)
    phone.wait_round_over(page, 1)
    assert 0.4 <= phone.seconds(phone.my_bid(page)) <= 1.2

    # Round 2: the finger slides off the button 0.5 s into the bidding, then stays down.
    phone.wait_state(page, "countdown", 2)
    finger.down()
    phone.button(page, "in")
    phone.wait_state(page, "spending", 2)
    time.sleep(0.5)
    x, y = finger.centre()
    box = page.locator("#hold").bounding_box()
    for step in range(1, 6):     # a drag, not a jump: ends well outside the circle
        finger.move(x + step * box["width"] / 4, y)
    phone.released(page, timeout_s=1)
    time.sleep(0.3)
    assert not holding()
    time.sleep(1.5)
    finger.up()
    phone.wait_state(page, "ended")
    cells = page.locator(".all-bids tbody tr").nth(1).locator("td").nth(0).inner_text()
    assert 0.3 <= phone.seconds(cells) <= 1.1, cells


def test_second_finger_is_ignored(server, open_phone):
    page = started_against_one_ai(open_phone, server, "Sol", rounds=1)
    cdp = page.context.new_cdp_session(page)
    phone.wait_state(page, "countdown", 1)
    box = page.locator("#hold").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    one = {"x": x, "y": y, "id": 1}
    two = {"x": x + 20, "y": y + 20, "id": 2}
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [one]})
    phone.button(page, "in")
    # A second finger lands and lifts (CDP's touchEnd lists the points that lift): the first still holds.
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [one, two]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": [two]})
    phone.wait_state(page, "spending", 1)
    time.sleep(0.3)
    assert page.get_attribute("#hold", "data-state") == "in"
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    phone.released(page)
