"""SWAPDB index1 index2 as Redis 7.0.15 does it, and what slotkv adds (persistence, tracking).

Covered:
- replies and errors (argument checks in Redis's order, index range, arity), COMMAND INFO;
- the swap itself: every type (string, hash, list, set, zset, stream, HyperLogLog), TTLs (TTL
  and PTTL carry over), 200 keys k:{i} spread over every slot and worker, a 3000-field hash
  (paged in slotkv), same key names in both databases; connections keep their SELECTed number
  and see the other database's data, new connections too; writes after a swap go to the
  swapped-in data; swapping back (either argument order) restores everything;
- DBSIZE, KEYS, SCAN, RANDOMKEY, INFO keyspace after a swap (its expires= counts against Redis
  only: slotkv reports expires=0 by design); FLUSHDB after a swap empties the right database;
  MOVE and COPY ... DB after a swap; expiry of a swapped key;
- a chain of swaps (0<->1, 1<->2, 0<->2) and a seeded random one over all 16 databases, checked
  against a Python model;
- WATCH: a watched key of either database is touched when it exists in either of them (before or
  after), a key existing in neither is not, nor one of a third database;
- blocked clients (BLPOP, BLMOVE, BZPOPMIN, XREAD BLOCK) of a swapped database are served when
  the key is there after the swap; others stay blocked and time out;
- no keyspace notifications; SWAPDB inside MULTI/EXEC and inside EVAL;
- swaps racing readers and writers: an MGET over every slot never mixes the two databases, a
  transaction never straddles a swap, no acknowledged write is lost or duplicated;
- slotkv only: the swap survives a restart and a SIGKILL (the map in the data dir's
  slotkv.meta; run with SLOTKV_TEST_SERVER=redis-aof too), and every tracking client gets a null
  invalidation, as after FLUSHALL (Redis 7.0 sends none).
"""

import os
import random
import threading
import time

import pytest

from conftest import Error, Simple, bulk, encode_command, err, is_redis, quiet, wait_until

ARITY = "ERR wrong number of arguments for 'swapdb' command"
FIRST = "ERR invalid first DB index"
SECOND = "ERR invalid second DB index"
RANGE = "ERR DB index is out of range"
NULL_INVALIDATE = b">2\r\n$10\r\ninvalidate\r\n_\r\n"
RESP2_NULL_INVALIDATE = b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n"
BIG = 3000  # fields of the big hash (paged in slotkv)
N = 200  # strings k:{i}: every slot of the test server


# ---- helpers -------------------------------------------------------------------------------------

def run(c, *cmds):
    """Sends every command on raw connection c in one write, returns their replies."""
    c.send(b"".join(encode_command(*cmd) for cmd in cmds))
    return [c.read_reply() for _ in cmds]


def run_ok(c, *cmds):
    """run(), checking that no reply is an error."""
    replies = run(c, *cmds)
    bad = [(cmd, rep) for cmd, rep in zip(cmds, replies) if isinstance(rep, Error)]
    assert not bad, bad[:3]
    return replies


def at(conns, db, resp3=False):
    """A new raw connection of the test with db SELECTed."""
    c = conns.open(resp3)
    assert c.command("SELECT", db) == b"OK"
    return c


def big_hash(c, key, n, tag):
    for start in range(0, n, 500):
        args = []
        for j in range(start, min(n, start + 500)):
            args += ["f%d" % j, "%s:%d" % (tag, j)]
        run_ok(c, ["HSET", key] + args)


def fill_zero(c):
    """The data of the first database: every type, two TTLs, the big hash. 209 keys, 2 with a
    TTL."""
    run_ok(c, *[["SET", "k:%d" % i, "zero:%d" % i] for i in range(N)])
    run_ok(c, ["HSET", "h", "f1", "a", "f2", "b"],
           ["RPUSH", "l", "a", "b", "c"],
           ["SADD", "s", "x", "y", "z"],
           ["ZADD", "z", 1, "a", 2, "b", "3.5", "c"],
           ["XADD", "x", "1-0", "f", "v"],
           ["XADD", "x", "2-0", "f", "w"],
           ["PFADD", "p", "a", "b", "c"],
           ["PFCOUNT", "p"],  # caches the count: the bytes do not change on a later PFCOUNT
           ["SET", "t", "ttl", "EX", 1000],
           ["SET", "pt", "pttl", "PX", 2000000])
    big_hash(c, "bh", BIG, "zero")


def fill_one(c):
    """The data of the second database: same names with other values and types. 54 keys, 1
    with a TTL."""
    run_ok(c, *[["SET", "k:%d" % i, "one:%d" % i] for i in range(50)])
    run_ok(c, ["RPUSH", "h", "one-a", "one-b"],  # a list where db zero has a hash
           ["ZADD", "z1", 5, "m"],
           ["SET", "t1", "v", "EX", 500])
    big_hash(c, "bh1", 300, "one")


ZERO_KEYS, ZERO_EXPIRES = N + 9, 2
ONE_KEYS, ONE_EXPIRES = 50 + 4, 1

