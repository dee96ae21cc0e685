"""The room page and the server's messages in Korean (issue 30), rendered in-process: no
English word left in any phase's parts, no particle after a name (it reads alike for Hangul
and Latin names, the AI players' among them), the
numbers in Korean forms, a rule's refusal translated with its values, a JSON error in the
client's language -- and English exactly as before."""

from __future__ import annotations

import re

import pytest
from test_render import CTX, every_phase

from endgames import play
from auction.game import rules as R
from auction.game.lobby import clean_name
from auction.game.views import view_for
from auction.web import i18n
from auction.web.pages import render, words

KO = {**CTX, "locale": "ko"}
# What may stay Latin in Korean: the players' names, the room code (also spelled out for
# a screen reader), the address a TV opens (data, like the invite link), "AI" and "QR"
# (as Korean says them).
NAMES = ("Ann", "Bob", "Ada", "Boole", "Curie", "Dana", "ABCD", "A B C D", "example.test/tv",
         "AI", "QR")
SHOWN = re.compile(r'(?:aria-label|title|placeholder|data-say|data-text)="([^"]*)"')


def latin_left(html: str) -> list[str]:
    """The Latin words a Korean reader would see or hear in ``html``."""
    said = " ".join([re.sub(r"<[^>]+>", " ", html), *SHOWN.findall(html)])
    said = re.sub(r"\{\w+\}", "", said)          # a script's placeholder: {t} is the number
    for name in NAMES:
        said = said.replace(name, "")
    return re.findall(r"[A-Za-z]+", said)


@pytest.mark.parametrize("settings", [{}, {"free_ms": 0, "tie": "margin", "own_bank": "hidden",
                                           "reveal": "all_bids"}])
def test_every_phase_of_the_room_reads_korean(settings):
    for phase, game in every_phase(**settings):
        for pid in ("p1", "p2", None):
            view = view_for(game, pid, 0)
            for name, html in render.partials(view, KO).items():
                assert not latin_left(html), (phase, pid, name, latin_left(html))
            page = render.page(view, {**KO, "join": {}})
            room = page[page.index('<div class="room"'):page.index('<p class="toast"')]
            room = re.sub(r"<(noscript|svg)\b.*?</\1>", "", room, flags=re.S)  # JavaScript; QR's own
            assert not latin_left(re.sub(r"\s(?:hx|sse)-[a-z]+='[^']*'", "", room)), phase


def test_the_end_reads_korean_for_every_verdict():
    for rounds, kw in (([{}], {}), ([{"p1": 1_000}], {}), ([{"p1": 1_000, "p2": 1_000}],
                                                          {"tie_rule": "all"})):
        game = play(("Ann", "Bob", "Dana"), rounds, **kw)
        for pid in ("p1", "p3", None):
            parts = render.partials(view_for(game, pid, 0), KO)
            for name in ("announce", "status", "final"):
                assert not latin_left(parts[name]), (name, latin_left(parts[name]))


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


# Undecided particles ("이(가)", "은(는)", ...): no sentence puts one after a name any more.
UNDECIDED = re.compile(r"이\(가\)|은\(는\)|을\(를\)|과\(와\)|\(으\)로|아\(야\)|\(이\)나")


def test_no_particle_after_a_name_so_hangul_and_latin_names_read_alike():
    """Issue 44: "Ada이(가) 우승했어요" in every solo game (the AI players are Ada, Boole, Curie,
    Dirac). A Korean sentence names a player where no particle follows: a headline ("Ada 우승!"),
    after a colon, or before a word that fits any name ("모두", "의")."""
    for names in (("민수", "지연", "Ann"), ("Ann", "Bob", "Dana")):
        for winner in ("p1", "p2", "p3"):
            won = play(names, [{winner: 1_000}], bots=("easy",))
            for viewer in ("p1", None):
                for part, html in render.partials(view_for(won, viewer, 0), KO).items():
                    assert not UNDECIDED.search(text(html)), (part, text(html))
    won = play(("민수", "지연", "Ann"), [{"p1": 1_000}])
    assert "민수 우승!" in text(render.partials(view_for(won, "p2", 0), KO)["final"])
    # Your own name carries its mark: "민수 (나) 우승!".
    assert "민수 (나) 우승!" in text(render.partials(view_for(won, "p1", 0), KO)["final"])
    won = play(("민수", "지연", "Ann"), [{"p2": 1_000}])
    assert "지연 우승!" in text(render.partials(view_for(won, None, 0), KO)["announce"])
    won = play(("민수", "지연", "Ann"), [{"p3": 1_000}])
    assert "Ann 우승!" in text(render.partials(view_for(won, None, 0), KO)["final"])
    ai = play(("민수", "지연"), [{"b3": 1_000}], bots=("easy",))
    assert "Ada 우승!" in text(render.partials(view_for(ai, "p1", 0), KO)["final"])
    tied = play(("민수", "지연", "철수"), [{}])
    assert "1위 3명 동점: 민수, 지연, 철수 — 그래서 우승자가 없어요." in \
        text(render.partials(view_for(tied, None, 0), KO)["final"])


