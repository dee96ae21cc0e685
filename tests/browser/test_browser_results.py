"""After the game on a 390x844 phone: the end screen's charts, the rematch that takes
everyone along, "your games", the results page of every end state, and sharing it."""

from __future__ import annotations

import time

import pytest
import redis

import endgames
import phone
from auction.server.store import Store


@pytest.fixture(scope="module")
def store(redis_url):
    return Store(redis.Redis.from_url(redis_url))


def test_a_rematch_takes_every_player_to_the_new_room(server, open_phone, axe_source):
    host, guest = open_phone(touch=True), open_phone(touch=True)
    code = phone.create_room(host, server.url, "Hana", preset="stake")
    guest.goto(f"{server.url}/r/{code}")
    guest.fill("#join-name", "Gus")
    with guest.expect_navigation():
        guest.tap("form[action$='/join'] button[type=submit]")
    phone.players_listed(host, 2)
    phone.fast(host, rounds=1, free_ms=0)
    host.tap("text=Start the game")

    phone.wait_state(host, "countdown", 1)
    finger = phone.Finger(host)
    finger.down()
    phone.button(host, "in")
    phone.wait_state(host, "spending", 1)
    time.sleep(0.3)
    finger.up()
    for page in (host, guest):
        phone.wait_state(page, "ended")
        page.wait_for_selector(".final svg.chart-bids", state="visible")
        assert page.locator(".final svg.chart").count() == 3
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    phone.shot(host, "end-screen-charts")
    problems = phone.axe_problems(host, axe_source) + phone.axe_problems(guest, axe_source)
    assert not problems, "\n".join(problems)
    # Only the host has one to press (a guest's shows once the host's turn is over).
    assert guest.locator("form[action$='/rematch']:visible").count() == 0

    # One tap by the host; the guest's stream takes the guest along.
    with host.expect_navigation(url="**/r/*"):
        host.tap("form[action$='/rematch'] button[type=submit]")
    new = host.url.rsplit("/", 1)[1]
    assert new != code
    guest.wait_for_url(f"**/r/{new}", timeout=10_000)
    for page in (host, guest):
        phone.wait_state(page, "lobby")
        assert page.get_attribute("#room", "data-seated") == "true"
        phone.players_listed(page, 2)
    assert host.locator("text=Start the game").count() == 1
    guest.wait_for_selector("text=Waiting for the host to start")
    # The old room's page, opened afresh, shows the way to the rematch but stays put.
    guest.goto(f"{server.url}/r/{code}")
    guest.wait_for_selector("[data-rematch-follow]")
    time.sleep(0.5)
    assert guest.url.endswith(f"/r/{code}")

    # The host's home page lists the game; its link opens the results.
    host.goto(server.url + "/")
    link = host.locator(f".your-games a[href='/r/{code}/results']")
    assert link.count() == 1
    link.scroll_into_view_if_needed()
    host.screenshot(path=str(phone.ARTIFACTS / "home-your-games.png"))
    with host.expect_navigation(url=f"**/r/{code}/results"):
        link.tap()
    assert "Hana" in host.inner_text(".standings")
    phone.shot(host, "results-page-played")
    problems = phone.axe_problems(host, axe_source)
    host.goto(server.url + "/")
    problems += phone.axe_problems(host, axe_source)
    assert not problems, "\n".join(problems)


def test_every_end_state_has_a_results_page_that_fits_and_passes_axe(server, open_phone,
                                                                     axe_source, store):
    page = open_phone(touch=True)
    problems = []
    for name, game in endgames.scenarios().items():
        code = endgames.plant(store, game)
        page.goto(f"{server.url}/r/{code}/results")
        page.wait_for_selector("svg.chart-tokens", state="visible")
        assert page.locator("svg.chart").count() == 3, name
        rows = page.locator(".bid-grid tbody tr").count()
        assert rows == len(game.history), name
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        grid = page.evaluate("(() => { const r = document.querySelector('.bid-grid').parentElement;"
                             " return [r.scrollWidth, r.clientWidth]; })()")
        assert grid[0] <= grid[1], (name, grid)            # the bid table fits the screen
        for chart in page.locator("svg.chart").all():
            box = chart.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, name
        problems += phone.axe_problems(page, axe_source)
        if name in ("eight_players", "bank_dry"):
            phone.shot(page, f"results-{name}")
        page.goto(f"{server.url}/r/{code}")                # the end screen, as a spectator
        page.wait_for_selector(".final svg.chart-bank", state="visible")
        problems += phone.axe_problems(page, axe_source)
        if name == "eight_players":
            phone.shot(page, "end-screen-eight-players")
    assert not problems, "\n".join(problems)


def test_share_uses_the_share_sheet_or_copies_the_link(server, open_phone, store):
    code = endgames.plant(store, endgames.scenarios()["two_players"])
    url = f"{server.url}/r/{code}/results"

    page = open_phone(touch=True)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page.goto(url)
    assert page.evaluate("typeof navigator.share") == "undefined"
    page.tap("#share-results")
    page.wait_for_selector("#share-status:has-text('Link copied')")
    assert page.evaluate("navigator.clipboard.readText()") == url

    sharing = open_phone(touch=True)
    sharing.add_init_script("navigator.share = (data) => { window.sharedWith = data;"
                            " return Promise.resolve(); };")
    sharing.goto(url)
    sharing.tap("#share-results")
    sharing.wait_for_selector("#share-status:has-text('Shared')")
    shared = sharing.evaluate("window.sharedWith")
    assert shared["url"] == url and code in shared["title"]
