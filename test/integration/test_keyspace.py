"""Keyspace commands: DEL UNLINK EXISTS TYPE EXPIRE* TTL PERSIST RENAME COPY KEYS SCAN RANDOMKEY
TOUCH DBSIZE FLUSHDB FLUSHALL OBJECT, and expiry (lazy and active)."""

import time

import pytest

from conftest import err, is_redis, wait_until

NOT_COMPATIBLE = "ERR NX and XX, GT or LT options at the same time are not compatible"


def rpush_or_skip(r, key, *values):
    """Creates a list key; skips the test if the server has no lists yet."""
    try:
        return r.execute_command("RPUSH", key, *values)
    except Exception as e:  # noqa: BLE001 - any unknown-command error means "no lists yet"
        if "unknown command" in str(e):
            pytest.skip("server has no RPUSH yet")
        raise


def mset(r, mapping):
    args = []
    for k, v in mapping.items():
        args += [k, v]
    assert r.execute_command("MSET", *args) == b"OK"


# ---- DEL / UNLINK / EXISTS / TYPE ----------------------------------------------------------------

def test_del_counts_existing_keys_once(r):
    mset(r, {"a": 1, "b": 2})
    assert r.execute_command("DEL", "a", "b", "c", "a") == 2
    assert r.execute_command("DEL", "a") == 0
    assert r.execute_command("DBSIZE") == 0
    assert err(r, "DEL") == "ERR wrong number of arguments for 'del' command"


def test_unlink(r):
    mset(r, {"a": 1, "b": 2})
    assert r.execute_command("UNLINK", "a", "nokey") == 1
    assert r.execute_command("EXISTS", "a", "b") == 1
    assert err(r, "UNLINK") == "ERR wrong number of arguments for 'unlink' command"


def test_exists_counts_duplicates(r):
    mset(r, {"a": 1, "b": 2})
    assert r.execute_command("EXISTS", "a", "a", "b", "nokey", "a") == 4
    assert r.execute_command("EXISTS", "nokey") == 0
    assert err(r, "EXISTS") == "ERR wrong number of arguments for 'exists' command"


def test_type(r):
    r.execute_command("SET", "s", "v")
    assert r.execute_command("TYPE", "s") == b"string"
    assert r.execute_command("TYPE", "nokey") == b"none"
    rpush_or_skip(r, "l", "x")
    assert r.execute_command("TYPE", "l") == b"list"


def test_type_is_status_reply(server, r):
    r.execute_command("SET", "s", "v")
    with server.raw() as c:
        c.send_command("TYPE", "s")
        c.expect(b"+string\r\n")
        c.send_command("TYPE", "nokey")
        c.expect(b"+none\r\n")


# ---- EXPIRE family -------------------------------------------------------------------------------

def test_expire_and_ttl(r):
    r.execute_command("SET", "k", "v")
    assert r.execute_command("TTL", "k") == -1
    assert r.execute_command("PTTL", "k") == -1
    assert r.execute_command("TTL", "nokey") == -2
    assert r.execute_command("PTTL", "nokey") == -2
    assert r.execute_command("EXPIRE", "k", "100") == 1
    assert r.execute_command("TTL", "k") == 100
    assert 99000 < r.execute_command("PTTL", "k") <= 100000
    assert r.execute_command("EXPIRE", "nokey", "100") == 0
    assert r.execute_command("PEXPIRE", "k", "50000") == 1
    assert 49000 < r.execute_command("PTTL", "k") <= 50000
    assert r.execute_command("TTL", "k") == 50


def test_expire_nx_xx_gt_lt(r):
    r.execute_command("SET", "k", "v")
    assert r.execute_command("EXPIRE", "k", "100", "XX") == 0  # no TTL yet
    assert r.execute_command("EXPIRE", "k", "100", "GT") == 0  # no TTL counts as infinite
    assert r.execute_command("TTL", "k") == -1
    assert r.execute_command("EXPIRE", "k", "100", "NX") == 1
    assert r.execute_command("EXPIRE", "k", "200", "NX") == 0
    assert r.execute_command("EXPIRE", "k", "50", "GT") == 0
    assert r.execute_command("EXPIRE", "k", "150", "gt") == 1
    assert r.execute_command("EXPIRE", "k", "170", "LT") == 0
    assert r.execute_command("EXPIRE", "k", "120", "LT") == 1
    assert r.execute_command("EXPIRE", "k", "130", "XX") == 1
    assert r.execute_command("TTL", "k") == 130
    r.execute_command("SET", "p", "v")
    assert r.execute_command("EXPIRE", "p", "100", "LT") == 1  # any TTL is less than none


