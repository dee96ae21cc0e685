"""Helpers for the ways into a room (test_browser_door.py): a page on another site with
a link, a recording proxy in front of the game, a host made over HTTP, the QR read back.

- ``LinkSite``: a tiny page on another loopback address (127.0.0.2 is another site than
  127.0.0.1: an IP address is its own site), with one big link on it, as a chat app's
  page or a friend's web page shows an invite.
- ``Proxy``: the game behind a plain forwarding proxy that records every request's
  headers as the server receives them (the service worker's navigation preload is
  checked there), and can drop the Fetch Metadata headers (``Sec-Fetch-*``) as a
  browser without them would. It streams (the room's live stream goes through it).
- ``host_room``: a room made over HTTP, and its invite link read off the host's own
  room page -- what the server shows, never computed here.
- ``read_qr``: the text of a QR code in a PNG screenshot, with zxing-cpp when it is
  installed (None when not: the caller compares the SVG instead).
"""

from __future__ import annotations

import html
import http.client
import http.server
import re
import socket
import struct
import threading
import zlib
from urllib.parse import quote, unquote

import requests

from harness import free_port

JSON = {"Accept": "application/json"}
# Not passed on by a proxy (RFC 9110 7.6.1), and the body is re-framed here.
HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer",
       "transfer-encoding", "upgrade", "content-length"}


class _Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass


class LinkSite:
    """``/?to=<url>``: a page on ``host`` whose one big link goes to ``url``."""

    def __init__(self, host: str = "127.0.0.2"):
        class Page(_Quiet):
            def do_GET(self):
                to = re.search(r"[?&]to=([^&]*)", self.path)
                target = html.escape(unquote(to.group(1)) if to else "/")
                body = ("<!doctype html><html lang=en><meta name=viewport content='width=device-width'>"
                        "<title>Chat</title><p>Sam: come and play!</p>"
                        f"<p><a id=go href=\"{target}\" style='display:block;padding:24px;"
                        f"font-size:22px'>{target}</a></p>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer((host, 0), Page)
        self.url = f"http://{host}:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def page_for(self, target: str) -> str:
        return f"{self.url}/?to={quote(target, safe='')}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Proxy:
    """The game at ``upstream`` (a base URL) behind a forwarding proxy on 127.0.0.1.

    The Host header goes through unchanged, so the game sees (and names in its
    links) the proxy's address, and a browser's Origin matches it. ``seen`` holds
    (method, path, headers) of every request, in order.
    """

    def __init__(self, upstream: str, strip_fetch_metadata: bool = False):
        host, _, port = upstream.removeprefix("http://").partition(":")
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.open: set[http.client.HTTPConnection] = set()
        proxy = self

        class Forward(_Quiet):
            def _forward(self):
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                if strip_fetch_metadata:
                    headers = {k: v for k, v in headers.items() if not k.lower().startswith("sec-fetch-")}
                proxy.seen.append((self.command, self.path, {k.lower(): v for k, v in headers.items()}))
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                conn = http.client.HTTPConnection(host, int(port), timeout=60)
                proxy.open.add(conn)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    self.send_response(answer.status, answer.reason)
                    for k, v in answer.getheaders():
                        if k.lower() not in HOP:
                            self.send_header(k, v)
                    self.send_header("Connection", "close")
                    self.end_headers()
                    # Close-delimited (HTTP/1.0), a chunk as it comes: streams stay live.
                    while chunk := answer.read1(65536):
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (OSError, http.client.HTTPException):
                    pass                    # the browser went away, or the test ended
                finally:
                    proxy.open.discard(conn)
                    conn.close()

            do_GET = do_POST = do_HEAD = _forward

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Forward)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def requests_for(self, path: str, method: str = "GET") -> list[dict[str, str]]:
        return [h for m, p, h in self.seen if m == method and p == path]

    def stop(self) -> None:
        self.httpd.shutdown()
        for conn in list(self.open):    # the live streams still open through it
            if conn.sock is not None:
                try:
                    conn.sock.shutdown(socket.SHUT_RDWR)    # wakes the thread reading it
                except OSError:
                    pass
        self.httpd.server_close()


def host_room(base: str, name: str = "Hana") -> tuple[str, str, requests.Session]:
    """A room hosted by ``name`` on a plain HTTP client: its code and the invite link its
    room page shows the host (``#invite-url``), and the host's session."""
    host = requests.Session()
    made = host.post(base + "/rooms", json={"name": name, "preset": "stake"}, headers=JSON,
                     timeout=10)
    assert made.status_code == 201, (made.status_code, made.text)
    code = made.json()["code"]
    page = host.get(f"{base}/r/{code}", timeout=10)
    assert page.status_code == 200, page.status_code
    return code, invite_on(page.text), host


def big_screen_on(page_html: str) -> str:
    """Where the host's room page sends its "Big screen" button (a path on the site)."""
    link = re.search(r'<a[^>]*\bhref="(/r/[A-Z]+/screen[^"]*)"', page_html)
    assert link, "the room page has no big screen link"
    return html.unescape(link.group(1))


def invite_on(page_html: str) -> str:
    """The invite link a room page shows (the value of its #invite-url field)."""
    field = re.search(r'<input[^>]*\bid="invite-url"[^>]*>', page_html)
    assert field, "the room page shows no invite link"
    return html.unescape(re.search(r'\bvalue="([^"]*)"', field.group(0)).group(1))


# -- the QR code, read back ---------------------------------------------------------


def png_gray(png: bytes) -> tuple[int, int, bytes]:
    """A non-interlaced 8-bit RGB(A) or grey PNG (what a browser's screenshot is) as grey
    pixels: (width, height, one byte a pixel)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", data)
            assert depth == 8 and interlace == 0 and colour in (0, 2, 4, 6), (depth, colour)
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line[0::channels]) if channels < 3 else
                    bytes((r * 299 + g * 587 + b * 114) // 1000
                          for r, g, b in zip(line[0::channels], line[1::channels], line[2::channels])))
        prev = line
    return width, height, b"".join(rows)


def read_qr(png: bytes) -> str | None:
    """The text of the one QR code in ``png``; None when zxing-cpp is not installed."""
    try:
        import zxingcpp
    except ImportError:
        return None
    width, height, pixels = png_gray(png)
    found = zxingcpp.read_barcodes(memoryview(pixels).cast("B", (height, width)))
    assert len(found) == 1, f"{len(found)} codes in the picture"
    return found[0].text
