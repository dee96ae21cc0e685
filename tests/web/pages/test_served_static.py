"""The copy of static/ that is served: our own scripts and stylesheets without their comments
(auction/web/delivery.py), still whole programs; a vendored file as it came; and a second
start keeps the copy it finds rather than making it again."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from auction.web import delivery
from auction.web.pages import render


def test_our_scripts_and_stylesheets_are_served_without_comments(tmp_path):
    root = delivery.prepare(str(tmp_path))
    for rel in ("app.js", "hold.js", "app.css", "results.css"):
        with open(os.path.join(render.STATIC, rel), encoding="utf-8") as f:
            source = f.read()
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            served = f.read()
        assert ("// " in source or "/*" in source) and "\n  //" not in served and "/* " not in served
        assert len(served) < 0.8 * len(source), rel
    vendored = "vendor/htmx-2.0.11.min.js"
    with open(os.path.join(render.STATIC, vendored), "rb") as f, \
            open(os.path.join(root, vendored), "rb") as g:
        assert f.read() == g.read()
    # Made once: a second start finds it whole and keeps it.
    marker = os.path.join(root, ".complete")
    made = os.path.getmtime(marker)
    assert delivery.prepare(str(tmp_path)) == root and os.path.getmtime(marker) == made


@pytest.mark.skipif(shutil.which("node") is None, reason="node checks the scripts' syntax")
def test_the_served_scripts_still_parse(tmp_path):
    for name in sorted(os.listdir(render.STATIC)):
        if name.endswith(".js"):
            with open(os.path.join(render.STATIC, name), "rb") as f:
                small = delivery.served(name, f.read())
            path = tmp_path / name
            path.write_bytes(small)
            check = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
            assert check.returncode == 0, (name, check.stderr)
