"""Paged collections whose page rewrites are logged as deltas ("held values", slot/slot.h):
a replica applies each delta to its own version of the page, so its collections must end equal
to the master's, across a replica restart (kill -9) in the middle of the stream, and a master
killed with -9 comes back with every acknowledged member. Sorted sets, hashes, sets and lists
of a few thousand members, grown one member per command as applications do. About 2 s.
"""

import random

import pytest

from repl_util import SYNC_TIMEOUT, cmd, info, link, wait_linked
from conftest import wait_until

pytestmark = pytest.mark.slotkv_only


def grow(server, start, stop, seed):
    """Adds members start..stop to zs/h/s/l, with some removals, one command per change."""
    rnd = random.Random(seed)
    c = server.client()
    pipe = c.pipeline(transaction=False)
    for i in range(start, stop):
        pipe.zadd("zs", {"member:%d" % i: rnd.random() * 1000})
        pipe.hset("h", "field:%d" % i, "value-%d" % (i * 7))
        pipe.sadd("s", "member:%d" % i)
        pipe.rpush("l", "item:%d" % i) if i % 2 else pipe.lpush("l", "item:%d" % i)
        if i % 10 == 9:
            pipe.zrem("zs", "member:%d" % rnd.randrange(start, i))
            pipe.hdel("h", "field:%d" % rnd.randrange(start, i))
            pipe.srem("s", "member:%d" % rnd.randrange(start, i))
            pipe.lpop("l")
        if len(pipe) >= 400:
            pipe.execute()
    pipe.execute()
    c.connection_pool.disconnect()


def contents(server):
    c = server.client()
    got = {
        "zs": c.zrange("zs", 0, -1, withscores=True),
        "h": c.hgetall("h"),
        "s": sorted(c.smembers("s")),
        "l": c.lrange("l", 0, -1),
        "counts": (c.zcard("zs"), c.hlen("h"), c.scard("s"), c.llen("l")),
    }
    c.connection_pool.disconnect()
    return got


def assert_counts_match(got):
    # The raw client's ZRANGE WITHSCORES and HGETALL replies are flat lists.
    assert got["counts"] == (len(got["zs"]) // 2, len(got["h"]) // 2, len(got["s"]), len(got["l"]))


def test_replica_applies_page_deltas_and_ends_equal_across_its_restart(servers):
    master, rep = servers(), servers()
    link(rep, master)
    grow(master, 0, 3000, seed=1)
    assert int(info(master, "persistence")["slotkv_value_deltas"]) > 1000
    assert cmd(master, "WAIT", 1, 10000) == 1
    rep.kill()  # mid-stream: its held pages are rebuilt from its log
    grow(master, 3000, 4000, seed=2)
    rep.start()
    wait_linked(rep, master)
    grow(master, 4000, 5000, seed=3)
    assert cmd(master, "WAIT", 1, 10000) == 1
    want = contents(master)
    assert_counts_match(want)
    assert wait_until(lambda: contents(rep) == want, timeout=SYNC_TIMEOUT)


def test_master_killed_keeps_every_acknowledged_member(servers):
    master = servers()
    grow(master, 0, 4000, seed=4)
    want = contents(master)
    master.kill()
    master.start()
    got = contents(master)
    assert_counts_match(got)
    assert got == want
    grow(master, 4000, 4500, seed=5)  # writes go on over the rebuilt pages
    master.kill()
    master.start()
    assert_counts_match(contents(master))
