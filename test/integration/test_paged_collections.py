"""Paged hashes, sets, sorted sets, lists and streams: a collection above
paged-collection-threshold members is a root plus pages under internal keys (core/command/collection_pages.h). The pages must never
show as keys, survive a SIGKILL, follow RENAME / COPY / MOVE, and go when the key goes. The
suites of each family also run with paging forced (ctest py_test_hashes_paged,
py_test_sets_paged, py_test_zsets_paged, py_test_lists_paged, py_test_blocking_paged,
py_test_streams_paged, py_test_stream_groups_paged)."""

import copy
import os
import random
import threading
import time

import pytest
import redis
from redis.crc import key_slot

from conftest import err, start_server, wait_until

pytestmark = pytest.mark.slotkv_only

N = 600


@pytest.fixture(scope="module")
def server():
    s = start_server(["--paged-collection-threshold", "16", "--paged-page-members", "4"])
    yield s
    s.cleanup()


def fields(n):
    return {b"f%d" % i: b"v%d" % i for i in range(n)}


def fill_hash(r, key, n):
    args = []
    for f, v in fields(n).items():
        args += [f, v]
    assert r.execute_command("HSET", key, *args) == n


def test_paged_hash_reads_and_writes(r):
    fill_hash(r, "h", N)
    assert r.execute_command("HLEN", "h") == N
    assert r.execute_command("HGET", "h", "f17") == b"v17"
    assert r.execute_command("HMGET", "h", "f1", "nope", "f599") == [b"v1", None, b"v599"]
    assert r.execute_command("HEXISTS", "h", "f300") == 1
    assert r.execute_command("HSTRLEN", "h", "f300") == 4
    assert r.execute_command("HINCRBY", "h", "n", 5) == 5
    assert r.execute_command("HSETNX", "h", "n", 1) == 0
    assert r.execute_command("HDEL", "h", "n", "f0", "nope") == 2
    flat = r.execute_command("HGETALL", "h")
    got = dict(zip(flat[::2], flat[1::2]))
    want = fields(N)
    del want[b"f0"]
    assert got == want
    assert r.execute_command("TYPE", "h") == b"hash"
    assert r.execute_command("OBJECT", "ENCODING", "h") == b"hashtable"


def test_internal_keys_never_show(r):
    fill_hash(r, "h", N)
    r.execute_command("SADD", "s", *range(N))
    assert r.execute_command("DBSIZE") == 2
    assert sorted(r.execute_command("KEYS", "*")) == [b"h", b"s"]
    seen, cursor = [], b"0"
    while True:
        cursor, keys = r.execute_command("SCAN", cursor, "COUNT", 1000)
        seen += keys
        if cursor == b"0":
            break
    assert sorted(seen) == [b"h", b"s"]
    for _ in range(20):
        assert r.execute_command("RANDOMKEY") in (b"h", b"s")
    info = r.execute_command("INFO", "keyspace")
    assert b"db0:keys=2," in info


def test_user_keys_starting_with_0xff_stay_apart(r):
    fill_hash(r, "h", N)
    for key in (b"\xff", b"\xffp", b"\xff\xff", b"\xffc"):
        r.execute_command("SET", key, b"x" + key)
    for key in (b"\xff", b"\xffp", b"\xff\xff", b"\xffc"):
        assert r.execute_command("GET", key) == b"x" + key
    assert r.execute_command("DBSIZE") == 5
    assert sorted(r.execute_command("KEYS", "*")) == sorted(
        [b"h", b"\xff", b"\xffp", b"\xff\xff", b"\xffc"])
    assert r.execute_command("HLEN", "h") == N
    assert r.execute_command("DEL", b"\xff", b"\xffp") == 2
    assert r.execute_command("DBSIZE") == 3


def test_hscan_and_sscan_return_every_member_across_splits(r):
    fill_hash(r, "h", 100)
    r.execute_command("SADD", "s", *range(100))
    for key, cmd, step in (("h", "HSCAN", 2), ("s", "SSCAN", 1)):
        seen, cursor, calls = set(), b"0", 0
        while True:
            cursor, items = r.execute_command(cmd, key, cursor, "COUNT", 5)
            seen.update(items[::step])
            calls += 1
            # Grow while scanning: pages split under the cursor.
            if calls < 40:
                if key == "h":
                    r.execute_command("HSET", key, "new%d" % calls, "x")
                else:
                    r.execute_command("SADD", key, "new%d" % calls)
            if cursor == b"0":
                break
            assert calls < 1000
        assert calls > 3
        want = set(fields(100)) if key == "h" else {b"%d" % i for i in range(100)}
        assert want <= seen


def test_paged_set_commands(r):
    r.execute_command("SADD", "a", *range(0, 200))
    r.execute_command("SADD", "b", *range(100, 300))
    assert r.execute_command("SCARD", "a") == 200
    assert r.execute_command("SISMEMBER", "a", 150) == 1
    assert r.execute_command("SMISMEMBER", "a", 1, 250) == [1, 0]
    assert r.execute_command("SINTERSTORE", "c", "a", "b") == 100
    assert sorted(int(m) for m in r.execute_command("SMEMBERS", "c")) == list(range(100, 200))
    assert r.execute_command("SREM", "c", *range(100, 190)) == 90
    assert r.execute_command("SCARD", "c") == 10
    assert len(r.execute_command("SPOP", "c", 3)) == 3
    assert r.execute_command("SCARD", "c") == 7
    assert r.execute_command("SREM", "c", *range(100, 200)) == 7
    assert r.execute_command("EXISTS", "c") == 0
    assert r.execute_command("DBSIZE") == 2


