"""Run by tests/web/operations/test_garbage.py in a process of its own: the app served by gevent as
`python app.py` serves it, two hold sockets played through it (one pressed and let
go, one refused), then what the cyclic collector would have to free, by type name,
printed as JSON. Usage: garbage_probe.py REDIS_URL INSTANCE_PATH"""

from gevent import monkey

monkey.patch_all()

import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402

os.environ["INSTANCE_PATH"] = sys.argv[2]

from harness import TEST_CONFIG  # noqa: E402
from auction.web.app import create_app  # noqa: E402
from auction.web.operations.http_server import serve  # noqa: E402
from client import Player  # noqa: E402

config = dict(TEST_CONFIG)
app = create_app({**config, "REDIS_URL": sys.argv[1]})
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
serve(listener, app).start()
base = f"http://127.0.0.1:{listener.getsockname()[1]}"

host, me = Player(base), Player(base)
code = host.create("Host", "stake")
me.join(code, "Me")
host.post(f"/r/{code}/settings", {"ready_ms": 10_000})
host.post(f"/r/{code}/start")
gc.collect()
gc.disable()            # from here, what the hold sockets leave stays for us to see
answers = []
for _ in range(2):      # pressed and let go; then refused (out this round)
    hold = me.press()
    answers.append(hold.first)
    time.sleep(0.3)
    hold.release()
    hold.closed.wait(5)
    time.sleep(0.5)     # the server's side of the socket ends
gc.set_debug(gc.DEBUG_SAVEALL)
gc.collect()
print(json.dumps({"answers": answers,
                  "garbage": Counter(type(o).__qualname__ for o in gc.garbage)}))
sys.stdout.flush()
os._exit(0)
