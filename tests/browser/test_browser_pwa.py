"""The installable app: manifest, icons, service worker, and the offline page."""

from __future__ import annotations

import pytest
import requests

import phone
from conftest import CHROMIUM
from harness import AppServer


@pytest.fixture
def own_server(redis_url):
    """A server this test may stop, to see the app without one."""
    srv = AppServer(redis_url)
    yield srv
    srv.stop()


def test_manifest_and_service_worker_files(server):
    manifest = requests.get(server.url + "/manifest.webmanifest", timeout=5)
    assert manifest.headers["Content-Type"].startswith("application/manifest+json")
    data = manifest.json()
    assert data["display"] == "standalone" and data["start_url"] == "/"
    sizes = {icon["sizes"]: icon for icon in data["icons"]}
    assert {"192x192", "512x512"} <= set(sizes)
    assert any(icon["purpose"] == "maskable" for icon in data["icons"])
    for icon in data["icons"]:
        png = requests.get(server.url + icon["src"], timeout=5)
        assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png.content[16:20], "big"), int.from_bytes(png.content[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]
    sw = requests.get(server.url + "/sw.js", timeout=5)
    assert sw.headers["Service-Worker-Allowed"] == "/"
    assert "no-cache" in sw.headers["Cache-Control"]


def test_installable_and_offline(playwright_driver, own_server, tmp_path):
    ctx = playwright_driver.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=phone.ARGS,
        **phone.context_options(touch=True))
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        phone.watch(page)
        base = own_server.url
        page.goto(base + "/")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        cdp = ctx.new_cdp_session(page)
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors
        manifest = cdp.send("Page.getAppManifest")
        assert not manifest.get("errors"), manifest["errors"]

        # With the worker in charge, a room's live stream still goes to the network.
        page.reload()
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        page.fill("#name", "Otto")
        with page.expect_response(lambda r: r.url.endswith("/events")) as stream:
            page.click("button[formaction='/rooms']")
        assert stream.value.status == 200
        assert not stream.value.from_service_worker
        room = page.url
        phone.check_clean(page)

        own_server.stop()   # from here the page's stream fails, and htmx logs that: expected
        # The room cannot load: the offline page instead of the browser's error.
        page.goto(room)
        assert "You're offline" in page.inner_text("h1")
        # The app shell still opens.
        page.goto(base + "/rules")
        assert page.inner_text("h1") == "How to play"
    finally:
        ctx.close()
