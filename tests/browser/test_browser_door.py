"""Every real way into a room, on a 390×844 touch phone, in Chromium and in WebKitGTK.

Each way in ends on a join card with one name field and one button, and one tap seats
the visitor (their page lists them in the lobby, and so does the host's state):

  a. the invite link, on a first visit;
  b. the invite link tapped on another site's page, by a phone that has opened the game
     before (the service worker installed and in charge): the link is followed
     cross-site, and the page must still come to the server as the browser's own
     top-level navigation. The service worker once fetched pages again itself, so the
     server saw the worker's fetch from another site and refused it (403);
  c. the installed app, opened from the home screen (the manifest's start_url, the
     worker in charge, Sec-Fetch-Site: none), the code typed;
  d. the invite link opened from a messaging app (the browser opens it: no referring
     site, Sec-Fetch-Site: none), the worker in charge;
  e. the QR code on the big screen: it carries the invite link the room page shows;
  f. the code typed on the home page, on a first visit;
  g. the invite link in a browser that sends no Fetch Metadata (a proxy drops it).

On the home page (c, f) the join card is its "Join a room": the code, one name field
and Join. The invite link is always the one the server shows the host
(doors.host_room), never made here. Screenshots of each join card:
test-artifacts/doors/.

In Chromium, b failed before the worker answered pages with its navigation preload:
fetch(req) in a worker sends Sec-Fetch-Mode same-origin and Sec-Fetch-Dest empty, and
the server refused the link as another site's fetch. WebKit kept the navigation's
headers on that fetch, so b passed there; what reaches the server is checked in both
(``..._the_worker_passes_on_the_browsers_own_navigation``). WebKitGTK runs a, b, c, d
and f.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import requests

import phone
from doors import JSON, LinkSite, Proxy, big_screen_on, host_room, read_qr
from test_browser_webkit import MINIBROWSER, Touch, virtual_display, wait


@pytest.fixture(scope="module")
def link_site():
    site = LinkSite()
    yield site
    site.stop()


@pytest.fixture(scope="module")
def proxy(server):
    """The same server through a proxy that records what it receives."""
    through = Proxy(server.url)
    yield through
    through.stop()


@pytest.fixture(scope="module")
def bare(server):
    """The same server through a proxy that drops every Sec-Fetch-* header."""
    through = Proxy(server.url, strip_fetch_metadata=True)
    yield through
    through.stop()


def shot(page, name: str) -> None:
    phone.shot(page, f"doors/{name}")


def installed(page, base: str) -> None:
    """This phone has opened the game before: its service worker is in charge."""
    page.goto(base + "/")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=15_000)


def one_field_one_button(page, card: str) -> None:
    """The card asks for a name in one field and has one button; both on the first screen."""
    fields = page.locator(f"{card} input:not([type=hidden])")
    buttons = page.locator(f"{card} button")
    assert fields.count() == 1 and buttons.count() == 1, (fields.count(), buttons.count())
    for part in (fields, buttons):
        box = part.bounding_box()
        assert box and box["y"] + box["height"] <= 844, (card, box)


def join_here(page, name: str, shot_name: str) -> None:
    """On a room page with its join card: one name, one tap."""
    page.wait_for_selector(".join-card", timeout=10_000)
    assert page.inner_text(".join-card h2") == "Join this game"
    one_field_one_button(page, ".join-card")
    assert page.locator(".join-card input:not([type=hidden])").get_attribute("name") == "name"
    page.fill("#join-name", name)
    shot(page, shot_name)
    with page.expect_navigation():
        page.tap(".join-card button")


def join_from_home(page, code: str, name: str, shot_name: str) -> None:
    """On the home page: the code typed, one name, one tap."""
    page.wait_for_selector("#join-code")
    one_field_one_button(page, "section:has(#join-h) .row")   # the code and its Join
    assert page.locator("form.home-form input[name=name]").count() == 1
    page.fill("#join-code", code)
    page.fill("#name", name)
    shot(page, shot_name)
    with page.expect_navigation(url=f"**/r/{code}"):
        page.tap("button[formaction='/join']")


def seated(page, base: str, host: requests.Session, code: str, name: str) -> None:
    """The visitor's page lists them in the lobby, and the room has them."""
    page.wait_for_selector(f".players-list .player.is-me .pname:has-text('{name}')", timeout=10_000)
    assert page.locator(".join-card").count() == 0
    names = [p["name"] for p in host.get(f"{base}/r/{code}/state", headers=JSON, timeout=10).json()["players"]]
    assert name in names, names


