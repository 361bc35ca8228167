"""Replication: REPLICAOF / SLAVEOF (replies and errors), ROLE on masters and replicas, INFO
replication fields, WAIT, full sync of every type (TTLs, several dbs, a 1 MB value, thousands of
keys), the write stream after the sync (MULTI/EXEC, FLUSHDB, RENAME, EXPIRE/PERSIST, MSET over many
slots), read-only replicas (READONLY), expiry on replicas, REPLICAOF NO ONE and resync back, a
replica restart (slotkv: the role persists and the streams CONTINUE), kill -9 of the master under
a writer, a 1M-key full sync under a writer, promoting one of two replicas, stale-data
refusal, CLIENT KILL TYPE master|replica mid-stream, CONFIG GET replicaof, and (slotkv) a backlog
overflow in one slot re-syncing only that stream, a replica killed mid full sync, /replication
and the replication metrics.

One master with two replicas is shared by the tests that leave it as it was; tests that stop,
kill or promote servers start their own (and stop them when they end). About 9 s against
redis-server 7.0.15, 25 s against slotkv; every wait is bounded (30-60 s).

Against redis the servers run with `repl-diskless-sync-delay 0` (Redis 7 waits 5 s before each
full sync by default, for more replicas to join it); slotkv gets no extra options.
"""

import json
import os
import re
import signal
import threading
import time
import urllib.request

import pytest
import redis

from conftest import (Error, Simple, arity, err, free_port, is_redis, is_redis_aof, scan_keys,
                      start_server, wait_until)
from repl_util import (SERVER_ARGS, SYNC_TIMEOUT, assert_same_strings, cmd, info, info_pairs,
                       link, replicaof, role, safe, start, wait_linked)

READONLY = "READONLY You can't write against a read only replica."
BAD_PORT = "ERR Invalid master port"
NOT_INT = "ERR value is not an integer or out of range"
ALREADY = b"OK Already connected to specified master"
LINK_STATES = {b"connect", b"connecting", b"handshake", b"sync", b"connected"}
HEX40 = re.compile(r"^[0-9a-f]{40}$")
SLAVE_LINE = re.compile(r"^ip=127\.0\.0\.1,port=(\d+),state=online,offset=(\d+),lag=(\d+)$")
DBS = range(16)
# The data loaded before the replicas of the shared master attach (test_full_sync_...).
PRELOAD_DBS = (0, 3, 7)
MANY = 3000
BIG = 1 << 20


# ---------------------------------------------------------------------------------------------
# helpers


def snapshot(server, dbs=DBS):
    """{(db, key): (type, value, pttl)} over the dbs: SCAN, TYPE, a typed read and PTTL."""
    out = {}
    for db in dbs:
        c = server.client(db=db)
        try:
            keys = sorted(set(scan_keys(c)))
            if not keys:
                continue
            pipe = c.pipeline(transaction=False)
            for k in keys:
                pipe.execute_command("TYPE", k)
            types = pipe.execute()
            pipe = c.pipeline(transaction=False)
            for k, t in zip(keys, types):
                if t == b"string":
                    pipe.execute_command("GET", k)
                elif t == b"hash":
                    pipe.execute_command("HGETALL", k)
                elif t == b"list":
                    pipe.execute_command("LRANGE", k, 0, -1)
                elif t == b"set":
                    pipe.execute_command("SMEMBERS", k)
                elif t == b"zset":
                    pipe.execute_command("ZRANGE", k, 0, -1, "WITHSCORES")
                else:
                    pipe.execute_command("TYPE", k)  # gone between SCAN and TYPE, or unused type
                pipe.execute_command("PTTL", k)
            replies = pipe.execute()
        finally:
            c.connection_pool.disconnect()
        for i, (k, t) in enumerate(zip(keys, types)):
            value, pttl = replies[2 * i], replies[2 * i + 1]
            if t == b"hash":
                value = dict(zip(value[::2], value[1::2]))
            elif t == b"set":
                value = sorted(value)
            if t == b"none" or pttl == -2:
                continue  # expired or deleted while we looked
            out[(db, k)] = (t, value, pttl)
    return out


def differences(a, b, ttl_tolerance_ms=5000):
    """What differs between two snapshots (a few examples), [] if they match."""
    out = []
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            out.append(("only on %s" % ("first" if k in a else "second"), k))
        else:
            (ta, va, pa), (tb, vb, pb) = a[k], b[k]
            if (ta, va) != (tb, vb):
                out.append(("value", k, (ta, short(va)), (tb, short(vb))))
            elif (pa == -1) != (pb == -1) or abs(pa - pb) > ttl_tolerance_ms:
                out.append(("ttl", k, pa, pb))
        if len(out) >= 5:
            break
    return out


def short(v):
    r = repr(v)
    return r if len(r) < 200 else r[:200] + "...(%d chars)" % len(r)


def assert_same(master, replica, dbs=DBS, timeout=SYNC_TIMEOUT):
    """Waits until both servers hold the same keys, types, values and TTLs (within 5 s)."""
    last = []

    def same():
        last[:] = differences(snapshot(master, dbs), snapshot(replica, dbs))
        return not last

    assert wait_until(same, timeout=timeout, interval=0.2), (
        "replica %d differs from master %d: %r" % (replica.port, master.port, last))


class Writer(threading.Thread):
    """Writes to a server until stopped, riding out restarts; `acked` holds what it confirmed."""

    def __init__(self, server, prefix, keyspace=None):
        super().__init__(daemon=True)
        self.server, self.prefix, self.keyspace = server, prefix, keyspace
        self.stop = threading.Event()
        self.acked = {}
        self.errors = []
        self.count = 0

    def run(self):
        c = self.server.client(socket_timeout=10)
        i = 0
        while not self.stop.is_set():
            i += 1
            key = b"%s:%d" % (self.prefix, i)
            value = b"v%d" % i
            try:
                pipe = c.pipeline(transaction=False)
                pipe.execute_command("SET", key, value)
                if self.keyspace and i % 3 == 0:  # also rewrite and delete preloaded keys
                    pipe.execute_command("SET", b"k:%d" % (i * 7 % self.keyspace), value)
                    pipe.execute_command("DEL", b"k:%d" % (i * 13 % self.keyspace))
                pipe.execute_command("INCR", b"%s:count" % self.prefix)
                pipe.execute()
                self.acked[key] = value
                self.count += 1
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                time.sleep(0.02)  # the server is down or restarting
            except redis.ResponseError as e:
                if not str(e).startswith("LOADING"):
                    self.errors.append(str(e))
                time.sleep(0.02)
        c.connection_pool.disconnect()

    def wait_count(self, n, timeout=SYNC_TIMEOUT):
        assert wait_until(lambda: self.count >= n, timeout=timeout), (self.count, self.errors)

    def finish(self):
        self.stop.set()
        self.join(30)
        assert not self.is_alive()
        assert not self.errors, self.errors[:5]


# ---------------------------------------------------------------------------------------------
# the shared master and its two replicas


