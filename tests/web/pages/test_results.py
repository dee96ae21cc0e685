"""After the game, through a real server and Redis: results only once it has ended, the
JSON and CSV exports, each device's recent games, and the rematch."""

from __future__ import annotations

import csv
import io
import threading
import time

import pytest
import redis
import requests

from auction.server import store
from auction.server.store import ENDED_TTL_S
import client
from client import Player

SHORT = {"rounds": 1, "bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 0, "result_ms": 2_000,
         "reveal": "winner", "own_bank": "hidden"}


@pytest.fixture(scope="module")
def game(server):
    """One finished game: Ann (host) bids, Bob sits out, an easy AI plays as it likes."""
    ann, bob = Player(server.url), Player(server.url)
    for p in (ann, bob):        # these outlive one test: this fixture closes them
        client.OPEN.remove(p)
    code = ann.create("Ann", "quick")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    ann.post(f"/r/{code}/settings", SHORT)
    for p in (ann, bob):
        p.follow()
    ann.post(f"/r/{code}/start")
    ann.wait_view(lambda v: v["phase"] == "countdown")
    hold = ann.press()
    assert hold.accepted, hold.first
    ann.wait_view(lambda v: v["phase"] in ("spending", "result"))
    time.sleep(0.4)
    hold.release()
    ends = [p.wait_view(lambda v: v["phase"] == "ended", timeout=60) for p in (ann, bob)]
    yield {"code": code, "ann": ann, "bob": bob, "ends": ends}
    for p in (ann, bob):
        p.stop()


def get(player_or_url, path, accept="application/json"):
    if isinstance(player_or_url, Player):
        return player_or_url.http.get(player_or_url.base + path, headers={"Accept": accept},
                                      timeout=10)
    return requests.get(player_or_url + path, headers={"Accept": accept}, timeout=10)


