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
# The server's modules whose classes the web layer may hold: the face (service.py), the
# values and handles it hands out, the hold socket's messages, and the config. Every other
# class of the server (the store, rooms, hub, beats, scheduler, clock, records, ...) and
# every class of redis-py is behind the face: a new module is behind it until named here.
FACE_MODULES = {"service", "faces", "watch", "leases", "holds", "hold_messages", "codes",
                "jsontext", "config"}
# What reaches into the server from outside the web package: the entry points.
ENTRY_POINTS = [PACKAGE.parent / "app.py", PACKAGE.parent / "gunicorn.conf.py"]


def behind_the_face(cls: type) -> bool:
    """A class the web layer must never be handed: redis-py's, or one of the server's
    outside FACE_MODULES (its exceptions excepted: the web layer catches them)."""
    module = getattr(cls, "__module__", "") or ""
    if module.split(".")[0] == "redis":
        return True
    if not module.startswith("auction.server.") or issubclass(cls, BaseException):
        return False
    return module.rsplit(".", 1)[1] not in FACE_MODULES


def _classes_named(hint) -> set[type]:
    """Every class a type hint names (``tuple[View, Lookup] | None``: View, Lookup, ...)."""
    import typing

    found = {hint} if isinstance(hint, type) else set()
    for arg in typing.get_args(hint):
        found |= _classes_named(arg)
    return found


def _hints(obj) -> dict:
    """The resolved annotations of a function or class, against every server module's
    names (annotations are strings here; some name what a module imports only for mypy)."""
    import importlib
    import typing

    space: dict = {}
    for path in modules("server"):
        space.update(vars(importlib.import_module(f"auction.{dotted(path)}")))
    space.update(vars(sys.modules[obj.__module__]))
    return typing.get_type_hints(obj, globalns=space)


def leaks_of(cls: type, constructor: bool) -> list[str]:
    """What a face class would hand over from behind the face: a public attribute it
    declares, or a public method (``__init__`` too when ``constructor``: the web builds
    it) taking or returning such a class."""
    found = [f"{cls.__name__}.{name}: {hint}" for name, hint in _hints(cls).items()
             if not name.startswith("_") and any(map(behind_the_face, _classes_named(hint)))]
    for name, member in vars(cls).items():
        if isinstance(member, property):
            member = member.fget
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if not callable(member) or (name.startswith("_") and
                                    not (constructor and name == "__init__")):
            continue
        for arg, hint in _hints(member).items():
            named = {c.__name__ for c in _classes_named(hint) if behind_the_face(c)}
            if named:
                found.append(f"{cls.__name__}.{name}({arg}): {sorted(named)}")
    return found


def test_what_the_server_names_is_its_face_and_nothing_behind_it():
    """Each name of ``auction.server.__all__`` is, by what it is: the Service; an
    exception; a value or handle of the face's modules (faces, watch, leases, holds, the
    hold messages, the config) or of the game, none of whose public attributes or methods
    takes or gives a class behind the face; or a function or constant of the same kind.
    Never the store, the rooms, the hub, the beats, the scheduler, a record or a client."""
    import inspect

    import auction.server as server
    from auction.server import Service

    leaks: list[str] = []
    for name in server.__all__:
        obj = getattr(server, name)
        if isinstance(obj, type):
            if behind_the_face(obj):
                leaks.append(f"{name} is {obj.__module__}.{obj.__qualname__}")
            elif not issubclass(obj, BaseException):
                leaks += leaks_of(obj, constructor=obj is Service)
        elif inspect.isfunction(obj):
            for arg, hint in _hints(obj).items():
                named = {c.__name__ for c in _classes_named(hint) if behind_the_face(c)}
                if named:
                    leaks.append(f"{name}({arg}): {sorted(named)}")
        elif behind_the_face(type(obj)):
            leaks.append(f"{name} is a {type(obj).__module__}.{type(obj).__qualname__}")
    assert not leaks, leaks
    assert "Service" in server.__all__


def test_the_service_has_no_public_attribute_and_hands_out_only_its_face(app):
    """The worker's Service (as create_app built it) holds everything behind it under
    private names; and what its methods hand the web layer -- a room's Lookup, a stream's
    Watch, a press's Hold, a Lease, finished games, the limiter's storage -- carries no server object
    or client in a public attribute either."""
    service = app.extensions["auction"]
    assert [name for name in vars(service) if not name.startswith("_")] == []
    token = "purity-device-token-0123456789abcdef"
    code = service.create(token, "Ann", "stake")
    handed = [service.load(code), service.view(code, token)[1], service.limiter_storage(),
              *service.recent_games(token)]
    watch = service.watch(code)
    now = service.now_ms()
    hold = service.hold(code, token, pressed_ms=now, opened_ms=now, tls=False,
                        kernel_rtt_ms=None)
    with service.lease("purity", 1, 1000) as lease:
        handed += [watch, lease, hold]
        leaks = []
        for obj in handed:
            names = set(vars(obj) if hasattr(obj, "__dict__") else ()) | {
                slot for cls in type(obj).__mro__ for slot in getattr(cls, "__slots__", ())}
            for name in sorted(n for n in names if not n.startswith("_")):
                value = getattr(obj, name)
                if behind_the_face(type(value)):
                    leaks.append(f"{type(obj).__name__}.{name} is a {type(value).__name__}")
    watch.close()
    hold.close()
    assert not leaks, leaks


def _face_access(node: ast.Attribute) -> bool:
    """``services().x`` or ``<app>.extensions["auction"].x``: a use of the Service."""
    value = node.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id == "services"
    return (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute)
            and value.value.attr == "extensions" and isinstance(value.slice, ast.Constant)
            and value.slice.value == "auction")


def test_the_web_layer_uses_only_the_servers_face():
    """The web layer (and the entry points) import the server only from the package
    (``from ..server import ...``: what auction/server/__init__.py names, each checked
    above by what it is), never one of its modules; they use the Service only by its
    public methods, and reach into no object's private names."""
    from auction.server import Service

    server_modules = {p.stem for p in modules("server")}
    public = {name for name in dir(Service) if not name.startswith("_")}
    seen = 0
    for path in modules("web") + ENTRY_POINTS:
        inside = path.is_relative_to(PACKAGE)
        package = (dotted(path).split(".")[:-1] if path.name != "__init__.py"
                   else dotted(path).split(".")) if inside else []
        for node in ast.walk(ast.parse(path.read_text())):
            where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    module = ".".join(base + (node.module.split(".") if node.module else []))
                else:
                    module = (node.module or "").removeprefix("auction").lstrip(".")
                    if not (node.module or "").startswith("auction"):
                        continue
                if not module:                   # from ... import server
                    assert "server" not in {a.name for a in node.names}, where
                elif module.split(".")[0] == "server":
                    assert module == "server", f"{where}: from {module}"
                    modules_named = {a.name for a in node.names} & server_modules
                    assert not modules_named, f"{where}: {modules_named}"
                    seen += 1
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("auction.server") for a in node.names), where
            elif isinstance(node, ast.Attribute):
                if _face_access(node):
                    assert node.attr in public, f"{where}: the Service has no public .{node.attr}"
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                if private and ast.unparse(node.value) not in ("self", "cls", "super()"):
                    raise AssertionError(f"{where}: reaches into .{node.attr}")
    assert seen >= 5, "the web layer no longer imports the server at all?"
