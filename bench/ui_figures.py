"""Figures for the browser UI, printed (no assertions):

1. bytes of the first load of the room page from an invite link (empty cache):
   each body, and what crossed the wire (compressed, headers included);
2. the same first load over Chromium's "Slow 4G" (DevTools' preset, set with
   CDP Network.emulateNetworkConditions: 562.5 ms latency, 1.44 Mbit/s down,
   675 kbit/s up): when the page was parsed, when its scripts had run
   (DOMContentLoaded: every handler attached), and when it was interactive --
   scripts run AND the live stream's first view in (#room[data-live]), which
   is when a player can do anything at all; medians of several cold loads;
3. time from a touch press (CDP touchStart) to the server's {"type": "in"} on
   loopback, measured inside the page with performance.now().

Run: .venv/bin/python bench/ui_figures.py [presses] [slow-loads]   (needs /usr/bin/chromium)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "browser")]

from playwright.sync_api import sync_playwright  # noqa: E402

import phone  # noqa: E402
from harness import AppServer, RedisServer  # noqa: E402

# Timestamps inside the page: the touch's pointerdown, the socket's open and its "in".
PROBE = """
window.__t = [];
document.addEventListener('pointerdown', () => window.__t.push({down: performance.now()}), true);
const NativeWS = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const s = new NativeWS(url, protocols);
  const t = window.__t[window.__t.length - 1] || {};
  s.addEventListener('open', () => { t.open = performance.now(); });
  s.addEventListener('message', (e) => { if (JSON.parse(e.data).type === 'in') t.in = performance.now(); });
  return s;
};
window.WebSocket.prototype = NativeWS.prototype;
window.WebSocket.OPEN = NativeWS.OPEN;
"""


def first_load(browser, base: str, invite: str) -> None:
    ctx = browser.new_context(**phone.context_options(touch=True))
    page = ctx.new_page()
    bodies = []
    page.on("requestfinished", lambda r: bodies.append(r))
    page.goto(invite, wait_until="networkidle")
    sent = raw = 0
    rows = []
    for request in bodies:
        if request.url.endswith("/events"):
            continue        # the live stream is not part of the load
        response = request.response()
        body = response.body() if response else b""
        sizes = request.sizes()
        wire = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        sent += wire
        raw += len(body)
        encoding = (response.headers.get("content-encoding", "-") if response else "-")
        rows.append((request.url.replace(base, ""), len(body), wire, encoding))
    ctx.close()
    print("first load of the room page from the invite link (empty cache):")
    print(f"  {'url':60s} {'body':>8s}  {'on the wire':>11s}  encoding")
    for url, size, wire, encoding in rows:
        print(f"  {url:60.60s} {size:8d} B {wire:9d} B  {encoding}")
    print(f"  total: bodies {raw} B, on the wire (headers included) {sent} B")


# DevTools' "Slow 4G" preset (front_end/core/sdk/NetworkManager.ts), in CDP's units.
SLOW_4G = {"offline": False, "latency": 562.5, "downloadThroughput": 1.6e6 / 8 * 0.9,
           "uploadThroughput": 750e3 / 8 * 0.9}

# When the page became live: app.js sets #room[data-live] on the stream's first view.
LIVE_PROBE = """
new MutationObserver((_, obs) => {
  const room = document.getElementById('room');
  if (room && room.dataset.live) { window.__live = performance.now(); obs.disconnect(); }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-live']});
"""


def slow_4g(browser, invite: str, loads: int) -> None:
    rows = []
    for _ in range(loads):
        ctx = browser.new_context(**phone.context_options(touch=True))
        ctx.add_init_script(LIVE_PROBE)
        page = ctx.new_page()
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW_4G)
        page.goto(invite, wait_until="load")
        page.wait_for_function("() => window.__live !== undefined", timeout=60_000)
        t = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
            return {html: n.responseEnd, parsed: n.domInteractive, scripts: n.domContentLoadedEventEnd,
                    load: n.loadEventEnd, live: window.__live}; }""")
        t["interactive"] = max(t["scripts"], t["live"])
        rows.append(t)
        ctx.close()
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f'first load of the room page from the invite link on "Slow 4G" '
          f"(562.5 ms latency, 1.44 Mbit/s), empty cache, medians of {loads}:")
    print(f"  HTML in {med['html']:.0f} ms; parsed {med['parsed']:.0f} ms; scripts run "
          f"(DOMContentLoaded) {med['scripts']:.0f} ms; load {med['load']:.0f} ms")
    print(f"  live stream's first view {med['live']:.0f} ms; "
          f"time to interactive {med['interactive']:.0f} ms "
          f"(range {min(r['interactive'] for r in rows):.0f}-{max(r['interactive'] for r in rows):.0f})")