# -- Chromium -------------------------------------------------------------------------


def test_a_first_visit_follows_the_invite_link(server, open_phone):
    code, invite, host = host_room(server.url)
    page = open_phone()
    answer = page.goto(invite)
    assert answer.status == 200
    join_here(page, "Ada", "a-first-visit")
    seated(page, server.url, host, code, "Ada")


def test_a_returning_phone_follows_the_invite_from_another_site(server, link_site, open_phone):
    code, invite, host = host_room(server.url)
    page = open_phone()
    installed(page, server.url)
    page.goto(link_site.page_for(invite))
    with page.expect_navigation(url=lambda url: url == invite) as went:
        page.tap("#go")
    answer = went.value
    assert answer.status == 200, f"{answer.status}: {page.inner_text('body')[:200]}"
    assert answer.from_service_worker           # the worker answered the page
    join_here(page, "Bea", "b-from-another-site")
    seated(page, server.url, host, code, "Bea")


def test_the_worker_passes_on_the_browsers_own_navigation(proxy, link_site, open_phone):
    """What the server receives for a link followed from another site, with the worker in
    charge: one request, the navigation preload, with the browser's navigation headers
    (not the worker's own fetch of it)."""
    code, invite, host = host_room(proxy.url)
    page = open_phone()
    installed(page, proxy.url)
    page.goto(link_site.page_for(invite))
    with page.expect_navigation(url=lambda url: url == invite):
        page.tap("#go")
    got = proxy.requests_for(invite.removeprefix(proxy.url))
    assert len(got) == 1, got                   # fetched once: the preload, not again
    headers = got[0]
    assert (headers.get("sec-fetch-site"), headers.get("sec-fetch-mode"),
            headers.get("sec-fetch-dest")) == ("cross-site", "navigate", "document"), headers
    assert headers.get("service-worker-navigation-preload") == "true", headers
    page.wait_for_selector(".join-card")


def test_the_installed_app_opens_at_its_start_and_takes_a_typed_code(server, open_phone):
    code, _, host = host_room(server.url)
    page = open_phone()
    installed(page, server.url)
    start = page.request.get(server.url + "/manifest.webmanifest").json()["start_url"]
    answer = page.goto(server.url + start)       # a launch: no referring site
    assert answer.status == 200 and answer.from_service_worker
    join_from_home(page, code, "Cy", "c-installed-app")
    seated(page, server.url, host, code, "Cy")


def test_a_link_opened_from_a_messaging_app(server, open_phone):
    code, invite, host = host_room(server.url)
    page = open_phone()
    installed(page, server.url)
    answer = page.goto(invite)                   # the app hands the link to the browser
    assert answer.status == 200 and answer.from_service_worker
    join_here(page, "Dot", "d-messaging-app")
    seated(page, server.url, host, code, "Dot")


def test_the_big_screens_qr_carries_the_invite_link(server, browser, open_phone):
    from auction.web.pages.qr import qr_svg

    code, invite, host = host_room(server.url)
    # The TV opens what the host's "Big screen" button opens.
    big_screen = big_screen_on(host.get(f"{server.url}/r/{code}", timeout=10).text)
    tv = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        screen = tv.new_page()
        screen.goto(server.url + big_screen)
        phone.live(screen)                  # the stream's first view has redrawn the stage
        assert screen.inner_text(".tv-url") in invite
        qr = screen.locator(".tv-qr svg")
        # The very code qr.py draws for the room page's invite link...
        shown = qr.evaluate("e => [...e.querySelectorAll('path')].map(p => p.getAttribute('d'))")
        assert shown == re.findall(r'<path[^>]* d="([^"]*)"', qr_svg(invite)), "another QR code"
        # ...and, when a decoder is installed, read back off the screen as a camera would.
        read = read_qr(screen.locator(".tv-qr").screenshot())
        phone.shot(screen, "doors/e-big-screen")
    finally:
        tv.close()
    assert read in (None, invite), (read, invite)
    print("the QR code read back off the screen" if read else
          "zxing-cpp is not installed: the QR code compared with the invite link's drawing")
    page = open_phone()
    answer = page.goto(read or invite)
    assert answer.status == 200
    join_here(page, "Eve", "e-qr-code")
    seated(page, server.url, host, code, "Eve")


