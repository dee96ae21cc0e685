"""Entry point: `python app.py` serves on gevent; gunicorn imports `app:app`."""

# Patch before anything else imports socket, ssl or threading. Under gunicorn's
# gevent worker the patch has already been applied and this is a no-op.
from gevent import monkey

monkey.patch_all()

import os  # noqa: E402

from auction import create_app  # noqa: E402

app = create_app()

if __name__ == "__main__":
    from gevent.pywsgi import WSGIServer

    port = int(os.environ.get("PORT", "8000"))
    print(f"Time Auction on http://localhost:{port}/", flush=True)
    WSGIServer(("0.0.0.0", port), app).serve_forever()
