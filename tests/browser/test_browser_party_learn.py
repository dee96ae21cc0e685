"""Learning by doing, on a 390×844 touch phone: the rules page's round in pictures and its
practice hold (a pretend round that touches no game), and the same practice in a solo lobby."""

from __future__ import annotations

import re
import time

import phone

SCREEN_H = 844
SHOTS = phone.ARTIFACTS / "party"


def screen(page, name: str) -> None:
    """What the phone shows now (the viewport, not the whole page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def requests_of(page) -> list[str]:
    """Every request and socket the page (or its service worker) makes from now on."""
    made: list[str] = []
    page.context.on("request", lambda r: made.append(f"{r.method} {r.url}"))
    page.on("websocket", lambda ws: made.append(f"socket {ws.url}"))
    return made


def press(page, selector: str = ".practice-hold") -> phone.Finger:
    page.locator(selector).scroll_into_view_if_needed()
    finger = phone.Finger(page)
    finger.down(*finger.centre(selector))
    return finger


def message(page) -> str:
    return page.inner_text(".practice-msg").strip()


def bank_ms(page) -> int:
    m = re.search(r"(\d+):(\d\d)\.(\d)", page.inner_text(".practice-bank"))
    assert m, page.inner_text(".practice-bank")
    return int(m[1]) * 60_000 + int(m[2]) * 1000 + int(m[3]) * 100


def test_the_rules_page_shows_a_round_in_pictures_on_the_first_screen(server, open_phone):
    page = open_phone(touch=True)
    page.goto(server.url + "/rules")
    picture = page.locator(".round-picture svg[role='img']")
    assert picture.count() == 1
    # A picture a screen reader can read: a title and a text description, named by the svg.
    labelled = picture.get_attribute("aria-labelledby").split()
    words = [page.eval_on_selector(f"#{ident}", "e => e.textContent") for ident in labelled]
    assert words[0].strip() and "tie" in words[1] and "free" in words[1] and "token" in words[1], words
    box = picture.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert box["y"] < SCREEN_H / 2 and box["y"] + box["height"] <= SCREEN_H, box
    assert phone.overflow(page) == []
    # The essentials are on the first two screens: how a round goes and how you win.
    for heading in ("A round", "How you win"):
        h = page.locator(f"h2:text-is('{heading}')")
        section_end = h.locator("xpath=following-sibling::*[1]").bounding_box()
        assert section_end["y"] + section_end["height"] <= 2 * SCREEN_H, (heading, section_end)
    screen(page, "learn-rules-top-after")
    page.screenshot(path=str(SHOTS / "learn-rules-page-after.png"), full_page=True)


def test_a_practice_hold_bids_pretend_time_and_makes_no_request(server, open_phone):
    page = open_phone(touch=True)
    page.goto(server.url + "/rules")
    page.wait_for_load_state("networkidle")
    practice = page.locator(".practice")
    ready = int(practice.get_attribute("data-ready-ms"))
    free = int(practice.get_attribute("data-free-ms"))
    start_bank = bank_ms(page)
    made = requests_of(page)

    finger = press(page)
    page.wait_for_function("() => document.querySelector('.practice-msg').textContent.includes('Countdown')",
                           timeout=2000)
    assert page.get_attribute(".practice-hold", "aria-pressed") == "true"
    page.wait_for_selector(".practice-hold[data-phase='free']", state="attached", timeout=ready + 2000)
    assert "free" in message(page).lower()
    page.wait_for_selector(".practice-hold[data-phase='spending']", state="attached", timeout=free + 2000)
    time.sleep(1.5)
    # The pretend bid ticks on the button and the pretend bank goes down with it.
    ticking = page.inner_text(".practice-clock")
    assert re.fullmatch(r"\d+\.\d s", ticking) and phone.seconds(ticking) >= 1.0, ticking
    assert bank_ms(page) < start_bank
    screen(page, "learn-practice-during-after")
    finger.up()

    said = re.fullmatch(r"You would have bid (\d+\.\d) s\.", message(page))
    assert said, message(page)
    bid = float(said[1])
    assert 1.4 <= bid <= 4.0, bid
    assert phone.seconds(page.inner_text(".practice-clock")) == bid
    assert bank_ms(page) == start_bank - round(bid * 1000)
    assert page.get_attribute(".practice-hold", "aria-pressed") == "false"
    # A quick second tap right after letting go (a tap that comes twice) is not a new round.
    finger.down(*finger.centre(".practice-hold"))
    time.sleep(0.05)
    finger.up()
    time.sleep(0.6)
    assert message(page) == said[0]
    screen(page, "learn-practice-done-after")

    # A finger that slides off the button lets go, like the real one: here before go, for free.
    finger = press(page)
    page.wait_for_function("() => document.querySelector('.practice-msg').textContent.includes('Countdown')",
                           timeout=2000)
    x, y = finger.centre(".practice-hold")
    finger.move(x + 200, y)
    page.wait_for_function("() => document.querySelector('.practice-msg').textContent.includes('before go')",
                           timeout=2000)
    finger.up()
    assert bank_ms(page) == start_bank
    assert made == [], made


def test_a_solo_lobby_offers_the_practice(server, open_phone):
    page = open_phone(touch=True)
    page.goto(server.url + "/")
    code = phone.post(page, server.url + "/solo", {"name": "Tess", "mode": "quick", "difficulty": "easy",
                                                   "players": "4"}, 201)["code"]
    page.goto(f"{server.url}/r/{code}")
    phone.live(page)
    block = page.locator(".lobby .practice")
    assert block.count() == 1 and block.is_visible()
    assert "Try the button" in block.inner_text()
    made = requests_of(page)
    finger = press(page)
    page.wait_for_function("() => document.querySelector('.practice-msg').textContent.includes('Countdown')",
                           timeout=2000)
    screen(page, "learn-solo-lobby-after")
    finger.up()
    assert "before go" in message(page)
    time.sleep(0.3)
    # Practising joined no game: no hold socket, no post, and the game has not started.
    assert not [m for m in made if "/hold" in m or m.startswith("POST")], made
    assert page.get_attribute("#room", "data-phase") == "lobby"
    assert page.get_attribute("#hold", "data-state") == "off"
