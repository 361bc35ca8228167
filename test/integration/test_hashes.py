"""Hash commands: exact replies, errors and edge cases as Redis 7.0.15 gives them.

Small hashes reply in insertion order (Redis's listpack order, which slotkv keeps for every
hash), so exact lists are asserted for them; big hashes are compared as sets.
"""

import random

import pytest

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err

NOT_FLOAT = "ERR value is not a valid float"
HASH_NOT_INT = "ERR hash value is not an integer"
HASH_NOT_FLOAT = "ERR hash value is not a float"
OVERFLOW = "ERR increment or decrement would overflow"
NAN_RESULT = "ERR increment would produce NaN or Infinity"
NAN_INCR = "ERR value is NaN or Infinity"
OUT_OF_RANGE = "ERR value is out of range"
INVALID_CURSOR = "ERR invalid cursor"


def pairs(flat):
    return list(zip(flat[0::2], flat[1::2]))


# ---- HSET / HMSET / HSETNX / HGET ----------------------------------------------------------------

def test_hset_hget_basic(r):
    assert r.execute_command("HGET", "h", "a") is None
    assert r.execute_command("HSET", "h", "a", "1", "b", "2") == 2
    assert r.execute_command("HSET", "h", "a", "x", "c", "3") == 1
    assert r.execute_command("HGET", "h", "a") == b"x"
    assert r.execute_command("HGET", "h", "nofield") is None
    assert r.execute_command("HGETALL", "h") == [b"a", b"x", b"b", b"2", b"c", b"3"]
    assert r.execute_command("TYPE", "h") == b"hash"


def test_hset_same_field_twice_in_one_call(r):
    assert r.execute_command("HSET", "h", "a", "1", "a", "2") == 1
    assert r.execute_command("HGET", "h", "a") == b"2"
    assert r.execute_command("HLEN", "h") == 1


def test_hset_hmset_arity(r):
    assert err(r, "HSET", "h") == arity("hset")
    assert err(r, "HSET", "h", "a") == arity("hset")
    assert err(r, "HSET", "h", "a", "1", "b") == arity("hset")
    assert err(r, "HMSET", "h", "a") == arity("hmset")
    assert err(r, "HMSET", "h", "a", "1", "b") == arity("hmset")
    assert r.execute_command("EXISTS", "h") == 0
    assert r.execute_command("HMSET", "h", "a", "1", "b", "2") == b"OK"
    assert r.execute_command("HMGET", "h", "a", "b") == [b"1", b"2"]


def test_hsetnx(r):
    assert r.execute_command("HSETNX", "h", "a", "1") == 1
    assert r.execute_command("HSETNX", "h", "a", "2") == 0
    assert r.execute_command("HGET", "h", "a") == b"1"
    assert err(r, "HSETNX", "h", "a") == arity("hsetnx")
    assert err(r, "HSETNX", "h", "a", "1", "2") == arity("hsetnx")


def test_binary_fields_and_values(r):
    every = bytes(range(256))
    assert r.execute_command("HSET", every, every, every, every + b"2", b"") == 2
    assert r.execute_command("HGET", every, every) == every
    assert r.execute_command("HGET", every, every + b"2") == b""
    assert r.execute_command("HSET", "h", "", "empty field") == 1
    assert r.execute_command("HGET", "h", "") == b"empty field"
    assert r.execute_command("HSTRLEN", "h", "") == 11


def test_big_value(r):
    v = b"x" * (1 << 20)
    assert r.execute_command("HSET", "h", "big", v, "small", "s") == 2
    assert r.execute_command("HGET", "h", "big") == v
    assert r.execute_command("HSTRLEN", "h", "big") == 1 << 20


# ---- HDEL and deletion of empty hashes -----------------------------------------------------------

def test_hdel(r):
    assert r.execute_command("HDEL", "h", "a") == 0
    r.execute_command("HSET", "h", "a", "1", "b", "2", "c", "3")
    assert r.execute_command("HDEL", "h", "a", "a", "zz") == 1
    assert r.execute_command("HKEYS", "h") == [b"b", b"c"]
    assert r.execute_command("HDEL", "h", "b", "c") == 2
    assert r.execute_command("EXISTS", "h") == 0
    assert r.execute_command("TYPE", "h") == b"none"
    assert err(r, "HDEL", "h") == arity("hdel")


