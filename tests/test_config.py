"""The environment: read once, in the config of the layer that owns it, typed, and
every variable in docs/deploy.md's one table.

auction/server/config.py and auction/web/config.py are the only modules of the
package that read the environment (through ``Env``); the entry points outside it
(gunicorn.conf.py, the Procfile) read what gunicorn's master needs before any of
the app loads. Each variable any of them reads is a row of the table.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from auction.server.config import Env, ServerConfig

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = [ROOT / "auction/server/config.py", ROOT / "auction/web/config.py"]
TABLE = ROOT / "docs/deploy.md"


def _reads_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
            and isinstance(node.value, ast.Name) and node.value.id == "os")


def test_only_the_configs_read_the_environment():
    readers = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "auction").rglob("*.py")
                     if any(map(_reads_environ, ast.walk(ast.parse(path.read_text())))))
    assert readers == ["auction/server/config.py"], readers   # Env's own os.environ
    assert "environ" not in (ROOT / "app.py").read_text()


def variables_read() -> set[str]:
    """Every variable the configs read (``env.<kind>("NAME", ...)``), and those the
    entry points outside the package read (gunicorn.conf.py, the Procfile), but for
    what gunicorn.conf.py writes for itself."""
    names: set[str] = set()
    for path in CONFIGS:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("text", "integer", "number", "flag", "names")
                    and node.args and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    gunicorn = (ROOT / "gunicorn.conf.py").read_text()
    read = set(re.findall(r'os\.environ(?:\.get\(|\[)"([A-Z_]+)"', gunicorn))
    written = set(re.findall(r'os\.environ\["([A-Z_]+)"\] =', gunicorn))
    names |= read - (written - {"PROMETHEUS_MULTIPROC_DIR"})
    names |= set(re.findall(r"\$\{([A-Z_]+)", (ROOT / "Procfile").read_text()))
    return names


def test_every_variable_is_in_the_one_table():
    text = TABLE.read_text()
    rows = set(re.findall(r"^\| `([A-Z_]+)` \|", text, re.M))
    read = variables_read()
    assert {"REDIS_URL", "SECRET_KEY", "DRAIN_S", "PORT", "TA_STORE_SHARDS"} <= read
    assert read - rows == set(), "read but not in docs/deploy.md's table"
    assert rows - read == set(), "in docs/deploy.md's table but read nowhere"


def test_a_bad_value_is_refused_by_name():
    env = Env({"PROXY_HOPS": "one", "DRAIN_S": "soon", "COOKIE_SECURE": "maybe"})
    with pytest.raises(ValueError, match="PROXY_HOPS='one': expected a whole number"):
        env.integer("PROXY_HOPS", 0)
    with pytest.raises(ValueError, match="DRAIN_S='soon': expected a number"):
        env.number("DRAIN_S", 10.0)
    with pytest.raises(ValueError, match="COOKIE_SECURE='maybe'"):
        env.flag("COOKIE_SECURE")
    with pytest.raises(ValueError, match="TA_STORE_SHARDS='x'"):
        ServerConfig.from_env(Env({"TA_STORE_SHARDS": "x"}))


def test_values_parse_as_they_always_have():
    env = Env({"A": " 7 ", "B": "2.5", "ON": "Yes", "OFF": "0", "BLANK": "", "LIST": " a, ,b "})
    assert env.integer("A", 0) == 7 and env.number("B", 1.0) == 2.5
    assert env.flag("ON") and not env.flag("OFF") and not env.flag("BLANK")
    assert env.flag("UNSET", True) and env.integer("BLANK", 3) == 3
    assert env.text("BLANK") is None and env.text("BLANK", "d") == "d"
    assert env.text("BLANK", "d", blank=True) == "" and env.text("UNSET", "d", blank=True) == "d"
    assert env.names("LIST") == ["a", "b"] and env.names("UNSET") == []
    assert ServerConfig.from_env(Env({})) == ServerConfig(None, 300, 16, 100)
