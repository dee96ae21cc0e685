"""What the catalog tests read: the words the code marks, the catalogs, and what is wrong
with a translation (tests/web/test_catalogs.py; docs/i18n.md).

Each check is a function of plain data, so tests/web/test_catalogs.py can also feed it a
catalog broken on purpose and see that it says so.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords, parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "translations"
POT = TRANSLATIONS / "messages.pot"

# A msgstr's placeholders: %(name)s, %d, %s ("%%" is a literal percent sign), and the
# {name} of the scripts' words (static/app.js fills them in).
PLACEHOLDER = re.compile(r"%(?:\([^)]+\))?[-#0 +]*\d*(?:\.\d+)?[sdifr%]|\{\w+\}")

# What Korean may keep in Latin letters (docs/i18n.md, "What stays in Latin letters"):
# words Korean writes so itself, and room codes with their letters (four capitals, or one
# named alone: "KHMP", "never I, L, O, U or V"). The brand is translated (시간 경매); names
# and codes in a game are data, never in a catalog. Markup and placeholders are no words.
LATIN_ALLOWED = ("AI", "QR", "CSV", "JSON", "JavaScript")
_CODE_LETTERS = re.compile(r"(?<![A-Za-z])(?:[A-Z]{4}|[A-Z])(?![A-Za-z])")
MARKUP = re.compile(r"<[^>]*>|&[#\w]+;")


def latin_words(text: str, allowed: tuple[str, ...] = LATIN_ALLOWED) -> list[str]:
    """The Latin words of a Korean ``text`` that Korean would not write so."""
    rest = _CODE_LETTERS.sub(" ", MARKUP.sub(" ", PLACEHOLDER.sub(" ", text)))
    return [w for w in re.findall(r"[A-Za-z]+", rest) if w not in allowed]


def makefile_keywords(makefile: Path = ROOT / "Makefile") -> list[str]:
    """The extra keywords `make messages` passes to pybabel (``-k NAME``)."""
    recipe = makefile.read_text().split("\nmessages:", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"-k\s+(\S+)", recipe)


def extracted(root: Path = ROOT) -> tuple[Catalog, list[str]]:
    """Every word marked in the code and templates now, found as `make messages` finds them,
    and babel's warnings (a marked f-string: a message it had to skip)."""
    with open(root / "babel.cfg") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg, "babel.cfg")
    keywords = {**DEFAULT_KEYWORDS, **parse_keywords(makefile_keywords(root / "Makefile"))}
    catalog = Catalog()
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        for filename, lineno, message, comments, context in extract_from_dir(
                str(root), method_map, options_map, keywords=keywords):
            catalog.add(message, None, [(filename, lineno)], auto_comments=comments,
                        context=context)
    return catalog, [line for line in said.getvalue().splitlines() if "warning" in line]


def read(path: Path, locale: str | None = None) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f, locale=locale)


def ids(catalog: Catalog) -> set:
    """Each message's key: (context, msgid) with a plural's msgid a (singular, plural) pair."""
    return {(m.context, m.id) for m in catalog if m.id}


def languages(root: Path = ROOT) -> list[str]:
    """Every language with a catalog (English is written in the code and has none)."""
    return sorted(p.parent.parent.name for p in (root / "translations").glob("*/LC_MESSAGES/messages.po"))


def po_path(locale: str, root: Path = ROOT) -> Path:
    return root / "translations" / locale / "LC_MESSAGES" / "messages.po"


def strings(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


def untranslated(catalog: Catalog) -> list[str]:
    """What a player would read in English: an empty or fuzzy msgstr, or an obsolete entry."""
    problems = []
    for m in catalog:
        if not m.id:
            continue
        if not all(strings(m)):
            problems.append(f"not translated: {m.id!r}")
        elif m.fuzzy:
            problems.append(f"fuzzy (a guess nobody checked): {m.id!r}")
    problems += [f"obsolete (no longer in the code): {key!r}" for key in catalog.obsolete]
    return problems


def placeholders(text: str) -> list[str]:
    return sorted(p for p in PLACEHOLDER.findall(text) if p != "%%")


def wrong_placeholders(catalog: Catalog) -> list[str]:
    """Placeholders a translation lost, added or renamed (and babel's own python-format check)."""
    problems = []
    for m, errors in catalog.check():
        problems += [f"{m.id!r}: {e}" for e in errors]
    for m in catalog:
        if not m.id or not all(strings(m)):
            continue
        if isinstance(m.id, (list, tuple)):
            # Every form says the count and the other values (Korean has one form).
            wanted = set(placeholders(m.id[0])) | set(placeholders(m.id[1]))
            for form in strings(m):
                if set(placeholders(form)) != wanted:
                    problems.append(f"{m.id!r}: placeholders {sorted(wanted)} became "
                                    f"{placeholders(form)} in {form!r}")
        elif placeholders(m.id) != placeholders(m.string):
            problems.append(f"{m.id!r}: placeholders {placeholders(m.id)} became "
                            f"{placeholders(m.string)} in {m.string!r}")
    return problems


def latin_left(catalog: Catalog, allowed: tuple[str, ...] = LATIN_ALLOWED) -> list[str]:
    """Translations that still hold Latin words beyond placeholders, markup and ``allowed``."""
    problems = []
    for m in catalog:
        if not m.id:
            continue
        for form in strings(m):
            words = latin_words(form, allowed)
            if words:
                problems.append(f"{m.id!r} -> {form!r}: {' '.join(words)}")
    return problems


def compiled(catalog: Catalog) -> bytes:
    """The .mo `pybabel compile` writes for ``catalog`` (fuzzy entries left out)."""
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def difference(found: set, listed: set, what: str) -> list[str]:
    """A stale template, said as the msgids to add and to drop."""
    return ([f"marked in the code, missing from {what}: {k[1]!r}" for k in sorted(found - listed, key=str)]
            + [f"in {what}, marked nowhere: {k[1]!r}" for k in sorted(listed - found, key=str)])
