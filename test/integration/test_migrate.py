"""MIGRATE as Redis 7.0.15 gives it: the server under test moves keys to a second server of its
own kind and to a plain redis-server started here (so slotkv -> real Redis is covered), and a
redis-server moves keys into the server under test.

MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
        [AUTH2 username password] [KEYS key [key ...]]

Pinned: every type (with TTLs, 1000-item collections, a 1 MB string) to db 0 and to other dbs,
COPY, REPLACE, BUSYKEY, the KEYS form (partial moves, NOKEY), AUTH / AUTH2 against a target
with requirepass, the IOERR replies for a target that refuses or never answers, argument errors
and the order they are checked in, and the "del" events on the source. Every reply and error
text below is Redis 7.0.15's. All traffic stays on 127.0.0.1; every process started here is
stopped by its pid.
"""

import socket
import time

import pytest
import redis

from conftest import (NOT_INT, SYNTAX, ExactErrorParser, Listener, OwnRedis, RawConn, RawRedis,
                      arity, err, free_port)
from test_dump import VALUES, check, contents, write

HOST = "127.0.0.1"
BUSY = ("ERR Target instance replied with error: BUSYKEY Target key name already exists.")
NOAUTH = "ERR Target instance replied with error: NOAUTH Authentication required."
WRONGPASS = ("ERR Target instance replied with error: WRONGPASS invalid username-password pair"
             " or user is disabled.")
BAD_DB = "ERR Target instance replied with error: ERR DB index is out of range"
KEYS_NEEDS_EMPTY_KEY = ("ERR When using MIGRATE KEYS option, the key argument must be set to"
                        " the empty string")
# Redis 7.0.15 on Linux: a refused connect shows up as a failed write (after one retry), a
# target that accepts but never answers as a failed read
IOERR_WRITE = "IOERR error or timeout writing to target instance"
IOERR_READ = "IOERR error or timeout reading to target instance"

# TTLs given to some of the migrated keys (ms); the target's PTTL must be within TTL_SLACK below
TTLS = {"str_plain": 100000, "list_1000": 200000, "zset_1000": 300000, "hash_small": 400000}
TTL_SLACK = 10000
BIG = ("str_1mb", "string", b"".join(b"%07d:" % i for i in range(131072)))
MOVED = VALUES + [BIG]


# ---- helpers ----------------------------------------------------------------------------------

def connect(port, db=0, password=None):
    """A raw-reply client (exact error texts) of any server on 127.0.0.1."""
    pool = redis.ConnectionPool(host=HOST, port=port, db=db, password=password,
                                socket_timeout=30, parser_class=ExactErrorParser)
    return RawRedis(connection_pool=pool)


def migrate(c, port, key, db=0, timeout=5000, *options):
    return c.execute_command("MIGRATE", HOST, port, key, db, timeout, *options)


class Target:
    """A MIGRATE target: its port and clients on any of its dbs (closed when the test ends)."""

    def __init__(self, port, password=None):
        self.port = port
        self.password = password
        self._clients = []

    def client(self, db=0):
        c = connect(self.port, db, self.password)
        self._clients.append(c)
        return c

    def close(self):
        for c in self._clients:
            c.connection_pool.disconnect()


@pytest.fixture(scope="module")
def peer(make_server):
    """A second server of the kind under test."""
    return make_server()


@pytest.fixture(scope="module")
def plain_redis():
    p = OwnRedis()
    yield p
    p.cleanup()


@pytest.fixture(params=["same_kind", "redis_server"])
def target(request):
    """Each test runs once against a server of the kind under test, once against redis-server;
    the target is flushed first."""
    if request.param == "same_kind":
        t = Target(request.getfixturevalue("peer").port)
    else:
        t = Target(request.getfixturevalue("plain_redis").port)
    assert t.client().execute_command("FLUSHALL") == b"OK"
    yield t
    t.close()


@pytest.fixture(params=["same_kind", "redis_server"])
def locked(request, make_server):
    """A target started with --requirepass secret."""
    if request.param == "same_kind":
        port = make_server(["--requirepass", "secret"]).port
        proc = None
    else:
        proc = OwnRedis(["--requirepass", "secret"])
        port = proc.port
    t = Target(port, "secret")
    yield t
    t.close()
    if proc is not None:
        proc.cleanup()


def ttl_ok(pttl, ttl):
    return ttl - TTL_SLACK <= pttl <= ttl


