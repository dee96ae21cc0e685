"""Pictures of the living room: the big screen and the host's phone through a short party.

Serves a checkout (this one, or another given with ``--root``, e.g. a worktree of an
older build, to compare) with a private Redis, and drives it in Chromium as a party
would: a host's phone at 390×844 hosting three AI players over two rounds, and a TV
at 1280×720 and 1920×1080 opened from the host's "Big screen" button. The host taps
Start after scrolling down to it and scrolls to the bottom during round 1, as people
do. Writes, under ``--out``:

  tv-{lobby,countdown,round,result,end}-{1280x720,1920x1080}.png   the TV in each phase
  phone-{lobby,round2-countdown,end}.png   what the phone's screen shows (not the page)

and prints where Start, the countdown and the hold button were on the phone's screen.

    .venv/bin/python bench/living_room.py --out test-artifacts/living-room/after
    .venv/bin/python bench/living_room.py --root ../old --out test-artifacts/living-room/before
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "browser")]

import phone  # noqa: E402
from harness import AppServer, RedisServer  # noqa: E402

SIZES = ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080})
JSON = {"Accept": "application/json"}
SETTINGS = {"bank_ms": 30_000, "ready_ms": 4_000, "free_ms": 1_000, "result_ms": 4_000,
            "rounds": 2}
# Where things are on the phone's screen: the y of an element's top and bottom, if any.
WHERE = """(sel) => { const e = document.querySelector(sel); if (!e) return null;
  const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; }"""


def phase_of(base: str, code: str, session: requests.Session) -> tuple[str, int]:
    view = session.get(f"{base}/r/{code}/state", headers=JSON, timeout=10).json()
    return view["phase"], view["round"]


def wait_for(base: str, code: str, session, phase: str, round_no: int, timeout_s: float = 90):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        now, rnd = phase_of(base, code, session)
        if now == phase and (phase == "ended" or rnd == round_no):
            return
        time.sleep(0.05)
    raise TimeoutError(f"no {phase} of round {round_no}")


def where(page, selector: str):
    return page.evaluate(WHERE, selector)


def main(argv: list[str] | None = None) -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--root", type=Path, default=HERE.parent, help="the checkout to serve")
    args.add_argument("--out", type=Path, required=True)
    opts = args.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    redis_server = RedisServer()
    server = AppServer(redis_server.url, root=opts.root.resolve())
    base = server.url
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path="/usr/bin/chromium", args=phone.ARGS)
            host = browser.new_context(**phone.context_options()).new_page()
            code = phone.room_with_ai(host, base, "Hana", bots=3, **SETTINGS)
            session = requests.Session()
            session.cookies.update({c["name"]: c["value"] for c in host.context.cookies()})
            link = host.get_attribute("a.button[href*='/screen']", "href") or f"/r/{code}/screen"
            tvs = []
            for size in SIZES:
                tv = browser.new_context(viewport=size).new_page()
                tv.goto(base + link)
                phone.live(tv)
                tvs.append((tv, f"{size['width']}x{size['height']}"))

            def shoot_tvs(name: str) -> None:
                for tv, size in tvs:
                    tv.screenshot(path=str(opts.out / f"tv-{name}-{size}.png"))

            time.sleep(0.5)
            shoot_tvs("lobby")
            host.screenshot(path=str(opts.out / "phone-lobby.png"))
            start = "form[action$='/start'] button"
            print(f"phone lobby: Start at {where(host, start)} of an 844 px screen")
            host.locator(start).scroll_into_view_if_needed()
            host.locator(start).tap()
            wait_for(base, code, session, "countdown", 1)
            time.sleep(1.0)
            shoot_tvs("countdown")
            wait_for(base, code, session, "spending", 1)
            host.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            time.sleep(1.0)
            shoot_tvs("round")
            wait_for(base, code, session, "result", 1)
            time.sleep(1.2)
            shoot_tvs("result")
            wait_for(base, code, session, "countdown", 2)
            time.sleep(1.0)
            host.screenshot(path=str(opts.out / "phone-round2-countdown.png"))
            print(f"phone round 2's countdown: scrolled {host.evaluate('window.scrollY')} px; "
                  f"hold button at {where(host, '.hold-button, #hold, button.hold')}, "
                  f"countdown at {where(host, '.status')}")
            wait_for(base, code, session, "ended", 2, timeout_s=120)
            time.sleep(2.0)
            shoot_tvs("end")
            host.screenshot(path=str(opts.out / "phone-end.png"))
            rematch = where(host, "form[action$='/rematch']")
            print(f"phone end: scrolled {host.evaluate('window.scrollY')} px; podium at "
                  f"{where(host, '.podium')}, Rematch at {rematch}")
            browser.close()
    finally:
        server.stop()
        redis_server.stop()
    print(f"pictures in {opts.out}")


if __name__ == "__main__":
    main()
