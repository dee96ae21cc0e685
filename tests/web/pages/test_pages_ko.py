"""The pages that are not the room, in Korean: home, rules, strategy, offline, a missing room,
an error, the results, the big screen in each phase, the charts, the manifest, the service
worker and the scripts' words. Each is drawn the way a phone set to Korean gets it, and what
a reader (or a screen reader) meets has no English left but names, codes and "AI".
English stays as it was: a few of its sentences are checked word for word."""

from __future__ import annotations

import html as htmllib
import json
import re
from pathlib import Path

import pytest

from endgames import DRY, play
from auction.game import rules as R
from auction.game.charts import charts
from auction.game.views import view_for
from auction.web import i18n
from auction.web.pages import render
from auction.web.pages.screen import PARTS as SCREEN_PARTS

KO = {"Accept-Language": "ko-KR,ko;q=0.9"}
CTX = {"code": "ABCD", "csrf_token": "tok", "invite_url": "http://example.test/r/ABCD",
       "share_url": "http://example.test/r/ABCD/results"}
PLAYERS = ("Ann", "Bob", "민수", "지연")
# What may stay in Latin letters on a Korean page: the players' names, room codes, the other
# language's own name on the switch, "AI" and "QR" (as Korean says them), the downloads'
# formats, and what was typed (the refused code "ab1").
ALLOWED = {"Ann", "Bob", "Cy", "ABCD", "ZZZZ", "KHMP", "AI", "English", "CSV", "JSON", "QR", "ab"}
SCRIPTS = ("clock.js", "app.js", "hold.js", "feel.js", "practice.js", "results.js")
STATIC = Path(render.STATIC)


def read(html: str) -> str:
    """What a reader meets: the text, the SVGs' titles and descriptions (they are text), and
    the labels a screen reader says (aria-label, title, alt, placeholder); not the scripts' data."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<head>.*?</head>", lambda m: " ".join(re.findall(r"<title>(.*?)</title>",
                                                                      m.group(0), re.S)), html,
                  flags=re.S)
    said = re.findall(r'\s(?:aria-label|title|alt|placeholder)="([^"]*)"', html)
    text = re.sub(r"<[^>]+>", " ", html)
    return htmllib.unescape(" ".join([text, *said]))


def english_left(html: str) -> set[str]:
    """Latin words on the page that are not names or codes (URLs aside)."""
    text = re.sub(r"\bhttps?://\S+|\b\w+\.test/\S*", " ", read(html))
    return {word for word in re.findall(r"[A-Za-z][A-Za-z'’]+", text) if word not in ALLOWED}


def ended_game() -> R.Game:
    return play(PLAYERS, [{"p2": 1_000, "p3": 500}, {"p1": DRY}, {"p4": 2_000, "p3": None}])


def screen(game: R.Game, now: int = 0) -> str:
    return render.page(view_for(game, None, now), {**CTX, "locale": "ko"}, "screen.html",
                       SCREEN_PARTS, "screen")


@pytest.mark.parametrize("path", ["/", "/rules", "/strategy", "/offline", "/r/ZZZZ",
                                  "/join?code=ab1"])
def test_a_korean_phone_reads_each_page_in_korean(client, path):
    page = client.get(path, headers=KO)
    assert '<html lang="ko">' in page.text
    assert english_left(page.text) == set(), path
    assert "시간 경매" in page.text                  # the brand is said in Korean too


def test_the_results_page_and_its_charts_in_korean():
    page = render.page_of("results.html", view_for(ended_game(), "p1", 0), {**CTX, "locale": "ko"})
    assert english_left(page) == set()
    assert "방 <span class=\"code\">ABCD</span> 결과" in page
    # The charts' spoken descriptions: the name first, then a colon, so no particle follows it.
    assert "<title id=\"chart-bank-title\">라운드별 남은 시간</title>" in page
    assert "민수: " in page and "Ann: 2라운드에서 시간이 바닥났어요" in page


def test_the_big_screen_in_korean_in_every_phase():
    game = R.new_game("ABCD", "auction")
    for name in ("Ann", "민수", "Cy"):
        game, _ = R.apply(game, R.Join(name), 0)
    lobby = screen(game)
    # Its own language, and a quiet switch while people gather, that comes back to the screen.
    assert 'href="/lang/en?next=/r/ABCD/screen"' in lobby
    pages = [lobby]
    game, _ = R.apply(game, R.Start("p1"), 1_000)
    pages.append(screen(game, game.current.start_ms + 5))
    game, _ = R.apply(game, R.Press("p1"), game.current.start_ms + 10)
    game, _ = R.apply(game, R.Tick(), game.current.go_ms)
    free = screen(game, game.current.go_ms + 5)
    # The free window's tenths stand alone inside the ring, the sentence under it.
    assert 'class="timer tv-free"' in free
    # The last one lets go in the free window: the round is over, and the next one is
    # announced -- app.js puts the seconds where {t} is, wherever the sentence has it.
    released = game.current.go_ms + 10
    game, _ = R.apply(game, R.Release("p1"), released)
    over = screen(game, released + 10)
    assert 'data-phase="result"' in over
    assert re.search(r'data-say="[^"]*\{t\}[^"]*[가-힣][^"]*"', over)
    pages += [free, over, screen(ended_game())]
    for page in pages:
        assert english_left(page) == set()


def test_the_scripts_words_come_from_the_page_in_its_language(client):
    def words(headers):
        page = client.get("/rules", headers=headers).text
        return json.loads(re.search(r'<script type="application/json" id="ta-words">(.*?)</script>',
                                    page, re.S).group(1))
    en, ko = words({"Accept-Language": "en"}), words(KO)
    assert en.keys() == ko.keys()
    assert en["secs"] == "{s} s" and ko["secs"] == "{s}초"
    assert en["lineIdle"] == "Hold now to enter round {round}."
    assert all(re.search(r"[가-힣]", value) for value in ko.values()), ko
    assert "\\u" not in client.get("/", headers=KO).text   # Hangul as itself, not escaped
    # The scripts write no word of their own: no English phrase in a string of theirs.
    for name in SCRIPTS:
        source = (STATIC / name).read_text()
        phrases = re.findall(r"'([A-Z][a-z]+[ ,.…!][^']*|[^']* s)'", source)
        assert phrases == [], (name, phrases)


def test_the_charts_speak_the_language_they_are_given():
    view = view_for(ended_game(), "p1", 0)
    english = charts(view)
    assert "Everyone started with 10:00.0. Ann ran out of time in round 2;" in english["bank"]
    assert '>round</text>' in english["tokens"]
    korean = charts(view, _=i18n.translations("ko").gettext)
    assert "모두 보유 시간 10:00.0에서 시작했어요." in korean["bank"]
    assert '>라운드</text>' in korean["tokens"] and "round" not in korean["bids"]


def test_the_manifest_and_the_service_worker_follow_the_device(client):
    ko = client.get("/manifest.webmanifest", headers=KO)
    assert ko.get_json()["lang"] == "ko" and ko.get_json()["name"] == "시간 경매"
    assert "Accept-Language" in ko.headers["Vary"]
    en = client.get("/manifest.webmanifest", headers={"Accept-Language": "en"}).get_json()
    assert en["name"] == "Time Auction" and en["lang"] == "en"
    assert en["description"] == "A bidding game where the currency is time."
    sw = client.get("/sw.js", headers=KO)
    assert f"'ta-{render.BUILD}-ko'" in sw.text and "오프라인" in sw.text
    assert "Accept-Language" in sw.headers["Vary"]
