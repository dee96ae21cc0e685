"""The podium's steps rise out of its floor without the podium clipping them (issue 30).

WebKit left a sliver of the second step's moving number on the bottom row of the podium's
overflow clip once the steps had risen (a stray glyph under the "2"): that row's edge is
fractional, and the repaint after the animation missed it. Each step clips itself instead
(clip-path in the rise keyframes), so the podium has no clip edge to leave a sliver on.
Checked against WebKitGTK by hand; the browsers' own tests watch the rise itself."""

from __future__ import annotations

import re
from pathlib import Path

CSS = (Path(__file__).resolve().parents[3] / "static" / "results.css").read_text()


def rule(selector: str) -> str:
    return re.search(re.escape(selector) + r"\s*\{([^}]*)\}", CSS).group(1)


def test_the_podium_does_not_clip_and_each_step_clips_itself_while_rising():
    assert "overflow" not in rule(".podium")
    start = re.search(r"@keyframes rise \{\s*from \{([^}]*)\}", CSS).group(1)
    end = re.search(r"@keyframes rise \{\s*from \{[^}]*\}\s*to \{([^}]*)\}", CSS).group(1)
    # Moved down by 2rem and cut 2rem from its bottom: the step's visible part ends at the floor.
    assert "translateY(2rem)" in start and "clip-path: inset(0 0 2rem 0)" in start
    assert "transform: none" in end and "clip-path: inset(0)" in end
