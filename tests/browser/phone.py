"""Helpers for driving the game like a person with a phone: touch holds, waits, screenshots, axe."""

from __future__ import annotations

import re
import subprocess
import tarfile
import time
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
AXE_VERSION = "4.14.1"

# Without the networking flags Chromium keeps calling home, which this machine refuses.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]

# Most of a round with AI players on a 30 s bank: countdown, free window, the
# longest bid an AI can make, the result.
ROUND_S = 45


def context_options(touch: bool = True) -> dict:
    """A 390×844 phone; touch and mobile emulation, or a mouse/keyboard one of the same size."""
    return {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
            "is_mobile": touch, "has_touch": touch}


def watch(page) -> None:
    """Record console errors (CSP violations show up there) and uncaught script errors."""
    page._problems = []
    page.on("console", lambda m: m.type == "error" and _keep(page, m.text))
    page.on("pageerror", lambda e: page._problems.append(f"script error: {e}"))


def _keep(page, text: str) -> None:
    # A failed network fetch (server stopped, 4xx on purpose) is not a page defect.
    if "Failed to load resource" in text or "net::ERR_" in text or "EventSource" in text:
        return
    page._problems.append(text)


def check_clean(page) -> None:
    problems = getattr(page, "_problems", [])
    assert not problems, "\n".join(problems)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


# -- waiting for the game --------------------------------------------------


PHASES = ("lobby", "countdown", "free", "spending", "result", "ended")


def wait_state(page, phase: str, round_no: int | None = None, timeout_s: float = ROUND_S) -> None:
    """Until the page's status part says ``phase`` (of round ``round_no``).

    With a round, a page already past that phase (a later phase of the round, a
    later round, the end) fails at once and says where it is: a transient phase
    (a 1 s free window) that passed while the test was busy is the test's slow
    step, not a page that stopped updating, and waiting out the timeout for it
    would hide which one it was.
    """
    sel = f'.status .state[data-phase="{phase}"]'
    if round_no is None:
        page.wait_for_selector(sel, state="attached", timeout=timeout_s * 1000)
        return
    started = time.monotonic()
    at = page.wait_for_function(
        """([phases, want, round]) => {
            const s = document.querySelector('.status .state');
            if (!s) return false;
            const p = phases.indexOf(s.dataset.phase), r = Number(s.dataset.round);
            const past = s.dataset.phase === 'ended' || r > round || (r === round && p >= phases.indexOf(want));
            return past && [s.dataset.phase, r];
        }""", arg=[PHASES, phase, round_no], timeout=timeout_s * 1000).json_value()
    assert at == [phase, round_no], (
        f"waited for {phase} of round {round_no} but the page was already at {at[0]} of round "
        f"{at[1]} ({time.monotonic() - started:.2f} s into the wait): the test's steps before "
        f"it outlasted the phase")


def wait_round_over(page, round_no: int, timeout_s: float = ROUND_S) -> None:
    """Until round ``round_no`` shows its result, or the game is over."""
    page.wait_for_selector(
        f'.status .state[data-phase="result"][data-round="{round_no}"], .status .state[data-phase="ended"]',
        state="attached", timeout=timeout_s * 1000)


def button(page, state: str, timeout_s: float = 5) -> None:
    """Until the hold button is in ``state`` (attached: the zone hides once a round ends)."""
    page.wait_for_selector(f'#hold[data-state="{state}"]', state="attached", timeout=timeout_s * 1000)


def released(page, timeout_s: float = 5) -> None:
    """Until the button no longer holds: out, or off if that release ended the round."""
    page.wait_for_selector('#hold:is([data-state="out"], [data-state="off"])', state="attached",
                           timeout=timeout_s * 1000)


# -- hands ------------------------------------------------------------------