def move_one(src, dst, dst_port, db, name, kind, data):
    """Writes a value (with its TTL from TTLS) on src, MIGRATEs it to dst (port dst_port, db)
    and checks it left src and arrived whole, TTL included."""
    write(src, name, kind, data)
    if name in TTLS:
        assert src.execute_command("PEXPIRE", name, TTLS[name]) == 1
    before = contents(src, name)
    assert migrate(src, dst_port, name, db) == b"OK", name
    assert src.execute_command("EXISTS", name) == 0, name
    check(dst, name, kind, data)
    assert contents(dst, name) == before, name
    pttl = dst.execute_command("PTTL", name)
    if name in TTLS:
        assert ttl_ok(pttl, TTLS[name]), (name, pttl)
    else:
        assert pttl == -1, name


# ---- every type, every db ---------------------------------------------------------------------

@pytest.mark.parametrize("db", [0, 3])
def test_migrate_moves_every_type(r, target, db):
    tc = target.client(db)
    for name, kind, data in MOVED:
        move_one(r, tc, target.port, db, name, kind, data)
    assert r.execute_command("DBSIZE") == 0
    assert tc.execute_command("DBSIZE") == len(MOVED)
    if db != 0:
        assert target.client(0).execute_command("DBSIZE") == 0
        # SELECT 3 on a plain connection sees them too
        with RawConn(target.port) as c:
            assert c.command("SELECT", db) == b"OK"
            assert c.command("DBSIZE") == len(MOVED)
            assert c.command("GET", "str_plain") == b"hello world"


def test_migrate_switches_the_target_db_between_calls(r, target):
    plan = [("a", 3), ("b", 0), ("c", 3), ("d", 5), ("e", 0), ("f", 15)]
    for key, db in plan:
        r.execute_command("SET", key, "value of %s" % key)
        assert migrate(r, target.port, key, db) == b"OK"
    for key, db in plan:
        assert target.client(db).execute_command("GET", key) == b"value of " + key.encode()
    for db in (0, 3, 5, 15):
        want = sorted(k.encode() for k, d in plan if d == db)
        assert sorted(target.client(db).execute_command("KEYS", "*")) == want, db
    assert r.execute_command("DBSIZE") == 0


def test_migrate_from_a_non_zero_source_db(server, r, target):
    src = connect(server.port, db=2)
    try:
        r.execute_command("SET", "k", "in db 0")
        src.execute_command("RPUSH", "k", "in", "db", "2")
        assert migrate(src, target.port, "k", 0) == b"OK"
        assert src.execute_command("EXISTS", "k") == 0
        assert r.execute_command("GET", "k") == b"in db 0"
        assert target.client().execute_command("LRANGE", "k", 0, -1) == [b"in", b"db", b"2"]
    finally:
        src.connection_pool.disconnect()


def test_a_key_that_expired_before_the_migrate_is_not_moved(r, target):
    r.execute_command("SET", "gone", "x", "PX", 1)
    time.sleep(0.01)
    assert migrate(r, target.port, "gone") == b"NOKEY"
    assert target.client().execute_command("EXISTS", "gone") == 0


# ---- COPY, REPLACE, BUSYKEY -------------------------------------------------------------------

def test_copy_keeps_the_source_key(r, target):
    tc = target.client()
    r.execute_command("SET", "s", "v", "PX", 100000)
    r.execute_command("ZADD", "z", 1, "a", 2, "b")
    assert migrate(r, target.port, "s", 0, 5000, "COPY") == b"OK"
    assert migrate(r, target.port, "z", 0, 5000, "copy") == b"OK"
    assert r.execute_command("GET", "s") == tc.execute_command("GET", "s") == b"v"
    assert ttl_ok(r.execute_command("PTTL", "s"), 100000)
    assert ttl_ok(tc.execute_command("PTTL", "s"), 100000)
    assert tc.execute_command("ZRANGE", "z", 0, -1, "WITHSCORES") == [b"a", b"1", b"b", b"2"]
    assert r.execute_command("ZCARD", "z") == 2


