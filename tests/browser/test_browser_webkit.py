"""A whole quick game against the computer in WebKit, the engine of every iPhone browser.

WebKitGTK's WebDriver (Debian's webkit2gtk-driver: WebKitWebDriver and its
MiniBrowser) runs under xvfb-run, driven by Selenium with a touch pointer.
WebKitGTK delivers the touch as pointer events of type "mouse" (it has no
touch screen to emulate), which is exactly the path the hold button takes on
an iPhone too: pointerdown, pointer capture, pointerup.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager

import pytest

import phone
from bid_shown import FIRST, RECORD
from conftest import missing

# Debian puts it under the machine's multiarch folder and WebKit's API version.
MINIBROWSER = next(iter(sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))), "")
ROUNDS = 3


@contextmanager
def virtual_display(screen: str):
    """A virtual display of ``screen`` ("WxH") for MiniBrowser: the environment that
    reaches it. xvfb-run starts Xvfb and hands its DISPLAY (and the key to it) to a
    placeholder process that tells us both, then waits."""
    for tool in ("WebKitWebDriver", "xvfb-run"):
        if shutil.which(tool) is None:
            missing(f"{tool} is not installed (apt-get install webkit2gtk-driver xvfb)")
    if not MINIBROWSER:
        missing("WebKitGTK's MiniBrowser is not installed (apt-get install webkit2gtk-driver)")
    xvfb = subprocess.Popen(
        ["xvfb-run", "-a", "-s", f"-screen 0 {screen}x24", "sh", "-c", 'echo "$DISPLAY $XAUTHORITY"; exec sleep 3600'],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        display, _, xauthority = xvfb.stdout.readline().strip().partition(" ")
        assert display.startswith(":"), display
        # As root WebKit's sandbox cannot start; this browser visits only the test's own servers.
        yield {**os.environ, "DISPLAY": display, "XAUTHORITY": xauthority,
               "WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS": "1"}
    finally:
        os.killpg(xvfb.pid, signal.SIGTERM)
        xvfb.wait(10)
        xvfb.stdout.close()


@pytest.fixture(scope="module")
def webkit():
    from selenium import webdriver

    with virtual_display("1280x1024") as env:
        service = webdriver.WebKitGTKService(executable_path=shutil.which("WebKitWebDriver"),
                                             env=env, log_output=subprocess.DEVNULL)
        options = webdriver.WebKitGTKOptions()
        options.binary_location = MINIBROWSER
        options.add_argument("--automation")       # MiniBrowser has no --headless
        driver = webdriver.WebKitGTK(options=options, service=service)
        try:
            driver.set_window_rect(width=390, height=844)
            yield driver
        finally:
            driver.quit()


class Touch:
    """One finger through WebDriver actions; the input state lasts between calls."""

    def __init__(self, driver):
        from selenium.webdriver.common.actions import interaction
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput

        self.driver = driver
        self._builder = lambda: ActionBuilder(
            driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))

    def down(self, element) -> None:
        actions = self._builder()
        actions.pointer_action.move_to(element).pointer_down()
        actions.perform()

    def up(self) -> None:
        actions = self._builder()
        actions.pointer_action.pointer_up()
        actions.perform()

    def tap(self, element) -> None:
        # A person scrolls to a button first (the solo lobby is longer than the window).
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        actions = self._builder()
        actions.pointer_action.move_to(element).pointer_down().pause(0.05).pointer_up()
        actions.perform()


def wait(driver, script: str, timeout: float = phone.ROUND_S, why: str = ""):
    """Until ``script`` (a JS expression) is truthy in the page; returns its value.
    On a timeout the error carries ``why`` (a JS expression) as the page has it then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(f"return {script}")
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(f"{script}\n{driver.execute_script(f'return {why}') if why else ''}")


def state(phase: str, round_no: int | None = None) -> str:
    sel = f'.status .state[data-phase="{phase}"]' + (f'[data-round="{round_no}"]' if round_no else "")
    return f"document.querySelector('{sel}')"


