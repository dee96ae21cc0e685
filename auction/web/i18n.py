"""Which language a device reads, and the catalogs that say it (docs/i18n.md).

English is written in the code and the templates; every other language is a gettext
catalog in translations/ (Korean today). A device's language is the one it chose with
the switch on every page (the ``ta_lang`` cookie), else the best of its browser's
``Accept-Language``, else English. Flask-Babel picks it for each request; the room's
streams are drawn long after their request, so they carry the language they were
opened in (render.py draws each part in that language's own Jinja environment).

Names and room codes are never translated: they are data, not words.
"""

from __future__ import annotations

import os
import re
from functools import cache
from urllib.parse import quote

from babel.support import NullTranslations, Translations
from flask import Flask, has_request_context, request
from flask_babel import Babel, get_locale
from tossi import postfix

from . import config

LOCALES = ("en", "ko")
DEFAULT = "en"
COOKIE = "ta_lang"
# What the switch calls each language, in itself (never translated).
NAMES = {"en": "English", "ko": "한국어"}

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The catalogs; TA_TRANSLATIONS (config.py) points elsewhere (the tests' pseudo-English catalog).
TRANSLATIONS = config.TRANSLATIONS or os.path.join(_ROOT, "translations")


def choose() -> str:
    """This request's language: the device's choice, else its browser's, else English."""
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LOCALES:
        return chosen
    return request.accept_languages.best_match(LOCALES, DEFAULT) or DEFAULT


def current() -> str:
    """The language of the request being answered (English outside one)."""
    if not has_request_context():
        return DEFAULT
    locale = get_locale()
    return str(locale.language) if locale is not None else DEFAULT


@cache
def translations(locale: str) -> NullTranslations:
    """The catalog of ``locale`` (English: the pseudo catalog if one is installed)."""
    return Translations.load(TRANSLATIONS, [locale], domain="messages")


def gettext(locale: str, message: str, **values: object) -> str:
    """``message`` in ``locale``, with %(name)s values filled in and particles fitted."""
    text = translations(locale).gettext(message)
    if values:
        text = text % values
    return particles(text) if locale == "ko" else text


# Korean particles that depend on the word before them: a catalog writes the
# undecided form, "%(word)s이(가)", and the word decides once it is filled in
# (tossi: "민수가", "지연이"; a Latin word keeps "Ann이(가)"). No Korean sentence puts one
# after a player's name any more (docs/i18n.md): "Ada이(가) 우승했어요" read awkwardly in
# every solo game, whose AI players are Ada, Boole, Curie and Dirac.
# The word may be a bracketed one: "민수 <span>(나)</span>가" (render.py marks your own name so).
# Its length is bounded (a name has at most 24 characters; only its last sound counts): an
# unbounded run made the search quadratic in a page's longest unbroken text, the QR code's
# path (about a second per room page).
_PARTICLE = re.compile(r"(?P<word>\([^\s<>()]{1,32}\)|[^\s<>()]{1,32})(?P<tags>(?:<[^>]*>)*)"
                       r"(?P<p>이\(가\)|은\(는\)|을\(를\)|과\(와\)|\(으\)로|아\(야\)|\(이\)나)")


def particles(text: str) -> str:
    """``text`` with each undecided particle fitted to the word it follows."""
    def fit(match: re.Match[str]) -> str:
        word = match["word"]
        fitted = postfix(word, match["p"])
        return fitted[:len(word)] + match["tags"] + fitted[len(word):]
    return _PARTICLE.sub(fit, text)


# What may stay as written in a path and a query the switch comes back to (RFC 3986's
# unreserved and sub-delimiters, "%" of what is already escaped).
_PATH_KEEP = "/:@!$&'()*+,;=-._~%"
_QUERY_KEEP = _PATH_KEEP + "?"


def here() -> str:
    """The page being drawn, for the switch to come back to, percent-encoded: the switch
    comes back only to printable ASCII (pages.page_of_this_site), and Werkzeug hands the
    path over decoded (a "no such page" may be at /café, or hold a space)."""
    if not has_request_context():
        return "/"
    path = quote(request.path, safe=_PATH_KEEP)
    query = quote(request.query_string.decode("utf-8", "replace"), safe=_QUERY_KEEP)
    return f"{path}?{query}" if query else path


def init(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", TRANSLATIONS)
    Babel(app, locale_selector=choose)


def switch_cookie(response, locale: str):
    """``response`` that also remembers this device's language for a year."""
    from .door.identity import secure

    response.set_cookie(COOKIE, locale, max_age=365 * 86400, httponly=True, samesite="Lax",
                        secure=secure())
    return response