def test_replace_overwrites_the_target_key(r, target):
    tc = target.client()
    tc.execute_command("RPUSH", "k", "old", "list")
    tc.execute_command("PEXPIRE", "k", 100000)
    tc.execute_command("SET", "k2", "old")
    r.execute_command("HSET", "k", "f", "v")
    r.execute_command("SET", "k2", "new", "PX", 200000)
    assert migrate(r, target.port, "k", 0, 5000, "REPLACE") == b"OK"
    assert r.execute_command("EXISTS", "k") == 0
    assert tc.execute_command("TYPE", "k") == b"hash"
    assert tc.execute_command("HGETALL", "k") == [b"f", b"v"]
    assert tc.execute_command("PTTL", "k") == -1  # the old TTL went with the old value
    assert migrate(r, target.port, "k2", 0, 5000, "COPY", "REPLACE") == b"OK"
    assert tc.execute_command("GET", "k2") == r.execute_command("GET", "k2") == b"new"
    assert ttl_ok(tc.execute_command("PTTL", "k2"), 200000)
    # REPLACE when the target has no such key
    r.execute_command("SET", "k3", "x")
    assert migrate(r, target.port, "k3", 0, 5000, "replace") == b"OK"
    assert tc.execute_command("GET", "k3") == b"x"


def test_an_existing_target_key_without_replace_is_busykey(r, target):
    tc = target.client()
    tc.execute_command("SET", "k", "target")
    r.execute_command("RPUSH", "k", "source")
    assert err(r, "MIGRATE", HOST, target.port, "k", 0, 5000) == BUSY
    assert err(r, "MIGRATE", HOST, target.port, "k", 0, 5000, "COPY") == BUSY
    assert r.execute_command("LRANGE", "k", 0, -1) == [b"source"]
    assert tc.execute_command("GET", "k") == b"target"
    # the key of another db on the target is no obstacle
    assert migrate(r, target.port, "k", 1) == b"OK"
    assert target.client(1).execute_command("LRANGE", "k", 0, -1) == [b"source"]
    assert tc.execute_command("GET", "k") == b"target"


def test_target_db_out_of_range(r, target):
    r.execute_command("SET", "k", "v")
    assert err(r, "MIGRATE", HOST, target.port, "k", 16, 5000) == BAD_DB
    assert err(r, "MIGRATE", HOST, target.port, "k", 16, 5000, "REPLACE") == BAD_DB
    assert r.execute_command("GET", "k") == b"v"
    # Where the RESTORE sent after the refused SELECT lands is left open: Redis runs it in
    # whatever db its cached connection to the target had selected. The next MIGRATE works.
    assert migrate(r, target.port, "k", 0, 5000, "REPLACE") == b"OK"
    assert r.execute_command("EXISTS", "k") == 0
    assert target.client().execute_command("GET", "k") == b"v"


# ---- the KEYS form ----------------------------------------------------------------------------

NINE = ["k:%d" % i for i in range(1, 10)]


def fill_nine(c):
    """k:1..k:9 (names that land in different slots), of every type."""
    for i, key in enumerate(NINE):
        kind = i % 5
        if kind == 0:
            c.execute_command("SET", key, "v%d" % i)
        elif kind == 1:
            c.execute_command("RPUSH", key, "a", i)
        elif kind == 2:
            c.execute_command("SADD", key, "m", i)
        elif kind == 3:
            c.execute_command("HSET", key, "f", i)
        else:
            c.execute_command("ZADD", key, i, "m")


def test_keys_form_moves_every_key(r, target):
    tc = target.client()
    fill_nine(r)
    r.execute_command("PEXPIRE", "k:2", 100000)
    before = {k: contents(r, k) for k in NINE}
    args = NINE[:3] + ["k:missing"] + NINE[3:] + ["k:missing2"]
    assert migrate(r, target.port, "", 0, 5000, "KEYS", *args) == b"OK"
    assert r.execute_command("DBSIZE") == 0
    assert {k: contents(tc, k) for k in NINE} == before
    assert ttl_ok(tc.execute_command("PTTL", "k:2"), 100000)
    assert tc.execute_command("PTTL", "k:1") == -1
    assert tc.execute_command("EXISTS", "k:missing", "k:missing2") == 0
    # to another db, with COPY and REPLACE before KEYS
    fill_nine(r)
    assert migrate(r, target.port, "", 4, 5000, "COPY", "REPLACE", "KEYS", *NINE) == b"OK"
    assert r.execute_command("DBSIZE") == 9
    assert {k: contents(target.client(4), k) for k in NINE} == before
    # everything after KEYS is a key name, even option names
    r.execute_command("SET", "copy", "c")
    assert migrate(r, target.port, "", 0, 5000, "KEYS", "copy", "replace") == b"OK"
    assert r.execute_command("EXISTS", "copy") == 0
    assert tc.execute_command("GET", "copy") == b"c"