def test_expire_option_errors(r):
    r.execute_command("SET", "k", "v")
    assert err(r, "EXPIRE", "k", "100", "NX", "XX") == NOT_COMPATIBLE
    assert err(r, "EXPIRE", "k", "100", "NX", "GT") == NOT_COMPATIBLE
    assert err(r, "PEXPIRE", "k", "100", "XX", "NX") == NOT_COMPATIBLE
    assert err(r, "EXPIRE", "k", "100", "GT", "LT") == (
        "ERR GT and LT options at the same time are not compatible")
    assert err(r, "EXPIRE", "k", "100", "FOO") == "ERR Unsupported option FOO"
    assert err(r, "EXPIRE", "k", "abc") == "ERR value is not an integer or out of range"
    assert err(r, "EXPIRE", "k") == "ERR wrong number of arguments for 'expire' command"
    assert err(r, "EXPIRE", "k", "9223372036854775807") == (
        "ERR invalid expire time in 'expire' command")
    assert err(r, "PEXPIRE", "k", "9223372036854775807") == (
        "ERR invalid expire time in 'pexpire' command")
    assert err(r, "EXPIREAT", "k", "9223372036854775807") == (
        "ERR invalid expire time in 'expireat' command")
    assert r.execute_command("TTL", "k") == -1


def test_expire_in_past_deletes(r):
    mset(r, {"a": 1, "b": 2, "c": 3, "d": 4})
    assert r.execute_command("EXPIRE", "a", "0") == 1
    assert r.execute_command("EXPIRE", "b", "-5") == 1
    assert r.execute_command("EXPIREAT", "c", "1") == 1
    assert r.execute_command("PEXPIREAT", "d", "1") == 1
    assert r.execute_command("EXISTS", "a", "b", "c", "d") == 0
    assert r.execute_command("DBSIZE") == 0


def test_expireat_pexpireat_and_expiretime(r):
    r.execute_command("SET", "k", "v")
    assert r.execute_command("EXPIRETIME", "k") == -1
    assert r.execute_command("PEXPIRETIME", "k") == -1
    assert r.execute_command("EXPIRETIME", "nokey") == -2
    assert r.execute_command("PEXPIRETIME", "nokey") == -2
    at = int(time.time()) + 1000
    assert r.execute_command("EXPIREAT", "k", at) == 1
    assert r.execute_command("EXPIRETIME", "k") == at
    assert r.execute_command("PEXPIRETIME", "k") == at * 1000
    pat = at * 1000 + 1234
    assert r.execute_command("PEXPIREAT", "k", pat) == 1
    assert r.execute_command("PEXPIRETIME", "k") == pat
    assert r.execute_command("EXPIRETIME", "k") == at + 1  # rounded to nearest second
    assert r.execute_command("EXPIREAT", "k", at + 10, "GT") == 1
    assert r.execute_command("EXPIREAT", "k", at, "GT") == 0
    assert r.execute_command("PEXPIREAT", "k", pat, "LT") == 1
    assert r.execute_command("PEXPIRETIME", "k") == pat


def test_persist(r):
    r.execute_command("SET", "k", "v", "EX", "100")
    assert r.execute_command("PERSIST", "k") == 1
    assert r.execute_command("TTL", "k") == -1
    assert r.execute_command("PERSIST", "k") == 0
    assert r.execute_command("PERSIST", "nokey") == 0
    assert r.execute_command("GET", "k") == b"v"


def test_set_clears_ttl_but_other_writes_keep_it(r):
    r.execute_command("SET", "k", "1", "EX", "100")
    r.execute_command("INCR", "k")
    r.execute_command("APPEND", "k", "0")
    r.execute_command("SETRANGE", "k", "0", "3")
    assert r.execute_command("GET", "k") == b"30"
    assert 0 < r.execute_command("TTL", "k") <= 100
    r.execute_command("SET", "k", "v")
    assert r.execute_command("TTL", "k") == -1


def test_expired_key_reads_as_missing(r):
    r.execute_command("SET", "k", "v", "PX", "50")
    r.execute_command("SET", "keep", "v")
    time.sleep(0.15)
    assert r.execute_command("GET", "k") is None
    assert r.execute_command("EXISTS", "k") == 0
    assert r.execute_command("TTL", "k") == -2
    assert r.execute_command("GET", "keep") == b"v"


