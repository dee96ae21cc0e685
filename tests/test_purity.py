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
    outside FACE_MODULES (its exceptions excepted: the web layer catches them) -- or a
    subclass of one, wherever it is defined."""
    if issubclass(cls, BaseException):
        return False
    for base in getattr(cls, "__mro__", (cls,)):
        module = getattr(base, "__module__", "") or ""
        if module.split(".")[0] == "redis":
            return True
        if module.startswith("auction.server.") and \
                module.rsplit(".", 1)[1] not in FACE_MODULES:
            return True
    return False


# The one server object the web layer holds knowingly: the store's connection pool, in
# LimiterStorage.options. flask-limiter's Redis storage takes a pool (never a client),
# and the web layer passes the options on unread (web/door/limits.py), so the limits
# count on the store's own connections rather than a second pool per worker. Each such
# field is (class, attribute): there, and only there, a redis ConnectionPool may be
# reached, and the field may be typed loosely (the library's options are untyped).
PASSED_ON = {("LimiterStorage", "options")}
PASSED_ON_NAMES = {name for _, name in PASSED_ON}     # the web layer reads nothing inside


def _passed_on(owner: str, name: str, cls: type) -> bool:
    import redis

    return (owner, name) in PASSED_ON and isinstance(cls, type) and \
        issubclass(cls, redis.ConnectionPool)


def _opaque(hint) -> list[str]:
    """What a type hint hides: Any, object, or a bare tuple, list, dict, set or Callable
    -- a face typed so could hand over anything, and the check by type would not see it."""
    import collections.abc
    import typing

    if hint is typing.Any or hint is object:
        return [repr(hint)]
    bare = (tuple, list, dict, set, frozenset, collections.abc.Callable,
            collections.abc.Mapping, collections.abc.Sequence)
    if hint in bare:
        return [f"bare {getattr(hint, '__name__', hint)}"]
    if typing.get_origin(hint) is collections.abc.Callable and not typing.get_args(hint):
        return ["bare Callable"]
    args = [a for arg in typing.get_args(hint) for a in (arg if isinstance(arg, list) else [arg])]
    return [why for arg in args if arg is not Ellipsis for why in _opaque(arg)]


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
    it) taking or returning such a class -- or giving a value typed so that it could be
    one (untyped, Any, object, a bare container: the check by type cannot see through it)."""
    found = []
    for name, hint in _hints(cls).items():
        if name.startswith("_"):
            continue
        behind = {c for c in _classes_named(hint) if behind_the_face(c)
                  and not _passed_on(cls.__name__, name, c)}
        if behind:
            found.append(f"{cls.__name__}.{name}: {hint}")
        elif _opaque(hint) and (cls.__name__, name) not in PASSED_ON:
            found.append(f"{cls.__name__}.{name}: {_opaque(hint)}")
    for name, member in vars(cls).items():
        if isinstance(member, property):
            member = member.fget
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if not callable(member) or (name.startswith("_") and
                                    not (constructor and name == "__init__")):
            continue
        hints = _hints(member)
        if "return" not in hints and name != "__init__":
            found.append(f"{cls.__name__}.{name}(return): untyped")
        for arg, hint in hints.items():
            named = {c.__name__ for c in _classes_named(hint) if behind_the_face(c)}
            if named:
                found.append(f"{cls.__name__}.{name}({arg}): {sorted(named)}")
            elif arg == "return" and _opaque(hint):     # what it gives, not what it takes
                found.append(f"{cls.__name__}.{name}(return): {_opaque(hint)}")
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
                elif arg == "return" and _opaque(hint):
                    leaks.append(f"{name}({arg}): {_opaque(hint)}")
        elif behind_the_face(type(obj)):
            leaks.append(f"{name} is a {type(obj).__module__}.{type(obj).__qualname__}")
    assert not leaks, leaks
    assert "Service" in server.__all__


