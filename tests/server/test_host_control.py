"""Rooms a host controls, against a real server: the lock, kicks that hold against a
new device, a rematch only the last table sits in, and names that cannot pass for
someone else's (issue 26, item 11)."""

from __future__ import annotations

import re

import pytest

from client import Player

# A game that ends by itself in about five seconds: one round nobody holds.
SHORT = {"rounds": 1, "bank_ms": 30_000, "ready_ms": 2_000, "free_ms": 0, "result_ms": 2_000,
         "min_players": 2}


def names(player: Player) -> list[str]:
    return [p["name"] for p in player.state()["players"]]


def refused(player: Player, path: str, body: dict, status: int, words: str) -> None:
    response = player.post(path, body, expect=None)
    assert response.status_code == status, (response.status_code, response.text)
    assert words in response.json()["error"], response.text


@pytest.fixture
def room(server):
    """Ann hosts, Bob sits in a lobby."""
    ann, bob = Player(server.url), Player(server.url)
    code = ann.create("Ann")
    bob.join(code, "Bob")
    return code, ann, bob


# -- 1. a kick holds against a new device ----------------------------------------


def test_a_kicked_player_cannot_come_back_on_a_new_device(server, room):
    code, ann, bob = room
    ann.post(f"/r/{code}/kick", {"player": "p2"})
    again = Player(server.url)          # a new cookie: another browser, or the same one cleared
    again.code = code
    refused(again, f"/r/{code}/join", {"name": "Bob"}, 403, "locked")
    refused(again, f"/r/{code}/join", {"name": "Robert"}, 403, "locked")
    assert names(ann) == ["Ann"]        # zero gain: no seat for the kicked player
    assert ann.state()["locked"] is True      # the lock shows as on after the kick
    # The host opens the room knowingly: a newcomer joins; the kicked device stays out.
    assert ann.post(f"/r/{code}/lock", {"locked": False}).json()["locked"] is False
    refused(bob, f"/r/{code}/join", {"name": "Bob"}, 403, "removed")
    assert again.join(code, "Cy")["me"]["name"] == "Cy"
    assert names(ann) == ["Ann", "Cy"]


def test_the_host_locks_and_opens_the_room(server, room):
    code, ann, bob = room
    view = ann.post(f"/r/{code}/lock", {"locked": True}).json()
    assert view["locked"] is True and bob.state()["locked"] is True
    stranger = Player(server.url)
    stranger.code = code
    refused(stranger, f"/r/{code}/join", {"name": "Cy"}, 403, "locked")
    assert names(ann) == ["Ann", "Bob"]
    # A device already seated is not a new join: it keeps its seat.
    assert bob.join(code, "Bob")["me"]["name"] == "Bob"
    refused(bob, f"/r/{code}/lock", {"locked": False}, 403, "host")
    assert ann.state()["locked"] is True
    for bad in ({}, {"locked": "maybe"}, {"locked": 1}, {"locked": ["no"]}):
        refused(ann, f"/r/{code}/lock", bad, 400, "locked")
    assert ann.state()["locked"] is True
    ann.post(f"/r/{code}/lock", {"locked": False})
    assert stranger.join(code, "Cy")["me"]["name"] == "Cy"


def test_the_lock_is_a_plain_form_in_the_hosts_lobby_and_a_notice_for_a_newcomer(server, room):
    code, ann, bob = room
    page = lambda who: who.http.get(f"{server.url}/r/{code}", headers={"Accept": "text/html"},
                                    timeout=10).text   # noqa: E731
    mine = page(ann)
    assert "Lock the room" in mine and 'name="locked" value="true"' in mine
    assert "Lock the room" not in page(bob)          # only the host has the toggle
    token = re.search(r'name="csrf_token" value="([^"]+)"', mine).group(1)
    # Without JavaScript: a form post and a 303 back to the room.
    answer = ann.http.post(f"{server.url}/r/{code}/lock",
                           data={"locked": "true", "csrf_token": token},
                           headers={"Accept": "text/html"}, allow_redirects=False, timeout=10)
    assert answer.status_code == 303 and ann.state()["locked"] is True
    mine = page(ann)
    assert "Open the room" in mine and "Locked: nobody new can join" in mine
    stranger = Player(server.url)
    theirs = page(stranger)
    assert "locked this room" in theirs and 'id="join-name"' not in theirs