def test_a_running_game_has_no_results_yet(server):
    ann, bob = Player(server.url), Player(server.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    base = f"/r/{code}/results"
    for stage in ("lobby", "running"):
        for who in (ann, bob, server.url):
            for path in (base, base + ".json", base + ".csv"):
                answer = get(who, path)
                assert answer.status_code == 404, (stage, path)
                assert answer.json() == {"error": "the game is not finished yet: results "
                                                  "appear when it ends"}
            page = get(who, base, accept="text/html")
            assert page.status_code == 404 and "not finished" in page.text
            assert "class=\"chart" not in page.text and "Ann" not in page.text
        if stage == "lobby":
            ann.post(f"/r/{code}/settings", {"ready_ms": 10_000})
            ann.post(f"/r/{code}/start")
            assert ann.state()["phase"] == "countdown"
    assert get(server.url, "/r/QQQQ/results").status_code == 404


def test_the_json_export_is_the_final_view(game, server):
    code, ann, bob = game["code"], game["ann"], game["bob"]
    for player, end in zip((ann, bob), game["ends"]):
        exported = get(player, f"/r/{code}/results.json")
        assert exported.status_code == 200
        assert exported.json() == end == player.state()
        assert get(player, f"/r/{code}/results").json() == end
    stranger = get(server.url, f"/r/{code}/results.json").json()
    assert stranger["me"] is None
    assert stranger["final"] == game["ends"][0]["final"]
    final = stranger["final"]
    ann_id = game["ends"][0]["me"]["id"]
    assert final["bids"][0]["bids"][ann_id] is not None        # Ann bid
    assert final["bids"][0]["bids"][game["ends"][1]["me"]["id"]] is None   # Bob sat out


def test_the_csv_export_says_what_the_json_says(game, server):
    code = game["code"]
    answer = get(server.url, f"/r/{code}/results.csv", accept="text/csv")
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/csv")
    assert f"time-auction-{code}.csv" in answer.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    view = get(server.url, f"/r/{code}/results.json").json()
    players = {p["id"]: p for p in view["players"]}
    assert {r["player_id"] for r in rows} == set(players) and len(rows) == len(players)
    standings = {s["id"]: s for s in view["final"]["standings"]}
    for r in rows:
        pid = r["player_id"]
        bid = view["final"]["bids"][0]["bids"][pid]
        assert r["code"] == code and r["round"] == "1" and r["name"] == players[pid]["name"]
        assert r["bid_ms"] == ("" if bid is None else str(bid))
        assert int(r["bank_after_ms"]) == standings[pid]["bank_ms"]
        assert int(r["tokens_after"]) == standings[pid]["tokens"] == players[pid]["tokens"]
        assert int(r["place"]) == standings[pid]["place"]
        assert r["bot"] == str(int(players[pid]["bot"]))
        assert {k[8:]: v for k, v in r.items() if k.startswith("setting_")} == \
            {k: str(v) for k, v in view["settings"].items()}


def test_the_results_page_shows_standings_bids_and_charts(game, server):
    page = get(server.url, f"/r/{game['code']}/results", accept="text/html")
    assert page.status_code == 200
    html = page.text
    assert html.count('<svg class="chart ') == 3
    assert "Final standings" in html and "Every bid" in html and "Ann" in html
    assert f"/r/{game['code']}/results.csv" in html and 'id="share-results"' in html
    assert "<style" not in html and " style=" not in html and "<script>" not in html


def test_your_games_are_kept_under_the_device_digest_only(game, server, redis_url):
    code, ann = game["code"], game["ann"]
    home = get(ann, "/", accept="text/html").text
    assert "Your games" in home and f'href="/r/{code}/results"' in home
    assert "you came" in home
    assert f"/r/{code}/results" not in get(server.url, "/", accept="text/html").text
    r = redis.Redis.from_url(redis_url)
    keys = [k for k in r.scan_iter("ta:games:*") if r.zscore(k, code) is not None]
    assert len(keys) == 2                                    # Ann's and Bob's devices
    secrets = [c.value for p in (ann, game["bob"]) for c in p.http.cookies]
    for key in keys:
        assert not any(s in key.decode() for s in secrets)
        assert all(s.encode() not in m for s in secrets for m in r.zrange(key, 0, -1))
        assert ENDED_TTL_S - 120 < r.ttl(key) <= ENDED_TTL_S


def test_the_rematch_seats_the_same_table_and_every_stream_follows(game, server):
    code, ann, bob = game["code"], game["ann"], game["bob"]
    before = ann.state()
    refused = bob.post(f"/r/{code}/rematch", expect=403)
    assert refused.json()["error"]
    assert ann.state() == before and before["rematch"] is None
    stranger = Player(server.url)
    stranger.code = code
    stranger.post(f"/r/{code}/rematch", expect=403)
    new = ann.post(f"/r/{code}/rematch", expect=201).json()["code"]
    assert new != code
    assert ann.post(f"/r/{code}/rematch", expect=201).json()["code"] == new   # a double tap
    assert bob.post(f"/r/{code}/rematch", expect=201).json()["code"] == new   # "take me there"
    for p in (ann, bob):
        assert p.wait_view(lambda v: v["rematch"] == new, timeout=10)["phase"] == "ended"
        p.code = new
    old_players = game["ends"][0]["players"]
    for p, name in ((ann, "Ann"), (bob, "Bob")):
        view = p.state()
        assert view["phase"] == "lobby" and view["me"]["name"] == name
        assert view["me"]["host"] == (name == "Ann")
        assert view["settings"] == game["ends"][0]["settings"]
        assert [(q["name"], q["bot"], q["difficulty"]) for q in view["players"]] == \
            [(q["name"], q["bot"], q["difficulty"]) for q in old_players]
    assert get(server.url, f"/r/{code}/results.json").json()["rematch"] == new
    # The new room plays: the host can start it at once, with the seats it got.
    assert ann.post(f"/r/{new}/start").json()["phase"] == "countdown"


# Every room's record, whatever its shard's hash tag (store.py names the keys).
ROOMS = store.room_key("*").replace(store.TAGS[store.shard("*")], "*")


def test_a_rematch_before_the_end_is_refused_and_creates_nothing(server, redis_url):
    ann, bob = Player(server.url), Player(server.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    r = redis.Redis.from_url(redis_url)
    rooms_before = set(r.scan_iter(ROOMS))
    assert ann.post(f"/r/{code}/rematch", expect=409).json()["error"]
    ann.post(f"/r/{code}/start")
    assert ann.post(f"/r/{code}/rematch", expect=409).json()["error"]
    assert set(r.scan_iter(ROOMS)) - rooms_before == set()
    assert ann.state()["rematch"] is None


def test_racing_rematch_taps_open_one_room(server, redis_url):
    ann, bob = Player(server.url), Player(server.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", {"rounds": 1, "ready_ms": 2_000, "result_ms": 2_000})
    ann.follow()
    ann.post(f"/r/{code}/start")          # nobody presses: the round ends at go
    ann.wait_view(lambda v: v["phase"] == "ended", timeout=20)
    r = redis.Redis.from_url(redis_url)
    rooms_before = set(r.scan_iter(ROOMS))
    codes, barrier = [], threading.Barrier(4)

    def tap():
        barrier.wait()
        codes.append(ann.post(f"/r/{code}/rematch", expect=201).json()["code"])
    taps = [threading.Thread(target=tap) for _ in range(4)]
    for t in taps:
        t.start()
    for t in taps:
        t.join(20)
    assert len(codes) == 4 and len(set(codes)) == 1
    assert {k.decode() for k in set(r.scan_iter(ROOMS)) - rooms_before} == \
        {store.room_key(codes[0])}