def test_set_operations_over_paged_and_small_sets(r):
    # SINTER / SDIFF look members of one source up in the others (a few thousand per turn of
    # a paged source's owner): checked against Python sets, over sources of both layouts in
    # several slots, and a lookup count above one turn's (5000 > kLookupsPerStep).
    rng = random.Random(7)
    sets = {
        "big1": set(rng.sample(range(20000), 10000)),
        "big2": set(rng.sample(range(20000), 8000)),
        "mid": set(rng.sample(range(20000), 5000)),
        "tiny": set(rng.sample(range(30000), 10)),
    }
    for key, members in sets.items():
        ms = sorted(members)
        for start in range(0, len(ms), 5000):
            r.execute_command("SADD", key, *ms[start:start + 5000])

    def got(reply):
        return {int(m) for m in reply}

    for keys in (["tiny", "big1"], ["big1", "big2", "mid"], ["mid", "big1"], ["big2", "tiny"]):
        inter = set.intersection(*(sets[k] for k in keys))
        diff = sets[keys[0]].difference(*(sets[k] for k in keys[1:]))
        union = set.union(*(sets[k] for k in keys))
        assert got(r.execute_command("SINTER", *keys)) == inter
        assert got(r.execute_command("SDIFF", *keys)) == diff
        assert got(r.execute_command("SUNION", *keys)) == union
        assert r.execute_command("SINTERCARD", len(keys), *keys) == len(inter)
        assert r.execute_command("SINTERCARD", len(keys), *keys, "LIMIT", 3) == min(3, len(inter))
        assert r.execute_command("SINTERSTORE", "out", *keys) == len(inter)
        assert got(r.execute_command("SMEMBERS", "out")) == inter
        assert r.execute_command("SDIFFSTORE", "{x}out", *keys) == len(diff)
        assert got(r.execute_command("SMEMBERS", "{x}out")) == diff
    # A missing source empties an intersection and leaves a difference; another type is
    # WRONGTYPE wherever it stands.
    assert r.execute_command("SINTER", "big1", "nosuch") == []
    assert r.execute_command("SINTERSTORE", "out", "big1", "nosuch") == 0
    assert r.execute_command("EXISTS", "out") == 0
    assert got(r.execute_command("SDIFF", "mid", "nosuch")) == sets["mid"]
    # SMOVE between paged sets and into a new key, within a slot ({x}) and across slots.
    m = next(iter(sets["big1"] - sets["big2"]))
    assert r.execute_command("SMOVE", "big1", "big2", m) == 1
    assert r.execute_command("SMOVE", "big1", "big2", m) == 0
    assert r.execute_command("SISMEMBER", "big2", m) == 1
    assert r.execute_command("SCARD", "big1") == len(sets["big1"]) - 1
    assert r.execute_command("SCARD", "big2") == len(sets["big2"]) + 1
    assert r.execute_command("SMOVE", "{x}out", "{x}new", m) == 0
    d = next(iter(diff))
    assert r.execute_command("SMOVE", "{x}out", "{x}new", d) == 1
    assert r.execute_command("SMEMBERS", "{x}new") == [str(d).encode()]
    assert r.execute_command("SMOVE", "big2", "big2", m) == 1
    r.execute_command("SET", "str", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("SMOVE", "big2", "str", m)
    assert r.execute_command("SMOVE", "nosuch", "str", m) == 0
    assert r.execute_command("SISMEMBER", "big2", m) == 1
    for keys in (["str", "big1"], ["big1", "str"], ["nosuch", "str"]):
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            r.execute_command("SINTER", *keys)
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            r.execute_command("SDIFF", *keys)


def test_zset_operations_over_paged_inputs(r):
    # ZINTER / ZDIFF look members of one input up in the others (the leaderboard-and-friends
    # pattern: ZINTERSTORE of a small set with a big sorted set): checked against a model with
    # WEIGHTS and AGGREGATE, over inputs of both layouts, sets among them, and more lookups
    # than one turn takes (6000 > kLookupsPerStep).
    rng = random.Random(11)
    board = {m: rng.randint(0, 1000) for m in rng.sample(range(20000), 12000)}
    mid = {m: rng.randint(0, 9) for m in rng.sample(range(20000), 6000)}
    friends = set(rng.sample(range(20000), 50))
    for name, z in (("board", board), ("mid", mid)):
        items = list(z.items())
        for start in range(0, len(items), 5000):
            r.execute_command("ZADD", name, *[x for m, sc in items[start:start + 5000]
                                              for x in (sc, m)])
    r.execute_command("SADD", "friends", *friends)
    inputs = {"board": board, "mid": mid, "friends": {m: 1 for m in friends}}

    def model_inter(keys, weights, agg):
        common = set.intersection(*(set(inputs[k]) for k in keys))
        fold = {"SUM": sum, "MIN": min, "MAX": max}[agg]
        return {m: fold(inputs[k][m] * w for k, w in zip(keys, weights)) for m in common}

    def got(reply):
        return {int(reply[i]): float(reply[i + 1]) for i in range(0, len(reply), 2)}

    for keys, weights, agg in ((["friends", "board"], [0, 1], "SUM"),
                               (["board", "mid"], [1, 2], "MAX"),
                               (["mid", "board", "friends"], [1, 1, 1], "MIN")):
        want = model_inter(keys, weights, agg)
        args = [len(keys), *keys, "WEIGHTS", *weights, "AGGREGATE", agg]
        assert got(r.execute_command("ZINTER", *args, "WITHSCORES")) == want
        assert r.execute_command("ZINTERCARD", len(keys), *keys) == len(want)
        assert r.execute_command("ZINTERCARD", len(keys), *keys, "LIMIT", 7) == min(7, len(want))
        assert r.execute_command("ZINTERSTORE", "out", *args) == len(want)
        assert got(r.execute_command("ZRANGE", "out", 0, -1, "WITHSCORES")) == want
        diff = {m: sc for m, sc in inputs[keys[0]].items()
                if not any(m in inputs[k] for k in keys[1:])}
        assert got(r.execute_command("ZDIFF", len(keys), *keys, "WITHSCORES")) == diff
    union = dict(board)
    for m, sc in mid.items():
        union[m] = union.get(m, 0) + sc
    assert got(r.execute_command("ZUNION", 2, "board", "mid", "WITHSCORES")) == union
    assert r.execute_command("ZINTER", 2, "board", "nosuch") == []


def test_rename_copy_move_of_paged_collections(r):
    fill_hash(r, "h", N)
    r.execute_command("SADD", "s", *range(N))
    assert r.execute_command("RENAME", "h", "h2") == b"OK"
    assert r.execute_command("EXISTS", "h") == 0
    assert r.execute_command("HLEN", "h2") == N
    assert r.execute_command("COPY", "h2", "h3") == 1
    r.execute_command("HSET", "h3", "f1", "changed")
    assert r.execute_command("HGET", "h2", "f1") == b"v1"
    assert r.execute_command("HGET", "h3", "f1") == b"changed"
    assert r.execute_command("MOVE", "s", 1) == 1
    assert r.execute_command("EXISTS", "s") == 0
    r.execute_command("SELECT", 1)
    assert r.execute_command("SCARD", "s") == N
    assert r.execute_command("DBSIZE") == 1
    r.execute_command("SELECT", 0)
    assert r.execute_command("DBSIZE") == 2
    # Overwriting a paged collection with another.
    assert r.execute_command("RENAME", "h2", "h3") == b"OK"
    assert r.execute_command("HGET", "h3", "f1") == b"v1"
    assert r.execute_command("DBSIZE") == 1


def dump(r, key):
    kind = r.execute_command("TYPE", key)
    if kind == b"hash":
        return kind, sorted(r.execute_command("HGETALL", key))
    if kind == b"set":
        return kind, sorted(r.execute_command("SMEMBERS", key))
    if kind == b"zset":
        return kind, r.execute_command("ZRANGE", key, 0, -1, "WITHSCORES")
    if kind == b"list":
        return kind, r.execute_command("LRANGE", key, 0, -1)
    return kind, None


@pytest.fixture
def small_copy_batches(r):
    # paged-copy-batch-bytes (1 MB by default) at 32 KB: a few hundred members make batches.
    assert r.execute_command("CONFIG", "SET", "paged-copy-batch-bytes", "32kb") == b"OK"
    yield
    r.execute_command("CONFIG", "SET", "paged-copy-batch-bytes", "1mb")


def test_rename_copy_move_carry_pages_over_several_batches(r, small_copy_batches):
    # About 150 kB of pages each, 32 kB per batch (paged-copy-batch-bytes): RENAME, COPY and
    # MOVE copy them a batch per visit of each owner, under a new collection id.
    n, pad = 1500, "p" * 100
    r.execute_command("HSET", "{t}h", *[x for i in range(n) for x in ("f%d" % i, pad + str(i))])
    r.execute_command("SADD", "{t}s", *[pad + str(i) for i in range(n)])
    r.execute_command("ZADD", "{t}z", *[x for i in range(n) for x in (i % 97, pad + str(i))])
    r.execute_command("RPUSH", "{t}l", *[pad + str(i) for i in range(n)])
    for key in ("{t}h", "{t}s", "{t}z", "{t}l"):
        want = dump(r, key)
        assert r.execute_command("PEXPIRE", key, 500000) == 1
        # Same slot, then other slots (most names land in another), then back.
        names = [key, key + "2", "a" + key[3:], "b" + key[3:], "c" + key[3:], key]
        for src, dst in zip(names, names[1:]):
            assert r.execute_command("RENAME", src, dst) == b"OK"
            assert r.execute_command("EXISTS", src) == 0
            assert dump(r, dst) == want
            assert 0 < r.execute_command("PTTL", dst) <= 500000
        assert r.execute_command("RENAMENX", key, "x" + key) == 1
        assert r.execute_command("RENAMENX", "x" + key, "{t}h" if key != "{t}h" else "{t}s") == 0
        assert r.execute_command("COPY", "x" + key, key, "DB", 1) == 1
        assert r.execute_command("COPY", "x" + key, key) == 1
        assert r.execute_command("DEL", "x" + key) == 1
        r.execute_command("SELECT", 1)
        assert dump(r, key) == want
        assert r.execute_command("MOVE", key, 2) == 1
        r.execute_command("SELECT", 2)
        assert dump(r, key) == want
        assert 0 < r.execute_command("PTTL", key) <= 500000
        r.execute_command("SELECT", 0)
        assert dump(r, key) == want
    # A copy is its own collection.
    r.execute_command("HSET", "{t}h", "f1", "changed")
    r.execute_command("SELECT", 2)
    assert r.execute_command("HGET", "{t}h", "f1") == (pad + "1").encode()
    # Every page of every copy and of every source goes with the keys (DEL, not FLUSHALL,
    # which drops the slots' files): nothing of the copies' bookkeeping stays either.
    for db in (0, 2):
        r.execute_command("SELECT", db)
        assert r.execute_command("DEL", "{t}h", "{t}s", "{t}z", "{t}l") == 4
    r.execute_command("SELECT", 0)
    assert r.execute_command("DBSIZE") == 0
    wait_reclaimed(r)


def test_a_copy_cut_short_by_sigkill_leaves_no_orphan_pages(server, r):
    # A RENAME across slots copies 16 batches of pages (kPageBatchBytes), committed one by
    # one (0.3 s in all here), and is killed after a while (tried again with another while
    # when the kill came before the first page or after the root): after the restart the pages
    # copied are reclaimed
    # (collection_pages.h BeginCopy) and the source is whole.
    # The keys' slots (of 8) must be on different workers (of 2): slot % 2. On one worker the
    # copy is one step, all or nothing.
    def owner(key):
        return key_slot(key.encode()) * 8 // 16384 % 2
    dst = next(k for k in ("dst%d" % i for i in range(100)) if owner(k) != owner("src"))
    n = 16000
    members = [os.urandom(500).hex() for _ in range(n)]
    for start in range(0, n, 2000):
        r.execute_command("SADD", "src", *members[start:start + 2000])
    before = internal_keys(r)
    killed_midway = False
    for delay in (0.05, 0.1, 0.02, 0.15, 0.2, 0.01, 0.3):
        conn = server.raw()
        conn.send_command("RENAME", "src", dst)
        time.sleep(delay)
        server.kill()
        conn.close()
        server.restart()
        c = server.client()
        at_src, at_dst = c.execute_command("SCARD", "src"), c.execute_command("SCARD", dst)
        assert (at_src, at_dst) in ((n, 0), (0, n))
        if at_src == 0:
            break  # the copy was done before the kill
        if internal_keys(c) > before:  # copied pages, still there until the reclaim
            killed_midway = True
            break
    assert killed_midway
    assert c.execute_command("DEL", "src") == 1
    wait_reclaimed(c)
    c.connection_pool.disconnect()


def test_a_copy_on_one_worker_lets_other_clients_in(server, r):
    # RENAME within a slot copies a batch of pages per turn of the owner (16 batches here), so
    # a GET on that worker is answered while the RENAME still runs; so is a RENAME to another
    # slot, whether on that worker or not.
    n = 16000
    members = [os.urandom(500).hex() for _ in range(n)]
    for start in range(0, n, 2000):
        r.execute_command("SADD", "{s}src", *members[start:start + 2000])
    r.execute_command("SET", "{s}other", "x")
    for src, dst in (("{s}src", "{s}dst"), ("{s}dst", "dst")):
        with server.raw(timeout=30) as renaming, server.raw() as getting:
            renaming.send_command("RENAME", src, dst)
            time.sleep(0.02)
            getting.send_command("GET", "{s}other")
            getting.expect(b"$1\r\nx\r\n")
            renaming.sock.setblocking(False)
            try:
                early = renaming.sock.recv(64)
            except BlockingIOError:
                early = b""
            renaming.sock.setblocking(True)
            assert early == b"", "the RENAME ended before the GET was answered"
            renaming.expect(b"+OK\r\n")
        assert r.execute_command("SCARD", dst) == n


def test_del_then_recreate_is_a_new_collection(r):
    fill_hash(r, "h", N)
    t = time.monotonic()
    assert r.execute_command("DEL", "h") == 1
    assert time.monotonic() - t < 1.0
    assert r.execute_command("EXISTS", "h") == 0
    assert r.execute_command("HSET", "h", "only", "1") == 1
    assert r.execute_command("HGETALL", "h") == [b"only", b"1"]
    fill_hash(r, "h", N)
    assert r.execute_command("HLEN", "h") == N + 1
    assert r.execute_command("EXPIRE", "h", 100) == 1
    assert 0 < r.execute_command("TTL", "h") <= 100
    assert r.execute_command("HLEN", "h") == N + 1
    assert r.execute_command("PEXPIRE", "h", -1) == 1
    assert r.execute_command("EXISTS", "h") == 0
    assert r.execute_command("DBSIZE") == 0


def test_del_of_a_persisted_collection_reclaims_its_pages_with_no_write_after(r):
    # The root is in the buckets (SAVE persisted it), and nothing is written after the DEL:
    # the DEL itself hands the root over (a flush of its group would, and none comes).
    fill_hash(r, "{d}persisted", 3000)
    r.execute_command("SAVE")
    assert internal_keys(r) > 0
    assert r.execute_command("DEL", "{d}persisted") == 1
    wait_reclaimed(r)
    assert r.execute_command("EXISTS", "{d}persisted") == 0


def test_paged_collections_survive_sigkill(server, r):
    fill_hash(r, "h", N)
    r.execute_command("SADD", "s", *range(N))
    r.execute_command("HDEL", "h", "f5")
    fill_hash(r, "gone", N)
    r.execute_command("DEL", "gone")
    server.kill()
    server.restart()
    c = server.client()
    assert c.execute_command("HLEN", "h") == N - 1
    assert c.execute_command("HGET", "h", "f6") == b"v6"
    assert c.execute_command("HGET", "h", "f5") is None
    assert c.execute_command("SCARD", "s") == N
    assert c.execute_command("DBSIZE") == 2
    assert c.execute_command("EXISTS", "gone") == 0
    c.connection_pool.disconnect()


def internal_keys(r):
    info = r.execute_command("INFO", "keyspace").decode()
    for line in info.splitlines():
        if line.startswith("slotkv_internal_keys:"):
            return int(line.split(":")[1])
    return 0


def wait_reclaimed(r):
    for _ in range(200):
        if internal_keys(r) == 0:
            return
        time.sleep(0.05)
    assert internal_keys(r) == 0


def zmodel_order(model):
    return sorted(model.items(), key=lambda kv: (kv[1], kv[0]))


def flat(entries):
    out = []
    for m, s in entries:
        out += [m, b"%g" % s if s != int(s) else b"%d" % int(s)]
    return out


def test_paged_zset_matches_a_model(r):
    rng = random.Random(7)
    model = {}
    for i in range(3000):
        m = b"m%d" % rng.randrange(400)
        op = rng.random()
        if op < 0.6:
            score = rng.randrange(40)
            r.execute_command("ZADD", "z", score, m)
            model[m] = score
        elif op < 0.8:
            assert r.execute_command("ZREM", "z", m) == (1 if m in model else 0)
            model.pop(m, None)
        else:
            got = r.execute_command("ZINCRBY", "z", 2, m)
            model[m] = model.get(m, 0) + 2
            assert float(got) == model[m]
    order = zmodel_order(model)
    members = [m for m, _ in order]
    assert r.execute_command("OBJECT", "ENCODING", "z") == b"skiplist"
    assert r.execute_command("ZCARD", "z") == len(order)
    assert r.execute_command("ZRANGE", "z", 0, -1) == members
    assert r.execute_command("ZRANGE", "z", 100, 120, "REV") == members[::-1][100:121]
    assert r.execute_command("ZRANGE", "z", 50, 60, "WITHSCORES") == flat(order[50:61])
    for m in members[::37]:
        assert r.execute_command("ZRANK", "z", m) == members.index(m)
        assert r.execute_command("ZREVRANK", "z", m) == len(members) - 1 - members.index(m)
        assert float(r.execute_command("ZSCORE", "z", m)) == model[m]
    assert r.execute_command("ZRANK", "z", "nope") is None
    in_10_20 = [m for m, s in order if 10 <= s <= 20]
    assert r.execute_command("ZRANGEBYSCORE", "z", 10, 20) == in_10_20
    assert r.execute_command("ZRANGEBYSCORE", "z", "(10", "+inf", "LIMIT", 3, 5) == \
        [m for m, s in order if s > 10][3:8]
    assert r.execute_command("ZREVRANGEBYSCORE", "z", 20, 10, "LIMIT", 2, 4) == \
        in_10_20[::-1][2:6]
    assert r.execute_command("ZCOUNT", "z", 10, 20) == len(in_10_20)
    assert r.execute_command("ZCOUNT", "z", "(10", "(10") == 0
    assert r.execute_command("ZMSCORE", "z", members[0], "nope") == [
        b"%d" % model[members[0]], None]
    # Pops from both ends, then range removals.
    assert r.execute_command("ZPOPMIN", "z", 3) == flat(order[:3])
    assert r.execute_command("ZPOPMAX", "z") == flat(order[-1:])
    assert r.execute_command("ZMPOP", 1, "z", "MIN", "COUNT", 2) == [
        b"z", [[m, b"%d" % s] for m, s in order[3:5]]]
    order = order[5:-1]
    assert r.execute_command("ZREMRANGEBYSCORE", "z", 10, 20) == len(
        [m for m, s in order if 10 <= s <= 20])
    order = [(m, s) for m, s in order if not 10 <= s <= 20]
    assert r.execute_command("ZREMRANGEBYRANK", "z", 10, 29) == 20
    order = order[:10] + order[30:]
    assert r.execute_command("ZRANGE", "z", 0, -1, "WITHSCORES") == flat(order)
    assert r.execute_command("ZREMRANGEBYRANK", "z", 0, -1) == len(order)
    assert r.execute_command("EXISTS", "z") == 0
    wait_reclaimed(r)


def test_paged_zset_lex_ranges(r):
    members = sorted(b"k%04d" % i for i in range(300))
    r.execute_command("ZADD", "lex", *[x for m in members for x in (0, m)])
    assert r.execute_command("ZRANGEBYLEX", "lex", "[k0100", "(k0110") == members[100:110]
    assert r.execute_command("ZREVRANGEBYLEX", "lex", "+", "(k0290") == members[:290:-1]
    assert r.execute_command("ZRANGE", "lex", "-", "[k0005", "BYLEX", "LIMIT", 1, 3) == \
        members[1:4]
    assert r.execute_command("ZLEXCOUNT", "lex", "[k0100", "[k0199") == 100
    assert r.execute_command("ZREMRANGEBYLEX", "lex", "[k0000", "(k0200") == 200
    assert r.execute_command("ZRANGE", "lex", 0, -1) == members[200:]


def test_zscan_returns_every_member_across_splits(r):
    r.execute_command("ZADD", "z", *[x for i in range(100) for x in (i, b"m%d" % i)])
    seen, cursor, calls = {}, b"0", 0
    while True:
        cursor, items = r.execute_command("ZSCAN", "z", cursor, "COUNT", 5)
        seen.update(zip(items[::2], items[1::2]))
        calls += 1
        if calls < 40:
            r.execute_command("ZADD", "z", 1000 + calls, "new%d" % calls)
        if cursor == b"0":
            break
        assert calls < 1000
    assert calls > 3
    for i in range(100):
        assert seen[b"m%d" % i] == b"%d" % i


def test_paged_zset_set_algebra_rename_copy(r):
    r.execute_command("ZADD", "a", *[x for i in range(200) for x in (i, i)])
    r.execute_command("SADD", "s", *range(100, 300))
    assert r.execute_command("ZUNIONSTORE", "u", 2, "a", "s") == 300
    assert r.execute_command("ZSCORE", "u", 150) == b"151"
    assert r.execute_command("ZINTERSTORE", "i", 2, "a", "s", "AGGREGATE", "MAX") == 100
    assert r.execute_command("ZRANGE", "i", 0, 2, "WITHSCORES") == [
        b"100", b"100", b"101", b"101", b"102", b"102"]
    assert r.execute_command("ZRANGESTORE", "r", "a", 10, 49) == 40
    assert r.execute_command("ZRANGE", "r", 0, -1) == [b"%d" % i for i in range(10, 50)]
    assert r.execute_command("RENAME", "a", "a2") == b"OK"
    assert r.execute_command("COPY", "a2", "a3") == 1
    r.execute_command("ZADD", "a3", 1000, 5)
    assert r.execute_command("ZRANK", "a2", 5) == 5
    assert r.execute_command("ZRANK", "a3", 5) == 199
    assert r.execute_command("ZCARD", "a2") == 200
    assert r.execute_command("DBSIZE") == 6
    r.execute_command("FLUSHALL")
    wait_reclaimed(r)


def test_paged_zset_survives_sigkill_without_orphan_pages(server, r):
    r.execute_command("ZADD", "z", *[x for i in range(N) for x in (i % 50, b"m%d" % i)])
    r.execute_command("ZREM", "z", "m7")
    r.execute_command("ZADD", "gone", *[x for i in range(N) for x in (i, i)])
    # The expiry step that queues gone's pages comes after the kill (hz 1): the log's replay
    # must hand its root over again.
    r.execute_command("CONFIG", "SET", "hz", "1")
    time.sleep(1.1)
    r.execute_command("DEL", "gone")
    server.kill()
    server.restart()
    c = server.client()
    assert c.execute_command("ZCARD", "z") == N - 1
    assert c.execute_command("ZSCORE", "z", "m57") == b"7"
    assert c.execute_command("ZSCORE", "z", "m7") is None
    assert c.execute_command("ZCOUNT", "z", 7, 7) == N // 50 - 1
    assert c.execute_command("DBSIZE") == 1
    assert c.execute_command("EXISTS", "gone") == 0
    # Every page left belongs to z: once z goes, none may remain.
    assert internal_keys(c) > 0
    assert c.execute_command("DEL", "z") == 1
    wait_reclaimed(c)
    c.connection_pool.disconnect()


def test_paged_list_matches_a_model(r):
    rng = random.Random(11)
    model = []
    for i in range(3000):
        op = rng.random()
        v = b"e%d" % rng.randrange(50)
        if op < 0.3:
            assert r.execute_command("RPUSH", "l", v) == len(model) + 1
            model.append(v)
        elif op < 0.55:
            assert r.execute_command("LPUSH", "l", v) == len(model) + 1
            model.insert(0, v)
        elif op < 0.65:
            assert r.execute_command("LPOP", "l") == (model.pop(0) if model else None)
        elif op < 0.75:
            assert r.execute_command("RPOP", "l") == (model.pop() if model else None)
        elif op < 0.85 and model:
            i = rng.randrange(-len(model), len(model))
            assert r.execute_command("LINDEX", "l", i) == model[i]
            r.execute_command("LSET", "l", i, v + b"s")
            model[i] = v + b"s"
        elif op < 0.9 and model:
            start = rng.randrange(-len(model) - 2, len(model) + 2)
            stop = rng.randrange(-len(model) - 2, len(model) + 2)
            a = max(start + len(model), 0) if start < 0 else start
            b = stop + len(model) if stop < 0 else min(stop, len(model) - 1)
            assert r.execute_command("LRANGE", "l", start, stop) == model[a:b + 1]
        elif op < 0.93 and model:
            pivot = rng.choice(model)
            assert r.execute_command("LINSERT", "l", "AFTER", pivot, b"ins") == len(model) + 1
            model.insert(model.index(pivot) + 1, b"ins")
        elif op < 0.96 and model:
            count = rng.randrange(-2, 3)
            target = rng.choice(model)
            want = model.count(target) if count == 0 else min(abs(count), model.count(target))
            assert r.execute_command("LREM", "l", count, target) == want
            order = range(len(model)) if count >= 0 else range(len(model) - 1, -1, -1)
            drop = [i for i in order if model[i] == target][:want]
            model = [x for i, x in enumerate(model) if i not in set(drop)]
        elif model:
            target = rng.choice(model)
            assert r.execute_command("LPOS", "l", target) == model.index(target)
            assert r.execute_command("LPOS", "l", target, "RANK", -1) == \
                len(model) - 1 - model[::-1].index(target)
            assert r.execute_command("LPOS", "l", target, "COUNT", 0) == [
                i for i, x in enumerate(model) if x == target]
        assert r.execute_command("LLEN", "l") == len(model)
    assert r.execute_command("LRANGE", "l", 0, -1) == model
    assert len(model) > 100
    assert r.execute_command("OBJECT", "ENCODING", "l") == b"quicklist"
    # LTRIM in the middle, then to nothing; the pages go.
    assert r.execute_command("LTRIM", "l", 10, -11) == b"OK"
    model = model[10:-10]
    assert r.execute_command("LRANGE", "l", 0, -1) == model
    assert r.execute_command("LTRIM", "l", 5, 1) == b"OK"
    assert r.execute_command("EXISTS", "l") == 0
    wait_reclaimed(r)


def test_paged_list_moves_and_blocking_pops(r):
    r.execute_command("RPUSH", "src", *range(N))
    assert r.execute_command("LMOVE", "src", "dst", "LEFT", "RIGHT") == b"0"
    assert r.execute_command("RPOPLPUSH", "src", "src") == b"%d" % (N - 1)
    assert r.execute_command("LINDEX", "src", 0) == b"%d" % (N - 1)
    assert r.execute_command("BLPOP", "nothing", "src", 1) == [b"src", b"%d" % (N - 1)]
    assert r.execute_command("LMPOP", 1, "src", "RIGHT", "COUNT", 3) == [
        b"src", [b"%d" % (N - 2), b"%d" % (N - 3), b"%d" % (N - 4)]]
    assert r.execute_command("LLEN", "src") == N - 5
    assert r.execute_command("RENAME", "src", "s2") == b"OK"
    assert r.execute_command("COPY", "s2", "s3") == 1
    r.execute_command("LSET", "s3", 0, "changed")
    assert r.execute_command("LINDEX", "s2", 0) == b"1"
    assert r.execute_command("LINDEX", "s3", 0) == b"changed"
    assert r.execute_command("LRANGE", "s2", 100, 102) == [b"101", b"102", b"103"]
    r.execute_command("FLUSHALL")
    wait_reclaimed(r)


def test_paged_list_survives_sigkill_without_orphan_pages(server, r):
    r.execute_command("RPUSH", "l", *range(N))
    r.execute_command("LPUSH", "l", "head")
    r.execute_command("LSET", "l", 300, "mid")
    r.execute_command("RPUSH", "gone", *range(N))
    r.execute_command("UNLINK", "gone")
    server.kill()
    server.restart()
    c = server.client()
    assert c.execute_command("LLEN", "l") == N + 1
    assert c.execute_command("LINDEX", "l", 0) == b"head"
    assert c.execute_command("LINDEX", "l", 300) == b"mid"
    assert c.execute_command("LINDEX", "l", -1) == b"%d" % (N - 1)
    assert c.execute_command("DBSIZE") == 1
    assert internal_keys(c) > 0
    assert c.execute_command("DEL", "l") == 1
    wait_reclaimed(c)
    c.connection_pool.disconnect()


def test_paged_stream_survives_sigkill_without_orphan_pages(server, r):
    """A paged stream keeps its entries, IDs, counters and group state (in its root) through a
    SIGKILL; RENAME and COPY move it page by page; a deleted one leaves no pages behind."""
    for i in range(1, N + 1):
        r.execute_command("XADD", "s", "%d-1" % i, "f", i, "pad", "p" * (i % 30))
    r.execute_command("XGROUP", "CREATE", "s", "g", "0")
    r.execute_command("XREADGROUP", "GROUP", "g", "alice", "COUNT", 50, "STREAMS", "s", ">")
    r.execute_command("XACK", "s", "g", "1-1", "2-1")
    r.execute_command("XDEL", "s", "300-1")
    assert r.execute_command("XTRIM", "s", "MINID", "11-1") == 10
    for i in range(1, N + 1):
        r.execute_command("XADD", "gone", "%d-1" % i, "f", i)
    r.execute_command("UNLINK", "gone")
    want = r.execute_command("XRANGE", "s", "-", "+")
    assert len(want) == N - 11
    server.kill()
    server.restart()
    c = server.client()
    assert c.execute_command("XRANGE", "s", "-", "+") == want
    assert c.execute_command("XREVRANGE", "s", "+", "-", "COUNT", 2) == want[::-1][:2]
    assert c.execute_command("XLEN", "s") == N - 11
    assert c.execute_command("XPENDING", "s", "g")[:3] == [48, b"3-1", b"50-1"]
    groups = c.execute_command("XINFO", "GROUPS", "s")[0]
    assert groups[:8] == [b"name", b"g", b"consumers", 1, b"pending", 48,
                          b"last-delivered-id", b"50-1"]
    assert c.execute_command("RENAME", "s", "s2") == b"OK"
    assert c.execute_command("COPY", "s2", "s3") == 1
    c.execute_command("XADD", "s3", "*", "f", "new")
    assert c.execute_command("XRANGE", "s2", "-", "+") == want
    assert c.execute_command("XLEN", "s3") == N - 10
    assert c.execute_command("DBSIZE") == 2
    assert internal_keys(c) > 0
    assert c.execute_command("DEL", "s2", "s3") == 2
    wait_reclaimed(c)
    c.connection_pool.disconnect()


# ---- paged streams: consumer groups' pending entries (PEL) in pages ------------------------------
# A paged stream keeps each group's PEL in two page trees of its own (by ID; by consumer, then
# ID). The tests below drive a group with a PEL of hundreds of entries through the commands
# that change it and check every reply against a model of Redis's rules (StreamModel), then the
# same state through a SIGKILL, XGROUP DELCONSUMER / DESTROY, COPY / RENAME and DUMP / RESTORE.


def xid(i):
    """The ID of entry number i: every entry of these streams is i-1."""
    return b"%d-1" % i


def now_ms():
    return int(time.time() * 1000)


def as_dict(flat):
    return {k.decode(): v for k, v in zip(flat[::2], flat[1::2])}


class StreamModel:
    """A stream of entries i-1 (field f, value i) and its consumer groups, as Redis keeps them."""

    def __init__(self, key):
        self.key = key
        self.entries = set()
        self.groups = {}
        self.t_start = now_ms()  # every delivery the server times itself comes after this
        self.t_old = self.t_start - 10 ** 7  # XCLAIM ... TIME t_old: idle for hours

    def entry(self, i):
        return [xid(i), [b"f", b"%d" % i]]

    def add(self, r, first, last):
        pipe = r.pipeline(transaction=False)
        for i in range(first, last + 1):
            pipe.execute_command("XADD", self.key, xid(i), "f", i)
        assert pipe.execute() == [xid(i) for i in range(first, last + 1)]
        self.entries.update(range(first, last + 1))

    def xdel(self, r, *nums):
        want = len(set(nums) & self.entries)
        assert r.execute_command("XDEL", self.key, *[xid(i) for i in nums]) == want
        self.entries -= set(nums)

    def create(self, r, name, start=0):
        assert r.execute_command("XGROUP", "CREATE", self.key, name, start) == b"OK"
        self.groups[name] = GroupModel(self, name, start)
        return self.groups[name]


class GroupModel:
    """One consumer group: pel maps entry number i to [consumer, delivery count, delivery time]
    (time None: set by the server's clock, so between the model's t_start and now)."""

    def __init__(self, stream, name, last=0):
        self.s = stream
        self.name = name
        self.last = last
        self.pel = {}
        self.consumers = set()

    def owned(self, consumer):
        return sorted(i for i, p in self.pel.items() if p[0] == consumer)

    def read_new(self, r, consumer, count):
        """XREADGROUP ... >: how many entries it delivered."""
        nums = sorted(i for i in self.s.entries if i > self.last)[:count]
        got = r.execute_command("XREADGROUP", "GROUP", self.name, consumer, "COUNT", count,
                                "STREAMS", self.s.key, ">")
        if not nums:
            assert got is None
            return 0
        assert got == [[self.s.key.encode(), [self.s.entry(i) for i in nums]]]
        for i in nums:
            self.pel[i] = [consumer, 1, None]
        self.consumers.add(consumer)
        self.last = nums[-1]
        return len(nums)

    def history(self, r, consumer, count, after=0):
        """XREADGROUP ... <ID>: the consumer's own pending entries above `after`, each delivered
        once more; a deleted one shows as [id, nil] and keeps its count."""
        nums = [i for i in self.owned(consumer) if i > after][:count]
        got = r.execute_command("XREADGROUP", "GROUP", self.name, consumer, "COUNT", count,
                                "STREAMS", self.s.key, xid(after) if after else "0")
        want = []
        for i in nums:
            if i in self.s.entries:
                want.append(self.s.entry(i))
                self.pel[i][1] += 1
                self.pel[i][2] = None
            else:
                want.append([xid(i), None])
        assert got == [[self.s.key.encode(), want]]
        self.consumers.add(consumer)
        return nums

    def ack(self, r, nums):
        want = len({i for i in nums if i in self.pel})
        assert r.execute_command("XACK", self.s.key, self.name, *[xid(i) for i in nums]) == want
        for i in nums:
            self.pel.pop(i, None)
        return want

    def claim(self, r, consumer, nums, justid=False, time_ms=None):
        """XCLAIM with min-idle-time 0: a pending entry whose stream entry is gone leaves the PEL
        and the reply."""
        args = ["XCLAIM", self.s.key, self.name, consumer, 0, *[xid(i) for i in nums]]
        if time_ms is not None:
            args += ["TIME", time_ms]
        if justid:
            args.append("JUSTID")
        want = []
        for i in nums:
            if i not in self.pel:
                continue
            if i not in self.s.entries:
                del self.pel[i]
                continue
            self.pel[i] = [consumer, self.pel[i][1] + (0 if justid else 1), time_ms]
            want.append(xid(i) if justid else self.s.entry(i))
        if want:
            self.consumers.add(consumer)
        assert r.execute_command(*args) == want
        return want

    def autoclaim(self, r, consumer, start, count, justid=False):
        """XAUTOCLAIM with min-idle-time 0 from entry number start: the next cursor (0: done)."""
        args = ["XAUTOCLAIM", self.s.key, self.name, consumer, 0, xid(start) if start else "0",
                "COUNT", count] + (["JUSTID"] if justid else [])
        nums = sorted(i for i in self.pel if i >= start)
        claimed, deleted = [], []
        for i in nums[:count]:  # deleted entries count against COUNT too
            if i not in self.s.entries:
                del self.pel[i]
                deleted.append(xid(i))
            else:
                self.pel[i] = [consumer, self.pel[i][1] + (0 if justid else 1), None]
                claimed.append(xid(i) if justid else self.s.entry(i))
        if claimed:
            self.consumers.add(consumer)
        cursor = nums[count] if len(nums) > count else 0
        assert r.execute_command(*args) == [xid(cursor) if cursor else b"0-0", claimed, deleted]
        return cursor

    def delconsumer(self, r, consumer):
        mine = self.owned(consumer)
        want = len(mine) if consumer in self.consumers else 0
        assert r.execute_command("XGROUP", "DELCONSUMER", self.s.key, self.name, consumer) == want
        for i in mine:
            del self.pel[i]
        self.consumers.discard(consumer)

    # ---- checks ----------------------------------------------------------------------------

    def check_time(self, t, got, t_end):
        if t is None:
            assert self.s.t_start - 1 <= got <= t_end + 1, (self.s.t_start, got, t_end)
        else:
            assert got == t

    def check_summary(self, r):
        got = r.execute_command("XPENDING", self.s.key, self.name)
        if not self.pel:
            assert got == [0, None, None, None]
            return
        per = {}
        for c, _, _ in self.pel.values():
            per[c] = per.get(c, 0) + 1
        assert got == [len(self.pel), xid(min(self.pel)), xid(max(self.pel)),
                       [[c.encode(), b"%d" % n] for c, n in sorted(per.items())]]

    def check_pending(self, r, lo=None, hi=None, count=100000, consumer=None, idle=None,
                      exclusive=False):
        """XPENDING's extended form against the model: rows in full but for the idle time,
        which is checked against the delivery time where the model knows it. `idle` is 0 or
        at least an hour (a delivery timed by the server is younger)."""
        start = "-" if lo is None else ("(" if exclusive else "") + xid(lo).decode()
        end = "+" if hi is None else xid(hi)
        args = ["XPENDING", self.s.key, self.name]
        if idle is not None:
            args += ["IDLE", idle]
        args += [start, end, count] + ([consumer] if consumer else [])
        t0 = now_ms()
        got = r.execute_command(*args)
        t1 = now_ms()
        want = []
        for i in sorted(self.pel):
            c, n, t = self.pel[i]
            if lo is not None and (i < lo or (exclusive and i == lo)):
                continue
            if (hi is not None and i > hi) or (consumer and c != consumer):
                continue
            if idle and (t is None or t0 - t < idle):
                continue
            want.append([xid(i), c.encode(), n])
        want = want[:count]
        assert [[row[0], row[1], row[3]] for row in got] == want
        for row in got:
            t = self.pel[int(row[0].split(b"-")[0])][2]
            if t is None:
                assert 0 <= row[2] <= t1 - self.s.t_start + 1
            else:
                assert t0 - t - 1 <= row[2] <= t1 - t + 1
        return want

    def check_info(self, r, count=10):
        """XINFO GROUPS, XINFO CONSUMERS and XINFO STREAM FULL (COUNT count) for this group."""
        groups = {g[1]: as_dict(g) for g in r.execute_command("XINFO", "GROUPS", self.s.key)}
        g = groups[self.name.encode()]
        assert (g["consumers"], g["pending"], g["last-delivered-id"]) == (
            len(self.consumers), len(self.pel), xid(self.last) if self.last else b"0-0")
        got = r.execute_command("XINFO", "CONSUMERS", self.s.key, self.name)
        assert [c[:4] for c in got] == [[b"name", c.encode(), b"pending", len(self.owned(c))]
                                        for c in sorted(self.consumers)]
        assert [c[4] for c in got] == [b"idle"] * len(self.consumers)
        full = as_dict(r.execute_command("XINFO", "STREAM", self.s.key, "FULL", "COUNT", count))
        t_end = now_ms()
        g = {x[1]: as_dict(x) for x in full["groups"]}[self.name.encode()]
        limit = count or None
        first = sorted(self.pel)[:limit]
        assert g["pel-count"] == len(self.pel)
        assert [[row[0], row[1], row[3]] for row in g["pending"]] == [
            [xid(i), self.pel[i][0].encode(), self.pel[i][1]] for i in first]
        delivered = {}
        for row in g["pending"]:
            i = int(row[0].split(b"-")[0])
            self.check_time(self.pel[i][2], row[2], t_end)
            delivered[row[0]] = row[2]
        consumers = [as_dict(c) for c in g["consumers"]]
        assert [c["name"] for c in consumers] == [c.encode() for c in sorted(self.consumers)]
        for c in consumers:
            mine = self.owned(c["name"].decode())
            assert c["pel-count"] == len(mine)
            assert [[row[0], row[2]] for row in c["pending"]] == [
                [xid(i), self.pel[i][1]] for i in mine[:limit]]
            for row in c["pending"]:
                self.check_time(self.pel[int(row[0].split(b"-")[0])][2], row[1], t_end)
                if row[0] in delivered:  # one delivery time per pending entry
                    assert row[1] == delivered[row[0]]
            assert self.s.t_start - 1 <= c["seen-time"] <= t_end + 1

    def check(self, r, count=25):
        self.check_summary(r)
        self.check_pending(r)
        self.check_info(r, count)


def build_big_pel(r, key="s"):
    """A paged stream of 3*N entries with two groups. g: read by alice and bob by turns, every
    fifth entry acknowledged, some of alice's claimed by bob (with TIME far back, and JUSTID),
    entries deleted while pending and dropped by XCLAIM / XAUTOCLAIM or shown by a history
    read, carol's XAUTOCLAIM rounds, bob's history read. g2: the first N entries, zed's."""
    m = StreamModel(key)
    m.add(r, 1, 3 * N)
    g = m.create(r, "g")
    g2 = m.create(r, "g2")
    for turn in range(60):
        if not g.read_new(r, ("alice", "bob")[turn % 2], (97, 61)[turn % 2]):
            break
    assert g.last == 3 * N and len(g.pel) == 3 * N
    assert g2.read_new(r, "zed", N) == N
    # Every fifth, 1 and 6 twice, one ID never added.
    assert g.ack(r, list(range(1, 3 * N + 1, 5)) + [1, 6, 3 * N + 7]) == 3 * N // 5
    alice = g.owned("alice")
    g.claim(r, "bob", alice[::7] + [6], time_ms=m.t_old)  # 6 is acknowledged: not claimed
    g.claim(r, "bob", alice[3::11], justid=True)
    alice, bob = g.owned("alice"), g.owned("bob")
    pending = sorted(g.pel)
    d_claim, d_auto, d_hist = alice[10], pending[len(pending) * 7 // 10], bob[4]
    assert len({d_claim, d_auto, d_hist}) == 3
    m.xdel(r, d_claim, d_auto, d_hist, 11)  # 11 was acknowledged
    assert [x[0] for x in g.claim(r, "bob", [d_claim, alice[12]])] == [xid(alice[12])]
    assert d_claim not in g.pel
    cursor = g.autoclaim(r, "carol", d_auto - 20, 50)
    assert d_auto not in g.pel and cursor > d_auto
    cursor = g.autoclaim(r, "carol", cursor, 30, justid=True)
    assert cursor
    assert d_hist in g.history(r, "bob", 40)
    assert d_hist in g.pel  # shown as [id, nil]; its count unchanged
    assert len(g.pel) > 2 * N
    return m


def group_state(r, key):
    """Every group reply of a stream that does not depend on the clock: XINFO STREAM FULL with
    COUNT 0 (its times are absolute), XINFO GROUPS, per group XPENDING's summary, its extended
    form over everything without the idle column, XINFO CONSUMERS without idle. The radix-tree
    figures of XINFO STREAM FULL are left out: they describe the storage, not the stream."""
    full = as_dict(r.execute_command("XINFO", "STREAM", key, "FULL", "COUNT", 0))
    del full["radix-tree-keys"], full["radix-tree-nodes"]
    out = {"full": full, "groups": r.execute_command("XINFO", "GROUPS", key),
           "entries": r.execute_command("XRANGE", key, "-", "+")}
    for g in out["groups"]:
        name = g[1]
        rows = r.execute_command("XPENDING", key, name, "-", "+", 100000)
        out[name] = (r.execute_command("XPENDING", key, name),
                     [row[:2] + row[3:] for row in rows],
                     [c[:4] for c in r.execute_command("XINFO", "CONSUMERS", key, name)])
    return out


def test_paged_stream_large_pel_matches_a_model(r):
    """XPENDING (summary, ranges, consumer, IDLE), XINFO GROUPS / CONSUMERS / STREAM FULL and
    history reads over a group PEL of hundreds of entries in pages."""
    wait_reclaimed(r)
    m = build_big_pel(r)
    g, g2 = m.groups["g"], m.groups["g2"]
    assert internal_keys(r) > 0
    for grp in (g, g2):
        grp.check(r, count=25)
    g.check_info(r, count=0)
    ids = sorted(g.pel)
    assert len(g.check_pending(r, lo=ids[100], hi=ids[400], count=37)) == 37
    assert len(g.check_pending(r, lo=ids[100], hi=ids[110], count=37, exclusive=True)) == 10
    assert g.check_pending(r, lo=ids[400], hi=ids[100], count=10) == []
    assert g.check_pending(r, lo=ids[-3], count=10) == g.check_pending(r, lo=ids[-3])
    assert len(g.check_pending(r, consumer="bob", count=30)) == 30
    assert len(g.check_pending(r, lo=ids[200], consumer="alice", count=20)) == 20
    assert len(g.check_pending(r, consumer="carol")) == 80 - 1  # a deleted entry dropped
    assert g.check_pending(r, consumer="nobody") == []
    old = g.check_pending(r, idle=3600 * 1000)
    assert len(old) > 20 and {row[1] for row in old} == {b"bob"}
    assert len(g.check_pending(r, idle=3600 * 1000, count=5, lo=ids[300], consumer="bob")) == 5
    assert g.check_pending(r, idle=3600 * 1000, consumer="alice") == []
    assert len(g.check_pending(r, idle=0, count=50)) == 50
    # A history read with COUNT (from "0", then from an ID) delivers each entry it returns once
    # more: one more delivery in XPENDING for those and no other, whatever page they are on.
    for consumer, start in (("bob", None), ("alice", 100)):
        rows = r.execute_command("XPENDING", "s", "g", "-", "+", 10000)
        before = {row[0]: row[3] for row in rows}
        mine = g.owned(consumer)
        nums = g.history(r, consumer, 60, after=mine[start] if start else 0)
        assert nums == (mine[start + 1:start + 61] if start else mine[:60])
        rows = r.execute_command("XPENDING", "s", "g", "-", "+", 10000)
        assert {row[0]: row[3] - before[row[0]] for row in rows if row[3] != before[row[0]]} == {
            xid(i): 1 for i in nums if i in m.entries}
        assert len(rows) == len(before)
    g.check(r, count=0)
    g2.check(r)
    assert r.execute_command("DEL", "s") == 1
    wait_reclaimed(r)


def test_paged_stream_pel_survives_sigkill(server, r):
    """The PEL pages and the group counts in the root come back exactly after a SIGKILL, and
    the PEL takes changes after it (which a second SIGKILL keeps too)."""
    wait_reclaimed(r)
    m = build_big_pel(r)
    g = m.groups["g"]
    for round_ in range(2):
        want = group_state(r, "s")
        server.kill()
        server.restart()
        r = server.client()
        assert group_state(r, "s") == want
        for grp in m.groups.values():
            grp.check(r)
        assert internal_keys(r) > 0
        g.ack(r, sorted(g.pel)[round_::3])
        g.autoclaim(r, "alice", 0, 40)
        m.add(r, 3 * N + 1 + 20 * round_, 3 * N + 20 * (round_ + 1))
        assert g.read_new(r, "dave", 100) == 20
        g.history(r, "bob", 15)
        m.groups["g2"].delconsumer(r, "zed" if round_ else "nobody")
    for grp in m.groups.values():
        grp.check(r)
    assert r.execute_command("DEL", "s") == 1
    wait_reclaimed(r)
    r.connection_pool.disconnect()


def test_paged_stream_delconsumer_and_destroy_release_pel_pages(server, r):
    """XGROUP DELCONSUMER answers the consumer's pending count and takes its entries out of
    the group's PEL; XGROUP DESTROY drops a group's PEL pages (the other group's stay); a group
    created again under the same name starts with an empty PEL."""
    wait_reclaimed(r)
    m = build_big_pel(r)
    g, g2 = m.groups["g"], m.groups["g2"]
    assert len(g.owned("alice")) > 100
    g.delconsumer(r, "alice")
    g.check(r, count=0)
    assert g.check_pending(r, consumer="alice") == []
    g.delconsumer(r, "alice")  # gone: 0
    g.delconsumer(r, "carol")
    g.check(r)
    pages, pending = internal_keys(r), len(g.pel)
    assert pending > N
    assert r.execute_command("XGROUP", "DESTROY", "s", "g") == 1
    assert r.execute_command("XGROUP", "DESTROY", "s", "g") == 0
    assert err(r, "XPENDING", "s", "g") == "NOGROUP No such key 's' or consumer group 'g'"
    assert [x[1] for x in r.execute_command("XINFO", "GROUPS", "s")] == [b"g2"]
    g2.check(r, count=0)
    # Two trees of at least pending / page members leaves each go.
    assert wait_until(lambda: internal_keys(r) <= pages - pending // 2, timeout=10)
    for round_ in range(3):
        g = m.create(r, "g")
        g.check(r)
        assert r.execute_command("XPENDING", "s", "g") == [0, None, None, None]
        assert r.execute_command("XPENDING", "s", "g", "-", "+", 10) == []
        assert r.execute_command("XINFO", "CONSUMERS", "s", "g") == []
        # Entries the old group had pending come again with one delivery.
        assert g.read_new(r, "alice", 200 * (round_ + 1)) == 200 * (round_ + 1)
        assert g.read_new(r, "bob", 7) == 7
        g.check(r)
        if round_ < 2:
            assert r.execute_command("XGROUP", "DESTROY", "s", "g") == 1
            del m.groups["g"]
    # The reclaim of the groups destroyed just before their namesake was created leaves the
    # new group's pages (and g2's) alone.
    counts = [internal_keys(r)]
    for _ in range(50):
        time.sleep(0.1)
        counts.append(internal_keys(r))
        if len(counts) >= 3 and counts[-1] == counts[-2] == counts[-3]:
            break
    g.check(r, count=0)
    g2.check(r)
    # A DESTROY just before a SIGKILL: the group stays destroyed, its pages are still reclaimed.
    assert r.execute_command("XGROUP", "DESTROY", "s", "g2") == 1
    server.kill()
    server.restart()
    c = server.client()
    assert [x[1] for x in c.execute_command("XINFO", "GROUPS", "s")] == [b"g"]
    g.check(c)
    assert c.execute_command("DEL", "s") == 1
    wait_reclaimed(c)
    c.connection_pool.disconnect()


def test_paged_stream_pel_follows_copy_and_rename(r):
    """COPY and RENAME carry the groups' PEL pages over (same slot and another): the copy has
    the same pending entries and changes them on its own."""
    wait_reclaimed(r)
    m = build_big_pel(r)
    want = group_state(r, "s")
    assert r.execute_command("COPY", "s", "{s}c") == 1
    assert r.execute_command("COPY", "s", "c2") == 1
    assert group_state(r, "{s}c") == want
    assert group_state(r, "c2") == want
    mc = copy.deepcopy(m)
    mc.key = "{s}c"
    gc = mc.groups["g"]
    gc.ack(r, sorted(gc.pel)[::2])
    gc.history(r, "bob", 30)
    gc.claim(r, "alice", sorted(gc.pel)[:20])
    gc.delconsumer(r, "carol")
    mc.groups["g2"].ack(r, list(range(1, N, 3)))
    for grp in mc.groups.values():
        grp.check(r)
    assert group_state(r, "s") == want
    assert group_state(r, "c2") == want
    # Changes to the source leave the copies alone.
    m.groups["g"].ack(r, sorted(m.groups["g"].pel)[:100])
    m.groups["g"].history(r, "alice", 10)
    assert group_state(r, "c2") == want
    for grp in list(m.groups.values()) + list(mc.groups.values()):
        grp.check(r)
    # RENAME to another slot, then over an existing paged stream with a PEL.
    want_c = group_state(r, "{s}c")
    assert r.execute_command("RENAME", "{s}c", "r2") == b"OK"
    assert r.execute_command("EXISTS", "{s}c") == 0
    assert group_state(r, "r2") == want_c
    mc.key = "r2"
    gc.ack(r, sorted(gc.pel)[:50])
    gc.check(r)
    want_c = group_state(r, "r2")
    assert r.execute_command("RENAME", "r2", "c2") == b"OK"
    assert group_state(r, "c2") == want_c
    mc.key = "c2"
    gc.autoclaim(r, "erin", 0, 25)
    for grp in mc.groups.values():
        grp.check(r)
    # COPY ... REPLACE over a paged stream with a PEL.
    want = group_state(r, "s")
    assert r.execute_command("COPY", "s", "c2", "REPLACE") == 1
    assert group_state(r, "c2") == want
    assert r.execute_command("DEL", "s", "c2") == 2
    assert r.execute_command("DBSIZE") == 0
    wait_reclaimed(r)


def test_paged_stream_pel_dump_restore(r):
    """DUMP of a paged stream with large PELs and RESTORE (to a new key, and REPLACE over paged
    streams) give the same groups, pending entries, delivery and seen times."""
    wait_reclaimed(r)
    m = build_big_pel(r)
    want = group_state(r, "s")
    payload = r.execute_command("DUMP", "s")
    assert r.execute_command("RESTORE", "s2", 0, payload) == b"OK"
    assert group_state(r, "s2") == want
    assert r.execute_command("DUMP", "s2") == payload
    assert err(r, "RESTORE", "s2", 0, payload) == "BUSYKEY Target key name already exists."
    m2 = copy.deepcopy(m)
    m2.key = "s2"
    for grp in m2.groups.values():
        grp.check(r)
    g2 = m2.groups["g"]
    g2.ack(r, sorted(g2.pel)[1::2])
    g2.autoclaim(r, "frank", 0, 60)
    assert r.execute_command("XGROUP", "DESTROY", "s2", "g2") == 1
    g2.check(r)
    assert group_state(r, "s") == want
    assert r.execute_command("RESTORE", "s2", 0, payload, "REPLACE") == b"OK"
    assert group_state(r, "s2") == want
    # REPLACE over a paged stream of other groups (and over the source itself).
    other = StreamModel("{s}t")
    other.add(r, 1, N)
    og = other.create(r, "h")
    og.read_new(r, "x", N)
    assert r.execute_command("RESTORE", "{s}t", 0, payload, "REPLACE") == b"OK"
    assert group_state(r, "{s}t") == want
    assert r.execute_command("RESTORE", "s", 0, payload, "REPLACE") == b"OK"
    assert group_state(r, "s") == want
    for grp in m.groups.values():
        grp.check(r)
    assert r.execute_command("DEL", "s", "s2", "{s}t") == 3
    wait_reclaimed(r)


def test_a_stream_becomes_paged_by_its_pending_entries(r):
    """paged-collection-threshold weighs entries and pending entries: a short stream whose
    groups have read it turns paged (its PELs moved into pages) and stays paged when they
    are acknowledged."""
    wait_reclaimed(r)
    threshold = int(r.execute_command("CONFIG", "GET", "paged-collection-threshold")[1])
    n = threshold // 2 + 2
    m = StreamModel("s")
    m.add(r, 1, n)
    g = m.create(r, "g")
    g.read_new(r, "alice", n // 2)
    if n + n // 2 <= threshold:
        assert internal_keys(r) == 0
    g.read_new(r, "bob", n)
    assert n + len(g.pel) > threshold
    assert internal_keys(r) > 0
    g.check(r, count=0)
    h = m.create(r, "h")
    h.read_new(r, "carol", n)
    g.claim(r, "carol", g.owned("alice")[:2], time_ms=m.t_old)
    m.xdel(r, 2, 3)
    g.autoclaim(r, "bob", 0, 3)
    g.history(r, "alice", 5)
    for grp in (g, h):
        grp.check(r, count=0)
    g.ack(r, sorted(g.pel))
    h.ack(r, sorted(h.pel))
    assert internal_keys(r) > 0
    for grp in (g, h):
        grp.check(r)
    assert r.execute_command("DEL", "s") == 1
    wait_reclaimed(r)


def test_concurrent_collection_writes_survive_sigkill(server, r):
    """Clients on both workers push to one list, add to one sorted set, set fields of one hash
    and append to one stream until a SIGKILL: every acknowledged change is there after the restart, in order. The
    commands of many clients share a WAL unit, in which a page written again is logged once,
    as the unit closes (slot/slot_held.cc, LogPending)."""
    r.execute_command("FLUSHALL")
    wait_reclaimed(r)
    threads_n = 8
    results = [None] * threads_n
    started = threading.Barrier(threads_n + 1)

    def writer(t):
        c = server.client(socket_timeout=20)
        acked, inflight, i = [], None, 0
        started.wait()
        try:
            while True:
                item = b"t%d:%d" % (t, i)
                inflight = item
                if t % 4 == 0:
                    c.execute_command("RPUSH", "q", item)
                elif t % 4 == 1:
                    c.execute_command("ZADD", "z", random.randint(0, 1000), item)
                elif t % 4 == 2:
                    c.execute_command("HSET", "h", item, i)
                else:
                    c.execute_command("XADD", "x", "*", "item", item)
                acked.append(item)
                inflight = None
                i += 1
        except (redis.ConnectionError, redis.TimeoutError, ConnectionError, OSError):
            pass
        results[t] = (acked, inflight)

    workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads_n)]
    for w in workers:
        w.start()
    started.wait()
    time.sleep(1.5)
    server.kill()
    for w in workers:
        w.join(30)
        assert not w.is_alive()
    server.restart()
    c = server.client()
    queue = c.execute_command("LRANGE", "q", 0, -1)
    members = set(c.execute_command("ZRANGE", "z", 0, -1))
    fields_got = c.execute_command("HGETALL", "h")
    hash_got = dict(zip(fields_got[::2], fields_got[1::2]))
    stream = [e[1][1] for e in c.execute_command("XRANGE", "x", "-", "+")]
    assert len(members) == c.execute_command("ZCARD", "z")
    for t, (acked, inflight) in enumerate(results):
        assert len(acked) > 10
        allowed = acked + ([inflight] if inflight else [])
        if t % 4 in (0, 3):
            mine = [x for x in (queue if t % 4 == 0 else stream) if x.startswith(b"t%d:" % t)]
            assert mine[:len(acked)] == acked and mine == allowed[:len(mine)]
        elif t % 4 == 1:
            mine = {x for x in members if x.startswith(b"t%d:" % t)}
            assert set(acked) <= mine <= set(allowed)
        else:
            for i, item in enumerate(acked):
                assert hash_got[item] == b"%d" % i
            assert {f for f in hash_got if f.startswith(b"t%d:" % t)} <= set(allowed)
    c.execute_command("FLUSHALL")
    wait_reclaimed(c)
    c.connection_pool.disconnect()


def test_expired_paged_collections_release_their_pages(r):
    fill_hash(r, "h", N)
    r.execute_command("ZADD", "z", *[x for i in range(N) for x in (i, i)])
    r.execute_command("RPUSH", "l", *range(N))
    r.execute_command("SADD", "s", *range(N))
    assert internal_keys(r) > 0
    for key in ("h", "z", "l", "s"):
        assert r.execute_command("PEXPIRE", key, 50) == 1
    time.sleep(0.1)
    assert r.execute_command("EXISTS", "h", "z", "l", "s") == 0
    # Active expiry finds the roots (read lazily they are gone already) and queues their pages.
    wait_reclaimed(r)
    assert r.execute_command("DBSIZE") == 0


@pytest.mark.parametrize("persisted", [False, True], ids=["in-the-log", "after-save"])
def test_writes_over_paged_collections_release_their_pages(r, persisted):
    """Writes that replace a paged collection without reading it release its pages: SET, MSET,
    SETEX, BITOP's destination, and a write over an expired root that active expiry has not
    found yet. Whether the root is still in the log or persisted (SAVE: the flush notices)."""
    r.execute_command("CONFIG", "SET", "hz", "1")  # active expiry seldom: the writes come first
    try:
        fill_hash(r, "h", N)
        r.execute_command("ZADD", "z", *[x for i in range(N) for x in (i, i)])
        r.execute_command("RPUSH", "l", *range(N))
        r.execute_command("SADD", "s", *range(N))
        r.execute_command("SADD", "e", *range(N))
        r.execute_command("SET", "src", "abc")
        if persisted:
            assert r.execute_command("SAVE") == b"OK"
        assert internal_keys(r) > 0
        assert r.execute_command("PEXPIRE", "e", 1) == 1
        assert r.execute_command("SET", "h", "x") == b"OK"
        assert r.execute_command("MSET", "z", "1", "other", "2") == b"OK"
        assert r.execute_command("SETEX", "l", 100, "v") == b"OK"
        assert r.execute_command("BITOP", "NOT", "s", "src") == 3
        time.sleep(0.01)
        assert r.execute_command("HSET", "e", "f", "v") == 1  # a new (small) hash
        if persisted:
            assert r.execute_command("SAVE") == b"OK"
        wait_reclaimed(r)
        assert [r.execute_command("TYPE", k) for k in ("h", "z", "l", "s", "e")] == [
            b"string", b"string", b"string", b"string", b"hash"]
        assert r.execute_command("DBSIZE") == 7
    finally:
        r.execute_command("CONFIG", "SET", "hz", "10")
        r.execute_command("DEL", "h", "z", "l", "s", "e", "src", "other")


def test_random_picks_and_pops_of_paged_sets_and_hashes(r):
    """SRANDMEMBER, HRANDFIELD and SPOP draw members page by page from a paged collection
    (below a third of it for distinct picks); the replies keep Redis's shapes."""
    members = {b"%d" % i for i in range(N)}
    r.execute_command("SADD", "s", *members)
    fill_hash(r, "h", N)
    model = fields(N)
    assert r.execute_command("SRANDMEMBER", "s") in members
    got = r.execute_command("SRANDMEMBER", "s", 150)
    assert len(got) == 150 and len(set(got)) == 150 and set(got) <= members
    got = r.execute_command("SRANDMEMBER", "s", -1000)
    assert len(got) == 1000 and set(got) <= members
    assert len(set(got)) > N // 2  # spread over the set
    assert sorted(r.execute_command("SRANDMEMBER", "s", N)) == sorted(members)
    pairs = r.execute_command("HRANDFIELD", "h", 100, "WITHVALUES")
    assert len(pairs) == 200
    picked = dict(zip(pairs[::2], pairs[1::2]))
    assert len(picked) == 100 and all(model[f] == v for f, v in picked.items())
    got = r.execute_command("HRANDFIELD", "h", -300)
    assert len(got) == 300 and set(got) <= set(model)
    assert r.execute_command("HRANDFIELD", "h") in model
    one = r.execute_command("SPOP", "s")
    assert one in members
    members.discard(one)
    popped = r.execute_command("SPOP", "s", 100)
    assert len(popped) == 100 and len(set(popped)) == 100 and set(popped) <= members
    members -= set(popped)
    assert r.execute_command("SCARD", "s") == len(members)
    assert set(r.execute_command("SMEMBERS", "s")) == members
    while members:
        got = r.execute_command("SPOP", "s", 150)
        assert set(got) <= members and len(set(got)) == len(got) == min(150, len(members))
        members -= set(got)
    assert r.execute_command("EXISTS", "s") == 0
    r.execute_command("DEL", "h")
    wait_reclaimed(r)


def test_zrandmember_of_a_paged_zset_draws_ranks(r):
    """ZRANDMEMBER on a paged sorted set: uniform ranks, one descent each; the reply shapes of
    a one-value set (distinct picks ascending, repeats for a negative count)."""
    scores = {b"m%d" % i: i for i in range(N)}
    r.execute_command("ZADD", "z", *[x for m, s in scores.items() for x in (s, m)])
    assert r.execute_command("ZRANDMEMBER", "z") in scores
    got = r.execute_command("ZRANDMEMBER", "z", 150, "WITHSCORES")
    members, got_scores = got[::2], got[1::2]
    assert len(set(members)) == 150
    assert all(scores[m] == int(s) for m, s in zip(members, got_scores))
    assert [scores[m] for m in members] == sorted(scores[m] for m in members)  # ascending
    got = r.execute_command("ZRANDMEMBER", "z", -2000)
    assert len(got) == 2000 and set(got) <= set(scores) and len(set(got)) > N // 2
    assert r.execute_command("ZRANDMEMBER", "z", 0) == []
    got = r.execute_command("ZRANDMEMBER", "z", N)  # the whole set, highest first
    assert got == [b"m%d" % i for i in reversed(range(N))]
    r.execute_command("DEL", "z")
    wait_reclaimed(r)
