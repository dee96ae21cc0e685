"""The end-of-game charts and the CSV export, drawn from the final view of games the
rules engine played out: every end state, what each mark means, CSP-clean SVG."""

from __future__ import annotations

import csv
import io
import re
from itertools import combinations
import xml.etree.ElementTree as ET

import pytest

import endgames
from auction.game import charts, export
from auction.game import rules as R
from auction.game.views import view_for

SVG = "{http://www.w3.org/2000/svg}"
SCENARIOS = endgames.scenarios()


def final_view(game, pid=None):
    return view_for(game, pid, 10**12)


@pytest.fixture(params=sorted(SCENARIOS))
def case(request):
    return request.param, final_view(SCENARIOS[request.param])


def test_series_follow_the_final_view(case):
    _, view = case
    s = charts.game_series(view)
    final = view["final"]
    assert [t.id for t in s.tracks] == [p["id"] for p in view["players"]]
    bank = {row["id"]: row["bank_ms"] for row in final["standings"]}
    tokens = {p["id"]: p["tokens"] for p in view["players"]}
    for t in s.tracks:
        assert t.banks[0] == view["settings"]["bank_ms"] and t.tokens[0] == 0
        assert t.banks[-1] == bank[t.id] and t.tokens[-1] == tokens[t.id]
        assert list(t.bids) == [row["bids"][t.id] for row in final["bids"]]
        assert all(b >= 0 for b in t.banks)
        assert list(t.tokens) == sorted(t.tokens)


def test_every_chart_is_one_named_image_the_csp_allows(case):
    _, view = case
    drawn = charts.charts(view)
    for key in ("bank", "bids", "tokens"):
        svg = drawn[key]
        root = ET.fromstring(svg)             # well-formed XML
        assert root.get("role") == "img"
        title, desc = root.get("aria-labelledby").split()
        assert root.find(f"{SVG}title").get("id") == title
        assert root.find(f"{SVG}desc").get("id") == desc
        assert root.find(f"{SVG}desc").text.strip()
        # style-src 'self' refuses <style> elements and style attributes; no script at all.
        assert not re.search(r"<style|<script|\sstyle=|\son\w+=|javascript:", svg)
        assert charts.charts(view)[key] == svg  # the same view, the same bytes


def test_each_mark_of_the_bid_grid_means_what_it_says(case):
    name, view = case
    root = ET.fromstring(charts.charts(view)["bids"])
    rows = root.findall(f"{SVG}g[@class='row']")
    assert [r.get("data-player") for r in rows] == [p["id"] for p in view["players"]]
    history = {h["round"]: h for h in view["history"]}
    for row in rows:
        pid = row.get("data-player")
        bids = [r["bids"][pid] for r in view["final"]["bids"]]
        won = [pid in history[r["round"]]["winners"] for r in view["final"]["bids"]]
        bars = [el for el in row if el.get("class", "").startswith("bid")]
        assert len(bars) == sum(b is not None for b in bids), name
        assert len(row.findall(f"{SVG}circle[@class='sat-out']")) == bids.count(None)
        assert len([b for b in bars if "won" in b.get("class")]) == sum(won)
        assert len(row.findall(f"{SVG}polygon[@class='win-mark']")) == sum(won)
        # Heights to scale: a bigger bid never draws a lower bar.
        drawn = zip([float(b.get("height")) for b in bars], [b for b in bids if b is not None])
        for (h1, b1), (h2, b2) in combinations(drawn, 2):
            assert not (b1 < b2 and h1 > h2) and not (b2 < b1 and h2 > h1)


def test_the_line_charts_have_a_line_per_player_with_a_point_per_round(case):
    _, view = case
    drawn = charts.charts(view)
    rounds = len(view["final"]["bids"])
    for key, points in (("bank", rounds + 1), ("tokens", 2 * rounds + 1)):  # tokens are steps
        tracks = ET.fromstring(drawn[key]).findall(f"{SVG}g[@class='track']")
        assert [t.get("data-player") for t in tracks] == [p["id"] for p in view["players"]]
        for t in tracks:
            assert len(t.find(f"{SVG}polyline").get("points").split()) == points