# Selenium's own WebKitGTK driver still builds its connection the deprecated way.
@pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")
def test_a_quick_solo_game_by_touch_in_webkit(server, webkit):
    driver = webkit
    finger = Touch(driver)
    driver.get(server.url + "/")
    driver.find_element("id", "name").send_keys("Wendy")
    driver.find_element("css selector", 'input[name="mode"][value="quick"]').click()
    driver.find_element("css selector", 'input[name="difficulty"][value="easy"]').click()
    driver.find_element("css selector", "button[formaction='/solo']").click()
    wait(driver, "document.querySelector('#room[data-live=\"true\"]')", 15)
    assert driver.find_element("css selector", ".room-code").text == "You vs the computer"
    assert "Time Auction quick" in driver.find_element("css selector", ".solo-card").text
    assert len(driver.find_elements("css selector", ".players-list .style-note")) == 4
    assert not driver.find_elements("id", "invite-url")
    # Short timings for the test (the page's own JSON post), then Start by touch.
    code = driver.execute_script("return document.getElementById('room').dataset.code")
    status = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/r/' + arguments[0] + '/settings', {method: 'POST',
              headers: {'Content-Type': 'application/json', 'Accept': 'application/json'},
              body: JSON.stringify(arguments[1])}).then(r => done(r.status), () => done(0));
    """, code, {"bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 1_000, "result_ms": 2_000,
                "rounds": ROUNDS})
    assert status == 200
    wait(driver, "document.querySelector('.solo-card .sub') && /3 rounds/.test(document.querySelector('.solo-card .sub').textContent)", 10)
    finger.tap(driver.find_element("id", "start-game"))

    hold = driver.find_element("id", "hold")
    for n in range(1, ROUNDS + 1):
        wait(driver, state("countdown", n))
        wait(driver, "document.getElementById('hold').dataset.state === 'idle'", 10)
        time.sleep(0.6)                     # past the guard against a double tap
        finger.down(hold)
        wait(driver, "document.getElementById('hold').dataset.state === 'in'", 5)
        wait(driver, state("spending", n))
        time.sleep(0.4)
        driver.execute_script(f"({RECORD})()")
        finger.up()
        # From the page's own record: alone in the round, the result replaces the line at once.
        shown, after_ms = wait(driver, f"({FIRST})()", 3, why="[window.__upAt, window.__said]")
        assert after_ms < 500, after_ms         # the page says the bid as the finger lifts
        wait(driver, f"{state('result', n)} || {state('ended')}")
        if n < ROUNDS:
            charged = driver.find_element("css selector", ".result .facts dd").text
            assert 0.2 <= phone.seconds(charged) <= 1.5, charged
            # In whole tenths: 0.8 - 0.6 is 0.20000000000000007 in floats.
            assert abs(round(phone.seconds(charged) * 10) - round(float(shown) * 10)) <= 2, \
                (charged, shown)

    wait(driver, state("ended"))
    time.sleep(1.0)
    driver.save_screenshot(str(phone.ARTIFACTS / "screens" / "webkit-end.png"))
    rows = driver.find_elements("css selector", ".final .all-bids tbody tr")
    assert len(rows) == ROUNDS
    wendy = [row.find_elements("css selector", "td")[0].get_attribute("textContent") for row in rows]
    assert all(cell[0].isdigit() for cell in wendy), wendy     # a bid in every round
    assert driver.find_elements("css selector", ".podium .step-1")


IN_VIEW = """const r = document.querySelector(arguments[0]).getBoundingClientRect();
return [r.top, r.bottom, window.innerHeight, window.scrollY];"""


def in_view(driver, selector: str) -> None:
    top, bottom, height, scrolled = driver.execute_script(IN_VIEW, selector)
    assert top >= -0.5 and bottom <= height + 0.5, (selector, top, bottom, height, scrolled)


# Selenium's own WebKitGTK driver still builds its connection the deprecated way.
@pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")
def test_the_phone_keeps_the_game_in_view_in_webkit(server, webkit):
    """docs/ui.md, "The phone never moves away from the game", in the engine of the iPhone:
    Start on the solo lobby's first screen, the button and countdown in view at each
    countdown after a scrolled Start and a scroll down in the round, the end on the podium."""
    driver = webkit
    finger = Touch(driver)
    driver.get(server.url + "/")
    driver.find_element("id", "name").send_keys("Wendy")
    driver.find_element("css selector", 'input[name="mode"][value="quick"]').click()
    driver.find_element("css selector", 'input[name="difficulty"][value="easy"]').click()
    driver.find_element("css selector", "button[formaction='/solo']").click()
    wait(driver, "document.querySelector('#room[data-live=\"true\"]')", 15)
    in_view(driver, "#start-game")
    code = driver.execute_script("return document.getElementById('room').dataset.code")
    status = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/r/' + arguments[0] + '/settings', {method: 'POST',
              headers: {'Content-Type': 'application/json', 'Accept': 'application/json'},
              body: JSON.stringify(arguments[1])}).then(r => done(r.status), () => done(0));
    """, code, {"bank_ms": 30_000, "ready_ms": 3_000, "free_ms": 1_000, "result_ms": 2_000,
                "rounds": 2})
    assert status == 200
    wait(driver, "/2 rounds/.test(document.querySelector('.solo-card .sub').textContent)", 10)
    scroll_down = "window.scrollTo(0, document.documentElement.scrollHeight)"
    driver.execute_script(scroll_down)
    finger.tap(driver.find_element("id", "start-game"))       # scrolls it to the centre first
    for n in (1, 2):
        wait(driver, state("countdown", n))
        time.sleep(0.2)
        for selector in ("#hold", ".status .beat", ".status .round-no", ".players .strip"):
            in_view(driver, selector)
        driver.save_screenshot(str(phone.ARTIFACTS / "phone" / f"webkit-round-{n}-countdown.png"))
        driver.execute_script(scroll_down)
        wait(driver, f"{state('result', n)} || {state('ended')}")
        time.sleep(0.3)
        driver.execute_script(scroll_down)
    wait(driver, state("ended"))
    time.sleep(1.2)
    driver.save_screenshot(str(phone.ARTIFACTS / "phone" / "webkit-end.png"))
    in_view(driver, ".final .podium")
    in_view(driver, ".final .rematch button")
