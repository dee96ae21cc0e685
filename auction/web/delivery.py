"""Bytes on the wire: static files and pages, compressed and cached.

Static files are served by WhiteNoise, ahead of Flask, from a copy of
``static/`` in the instance folder that holds, beside each file, its gzip and
brotli forms compressed once at start (WhiteNoise's own compressor), so a
request costs no compression at all. Our own scripts and stylesheets are copied
without their comments and spaces (rjsmin, rcssmin): the comments say why for
whoever reads the source, and would be a sixth of the room page's first load
on the wire. The vendored files are copied as they come.

Every page names its static files with a content hash (``render.asset``:
``/static/app.js?v=<hash>``, the source's hash), so they are cached for a year:
a changed file has a new URL. The copy is kept per build
(``static-<BUILD>``): during a rolling restart old workers keep serving the
files they started with while new ones serve the new.

Pages and JSON are compressed by flask-compress (zstd, brotli or gzip, as the
browser asks). Streams are never touched: ``COMPRESS_STREAMS`` off leaves any
streamed response (the SSE stream above all) as it is, unbuffered, and
``text/event-stream`` is not among the types compressed anyway.
"""

from __future__ import annotations

import fcntl
import filecmp
import os
import shutil
import time

from flask import Flask
from flask_compress import Compress
from rcssmin import cssmin  # type: ignore[import-untyped]
from rjsmin import jsmin  # type: ignore[import-untyped]
from whitenoise import WhiteNoise  # type: ignore[import-untyped]
from whitenoise.compress import Compressor  # type: ignore[import-untyped]

from .pages import render

YEAR_S = 365 * 24 * 3600
STALE_BUILD_S = 24 * 3600          # older builds' copies are removed after a day
COMPRESSED = ["text/html", "application/json", "application/manifest+json",
              "text/javascript"]


def init(app: Flask) -> None:
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED)
    app.config.setdefault("COMPRESS_STREAMS", False)
    Compress(app)
    root = prepare(app.instance_path)
    app.wsgi_app = WhiteNoise(app.wsgi_app, root=root,  # type: ignore[method-assign]
                              prefix="static/", max_age=YEAR_S, add_headers_function=_headers)


def _headers(headers, path: str, url: str) -> None:
    headers["X-Content-Type-Options"] = "nosniff"


def prepare(instance_path: str) -> str:
    """This build's copy of static/ with .gz and .br beside each file (made once,
    by whichever worker comes first); returns its folder."""
    target = os.path.join(instance_path, f"static-{render.BUILD}")
    os.makedirs(instance_path, exist_ok=True)
    with open(os.path.join(instance_path, "static.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _same(render.STATIC, target):
                _build(render.STATIC, target)
            _remove_stale(instance_path, target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def _minified(rel: str) -> bool:
    """Our own scripts and stylesheets (not vendor/'s, which come minified)."""
    return rel.endswith((".js", ".css")) and not rel.startswith("vendor/")


def served(rel: str, data: bytes) -> bytes:
    """What the copy holds for the static file ``rel``: our own .js and .css without
    comments and spaces, anything else as it is."""
    if not _minified(rel):
        return data
    text = data.decode("utf-8")
    return (cssmin(text) if rel.endswith(".css") else jsmin(text)).encode("utf-8")


def _same(source: str, target: str) -> bool:
    if not os.path.isfile(os.path.join(target, ".complete")):
        return False
    for folder, _, files in os.walk(source):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, source).replace(os.sep, "/")
            copy = os.path.join(target, rel)
            if not os.path.isfile(copy):
                return False
            if not _minified(rel):
                if not filecmp.cmp(path, copy, shallow=False):
                    return False
                continue
            with open(path, "rb") as f, open(copy, "rb") as kept:
                if served(rel, f.read()) != kept.read():
                    return False
    return True


def _build(source: str, target: str) -> None:
    building = target + ".building"
    shutil.rmtree(building, ignore_errors=True)
    shutil.copytree(source, building)
    for folder, _, files in os.walk(building):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, building).replace(os.sep, "/")
            if _minified(rel):
                with open(path, "rb") as f:
                    small = served(rel, f.read())
                with open(path, "wb") as f:
                    f.write(small)
    compressor = Compressor(quiet=True)
    for folder, _, files in os.walk(building):
        for name in files:
            if compressor.should_compress(name):
                compressor.compress(os.path.join(folder, name))
    open(os.path.join(building, ".complete"), "w").close()
    shutil.rmtree(target, ignore_errors=True)
    os.rename(building, target)


def _remove_stale(instance_path: str, keep: str) -> None:
    now = time.time()
    for name in os.listdir(instance_path):
        path = os.path.join(instance_path, name)
        if name.startswith("static-") and path != keep and os.path.isdir(path) \
                and now - os.path.getmtime(path) > STALE_BUILD_S:
            shutil.rmtree(path, ignore_errors=True)