def press_to_in(browser, base: str, presses: int) -> None:
    """Touch press -> 'in', seen two ways.

    In the page (performance.now from pointerdown to the 'in' message event),
    and in the browser's network layer (CDP Network events, wall clock from the
    moment the touch was sent): Chromium's renderer defers networking tasks
    for a while after a touchstart, so the page hears of the open socket and of
    'in' later than the network had them.
    """
    ctx = browser.new_context(**phone.context_options(touch=True))
    ctx.add_init_script(PROBE)
    page = ctx.new_page()
    phone.create_room(page, base, "Bench", preset="stake")
    page.tap("form[action$='/bots'] button[type=submit]")
    phone.players_listed(page, 2)
    phone.fast(page, rounds=presses, free_ms=0, ready_ms=2_000, result_ms=2_000)
    page.tap("text=Start the game")
    finger = phone.Finger(page)
    net = {}
    finger.cdp.send("Network.enable")
    finger.cdp.on("Network.webSocketWillSendHandshakeRequest",
                  lambda e: net.setdefault("sent", e["wallTime"]))
    finger.cdp.on("Network.webSocketHandshakeResponseReceived",
                  lambda e: net.setdefault("open_t", e["timestamp"]))
    finger.cdp.on("Network.webSocketWillSendHandshakeRequest",
                  lambda e: net.setdefault("sent_t", e["timestamp"]))
    finger.cdp.on("Network.webSocketFrameReceived",
                  lambda e: '"in"' in e["response"]["payloadData"] and net.setdefault("in_t", e["timestamp"]))
    network = []
    for n in range(1, presses + 1):
        phone.wait_state(page, "countdown", n)
        time.sleep(0.6)         # past the guard that takes a tap right after the button appears for a double tap's tail
        net.clear()
        touched = time.time()
        finger.down()
        phone.button(page, "in")
        finger.up()             # let go before go: out of the round, costs nothing
        network.append({"to_request": (net["sent"] - touched) * 1000,
                        "request_to_101": (net["open_t"] - net["sent_t"]) * 1000,
                        "request_to_in": (net["in_t"] - net["sent_t"]) * 1000})
    samples = page.evaluate("window.__t.filter(t => t.in)")
    ctx.close()
    to_in = [t["in"] - t["down"] for t in samples]
    print(f"touch press -> server 'in' on loopback, {len(to_in)} presses (medians):")
    print(f"  as the page sees it: {statistics.median(to_in):.1f} ms "
          f"(min {min(to_in):.1f}, max {max(to_in):.1f})")
    med = {k: statistics.median(x[k] for x in network) for k in network[0]}
    print(f"  in the network layer: touch -> upgrade request sent {med['to_request']:.1f} ms, "
          f"request -> 101 {med['request_to_101']:.1f} ms, request -> 'in' frame {med['request_to_in']:.1f} ms")


def main() -> None:
    presses = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    loads = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    redis = RedisServer()
    server = AppServer(redis.url)
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path="/usr/bin/chromium", args=phone.ARGS)
            host = browser.new_context(**phone.context_options(touch=True))
            page = host.new_page()
            phone.create_room(page, server.url, "Host")
            invite = page.input_value("#invite-url")
            first_load(browser, server.url, invite)
            slow_4g(browser, invite, loads)
            press_to_in(browser, server.url, presses)
            browser.close()
    finally:
        server.stop()
        redis.stop()


if __name__ == "__main__":
    main()
