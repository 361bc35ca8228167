"""Helpers of the replication suites (test_replication*.py, test_sentinel.py): servers a test
starts (Servers, behind conftest's `servers` fixture), commands on a started server, INFO as pairs, linking a replica
and waiting for it, and comparing two servers' string keys."""

import re

import redis

from conftest import is_redis, start_server, string_dump, wait_until

SYNC_TIMEOUT = 30.0      # a full sync or a reconnect, on a loaded 2-core machine
# Against redis the servers run with `repl-diskless-sync-delay 0` (Redis 7 waits 5 s before
# each full sync by default, for more replicas to join it); slotkv gets no extra options.
SERVER_ARGS = ["--repl-diskless-sync-delay", "0"] if is_redis() else []


def start(data_dir=None, port=None):
    return start_server(SERVER_ARGS, data_dir, port)


class Servers:
    """Servers a single test starts: all cleaned up when it ends (a module holds few at once)."""

    def __init__(self):
        self.made = []

    def __call__(self):
        s = start()
        self.made.append(s)
        return s

    def cleanup(self):
        for s in self.made:
            s.cleanup()



def cmd(server, *args, db=0, **client_args):
    """One command on a connection of its own (client_args: redis-py's, e.g. socket_timeout)."""
    c = server.client(db=db, **client_args)
    try:
        return c.execute_command(*args)
    finally:
        c.connection_pool.disconnect()


def role(server):
    return cmd(server, "ROLE")


def info_pairs(server, section="replication"):
    """INFO <section> as [(field, value), ...] in the server's order (str)."""
    text = cmd(server, "INFO", section).decode()
    pairs = []
    for line in text.split("\r\n"):
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(":")
        pairs.append((key, value))
    return pairs


def info(server, section="replication"):
    return dict(info_pairs(server, section))


def replicaof(replica, master):
    return cmd(replica, "REPLICAOF", "127.0.0.1", master.port)


def linked(replica, master):
    """True once ROLE on the replica says connected to master and the master lists it online."""
    try:
        got = role(replica)
        if got[0] != b"slave" or got[2] != master.port or got[3] != b"connected":
            return False
        slaves = [v for k, v in info_pairs(master) if re.match(r"^slave\d+$", k)]
        return any(("port=%d," % replica.port) in v and "state=online" in v for v in slaves)
    except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
        return False


def wait_linked(replica, master, timeout=SYNC_TIMEOUT):
    assert wait_until(lambda: linked(replica, master), timeout=timeout, interval=0.1), (
        "replica %d never linked to master %d: ROLE %r\nreplica log:\n%s"
        % (replica.port, master.port, safe(lambda: role(replica)), replica.log()[-3000:]))


def link(replica, master):
    assert replicaof(replica, master) == b"OK"
    wait_linked(replica, master)


def safe(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - only for failure messages
        return e


def assert_same_strings(master, rep, timeout=60):
    """Waits until db 0 of both servers holds the same string keys; returns their counts."""
    last = {}

    def same():
        a, b = string_dump(master), string_dump(rep)
        last["diff"] = [k for k in set(a) | set(b) if a.get(k) != b.get(k)][:5]
        last["sizes"] = (len(a), len(b))
        return not last["diff"]

    assert wait_until(same, timeout=timeout, interval=0.5), last
    return last["sizes"]
