"""The hold socket's messages: one closed set, written once (auction/server/hold_messages.py),
the same bytes as ever, and the same reasons as docs/protocol.md lists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from auction.server import hold_messages as m

ROOT = Path(__file__).resolve().parents[2]


def _hold_section() -> str:
    text = (ROOT / "docs" / "protocol.md").read_text()
    start = text.index("## The hold socket")
    return text[start:text.index("\n## ", start + 1)]


def _bullet(section: str, opening: str) -> str:
    """The text of the list item that starts with ``opening``, to the next item."""
    start = section.index(opening)
    return section[start:section.index("\n  - ", start)]


def _reasons(text: str) -> set[str]:
    """The words in backticks after 'Reasons:' (lower-case words only: not settings)."""
    return set(re.findall(r"`([a-z_]+)`", text.split("Reasons:", 1)[1]))


def test_the_reasons_are_the_ones_docs_protocol_lists():
    section = _hold_section()
    refused = _bullet(section, '- `{"type": "refused"')
    released = _bullet(section, '- `{"type": "released"')
    assert _reasons(refused) == m.REFUSALS
    assert _reasons(released) == m.ENDINGS
    for kind in ("in", "refused", "released", "beat"):
        assert f'`{{"type": "{kind}"' in section, kind
    assert 'the client only ever sends `{"type": "release"}`' in section


def test_each_message_is_the_same_bytes_as_ever():
    assert m.in_message() == '{"type": "in"}'
    assert m.in_message(4242) == '{"type": "in", "worker": 4242}'
    assert m.refused_message("second_socket") == '{"type": "refused", "reason": "second_socket"}'
    assert m.released_message("bank_empty") == '{"type": "released", "reason": "bank_empty"}'
    assert m.BEAT_MESSAGE == '{"type": "beat"}'


def test_only_the_clients_release_is_a_release():
    assert m.is_release_message('{"type": "release"}')
    assert m.is_release_message(b'{"type": "release"}')
    for other in (None, "", "release", '{"type": "beat"}', "[1]", '"release"', b"\xff"):
        assert not m.is_release_message(other), other


def test_the_socket_writes_no_message_of_its_own():
    """No dict with a "type" in the web layer's hold socket: every message is one of these."""
    tree = ast.parse((ROOT / "auction" / "web" / "live" / "hold.py").read_text())
    inline = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Dict)
              and any(isinstance(k, ast.Constant) and k.value == "type" for k in node.keys)]
    assert inline == []
    assert "json" not in {a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                          for a in n.names}
