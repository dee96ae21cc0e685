"""The pseudo-locale (docs/i18n.md): English with every catalog word wrapped, ⟦like this⟧.

``write_catalog`` turns translations/messages.pot into an English catalog whose every
msgstr is "⟦" + msgid + "⟧" (plural forms too, placeholders kept), where the app finds
it through TA_TRANSLATIONS. A page drawn with it shows each word that went through the
catalog inside ⟦…⟧; ``leftovers`` finds the words that did not.

What may stand outside the brackets (the allow-list, kept small on purpose): the names
and room codes of the game being shown and the address of its server (data, never
translated), the language switch's names of the languages (each in itself), and what
is not a letter: digits, clock and bid figures, punctuation and symbols. Any letter of
any script left over is a word that skipped the catalog.
"""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
POT = ROOT / "translations" / "messages.pot"
OPEN, CLOSE = "⟦", "⟧"
LANGUAGE_NAMES = ("English", "한국어")

_INNERMOST = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_LETTER = re.compile(r"[^\W\d_]")


def wrap(text: str) -> str:
    return f"{OPEN}{text}{CLOSE}"


def write_catalog(directory: Path, pot: Path = POT) -> Path:
    """``directory``/en/LC_MESSAGES/messages.mo, every word wrapped; returns ``directory``."""
    with open(pot, "rb") as f:
        template = read_po(f)
    catalog = Catalog(locale="en")
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, (list, tuple)):
            string: str | tuple[str, ...] = tuple(wrap(form) for form in message.id)
        else:
            string = wrap(message.id)
        catalog.add(message.id, string, context=message.context,
                    flags=message.flags - {"fuzzy"})
    out = directory / "en" / "LC_MESSAGES"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "messages.mo", "wb") as f:
        write_mo(f, catalog)
    return directory


def unwrapped(text: str) -> str:
    """``text`` with each ⟦…⟧ segment, the innermost first (a sentence may hold another, and
    may span lines), turned into "▯"."""
    while True:
        shorter = _INNERMOST.sub("▯", text)
        if shorter == text:
            return text
        text = shorter


def leftovers(texts: list[tuple[str, str]], allowed: list[str]) -> list[str]:
    """Each line of ``texts`` ((where, text) pairs) that, with its catalog words made "▯"
    and the ``allowed`` strings gone, still has a letter or a bracket (a catalog word cut
    in two); each once."""
    keep = sorted({a for a in [*allowed, *LANGUAGE_NAMES] if a}, key=len, reverse=True)
    found: dict[str, None] = {}
    for where, text in texts:
        for line in unwrapped(text).splitlines():
            rest = line
            for word in keep:
                rest = rest.replace(word, " ")
            if _LETTER.search(rest) or OPEN in rest or CLOSE in rest:
                found[f"{where}: {' '.join(line.split())[:160]!r}"] = None
    return list(found)


# Everything a person reads or hears on the page as it is now: the visible text, the
# title, and the words of visible elements that are not text nodes (labels, titles,
# alternative text, placeholders, button values, a chart's title and description, the
# options of a select).
TEXTS = """() => {
  const out = [['title', document.title], ['text', document.body.innerText]];
  const shown = (el) => el.checkVisibility({visibilityProperty: true}) ||
                        (el.closest('svg') && el.closest('svg').checkVisibility());
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                       + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ')[0] : '');
  for (const el of document.querySelectorAll('body *')) {
    if (!shown(el)) continue;
    for (const attr of ['aria-label', 'title', 'alt', 'placeholder', 'aria-valuetext']) {
      if (el.hasAttribute(attr)) out.push([attr + ' of ' + name(el), el.getAttribute(attr)]);
    }
    if (el.matches('input[type=submit], input[type=button], input[type=reset]')) out.push(['value of ' + name(el), el.value]);
    if (el.matches('svg title, svg desc')) out.push([name(el) + ' of a chart', el.textContent]);
    // (a select's options are in the text above)
  }
  return out;
}"""


def texts(page) -> list[tuple[str, str]]:
    return [(where, text) for where, text in page.evaluate(TEXTS)]
