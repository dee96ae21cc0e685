"""The pure core imports nothing of Flask, Redis, gevent or the clock, and only itself within the package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "auction"
PURE = ["rules", "moves", "lobby", "settings", "state", "standings", "views", "bots", "hard", "people", "simple", "known", "price", "seat", "rivals",
        "fairness", "series", "charts", "export", "rematch", "suspense"]
FORBIDDEN = {"flask", "redis", "gevent", "time", "datetime", "requests", "jinja2", "werkzeug",
             "socket", "threading", "os", "random"}
# The AI players draw from a Random they are handed; nothing else may reach for randomness.
ALLOWED_EXTRA = {"bots": {"random"}, "hard": {"random"}, "simple": {"random"}}


def imports(module: str) -> tuple[set[str], set[str]]:
    """(top-level modules imported, sibling modules imported relatively)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    outside, inside = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            outside |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                inside |= {node.module} if node.module else {a.name for a in node.names}
            else:
                outside.add(node.module.split(".")[0])
    return outside, inside


@pytest.mark.parametrize("module", [m for m in PURE if (PACKAGE / f"{m}.py").exists()])
def test_the_pure_core_stays_pure(module):
    outside, inside = imports(module)
    assert not (outside & (FORBIDDEN - ALLOWED_EXTRA.get(module, set()))), outside
    assert inside <= set(PURE), inside


def test_the_pure_core_has_no_import_circle():
    """No pure module reaches itself through its imports (type-only imports count too)."""
    graph = {m: imports(m)[1] & set(PURE) for m in PURE if (PACKAGE / f"{m}.py").exists()}

    def reaches(start, node, seen):
        for nxt in graph.get(node, ()):
            if nxt == start:
                return True
            if nxt not in seen:
                seen.add(nxt)
                if reaches(start, nxt, seen):
                    return True
        return False

    circles = [m for m in graph if reaches(m, m, set())]
    assert not circles, circles