def test_keys_form_with_no_key_present_is_nokey(r, target):
    assert migrate(r, target.port, "", 0, 5000, "KEYS", "a", "b", "c") == b"NOKEY"
    assert migrate(r, target.port, "", 0, 5000, "KEYS", "a") == b"NOKEY"
    assert migrate(r, target.port, "", 0, 5000, "KEYS") == b"NOKEY"
    assert migrate(r, target.port, "", 0, 5000, "COPY", "KEYS", "a") == b"NOKEY"
    assert target.client().execute_command("DBSIZE") == 0


def test_keys_form_needs_an_empty_key_argument(r, target):
    r.execute_command("SET", "a", "1")
    r.execute_command("SET", "b", "2")
    assert err(r, "MIGRATE", HOST, target.port, "a", 0, 5000, "KEYS", "b") == (
        KEYS_NEEDS_EMPTY_KEY)
    assert err(r, "MIGRATE", HOST, target.port, "nokey", 0, 5000, "KEYS", "b") == (
        KEYS_NEEDS_EMPTY_KEY)
    assert err(r, "MIGRATE", HOST, target.port, "a", 0, 5000, "KEYS") == KEYS_NEEDS_EMPTY_KEY
    assert r.execute_command("MGET", "a", "b") == [b"1", b"2"]
    assert target.client().execute_command("DBSIZE") == 0


def test_keys_form_with_one_busy_target_key_moves_the_others(r, target):
    tc = target.client()
    r.execute_command("MSET", "k:1", "a", "k:2", "b", "k:3", "c")
    tc.execute_command("SET", "k:2", "old")
    assert err(r, "MIGRATE", HOST, target.port, "", 0, 5000, "KEYS", "k:1", "k:2", "k:3") == BUSY
    assert r.execute_command("KEYS", "*") == [b"k:2"]
    assert tc.execute_command("MGET", "k:1", "k:2", "k:3") == [b"a", b"old", b"c"]
    # with COPY nothing leaves the source
    tc.execute_command("DEL", "k:1", "k:3")
    r.execute_command("MSET", "k:1", "a", "k:3", "c")
    assert err(r, "MIGRATE", HOST, target.port, "", 0, 5000, "COPY", "KEYS", "k:1", "k:2",
               "k:3") == BUSY
    assert r.execute_command("MGET", "k:1", "k:2", "k:3") == [b"a", b"b", b"c"]
    assert tc.execute_command("MGET", "k:1", "k:2", "k:3") == [b"a", b"old", b"c"]


# ---- AUTH -------------------------------------------------------------------------------------

def test_auth_to_a_target_with_requirepass(r, locked):
    tc = locked.client()
    r.execute_command("SET", "k", "v")
    assert err(r, "MIGRATE", HOST, locked.port, "k", 0, 5000) == NOAUTH
    assert err(r, "MIGRATE", HOST, locked.port, "k", 0, 5000, "AUTH", "wrong") == WRONGPASS
    assert err(r, "MIGRATE", HOST, locked.port, "k", 0, 5000, "AUTH2", "default", "wrong") == (
        WRONGPASS)
    assert err(r, "MIGRATE", HOST, locked.port, "k", 0, 5000, "AUTH2", "nobody", "secret") == (
        WRONGPASS)
    assert err(r, "MIGRATE", HOST, locked.port, "", 0, 5000, "KEYS", "k") == NOAUTH
    assert r.execute_command("GET", "k") == b"v"
    assert tc.execute_command("DBSIZE") == 0

    assert migrate(r, locked.port, "k", 0, 5000, "AUTH", "secret") == b"OK"
    assert r.execute_command("EXISTS", "k") == 0
    assert tc.execute_command("GET", "k") == b"v"

    r.execute_command("SET", "k2", "v2", "PX", 100000)
    assert migrate(r, locked.port, "k2", 2, 5000, "AUTH2", "default", "secret") == b"OK"
    assert locked.client(2).execute_command("GET", "k2") == b"v2"
    assert ttl_ok(locked.client(2).execute_command("PTTL", "k2"), 100000)

    r.execute_command("MSET", "a", "1", "b", "2")
    assert migrate(r, locked.port, "", 0, 5000, "COPY", "auth", "secret", "KEYS", "a",
                   "b") == b"OK"
    assert tc.execute_command("MGET", "a", "b") == [b"1", b"2"]
    assert migrate(r, locked.port, "", 0, 5000, "REPLACE", "auth2", "default", "secret",
                   "KEYS", "a", "b") == b"OK"
    assert r.execute_command("DBSIZE") == 0
    # a plain connection to the target still needs the password
    with RawConn(locked.port) as c:
        assert c.command("GET", "k").startswith(b"NOAUTH")


