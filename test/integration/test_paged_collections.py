"""Paged hashes and sets: a collection above paged-collection-threshold members is a root plus
pages under internal keys (core/command/collection_pages.h). The pages must never show as keys,
survive a SIGKILL, follow RENAME / COPY / MOVE, and go when the key goes. The suites of each
family also run with paging forced (ctest py_test_hashes_paged, py_test_sets_paged)."""

import time

import pytest

from conftest import start_server

pytestmark = pytest.mark.slotkv_only

N = 600


@pytest.fixture(scope="module")
def server():
    s = start_server(["--paged-collection-threshold", "16", "--paged-page-members", "4"])
    yield s
    s.stop()


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
