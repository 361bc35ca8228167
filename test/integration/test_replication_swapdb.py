"""SWAPDB under replication: a master's SWAPDB reaches its replicas and their replicas between
the writes before it and those after it; a replica refuses it (READONLY); a replica that was
down during a SWAPDB takes the master's map when it links again and continues its streams
(slotkv: a DBMAP frame after HELLO; its data stays where it was); a promoted replica keeps the
swapped view, across a restart too (slotkv). Also runs against redis-server. About 10 s.
"""

import pytest

from conftest import err, scan_keys, wait_until
from repl_util import SYNC_TIMEOUT, cmd, link, role

READONLY = "READONLY You can't write against a read only replica."
DBS = (0, 1, 2)


def dump(server, dbs=DBS):
    """{(db, key): value} of the string keys and hashes of dbs."""
    out = {}
    for db in dbs:
        c = server.client(db=db)
        try:
            for key in scan_keys(c):
                kind = c.type(key)
                out[(db, key)] = c.get(key) if kind == b"string" else c.hgetall(key)
        finally:
            c.connection_pool.disconnect()
    return out


def assert_same(master, *replicas):
    """Waits until every replica holds what master holds in DBS; returns that."""
    want = dump(master)
    last = {}

    def same():
        for rep in replicas:
            got = dump(rep)
            last["diff"] = [k for k in set(got) | set(want) if got.get(k) != want.get(k)][:6]
            if last["diff"]:
                return False
        return True

    assert wait_until(same, timeout=SYNC_TIMEOUT, interval=0.2), last
    return want


def write(server, db, prefix, n=200):
    c = server.client(db=db)
    c.execute_command("MSET", *[v for i in range(n) for v in ("%s:%d" % (prefix, i), "%s%d" % (
        prefix, i))])
    c.connection_pool.disconnect()


def test_swapdb_reaches_replicas_and_their_replicas_in_order(servers):
    master, middle, leaf = servers(), servers(), servers()
    link(middle, master)
    link(leaf, middle)
    write(master, 0, "zero")
    write(master, 1, "one")
    cmd(master, "HSET", "h", *[v for i in range(300) for v in ("f%d" % i, "v%d" % i)], db=1)
    assert cmd(master, "SWAPDB", 0, 1) == b"OK"
    # Written after the swap: db 0 now holds what db 1 held, and these go with it.
    write(master, 0, "after0", 50)
    cmd(master, "SET", "zero:0", "rewritten", db=1)
    cmd(master, "HSET", "h", "late", "x")
    want = assert_same(master, middle, leaf)
    assert want[(0, b"one:5")] == b"one5"
    assert want[(1, b"zero:0")] == b"rewritten"
    assert (0, b"zero:1") not in want
    assert len(want[(0, b"h")]) == 2 * 301  # HGETALL, raw: fields and values
    for rep in (middle, leaf):
        assert cmd(rep, "GET", "after0:7") == b"after07"
        assert cmd(rep, "DBSIZE", db=1) == 200
        assert cmd(rep, "DBSIZE") == 200 + 50 + 1


def test_replica_refuses_swapdb(servers):
    master, rep = servers(), servers()
    link(rep, master)
    assert err(rep.client(), "SWAPDB", 0, 1) == READONLY
    cmd(master, "SET", "k", "v")
    assert wait_until(lambda: cmd(rep, "GET", "k") == b"v", timeout=SYNC_TIMEOUT)


def test_replica_down_during_swapdb_takes_the_map_when_it_links_again(servers):
    master, rep = servers(), servers()
    write(master, 0, "zero")
    write(master, 2, "two")
    link(rep, master)
    assert_same(master, rep)
    assert rep.stop() == 0
    assert cmd(master, "SWAPDB", 0, 2) == b"OK"
    write(master, 0, "late", 20)
    rep.start()
    if role(rep)[0] == b"master":  # Redis does not keep REPLICAOF across a restart
        link(rep, master)
    want = assert_same(master, rep)
    assert want[(0, b"two:3")] == b"two3"
    assert cmd(rep, "GET", "late:19") == b"late19"
    assert cmd(rep, "EXISTS", "zero:3", db=2) == 1


def promoted_after_swap(servers):
    """A replica promoted once it followed its master's SWAPDB 0 1 of k (db0 / db1)."""
    master, rep = servers(), servers()
    link(rep, master)
    cmd(master, "SET", "k", "db0")
    cmd(master, "SET", "k", "db1", db=1)
    assert cmd(master, "SWAPDB", 0, 1) == b"OK"
    assert wait_until(lambda: cmd(rep, "GET", "k") == b"db1", timeout=SYNC_TIMEOUT)
    assert cmd(rep, "REPLICAOF", "NO", "ONE") == b"OK"
    return rep


def test_promoted_replica_keeps_the_swapped_view(servers):
    rep = promoted_after_swap(servers)
    assert cmd(rep, "GET", "k", db=1) == b"db0"
    assert cmd(rep, "SWAPDB", 1, 0) == b"OK"
    assert cmd(rep, "GET", "k") == b"db0"
    assert cmd(rep, "SWAPDB", 0, 1) == b"OK"


@pytest.mark.slotkv_only
def test_promoted_replica_keeps_the_swapped_view_across_a_restart(servers):
    rep = promoted_after_swap(servers)
    rep.kill()
    rep.start()
    assert cmd(rep, "GET", "k") == b"db1"
    assert cmd(rep, "GET", "k", db=1) == b"db0"
