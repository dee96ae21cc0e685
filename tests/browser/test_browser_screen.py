"""The big screen (/r/<CODE>/screen) shows only what every player may know.

Two rooms play the same script, except that in one a player holds through the
countdown, go and part of the free window, and in the other that player never
presses. The big screen's streams of the two rooms are recorded whole; apart
from the room code and the clock values (``data-deadline-ms`` and
``data-deadline-at-ms``, which differ between two rooms with the clock alone), they must be
byte-identical. The page itself is the same for any device, seated or not.
"""

from __future__ import annotations

import re
import threading
import time

import requests

from client import Player

SETTINGS = {"ready_ms": 2_000, "free_ms": 2_000, "result_ms": 2_000, "rounds": 1,
            "bank_ms": 30_000, "reveal": "all_bids"}
CLOCK = re.compile(r'data-deadline(-at)?-ms="\d*"')
QR = re.compile(r"<svg[^>]*>.*?</svg>", re.S)    # the QR code of the room's own link


class Recorder:
    """Reads a big screen's SSE stream until the game has ended."""

    def __init__(self, base: str, code: str):
        self.text = ""
        self.code = code
        self.done = threading.Event()
        self.response = requests.get(f"{base}/r/{code}/screen/events", stream=True,
                                     timeout=(5, 30))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for chunk in self.response.iter_content(chunk_size=None, decode_unicode=True):
                self.text += chunk
                if 'data-phase="ended"' in self.text and self.text.endswith("\n\n"):
                    break
        except requests.RequestException:
            pass
        finally:
            self.done.set()
            self.response.close()

    def normalized(self) -> str:
        """The stream less what differs between two rooms by right: the code (also spelled
        out, in the invite link's invitation, and drawn as a QR code) and the clock values."""
        text = self.text.replace(self.code, "CODE").replace(" ".join(self.code), "C O D E")
        text = re.sub(r"\?i=[0-9a-f]{16}", "?i=INVITATION", text)
        return CLOCK.sub(lambda m: f'data-deadline{m.group(1) or ""}-ms=""', QR.sub("<svg/>", text))


def play(base: str, bob_holds: bool) -> Recorder:
    ann, bob = Player(base), Player(base)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", SETTINGS)
    ann.follow()
    recorder = Recorder(base, code)
    time.sleep(0.3)
    ann.post(f"/r/{code}/start")
    ann.wait_view(lambda v: v["phase"] == "countdown")
    ann_hold = ann.press()
    assert ann_hold.accepted
    bob_hold = bob.press() if bob_holds else None
    if bob_hold:
        assert bob_hold.accepted
    ann.wait_view(lambda v: v["phase"] == "free")
    time.sleep(0.3)
    if bob_hold:
        bob_hold.release()          # Bob held through go and lets go in the free window
    time.sleep(0.5)
    ann_hold.release()              # the last holder lets go, still free: nobody bids
    assert recorder.done.wait(20), recorder.text[-500:]
    ann.stop()
    bob.stop()
    return recorder


def test_the_big_screen_streams_the_same_whoever_holds(server):
    held = play(server.url, bob_holds=True)
    alone = play(server.url, bob_holds=False)
    for phase in ("lobby", "countdown", "free", "result", "ended"):
        assert f'data-phase="{phase}"' in held.text, phase
    assert "Nobody" in held.text and 'class="big-code' in held.text
    assert held.normalized() == alone.normalized()


def test_the_big_screen_page_is_the_same_for_every_device(server):
    host = Player(server.url)
    code = host.create("Hana", "stake")
    host.post(f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    host.post(f"/r/{code}/settings", SETTINGS)
    host.post(f"/r/{code}/start")
    stranger = requests.Session()
    pages = [s.get(f"{server.url}/r/{code}/screen", headers={"Accept": "text/html"}, timeout=5)
             for s in (host.http, stranger)]
    assert [p.status_code for p in pages] == [200, 200]
    html = [CLOCK.sub("", p.text) for p in pages]
    assert html[0] == html[1]
    assert "Round <strong>1</strong> of 1" in html[0] and "Hana" in html[0]
    assert 'id="hold"' not in html[0] and "csrf_token" not in html[0]
    assert requests.get(f"{server.url}/r/QQQQ/screen", timeout=5).status_code == 404
    host.stop()
