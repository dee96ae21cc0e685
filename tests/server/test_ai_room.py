"""AI seats through the real server: they press and release like humans and never stall."""

from __future__ import annotations

from client import Player
from harness import AppServer

SHORT = {"rounds": 3, "bank_ms": 30_000, "ready_ms": 2000, "free_ms": 0, "result_ms": 2000}


def test_an_all_ai_room_plays_a_quick_game_to_the_end_on_the_embedded_redis():
    srv = AppServer(None)    # no REDIS_URL: the app's own embedded Redis
    try:
        host = Player(srv.url)
        code = host.create("Host", "quick")
        for difficulty in ("easy", "medium", "hard"):
            host.post(f"/r/{code}/bots", {"action": "add", "difficulty": difficulty})
        host.post(f"/r/{code}/settings", SHORT)
        host.post(f"/r/{code}/start")
        host.post(f"/r/{code}/leave")          # from here on only AI players play
        watcher = Player(srv.url)
        watcher.code = code
        watcher.follow()
        end = watcher.wait_view(lambda v: v["phase"] == "ended", timeout=120)
        assert end["me"] is None
        final = end["final"]
        assert [row["round"] for row in final["bids"]] == [1, 2, 3]
        bots = [p["id"] for p in end["players"] if p["bot"]]
        # The AI players took part, and paid what they bid.
        assert any(row["bids"][b] for row in final["bids"] for b in bots)
        for row in final["standings"]:
            spent = sum(r["bids"][row["id"]] or 0 for r in final["bids"])
            assert row["bank_ms"] == SHORT["bank_ms"] - spent
        assert sum(p["tokens"] for p in end["players"]) <= 3
    finally:
        srv.stop()