# ---- targets that cannot be reached -----------------------------------------------------------

def test_a_target_where_nothing_listens(r):
    port = free_port()
    r.execute_command("SET", "k", "v")
    t0 = time.monotonic()
    assert err(r, "MIGRATE", HOST, port, "k", 0, 500) == IOERR_WRITE
    assert err(r, "MIGRATE", HOST, port, "k", 0, 500, "COPY", "REPLACE") == IOERR_WRITE
    assert err(r, "MIGRATE", HOST, port, "", 0, 500, "KEYS", "nokey", "k") == IOERR_WRITE
    assert time.monotonic() - t0 < 10
    assert r.execute_command("GET", "k") == b"v"
    # and the server goes on serving
    assert r.execute_command("PING") == b"PONG"


def test_a_target_that_never_answers(r):
    r.execute_command("RPUSH", "k", "a", "b")
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        lsock.bind((HOST, 0))
        lsock.listen(8)  # connections complete in the kernel, nobody reads or replies
        port = lsock.getsockname()[1]
        t0 = time.monotonic()
        assert err(r, "MIGRATE", HOST, port, "k", 0, 300) == IOERR_READ
        took = time.monotonic() - t0
        assert 0.2 <= took < 10, took
        assert err(r, "MIGRATE", HOST, port, "", 0, 300, "KEYS", "k") == IOERR_READ
    finally:
        lsock.close()
    assert r.execute_command("LRANGE", "k", 0, -1) == [b"a", b"b"]


def test_timeout_zero_or_negative_means_the_default(r, target):
    tc = target.client()
    for i, timeout in enumerate((0, -5, -1000000)):
        key = "k%d" % i
        r.execute_command("SET", key, "v")
        assert migrate(r, target.port, key, 0, timeout) == b"OK", timeout
        assert tc.execute_command("GET", key) == b"v"
    assert r.execute_command("DBSIZE") == 0


# ---- NOKEY and argument errors ----------------------------------------------------------------

def test_a_missing_source_key_is_nokey(r, target):
    assert migrate(r, target.port, "nokey") == b"NOKEY"
    assert migrate(r, target.port, "nokey", 3, 5000, "COPY", "REPLACE") == b"NOKEY"
    assert migrate(r, target.port, "") == b"NOKEY"  # "" without KEYS is a key name
    assert target.client().execute_command("DBSIZE") == 0
    # no connection is made for nothing: an unreachable target does not matter
    port = free_port()
    assert migrate(r, port, "nokey", 0, 500) == b"NOKEY"
    assert migrate(r, port, "", 0, 500, "KEYS", "a", "b") == b"NOKEY"


def test_argument_errors(r, target):
    p = target.port
    r.execute_command("SET", "k", "v")
    for bad in ("x", "1.5", "", "99999999999999999999"):
        assert err(r, "MIGRATE", HOST, p, "k", 0, bad) == NOT_INT, bad
        assert err(r, "MIGRATE", HOST, p, "k", bad, 5000) == NOT_INT, bad
    assert err(r, "MIGRATE", HOST, p, "k", 0, 5000, "BOGUS") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", 0, 5000, "COPY", "BOGUS") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", 0, 5000, "AUTH") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", 0, 5000, "AUTH2") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", 0, 5000, "AUTH2", "default") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", 0, 5000, "COPY", "AUTH") == SYNTAX
    # options are read first, then the timeout, then the db, then the keys
    assert err(r, "MIGRATE", HOST, p, "k", "x", "x", "BOGUS") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", "x", "x", "AUTH") == SYNTAX
    assert err(r, "MIGRATE", HOST, p, "k", "x", 1, "KEYS", "a") == KEYS_NEEDS_EMPTY_KEY
    assert err(r, "MIGRATE", HOST, p, "", "x", 1, "KEYS", "a") == NOT_INT
    assert err(r, "MIGRATE", HOST, p, "nokey", "x", 1) == NOT_INT
    assert err(r, "MIGRATE", HOST, p, "nokey", 1, "x") == NOT_INT
    # arity: at least 6 arguments
    assert err(r, "MIGRATE") == arity("migrate")
    assert err(r, "MIGRATE", HOST) == arity("migrate")
    assert err(r, "MIGRATE", HOST, p, "k", 0) == arity("migrate")
    assert err(r, "migrate", HOST, p, "k", 0) == arity("migrate")
    assert r.execute_command("GET", "k") == b"v"
    assert target.client().execute_command("DBSIZE") == 0


