"""What of the view each live part of a page reads, found in its template's source.

A stream re-renders a part only when something its template reads has changed
(render.partials' ``memo``): the HTML of a part is a function of what its
template reads, so a part whose inputs all equal last time's would come out
byte for byte as it did then. Most changes in a round touch one or two things
(my own holding, the phase), and rendering every part for each of them was the
larger part of a phone stream's cost.

An input is one of:
- ``("v", key)``: the view's ``key`` (``v.key``, ``v["key"]``, or a name the page's
  context derives from it, render._context);
- ``("len", key)``: how many items the view's ``key`` holds (``v.key|length``);
- ``("me", field)``: a field of my own seat (``me.field``), ``("me", "?")`` whether I
  have one (``{% if me %}``);
- ``("phase", ops)``: the outcome of comparing the phase with constants
  (``phase == "lobby"``), so a part that only asks "lobby or not" is not drawn
  again at every phase of a round.

The reading is conservative: any other use of the view (a filter, a call, a loop
over it), an include whose name is not a constant, or a name this module does not
know makes the part depend on the whole view (None), which is rendering as before.
Names that are the same for the whole stream (the room's code, the form token, the
language's globals) are no input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from jinja2 import Environment, meta, nodes

Input = tuple[Any, ...]
SEAT = ("me", "?")
# The names render._context derives from the view, by what they read of it.
DERIVED: dict[str, set[Input]] = {
    "s": {("v", "settings")}, "players": {("v", "players")}, "name_of": {("v", "players")},
    "seated": {SEAT, ("me", "left")},
    "named": {("v", "players"), SEAT, ("me", "id")},
    "who": {("v", "players"), SEAT, ("me", "id")},
}
# The context's names fixed for a stream's life (its room and its form token).
FIXED = {"code", "csrf_token", "invite_url", "qr_svg", "site"}
COMPARISONS = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
               "in": lambda a, b: a in b, "notin": lambda a, b: a not in b}


def inputs(env: Environment, name: str) -> frozenset[Input] | None:
    """What template ``name`` (and what it includes) may read; None if anything."""
    found_trees = list(_sources(env, name, set()))
    trees = [tree for tree in found_trees if tree is not None]
    if len(trees) < len(found_trees):
        return None
    # A name set in one of them (a {% set %}, a loop's variable, a macro's argument,
    # the i18n extension's own) is theirs: its value comes from what they read.
    local = {node.name for tree in trees for node in tree.find_all(nodes.Name)
             if node.ctx in ("store", "param")}
    found: set[Input] = set()
    for tree in trees:
        more = _inputs(env, tree, local)
        if more is None:
            return None
        found |= more
    return frozenset(found)


def reader(specs: Iterable[Input]) -> Callable[[Mapping[str, Any]], tuple]:
    """One function that reads all of ``specs`` from a view, for the memo to compare:
    made once per template, as it runs for every part of every stream's every change."""
    specs = frozenset(specs)
    keys = tuple(what for kind, what in specs if kind == "v")
    counted = tuple(what for kind, what in specs if kind == "len" and ("v", what) not in specs)
    fields = tuple(what for kind, what in specs if kind == "me" and what != "?")
    # A test of the phase says nothing new where the phase itself is read.
    tests = () if ("v", "phase") in specs else tuple(
        (COMPARISONS[op], const) for kind, ops in specs if kind == "phase" for op, const in ops)

    def read(view: Mapping[str, Any]) -> tuple:
        me, phase = view.get("me"), view.get("phase")
        return (tuple(map(view.get, keys)),
                tuple(len(view.get(key) or ()) for key in counted),
                None if me is None else tuple(map(me.get, fields)),
                tuple(compare(phase, const) for compare, const in tests))
    return read


CLOSED = ("closed",)     # what a part depends on where its gate is shut: nothing


def reading(env: Environment, name: str) -> Callable[[Mapping[str, Any]], object]:
    """What template ``name``'s drawing of a view depends on, as a function of the view:
    CLOSED where its gate is shut, else what it reads (the whole view where unknown)."""
    found = inputs(env, name)
    read = None if found is None else reader(found)
    shut = gate(env, name)

    def depends(view: Mapping[str, Any]) -> object:
        if shut is not None and not shut(view):
            return CLOSED
        return view if read is None else read(view)
    return depends


def gate(env: Environment, name: str) -> Callable[[Mapping[str, Any]], bool] | None:
    """For a part whose whole output stands inside one ``{% if %}`` with no other branch,
    whose test requires comparisons of the phase with constants (``phase == "ended" and
    v.final``): a function telling from a view whether those comparisons pass. Where one
    fails the part draws nothing, whatever else the view holds -- so the end's part, which
    hands the whole view on (None above), is not drawn again at each change of a round.
    None: no such gate."""
    assert env.loader is not None
    tree = env.parse(env.loader.get_source(env, name)[0])
    body = [node for node in tree.body if not _silent(node)]
    top = body[0] if len(body) == 1 else None
    if not isinstance(top, nodes.If) or top.elif_ or top.else_:
        return None
    if any(node.name == "phase" for node in tree.find_all(nodes.Name) if node.ctx == "store"):
        return None
    tests = []
    for term in _conjuncts(top.test):
        if (isinstance(term, nodes.Compare) and isinstance(term.expr, nodes.Name)
                and term.expr.name == "phase" and len(term.ops) == 1):
            op, const = term.ops[0].op, _constant(env, term.ops[0].expr)
            if op in COMPARISONS and const is not None:
                tests.append((COMPARISONS[op], const))
    if not tests:
        return None

    def open_(view: Mapping[str, Any]) -> bool:
        phase = view.get("phase")
        return all(compare(phase, const) for compare, const in tests)
    return open_


