"""gunicorn's settings for this app; gunicorn reads this file from the directory it
starts in, and options on its command line override it.

The bounds on a request's head are gunicorn's own defaults, stated here so they
are a decision, not an accident: `python app.py` applies the same figures
(auction/web/operations/http_server.py). Every URL of the game is under 100 bytes and a
browser sends about 15 headers, so the figures leave room for any proxy's
additions and still cap what one request can make a worker read.
"""

import os
import shutil
import signal
import tempfile

limit_request_line = 4094           # bytes in the request line
limit_request_fields = 100          # header fields in a request
limit_request_field_size = 8190     # bytes in one header, cookies included
# A kept-alive connection with no next request this long is closed (as in
# python app.py). Streams and hold sockets are answers in progress, not idle.
keepalive = 5

# --- metrics and draining (auction/web/operations/metrics.py, auction/web/operations/health.py) ---

# A worker drains for up to DRAIN_S on SIGTERM (a restart, a HUP's old workers, a
# stop); gunicorn must not cut it short, so it waits a little longer. Read as the web's
# config reads it (Env.number: blank is the default), since this file cannot import it.
graceful_timeout = round(float(os.environ.get("DRAIN_S", "").strip() or "10")) + 5


def on_starting(server):
    """Every worker writes its figures to one fresh folder, and any of them answers a
    scrape with the sum (prometheus-client's multiprocess mode)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:      # the operator's: start it empty, or dead workers' figures linger
        for name in os.listdir(folder):
            if name.endswith(".db"):
                os.unlink(os.path.join(folder, name))
    else:   # ours, removed on exit (named in the environment: a HUP reloads this file)
        folder = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="ta-metrics-")
        os.environ["TA_METRICS_DIR_MADE"] = folder


def post_worker_init(worker):
    """gunicorn's SIGTERM stops the worker's accepting; the app's drain goes with it."""
    gunicorns = signal.getsignal(signal.SIGTERM)
    drain = worker.wsgi.extensions["auction_drain"]

    def on_term(sig, frame):
        drain.begin()
        if callable(gunicorns):
            gunicorns(sig, frame)

    signal.signal(signal.SIGTERM, on_term)
    signal.siginterrupt(signal.SIGTERM, False)

    from auction.web.door.connections import guard     # one address's connections, bounded
    guard(worker)

    from auction.web.operations.collector import settle     # the collector's pauses (docs/scaling.md)
    from auction.web.operations.metrics import watch_listeners

    settle(worker.wsgi)
    watch_listeners(list(worker.sockets))     # their accept queue, for /metrics


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    folder = os.environ.get("TA_METRICS_DIR_MADE")
    if folder and folder == os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shutil.rmtree(folder, ignore_errors=True)
