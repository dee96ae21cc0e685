"""The HTTP server behind `python app.py`: gevent's WSGIServer, bounded as gunicorn is.

gevent's own handler waits for ever: for the next request on a keep-alive
connection, and for a request whose line and headers arrive a byte at a time.
Each such connection costs a greenlet and a file descriptor, so a script could
hold thousands. This handler closes a keep-alive connection that stays quiet
for IDLE_S, and answers 408 to a request whose line and headers have not all
arrived HEAD_S after it began. The timeouts cover only reading a request's
head: once the app has it, a response may last as long as it likes (the view
stream and the hold socket are answers that stay open). The head's sizes are
gunicorn's defaults, which gunicorn.conf.py states for gunicorn too.

A body the app reads is read within body_deadline.BODY_S (a hook of the app's,
so gunicorn has it too). What the app leaves unread, gevent drains after the
answer, for as long as it takes: a body a byte a second held the connection for
hours after its answer. Here the drain too must end by that deadline, and read
at most DRAIN_MAX bytes; else, and after an answer that says ``Connection:
close``, the connection closes without it.
"""

from __future__ import annotations

import io
import socket
import time
from http import client

import gevent  # type: ignore[import-untyped]
from gevent import pywsgi

from ..door.body_deadline import BODY_S
from ..door.connections import peer_of

IDLE_S = 5.0            # a kept-alive connection with no next request this long is closed
HEAD_S = 10.0           # a request line and headers must all arrive within this
REQUEST_LINE = 4094     # bytes in the request line (our URLs are under 100)
FIELDS = 100            # header fields in a request (a browser sends about 15)
FIELD_SIZE = 8190       # bytes in one header line, cookies included
DRAIN_MAX = 65536       # bytes of an unread body drained to keep a connection (posts: 16 KiB)

_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-length: 0\r\n\r\n"
_TOO_LONG = b"HTTP/1.1 414 URI Too Long\r\nConnection: close\r\nContent-length: 0\r\n\r\n"
_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
              b"Content-length: 0\r\n\r\n")


class SlowHead(socket.timeout):
    """The request's line and headers did not arrive in time. An OSError, so while
    the request line is read gevent takes it for a lost connection and closes quietly."""


class HeadTooLarge(ValueError):
    """A header line too long, or too many of them."""


class RequestLineTooLong(ValueError):
    pass


class _Body(pywsgi.Input):
    """A request's body whose unread rest is drained only in time (gevent's own drains
    it whatever it takes)."""

    handler: BoundedHandler

    def _discard(self):
        handler = self.handler
        if handler.close_connection or self._chunked_input_error:
            return      # the connection ends with this answer: nothing to keep in step
        if self.position >= (self.content_length or 0) and not self.chunked_input:
            return      # read whole
        left = handler.body_deadline - time.monotonic()
        drained = 0
        self.send_100_continue_enabled = False      # as gevent: no "go on" to drain it
        if left > 0:
            with gevent.Timeout(left, False):
                while drained <= DRAIN_MAX:
                    data = self.read(16384)
                    if not data:
                        return
                    drained += len(data)
        handler.close_connection = True


class BoundedHandler(pywsgi.WSGIHandler):
    """gevent's handler with idle, head and body timeouts and bounded heads."""

    _kept_alive = False     # True once this connection has had a request
    _head_timer = None
    body_deadline = 0.0     # when this request's body must be in (its head's arrival + BODY_S)

    def read_requestline(self):
        if self._kept_alive and not self._next_request_within(IDLE_S):
            return ""       # gevent closes a connection that sends nothing more
        self._kept_alive = True
        self._head_timer = gevent.Timeout.start_new(HEAD_S, SlowHead())
        # One byte past the bound and the newline: enough to tell the line is too long.
        return self.rfile.readline(REQUEST_LINE + 3).decode("latin-1")

    def _next_request_within(self, seconds: float) -> bool:
        with gevent.Timeout(seconds, False):
            self.rfile.peek(1)      # data, or the end of the connection
            return True
        return False

    def read_request(self, raw_requestline):
        try:
            if len(raw_requestline.rstrip("\r\n")) > REQUEST_LINE:
                raise RequestLineTooLong(len(raw_requestline))
            return super().read_request(raw_requestline)
        finally:
            self._stop_head_timer()     # the head is in: from here the app takes its time
            self.body_deadline = time.monotonic() + BODY_S

    def handle_one_request(self):
        try:
            return super().handle_one_request()
        finally:
            self._stop_head_timer()

    def get_environ(self):
        env = super().get_environ()
        env["ta.socket"] = self.socket      # the connection, for its writes' deadlines
        plain = self.wsgi_input
        body = _Body(plain.rfile, plain.content_length, socket=plain.socket,
                     chunked_input=plain.chunked_input)
        body.handler = self
        self.wsgi_input = body
        if env["wsgi.input"] is plain:      # an upgrade reads the socket's own file instead
            env["wsgi.input"] = body
        return env

    def handle_one_response(self):
        super().handle_one_response()
        if self._connection_upgrade_requested():
            # A hold socket has ended: its connection carries nothing more. Kept open,
            # the client's close frame that follows would be read as a next request.
            self.close_connection = True

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.close()
            self._head_timer = None

    def MessageClass(self, fp, *args):
        """The headers, read line by line within FIELDS and FIELD_SIZE (gevent's
        default reads 100 lines of up to 64 KiB each, 6.5 MB in all)."""
        lines = []
        while True:
            line = fp.readline(FIELD_SIZE + 3)
            if len(line.rstrip(b"\r\n")) > FIELD_SIZE or len(lines) > FIELDS:
                raise HeadTooLarge("a header line too long, or too many headers")
            lines.append(line)
            if line in (b"\r\n", b"\n", b""):
                break
        return super().MessageClass(io.BytesIO(b"".join(lines)))

    def _handle_client_error(self, ex):
        # Answers for what a client got wrong, without gevent's log line or traceback.
        if isinstance(ex, SlowHead):
            return "408", _TIMEOUT
        if isinstance(ex, RequestLineTooLong):
            return "414", _TOO_LONG
        if isinstance(ex, (HeadTooLarge, client.HTTPException)):
            return "431", _TOO_LARGE
        return super()._handle_client_error(ex)


class Server(pywsgi.WSGIServer):
    """gevent's server, each connection counted against its address's cap as it is
    accepted (web/door/connections.py: over it, answered 429 and closed unread)."""

    def __init__(self, listener, app, door):
        super().__init__(listener, app, handler_class=BoundedHandler)
        self.door = door

    def handle(self, sock, address):
        give_back = self.door.accepting(sock, peer_of(address))
        if give_back is None:
            return
        try:
            super().handle(sock, address)
        finally:
            give_back()


def serve(listener, app) -> pywsgi.WSGIServer:
    return Server(listener, app, app.extensions["auction_connections"])