def test_the_stories_screen_readers_hear():
    never = charts.charts(final_view(SCENARIOS["never_bid"]))
    assert "Cy never bid" in never["bids"]
    dry = charts.charts(final_view(SCENARIOS["bank_dry"]))
    assert "Ann ran out of time in round 2" in dry["bank"]
    ties = final_view(SCENARIOS["all_ties"])
    assert all(h["tie"] and not h["winners"] for h in ties["history"])
    assert "win-mark" not in charts.charts(ties)["bids"]
    assert "Tokens at the end: Ann 0; Bob 0; Cy 0." in charts.charts(ties)["tokens"]
    eight = charts.charts(final_view(SCENARIOS["eight_players"]))
    looks = {(t.colour, t.dash, t.marker) for t in eight["series"].tracks}
    assert len(looks) == 8 and len({c for c, _, _ in looks}) == 8
    assert "Hildega…" in eight["bids"]     # long names are cut in the grid, whole in the legend


def test_names_are_escaped():
    view = final_view(endgames.play(("<b>&", "Bob"), [{"p1": 100}]))
    drawn = charts.charts(view)
    assert "<b>&" not in drawn["bids"] and "&lt;b&gt;&amp;" in drawn["bids"]
    ET.fromstring(drawn["bids"])


def test_a_running_game_draws_nothing():
    game = endgames.play(("Ann", "Bob"), [{"p1": 100}, {"p2": 100}])
    running, _ = R.apply(R.new_game("ABCD"), R.Join("Ann"), 0)
    for view in (final_view(running), {**final_view(game), "phase": "result"}):
        with pytest.raises(ValueError):
            charts.charts(view)


def test_the_bank_axis_zooms_in_only_when_little_was_spent():
    assert charts.bank_ticks(30_000, 0) == [0, 10_000, 20_000, 30_000]
    assert charts.bank_ticks(600_000, 200_000) == [0, 300_000, 600_000]
    assert charts.bank_ticks(100_000, 40_000) == [0, 30_000, 60_000, 90_000, 120_000]
    assert charts.bank_ticks(600_000, 400_000) == [360_000, 420_000, 480_000, 540_000, 600_000]
    assert charts.bank_ticks(600_000, 597_100) == [596_000, 597_000, 598_000, 599_000, 600_000]


def test_the_csv_holds_every_bid_bank_token_player_and_setting(case):
    _, view = case
    table = list(csv.DictReader(io.StringIO(export.to_csv(view))))
    players = view["players"]
    assert len(table) == len(players) * len(view["final"]["bids"])
    final_banks = {row["id"]: row["bank_ms"] for row in view["final"]["standings"]}
    for row in table:
        rnd = int(row["round"])
        bid = view["final"]["bids"][rnd - 1]["bids"][row["player_id"]]
        assert row["bid_ms"] == ("" if bid is None else str(bid))
        assert (row["won"] == "1") == (row["player_id"] in view["history"][rnd - 1]["winners"])
        if rnd == len(view["final"]["bids"]):
            assert int(row["bank_after_ms"]) == final_banks[row["player_id"]]
        for name, value in view["settings"].items():
            assert row[f"setting_{name}"] == str(value)
    for p in players:
        mine = [r for r in table if r["player_id"] == p["id"]]
        assert {r["name"] for r in mine} == {p["name"]}
        assert int(mine[-1]["tokens_after"]) == p["tokens"]
        assert {r["bot"] for r in mine} == {str(int(p["bot"]))}


def test_a_name_that_looks_like_a_formula_stays_text_in_the_csv():
    view = final_view(endgames.play(("=HYPERLINK(1)", "@Bob"), [{"p1": 100}]))
    names = {r["name"] for r in csv.DictReader(io.StringIO(export.to_csv(view)))}
    assert names == {"'=HYPERLINK(1)", "'@Bob"}


def test_charts_export_and_rematch_import_only_the_standard_library_and_the_engine():
    import ast
    import pathlib

    from auction.game import rematch, series

    imported = set()
    for module in (charts, export, rematch, series):
        for node in ast.walk(ast.parse(pathlib.Path(module.__file__).read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add("." + (node.module or "") if node.level else node.module)
    assert imported <= {"__future__", "math", "csv", "io", "dataclasses", "html", "typing", ".",
                        ".rules", ".series"}, imported
