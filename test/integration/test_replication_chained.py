"""Chained replicas: a replica serves replicas of its own (REPLICAOF a replica), as Redis does.
What it applies from its master reaches its replicas (strings, compressed values with trained
dictionaries, deletes, FLUSHDB); a sub-replica waits while its master's link is down
(NOMASTERLINK, logged by slotkv) and links once it is up; the middle replica restarted or
promoted keeps its own replica following it; WAIT on the top master counts its direct replicas
only. Also runs against redis-server. About 10 s.
"""

import json

import pytest

from conftest import wait_until
from repl_util import (SYNC_TIMEOUT, assert_same_strings, cmd, info, link, replicaof, role,
                       start, wait_linked)


@pytest.fixture
def chain(servers):
    """master <- middle <- leaf, linked in that order."""
    master, middle, leaf = servers(), servers(), servers()
    link(middle, master)
    link(leaf, middle)
    return master, middle, leaf


def value(i):
    return json.dumps({"id": i, "name": "user%d" % (i * 7919 % 10007), "plan": "pro",
                       "email": "user%d@example.com" % i, "theme": "dark", "lang": "en"})


def test_writes_on_the_master_reach_the_replica_of_its_replica(chain):
    master, middle, leaf = chain
    c = master.client()
    for i in range(0, 4000, 500):  # enough for a trained dictionary (slotkv)
        c.execute_command("MSET", *[v for k in range(i, i + 500) for v in ("u:%d" % k, value(k))])
    c.execute_command("DEL", "u:1", "u:2")
    c.execute_command("SET", "gone", "x")
    cmd(master, "SET", "other-db", "y", db=2)
    cmd(master, "FLUSHDB", db=2)
    for i in range(4000, 5000, 500):
        c.execute_command("MSET", *[v for k in range(i, i + 500) for v in ("u:%d" % k, value(k))])
    c.execute_command("DEL", "gone")
    assert_same_strings(master, leaf)
    assert cmd(leaf, "GET", "u:4999") == value(4999).encode()
    assert cmd(leaf, "EXISTS", "u:1", "u:2", "gone") == 0
    assert cmd(leaf, "DBSIZE", db=2) == 0
    c.connection_pool.disconnect()
    # The middle replica lists its replica; the leaf names the middle one as its master.
    fields = info(middle)
    assert fields["role"] == "slave" and fields["connected_slaves"] == "1", fields
    assert ("port=%d," % leaf.port) in fields["slave0"]
    assert role(leaf)[:3] == [b"slave", b"127.0.0.1", middle.port]


def test_wait_on_the_master_counts_its_direct_replicas(chain):
    master, _, _ = chain
    assert cmd(master, "SET", "w", "1") == b"OK"
    assert cmd(master, "WAIT", 2, 500) == 1


def test_the_leaf_follows_while_the_middle_one_loses_its_master(chain):
    master, middle, leaf = chain
    cmd(master, "SET", "before", "1")
    assert wait_until(lambda: cmd(leaf, "GET", "before") == b"1", timeout=SYNC_TIMEOUT)
    master.stop()
    assert wait_until(lambda: info(middle)["master_link_status"] == "down", timeout=SYNC_TIMEOUT)
    assert info(leaf)["master_link_status"] == "up"  # its master is the middle one, still up
    master.start()
    wait_linked(middle, master)
    cmd(master, "SET", "after", "restart")
    assert wait_until(lambda: cmd(leaf, "GET", "after") == b"restart", timeout=SYNC_TIMEOUT)
    assert_same_strings(master, leaf)


def test_a_new_leaf_syncs_only_once_its_master_is_linked(chain):
    master, middle, leaf = chain
    fresh = start()
    try:
        assert cmd(middle, "REPLICAOF", "NO", "ONE") == b"OK"
        cmd(middle, "SET", "promoted", "1")  # history of its own now
        assert replicaof(middle, master) == b"OK"  # back: a full sync of what differs
        assert replicaof(fresh, middle) == b"OK"
        wait_linked(middle, master)
        wait_linked(fresh, middle)
        cmd(master, "SET", "late", "v")
        assert wait_until(lambda: cmd(fresh, "GET", "late") == b"v", timeout=SYNC_TIMEOUT)
        assert cmd(fresh, "GET", "promoted") is None
        assert_same_strings(master, fresh)
        assert_same_strings(master, leaf)
    finally:
        fresh.cleanup()


def test_promoted_middle_replica_keeps_its_replica(chain):
    master, middle, leaf = chain
    cmd(master, "SET", "before", "1")
    assert wait_until(lambda: cmd(leaf, "GET", "before") == b"1", timeout=SYNC_TIMEOUT)
    assert cmd(middle, "REPLICAOF", "NO", "ONE") == b"OK"
    cmd(middle, "SET", "mine", "2")
    assert wait_until(lambda: cmd(leaf, "GET", "mine") == b"2", timeout=SYNC_TIMEOUT)
    assert_same_strings(middle, leaf)
    assert role(leaf)[:4] == [b"slave", b"127.0.0.1", middle.port, b"connected"]


@pytest.mark.slotkv_only
def test_replica_restarted_keeps_serving_its_replica(chain):
    master, middle, leaf = chain
    before = len(middle.log())
    middle.kill()
    cmd(master, "SET", "while", "down")
    middle.start()
    wait_linked(middle, master)
    assert "FULL" not in middle.log()[before:]
    wait_linked(leaf, middle)
    assert wait_until(lambda: cmd(leaf, "GET", "while") == b"down", timeout=SYNC_TIMEOUT)
    assert_same_strings(master, leaf)
