"""The invite link as a QR code: an inline SVG string (no style attributes, so CSP-safe).

Drawing one costs milliseconds (hundreds for a long text), so each room's is
drawn once per worker and kept. The link comes from the server's own record of
the room (its invitation, and the site its host created it at: web/pages/room.py),
never from a request, so no request can make a page draw another.
"""

from __future__ import annotations

import functools
import threading
import xml.etree.ElementTree as ET
from collections import OrderedDict

import qrcode
import qrcode.image.svg

from .words import N_

_SVG = "http://www.w3.org/2000/svg"
ROOMS_KEPT = 1024
# What a screen reader hears; render.py says it in the page's language.
LABEL = N_("QR code of the invite link")

_by_room: OrderedDict[str, str] = OrderedDict()
_lock = threading.Lock()


def room_qr(code: str, url: str) -> str:
    """The QR code of room ``code``'s invite ``url``, drawn once per room and link."""
    key = f"{code} {url}"
    with _lock:
        svg = _by_room.get(key)
        if svg is not None:
            _by_room.move_to_end(key)
            return svg
    svg = qr_svg(url)
    with _lock:
        _by_room[key] = svg
        while len(_by_room) > ROOMS_KEPT:
            _by_room.popitem(last=False)
    return svg
ET.register_namespace("", _SVG)


@functools.lru_cache(maxsize=16)
def qr_svg(text: str) -> str:
    """An <svg> of ``text`` that scales to its box (the page's CSS sizes it)."""
    # The path factory draws the dark modules as one <path>; the "fill" variant
    # adds a white background so the code scans on a dark page too.
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathFillImage,
                        border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    root = image.get_image()
    # Sizes in mm would fix the width; the viewBox alone lets CSS decide.
    for attr in ("width", "height"):
        root.attrib.pop(attr, None)
    for element in root.iter():
        element.attrib.pop("id", None)  # one fixed id would clash if shown twice
    root.set("class", "qr")
    root.set("role", "img")
    root.set("aria-label", LABEL)
    return ET.tostring(root, encoding="unicode")