def test_a_code_typed_on_the_home_page(server, open_phone):
    code, _, host = host_room(server.url)
    page = open_phone()
    page.goto(server.url + "/")
    join_from_home(page, code, "Fay", "f-typed-code")
    seated(page, server.url, host, code, "Fay")


def test_a_browser_without_fetch_metadata_follows_the_invite_link(bare, open_phone):
    code, invite, host = host_room(bare.url)
    page = open_phone()
    answer = page.goto(invite)
    assert answer.status == 200
    join_here(page, "Gil", "g-no-fetch-metadata")
    seated(page, bare.url, host, code, "Gil")
    assert not any(k.startswith("sec-fetch-") for _, _, h in bare.seen for k in h)
    assert bare.requests_for(f"/r/{code}/join", "POST"), "the join went through the proxy"


# -- WebKitGTK ------------------------------------------------------------------------
# A new browser session for each way in (half a second): each starts with no cookie,
# no storage and no service worker, as a phone that never opened the game. WebKitGTK
# has no touch screen to emulate: a touch pointer's tap arrives as pointer and mouse
# events (test_browser_webkit.py), as a tap does on an iPhone.


@pytest.fixture(scope="module")
def webkit_display():
    """A virtual display the size of the phone, for MiniBrowser in full screen."""
    with virtual_display("390x844") as env:
        yield env


@pytest.fixture
def open_webkit(webkit_display):
    from selenium import webdriver

    drivers = []

    def make():
        service = webdriver.WebKitGTKService(executable_path=shutil.which("WebKitWebDriver"),
                                             env=webkit_display, log_output=subprocess.DEVNULL)
        options = webdriver.WebKitGTKOptions()
        options.binary_location = MINIBROWSER
        # A window is never narrower than MiniBrowser's toolbar (447 px); full screen
        # on a display the size of the phone, it has none: a 390×844 viewport.
        options.add_argument("--automation")
        options.add_argument("--full-screen")
        driver = webdriver.WebKitGTK(options=options, service=service)
        drivers.append(driver)
        driver.set_window_rect(width=390, height=844)
        assert driver.execute_script("return [innerWidth, innerHeight]") == [390, 844]
        return driver, Touch(driver)

    yield make
    for driver in drivers:
        driver.quit()


def wk_installed(driver, base: str) -> None:
    driver.get(base + "/")
    wait(driver, "navigator.serviceWorker.controller", 15)


def wk_arrived(driver, url: str) -> None:
    """The page at ``url`` loaded; it is a room page (not a refusal)."""
    wait(driver, f"location.href === {url!r} && document.readyState === 'complete'", 10)
    assert driver.find_elements("css selector", "#room"), driver.find_element("tag name", "body").text[:300]


def wk_one_field_one_button(driver, card: str) -> None:
    fields = driver.find_elements("css selector", f"{card} input:not([type=hidden])")
    buttons = driver.find_elements("css selector", f"{card} button")
    assert len(fields) == 1 and len(buttons) == 1, (len(fields), len(buttons))
    screen_h = driver.execute_script("return window.innerHeight")
    for element in (fields[0], buttons[0]):
        rect = driver.execute_script("return arguments[0].getBoundingClientRect().bottom", element)
        assert rect <= screen_h, (card, rect, screen_h)


def wk_shot(driver, name: str) -> None:
    (phone.ARTIFACTS / "doors").mkdir(parents=True, exist_ok=True)
    # What was typed is drawn by the next frames, not yet when send_keys returns.
    driver.execute_async_script("const done = arguments[0];"
                                "requestAnimationFrame(() => requestAnimationFrame(() => done()))")
    driver.save_screenshot(str(phone.ARTIFACTS / "doors" / f"{name}.png"))


def wk_join_here(driver, finger, name: str, shot_name: str) -> None:
    wait(driver, "document.querySelector('.join-card')", 10)
    assert driver.find_element("css selector", ".join-card h2").text == "Join this game"
    wk_one_field_one_button(driver, ".join-card")
    field = driver.find_element("id", "join-name")
    field.clear()
    field.send_keys(name)
    wk_shot(driver, shot_name)
    finger.tap(driver.find_element("css selector", ".join-card button"))