READS = {
    b"string": lambda k: ["GET", k],
    b"hash": lambda k: ["HGETALL", k],
    b"list": lambda k: ["LRANGE", k, 0, -1],
    b"set": lambda k: ["SMEMBERS", k],
    b"zset": lambda k: ["ZRANGE", k, 0, -1, "WITHSCORES"],
    b"stream": lambda k: ["XRANGE", k, "-", "+"],
}


def canon(kind, value):
    if kind == b"hash":
        return sorted(zip(value[::2], value[1::2]))
    if kind == b"set":
        return sorted(value)
    return value


def dump(c):
    """{key: (type, value)} of c's database, and {key: PTTL}."""
    keys = sorted(c.command("KEYS", "*"))
    if not keys:
        return {}, {}
    kinds = run_ok(c, *[["TYPE", k] for k in keys])
    values = run_ok(c, *[READS[t](k) for k, t in zip(keys, kinds)])
    pttls = run_ok(c, *[["PTTL", k] for k in keys])
    return ({k: (t, canon(t, v)) for k, t, v in zip(keys, kinds, values)},
            dict(zip(keys, pttls)))


def same_ttls(got, want):
    """PTTLs a little later: -1 stays -1, a TTL goes down by less than 10 s."""
    assert got.keys() == want.keys()
    for k in want:
        if want[k] == -1:
            assert got[k] == -1, k
        else:
            assert want[k] - 10000 < got[k] <= want[k], (k, got[k], want[k])


def same_db(c, snapshot):
    contents, ttls = dump(c)
    assert contents.keys() == snapshot[0].keys()
    assert contents == snapshot[0]
    same_ttls(ttls, snapshot[1])


def keyspace(c):
    """INFO keyspace as {db: (keys, expires)}."""
    out = {}
    for line in c.command("INFO", "keyspace").decode().splitlines():
        if line.startswith("db"):
            name, fields = line.split(":", 1)
            f = dict(p.split("=") for p in fields.split(","))
            out[int(name[2:])] = (int(f["keys"]), int(f["expires"]))
    return out


def check_keyspace(c, want):
    """INFO keyspace lists exactly the databases of want ({db: (keys, expires)}). slotkv reports
    expires=0 by design (docs/server.md), so the expires counts are checked against Redis only."""
    got = keyspace(c)
    if not is_redis():
        got = {db: keys for db, (keys, _) in got.items()}
        want = {db: keys for db, (keys, _) in want.items()}
    assert got == want


def scan_all(c, limit=10000):
    keys, cursor = [], b"0"
    for _ in range(limit):
        cursor, batch = c.command("SCAN", cursor, "COUNT", 50)
        keys.extend(batch)
        if cursor == b"0":
            return keys
    raise AssertionError("SCAN did not end")


def hscan_all(c, key, limit=10000):
    fields, cursor = {}, b"0"
    for _ in range(limit):
        cursor, batch = c.command("HSCAN", key, cursor, "COUNT", 100)
        fields.update(zip(batch[::2], batch[1::2]))
        if cursor == b"0":
            return fields
    raise AssertionError("HSCAN did not end")


def swap(c, a, b):
    assert c.command("SWAPDB", a, b) == b"OK"


# ---- replies, errors, COMMAND INFO ---------------------------------------------------------------

def test_replies_and_errors(r):
    assert r.execute_command("SWAPDB", 0, 1) == b"OK"
    assert r.execute_command("SWAPDB", 0, 0) == b"OK"
    assert r.execute_command("SWAPDB", 15, 0) == b"OK"
    assert err(r, "SWAPDB", "a", 1) == FIRST
    assert err(r, "SWAPDB", 0, "b") == SECOND
    assert err(r, "SWAPDB", "a", "b") == FIRST  # the first index is checked first
    assert err(r, "SWAPDB", 99, "b") == SECOND  # the range only once both are integers
    assert err(r, "SWAPDB", 0, 16) == RANGE
    assert err(r, "SWAPDB", 16, 0) == RANGE
    assert err(r, "SWAPDB", -1, 0) == RANGE
    assert err(r, "SWAPDB", 0, -1) == RANGE
    assert err(r, "SWAPDB", 2147483647, 0) == RANGE  # 32-bit: an index, out of range
    assert err(r, "SWAPDB", 2147483648, 0) == FIRST  # does not fit an int
    assert err(r, "SWAPDB", 0, -2147483649) == SECOND
    assert err(r, "SWAPDB", 99999999999, 0) == FIRST
    assert err(r, "SWAPDB", "1.5", 0) == FIRST
    assert err(r, "SWAPDB", 0, "1.0") == SECOND
    assert err(r, "SWAPDB", "", 0) == FIRST
    assert err(r, "SWAPDB", " 1", 0) == FIRST
    assert err(r, "SWAPDB", "+1", 0) == FIRST
    assert err(r, "SWAPDB", 0, "01") == SECOND
    assert err(r, "SWAPDB", "0x1", 0) == FIRST
    assert err(r, "SWAPDB", 0) == ARITY
    assert err(r, "SWAPDB") == ARITY
    assert err(r, "SWAPDB", 0, 1, 2) == ARITY
    assert err(r, "swapdb", 0) == ARITY