# ---- keyspace events --------------------------------------------------------------------------

def events(db, key, *names):
    out = []
    for name in names:
        out += [("__keyspace@%d__:%s" % (db, key), name), ("__keyevent@%d__:%s" % (db, name), key)]
    return out


def test_keyspace_events(r, listen, target):
    tc = target.client()
    assert tc.execute_command("CONFIG", "SET", "notify-keyspace-events", "KEA") == b"OK"
    tlisten = Listener(target)
    try:
        def run(*cmd):
            r.execute_command(*cmd)
            return listen.drain(r), tlisten.drain(tc)

        r.execute_command("SET", "s", "v")
        r.execute_command("RPUSH", "l", "a")
        r.execute_command("MSET", "k:1", "1", "k:2", "2", "k:3", "3")
        listen.drain(r)
        tlisten.drain(tc)
        port = target.port
        # the source publishes "del" for a moved key; the target's RESTORE publishes "restore"
        assert run("MIGRATE", HOST, port, "s", 0, 5000) == (
            events(0, "s", "del"), events(0, "s", "restore"))
        assert run("MIGRATE", HOST, port, "l", 3, 5000) == (
            events(0, "l", "del"), events(3, "l", "restore"))
        src, dst = run("MIGRATE", HOST, port, "", 0, 5000, "KEYS", "k:1", "nokey", "k:2", "k:3")
        # The target's in argument order; the source's as a set: slotkv tells the keys of one
        # command in slot order (docs/server.md), Redis in argument order.
        assert sorted(src) == sorted(events(0, "k:1", "del") + events(0, "k:2", "del")
                                     + events(0, "k:3", "del"))
        assert dst == (events(0, "k:1", "restore") + events(0, "k:2", "restore")
                       + events(0, "k:3", "restore"))
        # COPY: nothing on the source
        r.execute_command("SET", "c", "v")
        listen.drain(r)
        assert run("MIGRATE", HOST, port, "c", 0, 5000, "COPY") == (
            [], events(0, "c", "restore"))
        assert run("MIGRATE", HOST, port, "c", 0, 5000, "REPLACE") == (
            events(0, "c", "del"), events(0, "c", "restore"))
        # NOKEY and errors: nothing anywhere
        assert run("MIGRATE", HOST, port, "nokey", 0, 5000) == ([], [])
        r.execute_command("SET", "s", "again")
        listen.drain(r)
        assert err(r, "MIGRATE", HOST, port, "s", 0, 5000) == BUSY
        assert err(r, "MIGRATE", HOST, port, "s", 0, "x") == NOT_INT
        assert listen.drain(r) == []
        assert tlisten.drain(tc) == []
        # a partial move: "del" for the keys that went
        r.execute_command("MSET", "k:1", "1", "k:2", "2")
        tc.execute_command("DEL", "k:1")
        listen.drain(r)
        tlisten.drain(tc)
        assert err(r, "MIGRATE", HOST, port, "", 0, 5000, "KEYS", "k:1", "k:2") == BUSY
        assert listen.drain(r) == events(0, "k:1", "del")
        assert tlisten.drain(tc) == events(0, "k:1", "restore")
    finally:
        tlisten.close()
        tc.execute_command("CONFIG", "SET", "notify-keyspace-events", "")


# ---- a redis-server migrating into the server under test --------------------------------------

def test_redis_server_migrates_into_the_server_under_test(server, r, plain_redis):
    src = connect(plain_redis.port)
    try:
        src.execute_command("FLUSHALL")
        for db in (0, 3):
            dst = connect(server.port, db)
            try:
                for name, kind, data in MOVED:
                    move_one(src, dst, server.port, db, name, kind, data)
                assert dst.execute_command("DBSIZE") == len(MOVED)
            finally:
                dst.connection_pool.disconnect()
        # the KEYS form, and the server under test's BUSYKEY as redis-server passes it on
        fill_nine(src)
        assert migrate(src, server.port, "", 0, 5000, "KEYS", *NINE) == b"OK"
        assert src.execute_command("DBSIZE") == 0
        assert r.execute_command("EXISTS", *NINE) == 9
        src.execute_command("SET", "k:1", "again")
        assert err(src, "MIGRATE", HOST, server.port, "k:1", 0, 5000) == BUSY
        assert migrate(src, server.port, "k:1", 0, 5000, "REPLACE") == b"OK"
        assert r.execute_command("GET", "k:1") == b"again"
    finally:
        src.connection_pool.disconnect()