class Finger:
    """One finger on the touch screen, through CDP Input.dispatchTouchEvent."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)

    def centre(self, selector: str = "#hold") -> tuple[float, float]:
        box = self.page.locator(selector).bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def down(self, x: float | None = None, y: float | None = None) -> None:
        if x is None:
            x, y = self.centre()
        self.cdp.send("Input.dispatchTouchEvent",
                      {"type": "touchStart", "touchPoints": [{"x": x, "y": y, "id": 1}]})

    def move(self, x: float, y: float) -> None:
        self.cdp.send("Input.dispatchTouchEvent",
                      {"type": "touchMove", "touchPoints": [{"x": x, "y": y, "id": 1}]})

    def up(self) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def hide_page(page, hidden: bool = True) -> None:
    """Switch the page hidden (as when the phone locks or the app goes to the background).

    Headless Chromium keeps every page visible whatever is in front, so the
    document's visibilityState is overridden and the real event dispatched.
    """
    page.evaluate("""(hidden) => {
        Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => hidden ? 'hidden' : 'visible'});
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
        document.dispatchEvent(new Event('visibilitychange'));
    }""", hidden)


# -- pages ------------------------------------------------------------------


def create_room(page, base: str, name: str, preset: str = "auction") -> str:
    """From the home page, as a person would; returns the room code."""
    page.goto(base + "/")
    page.fill("#name", name)
    page.check(f'input[name="preset"][value="{preset}"]')
    with page.expect_navigation(url="**/r/*"):
        page.click("button[formaction='/rooms']")
    return page.url.rsplit("/", 1)[1]


def set_setting(page, name: str, value) -> None:
    """The host picks a value; htmx posts it and the stream sends the new form back."""
    page.select_option(f"#set-{name}", str(value))
    page.wait_for_selector(f'#set-{name} option[value="{value}"][selected]', state="attached",
                           timeout=10_000)
    # New content is live (htmx handlers attached) once it loses the htmx-added class;
    # a change made before then would post nothing.
    page.wait_for_selector(".part.settings > .card:not(.htmx-added)", state="attached")


def fast(page, **overrides) -> None:
    """Short settings so a whole game fits in a test: 30 s banks, 2 s countdowns."""
    values = {"bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 2_000, "result_ms": 2_000,
              **overrides}
    for name, value in values.items():
        set_setting(page, name, value)


def players_listed(page, count: int) -> None:
    page.wait_for_function(
        "(n) => document.querySelectorAll('.players-list .player').length === n", arg=count,
        timeout=10_000)


def my_bid(page) -> str:
    return page.inner_text(".result .facts dd").strip()


def seconds(text: str) -> float:
    """'1.2 s' -> 1.2; '0.7★ (won)' -> 0.7 (a winning bid carries a star)"""
    return float(re.match(r"\s*(\d+(?:\.\d+)?)", text).group(1))


# -- accessibility -----------------------------------------------------------


def axe_source() -> str:
    """axe-core's browser build from the npm registry (cached under test-artifacts/)."""
    cached = ARTIFACTS / "vendor" / f"axe-core-{AXE_VERSION}.min.js"
    if not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp,
                            "--silent"], check=True, capture_output=True, timeout=120)
            with tarfile.open(next(Path(tmp).glob("axe-core-*.tgz"))) as tar:
                data = tar.extractfile("package/axe.min.js").read()
        cached.write_bytes(data)
    return cached.read_text()


def axe_problems(page, source: str) -> list[str]:
    """Serious and critical axe violations on the page as it is now.

    The script goes in through DevTools evaluation, which the page's CSP does
    not govern, so the CSP stays on for the scan.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(source)
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                       nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}));
    }""")
    return [f"{page.url}: {v['impact']} {v['id']} ({v['help']}) at {v['nodes']}"
            for v in result if v["impact"] in ("serious", "critical")]


# -- quick set-up through the JSON interface (the page's own cookies) ----------

JSON = {"Accept": "application/json"}


def post(page, url: str, body: dict | None = None, expect: int = 200) -> dict:
    """A JSON post from this page's browser context (same device cookie as the page)."""
    response = page.request.post(url, data=body or {}, headers=JSON)
    assert response.status == expect, (url, response.status, response.text())
    return response.json()


def room_with_ai(page, base: str, name: str = "Pat", bots: int = 1, preset: str = "stake",
                 open_page: bool = True, **settings) -> str:
    """A room this page hosts, with ``bots`` AI players and short timings; opened in the page.

    Short timings unless overridden: 30 s banks, 2 s countdowns and results, 1 s free window.
    """
    code = post(page, base + "/rooms", {"name": name, "preset": preset}, 201)["code"]
    for _ in range(bots):
        post(page, f"{base}/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    values = {"bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 1_000, "result_ms": 2_000,
              "rounds": 1, **settings}
    post(page, f"{base}/r/{code}/settings", values)
    if open_page:
        page.goto(f"{base}/r/{code}")
        live(page)
    return code


def live(page) -> None:
    """Until the room page has its live stream's first view (every part is sent at once)."""
    page.wait_for_selector('#room[data-live="true"]', state="attached", timeout=10_000)
    time.sleep(0.2)


def start(page, base: str, code: str) -> None:
    post(page, f"{base}/r/{code}/start")
    wait_state(page, "countdown", 1)


def server_view(page, base: str, code: str) -> dict:
    return page.request.get(f"{base}/r/{code}/state", headers=JSON).json()


class Sockets:
    """Counts the hold sockets the page opens (CDP Network events)."""

    def __init__(self, page):
        self.opened: list[str] = []
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.on("Network.webSocketCreated",
                    lambda e: e["url"].endswith("/hold") and self.opened.append(e["url"]))
        self.cdp.send("Network.enable")


def visible_text(page, selector: str = "body") -> str:
    return page.locator(selector).first.inner_text()


# Every visible element whose box reaches past the screen's edges, and whether the page scrolls sideways.
OVERFLOW = """() => {
  const W = document.documentElement.clientWidth, bad = [];
  // Inside a box that scrolls sideways on its own (and fits), wide content is meant.
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
                          && el.getBoundingClientRect().right <= W + 1;
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.sr-only, .skip')) continue;
    let box = el.parentElement, inside = false;
    while (box && box !== document.body && !(inside = scrolls(box))) box = box.parentElement;
    if (inside) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (r.right > W + 1 || r.left < -1) {
      bad.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '')
               + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
  }
  if (document.documentElement.scrollWidth > W) bad.push('page ' + document.documentElement.scrollWidth + ' > ' + W);
  return bad.slice(0, 8);
}"""


def overflow(page) -> list[str]:
    return page.evaluate(OVERFLOW)
