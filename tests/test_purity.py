"""The layers, checked from their imports: web -> server -> ai -> game, never upwards.

Each package of ``auction`` may import only the packages below it (relative
imports, so the layer is in the path), and the game and the AI only the
standard library, without the clock, I/O or randomness. Importing them loads
nothing of Flask, Redis or gevent, and no module reaches itself through its
imports.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "auction"
LAYERS = ["game", "ai", "server", "web"]          # bottom to top
# Standard-library modules the pure layers may not touch: the clock, I/O, threads.
IMPURE = {"time", "datetime", "os", "socket", "threading", "random", "subprocess",
          "pathlib", "asyncio", "sqlite3", "urllib", "http", "multiprocessing"}
# An AI player draws from a Random it is handed (``random.Random``), never the clock.
PURE_EXTRA = {"ai": {"random"}}


def modules(package: str) -> list[Path]:
    """Every module of a layer, its subpackages' included."""
    return sorted((PACKAGE / package).rglob("*.py"))


def dotted(path: Path) -> str:
    """A module's name below ``auction``: web/door/limits.py is 'web.door.limits', a
    package's __init__.py the package's name."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _named(module: str, name: str) -> str:
    """'from <module> import <name>': the module <name> if it is one, else <module>."""
    where = PACKAGE.joinpath(*module.split(".")) if module else PACKAGE
    return f"{module}.{name}" if ((where / f"{name}.py").exists() or (where / name).is_dir()) \
        else module


def imports(path: Path) -> tuple[set[str], set[str]]:
    """(top-level modules imported absolutely, project modules imported relatively, by
    their dotted names below ``auction``: 'web.door.limits', or 'server' for what
    a package's __init__ names)."""
    package = dotted(path).split(".") if path.name == "__init__.py" \
        else dotted(path).split(".")[:-1]
    tree = ast.parse(path.read_text())
    outside, inside = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            outside |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)]
            module = ".".join(base + (node.module.split(".") if node.module else []))
            inside |= {_named(module, a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            outside.add(node.module.split(".")[0])
    return outside, inside


ALL = [(package, path) for package in LAYERS for path in modules(package)]
IDS = [str(path.relative_to(PACKAGE)) for _, path in ALL]


def test_every_module_is_in_a_layer():
    assert [p.name for p in PACKAGE.glob("*.py")] == ["__init__.py"]
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} \
        == set(LAYERS)
    assert len(ALL) > 40


@pytest.mark.parametrize("package,path", ALL, ids=IDS)
def test_a_module_imports_only_its_layer_and_those_below(package, path):
    outside, inside = imports(path)
    assert "auction" not in outside, "import the project relatively, so the layer shows"
    allowed = set(LAYERS[:LAYERS.index(package) + 1])
    upward = {m for m in inside if m.split(".")[0] not in allowed}
    assert not upward, upward
    if package in ("game", "ai"):
        stdlib = set(sys.stdlib_module_names) | {"__future__"}
        assert outside <= stdlib, outside - stdlib
        assert not outside & (IMPURE - PURE_EXTRA.get(package, set())), outside & IMPURE


def test_the_server_never_imports_flask():
    for path in modules("server"):
        outside, _ = imports(path)
        assert not outside & {"flask", "flask_limiter", "simple_websocket", "werkzeug", "jinja2"}, path


def test_the_game_and_the_ai_load_nothing_of_the_web_or_the_store():
    code = ("import sys, auction.game.rules, auction.game.views, auction.ai.bots, "
            "auction.game.charts, auction.game.export\n"
            "print(sorted(m for m in ('flask', 'redis', 'gevent', 'jinja2', 'werkzeug', "
            "'auction.server', 'auction.web') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent).stdout
    assert out.strip() == "[]"


def test_no_module_reaches_itself_through_its_imports():
    # "from ..server import Service" names the package: it runs server/__init__.py.
    graph = {dotted(f): imports(f)[1] for _, f in ALL}

    def reaches(start, node, seen):
        for nxt in graph.get(node, ()):
            if nxt == start:
                return True
            if nxt not in seen:
                seen.add(nxt)
                if reaches(start, nxt, seen):
                    return True
        return False

    circles = [m for m in graph if m != "web" and reaches(m, m, set())]
    assert not circles, circles


# What the web layer may not reach through the Service: its parts behind the face.
BEHIND_THE_FACE = {"store", "rooms", "hub", "beats"}


def test_the_web_layer_uses_only_the_servers_face():
    """The web layer imports the server only from the package (``from ..server import
    ...``: what auction/server/__init__.py names), never one of its modules, and never
    reaches past the Service to its store, rooms, hub or beats."""
    server_modules = {p.stem for p in modules("server")}
    seen = 0
    for path in modules("web"):
        package = dotted(path).split(".")[:-1] if path.name != "__init__.py" \
            else dotted(path).split(".")
        for node in ast.walk(ast.parse(path.read_text())):
            where = f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + (node.module.split(".") if node.module else []))
                if not module:                   # from ... import server
                    assert "server" not in {a.name for a in node.names}, where
                elif module.split(".")[0] == "server":
                    assert module == "server", f"{where}: from {module}"
                    modules_named = {a.name for a in node.names} & server_modules
                    assert not modules_named, f"{where}: {modules_named}"
                    seen += 1
            elif isinstance(node, ast.Attribute):
                assert node.attr not in BEHIND_THE_FACE, f"{where}: .{node.attr}"
    assert seen >= 5, "the web layer no longer imports the server at all?"