def test_command_info(r):
    info = r.execute_command("COMMAND", "INFO", "swapdb")[0]
    assert info[:7] == [b"swapdb", 3, [b"write", b"fast"], 0, 0, 0,
                        [b"@keyspace", b"@write", b"@fast", b"@dangerous"]]
    assert info[8] == []  # no key specs
    assert r.execute_command("COMMAND", "INFO", "SWAPDB")[0] == info
    assert err(r, "COMMAND", "GETKEYS", "SWAPDB", 0, 1) == (
        "ERR The command has no key arguments")


def test_failed_swap_changes_nothing(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    c0.command("SET", "a", "zero")
    c1.command("SET", "a", "one")
    for bad in ([0, 16], ["x", 1], [1, "y"], [-1, 1]):
        assert isinstance(c0.command("SWAPDB", *bad), Error)
    assert c0.command("GET", "a") == b"zero"
    assert c1.command("GET", "a") == b"one"
    swap(c0, 1, 1)
    swap(c0, 0, 0)
    assert c0.command("GET", "a") == b"zero"
    assert c1.command("GET", "a") == b"one"


# ---- the swap ------------------------------------------------------------------------------------

def test_swap_exchanges_every_type_and_ttl(conns, r):
    c0, c1, c2 = at(conns, 0), at(conns, 1), at(conns, 2)
    fill_zero(c0)
    fill_one(c1)
    zero, one = dump(c0), dump(c1)
    assert len(zero[0]) == ZERO_KEYS and len(one[0]) == ONE_KEYS
    assert zero[0][b"bh"][0] == b"hash" and len(zero[0][b"bh"][1]) == BIG

    swap(c2, 0, 1)  # from a connection of a third database
    # connections keep their number and see the other data, with its TTLs
    same_db(c0, one)
    same_db(c1, zero)
    assert c2.command("DBSIZE") == 0
    assert 990 <= c1.command("TTL", "t") <= 1000
    assert 1990000 <= c1.command("PTTL", "pt") <= 2000000
    assert 490 <= c0.command("TTL", "t1") <= 500
    assert c0.command("TTL", "t") == -2
    assert c1.command("TTL", "k:0") == -1
    # type-specific reads work on the swapped-in values
    assert c1.command("PFCOUNT", "p") == 3
    assert c1.command("HLEN", "bh") == BIG
    assert c1.command("HGET", "bh", "f2999") == b"zero:2999"
    assert c1.command("HMGET", "bh", "f0", "f1500", "nofield") == [b"zero:0", b"zero:1500", None]
    assert hscan_all(c1, "bh") == {b"f%d" % j: b"zero:%d" % j for j in range(BIG)}
    assert c1.command("ZSCORE", "z", "c") == b"3.5"
    assert c1.command("XLEN", "x") == 2
    assert c1.command("SISMEMBER", "s", "y") == 1
    assert c0.command("TYPE", "h") == b"list"
    assert c0.command("HLEN", "bh1") == 300
    assert c0.command("EXISTS", "bh") == 0
    assert c0.command("MGET", "k:0", "k:49", "k:50") == [b"one:0", b"one:49", None]
    assert c1.command("MGET", "k:0", "k:199") == [b"zero:0", b"zero:199"]
    # a connection opened after the swap too
    same_db(at(conns, 1), zero)

    swap(c0, 1, 0)  # back, the other argument order
    same_db(c0, zero)
    same_db(c1, one)
    assert c2.command("DBSIZE") == 0

    swap(c0, 0, 2)  # with an empty database
    assert c0.command("DBSIZE") == 0
    assert c0.command("KEYS", "*") == []
    same_db(c2, zero)
    same_db(c1, one)
    swap(c0, 2, 0)
    same_db(c0, zero)


def test_writes_after_a_swap_go_to_the_swapped_in_data(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    big_hash(c0, "bh", BIG, "zero")
    run_ok(c0, *[["SET", "k:%d" % i, "zero"] for i in range(N)])
    run_ok(c1, ["SET", "only1", "x"], ["RPUSH", "l", "a"])
    swap(c0, 0, 1)
    # writes through both connections, every slot
    run_ok(c1, *[["APPEND", "k:%d" % i, "+w"] for i in range(N)])
    run_ok(c1, ["HSET", "bh", "new", "field"], ["HDEL", "bh", "f0"], ["HSET", "bh", "f1", "x"])
    run_ok(c0, ["RPUSH", "l", "b"], ["DEL", "only1"], ["SET", "fresh", "0"])
    swap(c0, 0, 1)  # back
    assert c0.command("MGET", *["k:%d" % i for i in range(N)]) == [b"zero+w"] * N
    assert c0.command("HLEN", "bh") == BIG
    assert c0.command("HMGET", "bh", "f0", "f1", "f2", "new") == [None, b"x", b"zero:2",
                                                                 b"field"]
    assert sorted(c1.command("KEYS", "*")) == [b"fresh", b"l"]
    assert c1.command("LRANGE", "l", 0, -1) == [b"a", b"b"]
    assert c0.command("DBSIZE") == N + 1


def test_dbsize_keys_scan_randomkey_info_keyspace(conns, r):
    c0, c1, c5 = at(conns, 0), at(conns, 1), at(conns, 5)
    fill_zero(c0)
    run_ok(c1, ["SET", "lonely", "v", "EX", 100])
    zero_keys = set(c0.command("KEYS", "*"))
    assert len(zero_keys) == ZERO_KEYS
    check_keyspace(c0, {0: (ZERO_KEYS, ZERO_EXPIRES), 1: (1, 1)})

    swap(c5, 1, 0)
    assert c0.command("DBSIZE") == 1
    assert c1.command("DBSIZE") == ZERO_KEYS
    assert c0.command("KEYS", "*") == [b"lonely"]
    assert set(c1.command("KEYS", "*")) == zero_keys
    assert sorted(c1.command("KEYS", "k:1?")) == sorted(b"k:1%d" % i for i in range(10))
    assert scan_all(c0) == [b"lonely"]
    assert set(scan_all(c1)) == zero_keys
    assert c0.command("RANDOMKEY") == b"lonely"
    for _ in range(20):
        assert c1.command("RANDOMKEY") in zero_keys
    assert c5.command("RANDOMKEY") is None
    check_keyspace(c5, {0: (1, 1), 1: (ZERO_KEYS, ZERO_EXPIRES)})

    swap(c5, 1, 5)  # db 1 is now empty, db 5 has the data
    check_keyspace(c5, {0: (1, 1), 5: (ZERO_KEYS, ZERO_EXPIRES)})
    assert c1.command("DBSIZE") == 0
    assert c1.command("RANDOMKEY") is None
    assert scan_all(c1) == []
    assert set(scan_all(c5)) == zero_keys


def test_flushdb_after_a_swap_empties_the_right_database(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    fill_zero(c0)
    run_ok(c1, *[["SET", "one:%d" % i, i] for i in range(N)])
    one = dump(c1)
    swap(c0, 0, 1)
    assert c0.command("FLUSHDB") == b"OK"  # the data that was db 1's
    assert c0.command("DBSIZE") == 0
    assert c1.command("DBSIZE") == ZERO_KEYS
    assert c1.command("HLEN", "bh") == BIG
    check_keyspace(c0, {1: (ZERO_KEYS, ZERO_EXPIRES)})
    c0.command("SET", "after", "flush")
    swap(c0, 0, 1)
    assert c0.command("DBSIZE") == ZERO_KEYS
    assert c1.command("KEYS", "*") == [b"after"]
    assert c0.command("EXISTS", *["one:%d" % i for i in range(N)]) == 0
    assert c1.command("FLUSHDB") == b"OK"
    assert c0.command("DBSIZE") == ZERO_KEYS
    # FLUSHDB ASYNC and SYNC forms too
    run_ok(c1, *[["SET", "one:%d" % i, i] for i in range(N)])
    assert dump(c1) == one
    swap(c0, 1, 0)
    assert c1.command("FLUSHDB", "ASYNC") == b"OK"
    assert c1.command("DBSIZE") == 0
    assert dump(c0) == one
    assert c0.command("FLUSHDB", "SYNC") == b"OK"
    check_keyspace(c0, {})


def test_move_and_copy_after_a_swap(conns, r):
    c0, c1, c2 = at(conns, 0), at(conns, 1), at(conns, 2)
    run_ok(c0, ["SET", "a", "zero"], ["SET", "m0", "from0"])
    run_ok(c1, ["SET", "a", "one"], ["SET", "m1", "from1", "EX", 100],
           ["HSET", "hh", "f", "v"])
    big_hash(c1, "bh", BIG, "one")
    swap(c0, 0, 1)
    # db 0 now holds m1: MOVE it to db 1, which holds db 0's old data
    assert c0.command("MOVE", "m1", 1) == 1
    assert c0.command("EXISTS", "m1") == 0
    assert c1.command("GET", "m1") == b"from1"
    assert 0 < c1.command("TTL", "m1") <= 100
    assert c0.command("MOVE", "a", 1) == 0  # db 1 has an "a" (the old db 0's)
    assert c1.command("GET", "a") == b"zero"
    assert c1.command("MOVE", "m0", 0) == 1
    assert c0.command("GET", "m0") == b"from0"
    assert c0.command("MOVE", "bh", 2) == 1
    assert c2.command("HLEN", "bh") == BIG
    assert c0.command("COPY", "hh", "hh2", "DB", 2) == 1
    assert c0.command("COPY", "a", "a", "DB", 1) == 0
    assert c0.command("COPY", "a", "a", "DB", 1, "REPLACE") == 1
    assert c1.command("GET", "a") == b"one"
    assert c2.command("COPY", "bh", "bh", "DB", 0) == 1
    assert c0.command("HGET", "bh", "f2999") == b"one:2999"
    assert c2.command("HGETALL", "hh2") == [b"f", b"v"]
    swap(c0, 0, 1)
    assert sorted(c0.command("KEYS", "*")) == [b"a", b"m1"]
    assert c0.command("GET", "a") == b"one"
    assert sorted(c1.command("KEYS", "*")) == [b"a", b"bh", b"hh", b"m0"]
    assert c1.command("HLEN", "bh") == BIG
    assert sorted(c2.command("KEYS", "*")) == [b"bh", b"hh2"]


def test_swapped_keys_expire_in_their_new_database(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    run_ok(c1, ["SET", "short", "v", "PX", 300], ["SET", "long", "v", "EX", 100],
           ["HSET", "hshort", "f", "v"], ["PEXPIRE", "hshort", 300])
    swap(c0, 0, 1)
    assert 0 < c0.command("PTTL", "short") <= 300
    assert 0 < c0.command("PTTL", "hshort") <= 300
    time.sleep(0.4)
    assert c0.command("GET", "short") is None
    assert c0.command("EXISTS", "hshort") == 0
    assert c1.command("EXISTS", "short", "hshort") == 0
    assert wait_until(lambda: c0.command("DBSIZE") == 1, timeout=5.0)
    assert c0.command("KEYS", "*") == [b"long"]
    assert c1.command("DBSIZE") == 0


def check_model(c, model):
    """Each database d of the 16 holds the data with marker model[d] (None: empty)."""
    cmds = []
    for d in range(16):
        cmds += [["SELECT", d], ["GET", "marker"], ["DBSIZE"], ["GET", "k:%d" % (d * 12)]]
    replies = run_ok(c, *cmds)
    for d in range(16):
        marker, size, probe = replies[4 * d + 1: 4 * d + 4]
        if model[d] is None:
            assert (marker, size) == (None, 0), (d, model)
        else:
            assert marker == b"%d" % model[d], (d, marker, model)
            assert size == 2 + model[d] + N // 4, (d, size)
            assert probe == b"%d:%d" % (model[d], d * 12), d
    c.command("SELECT", 0)


def test_chain_of_swaps_matches_a_model(conns, r):
    c = conns.open()
    # databases 0..3 hold data (marker d, d+1 extra keys, N/4 strings), the others are empty
    for d in range(4):
        run_ok(c, ["SELECT", d], ["SET", "marker", d],
               *[["SET", "x:%d" % j, j] for j in range(d + 1)],
               *[["SET", "k:%d" % i, "%d:%d" % (d, i)] for i in range(0, N, 4)])
    c.command("SELECT", 0)
    model = [0, 1, 2, 3] + [None] * 12
    check_model(c, model)
    for a, b in ((0, 1), (1, 2), (0, 2)):
        swap(c, a, b)
        model[a], model[b] = model[b], model[a]
        check_model(c, model)
    assert model[:4] == [0, 2, 1, 3]  # 0<->1, 1<->2, 0<->2
    seed = int(os.environ.get("SLOTKV_TEST_SEED", "0")) or random.randrange(1, 2 ** 31)
    print("chain of swaps: seed %d (rerun with SLOTKV_TEST_SEED=%d)" % (seed, seed))
    rnd = random.Random(seed)
    for _ in range(25):
        a, b = rnd.randrange(16), rnd.randrange(16)
        swap(c, a, b)
        model[a], model[b] = model[b], model[a]
    check_model(c, model)
    # every data set sits in exactly one database
    assert sorted(m for m in model if m is not None) == [0, 1, 2, 3]


# ---- WATCH ---------------------------------------------------------------------------------------

def watch_exec(c, *keys):
    """WATCH keys on c, then returns a function that runs MULTI / PING / EXEC and gives the
    EXEC reply (None: aborted by a touched key)."""
    assert c.command("WATCH", *keys) == b"OK"

    def finish():
        assert run(c, ["MULTI"], ["PING"])[1] == b"QUEUED"
        return c.command("EXEC")
    return finish


def test_watched_keys_of_either_database_are_touched(conns, r):
    c0, c1, c2, w = at(conns, 0), at(conns, 1), at(conns, 2), at(conns, 3)
    run_ok(c0, ["SET", "in0", "v"], ["SET", "both", "0"])
    run_ok(c1, ["SET", "in1", "v"], ["SET", "both", "1"], ["HSET", "h1", "f", "v"])
    run_ok(c2, ["SET", "in2", "v"])
    cases = [
        (c0, "in0", None),  # there before the swap
        (c0, "in1", None),  # there after the swap
        (c1, "in0", None),
        (c1, "in1", None),
        (c0, "both", None),
        (c1, "h1", None),
        (c0, "nowhere", [b"PONG"]),  # in neither database: not touched
        (c1, "nowhere", [b"PONG"]),
        (c2, "in2", [b"PONG"]),  # a third database: not touched
        (c2, "in0", [b"PONG"]),
    ]
    for watcher, key, want in cases:
        finish = watch_exec(watcher, key)
        swap(w, 0, 1)
        assert finish() == want, (key, want)
    # a client watching keys of both databases: touched once, EXEC aborted
    assert c0.command("SELECT", 1) == b"OK"
    assert c0.command("WATCH", "nowhere") == b"OK"
    assert c0.command("SELECT", 0) == b"OK"
    finish = watch_exec(c0, "in0")
    swap(w, 1, 0)
    assert finish() is None
    # watching only missing keys of both databases: runs
    finish = watch_exec(c0, "nowhere", "nothing")
    swap(w, 0, 1)
    assert finish() == [b"PONG"]
    # swapping a database with itself touches nothing
    finish = watch_exec(c0, "in0", "in1", "both")
    swap(w, 0, 0)
    assert finish() == [b"PONG"]


# ---- blocked clients -----------------------------------------------------------------------------

def test_blocked_clients_are_served_by_the_swapped_in_data(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    run_ok(c0, ["RPUSH", "q", "zero-a", "zero-b"], ["ZADD", "z", 7, "m"],
           ["XADD", "s", "5-1", "f", "v"], ["RPUSH", "src", "moved"])
    run_ok(c1, ["SET", "keep", "1"])
    blpop = conns.block("BLPOP", "q", 5, conn=at(conns, 1))
    bzpop = conns.block("BZPOPMIN", "z", 5, conn=at(conns, 1))
    xread = conns.block("XREAD", "BLOCK", 5000, "STREAMS", "s", "0-0", conn=at(conns, 1))
    blmove = conns.block("BLMOVE", "src", "dst", "LEFT", "RIGHT", 5, conn=at(conns, 1))
    missing = conns.block("BLPOP", "nolist", 1, conn=at(conns, 1))
    other = conns.block("BLPOP", "q", 1, conn=at(conns, 2))  # db 2: not swapped
    swap(c0, 1, 0)
    assert blpop.read_reply() == [b"q", b"zero-a"]
    assert bzpop.read_reply() == [b"z", b"m", b"7"]
    assert xread.read_reply() == [[b"s", [[b"5-1", [b"f", b"v"]]]]]
    assert blmove.read_reply() == b"moved"
    assert quiet(missing) and quiet(other)
    assert missing.read_reply() is None  # timed out
    assert other.read_reply() is None
    assert c1.command("LRANGE", "q", 0, -1) == [b"zero-b"]
    assert c1.command("LRANGE", "dst", 0, -1) == [b"moved"]
    assert c1.command("EXISTS", "z", "src") == 0
    assert c0.command("KEYS", "*") == [b"keep"]


def test_blocked_client_of_the_other_side_and_a_later_push(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    run_ok(c1, ["RPUSH", "q", "one"])
    # blocked in db 0, the list is in db 1: served by SWAPDB 0 1
    b0 = conns.block("BRPOP", "q", 5, conn=at(conns, 0))
    # blocked in db 1 on a key no database has: served by a push into (new) db 1 only
    b1 = conns.block("BLPOP", "later", 5, conn=at(conns, 1))
    swap(c1, 0, 1)
    assert b0.read_reply() == [b"q", b"one"]
    assert quiet(b1)
    c0.command("RPUSH", "later", "wrong-db")
    assert quiet(b1)
    c1.command("RPUSH", "later", "right")
    assert b1.read_reply() == [b"later", b"right"]
    assert c0.command("LRANGE", "later", 0, -1) == [b"wrong-db"]


# ---- notifications, MULTI, EVAL ------------------------------------------------------------------

def test_no_keyspace_notifications(conns, r, listen):
    c0, c1 = at(conns, 0), at(conns, 1)
    run_ok(c0, ["SET", "a", "v"], ["RPUSH", "l", "x"])
    run_ok(c1, ["SET", "b", "v"], ["SET", "t", "v", "EX", 100])
    listen.drain(r)
    swap(c0, 0, 1)
    swap(c0, 1, 2)
    swap(c0, 3, 3)
    assert listen.drain(r) == []
    c0.command("SET", "b", "again")  # the listener still hears db 0's events
    assert listen.drain(r) == [("__keyspace@0__:b", "set"), ("__keyevent@0__:set", "b")]


def test_swapdb_inside_multi_exec(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    run_ok(c1, ["SET", "a", "one"])
    replies = run(c0, ["MULTI"], ["SET", "a", "zero"], ["SWAPDB", 0, 1], ["GET", "a"],
                  ["SET", "b", "after"], ["SWAPDB", 0, 16], ["EXEC"])
    assert replies[:6] == [b"OK"] + [Simple(b"QUEUED")] * 5
    assert replies[6] == [b"OK", b"OK", b"one", b"OK", Error(RANGE.encode())]
    assert sorted(c0.command("KEYS", "*")) == [b"a", b"b"]
    assert c0.command("MGET", "a", "b") == [b"one", b"after"]
    assert c1.command("KEYS", "*") == [b"a"]
    assert c1.command("GET", "a") == b"zero"
    # a bad index fails when EXEC runs it (above); a wrong arity aborts the transaction
    replies = run(c0, ["MULTI"], ["SWAPDB", 0], ["EXEC"])
    assert replies[1] == Error(ARITY.encode())
    assert replies[2] == Error(b"EXECABORT Transaction discarded because of previous errors.")
    assert c0.command("GET", "a") == b"one"


def test_swapdb_inside_eval(conns, r):
    c0, c1 = at(conns, 0), at(conns, 1)
    run_ok(c0, ["SET", "a", "zero"])
    run_ok(c1, ["SET", "a", "one"])
    body = ("local before = redis.call('get', 'a'); redis.call('swapdb', 0, 1); "
            "return {before, redis.call('get', 'a')}")
    assert c0.command("EVAL", body, 0) == [b"zero", b"one"]
    assert c0.command("GET", "a") == b"one"
    assert c1.command("GET", "a") == b"zero"
    body = "redis.call('swapdb', 0, 1); redis.call('set', 'w', 'x'); return redis.call('dbsize')"
    assert c0.command("EVAL", body, 0) == 2
    assert sorted(c0.command("KEYS", "*")) == [b"a", b"w"]
    assert c0.command("GET", "a") == b"zero"
    got = c0.command("EVAL", "return redis.pcall('swapdb', 0, 99)", 0)
    assert got == Error(RANGE.encode())
    assert c0.command("EVAL", "return redis.call('swapdb', 1, 0)", 0) == b"OK"
    assert c0.command("GET", "a") == b"one"


# ---- racing clients ------------------------------------------------------------------------------

def test_swaps_racing_readers_and_writers(server, r):
    """A swapper swaps 0 and 1 in a loop; a reader MGETs every slot (must see one database's
    data, never a mix); a writer runs MULTI SET n:i / EXISTS n:i / EXEC (the key it sets is
    there in the same transaction) and a plain SET; at the end every acknowledged key is in
    exactly one of the two databases."""
    keys = ["k:%d" % i for i in range(N)]
    setup = server.client()
    setup.execute_command("MSET", *[x for k in keys for x in (k, "A")])
    setup1 = server.client(db=1)
    setup1.execute_command("MSET", *[x for k in keys for x in (k, "B")])
    stop = threading.Event()
    errors, acked, swaps, reads = [], [], [0], [0]

    def swapper():
        c = server.client()
        try:
            while not stop.is_set():
                assert c.execute_command("SWAPDB", 0, 1) == b"OK"
                swaps[0] += 1
        except Exception as e:  # noqa: BLE001
            errors.append(("swapper", repr(e)))

    def reader():
        c = server.client()
        try:
            while not stop.is_set():
                got = set(c.execute_command("MGET", *keys))
                if got not in ({b"A"}, {b"B"}):
                    errors.append(("mixed MGET", sorted(got)))
                    return
                reads[0] += 1
        except Exception as e:  # noqa: BLE001
            errors.append(("reader", repr(e)))

    def writer():
        c = server.client()
        i = 0
        try:
            while not stop.is_set():
                p = c.pipeline(transaction=True)
                p.execute_command("SET", "n:%d" % i, i)
                p.execute_command("EXISTS", "n:%d" % i, "n:%d" % (i - 1))
                got = p.execute()
                acked.append("n:%d" % i)
                if got[1] < 1:
                    errors.append(("transaction saw a swap", got))
                    return
                c.execute_command("SET", "p:%d" % i, i)
                acked.append("p:%d" % i)
                i += 1
        except Exception as e:  # noqa: BLE001
            errors.append(("writer", repr(e)))

    threads = [threading.Thread(target=f) for f in (swapper, reader, writer)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    stop.set()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors[:3]
    assert swaps[0] > 10 and reads[0] > 10 and len(acked) > 10, (swaps, reads, len(acked))
    in0 = {k.decode() for k in setup.execute_command("KEYS", "[np]:*")}
    in1 = {k.decode() for k in setup1.execute_command("KEYS", "[np]:*")}
    assert not in0 & in1, sorted(in0 & in1)[:5]
    assert in0 | in1 == set(acked)
    vals = {setup.execute_command("GET", "k:0"), setup1.execute_command("GET", "k:0")}
    assert vals == {b"A", b"B"}
    want0 = b"A" if swaps[0] % 2 == 0 else b"B"
    assert setup.execute_command("MGET", *keys) == [want0] * N


# ---- slotkv only: persistence --------------------------------------------------------------------

def shutdown(s):
    with s.raw() as c:
        c.send_command("SHUTDOWN")
        assert c.read_available(15.0) == b"<EOF>"
    assert s.wait_exit(15) == 0


@pytest.mark.slotkv_only(redis_aof=True)
def test_swap_survives_a_restart(make_server):
    s = make_server()
    with s.raw() as c0, s.raw() as c1:
        c1.command("SELECT", 1)
        fill_zero(c0)
        fill_one(c1)
        zero, one = dump(c0), dump(c1)
        swap(c0, 0, 1)
        swap(c0, 2, 1)  # db 2: zero's data, db 1: empty, db 0: one's
    shutdown(s)
    s.start()
    with s.raw() as c0, s.raw() as c1, s.raw() as c2:
        c1.command("SELECT", 1)
        c2.command("SELECT", 2)
        same_db(c0, one)
        same_db(c2, zero)
        assert c1.command("DBSIZE") == 0
        check_keyspace(c0, {0: (ONE_KEYS, ONE_EXPIRES), 2: (ZERO_KEYS, ZERO_EXPIRES)})
        assert c2.command("HGET", "bh", "f2999") == b"zero:2999"
        # writes after the restart land in the swapped data; a second restart keeps it all
        c2.command("SET", "k:0", "after")
        swap(c0, 0, 2)
    assert s.stop() == 0
    s.start()
    with s.raw() as c0, s.raw() as c2:
        c2.command("SELECT", 2)
        assert c0.command("GET", "k:0") == b"after"
        assert c0.command("HLEN", "bh") == BIG
        assert c0.command("DBSIZE") == ZERO_KEYS
        assert c2.command("GET", "k:0") == b"one:0"
        assert c2.command("DBSIZE") == ONE_KEYS
        assert 400 < c2.command("TTL", "t1") <= 500
        assert 900 < c0.command("TTL", "t") <= 1000


@pytest.mark.slotkv_only(redis_aof=True)
def test_swap_survives_sigkill(make_server):
    s = make_server()
    with s.raw() as c0, s.raw() as c1:
        c1.command("SELECT", 1)
        run_ok(c0, *[["SET", "k:%d" % i, "zero:%d" % i] for i in range(N)])
        big_hash(c0, "bh", BIG, "zero")
        run_ok(c1, ["SET", "k:0", "one"], ["SET", "t", "v", "EX", 1000])
        model = {0: "zero", 1: "one", 2: None}
        for a, b in ((0, 1), (1, 2), (0, 2), (2, 0), (1, 0)):
            swap(c0, a, b)
            model[a], model[b] = model[b], model[a]
        # a write right after the last swap, acknowledged before the kill
        assert c1.command("SET", "last", "x") == b"OK"
    s.kill()
    s.start()
    with s.raw() as c:
        for d in range(3):
            c.command("SELECT", d)
            if model[d] == "zero":
                assert c.command("DBSIZE") == N + 1 + (d == 1), d
                assert c.command("MGET", "k:0", "k:199") == [b"zero:0", b"zero:199"]
                assert c.command("HLEN", "bh") == BIG
            elif model[d] == "one":
                assert c.command("DBSIZE") == 2 + (d == 1), d
                assert c.command("GET", "k:0") == b"one"
                assert 990 <= c.command("TTL", "t") <= 1000
            else:
                assert c.command("DBSIZE") == (d == 1), d
            assert c.command("EXISTS", "last") == (d == 1), d


# ---- slotkv only: client-side caching ------------------------------------------------------------

def silent(*cs, wait=0.2):
    time.sleep(wait)
    for c in cs:
        got = c.read_available(0.01)
        assert got == b"", got


@pytest.mark.slotkv_only
def test_tracking_clients_get_a_null_invalidation(conns, r):
    """Redis 7.0 leaves client-side caches stale after SWAPDB; slotkv tells every tracking
    client as FLUSHALL does, the swapping client after its +OK, NOLOOP or not."""
    t = at(conns, 0, resp3=True)
    idle = at(conns, 1, resp3=True)  # tracking, read nothing, another database
    b = conns.open(resp3=True)
    nl = conns.open(resp3=True)
    sub = conns.open()
    red = conns.open()
    w = conns.open()
    off = conns.open(resp3=True)  # not tracking: nothing
    for c, opts in ((t, ()), (idle, ()), (b, ("BCAST", "PREFIX", "zz")), (nl, ("NOLOOP",)),
                    (red, ("REDIRECT", sub.cid))):
        assert c.command("CLIENT", "TRACKING", "ON", *opts) == Simple(b"OK")
    assert sub.command("SUBSCRIBE", "__redis__:invalidate")[0] == b"subscribe"
    # (before the reads: tracking is by key name, a write of k in any database invalidates it)
    run_ok(w, ["SELECT", 1], ["SET", "k", "one"], ["SELECT", 0], ["SET", "k", "zero"])
    assert t.command("GET", "k") == b"zero"
    assert red.command("GET", "k") == b"zero"

    assert w.command("SWAPDB", 0, 1) == Simple(b"OK")
    for c in (t, idle, b, nl):
        c.expect(NULL_INVALIDATE)
    sub.expect(RESP2_NULL_INVALIDATE)
    silent(t, idle, b, nl, sub, red, off)
    # the cache is to be refilled: the key read before is forgotten, a read after is tracked
    w.command("SET", "k", "new")
    silent(t, sub)
    assert t.command("GET", "k") == b"new"
    w.command("SET", "k", "newer")
    t.expect(b">2\r\n$10\r\ninvalidate\r\n*1\r\n" + bulk(b"k"))

    nl.send_command("SWAPDB", 1, 0)  # its own swap, with NOLOOP: reply, then the push
    nl.expect(b"+OK\r\n" + NULL_INVALIDATE)
    for c in (t, idle, b):
        c.expect(NULL_INVALIDATE)
    sub.expect(RESP2_NULL_INVALIDATE)
    silent(t, idle, b, nl, sub, red, off)
    assert t.command("GET", "k") == b"zero"

    # a failed swap tells nobody
    assert isinstance(w.command("SWAPDB", 0, 16), Error)
    silent(t, idle, b, nl, sub, red, off)