def test_readd_after_delete_goes_last(r):
    r.execute_command("HSET", "h", "a", "1", "b", "2", "c", "3")
    r.execute_command("HDEL", "h", "a")
    r.execute_command("HSET", "h", "a", "again")
    assert r.execute_command("HGETALL", "h") == [b"b", b"2", b"c", b"3", b"a", b"again"]


# ---- reads ---------------------------------------------------------------------------------------

def test_hmget(r):
    r.execute_command("HSET", "h", "a", "1", "b", "")
    assert r.execute_command("HMGET", "h", "a", "zz", "b", "a") == [b"1", None, b"", b"1"]
    assert r.execute_command("HMGET", "nokey", "a", "b") == [None, None]
    assert err(r, "HMGET", "h") == arity("hmget")


def test_hlen_hstrlen_hexists(r):
    assert r.execute_command("HLEN", "h") == 0
    assert r.execute_command("HSTRLEN", "h", "a") == 0
    assert r.execute_command("HEXISTS", "h", "a") == 0
    r.execute_command("HSET", "h", "a", "hello", "n", "-123")
    assert r.execute_command("HLEN", "h") == 2
    assert r.execute_command("HSTRLEN", "h", "a") == 5
    assert r.execute_command("HSTRLEN", "h", "n") == 4
    assert r.execute_command("HSTRLEN", "h", "zz") == 0
    assert r.execute_command("HEXISTS", "h", "a") == 1
    assert r.execute_command("HEXISTS", "h", "zz") == 0
    assert err(r, "HLEN") == arity("hlen")
    assert err(r, "HLEN", "a", "b") == arity("hlen")
    assert err(r, "HSTRLEN", "h") == arity("hstrlen")
    assert err(r, "HEXISTS", "h") == arity("hexists")
    assert err(r, "HGET", "h", "a", "b") == arity("hget")


def test_hkeys_hvals_hgetall(r):
    assert r.execute_command("HKEYS", "h") == []
    assert r.execute_command("HVALS", "h") == []
    assert r.execute_command("HGETALL", "h") == []
    r.execute_command("HSET", "h", "f1", "v1", "f2", "v2", "f3", "")
    assert r.execute_command("HKEYS", "h") == [b"f1", b"f2", b"f3"]
    assert r.execute_command("HVALS", "h") == [b"v1", b"v2", b""]
    assert r.execute_command("HGETALL", "h") == [b"f1", b"v1", b"f2", b"v2", b"f3", b""]
    for cmd in ("hkeys", "hvals", "hgetall"):
        assert err(r, cmd) == arity(cmd)
        assert err(r, cmd, "a", "b") == arity(cmd)


@pytest.mark.one_value
def test_resp3_replies(server, r):
    r.execute_command("HSET", "h", "a", "1", "b", "2")
    with server.raw() as c:
        assert isinstance(c.command("HELLO", "3"), dict)
        c.send_command("HGETALL", "h")
        c.expect(b"%2\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n")
        c.send_command("HGETALL", "nokey")
        c.expect(b"%0\r\n")
        c.send_command("HKEYS", "nokey")
        c.expect(b"*0\r\n")
        c.send_command("HGET", "h", "zz")
        c.expect(b"_\r\n")
        c.send_command("HMGET", "h", "a", "zz")
        c.expect(b"*2\r\n$1\r\n1\r\n_\r\n")
        c.send_command("HRANDFIELD", "nokey")
        c.expect(b"_\r\n")
        c.send_command("HRANDFIELD", "nokey", "3")
        c.expect(b"*0\r\n")
        c.send_command("HRANDFIELD", "h", "5", "WITHVALUES")
        c.expect(b"*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n")
        c.send_command("HINCRBYFLOAT", "h", "f", "1.5")
        c.expect(b"$3\r\n1.5\r\n")
        c.send_command("HSCAN", "h", "0")
        c.expect(b"*2\r\n$1\r\n0\r\n*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n"
                 b"$1\r\nf\r\n$3\r\n1.5\r\n")


def test_resp2_raw_replies(server, r):
    r.execute_command("HSET", "h", "a", "1")
    with server.raw() as c:
        c.send_command("HGETALL", "nokey")
        c.expect(b"*0\r\n")
        c.send_command("HRANDFIELD", "nokey")
        c.expect(b"$-1\r\n")
        c.send_command("HSCAN", "nokey", "0")
        c.expect(b"*2\r\n$1\r\n0\r\n*0\r\n")
        c.send_command("HMSET", "h", "b", "2")
        c.expect(b"+OK\r\n")