def test_active_expiry_without_reads(r):
    # keys with a short TTL disappear from DBSIZE without anyone touching them
    # (TTL long enough that a loaded machine has written all keys before the first expires)
    for i in range(20):
        r.execute_command("SET", "short:%d" % i, "v", "PX", "1500")
    for i in range(5):
        r.execute_command("SET", "long:%d" % i, "v")
    assert r.execute_command("DBSIZE") == 25
    assert wait_until(lambda: r.execute_command("DBSIZE") == 5, timeout=4.0), \
        "DBSIZE still %d after 4 s" % r.execute_command("DBSIZE")


def test_active_expiry_of_keys_in_bucket_pages(r):
    # SAVE persists the keys into bucket pages: active expiry finds them there (through the
    # buckets' expiry flags), not only in the maps of unpersisted writes
    for i in range(20):
        r.execute_command("SET", "paged:%d" % i, "v", "PX", "1500")
    for i in range(5):
        r.execute_command("SET", "kept:%d" % i, "v")
    assert r.execute_command("SAVE") == b"OK"
    assert r.execute_command("DBSIZE") == 25
    assert wait_until(lambda: r.execute_command("DBSIZE") == 5, timeout=4.0), \
        "DBSIZE still %d after 4 s" % r.execute_command("DBSIZE")
    assert sorted(r.execute_command("KEYS", "*")) == [b"kept:%d" % i for i in range(5)]


# ---- RENAME / RENAMENX / COPY --------------------------------------------------------------------

def test_rename(r):
    assert err(r, "RENAME", "nokey", "x") == "ERR no such key"
    r.execute_command("SET", "a", "1", "EX", "100")
    r.execute_command("SET", "b", "old")
    assert r.execute_command("RENAME", "a", "b") == b"OK"  # overwrites
    assert r.execute_command("EXISTS", "a") == 0
    assert r.execute_command("GET", "b") == b"1"
    assert 0 < r.execute_command("TTL", "b") <= 100  # TTL travels
    assert r.execute_command("RENAME", "b", "b") == b"OK"
    assert r.execute_command("GET", "b") == b"1"


def test_rename_overwrite_drops_target_ttl(r):
    r.execute_command("SET", "a", "1")
    r.execute_command("SET", "b", "2", "EX", "100")
    assert r.execute_command("RENAME", "a", "b") == b"OK"
    assert r.execute_command("TTL", "b") == -1


def test_renamenx(r):
    assert err(r, "RENAMENX", "nokey", "x") == "ERR no such key"
    mset(r, {"a": 1, "b": 2})
    assert r.execute_command("RENAMENX", "a", "b") == 0
    assert r.execute_command("GET", "a") == b"1"
    assert r.execute_command("RENAMENX", "a", "c") == 1
    assert r.execute_command("GET", "c") == b"1"
    assert r.execute_command("EXISTS", "a") == 0


def test_rename_across_many_keys(r):
    # source and target hash to different slots: the move must be complete either way
    for i in range(50):
        r.execute_command("SET", "src:%d" % i, "v%d" % i)
        assert r.execute_command("RENAME", "src:%d" % i, "dst:%d" % (i * 7919)) == b"OK"
    for i in range(50):
        assert r.execute_command("GET", "dst:%d" % (i * 7919)) == b"v%d" % i
    assert r.execute_command("DBSIZE") == 50


def test_copy(r):
    r.execute_command("SET", "k", "v", "EX", "100")
    assert r.execute_command("COPY", "k", "k2") == 1
    assert r.execute_command("GET", "k2") == b"v"
    assert 0 < r.execute_command("TTL", "k2") <= 100
    r.execute_command("SET", "k", "changed")
    assert r.execute_command("GET", "k2") == b"v"  # a copy, not a link
    assert r.execute_command("COPY", "k", "k2") == 0
    assert r.execute_command("GET", "k2") == b"v"
    assert r.execute_command("COPY", "k", "k2", "REPLACE") == 1
    assert r.execute_command("GET", "k2") == b"changed"
    assert r.execute_command("COPY", "nokey", "k3") == 0
    assert r.execute_command("EXISTS", "k3") == 0


