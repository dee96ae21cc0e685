"""Deployed as it will be: gunicorn behind nginx (the site in deploy/nginx.conf, as
shipped) terminating TLS with a certificate the test makes. Posts are accepted
from the https origin, cookies are Secure, the app sees the browser's address,
invite links are https, holds and streams cross the proxy, the PWA installs,
and a phone plays a short game through it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import redis
import requests
import websocket

from auction.game import fairness
from auction.server.store import Store

import phone
from conftest import CHROMIUM, missing
from harness import ROOT, AppServer, free_port, wait_for_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PROXY_ADDRESS = "127.0.0.3"          # nginx talks to the app from here; browsers are 127.0.0.1


class Nginx:
    """nginx with deploy/nginx.conf, moved onto loopback ports and a test certificate."""

    def __init__(self, app_port: int):
        self.dir = tempfile.TemporaryDirectory(prefix="ta-nginx-")
        d = Path(self.dir.name)
        os.chmod(d, 0o755)       # nginx's workers (nobody, under root) write temp files here
        self.cert, key = d / "cert.pem", d / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-keyout", str(key), "-out", str(self.cert), "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        self.https_port, self.http_port = free_port(), free_port()
        site = (ROOT / "deploy" / "nginx.conf").read_text()
        for old, new in [
            ("server 127.0.0.1:8000;", f"server 127.0.0.1:{app_port};"),
            ("listen 80;", f"listen 127.0.0.1:{self.http_port};"),
            ("listen 443 ssl http2;", f"listen 127.0.0.1:{self.https_port} ssl http2;"),
            ("/etc/letsencrypt/live/game.example.com/fullchain.pem", str(self.cert)),
            ("/etc/letsencrypt/live/game.example.com/privkey.pem", str(key)),
        ]:
            assert old in site, old
            site = site.replace(old, new)
        site = "\n".join(line for line in site.splitlines() if "listen [::]" not in line)
        (d / "site.conf").write_text(site)
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (d / sub).mkdir()
            os.chmod(d / sub, 0o777)
        (d / "nginx.conf").write_text(f"""
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    proxy_bind {PROXY_ADDRESS};
    include {d}/site.conf;
}}
""")
        self.proc = subprocess.Popen([NGINX, "-p", str(d), "-c", str(d / "nginx.conf"),
                                      "-e", str(d / "error.log")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for_port(self.https_port, self.proc)
        self.url = f"https://127.0.0.1:{self.https_port}"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stderr.close()
        self.dir.cleanup()


@pytest.fixture(scope="module")
def site(redis_url):
    if not os.path.exists(NGINX):
        missing("nginx is not installed (apt-get install nginx-light)")
    app = AppServer(redis_url, workers=2, env={"PROXY_HOPS": "1", "FORWARDED_ALLOW_IPS": PROXY_ADDRESS,
                                                  "TA_EXPOSE_WORKER": "1"})
    proxy = Nginx(app.port)
    proxy.app = app
    yield proxy
    proxy.stop()
    app.stop()


def test_the_app_behind_nginx_sees_https_and_the_browsers_address(site, redis_url):
    https = requests.Session()
    https.trust_env = False          # else REQUESTS_CA_BUNDLE would outrank the session's own
    https.verify = str(site.cert)
    home = https.get(site.url + "/")
    assert home.status_code == 200
    assert home.headers["X-Client-Address"] == "127.0.0.1"       # not the proxy's 127.0.0.3

    # A browser's post carries Origin: https://host -- the very check that refused them all.
    created = https.post(site.url + "/rooms", json={"name": "Ann", "preset": "stake"},
                         headers={"Accept": "application/json", "Origin": site.url})
    assert created.status_code == 201, created.text
    cookie = next(c for c in created.raw.headers.getlist("Set-Cookie") if c.startswith("ta_device="))
    assert "Secure" in cookie and "HttpOnly" in cookie            # minted by the commit
    code = created.json()["code"]
    # Its hold sockets cost a TLS handshake more, so late presses may come later.
    store = Store(redis.Redis.from_url(redis_url))
    direct = requests.post(site.app.url + "/rooms", json={"name": "Dan"},
                           headers={"Accept": "application/json"}).json()["code"]
    assert store.load(code)[0]["game"]["grace_ms"] == fairness.longest_entry_wait(300, tls=True)
    assert store.load(direct)[0]["game"]["grace_ms"] == fairness.longest_entry_wait(300)
    page = https.get(f"{site.url}/r/{code}").text
    assert f'value="{site.url}/r/{code}?i=' in page                  # the invite link is https
    foreign = https.post(f"{site.url}/r/{code}/settings", json={"rounds": 2},
                         headers={"Accept": "application/json", "Origin": "https://evil.example"})
    assert foreign.status_code == 403

    # Plain http is sent to https.
    plain = https.get(f"http://127.0.0.1:{site.http_port}/", allow_redirects=False)
    assert plain.status_code == 301
    assert plain.headers["Location"].startswith("https://")

    # The JSON stream crosses the proxy unbuffered: its first view arrives at once.
    started = time.monotonic()
    with https.get(f"{site.url}/r/{code}/events?format=json", stream=True, timeout=10) as events:
        lines = events.iter_lines(decode_unicode=True)
        data = next(line for line in lines if line.startswith("data:"))
    assert json.loads(data[5:])["code"] == code
    assert time.monotonic() - started < 5

    # A hold socket through the proxy, from the page's own origin.
    https.post(f"{site.url}/r/{code}/bots", json={"action": "add"},
               headers={"Accept": "application/json"})
    https.post(f"{site.url}/r/{code}/settings", json={"ready_ms": 5000, "rounds": 1},
               headers={"Accept": "application/json"})
    https.post(f"{site.url}/r/{code}/start", json={}, headers={"Accept": "application/json"})
    device = "; ".join(f"{c.name}={c.value}" for c in https.cookies)
    ws = websocket.create_connection(
        site.url.replace("https", "wss", 1) + f"/r/{code}/hold", cookie=device,
        origin=site.url, sslopt={"ca_certs": str(site.cert)}, timeout=10)
    try:
        assert json.loads(ws.recv())["type"] == "in"
    finally:
        ws.close()
    https.close()


def test_a_phone_plays_through_nginx_over_https(site, playwright_driver, tmp_path):
    # Installability needs a profile of its own (the service worker) and a
    # certificate the browser accepts: it is told to ignore this one's issuer.
    ctx = playwright_driver.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM,
        args=[*phone.ARGS, "--ignore-certificate-errors"], ignore_https_errors=True,
        **phone.context_options(touch=True))
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        phone.watch(page)
        code = phone.create_room(page, site.url, "Tess", "stake")
        assert page.url == f"{site.url}/r/{code}"
        cdp = ctx.new_cdp_session(page)
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors
        cookie = next(c for c in ctx.cookies() if c["name"] == "ta_device")
        assert cookie["secure"] and cookie["httpOnly"]
        assert page.input_value("#invite-url").startswith(f"{site.url}/r/{code}?i=")

        page.click("form[action$='/bots'] button[type=submit]")
        phone.players_listed(page, 2)
        phone.fast(page, rounds=1, free_ms=0)
        page.click("text=Start the game")
        phone.wait_state(page, "countdown", 1)
        finger = phone.Finger(page)
        finger.down()
        phone.button(page, "in")
        phone.wait_state(page, "spending", 1)
        time.sleep(0.8)
        finger.up()
        phone.released(page)
        phone.wait_state(page, "ended", timeout_s=phone.ROUND_S)
        view = page.request.get(f"{site.url}/r/{code}/state",
                                headers={"Accept": "application/json"}).json()
        bid = view["final"]["bids"][0]["bids"][view["me"]["id"]]
        assert 500 <= bid <= 1_500, bid          # held about 0.8 s into spending
        phone.shot(page, "https-nginx-end")
        phone.check_clean(page)
    finally:
        ctx.close()