# ---- HINCRBY / HINCRBYFLOAT ----------------------------------------------------------------------

def test_hincrby(r):
    assert r.execute_command("HINCRBY", "h", "n", "5") == 5
    assert r.execute_command("HINCRBY", "h", "n", "-7") == -2
    assert r.execute_command("HGET", "h", "n") == b"-2"
    assert err(r, "HINCRBY", "h", "n", "x") == NOT_INT
    assert err(r, "HINCRBY", "h", "n", "1.5") == NOT_INT
    assert err(r, "HINCRBY", "h", "n", " 1") == NOT_INT
    assert err(r, "HINCRBY", "nokey", "n", "x") == NOT_INT
    assert r.execute_command("EXISTS", "nokey") == 0
    r.execute_command("HSET", "h", "s", "abc", "z", "007", "sp", " 1", "f", "1.0")
    for field in ("s", "z", "sp", "f"):
        assert err(r, "HINCRBY", "h", field, "1") == HASH_NOT_INT
    assert err(r, "HINCRBY", "h", "n") == arity("hincrby")


def test_hincrby_overflow(r):
    r.execute_command("HSET", "h", "max", "9223372036854775807", "min", "-9223372036854775808")
    assert err(r, "HINCRBY", "h", "max", "1") == OVERFLOW
    assert err(r, "HINCRBY", "h", "min", "-1") == OVERFLOW
    assert r.execute_command("HINCRBY", "h", "max", "-9223372036854775808") == -1
    assert r.execute_command("HINCRBY", "h", "min", "9223372036854775807") == -1
    assert r.execute_command("HINCRBY", "h", "new", "-9223372036854775808") == \
        -9223372036854775808


def test_hincrbyfloat(r):
    assert r.execute_command("HINCRBYFLOAT", "h", "x", "10.5") == b"10.5"
    assert r.execute_command("HINCRBYFLOAT", "h", "x", "0.1") == b"10.6"
    assert r.execute_command("HINCRBYFLOAT", "h", "x", "-10.6") == b"0"
    assert r.execute_command("HINCRBYFLOAT", "h", "e", "5.0e3") == b"5000"
    assert r.execute_command("HINCRBYFLOAT", "h", "i", "3") == b"3"
    assert r.execute_command("HINCRBY", "h", "i", "2") == 5
    assert r.execute_command("HINCRBYFLOAT", "h", "i", "0x10") == b"21"
    assert r.execute_command("HGET", "h", "e") == b"5000"
    assert err(r, "HINCRBYFLOAT", "h", "x", "abc") == NOT_FLOAT
    assert err(r, "HINCRBYFLOAT", "h", "x", "nan") == NOT_FLOAT
    assert err(r, "HINCRBYFLOAT", "h", "x", "") == NOT_FLOAT
    assert err(r, "HINCRBYFLOAT", "h", "x", "inf") == NAN_INCR
    assert err(r, "HINCRBYFLOAT", "h", "x", "-inf") == NAN_INCR
    r.execute_command("HSET", "h", "s", "abc", "inf", "inf", "big", "1e308")
    assert err(r, "HINCRBYFLOAT", "h", "s", "1") == HASH_NOT_FLOAT
    assert err(r, "HINCRBYFLOAT", "h", "inf", "1") == NAN_RESULT
    assert err(r, "HINCRBYFLOAT", "h", "x") == arity("hincrbyfloat")


# ---- HRANDFIELD ----------------------------------------------------------------------------------

def test_hrandfield_no_count(r):
    assert r.execute_command("HRANDFIELD", "nokey") is None
    r.execute_command("HSET", "h", "a", "1", "b", "2", "c", "3")
    seen = {r.execute_command("HRANDFIELD", "h") for _ in range(200)}
    assert seen == {b"a", b"b", b"c"}


