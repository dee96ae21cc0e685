"""What the streams send, as one digest: to show that a change of the code's shape
changed no byte a player or the big screen receives.

Every state of the games in tests/endgames.py (each step ``rules.apply`` takes, with
its moment) is seen by each seat and by a spectator, in English and in Korean, and
drawn as each stream draws it: the room page's JSON and HTML streams
(``Renderer.messages``, so what a stream leaves out is left out here too) and the big
screen's parts. The bytes go into one SHA-256, printed with their count. Run it in
two checkouts and compare the lines:

    .venv/bin/python bench/same_bytes.py
    cp bench/same_bytes.py <other checkout>/bench/ && .venv/bin/python <other checkout>/bench/same_bytes.py

It imports the checkout it sits in (the web's modules where they are in that checkout).
"""

from __future__ import annotations

import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

import endgames  # noqa: E402

from auction.game import rules as R  # noqa: E402
from auction.game.views import view_for  # noqa: E402

try:                                     # the web by concern
    from auction.web.live.stream import Renderer
    from auction.web.pages import render, screen
except ImportError:                      # the flat web layer before it
    from auction.web import render, screen  # type: ignore[no-redef, attr-defined]
    from auction.web.stream import Renderer  # type: ignore[no-redef]

LOCALES = ("en", "ko")


def states() -> list[tuple[R.Game, int]]:
    """(state, moment) for every step of every scenario, in order."""
    seen: list[tuple[R.Game, int]] = []
    apply = R.apply

    def recording(game, action, now_ms):
        out = apply(game, action, now_ms)
        seen.append((out[0], now_ms))
        return out
    R.apply = recording               # endgames plays through R.apply
    try:
        endgames.scenarios()
    finally:
        R.apply = apply
    return seen


def main() -> None:
    digest = hashlib.sha256()
    count = parts = 0
    steps = states()
    for game, now in steps:
        seats = [p.id for p in game.players] + [None]
        for locale in LOCALES:
            ctx = {"code": game.code, "csrf_token": "tok", "locale": locale,
                   "invite_url": f"https://example.test/r/{game.code}"}
            for seat in seats:
                view = view_for(game, seat, now)
                for as_json in (True, False):
                    for message in Renderer(as_json, {} if as_json else ctx).messages(view):
                        data = message.encode()
                        digest.update(data)
                        count += len(data)
                        parts += 1
            shown = view_for(game, None, now)
            for html in render.partials(shown, {**ctx, "site": "example.test"}, screen.PARTS,
                                        "screen").values():
                data = html.encode()
                digest.update(data)
                count += len(data)
                parts += 1
    print(f"{len(steps)} states, {parts} messages, {count} bytes, sha256 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
