"""An online room: a host and a guest in two browsers plus one AI player."""

from __future__ import annotations

import time

import phone


def test_host_and_guest_play_by_mouse_and_space(server, open_phone):
    host = open_phone(touch=False)
    guest = open_phone(touch=False)

    phone.create_room(host, server.url, "Hana")
    invite = host.input_value("#invite-url")
    assert f"/r/{host.url.rsplit('/', 1)[1]}?i=" in invite
    assert host.locator(".qr-box svg.qr").count() == 1
    host.select_option("#bot-difficulty", "easy")
    host.click("form[action$='/bots'] button[type=submit]")
    phone.players_listed(host, 2)

    # The guest follows the invite link and joins; the host sees them arrive.
    guest.goto(invite)
    guest.fill("#join-name", "Gus")
    with guest.expect_navigation():
        guest.click("form[action$='/join'] button[type=submit]")
    guest.wait_for_selector("text=Waiting for the host to start")
    phone.players_listed(host, 3)

    # A setting changed by the host reaches the guest's summary live.
    phone.fast(host, rounds=2, reveal="all_bids")
    guest.wait_for_selector(".settings-list dd:has-text('every bid')", state="attached")
    assert guest.text_content(".settings-list div:first-child dd").strip() == "2"

    host.click("text=Start the game")

    # Round 1: the host holds with the mouse, the guest with the Space bar.
    phone.wait_state(host, "countdown", 1)
    phone.wait_state(guest, "countdown", 1)
    x, y = _centre(host)
    host.mouse.move(x, y)
    host.mouse.down()
    guest.keyboard.down("Space")
    phone.button(host, "in")
    phone.button(guest, "in")
    phone.wait_state(host, "spending", 1)
    time.sleep(0.3)
    guest.keyboard.up("Space")
    phone.released(guest)
    time.sleep(0.5)
    host.mouse.up()
    phone.released(host)
    for page in (host, guest):
        phone.wait_round_over(page, 1)
    # Screen readers hear the result from the live region.
    assert guest.text_content('[aria-live][sse-swap="announce"]').strip().startswith("Round 1:")
    host_bid, guest_bid = phone.seconds(phone.my_bid(host)), phone.seconds(phone.my_bid(guest))
    assert 0.1 <= guest_bid < host_bid <= 2.0, (guest_bid, host_bid)
    # Every bid is revealed in this room, and both see the same table.
    assert host.locator(".result table.bids tbody tr").count() == 3
    # The same table, but for where each reads their own name as "Name (you)".
    host_table, guest_table = (p.inner_text(".result table.bids") for p in (host, guest))
    assert host_table.count("(you)") == guest_table.count("(you)") == 1
    assert "Hana (you)" in host_table and "Hana (you)" not in guest_table
    assert not_me(host_table) == not_me(guest_table)

    # Round 2: the host sits out, the guest bids with Space again.
    phone.wait_state(guest, "countdown", 2)
    guest.keyboard.down("Space")
    phone.button(guest, "in")
    phone.wait_state(guest, "spending", 2)
    time.sleep(0.2)
    guest.keyboard.up("Space")
    for page in (host, guest):
        phone.wait_state(page, "ended")
    assert host.locator(".all-bids tbody tr").count() == 2
    assert "Game over." in host.text_content('[aria-live][sse-swap="announce"]')
    assert not_me(host.inner_text(".final .standings")) == \
        not_me(guest.inner_text(".final .standings"))
    hana_round2 = host.locator(".all-bids tbody tr").nth(1).locator("td").nth(0).inner_text()
    assert hana_round2.startswith("—")


def not_me(text: str) -> str:
    """A table as anyone sees it: without the reader's own "(you)"."""
    return text.replace(" (you)", "")


def _centre(page):
    box = page.locator("#hold").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_lobby_forms_work_without_javascript(server, browser):
    ctx = browser.new_context(java_script_enabled=False, **phone.context_options(touch=False))
    try:
        page = ctx.new_page()
        phone.create_room(page, server.url, "Nora")
        for _ in range(2):                                                  # plain posts, 303 back
            with page.expect_navigation():
                page.click(".lobby form[action$='/bots'] button[type=submit]")
        assert page.locator(".players-list .player").count() == 3
        page.select_option("#set-rounds", "3")
        with page.expect_navigation():
            page.click(".settings-form button.save")
        assert page.input_value("#set-rounds") == "3"
        with page.expect_navigation():
            page.click("text=Start the game")
        assert page.get_attribute("#room", "data-phase") == "countdown"
        assert "Round 1 of 3" in page.inner_text(".status")
    finally:
        ctx.close()
