"""Helpers of the replication suites (test_replication.py, test_replication_compression.py):
commands on a started server, INFO as pairs, linking a replica and waiting for it, and comparing
two servers' string keys."""

import re

import redis

from conftest import string_dump, wait_until

SYNC_TIMEOUT = 30.0      # a full sync or a reconnect, on a loaded 2-core machine


def cmd(server, *args, db=0):
    c = server.client(db=db)
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