def test_hrandfield_positive_count(r):
    assert r.execute_command("HRANDFIELD", "nokey", "3") == []
    assert r.execute_command("HRANDFIELD", "nokey", "0") == []
    r.execute_command("HSET", "h", "a", "1", "b", "2", "c", "3")
    assert r.execute_command("HRANDFIELD", "h", "0") == []
    assert r.execute_command("HRANDFIELD", "h", "3") == [b"a", b"b", b"c"]
    assert r.execute_command("HRANDFIELD", "h", "100") == [b"a", b"b", b"c"]
    assert r.execute_command("HRANDFIELD", "h", "3", "WITHVALUES") == \
        [b"a", b"1", b"b", b"2", b"c", b"3"]
    assert r.execute_command("HRANDFIELD", "h", "9", "withvalues") == \
        [b"a", b"1", b"b", b"2", b"c", b"3"]
    for _ in range(50):
        got = r.execute_command("HRANDFIELD", "h", "2")
        assert len(set(got)) == 2 and set(got) <= {b"a", b"b", b"c"}
        got = r.execute_command("HRANDFIELD", "h", "2", "WITHVALUES")
        assert all(dict(a=b"1", b=b"2", c=b"3")[f.decode()] == v for f, v in pairs(got))


def test_hrandfield_negative_count(r):
    r.execute_command("HSET", "h", "a", "1", "b", "2")
    got = r.execute_command("HRANDFIELD", "h", "-100")
    assert len(got) == 100
    assert set(got) == {b"a", b"b"}
    got = r.execute_command("HRANDFIELD", "h", "-20", "WITHVALUES")
    assert len(got) == 40
    assert set(pairs(got)) == {(b"a", b"1"), (b"b", b"2")}
    assert r.execute_command("HRANDFIELD", "nokey", "-5") == []


def test_hrandfield_errors(r):
    r.execute_command("HSET", "h", "a", "1")
    assert err(r, "HRANDFIELD", "h", "x") == NOT_INT
    assert err(r, "HRANDFIELD", "h", "1.5") == NOT_INT
    assert err(r, "HRANDFIELD", "h", "1", "WITHVALUE") == SYNTAX
    assert err(r, "HRANDFIELD", "h", "1", "WITHVALUES", "x") == SYNTAX
    assert err(r, "HRANDFIELD", "h", "x", "WITHVALUES", "x") == NOT_INT
    assert err(r, "HRANDFIELD", "h", "-9223372036854775808") == \
        "ERR value is out of range, value must between -9223372036854775807 and " \
        "9223372036854775807"
    assert err(r, "HRANDFIELD", "h", "9223372036854775807", "WITHVALUES") == OUT_OF_RANGE
    assert err(r, "HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES") == OUT_OF_RANGE
    assert err(r, "HRANDFIELD", "nokey", "4611686018427387904", "WITHVALUES") == OUT_OF_RANGE
    assert r.execute_command("HRANDFIELD", "h", "4611686018427387903", "WITHVALUES") == \
        [b"a", b"1"]
    assert err(r, "HRANDFIELD") == arity("hrandfield")


# ---- HSCAN ---------------------------------------------------------------------------------------

@pytest.mark.one_value
def test_hscan_small_hash_in_one_call(r):
    assert r.execute_command("HSCAN", "nokey", "0") == [b"0", []]
    r.execute_command("HSET", "h", "a1", "x", "b1", "y", "a2", "z", "", "e")
    everything = [b"a1", b"x", b"b1", b"y", b"a2", b"z", b"", b"e"]
    assert r.execute_command("HSCAN", "h", "0") == [b"0", everything]
    assert r.execute_command("HSCAN", "h", "0", "COUNT", "1") == [b"0", everything]
    assert r.execute_command("HSCAN", "h", "17") == [b"0", everything]
    assert r.execute_command("HSCAN", "h", "0", "MATCH", "*") == [b"0", everything]
    assert r.execute_command("HSCAN", "h", "0", "match", "a*") == \
        [b"0", [b"a1", b"x", b"a2", b"z"]]
    assert r.execute_command("HSCAN", "h", "0", "MATCH", "?1", "COUNT", "100") == \
        [b"0", [b"a1", b"x", b"b1", b"y"]]
    assert r.execute_command("HSCAN", "h", "0", "MATCH", "x*", "MATCH", "b*") == \
        [b"0", [b"b1", b"y"]]
    assert r.execute_command("HSCAN", "h", "0", "MATCH", "nothing") == [b"0", []]


