"""Joining on a 390×844 phone: the invite link lands on "Join this game" with the name this
phone last played under and Join on the first screen, the invite card below it; the home
page has the code box first and asks for a name once; every refusal comes back on the same
page with what was typed and the reason next to its field. Screenshots in
test-artifacts/party/."""

from __future__ import annotations

import phone

SCREEN_H = 844


def shot(page, name: str) -> None:
    phone.shot(page, f"party/{name}-after")


def bottom(page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box, f"{selector} is not shown"
    return box["y"] + box["height"]


def top(page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box, f"{selector} is not shown"
    return box["y"]


def join_from_home(page, base: str, code: str, name: str) -> None:
    page.goto(base + "/")
    page.fill("#join-code", code)
    page.fill("#name", name)
    page.tap("button[formaction='/join']")


def test_the_invite_link_lands_on_join_with_the_remembered_name(server, open_phone):
    host, friend = open_phone(), open_phone()
    first = phone.create_room(host, server.url, "Hana")
    # The friend played once before on this phone, as "Gus".
    join_from_home(friend, server.url, first, "Gus")
    friend.wait_for_selector("text=Waiting for the host to start")

    second = phone.create_room(host, server.url, "Hana")
    invite = host.input_value("#invite-url")
    friend.goto(invite)
    phone.live(friend)
    assert friend.locator("h2:has-text('Join this game')").is_visible()
    assert friend.input_value("#join-name") == "Gus"
    # Name and Join on the first screen; the invite card is the seated players', below.
    assert bottom(friend, "#join-name") <= SCREEN_H
    assert bottom(friend, ".join-card button[type=submit]") <= SCREEN_H
    assert top(friend, ".invite") > bottom(friend, ".join-card")
    first_card = friend.evaluate("""() => [...document.querySelectorAll('#room .card')]
        .filter(c => c.offsetParent).sort((a, b) => a.getBoundingClientRect().top
        - b.getBoundingClientRect().top)[0].querySelector('h2').textContent""")
    assert first_card == "Join this game"
    shot(friend, "join-invite")

    with friend.expect_navigation():
        friend.tap(".join-card button[type=submit]")             # one tap
    friend.wait_for_selector("text=Waiting for the host to start")
    assert friend.url.endswith(f"/r/{second}")
    phone.players_listed(host, 2)


def test_a_taken_name_comes_back_on_the_room_page(server, open_phone):
    host, friend = open_phone(), open_phone()
    code = phone.create_room(host, server.url, "Hana")
    friend.goto(f"{server.url}/r/{code}")
    friend.fill("#join-name", "hana")
    with friend.expect_navigation():
        friend.tap(".join-card button[type=submit]")
    assert friend.url.endswith(f"/r/{code}/join") or friend.url.endswith(f"/r/{code}")
    message = friend.locator("#join-name-error")
    assert "taken" in message.inner_text()
    assert friend.input_value("#join-name") == "hana"
    # The message sits right under the field, on the first screen.
    assert 0 <= top(friend, "#join-name-error") - bottom(friend, "#join-name") < 80
    assert bottom(friend, "#join-name-error") <= SCREEN_H
    assert friend.locator("text=That did not work").count() == 0
    phone.live(friend)                                          # the stream keeps it
    assert friend.input_value("#join-name") == "hana" and message.is_visible()
    shot(friend, "join-taken-name")

    friend.fill("#join-name", "Hanna")
    with friend.expect_navigation():
        friend.tap(".join-card button[type=submit]")
    friend.wait_for_selector("text=Waiting for the host to start")


def test_the_home_page_has_the_code_first_and_keeps_the_form(server, open_phone):
    host, page = open_phone(), open_phone()
    code = phone.create_room(host, server.url, "Hana")
    page.goto(server.url + "/")
    assert page.locator("input[name=name]").count() == 1              # a name once
    assert bottom(page, "button[formaction='/join']") <= SCREEN_H
    assert bottom(page, "#name") <= SCREEN_H
    assert top(page, "#join-code") < top(page, "#solo-h") < top(page, "#create-h")
    assert page.locator("#name-hint").is_visible() and "24" in page.inner_text("#name-hint")
    shot(page, "home")

    for typed in ("12#4", "O0O0"):
        join_from_home(page, server.url, typed, "Dee")
        page.wait_for_selector("#code-error")
        assert "not a room code" in page.inner_text("#code-error")
        assert page.input_value("#join-code") == typed and page.input_value("#name") == "Dee"
        assert 0 <= top(page, "#code-error") - bottom(page, "#join-code") < 80
    shot(page, "home-bad-code")

    join_from_home(page, server.url, code.lower(), "HANA")
    page.wait_for_selector("#name-error")
    assert "taken" in page.inner_text("#name-error")
    assert page.input_value("#join-code") == code.lower()
    shot(page, "home-taken-name")

    page.fill("#name", "Dee")
    with page.expect_navigation(url=f"**/r/{code}"):
        page.tap("button[formaction='/join']")
    page.wait_for_selector("text=Waiting for the host to start")


def test_a_long_name_is_told_not_cut_silently(server, open_phone):
    host, page = open_phone(), open_phone()
    code = phone.create_room(host, server.url, "Hana")
    page.goto(server.url + "/")
    page.fill("#name", "N" * 60)
    assert len(page.input_value("#name")) == 24
    hint = page.locator("#name-hint")
    assert hint.is_visible() and "Up to 24 characters" in hint.inner_text()
    assert "name-hint" in page.get_attribute("#name", "aria-describedby")
    # A name that got past the field (an old page, a paste elsewhere) is refused in words.
    page.evaluate("document.getElementById('name').removeAttribute('maxlength')")
    page.fill("#name", "N" * 60)
    page.fill("#join-code", code)
    page.tap("button[formaction='/join']")
    page.wait_for_selector("#name-error")
    assert "at most 24" in page.inner_text("#name-error")
    assert page.input_value("#name") == "N" * 60


def test_the_choices_say_the_length_the_hidden_bank_and_the_reveal(server, open_phone):
    page = open_phone()
    page.goto(server.url + "/")
    text = page.inner_text("main")
    assert "Quick — 9 rounds · 3 min bank each · about 8 min" in text
    assert "Hard — your own bank is hidden" in text
    assert "your own bank is hidden" in page.inner_text("label:has(input[name=preset][value=stake])")
    assert "you see your own bank" in page.inner_text("label:has(input[name=preset][value=quick])")
    for hint in ("#solo-reveal", "#create-reveal"):
        assert "only the winner is shown, not the bids" in page.inner_text(hint)
