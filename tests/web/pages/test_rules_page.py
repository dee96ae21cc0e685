"""The rules page says what the game does: its table of rule books is the presets,
its round picture can be read without seeing it, and it names the hidden bank of a
game against the hard computer."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

from auction.game import settings as S
from auction.web.pages import render

JSON = {"Accept": "application/json"}


class Table(HTMLParser):
    """The presets table: its column heads and each row's cells, by the row's data-setting."""

    def __init__(self) -> None:
        super().__init__()
        self.heads: list[str] = []
        self.rows: dict[str, list[str]] = {}
        self.inside = False
        self.row: str | None = None
        self.cell: list[str] | None = None
        self.in_head = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "presets" in (a.get("class") or ""):
            self.inside = True
        if not self.inside:
            return
        if tag == "thead":
            self.in_head = True
        elif tag == "tr" and not self.in_head:
            self.row = a["data-setting"]
            self.rows[self.row] = []
        elif tag == "td" or (tag == "th" and self.in_head):
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif tag == "thead":
            self.in_head = False
        elif self.inside and self.cell is not None and tag in ("td", "th"):
            text = " ".join("".join(self.cell).split())
            if self.in_head:
                self.heads.append(text)
            elif self.row:
                self.rows[self.row].append(text)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def table(client) -> Table:
    response = client.get("/rules")
    assert response.status_code == 200
    parsed = Table()
    parsed.feed(response.get_data(as_text=True))
    return parsed


def ms(text: str) -> int:
    """'10 min' / '3 s' / '1 min 30 s' back to milliseconds."""
    m = re.fullmatch(r"(?:(\d+) min)? ?(?:(\d+) s)?", text)
    assert m and text, text
    return int(m[1] or 0) * 60_000 + int(m[2] or 0) * 1000


def expected(p: S.Settings) -> dict[str, str | None]:
    """Each row's cell for one preset, worked out here from the preset's values."""
    return {
        "rounds": str(p.rounds),
        "tie": "the same tenth" if p.tie == "tenth" else f"within {p.tie_margin_ms} ms",
        "tie_rule": {"nobody": "nobody", "all": "every tied player"}[p.tie_rule],
        "reveal": render.LABELS["reveal"][p.reveal],
        "rank_ties": render.LABELS["rank_ties"][p.rank_ties],
        "players": f"{p.min_players}–{p.max_players}",
    }


def test_the_rules_table_is_the_presets(client):
    page = table(client)
    assert page.heads == ["", *(render.PRESET_NAMES[name] for name in S.PRESETS)]
    for column, (name, preset) in enumerate(S.PRESETS.items()):
        cells = {row: values[column] for row, values in page.rows.items()}
        for row, text in expected(preset).items():
            assert cells[row] == text, (name, row, cells[row])
        assert ms(cells["bank_ms"]) == preset.bank_ms, (name, cells["bank_ms"])
        assert ms(cells["ready_ms"]) == preset.ready_ms, (name, cells["ready_ms"])
        assert (cells["free_ms"] == "none") if not preset.free_ms else ms(cells["free_ms"]) == preset.free_ms
        # Your own bank: the quick game has the switch, Time Stake hides it, and the table says so.
        word = {"hidden": "hidden", "toggle": "switch", "shown": "always shown"}[preset.own_bank]
        assert word in cells["own_bank"], (name, cells["own_bank"])


def test_every_setting_is_in_the_table_or_left_out_on_purpose(client):
    shown = set(table(client).rows)
    # Folded into another row (margin into "tie", seats into "players"), or the same in
    # every preset and explained elsewhere (the result's pause, suspense: the strategy guide).
    elsewhere = {"tie_margin_ms", "min_players", "max_players", "result_ms", "suspense"}
    names = {f.name for f in dataclasses.fields(S.Settings)}
    assert names - elsewhere == shown - {"players"}, (names - elsewhere) ^ (shown - {"players"})
    for name in elsewhere - {"tie_margin_ms", "min_players", "max_players"}:
        assert len({getattr(p, name) for p in S.PRESETS.values()}) == 1, f"{name} differs: show it"


def test_the_table_follows_a_changed_preset(client, monkeypatch):
    quick = S.PRESETS["quick"]
    monkeypatch.setitem(S.PRESETS, "quick", dataclasses.replace(quick, own_bank="hidden", rounds=7))
    cells = {row: values[1] for row, values in table(client).rows.items()}
    assert "hidden" in cells["own_bank"] and cells["rounds"] == "7", cells


def test_the_page_says_the_hard_computer_hides_your_bank_and_it_does(client):
    text = " ".join(client.get("/rules").get_data(as_text=True).split())
    assert "Against the hard computer your own bank is hidden" in text
    for mode in ("quick", "full"):
        made = client.post("/solo", json={"name": "Ann", "difficulty": "hard", "mode": mode},
                           headers=JSON)
        assert made.status_code == 201
        view = client.get(f"/r/{made.get_json()['code']}/state", headers=JSON).get_json()
        assert view["settings"]["own_bank"] == "hidden", mode


def test_the_round_picture_has_a_title_and_a_description(client):
    page = client.get("/rules").get_data(as_text=True)
    svg = re.search(r"<svg [^>]*role=\"img\"[^>]*aria-labelledby=\"([^\"]+)\"", page)
    assert svg, "no round picture"
    for ident in svg[1].split():
        m = re.search(rf'id="{ident}">([^<]+)<', page)
        assert m and m[1].strip(), ident
