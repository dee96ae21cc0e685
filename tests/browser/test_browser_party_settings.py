"""The host's lobby settings on a 390×844 phone: each change says "Saved" next to its field
once the server took it, and no button that does nothing is shown; the lobby names the
hidden bank, the reveal and an honest length. Screenshots in test-artifacts/party/."""

from __future__ import annotations

import time

import phone


def test_a_saved_change_says_so_and_no_idle_button_shows(server, open_phone):
    host = open_phone()
    phone.create_room(host, server.url, "Hana")
    phone.live(host)
    assert not host.locator(".settings-form button.save").is_visible()       # "Save settings"
    assert not host.locator(".settings-preset button.save").is_visible()     # "Apply"
    assert host.locator(".settings button:visible").count() == 0
    assert host.locator("[data-saved-for='rounds']").inner_text() == ""

    host.select_option("#set-rounds", "3")
    host.wait_for_selector("[data-saved-for='rounds']:has-text('Saved')", timeout=5_000)
    assert phone.server_view(host, server.url, host.url.rsplit("/", 1)[1])["settings"]["rounds"] == 3
    # Next to its own field, and no other field claims it.
    label = host.locator("label[for='set-rounds']").bounding_box()
    mark = host.locator("[data-saved-for='rounds']").bounding_box()
    assert abs(mark["y"] - label["y"]) < 20
    assert host.locator(".saved:has-text('Saved')").count() == 1
    phone.shot(host, "party/settings-saved-after")

    host.select_option("#preset", "stake")                      # the preset, with no Apply
    host.wait_for_selector("[data-saved-for='preset']:has-text('Saved')", timeout=5_000)
    host.wait_for_selector("#set-own_bank option[value='hidden'][selected]", state="attached")
    host.wait_for_function("() => [...document.querySelectorAll('.saved')]"
                           ".every(e => e.textContent === '')", timeout=6_000)   # and it goes away


def test_saved_shows_when_the_stream_redraws_the_settings_before_the_answer(server, open_phone):
    """The stream's redraw of the settings part can land before the post's own answer (a
    quick stream, a slow link): the form that posted is then out of the page, and the
    field must still say "Saved"."""
    host = open_phone()
    phone.create_room(host, server.url, "Hana")
    phone.live(host)

    def answer_late(route):
        response = route.fetch()     # the server takes the change and the stream redraws
        time.sleep(1.0)
        route.fulfill(response=response)

    host.route("**/settings", answer_late)
    host.select_option("#set-rounds", "3")
    host.wait_for_selector("#set-rounds option[value='3'][selected]", state="attached")
    host.wait_for_selector("[data-saved-for='rounds']:has-text('Saved')", timeout=5_000)


def test_the_lobby_names_the_hidden_bank_the_reveal_and_the_length(server, open_phone):
    host, guest = open_phone(), open_phone()
    code = phone.create_room(host, server.url, "Hana", preset="stake")
    guest.goto(f"{server.url}/r/{code}")
    guest.fill("#join-name", "Gus")
    with guest.expect_navigation():
        guest.tap(".join-card button[type=submit]")
    for page in (host, guest):
        phone.live(page)
        facts = page.inner_text(".lobby .card")
        assert "Your own bank is hidden: keep count yourself" in facts
        assert "only the winner is shown, not the bids" in facts
        assert "19 rounds · 10 min bank each · about 25 min" in facts
        assert "no free window" in facts and "0 s free window" not in facts   # Time Stake has none
    phone.shot(guest, "party/lobby-facts-after")
    phone.set_setting(host, "rounds", 5)
    phone.set_setting(host, "reveal", "all_bids")
    guest.wait_for_selector(".lobby :text('5 rounds · 10 min bank each · about 15 min')", timeout=5_000)
    assert "every bid is shown" in guest.inner_text(".lobby .card")
