"""Every page and screen of the game, shown once in a chosen language (issue 30).

``tour`` walks a phone host, a phone guest and a 1280×720 big screen through the pages
around a game and one whole game with AI seats: each screen is handed to ``look(name,
page)`` as it shows, which reads, measures or photographs it. The pseudo-locale test
(test_browser_pseudo.py) and the Korean test (test_browser_korean.py) share it.

Screens, in order: home, rules, strategy, offline, no-room, saved (a setting the host
just changed), lobby-host, join (a visitor's form), join-refused (the visitor took a name
already seated), error (the results of a game not over), lobby-guest, tv-lobby,
countdown, free, spending, tv-round, too-late (the guest pressed after go), result,
end, end-guest, tv-end, results, solo-lobby (with its rules and practice hold open).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import phone
from catalog_helpers import latin_words

TV = {"width": 1280, "height": 720}
HOST, GUEST = "Hana", "Gus"
# Short phases, yet long enough for every device's look inside each (screenshots take a
# few tenths of a second on a loaded machine): countdown, free window, result.
TIMINGS = {"rounds": 1, "bank_ms": 30_000, "ready_ms": 5_000, "free_ms": 4_000,
           "result_ms": 4_000}

Look = Callable[[str, object], None]


class Tour:
    """The devices of one tour, with their browser contexts (closed by ``close``)."""

    def __init__(self, browser, locale: str):
        self.contexts = []
        self.host = self._page(browser, locale, phone.context_options(touch=True))
        self.guest = self._page(browser, locale, phone.context_options(touch=True))
        self.tv = self._page(browser, locale, {"viewport": TV})
        self.code = ""
        self.names: list[str] = []      # of the room and of the solo game after it
        self.seated = 0

    def _page(self, browser, locale: str, options: dict):
        context = browser.new_context(locale=locale, **options)
        self.contexts.append(context)
        page = context.new_page()
        phone.watch(page)
        return page

    def close(self) -> None:
        try:
            for context in self.contexts:
                for page in context.pages:
                    phone.check_clean(page)
        finally:
            for context in self.contexts:
                context.close()


def pages_around(tour: Tour, base: str, look: Look) -> None:
    host = tour.host
    for path, name in (("/", "home"), ("/rules", "rules"), ("/strategy", "strategy"),
                       ("/offline", "offline"), ("/r/QQQQ", "no-room")):
        host.goto(base + path)
        look(name, host)


def lobby(tour: Tour, base: str, look: Look, bots: int) -> None:
    """The host's room with ``bots`` AI seats, a visitor refused then seated, the big screen."""
    host, guest, tv = tour.host, tour.guest, tour.tv
    code = tour.code = phone.create_room(host, base, HOST, preset="stake")
    phone.live(host)
    # A change the host makes says "Saved" beside its field for 3 s: made first, before
    # other changes redraw the form under the pointer, and read at once.
    host.wait_for_selector(".part.settings > .card:not(.htmx-added)", state="attached")
    host.select_option("#set-rounds", "2")
    host.wait_for_selector("[data-saved-for='rounds']:not(:empty)", timeout=10_000)
    look("saved", host)
    phone.post(host, f"{base}/r/{code}/settings", {**TIMINGS, "max_players": 8})
    # Easy seats: each bids a share of its bank; a medium or hard one spends it all in the
    # last round, and the round would last the whole 30 s bank.
    for _ in range(bots):
        phone.post(host, f"{base}/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    phone.players_listed(host, bots + 1)
    host.wait_for_selector('#set-rounds option[value="1"][selected]', state="attached")
    look("lobby-host", host)

    guest.goto(f"{base}/r/{code}")
    guest.wait_for_selector("#join-name")
    look("join", guest)
    guest.fill("#join-name", HOST)                 # a name already seated: refused
    with guest.expect_navigation():
        guest.click("form[action$='/join'] button[type=submit]")
    guest.wait_for_selector(".field-error")
    look("join-refused", guest)
    guest.goto(f"{base}/r/{code}/results")        # a game not over has no results yet
    look("error", guest)
    guest.goto(f"{base}/r/{code}")
    guest.fill("#join-name", GUEST)
    with guest.expect_navigation():
        guest.click("form[action$='/join'] button[type=submit]")
    phone.live(guest)
    phone.players_listed(guest, bots + 2)
    phone.players_listed(host, bots + 2)
    look("lobby-guest", guest)
    tour.names = [p["name"] for p in phone.server_view(host, base, code)["players"]]
    tour.seated = len(tour.names)

    tv.goto(f"{base}/r/{code}/screen")
    tv.wait_for_selector('#room[data-live="true"]', state="attached")
    look("tv-lobby", tv)


def game(tour: Tour, base: str, look: Look) -> None:
    """One round: the host holds through it, the guest presses too late; then the end."""
    host, guest, tv, code = tour.host, tour.guest, tour.tv, tour.code
    host.tap("#start-game")
    phone.wait_state(host, "countdown", 1)
    phone.wait_state(guest, "countdown", 1)
    # Pressed first, then looked at: a slow look must not make the press come after go.
    finger = phone.Finger(host)
    finger.down()
    phone.button(host, "in")
    look("countdown", host)
    phone.wait_state(host, "free", 1)
    look("free", host)
    phone.wait_state(host, "spending", 1)
    look("spending", host)
    tv.wait_for_selector('.status .state[data-phase="spending"]', state="attached")
    look("tv-round", tv)
    late = phone.Finger(guest)
    late.down()                                   # after go, not holding: too late
    guest.wait_for_selector('#hold[data-state="out"]', state="attached")
    time.sleep(0.3)                               # its words are drawn
    look("too-late", guest)
    late.up()
    finger.up()
    phone.released(host)
    phone.wait_round_over(host, 1)
    host.wait_for_selector('.status .state[data-phase="result"]', state="attached")
    look("result", host)
    for page in (host, guest):
        phone.wait_state(page, "ended", timeout_s=2 * phone.ROUND_S)
        page.wait_for_selector(".final .podium", state="visible")
        settled(page)
    look("end", host)
    look("end-guest", guest)
    tv.wait_for_selector('.status .state[data-phase="ended"]', state="attached")
    settled(tv)
    look("tv-end", tv)
    host.goto(f"{base}/r/{code}/results")
    look("results", host)


def solo(tour: Tour, base: str, look: Look) -> None:
    """A game against the computer: its lobby, with the rules and the practice hold open."""
    host = tour.host
    host.goto(base + "/")
    host.fill("#name", HOST)
    with host.expect_navigation(url="**/r/*"):
        host.click("button[formaction='/solo']")
    phone.live(host)
    solo_code = host.url.rsplit("/", 1)[1]
    tour.names += [p["name"] for p in phone.server_view(host, base, solo_code)["players"]]
    host.click("#rules-details summary")
    look("solo-lobby", host)


def settled(page) -> None:
    """Until the page's animations (the podium rising) have played."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running'"
                           " || a.effect.getComputedTiming().endTime === Infinity)", timeout=5_000)


def data(done: Tour | None, base: str) -> list[str]:
    """What a page shows that is data, never words: the players' names, the room's code
    (also spelled out for a screen reader) and invite link, the server's address and the
    one a TV opens, the missing room's code and the code field's example code."""
    names, code = (done.names, done.code) if done else ([], "")
    site = base.split("//", 1)[1]
    return [*names, HOST, GUEST, f"{base}/r/{code}", base, f"{site}/tv", site, code,
            " ".join(code), "QQQQ", "ABCD"]


def tour(browser, base: str, locale: str, look: Look, bots: int) -> Tour:
    """Every screen in ``locale``, one whole game of ``bots`` AI seats and two people;
    returns the tour (its code and the players' names) after closing its devices."""
    devices = Tour(browser, locale)
    try:
        pages_around(devices, base, look)
        lobby(devices, base, look, bots)
        game(devices, base, look)
        solo(devices, base, look)
    finally:
        devices.close()
    return devices


# What reaches past the screen's edge, as far as it is seen: an element's box cut by every
# box around it that clips (phone.OVERFLOW takes the whole box, so a turning ring's square,
# clipped by its card, reads as 420 px wide); and whether the page scrolls sideways.
BEYOND = """() => {
  const W = document.documentElement.clientWidth, bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.sr-only, .skip') || !el.checkVisibility({visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    let left = r.left, right = r.right;
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX === 'visible') continue;
      const b = box.getBoundingClientRect();
      left = Math.max(left, b.left); right = Math.min(right, b.right);
    }
    if (right > left && (right > W + 1 || left < -1)) {
      bad.push(el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '')
               + ' ' + Math.round(left) + '..' + Math.round(right));
    }
  }
  if (document.documentElement.scrollWidth > W) bad.push('page ' + document.documentElement.scrollWidth + ' > ' + W);
  return bad.slice(0, 8);
}"""


def beyond(page) -> list[str]:
    return page.evaluate(BEYOND)


# Text that sticks out of its own box: an element holding text directly whose content is
# wider than it (visible past its edge, or clipped), unless it scrolls sideways on purpose
# or ends in an ellipsis by design.
SPILLS = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.sr-only, .skip, svg') || !el.checkVisibility({visibilityProperty: true})) continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const cs = getComputedStyle(el);
    // A name may end in "…" (it is whole elsewhere); a figure never may (a bid cut "11…").
    const figure = /[0-9]/.test(el.textContent);
    if (!own || !el.clientWidth || ['auto', 'scroll'].includes(cs.overflowX)
        || (cs.textOverflow === 'ellipsis' && !figure)) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      bad.push(el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '')
               + ' ' + el.scrollWidth + ' > ' + el.clientWidth + ': ' + el.textContent.trim().slice(0, 40));
    }
  }
  return bad.slice(0, 8);
}"""


def spills(page) -> list[str]:
    return page.evaluate(SPILLS)


def english_left(texts: list[tuple[str, str]], allowed: list[str]) -> list[str]:
    """Latin words on a page in Korean beyond the ``allowed`` strings (names, codes,
    addresses) and what Korean writes in Latin letters (catalog_helpers.latin_words)."""
    keep = sorted({a for a in [*allowed, "English"] if a}, key=len, reverse=True)
    found: dict[str, None] = {}
    for where, text in texts:
        for line in text.splitlines():
            rest = line
            for word in keep:
                rest = rest.replace(word, " ")
            words = latin_words(rest)
            if words:
                found[f"{where}: {' '.join(line.split())[:120]!r} ({' '.join(words)})"] = None
    return list(found)