def test_hscan_errors(r):
    assert err(r, "HSCAN", "nokey", "x") == INVALID_CURSOR
    # options are only read when the key exists
    assert r.execute_command("HSCAN", "nokey", "0", "BAD") == [b"0", []]
    r.execute_command("HSET", "h", "a", "1")
    assert err(r, "HSCAN", "h", "x") == INVALID_CURSOR
    assert err(r, "HSCAN", "h", " 1") == INVALID_CURSOR
    assert err(r, "HSCAN", "h", "18446744073709551616") == INVALID_CURSOR
    assert r.execute_command("HSCAN", "h", "-1") == [b"0", [b"a", b"1"]]
    assert err(r, "HSCAN", "h", "0", "COUNT", "0") == SYNTAX
    assert err(r, "HSCAN", "h", "0", "COUNT", "-1") == SYNTAX
    assert err(r, "HSCAN", "h", "0", "COUNT", "x") == NOT_INT
    assert err(r, "HSCAN", "h", "0", "MATCH") == SYNTAX
    assert err(r, "HSCAN", "h", "0", "TYPE", "hash") == SYNTAX
    assert err(r, "HSCAN", "h", "0", "BAD", "x") == SYNTAX
    assert err(r, "HSCAN", "h") == arity("hscan")


# ---- types, TTL and key commands -----------------------------------------------------------------

WRITE_COMMANDS = [
    ("HSET", "a", "1"), ("HMSET", "a", "1"), ("HSETNX", "a", "1"), ("HDEL", "a"),
    ("HINCRBY", "a", "1"), ("HINCRBYFLOAT", "a", "1"),
]
READ_COMMANDS = [
    ("HGET", "a"), ("HMGET", "a"), ("HLEN",), ("HSTRLEN", "a"), ("HEXISTS", "a"), ("HKEYS",),
    ("HVALS",), ("HGETALL",), ("HRANDFIELD",), ("HRANDFIELD", "0"), ("HRANDFIELD", "-1"),
    ("HSCAN", "0"),
]


@pytest.mark.parametrize("cmd", WRITE_COMMANDS + READ_COMMANDS, ids=lambda c: " ".join(c))
def test_wrongtype_on_string_key(r, cmd):
    r.execute_command("SET", "s", "v")
    assert err(r, cmd[0], "s", *cmd[1:]) == WRONGTYPE
    assert r.execute_command("GET", "s") == b"v"


def test_string_commands_on_hash_key(r):
    r.execute_command("HSET", "h", "a", "1")
    assert err(r, "GET", "h") == WRONGTYPE
    assert err(r, "APPEND", "h", "x") == WRONGTYPE
    assert r.execute_command("SET", "h", "v") == b"OK"  # SET replaces any type
    assert r.execute_command("TYPE", "h") == b"string"


def test_writes_keep_ttl(r):
    r.execute_command("HSET", "h", "a", "1", "b", "2")
    assert r.execute_command("EXPIRE", "h", "1000") == 1
    r.execute_command("HSET", "h", "c", "3")
    r.execute_command("HMSET", "h", "d", "4")
    r.execute_command("HSETNX", "h", "e", "5")
    r.execute_command("HINCRBY", "h", "n", "1")
    r.execute_command("HINCRBYFLOAT", "h", "x", "1.5")
    r.execute_command("HDEL", "h", "a")
    assert 990 < r.execute_command("TTL", "h") <= 1000
    assert r.execute_command("PERSIST", "h") == 1
    assert r.execute_command("TTL", "h") == -1


def test_empty_hash_with_ttl_is_gone(r):
    r.execute_command("HSET", "h", "a", "1")
    r.execute_command("EXPIRE", "h", "1000")
    r.execute_command("HDEL", "h", "a")
    assert r.execute_command("EXISTS", "h") == 0
    r.execute_command("HSET", "h", "a", "1")
    assert r.execute_command("TTL", "h") == -1


def test_object_encoding_type_del(r):
    r.execute_command("HSET", "h", "a", "1")
    assert r.execute_command("TYPE", "h") == b"hash"
    assert r.execute_command("OBJECT", "ENCODING", "h") == b"listpack"
    assert r.execute_command("DEL", "h") == 1
    assert r.execute_command("HLEN", "h") == 0


