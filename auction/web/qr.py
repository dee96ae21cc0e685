"""The invite link as a QR code: an inline SVG string (no style attributes, so CSP-safe)."""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET

import qrcode
import qrcode.image.svg

_SVG = "http://www.w3.org/2000/svg"
ET.register_namespace("", _SVG)


@functools.lru_cache(maxsize=256)
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
    root.set("aria-label", "QR code of the invite link")
    return ET.tostring(root, encoding="unicode")