def wk_seated(driver, base: str, host: requests.Session, code: str, name: str) -> None:
    wait(driver, "[...document.querySelectorAll('.players-list .player.is-me .pname')]"
                 f".some(e => e.textContent.includes({name!r}))", 10)
    assert not driver.find_elements("css selector", ".join-card")
    names = [p["name"] for p in host.get(f"{base}/r/{code}/state", headers=JSON, timeout=10).json()["players"]]
    assert name in names, names


def wk_join_from_home(driver, finger, code: str, name: str, shot_name: str) -> None:
    wait(driver, "document.getElementById('join-code')", 10)
    wk_one_field_one_button(driver, "section:has(#join-h) .row")
    assert len(driver.find_elements("css selector", "form.home-form input[name=name]")) == 1
    driver.find_element("id", "join-code").send_keys(code)
    name_field = driver.find_element("id", "name")
    name_field.clear()
    name_field.send_keys(name)
    wk_shot(driver, shot_name)
    finger.tap(driver.find_element("css selector", "button[formaction='/join']"))


WEBKIT_WARNING = pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")


@WEBKIT_WARNING
def test_webkit_a_first_visit_follows_the_invite_link(server, open_webkit):
    code, invite, host = host_room(server.url)
    driver, finger = open_webkit()
    driver.get(invite)
    wk_arrived(driver, invite)
    wk_join_here(driver, finger, "Ada", "webkit-a-first-visit")
    wk_seated(driver, server.url, host, code, "Ada")


@WEBKIT_WARNING
def test_webkit_a_returning_phone_follows_the_invite_from_another_site(server, link_site, open_webkit):
    code, invite, host = host_room(server.url)
    driver, finger = open_webkit()
    wk_installed(driver, server.url)
    driver.get(link_site.page_for(invite))
    finger.tap(driver.find_element("id", "go"))
    wk_arrived(driver, invite)
    assert driver.execute_script("return !!navigator.serviceWorker.controller")
    wk_join_here(driver, finger, "Bea", "webkit-b-from-another-site")
    wk_seated(driver, server.url, host, code, "Bea")


@WEBKIT_WARNING
def test_webkit_the_worker_passes_on_the_browsers_own_navigation(proxy, link_site, open_webkit):
    code, invite, host = host_room(proxy.url)
    driver, finger = open_webkit()
    wk_installed(driver, proxy.url)
    driver.get(link_site.page_for(invite))
    finger.tap(driver.find_element("id", "go"))
    wait(driver, f"location.href === {invite!r} && document.readyState === 'complete'", 10)
    got = proxy.requests_for(invite.removeprefix(proxy.url))
    assert len(got) == 1, got
    headers = got[0]
    assert (headers.get("sec-fetch-site"), headers.get("sec-fetch-mode"),
            headers.get("sec-fetch-dest")) == ("cross-site", "navigate", "document"), headers
    assert headers.get("service-worker-navigation-preload") == "true", headers


@WEBKIT_WARNING
def test_webkit_the_installed_app_opens_at_its_start_and_takes_a_typed_code(server, open_webkit):
    code, _, host = host_room(server.url)
    driver, finger = open_webkit()
    wk_installed(driver, server.url)
    start = requests.get(server.url + "/manifest.webmanifest", timeout=10).json()["start_url"]
    driver.get(server.url + start)
    wk_join_from_home(driver, finger, code, "Cy", "webkit-c-installed-app")
    wk_seated(driver, server.url, host, code, "Cy")


@WEBKIT_WARNING
def test_webkit_a_link_opened_from_a_messaging_app(server, open_webkit):
    code, invite, host = host_room(server.url)
    driver, finger = open_webkit()
    wk_installed(driver, server.url)
    driver.get(invite)
    wk_arrived(driver, invite)
    assert driver.execute_script("return !!navigator.serviceWorker.controller")
    wk_join_here(driver, finger, "Dot", "webkit-d-messaging-app")
    wk_seated(driver, server.url, host, code, "Dot")


@WEBKIT_WARNING
def test_webkit_a_code_typed_on_the_home_page(server, open_webkit):
    code, _, host = host_room(server.url)
    driver, finger = open_webkit()
    driver.get(server.url + "/")
    wk_join_from_home(driver, finger, code, "Fay", "webkit-f-typed-code")
    wk_seated(driver, server.url, host, code, "Fay")
