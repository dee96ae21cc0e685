"""The host's lock on a 390x844 phone: a kick turns it on where the host sees it, the
kicked phone is told the room is locked, and one tap opens it again."""

from __future__ import annotations

import phone


def test_a_kick_shows_the_lock_on_and_the_host_opens_it(server, open_phone, axe_source):
    host, guest = open_phone(touch=True), open_phone(touch=True)
    code = phone.create_room(host, server.url, "Hana", preset="stake")
    host.wait_for_selector("#lock-toggle:has-text('Lock the room')")
    guest.goto(f"{server.url}/r/{code}")
    guest.fill("#join-name", "Gus")
    with guest.expect_navigation():
        guest.tap("form[action$='/join'] button[type=submit]")
    phone.players_listed(host, 2)

    host.tap("button[aria-label='Kick Gus']")
    phone.players_listed(host, 1)
    host.wait_for_selector("#lock-toggle:has-text('Open the room')", timeout=10_000)
    assert "Locked: nobody new can join" in host.inner_text("#lock-state")
    assert host.evaluate("document.documentElement.scrollWidth") <= 390
    phone.shot(host, "lobby-locked-after-kick")
    guest.wait_for_selector("#room-locked", timeout=10_000)    # the kicked phone's own stream
    assert guest.locator("#join-name").count() == 0
    problems = phone.axe_problems(host, axe_source) + phone.axe_problems(guest, axe_source)
    assert not problems, "\n".join(problems)

    host.tap("#lock-toggle")
    host.wait_for_selector("#lock-toggle:has-text('Lock the room')", timeout=10_000)
    assert phone.server_view(host, server.url, code)["locked"] is False