def _silent(node: nodes.Node) -> bool:
    """A top-level node that writes nothing: a set, a macro, an import, or blank text."""
    if isinstance(node, (nodes.Assign, nodes.AssignBlock, nodes.Macro, nodes.Import,
                         nodes.FromImport)):
        return True
    return isinstance(node, nodes.Output) and all(
        isinstance(child, nodes.TemplateData) and not child.data.strip()
        for child in node.nodes)


def _conjuncts(test: nodes.Node) -> Iterator[nodes.Node]:
    """The terms of ``a and b and c``: each must hold for the whole to."""
    if isinstance(test, nodes.And):
        yield from _conjuncts(test.left)
        yield from _conjuncts(test.right)
    else:
        yield test


def _sources(env: Environment, name: str, seen: set[str]) -> Iterator[nodes.Template | None]:
    """The parsed template and every template it includes or imports (None: unknown)."""
    if name in seen:
        return
    seen.add(name)
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    tree = env.parse(source)
    yield tree
    for other in meta.find_referenced_templates(tree):
        if other is None:
            yield None
        else:
            yield from _sources(env, other, seen)


def _inputs(env: Environment, tree: nodes.Template, local: set[str]) -> set[Input] | None:
    found: set[Input] = set()
    for name in meta.find_undeclared_variables(tree):
        if name in DERIVED:
            found |= DERIVED[name]
        elif name not in local and name not in ("v", "me", "phase") and name not in FIXED \
                and name not in env.globals:
            return None                     # unknown: depend on everything
    for node, above in _walk(tree, ()):
        if isinstance(node, nodes.Name) and node.ctx == "load" and node.name not in local:
            spec = _read(env, node, above)
            if spec is False:
                return None
            if isinstance(spec, tuple):
                found.add(spec)
    return found


def _read(env: Environment, node: nodes.Name, above: tuple[nodes.Node, ...]) -> Input | None | bool:
    """What this use of ``v``, ``me`` or ``phase`` reads (None: not one of them;
    False: more than this module can tell). ``above``: its ancestors, nearest first."""
    parent = above[0] if above else None
    if node.name == "v":
        if isinstance(parent, nodes.Getattr) and parent.node is node:
            grand = above[1] if len(above) > 1 else None
            if isinstance(grand, nodes.Filter) and grand.name == "length" and grand.node is parent:
                return ("len", parent.attr)     # how many, not which: the lobby's count
            return ("v", parent.attr)
        if (isinstance(parent, nodes.Getitem) and parent.node is node
                and isinstance(parent.arg, nodes.Const) and isinstance(parent.arg.value, str)):
            return ("v", parent.arg.value)
        return False                        # the whole view handed on or looped over
    if node.name == "me":
        if isinstance(parent, nodes.Getattr) and parent.node is node:
            return ("me", parent.attr)
        if _is_test(node, above):
            return SEAT
        return ("v", "me")
    if node.name == "phase":
        if isinstance(parent, nodes.Compare) and parent.expr is node:
            ops = [(op.op, _constant(env, op.expr)) for op in parent.ops]
            if all(op in COMPARISONS and const is not None for op, const in ops):
                return ("phase", tuple(ops))
        return ("v", "phase")
    return None


def _is_test(node: nodes.Node, above: tuple[nodes.Node, ...]) -> bool:
    """Is ``node`` only tested for truth where it stands (``if me``, ``not me``,
    ``me and …``, ``me is none``)? ``a or me`` and ``a and me`` are the value of
    ``me`` itself unless they in turn are only tested."""
    child = node
    for ancestor in above:
        if isinstance(ancestor, nodes.Not):
            return True
        if isinstance(ancestor, nodes.Test) and ancestor.node is child and ancestor.name == "none":
            return True
        if isinstance(ancestor, nodes.And) and ancestor.left is child:
            return True                     # and's left operand: its value shows only if falsy
        if isinstance(ancestor, (nodes.And, nodes.Or)):
            child = ancestor
            continue
        return (isinstance(ancestor, (nodes.If, nodes.CondExpr, nodes.For))
                and getattr(ancestor, "test", None) is child)
    return False


def _constant(env: Environment, expr: nodes.Expr) -> Any:
    """A constant operand: a literal, or a global tuple of strings (GAME_PHASES); else None."""
    if isinstance(expr, (nodes.Const, nodes.Tuple, nodes.List)):
        try:
            constant = expr.as_const()
        except nodes.Impossible:
            return None
        return tuple(constant) if isinstance(constant, list) else constant
    if isinstance(expr, nodes.Name) and isinstance(env.globals.get(expr.name), tuple):
        return env.globals[expr.name]
    return None


def _walk(node: nodes.Node, above: tuple[nodes.Node, ...]) -> Iterator[tuple[nodes.Node, tuple[nodes.Node, ...]]]:
    """Every node with its ancestors, nearest first."""
    yield node, above
    for child in node.iter_child_nodes():
        yield from _walk(child, (node, *above))