@pytest.mark.one_value
def test_object_encoding_at_hash_max_listpack_entries(r):
    # Redis 7.0.15's hash-max-listpack-entries is 512: a listpack up to 512 fields
    fields = []
    for i in range(512):
        fields += ["f%d" % i, "v"]
    r.execute_command("HSET", "h", *fields)
    assert r.execute_command("OBJECT", "ENCODING", "h") == b"listpack"
    r.execute_command("HSET", "h", "f512", "v")
    assert r.execute_command("OBJECT", "ENCODING", "h") == b"hashtable"


def test_rename_copy_expire(r):
    r.execute_command("HSET", "h", "a", "1", "b", "2")
    assert r.execute_command("RENAME", "h", "h2") == b"OK"
    assert r.execute_command("EXISTS", "h") == 0
    assert r.execute_command("HGETALL", "h2") == [b"a", b"1", b"b", b"2"]
    assert r.execute_command("COPY", "h2", "h3") == 1
    r.execute_command("HSET", "h3", "c", "3")
    assert r.execute_command("HLEN", "h2") == 2
    assert r.execute_command("HLEN", "h3") == 3
    assert r.execute_command("TYPE", "h3") == b"hash"
    assert r.execute_command("PEXPIRE", "h3", "1") == 1
    import time
    time.sleep(0.05)
    assert r.execute_command("EXISTS", "h3") == 0
    assert r.execute_command("HGET", "h3", "a") is None


def test_keyspace_hits_and_misses(server, r):
    rp = server.client(parsed=True)
    r.execute_command("CONFIG", "RESETSTAT")
    r.execute_command("HSET", "h", "a", "1")
    r.execute_command("HINCRBY", "h", "n", "1")
    r.execute_command("HDEL", "nokey", "a")
    stats = rp.info("stats")
    assert (stats["keyspace_hits"], stats["keyspace_misses"]) == (0, 0)
    r.execute_command("HGET", "h", "a")
    r.execute_command("HMGET", "h", "a")
    r.execute_command("HGETALL", "nokey")
    r.execute_command("HSCAN", "nokey", "0")
    r.execute_command("HRANDFIELD", "nokey", "1")
    stats = rp.info("stats")
    assert (stats["keyspace_hits"], stats["keyspace_misses"]) == (2, 3)


def test_command_info(r):
    info = r.execute_command("COMMAND", "INFO", "hset", "hget", "hgetall", "hrandfield")
    assert [i[:6] for i in info] == [
        [b"hset", -4, [b"write", b"denyoom", b"fast"], 1, 1, 1],
        [b"hget", 3, [b"readonly", b"fast"], 1, 1, 1],
        [b"hgetall", 2, [b"readonly"], 1, 1, 1],
        [b"hrandfield", -2, [b"readonly"], 1, 1, 1],
    ]
    assert sorted(info[0][6]) == [b"@fast", b"@hash", b"@write"]
    assert sorted(info[2][6]) == [b"@hash", b"@read", b"@slow"]


# ---- a big hash ----------------------------------------------------------------------------------

def test_hash_of_100k_fields(r):
    n = 100_000
    batch = 1000
    pipe = r.pipeline(transaction=False)
    for start in range(0, n, batch):
        args = []
        for i in range(start, start + batch):
            args += ["field:%d" % i, "value:%d" % i]
        pipe.execute_command("HSET", "big", *args)
    assert pipe.execute() == [batch] * (n // batch)
    assert r.execute_command("HLEN", "big") == n
    seed = random.randrange(1 << 30)
    print("seed", seed)
    rng = random.Random(seed)
    for i in [0, n - 1] + [rng.randrange(n) for _ in range(5)]:
        assert r.execute_command("HGET", "big", "field:%d" % i) == b"value:%d" % i
    assert r.execute_command("HMGET", "big", "field:1", "nope") == [b"value:1", None]
    assert r.execute_command("HDEL", "big", "field:0", "field:99999", "nope") == 2
    assert r.execute_command("HLEN", "big") == n - 2
    assert r.execute_command("HEXISTS", "big", "field:0") == 0
    assert r.execute_command("HINCRBY", "big", "counter", "7") == 7
    assert len(r.execute_command("HRANDFIELD", "big", "10")) == 10
    keys = r.execute_command("HKEYS", "big")
    assert len(keys) == n - 1 and len(set(keys)) == n - 1
    cursor, items = b"0", []
    while True:
        cursor, got = r.execute_command("HSCAN", "big", cursor, "COUNT", "5000")
        items += got
        if cursor == b"0":
            break
    assert len(set(items[0::2])) == n - 1