def preload(master):
    """Every type, TTLs, three dbs, a 1 MB value and MANY plain keys (checked in the tests)."""
    c = master.client()
    pipe = c.pipeline(transaction=False)
    for db in PRELOAD_DBS:
        pipe.execute_command("SELECT", db)
        pipe.execute_command("SET", "str", "plain %d" % db)
        pipe.execute_command("SET", "str:ex", "with ex", "EX", 1000)
        pipe.execute_command("SET", "str:px", "with px", "PX", 2000000)
        pipe.execute_command("HSET", "hash", *[x for i in range(100)
                                               for x in ("f%d" % i, "v%d" % (i * db))])
        pipe.execute_command("EXPIRE", "hash", 5000)
        pipe.execute_command("RPUSH", "list", *["item%d" % i for i in range(50)])
        pipe.execute_command("SADD", "set", *["m%d" % i for i in range(60)])
        pipe.execute_command("ZADD", "zset", *[x for i in range(40)
                                               for x in (str(i * 1.5 - 7), "z%d" % i)])
        pipe.execute_command("SET", "db", str(db))
    pipe.execute_command("SELECT", 0)
    pipe.execute_command("SET", "big", b"0123456789abcdef" * (BIG // 16))
    assert all(rep is not None for rep in pipe.execute())
    for i in range(0, MANY, 500):
        pipe = c.pipeline(transaction=False)
        for j in range(i, min(i + 500, MANY)):
            pipe.execute_command("SET", "many:%d" % j, "value %d" % j)
        pipe.execute()
    c.connection_pool.disconnect()


@pytest.fixture(scope="module")
def cluster(make_server):
    """(master, replica1, replica2), preloaded, both replicas linked and online."""
    master = make_server(SERVER_ARGS)
    preload(master)
    replicas = [make_server(SERVER_ARGS), make_server(SERVER_ARGS)]
    for rep in replicas:
        assert replicaof(rep, master) == b"OK"
    for rep in replicas:
        wait_linked(rep, master)
    return master, replicas[0], replicas[1]


@pytest.fixture
def shared(cluster):
    """The shared trio, checked to be still linked (a failed test may not leave it broken)."""
    master, r1, r2 = cluster
    for s in cluster:
        assert s.running(), "server %d died; log:\n%s" % (s.port, s.log()[-3000:])
    wait_linked(r1, master)
    wait_linked(r2, master)
    return cluster


# ---------------------------------------------------------------------------------------------
# REPLICAOF replies and errors


def test_replicaof_replies(servers, shared):
    master = shared[0]
    s = servers()
    c = s.client()
    assert c.execute_command("REPLICAOF", "127.0.0.1", master.port) == b"OK"
    assert c.execute_command("REPLICAOF", "127.0.0.1", master.port) == ALREADY
    assert c.execute_command("SLAVEOF", "127.0.0.1", str(master.port)) == ALREADY  # alias
    wait_linked(s, master)
    assert c.execute_command("REPLICAOF", "127.0.0.1", master.port) == ALREADY
    assert c.execute_command("REPLICAOF", "NO", "ONE") == b"OK"
    assert role(s)[0] == b"master"
    assert c.execute_command("REPLICAOF", "no", "one") == b"OK"  # already a master: still OK
    assert c.execute_command("SLAVEOF", "127.0.0.1", master.port) == b"OK"
    assert c.execute_command("SLAVEOF", "NO", "ONE") == b"OK"
    # the master forgets a replica that left
    assert wait_until(lambda: info(master)["connected_slaves"] == "2", timeout=SYNC_TIMEOUT)


def test_replicaof_errors(server, r):
    for port in ("abc", "-1", "65536", "70000", "1x", ""):
        assert err(r, "REPLICAOF", "127.0.0.1", port) == BAD_PORT, port
    assert err(r, "SLAVEOF", "127.0.0.1", "abc") == BAD_PORT
    assert err(r, "REPLICAOF", "NO", "TWO") == BAD_PORT  # not NO ONE: a host and a bad port
    assert err(r, "REPLICAOF") == arity("replicaof")
    assert err(r, "REPLICAOF", "127.0.0.1") == arity("replicaof")
    assert err(r, "REPLICAOF", "NO") == arity("replicaof")
    assert err(r, "REPLICAOF", "NO", "ONE", "x") == arity("replicaof")
    assert err(r, "SLAVEOF", "NO") == arity("slaveof")
    assert r.execute_command("ROLE")[0] == b"master"  # nothing changed
    assert err(r, "ROLE", "x") == arity("role")


# ---------------------------------------------------------------------------------------------
# ROLE and INFO replication


def test_role_shapes(shared):
    master, r1, r2 = shared
    got = role(master)
    assert len(got) == 3 and got[0] == b"master" and isinstance(got[1], int) and got[1] >= 0
    assert sorted(e[1] for e in got[2]) == sorted(b"%d" % s.port for s in (r1, r2))
    for entry in got[2]:
        assert len(entry) == 3 and entry[0] == b"127.0.0.1", entry
        assert entry[2].isdigit() and int(entry[2]) <= got[1], entry
    for rep in (r1, r2):
        got = role(rep)
        assert got[:4] == [b"slave", b"127.0.0.1", master.port, b"connected"], got
        assert len(got) == 5 and isinstance(got[4], int) and got[4] >= 0, got


def test_info_replication_on_master(shared):
    master, r1, r2 = shared
    pairs = info_pairs(master)
    fields = dict(pairs)
    order = ["role", "connected_slaves", "slave0", "slave1", "master_replid", "master_replid2",
             "master_repl_offset", "second_repl_offset"]
    keys = [k for k, _ in pairs]
    assert keys[0] == "role" and fields["role"] == "master", pairs
    assert [k for k in keys if k in order] == order, keys
    assert fields["connected_slaves"] == "2"
    ports = set()
    for name in ("slave0", "slave1"):
        m = SLAVE_LINE.match(fields[name])
        assert m, fields[name]
        ports.add(int(m.group(1)))
    assert ports == {r1.port, r2.port}
    assert HEX40.match(fields["master_replid"]), fields["master_replid"]
    assert HEX40.match(fields["master_replid2"]), fields["master_replid2"]
    assert int(fields["master_repl_offset"]) >= 0
    int(fields["second_repl_offset"])
    assert HEX40.match(info(master, "server")["run_id"])

    before = int(fields["master_repl_offset"])
    cmd(master, "SET", "info:grow", "x" * 100)
    after = int(info(master)["master_repl_offset"])
    assert after > before, (before, after)


def test_info_replication_on_replica(shared):
    master, r1, r2 = shared
    for rep in (r1, r2):
        pairs = info_pairs(rep)
        fields = dict(pairs)
        assert pairs[0] == ("role", "slave"), pairs
        order = ["role", "master_host", "master_port", "master_link_status",
                 "slave_repl_offset", "slave_priority", "slave_read_only", "connected_slaves",
                 "master_replid", "master_repl_offset"]
        assert [k for k, _ in pairs if k in order] == order, pairs
        assert fields["master_host"] == "127.0.0.1"
        assert fields["master_port"] == str(master.port)
        assert fields["master_link_status"] == "up"
        assert int(fields["slave_repl_offset"]) >= 0
        assert fields["slave_priority"] == "100"
        assert fields["slave_read_only"] == "1"
        assert fields["connected_slaves"] == "0"
        assert "master_link_down_since_seconds" not in fields  # only while the link is down
        assert HEX40.match(info(rep, "server")["run_id"])
    assert info(r1, "server")["run_id"] != info(master, "server")["run_id"]


def test_replica_offsets_reach_the_master_offset(shared):
    master, r1, r2 = shared
    c = master.client()
    for i in range(50):
        c.execute_command("SET", "offset:%d" % i, "v" * i)
    c.connection_pool.disconnect()

    def caught_up():
        target = int(info(master)["master_repl_offset"])
        return all(int(info(rep)["slave_repl_offset"]) == target for rep in (r1, r2))

    assert wait_until(caught_up, timeout=SYNC_TIMEOUT, interval=0.1), (
        info(master)["master_repl_offset"], info(r1)["slave_repl_offset"],
        info(r2)["slave_repl_offset"])


# ---------------------------------------------------------------------------------------------
# data: the full sync and the stream after it


def test_full_sync_copies_everything(shared):
    master, r1, r2 = shared
    for rep in (r1, r2):
        assert_same(master, rep)
        for db in PRELOAD_DBS:
            assert cmd(rep, "GET", "str", db=db) == b"plain %d" % db
            assert cmd(rep, "GET", "db", db=db) == b"%d" % db
            assert 900 <= cmd(rep, "TTL", "str:ex", db=db) <= 1000
            assert 1900 <= cmd(rep, "TTL", "str:px", db=db) <= 2000
            assert 4900 <= cmd(rep, "TTL", "hash", db=db) <= 5000
            assert cmd(rep, "TTL", "list", db=db) == -1
            assert cmd(rep, "HGET", "hash", "f7", db=db) == b"v%d" % (7 * db)
            assert cmd(rep, "LLEN", "list", db=db) == 50
            assert cmd(rep, "SCARD", "set", db=db) == 60
            assert cmd(rep, "ZSCORE", "zset", "z3", db=db) == b"-2.5"
        assert cmd(rep, "STRLEN", "big") == BIG
        assert cmd(rep, "GET", "big")[-16:] == b"0123456789abcdef"
        assert cmd(rep, "GET", "many:%d" % (MANY - 1)) == b"value %d" % (MANY - 1)
        assert cmd(rep, "DBSIZE", db=1) == 0


def test_writes_stream_to_replicas(shared):
    master, r1, r2 = shared
    c = master.client()
    x = c.execute_command
    assert x("SET", "s:a", "1") == b"OK"
    x("SET", "s:gone", "x")
    assert x("DEL", "s:gone") == 1
    assert x("INCR", "s:counter") == 1
    assert x("INCRBY", "s:counter", 41) == 42
    assert x("HSET", "s:hash", "a", "1", "b", "2") == 2
    assert x("HDEL", "s:hash", "a") == 1
    assert x("LPUSH", "s:list", "a", "b", "c") == 3
    assert x("RPOP", "s:list") == b"a"
    assert x("SADD", "s:set", "x", "y") == 2
    assert x("ZADD", "s:zset", 1, "one", 2.5, "two") == 2
    assert x("ZINCRBY", "s:zset", 1, "one") == b"2"
    x("SET", "s:exp", "v")
    assert x("EXPIRE", "s:exp", 1000) == 1
    x("SET", "s:persist", "v", "EX", 1000)
    assert x("PERSIST", "s:persist") == 1
    x("SET", "s:old", "renamed value")
    assert x("RENAME", "s:old", "s:new") == b"OK"
    assert x("MSET", *[v for i in range(64) for v in ("s:m:%d" % i, "m%d" % i)]) == b"OK"
    pipe = c.pipeline(transaction=True)  # MULTI ... EXEC
    pipe.execute_command("SET", "s:tx1", "a")
    pipe.execute_command("INCR", "s:counter")
    pipe.execute_command("LPUSH", "s:txlist", "z")
    assert pipe.execute() == [b"OK", 43, 1]
    # FLUSHDB on one db only
    assert cmd(master, "MSET", "f1", "1", "f2", "2", db=5) == b"OK"
    cmd(master, "SET", "kept", "yes", db=6)
    for rep in (r1, r2):
        assert wait_until(lambda: cmd(rep, "DBSIZE", db=5) == 2, timeout=SYNC_TIMEOUT)
    assert cmd(master, "FLUSHDB", db=5) == b"OK"
    c.connection_pool.disconnect()

    for rep in (r1, r2):
        assert_same(master, rep)
        assert cmd(rep, "GET", "s:counter") == b"43"
        assert cmd(rep, "EXISTS", "s:gone", "s:old") == 0
        assert cmd(rep, "GET", "s:new") == b"renamed value"
        assert cmd(rep, "HGETALL", "s:hash") == [b"b", b"2"]
        assert cmd(rep, "LRANGE", "s:list", 0, -1) == [b"c", b"b"]
        assert cmd(rep, "ZSCORE", "s:zset", "one") == b"2"
        # The expiry replicated as set (not dropped, not reset); the waits since the EXPIRE took
        # over 10 s in a loaded ASan run, so the window is wide.
        assert 900 <= cmd(rep, "TTL", "s:exp") <= 1000
        assert cmd(rep, "TTL", "s:persist") == -1
        assert cmd(rep, "MGET", "s:m:0", "s:m:63") == [b"m0", b"m63"]
        assert cmd(rep, "GET", "s:tx1") == b"a"
        assert cmd(rep, "DBSIZE", db=5) == 0
        assert cmd(rep, "GET", "kept", db=6) == b"yes"


def test_replica_is_read_only(shared):
    master, r1, r2 = shared
    cmd(master, "SET", "ro:key", "v")
    cmd(master, "HSET", "ro:hash", "f", "v")
    assert wait_until(lambda: cmd(r1, "EXISTS", "ro:key", "ro:hash") == 2, timeout=SYNC_TIMEOUT)
    c = r1.client()
    for args in (("SET", "ro:key", "x"), ("SET", "ro:new", "x"), ("DEL", "ro:key"),
                 ("INCR", "ro:n"), ("HSET", "ro:hash", "f", "x"), ("LPUSH", "ro:l", "a"),
                 ("EXPIRE", "ro:key", 10), ("FLUSHDB",), ("FLUSHALL",),
                 ("MSET", "a", "1", "b", "2")):
        assert err(c, *args) == READONLY, args
    # a write queued in MULTI is refused at once, and EXEC then aborts
    with r1.raw() as raw:
        assert raw.command("MULTI") == Simple(b"OK")
        assert raw.command("SET", "ro:key", "x") == Error(READONLY.encode())
        assert raw.command("EXEC") == Error(
            b"EXECABORT Transaction discarded because of previous errors.")
    # reads, PING, INFO and PUBLISH work
    assert c.execute_command("GET", "ro:key") == b"v"
    assert c.execute_command("HGET", "ro:hash", "f") == b"v"
    assert c.execute_command("PING") == b"PONG"
    assert b"role:slave" in c.execute_command("INFO", "replication")
    assert c.execute_command("PUBLISH", "ro:channel", "hello") == 0
    assert c.execute_command("EXISTS", "ro:new") == 0
    c.connection_pool.disconnect()


def test_expired_keys_read_as_missing_on_replicas(shared):
    master, r1, r2 = shared
    c = master.client()
    c.execute_command("SET", "exp:long", "v", "PX", 100000)
    t0 = time.monotonic()
    c.execute_command("SET", "exp:short", "v", "PX", 300)
    c.execute_command("WAIT", 2, 250)  # same connection: waits for the two SETs, at most 250 ms
    c.connection_pool.disconnect()
    for rep in (r1, r2):
        assert wait_until(lambda: cmd(rep, "EXISTS", "exp:long") == 1, timeout=SYNC_TIMEOUT)
        if time.monotonic() < t0 + 0.2:  # still well before the expiry: the replica has it
            assert 0 < cmd(rep, "PTTL", "exp:short") <= 300
    # the key expires on the master 300 ms after it got the SET; right then the replicas too
    # report it missing (Redis 7 replicas check the time; they do not wait for the master's DEL)
    time.sleep(max(0.0, t0 + 0.35 - time.monotonic()))
    for rep in (r1, r2):
        assert cmd(rep, "GET", "exp:short") is None
        assert cmd(rep, "EXISTS", "exp:short") == 0
        assert cmd(rep, "GET", "exp:long") == b"v"
        assert 90000 < cmd(rep, "PTTL", "exp:long") <= 100000
    assert cmd(master, "GET", "exp:short") is None
    for rep in (r1, r2):  # and it goes away for good
        assert wait_until(lambda: cmd(rep, "DBSIZE") == cmd(master, "DBSIZE"),
                          timeout=SYNC_TIMEOUT, interval=0.1)


# ---------------------------------------------------------------------------------------------
# WAIT


def test_wait_counts_replicas(shared):
    master, r1, r2 = shared
    c = master.client(socket_timeout=30)
    c.execute_command("SET", "wait:a", "1")
    assert c.execute_command("WAIT", 1, 5000) in (1, 2)
    c.execute_command("SET", "wait:b", "2")
    assert c.execute_command("WAIT", 2, 5000) == 2
    c.execute_command("SET", "wait:c", "3")
    t0 = time.monotonic()
    assert c.execute_command("WAIT", 3, 200) == 2  # only two replicas: waits the timeout
    assert 0.15 <= time.monotonic() - t0 < 5.0
    t0 = time.monotonic()
    got = c.execute_command("WAIT", 0, 0)
    assert isinstance(got, int) and 0 <= got <= 2
    assert time.monotonic() - t0 < 1.0
    assert cmd(r1, "GET", "wait:c") == b"3" and cmd(r2, "GET", "wait:c") == b"3"
    c.connection_pool.disconnect()


def test_wait_pipelined_after_writes_counts_them(shared):
    """SET and WAIT sent together: WAIT's count covers the SET (it may run on another worker, or
    wait for a group commit, when WAIT starts), so a replica WAIT counted holds it at once."""
    master, r1, r2 = shared
    c = master.client(socket_timeout=30)
    readers = [r1.client(), r2.client()]
    missing = []
    for i in range(200):
        key = "waitpipe:%d" % i
        pipe = c.pipeline(transaction=False)
        pipe.execute_command("SET", key, i)
        pipe.execute_command("WAIT", 2, 5000)
        ok, acked = pipe.execute()
        assert ok == b"OK" and acked == 2
        missing += [(key, r.connection_pool.connection_kwargs["port"]) for r in readers
                    if r.execute_command("GET", key) != str(i).encode()]
    assert not missing, "WAIT counted replicas that did not hold the write: %r" % missing[:5]
    c.connection_pool.disconnect()


def test_wait_errors(shared):
    master, r1, r2 = shared
    c = master.client()
    assert err(c, "WAIT") == arity("wait")
    assert err(c, "WAIT", 1) == arity("wait")
    assert err(c, "WAIT", 1, 2, 3) == arity("wait")
    assert err(c, "WAIT", "a", 1) == NOT_INT
    assert err(c, "WAIT", 1, "a") == "ERR timeout is not an integer or out of range"
    assert err(c, "WAIT", 1, "1.5") == "ERR timeout is not an integer or out of range"
    assert err(c, "WAIT", 1, -1) == "ERR timeout is negative"
    c.connection_pool.disconnect()
    c = r1.client()
    assert err(c, "WAIT", 0, 0) == (
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
        "if a replica is configured to be writable (which is not the default) writes to "
        "replicas are just local and are not propagated.")
    c.connection_pool.disconnect()


def test_wait_without_replicas(server, r):
    r.execute_command("SET", "k", "v")
    assert r.execute_command("WAIT", 0, 0) == 0
    t0 = time.monotonic()
    assert r.execute_command("WAIT", 1, 100) == 0
    assert 0.07 <= time.monotonic() - t0 < 5.0


# ---------------------------------------------------------------------------------------------
# promotion, resync, restarts, kill -9


def start_slow_full_sync(master, rep, prefix, bytes_per_sec, running_s):
    """Loads 1 MB of random values on master, limits its full syncs to bytes_per_sec, links
    rep and returns once rep's full sync has run for running_s seconds (still running)."""
    m = master.client()
    for b in range(10):
        m.execute_command("MSET", *[v for i in range(500)
                                    for v in ("%s:%d:%d" % (prefix, b, i), os.urandom(200))])
    m.connection_pool.disconnect()
    assert cmd(master, "CONFIG", "SET", "repl-sync-max-bytes-per-sec", bytes_per_sec) == b"OK"
    time.sleep(1.2)  # the master takes the limit at its next once-a-second tick
    assert replicaof(rep, master) == b"OK"
    assert wait_until(lambda: info(rep).get("master_sync_in_progress") == "1", timeout=10,
                      interval=0.02), info(rep)
    time.sleep(running_s)
    assert info(rep).get("master_sync_in_progress") == "1", "the sync ended too soon"


@pytest.mark.slotkv_only
def test_promoted_during_its_full_sync_streams_every_slot(servers):
    """A replica promoted while its full sync still runs (slowed by the master's
    repl-sync-max-bytes-per-sec) keeps its old data in the cut-off streams and streams the
    writes it takes there to a replica of its own (they were held back forever: the streams
    stayed suspended for the sync that would never end)."""
    master, rep, sub = servers(), servers(), servers()
    start_slow_full_sync(master, rep, "big", "100000", 0.3)
    assert cmd(rep, "REPLICAOF", "NO", "ONE") == b"OK"
    link(sub, rep)
    c = rep.client()
    for i in range(300):  # every engine slot of every worker
        assert c.execute_command("SET", "after:%d" % i, i) == b"OK"
    assert c.execute_command("WAIT", 1, 5000) == 1, rep.log()[-2000:]
    got = sub.client().mget(["after:%d" % i for i in range(300)])
    missing = [i for i, v in enumerate(got) if v != str(i).encode()]
    assert not missing, "writes of the promoted node missing on its replica: %r" % missing[:10]
    c.connection_pool.disconnect()


def test_replicaof_no_one_then_back(servers):
    master, rep = servers(), servers()
    m = master.client()
    m.execute_command("MSET", *[v for i in range(200) for v in ("p:%d" % i, "v%d" % i)])
    m.execute_command("HSET", "p:hash", "f", "v")
    link(rep, master)
    assert_same(master, rep)

    assert cmd(rep, "REPLICAOF", "NO", "ONE") == b"OK"
    got = role(rep)
    assert got[0] == b"master" and isinstance(got[1], int) and got[2] == [], got
    fields = info_pairs(rep)
    assert fields[0] == ("role", "master") and dict(fields)["connected_slaves"] == "0"
    assert cmd(rep, "GET", "p:199") == b"v199"  # keeps its data
    assert cmd(rep, "DBSIZE") == 201
    assert cmd(rep, "SET", "own:key", "mine") == b"OK"  # and takes writes
    assert cmd(rep, "DEL", "p:0") == 1
    assert cmd(rep, "SET", "own:db2", "mine", db=2) == b"OK"
    assert wait_until(lambda: info(master)["connected_slaves"] == "0", timeout=SYNC_TIMEOUT)
    m.execute_command("SET", "p:after", "while promoted")

    # back under the master: a resync replaces what it wrote on its own
    link(rep, master)
    assert_same(master, rep)
    assert cmd(rep, "EXISTS", "own:key") == 0
    assert cmd(rep, "EXISTS", "own:db2", db=2) == 0
    assert cmd(rep, "GET", "p:0") == b"v0"
    assert cmd(rep, "GET", "p:after") == b"while promoted"
    assert err(rep.client(), "SET", "own:key", "x") == READONLY
    m.connection_pool.disconnect()


def test_replica_restart_catches_up(servers):
    master, rep = servers(), servers()
    m = master.client()
    m.execute_command("MSET", *[v for i in range(500) for v in ("r:%d" % i, "v%d" % i)])
    link(rep, master)
    assert_same(master, rep)
    assert rep.stop() == 0
    # written while the replica is down
    m.execute_command("MSET", *[v for i in range(500, 800) for v in ("r:%d" % i, "w%d" % i)])
    m.execute_command("DEL", *["r:%d" % i for i in range(0, 100)])
    m.execute_command("SET", "r:ttl", "v", "EX", 1000)
    rep.start()
    if role(rep)[0] == b"master":
        # Redis does not keep REPLICAOF across a restart (slotkv does: see the slotkv_only test)
        assert replicaof(rep, master) == b"OK"
    wait_linked(rep, master)
    assert_same(master, rep)
    assert cmd(rep, "GET", "r:799") == b"w799"
    assert cmd(rep, "EXISTS", "r:0", "r:99") == 0
    assert 990 <= cmd(rep, "TTL", "r:ttl") <= 1000
    m.execute_command("SET", "r:after", "restart")
    assert wait_until(lambda: cmd(rep, "GET", "r:after") == b"restart", timeout=SYNC_TIMEOUT)
    m.connection_pool.disconnect()


@pytest.mark.slotkv_only
def test_replica_keeps_its_role_and_continues_after_restart(servers):
    """slotkv persists REPLICAOF and each stream's position: a restarted replica links again by
    itself and asks every stream to CONTINUE (one log line per stream decision, e.g.
    "repl: db 0 slot 3: CONTINUE from 1234", or "... FULL" when it had to copy a slot)."""
    master, rep = servers(), servers()
    m = master.client()
    m.execute_command("MSET", *[v for i in range(500) for v in ("c:%d" % i, "v%d" % i)])
    cmd(master, "SET", "c:db3", "x", db=3)
    link(rep, master)
    assert_same(master, rep)
    assert rep.stop() == 0
    m.execute_command("MSET", *[v for i in range(500, 700) for v in ("c:%d" % i, "w%d" % i)])
    m.execute_command("DEL", "c:1", "c:2")
    cmd(master, "SET", "c:db3", "y", db=3)
    before = len(rep.log())
    rep.start()
    got = role(rep)
    assert got[0] == b"slave" and got[1:3] == [b"127.0.0.1", master.port], got
    assert info_pairs(rep)[0] == ("role", "slave")
    wait_linked(rep, master)
    assert_same(master, rep)
    assert cmd(rep, "GET", "c:699") == b"w699"
    assert cmd(rep, "GET", "c:db3", db=3) == b"y"
    log = rep.log()[before:]
    assert "CONTINUE" in log, log[-3000:]
    assert "FULL" not in log, log[-3000:]
    m.connection_pool.disconnect()


def test_master_kill9_under_a_writer_then_replica_relinks(servers):
    master, rep = servers(), servers()
    m = master.client()
    m.execute_command("MSET", *[v for i in range(300) for v in ("k:%d" % i, "v%d" % i)])
    link(rep, master)
    writer = Writer(master, b"kw")
    writer.start()
    try:
        writer.wait_count(300)
        master.kill()
        acked = dict(writer.acked)
        # the replica sees the link go down
        assert wait_until(lambda: info(rep)["master_link_status"] == "down",
                          timeout=SYNC_TIMEOUT, interval=0.05)
        fields = info(rep)
        assert int(fields["master_link_down_since_seconds"]) >= 0, fields
        got = role(rep)
        assert got[0] == b"slave" and got[2] == master.port and got[3] in LINK_STATES, got
        assert got[3] != b"connected", got
        assert err(rep.client(), "SET", "x", "y") == READONLY  # still a replica
        master.start()  # same port, same dir
        n = writer.count
        writer.wait_count(n + 300)
    finally:
        writer.finish()
    assert wait_until(lambda: info(rep)["master_link_status"] == "up", timeout=SYNC_TIMEOUT,
                      interval=0.1), info(rep)
    wait_linked(rep, master)
    assert_same(master, rep)
    if not is_redis() or is_redis_aof():
        # a durable master (slotkv, redis with appendfsync always) kept every acknowledged write
        c = master.client()
        keys = list(acked)
        got = c.execute_command("MGET", *keys) if keys else []
        lost = [k for k, v in zip(keys, got) if v != acked[k]]
        assert not lost, "%d acknowledged writes lost, e.g. %r" % (len(lost), lost[:5])
        assert c.execute_command("GET", "k:299") == b"v299"
        c.connection_pool.disconnect()
    m.connection_pool.disconnect()


def test_full_sync_of_1m_keys_under_a_writer(servers):
    """A million keys (50k in the ASan build) synced while a writer adds keys, rewrites and
    deletes synced ones: SCAN + MGET of both end equal."""
    n = 50000 if os.environ.get("SLOTKV_TEST_SANITIZED") == "1" else 1000000
    master, rep = servers(), servers()
    c = master.client()
    for i in range(0, n, 10000):
        pipe = c.pipeline(transaction=False)
        for j in range(i, i + 10000, 500):
            pipe.execute_command("MSET", *[v for k in range(j, j + 500)
                                           for v in (b"k:%d" % k, b"value-%d" % k)])
        pipe.execute()
    assert c.execute_command("DBSIZE") == n
    writer = Writer(master, b"fw", keyspace=n)
    writer.start()
    try:
        writer.wait_count(200)
        assert replicaof(rep, master) == b"OK"
        wait_linked(rep, master, timeout=120)
        done = writer.count
        writer.wait_count(done + 300)  # keeps writing after the sync, into the stream
    finally:
        writer.finish()

    def sizes_match():
        return cmd(master, "DBSIZE") == cmd(rep, "DBSIZE")

    assert wait_until(sizes_match, timeout=60, interval=0.2), (
        cmd(master, "DBSIZE"), cmd(rep, "DBSIZE"))
    sizes = assert_same_strings(master, rep, timeout=120)
    assert sizes[0] > n * 0.9
    assert cmd(rep, "GET", b"fw:count") == cmd(master, "GET", b"fw:count")
    c.connection_pool.disconnect()


def test_two_replicas_then_promote_one(servers):
    master, a, b = servers(), servers(), servers()
    m = master.client()
    m.execute_command("MSET", *[v for i in range(300) for v in ("t:%d" % i, "v%d" % i)])
    link(a, master)
    link(b, master)
    m.execute_command("SET", "t:both", "1")
    m.execute_command("ZADD", "t:z", 1, "a")
    assert m.execute_command("WAIT", 2, 10000) == 2
    assert_same(master, a)
    assert_same(master, b)

    assert cmd(a, "REPLICAOF", "NO", "ONE") == b"OK"
    assert cmd(a, "SET", "t:promoted", "a") == b"OK"
    assert cmd(a, "DEL", "t:0") == 1
    m.execute_command("SET", "t:old-master-only", "m")  # after the promotion: not for b
    before = len(b.log())
    link(b, a)
    if not is_redis():
        # The promoted replica's second id lets b continue every stream it has in common;
        # only the stream of t:old-master-only (ahead of the promotion) is copied again.
        log = b.log()[before:]
        assert "CONTINUE" in log, log[-3000:]
        assert log.count("FULL sync") <= 1, log[-3000:]
    assert_same(a, b)
    assert cmd(b, "GET", "t:promoted") == b"a"
    assert cmd(b, "EXISTS", "t:0", "t:old-master-only") == 0
    got = role(a)
    assert got[0] == b"master" and [e[1] for e in got[2]] == [b"%d" % b.port], got
    fields = info(a)
    assert fields["connected_slaves"] == "1" and SLAVE_LINE.match(fields["slave0"]), fields

    # writes to the promoted one reach the other
    ca = a.client()
    ca.execute_command("SET", "t:later", "x")
    ca.execute_command("HSET", "t:h", "f", "v")
    ca.execute_command("INCR", "t:n")
    assert ca.execute_command("WAIT", 1, 10000) == 1
    assert cmd(b, "GET", "t:later") == b"x"
    assert_same(a, b)
    assert err(b.client(), "SET", "t:x", "y") == READONLY
    ca.connection_pool.disconnect()
    m.connection_pool.disconnect()


# ---------------------------------------------------------------------------------------------
# stale data, the master link, the role in CONFIG, per-stream resync, the admin API


def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def engine_slot(tag, slots=8):
    """The slotkv slot of keys with hash tag {tag} (the test servers run with --slots 8)."""
    return crc16(tag.encode()) % 16384 * slots // 16384


def test_replica_serve_stale_data_no_refuses_reads_while_the_link_is_down(servers):
    master, rep = servers(), servers()
    cmd(master, "SET", "stale:k", "v")
    link(rep, master)
    assert cmd(rep, "CONFIG", "SET", "replica-serve-stale-data", "no") == b"OK"
    assert cmd(rep, "GET", "stale:k") == b"v"  # the link is up: reads are served
    master.stop()
    assert wait_until(lambda: info(rep)["master_link_status"] == "down", timeout=SYNC_TIMEOUT)
    c = rep.client()
    masterdown = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
    assert err(c, "GET", "stale:k") == masterdown
    assert err(c, "PING") == masterdown  # Redis 7's PING is not flagged stale: Sentinel expects it
    assert info(rep)["role"] == "slave"  # INFO, CONFIG, REPLICAOF ... are
    assert c.execute_command("CONFIG", "SET", "replica-serve-stale-data", "yes") == b"OK"
    assert c.execute_command("GET", "stale:k") == b"v"
    c.connection_pool.disconnect()


def test_client_kill_type_master_drops_the_link_which_comes_back(servers):
    master, rep = servers(), servers()
    link(rep, master)
    assert cmd(rep, "CLIENT", "KILL", "TYPE", "master") == 1
    cmd(master, "SET", "after:kill", "1")
    wait_linked(rep, master)
    assert wait_until(lambda: cmd(rep, "GET", "after:kill") == b"1", timeout=SYNC_TIMEOUT)


def test_config_get_replicaof_follows_the_role(servers):
    master, rep = servers(), servers()
    assert cmd(rep, "CONFIG", "GET", "replicaof") == [b"replicaof", b""]
    replicaof(rep, master)
    want = b"127.0.0.1 %d" % master.port
    assert cmd(rep, "CONFIG", "GET", "replicaof") == [b"replicaof", want]
    assert cmd(rep, "CONFIG", "GET", "slaveof") == [b"slaveof", want]
    assert cmd(rep, "REPLICAOF", "NO", "ONE") == b"OK"
    assert cmd(rep, "CONFIG", "GET", "replicaof") == [b"replicaof", b""]


@pytest.mark.slotkv_only
def test_backlog_overflow_resyncs_only_the_streams_that_fell_out():
    """Each stream (database of a slot) has its own backlog: a replica that was away while one
    slot took more writes than repl-backlog-size syncs that slot in full and continues the
    others."""
    busy, quiet = "busy", "calm"
    assert engine_slot(busy) != engine_slot(quiet)
    master = start_server(["--repl-backlog-size", "16384"])
    rep = start()
    try:
        m = master.client()
        m.execute_command("SET", "{%s}:0" % busy, "x")
        m.execute_command("SET", "{%s}:0" % quiet, "x")
        link(rep, master)
        assert rep.stop() == 0
        for i in range(400):
            m.execute_command("SET", "{%s}:%d" % (busy, i), "v" * 100)
        m.execute_command("SET", "{%s}:1" % quiet, "y")
        before = len(rep.log())
        rep.start()
        wait_linked(rep, master)
        assert_same(master, rep)
        log = rep.log()[before:]
        assert "db 0 slot %d: FULL" % engine_slot(busy) in log, log[-3000:]
        assert "db 0 slot %d: CONTINUE" % engine_slot(quiet) in log, log[-3000:]
        assert log.count("FULL") == 1, log[-3000:]
        m.connection_pool.disconnect()
    finally:
        rep.cleanup()
        master.cleanup()


def assert_continues_after_restart(rep, master, key):
    """Stops rep, changes key on master, restarts rep: it continues from the backlog (its log
    shows no FULL sync) and has the change."""
    assert rep.stop() == 0
    cmd(master, "SET", key, "changed")
    before = len(rep.log())
    rep.start()
    wait_linked(rep, master)
    assert cmd(rep, "GET", key) == b"changed"
    assert "FULL" not in rep.log()[before:], rep.log()[before:][-3000:]


def test_backlog_starts_with_the_first_replica(servers):
    """As Redis: a master keeps no backlog before a replica links, then keeps one; the replica's writes after it linked reach it, and a short stop of the
    replica continues from the backlog (slotkv: no FULL in its log)."""
    master, rep = servers(), servers()
    c = master.client()
    c.execute_command("MSET", *[v for i in range(200) for v in ("bl:%d" % i, "v%d" % i)])
    fields = info(master)
    assert fields["repl_backlog_active"] == "0", fields
    assert int(fields["repl_backlog_histlen"]) == 0, fields
    # slotkv's offsets are its streams' sequence numbers, which writes move; Redis's stay 0
    assert (int(fields["master_repl_offset"]) > 0) != is_redis(), fields
    link(rep, master)
    assert info(master)["repl_backlog_active"] == "1"
    c.execute_command("SET", "bl:after", "x")
    assert wait_until(lambda: cmd(rep, "GET", "bl:after") == b"x", timeout=SYNC_TIMEOUT)
    assert cmd(rep, "GET", "bl:199") == b"v199"
    assert int(info(master)["repl_backlog_histlen"]) > 0
    if not is_redis():
        assert_continues_after_restart(rep, master, "bl:0")
    c.connection_pool.disconnect()


@pytest.mark.slotkv_only
def test_backlogs_share_repl_backlog_size(servers):
    """Streams hold about repl-backlog-size together (trimmed once a second, each keeping a
    share in proportion to what it holds), not that much each; a replica that was away briefly
    still continues."""
    master = start_server(["--repl-backlog-size", "65536"])
    rep = servers()
    try:
        link(rep, master)
        c = master.client()
        # ~1 MB over every slot and two databases (random bytes: nothing compresses)
        for i in range(0, 2000, 100):
            c.execute_command("MSET", *[v for k in range(i, i + 100)
                                        for v in ("b:%d" % k, os.urandom(500))])
        cmd(master, "SET", "other-db", os.urandom(500), db=1)
        assert wait_until(lambda: int(info(master)["repl_backlog_histlen"]) <= 2 * 65536,
                          timeout=5), info(master)
        assert_continues_after_restart(rep, master, "b:0")
        c.connection_pool.disconnect()
    finally:
        master.cleanup()


@pytest.mark.slotkv_only
def test_admin_api_and_metrics_show_the_replicas(servers):
    http_port = free_port()
    master = start_server(["--http-port", http_port, "--http-bind", "127.0.0.1"])
    rep = servers()
    try:
        link(rep, master)
        cmd(master, "SET", "api:k", "v")
        assert cmd(master, "WAIT", 1, 5000) == 1
        body = urllib.request.urlopen("http://127.0.0.1:%d/replication" % http_port).read()
        got = json.loads(body)
        assert got["role"] == "master"
        assert [r["replica"] for r in got["replicas"]] == ["127.0.0.1:%d" % rep.port]
        assert got["replicas"][0]["state"] == "online"
        assert got["replicas"][0]["offset_lag"] == 0
        assert got["offset"] == int(info(master)["master_repl_offset"])
        assert sum(s["offset"] for s in got["slot_list"]) == got["offset"]
        text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % http_port).read().decode()
        assert "slotkv_replication_connected_replicas 1" in text
        assert 'slotkv_replica_online{replica="127.0.0.1:%d"} 1' % rep.port in text
    finally:
        master.cleanup()


def load_keys(server, n, prefix=b"k"):
    c = server.client()
    for i in range(0, n, 10000):
        pipe = c.pipeline(transaction=False)
        for j in range(i, min(n, i + 10000), 500):
            pipe.execute_command("MSET", *[v for k in range(j, min(n, j + 500))
                                           for v in (b"%s:%d" % (prefix, k), b"value-%d" % k)])
        pipe.execute()
    c.connection_pool.disconnect()


def throttled_master(n, prefix):
    """A master whose full syncs send 1 MB/s, holding n keys prefix:i of 100 random bytes
    (values go as stored: repeated ones would compress to little). Returns it and a client."""
    master = start_server(["--repl-sync-max-bytes-per-sec", "1mb"])
    try:
        c = master.client()
        pipe = c.pipeline(transaction=False)
        for i in range(n):
            pipe.execute_command("SET", "%s:%d" % (prefix, i), os.urandom(100))
        pipe.execute()
        return master, c
    except Exception:
        master.cleanup()
        raise


@pytest.mark.slotkv_only
def test_replica_killed_during_a_full_sync_syncs_again_after_restart(servers):
    """A replica killed mid-sync holds part of some streams: restarted, it must not continue
    them from where the copy stopped (the state file then names no master id, so every stream
    syncs again in full). The master sends 1 MB/s: the 2 MB sync lasts about 2 s."""
    master, c = throttled_master(20000, "k")
    rep = servers()
    try:
        assert replicaof(rep, master) == b"OK"
        assert wait_until(lambda: "FULL sync" in rep.log(), timeout=SYNC_TIMEOUT, interval=0.01)
        time.sleep(0.3)
        rep.kill()
        assert "master-replid" not in open(rep.dir + "/replication.state").read()
        cmd(master, "SET", "after:kill", "1")
        rep.start()
        wait_linked(rep, master, timeout=60)
        assert_same_strings(master, rep)
        c.connection_pool.disconnect()
    finally:
        master.cleanup()


def test_replica_link_dropped_mid_stream_catches_up(servers):
    """CLIENT KILL TYPE replica on the master while a writer streams: the replica reconnects and
    ends equal (slotkv continues its streams; Redis does a partial resync)."""
    master, rep = servers(), servers()
    load_keys(master, 20000)
    link(rep, master)
    full_syncs = rep.log().count("FULL sync")
    writer = Writer(master, b"drop", keyspace=20000)
    writer.start()
    try:
        writer.wait_count(100)
        for _ in range(3):
            wait_linked(rep, master)
            assert cmd(master, "CLIENT", "KILL", "TYPE", "replica") == 1
            done = writer.count
            writer.wait_count(done + 100)
        wait_linked(rep, master)
    finally:
        writer.finish()
    assert_same_strings(master, rep)
    if not is_redis():
        assert rep.log().count("FULL sync") == full_syncs  # every stream continued


@pytest.mark.slotkv_only
def test_link_dropped_mid_full_sync_then_continued_streams_end_equal(servers):
    """The link drops while some streams are still in their first full sync, and the master's
    backlog holds those streams' whole history: the replica leaves them out of its SYNC, and
    the master must sync them in full again. (It used to CONTINUE them from 0: the replica
    kept them in its unfinished copy, never acknowledged them and never served their writes,
    so a FAILOVER TO it waited forever.)"""
    master = start_server(["--repl-backlog-size", "64mb"])
    rep = servers()
    try:
        start_slow_full_sync(master, rep, "cut", "200000", 0.5)
        m = master.client()
        assert cmd(master, "CLIENT", "KILL", "TYPE", "replica") == 1
        assert cmd(master, "CONFIG", "SET", "repl-sync-max-bytes-per-sec", "0") == b"OK"
        wait_linked(rep, master)
        for i in range(300):  # every engine slot of every worker
            assert m.execute_command("SET", "after:%d" % i, i) == b"OK"
        assert m.execute_command("WAIT", 1, 10000) == 1, rep.log()[-3000:]
        assert_same_strings(master, rep)
        assert info(rep).get("master_sync_in_progress") == "0"
        m.connection_pool.disconnect()
    finally:
        master.cleanup()


def test_failover_hands_over_to_a_synced_replica(servers):
    master, rep = servers(), servers()
    load_keys(master, 2000)
    link(rep, master)
    m = master.client()
    assert m.execute_command("FAILOVER", "TO", "127.0.0.1", rep.port, "TIMEOUT", 10000) == b"OK"

    def switched():
        a, b = safe(lambda: role(master)), safe(lambda: role(rep))
        return (isinstance(a, list) and a[0] == b"slave" and a[2] == rep.port and
                a[3] == b"connected" and isinstance(b, list) and b[0] == b"master")

    assert wait_until(switched, timeout=SYNC_TIMEOUT, interval=0.1), (
        safe(lambda: role(master)), safe(lambda: role(rep)), master.log()[-2000:])
    assert info(master)["master_failover_state"] == "no-failover"
    assert err(m, "SET", "x", "1") == READONLY
    assert cmd(rep, "SET", "after:failover", "1") == b"OK"
    assert wait_until(lambda: cmd(master, "GET", "after:failover") == b"1", timeout=SYNC_TIMEOUT)
    assert_same_strings(rep, master)
    m.connection_pool.disconnect()


def test_failover_pauses_writes_until_it_ends(servers):
    """As Redis: while FAILOVER waits for its target writes wait (reads go on); after an abort
    they run on the master, which stays one."""
    master, rep = servers(), servers()
    link(rep, master)
    assert cmd(master, "SET", "before", "1") == b"OK"
    os.kill(rep.proc.pid, signal.SIGSTOP)
    try:
        assert cmd(master, "SET", "unacked", "x") == b"OK"  # the stopped replica never acks it
        assert cmd(master, "FAILOVER", "TO", "127.0.0.1", rep.port, "TIMEOUT", 1000) == b"OK"
        assert info(master)["master_failover_state"] == "waiting-for-sync"
        assert cmd(master, "GET", "before") == b"1"
        start = time.monotonic()
        assert cmd(master, "SET", "during", "1") == b"OK"  # held until the abort
        assert time.monotonic() - start > 0.4
        assert info(master)["master_failover_state"] == "no-failover"
    finally:
        os.kill(rep.proc.pid, signal.SIGCONT)
    assert role(master)[0] == b"master"
    assert wait_until(lambda: cmd(rep, "GET", "during") == b"1", timeout=SYNC_TIMEOUT)


def test_failover_errors(servers):
    master, rep = servers(), servers()
    m = master.client()
    assert err(m, "FAILOVER") == "ERR FAILOVER requires connected replicas."
    assert err(m, "FAILOVER", "ABORT") == "ERR No failover in progress."
    assert err(m, "FAILOVER", "TIMEOUT", 0) == "ERR FAILOVER timeout must be greater than 0"
    assert err(m, "FAILOVER", "TIMEOUT", "x") == NOT_INT
    assert err(m, "FAILOVER", "BOGUS") == "ERR syntax error"
    link(rep, master)
    assert err(m, "FAILOVER", "FORCE") == (
        "ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
    assert err(m, "FAILOVER", "TO", "127.0.0.1", 1) == (
        "ERR FAILOVER target HOST and PORT is not a replica.")
    assert err(rep.client(), "FAILOVER") == "ERR FAILOVER is not valid when server is a replica."
    m.connection_pool.disconnect()


@pytest.mark.slotkv_only
def test_full_sync_bandwidth_limit(servers):
    """repl-sync-max-bytes-per-sec: 3 MB of records at 1 MB/s take about 3 s."""
    master, c = throttled_master(25000, "bw")
    rep = servers()
    try:
        start = time.monotonic()
        assert replicaof(rep, master) == b"OK"
        assert wait_until(lambda: info(rep).get("master_sync_in_progress") == "1", timeout=5)
        wait_linked(rep, master, timeout=60)
        took = time.monotonic() - start
        assert took > 2.0, took
        assert cmd(rep, "DBSIZE") == 25000
        c.connection_pool.disconnect()
    finally:
        master.cleanup()


@pytest.mark.slotkv_only
def test_replica_serves_its_old_data_until_the_full_sync_swaps_in(servers):
    """A stream in full sync is staged beside the replica's live data: reads see the old data
    (stale) until the copy is complete, then the master's. One stream (hash tag {bw}) of 1.4 MB
    copied at 1 MB/s (half of it for that stream's worker) takes about 3 s."""
    master = start_server(["--repl-sync-max-bytes-per-sec", "1mb"])
    rep = servers()
    try:
        c = master.client()
        pipe = c.pipeline(transaction=False)
        for i in range(12000):
            pipe.execute_command("SET", "{bw}:%d" % i, "v" * 100)
        pipe.execute()
        c.execute_command("SET", "{bw}:shared", "from master")
        cmd(rep, "SET", "{bw}:shared", "old")
        cmd(rep, "SET", "{bw}:7", "old")
        assert replicaof(rep, master) == b"OK"
        assert wait_until(lambda: info(rep).get("master_sync_in_progress") == "1", timeout=5)
        assert cmd(rep, "GET", "{bw}:shared") == b"old"
        assert cmd(rep, "GET", "{bw}:7") == b"old"
        wait_linked(rep, master, timeout=60)
        assert cmd(rep, "GET", "{bw}:shared") == b"from master"
        assert cmd(rep, "GET", "{bw}:7") == b"v" * 100
        assert cmd(rep, "DBSIZE") == 12001
        c.connection_pool.disconnect()
    finally:
        master.cleanup()


def test_min_replicas_to_write_refuses_writes_without_good_replicas(servers):
    master, rep = servers(), servers()
    m = master.client()
    assert m.execute_command("CONFIG", "SET", "min-replicas-to-write", 1) == b"OK"
    assert m.execute_command("CONFIG", "SET", "min-replicas-max-lag", 10) == b"OK"
    assert err(m, "SET", "k", "v") == "NOREPLICAS Not enough good replicas to write."
    assert m.execute_command("GET", "k") is None  # reads go on
    link(rep, master)
    assert wait_until(lambda: safe(lambda: m.execute_command("SET", "k", "v")) == b"OK",
                      timeout=SYNC_TIMEOUT, interval=0.2)
    assert info(master)["min_slaves_good_slaves"] == "1"
    assert m.execute_command("CONFIG", "GET", "min-slaves-to-write") == [b"min-slaves-to-write",
                                                                          b"1"]
    m.connection_pool.disconnect()