def test_copy_to_other_db(r):
    r.execute_command("SET", "k", "v")
    assert r.execute_command("COPY", "k", "k", "DB", "1") == 1
    assert r.execute_command("COPY", "k", "k", "DB", "1") == 0
    assert r.execute_command("COPY", "k", "k", "DB", "1", "REPLACE") == 1
    r.execute_command("SELECT", "1")
    assert r.execute_command("GET", "k") == b"v"
    r.execute_command("SELECT", "0")
    assert r.execute_command("GET", "k") == b"v"


def test_copy_errors(r):
    r.execute_command("SET", "k", "v")
    assert err(r, "COPY", "k", "k") == "ERR source and destination objects are the same"
    assert err(r, "COPY", "k", "x", "DB", "16") == "ERR DB index is out of range"
    assert err(r, "COPY", "k", "x", "DB", "x") == "ERR value is not an integer or out of range"
    assert err(r, "COPY", "k", "x", "FOO") == "ERR syntax error"
    assert err(r, "COPY", "k") == "ERR wrong number of arguments for 'copy' command"


# ---- KEYS ----------------------------------------------------------------------------------------

GLOB_KEYS = [b"hello", b"hallo", b"hxllo", b"hllo", b"heeeello", b"hbllo", b"h*llo", b"h?llo",
             b"h[llo", b"h\\llo", b"h]llo", b"a", b"b", b"-x", b"!"]


@pytest.fixture
def glob_keys(r):
    mset(r, {k: b"1" for k in GLOB_KEYS})
    return r


@pytest.mark.parametrize("pattern,expected", [
    (b"*", GLOB_KEYS),
    (b"h?llo", [b"hello", b"hallo", b"hxllo", b"hbllo", b"h*llo", b"h?llo", b"h[llo", b"h\\llo",
                b"h]llo"]),
    (b"h*llo", [b"hello", b"hallo", b"hxllo", b"hllo", b"heeeello", b"hbllo", b"h*llo", b"h?llo",
                b"h[llo", b"h\\llo", b"h]llo"]),
    (b"h[ae]llo", [b"hello", b"hallo"]),
    (b"h[^e]llo", [b"hallo", b"hxllo", b"hbllo", b"h*llo", b"h?llo", b"h[llo", b"h\\llo",
                   b"h]llo"]),
    (b"h[a-b]llo", [b"hallo", b"hbllo"]),
    (b"h[b-a]llo", [b"hallo", b"hbllo"]),  # a reversed range still matches
    (b"h\\*llo", [b"h*llo"]),
    (b"h\\?llo", [b"h?llo"]),
    (b"h\\[llo", [b"h[llo"]),
    (b"h[\\]]llo", [b"h]llo"]),
    (b"h[\\\\]llo", [b"h\\llo"]),
    (b"[!a]", [b"a", b"!"]),  # '!' is not negation in Redis globs
    (b"?", [b"a", b"b", b"!"]),
    (b"-*", [b"-x"]),
    (b"nomatch*", []),
    (b"hello", [b"hello"]),
])
def test_keys_glob(glob_keys, pattern, expected):
    assert sorted(glob_keys.execute_command("KEYS", pattern)) == sorted(expected)


def test_keys_arity(r):
    assert err(r, "KEYS") == "ERR wrong number of arguments for 'keys' command"


def test_keys_binary_names(r):
    keys = [bytes([i, 0, 255 - i]) for i in range(0, 256, 17)]
    mset(r, {k: b"v" for k in keys})
    assert sorted(r.execute_command("KEYS", "*")) == sorted(keys)
    assert r.execute_command("KEYS", b"\x00*") == [b"\x00\x00\xff"]


def test_keys_skips_expired(r):
    r.execute_command("SET", "live", "v")
    r.execute_command("SET", "dead", "v", "PX", "30")
    time.sleep(0.1)
    assert r.execute_command("KEYS", "*") == [b"live"]


# ---- SCAN ----------------------------------------------------------------------------------------

def scan_all(r, *args):
    cursor, seen, rounds = b"0", [], 0
    while True:
        reply = r.execute_command("SCAN", cursor, *args)
        assert isinstance(reply, list) and len(reply) == 2
        cursor, keys = reply
        assert isinstance(cursor, bytes) and cursor.isdigit()
        assert isinstance(keys, list)
        seen += keys
        rounds += 1
        assert rounds < 10000
        if cursor == b"0":
            return seen, rounds