def test_a_game_under_way_still_answers_404(server, room):
    code, ann, bob = room
    ann.post(f"/r/{code}/settings", {"min_players": 2})
    ann.post(f"/r/{code}/start")
    late = Player(server.url)
    late.code = code
    refused(late, f"/r/{code}/join", {"name": "Cy"}, 404, "no such room")
    refused(late, f"/r/{code}/join", {"name": "\u200b"}, 404, "no such room")   # whatever the name
    refused(ann, f"/r/{code}/lock", {"locked": True}, 409, "started")


# -- 2. a rematch seats only the last game's players ------------------------------


def test_a_stranger_cannot_take_a_seat_in_the_rematch(server, room):
    code, ann, bob = room
    ann.post(f"/r/{code}/settings", SHORT)
    ann.follow()
    ann.post(f"/r/{code}/start")
    ann.wait_view(lambda v: v["phase"] == "ended", timeout=30)
    new = ann.post(f"/r/{code}/rematch", expect=201).json()["code"]
    stranger = Player(server.url)
    found = stranger.http.get(f"{server.url}/r/{code}/results.json", timeout=10).json()
    assert found["rematch"] == new      # the results are public, and so is the code
    stranger.code = new
    refused(stranger, f"/r/{new}/join", {"name": "Eve"}, 403, "locked")
    ann.code = bob.code = new
    assert names(ann) == ["Ann", "Bob"]
    assert ann.state()["locked"] is True
    assert bob.join(new, "Bob")["me"]["name"] == "Bob"     # the table is seated already
    # The host may open it like any lobby.
    ann.post(f"/r/{new}/lock", {"locked": False})
    assert stranger.join(new, "Eve")["me"]["name"] == "Eve"


# -- 3. names that pass for someone else, or for nothing --------------------------


@pytest.mark.parametrize("name, words", [
    ("Al\u200bice", "invisible"),          # a zero-width space inside
    ("\u0410lice", "looks like"),          # Cyrillic A
    ("\u202eecilA", "invisible"),          # right-to-left override: shows as "Alice"
    ("\u200b", "invisible"),               # nothing visible at all
    ("Ali\x00ce", "invisible"),            # NUL
    ("\u3164", "invisible"),               # Hangul filler: a letter that draws nothing
    ("\uff21\uff4c\uff49\uff43\uff45", "taken"),   # fullwidth: NFKC makes it Alice
    ("ALICE", "taken"),
    ("Al\u0456ce", "looks like"),          # Cyrillic i
    ("Alice\ufe0f", "invisible"),          # a variation selector (a mark) that draws nothing
    ("Ali\u0307ce", "looks like"),         # a dot above the i's own dot
    ("\u00c0lice", "looks like"),          # an accent is all that tells them apart
])
def test_a_name_that_passes_for_another_or_for_nothing_is_refused(server, name, words):
    ann, alice = Player(server.url), Player(server.url)
    code = ann.create("Ann")
    alice.join(code, "Alice")
    before = ann.state()
    other = Player(server.url)
    other.code = code
    refused(other, f"/r/{code}/join", {"name": name}, 400, words)
    assert ann.state() == before


