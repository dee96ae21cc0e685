"""Nothing left untranslated (issue 30; docs/i18n.md): the template holds exactly the words
the code and templates mark now, every language's catalog translates each of them with the
same placeholders, Korean keeps no English words, and the committed .mo is the .po compiled.

The last test feeds each check a catalog broken on purpose, so none of them can pass by
checking nothing.
"""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog

import catalog_helpers as cat

LANGUAGES = cat.languages()


def test_there_is_a_catalog_to_check():
    assert "ko" in LANGUAGES


def test_the_template_is_what_make_messages_extracts_now():
    """A word marked but missing from messages.pot, or listed there and marked nowhere, means
    `make messages` was not run after the change (and translators never saw the word)."""
    found, warnings = cat.extracted()
    problems = cat.difference(cat.ids(found), cat.ids(cat.read(cat.POT)), "messages.pot")
    assert not problems, "run `make messages`:\n" + "\n".join(problems)


def test_every_marked_word_can_be_extracted():
    """A marked f-string is skipped by the extraction: its words never reach a translator
    (mark a format string and fill it in: RuleError("... %(x)s", x=...))."""
    warnings = cat.extracted()[1]
    assert not warnings, "\n".join(warnings)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_every_word_is_translated(locale):
    catalog = cat.read(cat.po_path(locale), locale)
    problems = cat.difference(cat.ids(cat.read(cat.POT)), cat.ids(catalog), f"{locale}'s .po")
    problems += cat.untranslated(catalog)
    assert not problems, f"{len(problems)} in {locale}:\n" + "\n".join(problems)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_translations_keep_their_placeholders(locale):
    problems = cat.wrong_placeholders(cat.read(cat.po_path(locale), locale))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_committed_mo_is_the_po_compiled(locale):
    po = cat.po_path(locale)
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo.name} missing: run `make messages` and commit it"
    assert mo.read_bytes() == cat.compiled(cat.read(po, locale)), \
        f"{locale}'s messages.mo is not its .po compiled: run `make messages` and commit both"


def test_korean_keeps_no_english_words():
    problems = cat.latin_left(cat.read(cat.po_path("ko"), "ko"))
    assert not problems, f"{len(problems)} Korean translations with English left:\n" + \
        "\n".join(problems)


def test_each_check_finds_what_it_is_for():
    """A catalog with one of each defect, and a template missing a marked word."""
    bad = Catalog(locale="ko")
    bad.add("Hold the button", "버튼을 누르고 있으세요")                  # fine
    bad.add("Leave game", "")                                             # untranslated
    bad.add("Rematch", "재대결", flags=["fuzzy"])                           # fuzzy
    bad.add("%(name)s wins", "%(who)s 승리")                               # renamed placeholder
    bad.add(("%(count)s round", "%(count)s rounds"), ("라운드",))          # lost the count
    bad.add("Next round in {t}", "곧 다음 라운드")                         # lost the script's {t}
    bad.add("Your bank", "Your 보유 시간")                                  # English left
    bad.add("AI player", "AI 플레이어")                                     # allowed
    bad.add("<strong>%(name)s</strong> leads", "<strong>%(name)s</strong> 선두")   # allowed
    bad.obsolete["Old word"] = bad["Hold the button"]
    untranslated = "\n".join(cat.untranslated(bad))
    assert "'Leave game'" in untranslated and "'Rematch'" in untranslated
    assert "'Old word'" in untranslated and "Hold the button" not in untranslated
    wrong = "\n".join(cat.wrong_placeholders(bad))
    assert "%(name)s wins" in wrong and "%(count)s round" in wrong and "{t}" in wrong
    assert "Hold" not in wrong
    latin = cat.latin_left(bad)
    assert len(latin) == 1 and "Your" in latin[0], latin
    good = cat.compiled(bad)
    bad["AI player"].string = "AI 선수"
    assert cat.compiled(bad) != good
    found = {(None, "Hold the button"), (None, "New word")}
    assert cat.difference(found, {(None, "Hold the button"), (None, "Gone")}, "x") == [
        "marked in the code, missing from x: 'New word'", "in x, marked nowhere: 'Gone'"]


def test_extraction_uses_the_makefiles_keywords():
    """The refusals' message classes count as marks, as `make messages` counts them."""
    assert {"RuleError", "NotAllowed", "WrongPhase", "RoomFull"} <= set(cat.makefile_keywords())