def test_scan_full_iteration(r):
    keys = {b"key:%d" % i for i in range(1000)}
    mset(r, {k: b"v" for k in keys})
    seen, rounds = scan_all(r, "COUNT", "10")
    assert set(seen) == keys
    assert rounds > 10  # COUNT bounds the work per call


def test_scan_match_and_type(r):
    mset(r, {b"user:%d" % i: b"1" for i in range(100)})
    mset(r, {b"other:%d" % i: b"1" for i in range(100)})
    seen, _ = scan_all(r, "MATCH", "user:*", "COUNT", "20")
    assert set(seen) == {b"user:%d" % i for i in range(100)}
    seen, _ = scan_all(r, "MATCH", "user:1?", "COUNT", "1000")
    assert set(seen) == {b"user:%d" % i for i in range(10, 20)}
    seen, _ = scan_all(r, "TYPE", "string", "COUNT", "1000")
    assert len(set(seen)) == 200
    seen, _ = scan_all(r, "TYPE", "list", "COUNT", "1000")
    assert seen == []


def test_scan_type_list(r):
    r.execute_command("SET", "s", "v")
    rpush_or_skip(r, "l", "x")
    seen, _ = scan_all(r, "TYPE", "list")
    assert seen == [b"l"]
    seen, _ = scan_all(r, "TYPE", "string")
    assert seen == [b"s"]


def test_scan_unknown_type_is_empty(r):
    # Redis 7.0.15: an unknown TYPE name matches nothing (later versions may reply an error)
    r.execute_command("SET", "s", "v")
    seen, _ = scan_all(r, "TYPE", "nosuchtype")
    assert seen == []


def test_scan_keys_present_throughout_are_returned(r):
    stable = {b"stable:%d" % i for i in range(500)}
    mset(r, {k: b"v" for k in stable})
    cursor, seen, n = b"0", set(), 0
    while True:
        cursor, keys = r.execute_command("SCAN", cursor, "COUNT", "25")
        seen.update(keys)
        # churn: add and remove other keys during the scan
        r.execute_command("SET", "churn:%d" % n, "v")
        if n >= 3:
            r.execute_command("DEL", "churn:%d" % (n - 3))
        n += 1
        if cursor == b"0":
            break
    assert stable <= seen
    assert all(k.startswith(b"stable:") or k.startswith(b"churn:") for k in seen)


def test_scan_errors(r):
    assert err(r, "SCAN", "abc") == "ERR invalid cursor"
    assert err(r, "SCAN", "18446744073709551616") == "ERR invalid cursor"
    assert err(r, "SCAN", "0", "COUNT", "0") == "ERR syntax error"
    assert err(r, "SCAN", "0", "COUNT", "-1") == "ERR syntax error"
    assert err(r, "SCAN", "0", "COUNT", "x") == "ERR value is not an integer or out of range"
    assert err(r, "SCAN", "0", "FOO") == "ERR syntax error"
    assert err(r, "SCAN", "0", "MATCH") == "ERR syntax error"
    assert err(r, "SCAN") == "ERR wrong number of arguments for 'scan' command"


def test_scan_empty_db(r):
    assert r.execute_command("SCAN", "0") == [b"0", []]


# ---- RANDOMKEY / TOUCH / DBSIZE / FLUSH ----------------------------------------------------------

def test_randomkey(r):
    assert r.execute_command("RANDOMKEY") is None
    keys = {b"r%d" % i for i in range(20)}
    mset(r, {k: b"v" for k in keys})
    got = {r.execute_command("RANDOMKEY") for _ in range(50)}
    assert got <= keys and len(got) > 1
    assert err(r, "RANDOMKEY", "x") == "ERR wrong number of arguments for 'randomkey' command"


def test_touch(r):
    mset(r, {"a": 1, "b": 2})
    assert r.execute_command("TOUCH", "a", "b", "nokey", "a") == 3
    assert r.execute_command("TOUCH", "nokey") == 0
    assert err(r, "TOUCH") == "ERR wrong number of arguments for 'touch' command"


def test_dbsize(r):
    assert r.execute_command("DBSIZE") == 0
    mset(r, {b"k%d" % i: b"v" for i in range(37)})
    assert r.execute_command("DBSIZE") == 37
    r.execute_command("DEL", "k0", "k1")
    assert r.execute_command("DBSIZE") == 35
    r.execute_command("SELECT", "1")
    assert r.execute_command("DBSIZE") == 0


