"""Entry point: `python app.py` serves on gevent; gunicorn imports `app:app`."""

# Patch before anything else imports socket, ssl or threading. Under gunicorn's
# gevent worker the patch has already been applied and this is a no-op.
from gevent import monkey

monkey.patch_all()

from auction.web.app import create_app  # noqa: E402

app = create_app()

if __name__ == "__main__":
    import signal

    import socket

    import gevent

    from auction.web.operations.collector import settle
    from auction.web.operations.http_server import serve
    from auction.web.config import PORT
    from auction.web.operations.metrics import watch_listeners

    # Without TCP_NODELAY every small answer waits for the client's delayed ACK
    # (40 ms) before its last segment goes out; accepted sockets inherit it.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("0.0.0.0", PORT))
    listener.listen(1024)
    # gevent's server with idle and header timeouts and bounded request heads.
    server = serve(listener, app)
    watch_listeners([listener])     # its accept queue, for /metrics
    settle(app)     # the garbage collector's pauses (auction/web/operations/collector.py)
    # On SIGTERM, drain (auction/web/operations/health.py: no new streams or holds, the
    # holds under way finish, streams close), then stop cleanly, so exit handlers
    # run and an embedded Redis this process started is shut down, not left behind.
    def stop():
        app.extensions["auction"].stop()
        server.stop(timeout=1)

    gevent.signal_handler(signal.SIGTERM, lambda: app.extensions["auction_drain"].begin(stop))
    print(f"Time Auction on http://localhost:{PORT}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        app.extensions["auction"].stop()