def test_numbers_and_durations_in_korean():
    assert words.secs(12_345, "ko") == "12.3초" and words.secs(99, "ko") == "0.0초"
    assert words.duration(90_000, "ko") == "1분 30초" and words.duration(600_000, "ko") == "10분"
    assert words.duration(5_000, "ko") == "5초" and words.duration(100, "ko") == "0.1초"
    assert words.margin(50, "ko") == "0.05초" and words.margin(1_000, "ko") == "1초"
    assert words.clock(587_399, "ko") == "9:47.3" and words.tenths(12_345, "ko") == "12.3"
    assert words.plural(19, "round", locale="ko") == "19라운드"
    assert words.plural(1, "token", locale="ko") == "토큰 1개"
    assert words.names(["민수", "지연", "철수"], locale="ko") == "민수, 지연, 철수"
    assert words.names(["Ann", "Boole"], locale="ko") == "Ann, Boole"
    # The fitting itself stays, for a word a sentence may still put a particle after.
    assert i18n.particles("철수이(가) 지연은(는)") == "철수가 지연은"
    assert ("bank_ms", "10분") not in render.choices("bank_ms", 600_000, locale="ko")
    assert (600_000, "10분") in render.choices("bank_ms", 600_000, locale="ko")
    assert (50, "0.05초") in render.choices("tie_margin_ms", 100, locale="ko")


def test_english_forms_stay_as_they_were():
    assert words.secs(12_345) == "12.3 s" and words.duration(90_000) == "1 min 30 s"
    assert words.margin(50) == "50 ms" and words.tenths(4_199) == "4.1"
    assert words.plural(2, "round") == "2 rounds" and words.names(["Ann", "Bob"]) == "Ann and Bob"
    assert (50, "50 ms") in render.choices("tie_margin_ms", 100)
    assert ("tenth", "same tenth of a second") in render.choices("tie", "tenth")


def test_a_rule_error_carries_its_values_and_is_said_in_korean():
    with pytest.raises(R.RuleError) as caught:
        clean_name("x" * 30)
    exc = caught.value
    assert str(exc) == "a name has at most 24 characters"                   # English, as ever
    assert exc.message == "a name has at most %(max)s characters" and exc.params == {"max": 24}
    assert words.refusal(exc, "en") == "a name has at most 24 characters"
    assert words.refusal(exc, "ko") == "이름은 24자까지예요"
    bad = R.InvalidSettings("%(setting)s must be a whole number", setting="rounds")
    assert str(bad) == "rounds must be a whole number"
    assert words.refusal(bad, "ko") == "라운드 수 값은 정수여야 해요"          # the card's own name
    taken = R.NameTaken("“%(name)s” is taken in this room; pick another name", name="민수")
    assert words.refusal(taken, "ko").startswith("이 방에 이미 있는 이름이에요: “민수”")
    taken = R.NameTaken("“%(name)s” is taken in this room; pick another name", name="Alex")
    assert words.refusal(taken, "ko").startswith("이 방에 이미 있는 이름이에요: “Alex”")


KOREAN = {"Accept": "application/json", "Accept-Language": "ko-KR,ko;q=0.9"}


def test_a_json_error_is_in_the_clients_language(client):
    english = client.post("/rooms", json={"name": ""}, headers={"Accept": "application/json"})
    assert english.status_code == 400 and english.get_json() == {"error": "a name is needed"}
    korean = client.post("/rooms", json={"name": ""}, headers=KOREAN)
    assert korean.status_code == 400 and korean.get_json() == {"error": "이름을 입력하세요"}
    long = client.post("/rooms", json={"name": "가" * 30}, headers=KOREAN)
    assert long.get_json() == {"error": "이름은 24자까지예요"}
    missing = client.get("/r/ZZZZ/state", headers=KOREAN)
    assert missing.status_code == 404 and missing.get_json() == {"error": "그런 방은 없어요"}


@pytest.mark.parametrize("locale, sound, bank", [
    ("en", ("Sound: on", "Sound: off"), ("Show my bank: on", "Show my bank: off")),
    ("ko", ("소리: 켬", "소리: 끔"), ("내 보유 시간 보기: 켬", "내 보유 시간 보기: 끔"))])
def test_a_switch_says_its_state_in_words(locale, sound, bank):
    """The sound and bank switches carry both states as words (CSS shows the one that holds):
    a switch whose state is only a colour, or only English, leaves a player guessing."""
    game = dict(every_phase(own_bank="toggle"))["countdown"]
    page = render.page(view_for(game, "p1", 0), {**CTX, "locale": locale, "join": {}})
    for marker, states in (("data-sound", sound), ("data-bank-toggle", bank)):
        button = re.search(rf"<button[^>]*{marker}[^>]*>(.*?)</button>", page, re.S).group(1)
        on = re.sub(r'<span class="state-off">.*?</span>', "", button)
        off = re.sub(r'<span class="state-on">.*?</span>', "", button)
        assert (text(on), text(off)) == states, (marker, button)