def test_flushdb_is_per_db_flushall_is_global(r):
    r.execute_command("SET", "k0", "v")
    r.execute_command("SELECT", "1")
    r.execute_command("SET", "k1", "v")
    r.execute_command("SELECT", "2")
    r.execute_command("SET", "k2", "v")
    r.execute_command("SELECT", "1")
    assert r.execute_command("FLUSHDB") == b"OK"
    assert r.execute_command("DBSIZE") == 0
    r.execute_command("SELECT", "0")
    assert r.execute_command("GET", "k0") == b"v"
    r.execute_command("SELECT", "2")
    assert r.execute_command("FLUSHALL") == b"OK"
    for db in (0, 1, 2):
        r.execute_command("SELECT", db)
        assert r.execute_command("DBSIZE") == 0


def test_flush_modes(r):
    r.execute_command("SET", "a", "1")
    assert r.execute_command("FLUSHDB", "ASYNC") == b"OK"
    assert r.execute_command("DBSIZE") == 0
    r.execute_command("SET", "a", "1")
    assert r.execute_command("FLUSHALL", "SYNC") == b"OK"
    assert r.execute_command("DBSIZE") == 0
    assert err(r, "FLUSHDB", "FOO") == "ERR syntax error"
    assert err(r, "FLUSHALL", "FOO") == "ERR syntax error"


def test_flushall_removes_keys_with_ttl(r):
    r.execute_command("SET", "t", "v", "EX", "100")
    r.execute_command("FLUSHALL")
    r.execute_command("SET", "t", "new")
    assert r.execute_command("TTL", "t") == -1


# ---- OBJECT --------------------------------------------------------------------------------------

def test_object_encoding_strings(r):
    r.execute_command("SET", "int", "12345")
    r.execute_command("SET", "neg", "-123")
    r.execute_command("SET", "big", "12345678901234567890")  # beyond int64: a string
    r.execute_command("SET", "lead0", "0123")
    r.execute_command("SET", "short", "x" * 44)
    r.execute_command("SET", "long", "x" * 45)
    assert r.execute_command("OBJECT", "ENCODING", "int") == b"int"
    assert r.execute_command("OBJECT", "ENCODING", "neg") == b"int"
    assert r.execute_command("OBJECT", "ENCODING", "big") == b"embstr"
    assert r.execute_command("OBJECT", "ENCODING", "lead0") == b"embstr"
    assert r.execute_command("OBJECT", "ENCODING", "short") == b"embstr"
    assert r.execute_command("OBJECT", "ENCODING", "long") == b"raw"
    assert r.execute_command("OBJECT", "ENCODING", "nokey") is None
    r.execute_command("SET", "n", "10")
    r.execute_command("INCRBY", "n", "5")
    assert r.execute_command("OBJECT", "ENCODING", "n") == b"int"


def test_object_freq_needs_lfu(r):
    r.execute_command("SET", "k", "v")
    assert err(r, "OBJECT", "FREQ", "k") == (
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time to "
        "adjust.")


def test_object_idletime_and_refcount(r):
    r.execute_command("SET", "k", "some value")
    if is_redis():
        idle = r.execute_command("OBJECT", "IDLETIME", "k")
        assert isinstance(idle, int) and 0 <= idle <= 2
    else:  # slotkv keeps no access time per key: an error rather than a made-up number
        assert err(r, "OBJECT", "IDLETIME", "k") == (
            "ERR slotkv does not track access times: OBJECT IDLETIME is not available")
    assert r.execute_command("OBJECT", "REFCOUNT", "k") == 1
    assert r.execute_command("OBJECT", "IDLETIME", "nokey") is None
    assert r.execute_command("OBJECT", "REFCOUNT", "nokey") is None


def test_object_help_and_errors(r):
    help_lines = r.execute_command("OBJECT", "HELP")
    assert isinstance(help_lines, list)
    assert help_lines[0] == b"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    for word in (b"ENCODING <key>", b"FREQ <key>", b"IDLETIME <key>", b"REFCOUNT <key>", b"HELP"):
        assert word in help_lines
    assert err(r, "OBJECT", "FOO") == "ERR unknown subcommand 'FOO'. Try OBJECT HELP."
    assert err(r, "OBJECT") == "ERR wrong number of arguments for 'object' command"
    assert err(r, "OBJECT", "ENCODING", "a", "b") == (
        "ERR wrong number of arguments for 'object|encoding' command")