def test_names_of_every_script_and_the_ai_players_still_join(server):
    ann = Player(server.url)
    code = ann.create("Ann")
    for name in ("Zo\u00eb", "\u674e\u96f7", "\u0410\u043d\u044f", "J\u00fcrgen \U0001f600"):
        Player(server.url).join(code, name)
    ann.post(f"/r/{code}/bots", {"action": "add"})
    assert names(ann) == ["Ann", "Zo\u00eb", "\u674e\u96f7", "\u0410\u043d\u044f",
                          "J\u00fcrgen \U0001f600", "Ada"]
    # A look-alike of an AI player's name is refused before the AI could take it.
    refused(Player(server.url), f"/r/{code}/join", {"name": "B\u043e\u043ele"}, 400,
            "looks like")
    # An accent alone at its table, and an emoji as a phone's keyboard writes it (with the
    # emoji presentation selector), sit down.
    other = Player(server.url).create("Jos\u00e9")
    assert Player(server.url).join(other, "Cy \u2764\ufe0f")["me"]["name"] == "Cy \u2764\ufe0f"


# -- the skeletons themselves (auction/server/names.py, no server) ------------------------


def test_skeletons_follow_tr39_and_spare_everyday_names():
    from auction.server import names
    assert names.skeleton("\u0410lice") == names.skeleton("Alice")          # Cyrillic A
    assert names.skeleton("AI") == names.skeleton("Al")                      # I and l
    assert names.skeleton("m") == names.skeleton("rn")
    everyday = ("Ann Anna Bob Rob Tim Tom Kim Jim Lee Li Al Ali Eli Ella Emma Max Mia Noah "
                "Liam Sam Sara Zoe Jose Ian Ivan Leo Lea Lia Mo Jo Cy Ida").split()
    keys = [names._keys(n) for n in everyday]
    assert all(not (a & b) for i, a in enumerate(keys) for b in keys[i + 1:])


def test_names_that_differ_only_in_nonspacing_marks_look_alike():
    """Compared without their marks (Mn, after NFD): a dot above an i draws nothing new,
    and an accent may pass unseen on a phone. So "Zo\u00eb" beside "Zoe" and "Jos\u00e9"
    beside "Jose" are look-alikes too (they were told apart before); marks that are
    letters of their own script's spelling (Korean, Japanese kana) are untouched."""
    from auction.server import names
    for name, other in (("Ali\u0307ce", "Alice"), ("Jos\u00e9", "Jose"), ("Zo\u00eb", "Zoe"),
                        ("A\u0323lice", "Alice"), ("\u00c5da", "Ada"),
                        ("Cy \u2764\ufe0f", "Cy \u2764")):
        assert names._keys(name) & names._keys(other), (name, other)
    for name, other in (("\ubbfc\uc218", "\ubbfc\uc11c"), ("Ann", "Anna"), ("Jos\u00e9", "Joe")):
        assert not names._keys(name) & names._keys(other), (name, other)


def test_a_name_with_marks_is_seated_alone_and_refused_beside_its_plain_twin():
    from auction.game import rules
    from auction.server import names
    game = rules.new_game("ABCD", "stake")
    game, _ = rules.apply(game, names.join(game, "Jos\u00e9"), 0)
    game, _ = rules.apply(game, names.join(game, "Alice"), 0)
    for name, other in (("Jose", "Jos\u00e9"), ("Ali\u0307ce", "Alice"), ("J\u00f3se", "Jos\u00e9")):
        with pytest.raises(rules.NameTaken, match=f"looks like “{other}”"):
            names.join(game, name)


def test_every_ai_name_fits_beside_the_others_and_a_rematch_seats_the_same_names():
    from auction.server import names
    from auction.game import rules
    from auction.game.rematch import table_again
    game = rules.new_game("ABCD", "stake")
    game, _ = rules.apply(game, names.join(game, "Ann"), 0)
    for _ in rules.BOT_NAMES[:-1]:
        names.check(next(n for n in rules.BOT_NAMES if n not in
                         {p.name for p in game.players}), game)
        game, _ = rules.apply(game, rules.AddBot("p1"), 0)
    assert [p.name for p in game.players] == ["Ann", *rules.BOT_NAMES[:-1]]
    game.phase = rules.Phase.ENDED
    again, _ = table_again(game, {"d": "p1"}, rules.new_game("WXYZ", "stake"))
    assert [p.name for p in again.players] == [p.name for p in game.players] and again.locked