def test_the_service_has_no_public_attribute_and_hands_out_only_its_face(app):
    """The worker's Service (as create_app built it) holds everything behind it under
    private names; and what its methods hand the web layer -- a room's Lookup, a stream's
    Watch, a press's Hold, a Lease, finished games, the limiter's storage -- reaches no
    server object or client either, through public attributes and properties, containers,
    bound methods or closures (``_reachable_leaks``), but the store's pool that
    LimiterStorage.options passes on to flask-limiter (PASSED_ON)."""
    service = app.extensions["auction"]
    assert [name for name in vars(service) if not name.startswith("_")] == []
    token = "purity-device-token-0123456789abcdef"
    code = service.create(token, "Ann", "stake")
    handed = [service.load(code), service.view(code, token)[1], service.limiter_storage(),
              *service.recent_games(token)]
    watch = service.watch(code)
    now = service.now_ms()
    hold = service.hold(code, token, arrived_ms=now, kernel_arrived_ms=None, opened_ms=now,
                        tls=False,
                        kernel_rtt_ms=None)
    with service.lease("purity", 1, 1000) as lease:
        handed += [watch, lease, hold]
        leaks: list[str] = []
        for obj in handed:
            leaks += _reachable_leaks(obj, type(obj).__name__)
    watch.close()
    hold.close()
    assert not leaks, leaks


_PLAIN = (str, bytes, int, float, bool, type(None))


def _reachable_leaks(obj, path: str, owner: tuple[str, str] = ("", ""), seen=None,
                     depth: int = 0) -> list[str]:
    """Where a server object or class behind the face can be reached from ``obj`` without a
    private name: through public attributes and properties (of the project's objects),
    the items of containers, a callable's ``__self__``, closure cells and defaults, a
    partial's function and arguments. ``owner``: the (class, attribute) it came through."""
    import functools
    import types

    seen = set() if seen is None else seen
    if isinstance(obj, _PLAIN) or id(obj) in seen or depth > 6:
        return []
    seen.add(id(obj))
    cls = obj if isinstance(obj, type) else type(obj)
    if behind_the_face(cls):
        return [] if _passed_on(*owner, cls) else [f"{path} is a {cls.__module__}.{cls.__qualname__}"]
    if isinstance(obj, (type, types.ModuleType)):
        return []
    parts: list[tuple[str, object]] = []
    if isinstance(obj, dict) or hasattr(obj, "keys") and hasattr(obj, "items"):
        parts = [(f"{path}[{k!r}]", v) for k, v in obj.items()] + \
            [(f"{path} key", k) for k in obj.keys()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        parts = [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
    elif isinstance(obj, functools.partial):
        parts = [(f"{path}.func", obj.func), *((f"{path} arg", a) for a in obj.args),
                 *((f"{path}.{k}", v) for k, v in obj.keywords.items())]
    elif isinstance(obj, types.MethodType):
        parts = [(f"{path}.__self__", obj.__self__), (f"{path}.__func__", obj.__func__)]
    elif isinstance(obj, types.FunctionType):
        parts = [(f"{path} closure", c.cell_contents) for c in obj.__closure__ or ()
                 if c.cell_contents is not c] + \
            [(f"{path} default", d) for d in (obj.__defaults__ or ())] + \
            [(f"{path} default", d) for d in (obj.__kwdefaults__ or {}).values()]
    elif cls.__module__.startswith("auction."):     # its public attributes and properties
        names = set(vars(obj) if hasattr(obj, "__dict__") else ()) | {
            slot for c in cls.__mro__ for slot in getattr(c, "__slots__", ())} | {
            n for c in cls.__mro__ for n, m in vars(c).items() if isinstance(m, property)}
        return [leak for name in sorted(n for n in names if not n.startswith("_"))
                for leak in _reachable_leaks(getattr(obj, name), f"{path}.{name}",
                                             (cls.__name__, name), seen, depth + 1)]
    return [leak for where, value in parts
            for leak in _reachable_leaks(value, where, owner, seen, depth + 1)]


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
    public methods, and reach into no object's private names -- neither by name nor by
    reflection (``_reflection``: getattr with a name made at run time, vars, __dict__, a
    closure's cells, sys.modules, ...), unless the line vouches for it (REFLECT_OK)."""
    from auction.server import Service

    server_modules = {p.stem for p in modules("server")}
    public = {name for name in dir(Service) if not name.startswith("_")}
    seen = 0
    for path in modules("web") + ENTRY_POINTS:
        inside = path.is_relative_to(PACKAGE)
        package = (dotted(path).split(".")[:-1] if path.name != "__init__.py"
                   else dotted(path).split(".")) if inside else []
        text = path.read_text()
        lines, tree = text.splitlines(), ast.parse(text)
        module_names = _module_names(tree, package)
        for node in ast.walk(tree):
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
                # "import auction" (or auction.web...) would reach auction.server.store as
                # an attribute: the entry points name what they take, "from auction.web...".
                assert not any(a.name.split(".")[0] == "auction" for a in node.names), where
            elif isinstance(node, ast.Attribute):
                if _face_access(node):
                    assert node.attr in public, f"{where}: the Service has no public .{node.attr}"
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                if private and ast.unparse(node.value) not in ("self", "cls", "super()"):
                    raise AssertionError(f"{where}: reaches into .{node.attr}")
            if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                    isinstance(node.value, ast.Attribute) and node.value.attr in PASSED_ON_NAMES:
                raise AssertionError(f"{where}: reads inside .{node.value.attr}, passed on whole")
            reflection = _reflection(node, module_names)
            if reflection and REFLECT_OK not in lines[node.lineno - 1]:
                raise AssertionError(f"{where}: {reflection}")
    assert seen >= 5, "the web layer no longer imports the server at all?"


# A reflective reach the web layer vouches for, on its line: "# reflect: <what it reads,
# and why that is no server object>" (a socket's own TLS state, say).
REFLECT_OK = "# reflect:"
# Python's ways around a private name or a module's face: an object's or a function's
# insides, and a module by a name made at run time.
INSIDES = {"__dict__", "__self__", "__func__", "__closure__", "__globals__", "__code__",
           "__wrapped__", "__getattribute__", "__reduce__", "__reduce_ex__", "__getstate__",
           "cell_contents", "modules", "import_module", "get_referents", "get_referrers",
           "get_objects"}


def _module_names(tree: ast.AST, package: list[str]) -> set[str]:
    """The names a file binds to modules it imports ("import os", "from . import words")."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(package[:len(package) - (node.level - 1)] +
                            (node.module.split(".") if node.module else []))
            names |= {a.asname or a.name for a in node.names
                      if _named(base, a.name) != base}
    return names


def _rooted_at_self(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _reflection(node: ast.AST, module_names: set[str]) -> str | None:
    """Why ``node`` might reach a server object past the checks above by reflection:
    ``vars(x)``, ``__import__``, an object's insides (``x.__dict__``, a bound method's
    ``__self__``, a closure's cells, a function's globals, ``sys.modules``,
    ``importlib.import_module``, the collector's ``gc.get_referents``, an object's
    pickled state), ``inspect.getmembers``, or ``getattr``/``setattr``/
    ``hasattr``/``delattr``/``operator.attrgetter`` with a private name or one made at run
    time -- except on the object's own ``self`` or on a module this file imports."""
    if isinstance(node, ast.Attribute) and node.attr in INSIDES:
        return f"reaches into .{node.attr}"
    if not isinstance(node, ast.Call):
        return None
    func, args = node.func, node.args
    name = func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else ""
    if name in ("__import__", "getmembers", "getattr_static") or (name == "vars" and args):
        return f"{name}(...)"
    if name in ("attrgetter", "methodcaller") and not all(
            isinstance(a, ast.Constant) and isinstance(a.value, str)
            and not a.value.startswith("_") for a in args[:1 if name == "methodcaller" else None]):
        return f"{name}(<a private name, or one made at run time>)"
    if name in ("getattr", "setattr", "hasattr", "delattr") and len(args) >= 2:
        target, attr = args[0], args[1]
        if _rooted_at_self(target) or (isinstance(target, ast.Name) and target.id in module_names):
            return None
        if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
            return f"{name}(..., <a name made at run time>)"
        if attr.value.startswith("_") and not attr.value.startswith("__"):
            return f"{name}(..., {attr.value!r})"
    return None


def test_what_is_reachable_is_seen_through_containers_closures_and_methods():
    """The walk above, on planted leaks: a Rooms in a list, behind a bound method, in a
    lambda's closure, in a partial; a redis pool anywhere but a field passed on."""
    import functools

    import redis
    from auction.server.faces import LimiterStorage
    from auction.server.rooms import Rooms

    rooms, pool = object.__new__(Rooms), redis.ConnectionPool()
    for planted in ([1, {"x": rooms}], rooms.load, lambda: rooms, functools.partial(print, rooms),
                    {"connection_pool": pool}):
        assert _reachable_leaks(planted, "planted"), planted
    assert _reachable_leaks(LimiterStorage("redis://", {"connection_pool": pool}), "s") == []
    assert _reachable_leaks(LimiterStorage("redis://", {"client": redis.Redis(connection_pool=pool)}),
                            "s")
