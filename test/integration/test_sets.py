"""Set commands: exact replies, errors and edge cases as Redis 7.0.15 gives them.

Set replies come in no defined order: tests compare them as Python sets (or sorted lists where a
count matters). Keys tagged {a}, {b} and {c} land in different slots of slotkv's 8-slot test
server (hash slots 15495, 3300 and 7365), so cross-slot paths run.
"""

import pytest

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err

POSITIVE = "ERR value is out of range, must be positive"
NUMKEYS = "ERR numkeys should be greater than 0"
TOO_MANY_KEYS = "ERR Number of keys can't be greater than number of args"
LIMIT = "ERR LIMIT can't be negative"
CURSOR = "ERR invalid cursor"


def members(r, key):
    return set(r.execute_command("SMEMBERS", key))


def sadd(r, key, *ms):
    return r.execute_command("SADD", key, *ms)


# ---- SADD / SREM / SCARD / SISMEMBER / SMISMEMBER / SMEMBERS -------------------------------------

def test_sadd_scard_smembers(r):
    assert sadd(r, "s", "a", "b", "c") == 3
    assert sadd(r, "s", "a", "d", "d") == 1
    assert r.execute_command("SCARD", "s") == 4
    assert members(r, "s") == {b"a", b"b", b"c", b"d"}
    assert r.execute_command("SCARD", "nokey") == 0
    assert r.execute_command("SMEMBERS", "nokey") == []
    assert r.execute_command("TYPE", "s") == b"set"
    assert err(r, "SADD", "s") == arity("sadd")
    assert err(r, "SCARD") == arity("scard")
    assert err(r, "SCARD", "a", "b") == arity("scard")
    assert err(r, "SMEMBERS") == arity("smembers")


def test_binary_and_empty_members(r):
    every_byte = bytes(range(256))
    assert sadd(r, "s", "", every_byte, b"a\r\nb", "") == 3
    assert members(r, "s") == {b"", every_byte, b"a\r\nb"}
    assert r.execute_command("SISMEMBER", "s", "") == 1
    assert r.execute_command("SISMEMBER", "s", every_byte) == 1


def test_integer_like_members(r):
    assert sadd(r, "s", "1", "01", "-1", "1.0", "9223372036854775808") == 5
    assert members(r, "s") == {b"1", b"01", b"-1", b"1.0", b"9223372036854775808"}
    assert r.execute_command("SISMEMBER", "s", "1") == 1
    assert r.execute_command("SISMEMBER", "s", "001") == 0


def test_srem(r):
    sadd(r, "s", "a", "b", "c")
    assert r.execute_command("SREM", "s", "a", "x", "a") == 1
    assert members(r, "s") == {b"b", b"c"}
    assert r.execute_command("SREM", "nokey", "a") == 0
    assert r.execute_command("SREM", "s", "b", "c") == 2
    assert r.execute_command("EXISTS", "s") == 0  # an emptied set is deleted
    assert err(r, "SREM", "s") == arity("srem")


def test_sismember_smismember(r):
    sadd(r, "s", "a", "b")
    assert r.execute_command("SISMEMBER", "s", "a") == 1
    assert r.execute_command("SISMEMBER", "s", "z") == 0
    assert r.execute_command("SISMEMBER", "nokey", "a") == 0
    assert r.execute_command("SMISMEMBER", "s", "a", "z", "b", "a") == [1, 0, 1, 1]
    assert r.execute_command("SMISMEMBER", "nokey", "a", "b") == [0, 0]
    assert err(r, "SISMEMBER", "s") == arity("sismember")
    assert err(r, "SISMEMBER", "s", "a", "b") == arity("sismember")
    assert err(r, "SMISMEMBER", "s") == arity("smismember")


def test_wrongtype_on_a_string_key(r):
    r.execute_command("SET", "str", "x")
    sadd(r, "s", "a")
    for cmd in (("SADD", "str", "a"), ("SREM", "str", "a"), ("SCARD", "str"),
                ("SISMEMBER", "str", "a"), ("SMISMEMBER", "str", "a"), ("SMEMBERS", "str"),
                ("SRANDMEMBER", "str"), ("SRANDMEMBER", "str", "2"), ("SPOP", "str"),
                ("SPOP", "str", "2"), ("SSCAN", "str", "0"), ("SUNION", "s", "str"),
                ("SINTER", "s", "str"), ("SDIFF", "s", "str"), ("SINTERCARD", "2", "s", "str"),
                ("SUNIONSTORE", "d", "s", "str"), ("SINTERSTORE", "d", "s", "str"),
                ("SDIFFSTORE", "d", "s", "str"), ("SMOVE", "str", "s", "a"),
                ("SMOVE", "s", "str", "a")):
        assert err(r, *cmd) == WRONGTYPE, cmd
    # A missing key before the string key does not hide its type.
    for cmd in ("SINTER", "SUNION", "SDIFF"):
        assert err(r, cmd, "nokey", "str") == WRONGTYPE
    assert err(r, "SINTERCARD", "2", "nokey", "str") == WRONGTYPE
    assert err(r, "SINTERSTORE", "d", "nokey", "str") == WRONGTYPE
    assert r.execute_command("GET", "str") == b"x"
    assert members(r, "s") == {b"a"}
    assert err(r, "GET", "s") == WRONGTYPE


def test_set_reply_types_resp3(server, r):
    sadd(r, "s", "a")
    with server.raw() as c:
        assert c.command("HELLO", "3")[b"proto"] == 3
        c.send_command("SMEMBERS", "s")
        c.expect(b"~1\r\n$1\r\na\r\n")
        c.send_command("SMEMBERS", "nokey")
        c.expect(b"~0\r\n")
        c.send_command("SUNION", "s", "nokey")
        c.expect(b"~1\r\n$1\r\na\r\n")
        c.send_command("SINTER", "s", "nokey")
        c.expect(b"~0\r\n")
        c.send_command("SDIFF", "s", "nokey")
        c.expect(b"~1\r\n$1\r\na\r\n")
        c.send_command("SPOP", "nokey", "2")
        c.expect(b"~0\r\n")
        c.send_command("SPOP", "nokey")
        c.expect(b"_\r\n")
        c.send_command("SRANDMEMBER", "s", "2")
        c.expect(b"*1\r\n$1\r\na\r\n")  # SRANDMEMBER count replies an array
        c.send_command("SRANDMEMBER", "nokey", "2")
        c.expect(b"*0\r\n")
        c.send_command("SPOP", "s", "1")
        c.expect(b"~1\r\n$1\r\na\r\n")
    with server.raw() as c:
        c.send_command("SMEMBERS", "nokey")
        c.expect(b"*0\r\n")


# ---- SRANDMEMBER / SPOP --------------------------------------------------------------------------

def test_srandmember(r):
    assert r.execute_command("SRANDMEMBER", "nokey") is None
    assert r.execute_command("SRANDMEMBER", "nokey", "3") == []
    assert r.execute_command("SRANDMEMBER", "nokey", "-3") == []
    all_members = {str(i).encode() for i in range(10)} | {b"x"}
    sadd(r, "s", *all_members)
    for _ in range(20):
        assert r.execute_command("SRANDMEMBER", "s") in all_members
    assert r.execute_command("SRANDMEMBER", "s", "0") == []
    got = r.execute_command("SRANDMEMBER", "s", "5")
    assert len(got) == 5 and len(set(got)) == 5 and set(got) <= all_members
    got = r.execute_command("SRANDMEMBER", "s", "11")
    assert sorted(got) == sorted(all_members)
    got = r.execute_command("SRANDMEMBER", "s", "100")
    assert sorted(got) == sorted(all_members)
    got = r.execute_command("SRANDMEMBER", "s", "-50")
    assert len(got) == 50 and set(got) <= all_members
    assert r.execute_command("SCARD", "s") == 11  # nothing removed


def test_srandmember_negative_count_repeats(r):
    sadd(r, "s", "only")
    assert r.execute_command("SRANDMEMBER", "s", "-3") == [b"only"] * 3
    assert r.execute_command("SRANDMEMBER", "s", "3") == [b"only"]


def test_srandmember_errors(r):
    sadd(r, "s", "a")
    assert err(r, "SRANDMEMBER", "s", "x") == NOT_INT
    assert err(r, "SRANDMEMBER", "s", "1.5") == NOT_INT
    assert err(r, "SRANDMEMBER", "s", "-9223372036854775808") == (
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807")
    assert err(r, "SRANDMEMBER", "s", "1", "2") == SYNTAX
    assert err(r, "SRANDMEMBER", "nokey", "x") == NOT_INT
    assert err(r, "SRANDMEMBER") == arity("srandmember")


def test_srandmember_spreads_over_members(r):
    sadd(r, "s", *[str(i) for i in range(10)])
    seen = set()
    for _ in range(200):
        seen.add(r.execute_command("SRANDMEMBER", "s"))
    assert len(seen) == 10


def test_spop(r):
    assert r.execute_command("SPOP", "nokey") is None
    assert r.execute_command("SPOP", "nokey", "2") == []
    all_members = {b"a", b"b", b"c", b"d", b"e"}
    sadd(r, "s", *all_members)
    one = r.execute_command("SPOP", "s")
    assert one in all_members
    assert r.execute_command("SCARD", "s") == 4
    assert r.execute_command("SPOP", "s", "0") == []
    two = r.execute_command("SPOP", "s", "2")
    assert len(set(two)) == 2 and set(two) <= all_members - {one}
    rest = r.execute_command("SPOP", "s", "10")
    assert set(rest) | set(two) | {one} == all_members
    assert r.execute_command("EXISTS", "s") == 0


def test_spop_last_member_deletes_key(r):
    sadd(r, "s", "a")
    assert r.execute_command("SPOP", "s") == b"a"
    assert r.execute_command("EXISTS", "s") == 0
    sadd(r, "s", "a", "b")
    assert sorted(r.execute_command("SPOP", "s", "2")) == [b"a", b"b"]
    assert r.execute_command("EXISTS", "s") == 0


def test_spop_errors(r):
    sadd(r, "s", "a")
    assert err(r, "SPOP", "s", "-1") == POSITIVE
    assert err(r, "SPOP", "s", "x") == POSITIVE
    assert err(r, "SPOP", "nokey", "-1") == POSITIVE
    assert err(r, "SPOP", "s", "1", "2") == SYNTAX
    assert err(r, "SPOP") == arity("spop")
    assert members(r, "s") == {b"a"}


# ---- SSCAN ---------------------------------------------------------------------------------------

def sscan_all(r, key, *opts):
    cursor, out = b"0", []
    while True:
        cursor, batch = r.execute_command("SSCAN", key, cursor, *opts)
        out += batch
        if cursor == b"0":
            return out


def test_sscan(r):
    assert r.execute_command("SSCAN", "nokey", "0") == [b"0", []]
    names = {("m%d" % i).encode() for i in range(300)} | {b"other", b""}
    sadd(r, "s", *names)
    got = sscan_all(r, "s")
    assert set(got) == names
    got = sscan_all(r, "s", "COUNT", "7")
    assert set(got) == names
    got = sscan_all(r, "s", "MATCH", "m1?", "COUNT", "1000")
    assert set(got) == {("m1%d" % i).encode() for i in range(10)}
    assert set(sscan_all(r, "s", "match", "*")) == names  # a lone * matches "" too
    assert set(sscan_all(r, "s", "MATCH", "oth*", "MATCH", "x*")) == set()  # the last wins


def test_sscan_small_set_in_one_call(r):
    sadd(r, "s", "a", "b", "c")
    cursor, batch = r.execute_command("SSCAN", "s", "0", "COUNT", "1000")
    assert cursor == b"0" and set(batch) == {b"a", b"b", b"c"}


def test_sscan_errors(r):
    sadd(r, "s", "a")
    assert err(r, "SSCAN", "s", "abc") == CURSOR
    assert err(r, "SSCAN", "s", " 1") == CURSOR
    assert err(r, "SSCAN", "s", "18446744073709551616") == CURSOR
    assert err(r, "SSCAN", "s", "0", "COUNT", "0") == SYNTAX
    assert err(r, "SSCAN", "s", "0", "COUNT", "-1") == SYNTAX
    assert err(r, "SSCAN", "s", "0", "COUNT", "x") == NOT_INT
    assert err(r, "SSCAN", "s", "0", "COUNT") == SYNTAX
    assert err(r, "SSCAN", "s", "0", "MATCH") == SYNTAX
    assert err(r, "SSCAN", "s", "0", "TYPE", "string") == SYNTAX
    assert err(r, "SSCAN", "s", "0", "FOO", "1") == SYNTAX
    assert err(r, "SSCAN", "s") == arity("sscan")
    # A missing key replies an empty scan before the options are read; the cursor is first.
    assert r.execute_command("SSCAN", "nokey", "0", "COUNT", "0") == [b"0", []]
    assert err(r, "SSCAN", "nokey", "abc") == CURSOR


# ---- SUNION / SINTER / SDIFF / SINTERCARD --------------------------------------------------------

@pytest.fixture
def three(r):
    """Sets in three different slots."""
    sadd(r, "{a}1", "a", "b", "c", "d")
    sadd(r, "{b}2", "c", "d", "e")
    sadd(r, "{c}3", "d", "e", "f")
    return r


def test_sunion(three):
    r = three
    assert set(r.execute_command("SUNION", "{a}1", "{b}2", "{c}3")) == set(b"abcdef"[i:i + 1]
                                                                          for i in range(6))
    assert set(r.execute_command("SUNION", "{a}1")) == {b"a", b"b", b"c", b"d"}
    assert set(r.execute_command("SUNION", "{a}1", "nokey")) == {b"a", b"b", b"c", b"d"}
    assert r.execute_command("SUNION", "nokey", "nokey2") == []
    assert err(r, "SUNION") == arity("sunion")


def test_sinter(three):
    r = three
    assert r.execute_command("SINTER", "{a}1", "{b}2", "{c}3") == [b"d"]
    assert set(r.execute_command("SINTER", "{a}1", "{b}2")) == {b"c", b"d"}
    assert set(r.execute_command("SINTER", "{a}1")) == {b"a", b"b", b"c", b"d"}
    assert set(r.execute_command("SINTER", "{a}1", "{a}1")) == {b"a", b"b", b"c", b"d"}
    assert r.execute_command("SINTER", "{a}1", "nokey") == []
    assert r.execute_command("SINTER", "nokey", "{a}1") == []
    assert err(r, "SINTER") == arity("sinter")


def test_sdiff(three):
    r = three
    assert set(r.execute_command("SDIFF", "{a}1", "{b}2")) == {b"a", b"b"}
    assert set(r.execute_command("SDIFF", "{a}1", "{b}2", "{c}3")) == {b"a", b"b"}
    assert set(r.execute_command("SDIFF", "{c}3", "{a}1")) == {b"e", b"f"}
    assert set(r.execute_command("SDIFF", "{a}1", "nokey")) == {b"a", b"b", b"c", b"d"}
    assert r.execute_command("SDIFF", "nokey", "{a}1") == []
    assert r.execute_command("SDIFF", "{a}1", "{a}1") == []
    assert set(r.execute_command("SDIFF", "{a}1")) == {b"a", b"b", b"c", b"d"}
    assert err(r, "SDIFF") == arity("sdiff")


def test_sintercard(three):
    r = three
    assert r.execute_command("SINTERCARD", "2", "{a}1", "{b}2") == 2
    assert r.execute_command("SINTERCARD", "3", "{a}1", "{b}2", "{c}3") == 1
    assert r.execute_command("SINTERCARD", "1", "{a}1") == 4
    assert r.execute_command("SINTERCARD", "1", "{a}1", "LIMIT", "2") == 2
    assert r.execute_command("SINTERCARD", "1", "{a}1", "limit", "0") == 4
    assert r.execute_command("SINTERCARD", "1", "{a}1", "LIMIT", "100") == 4
    assert r.execute_command("SINTERCARD", "1", "{a}1", "LIMIT", "1", "LIMIT", "3") == 3
    assert r.execute_command("SINTERCARD", "2", "{a}1", "nokey") == 0
    assert r.execute_command("SINTERCARD", "1", "nokey") == 0


def test_sintercard_errors(three):
    r = three
    assert err(r, "SINTERCARD", "0", "{a}1") == NUMKEYS
    assert err(r, "SINTERCARD", "-1", "{a}1") == NUMKEYS
    assert err(r, "SINTERCARD", "x", "{a}1") == NUMKEYS
    assert err(r, "SINTERCARD", "2", "{a}1") == TOO_MANY_KEYS
    assert err(r, "SINTERCARD", "1", "{a}1", "LIMIT", "-1") == LIMIT
    assert err(r, "SINTERCARD", "1", "{a}1", "LIMIT", "x") == LIMIT
    assert err(r, "SINTERCARD", "1", "{a}1", "LIMIT") == SYNTAX
    assert err(r, "SINTERCARD", "1", "{a}1", "FOO", "1") == SYNTAX
    assert err(r, "SINTERCARD", "1", "{a}1", "{b}2") == SYNTAX
    assert err(r, "SINTERCARD", "1") == arity("sintercard")


# ---- *STORE --------------------------------------------------------------------------------------

def test_sunionstore_cross_slot(three):
    r = three
    assert r.execute_command("SUNIONSTORE", "{c}dst", "{a}1", "{b}2") == 5
    assert members(r, "{c}dst") == {b"a", b"b", b"c", b"d", b"e"}
    assert r.execute_command("SUNIONSTORE", "{b}dst", "{a}1", "{c}3", "nokey") == 6
    assert r.execute_command("SCARD", "{b}dst") == 6
    assert r.execute_command("SUNIONSTORE", "{a}1", "{a}1", "{c}3") == 6  # a source as dst
    assert r.execute_command("SCARD", "{a}1") == 6
    assert err(r, "SUNIONSTORE", "d") == arity("sunionstore")


def test_sinterstore_and_sdiffstore(three):
    r = three
    assert r.execute_command("SINTERSTORE", "{a}dst", "{a}1", "{b}2") == 2
    assert members(r, "{a}dst") == {b"c", b"d"}
    assert r.execute_command("SDIFFSTORE", "{b}dst", "{a}1", "{b}2") == 2
    assert members(r, "{b}dst") == {b"a", b"b"}
    assert err(r, "SINTERSTORE", "d") == arity("sinterstore")
    assert err(r, "SDIFFSTORE", "d") == arity("sdiffstore")


def test_store_empty_result_deletes_destination(three):
    r = three
    r.execute_command("SET", "{c}dst", "string")
    assert r.execute_command("SINTERSTORE", "{c}dst", "{a}1", "nokey") == 0
    assert r.execute_command("EXISTS", "{c}dst") == 0
    sadd(r, "{c}dst", "x")
    assert r.execute_command("SDIFFSTORE", "{c}dst", "{a}1", "{a}1") == 0
    assert r.execute_command("EXISTS", "{c}dst") == 0
    assert r.execute_command("SUNIONSTORE", "{c}dst", "nokey") == 0
    assert r.execute_command("EXISTS", "{c}dst") == 0


def test_store_overwrites_any_type_and_drops_ttl(three):
    r = three
    r.execute_command("SET", "dst", "string", "EX", "100")
    assert r.execute_command("SUNIONSTORE", "dst", "{a}1") == 4
    assert r.execute_command("TYPE", "dst") == b"set"
    assert r.execute_command("TTL", "dst") == -1
    r.execute_command("EXPIRE", "dst", "100")
    assert r.execute_command("SINTERSTORE", "dst", "{a}1", "{b}2") == 2
    assert r.execute_command("TTL", "dst") == -1


def test_store_same_slot(r):
    sadd(r, "{t}1", "a", "b")
    sadd(r, "{t}2", "b", "c")
    assert r.execute_command("SUNIONSTORE", "{t}d", "{t}1", "{t}2") == 3
    assert r.execute_command("SINTERSTORE", "{t}d", "{t}1", "{t}2") == 1
    assert r.execute_command("SDIFFSTORE", "{t}d", "{t}1", "{t}2") == 1
    assert members(r, "{t}d") == {b"a"}


# ---- SMOVE ---------------------------------------------------------------------------------------

def test_smove_cross_slot(r):
    sadd(r, "{a}src", "x", "y")
    assert r.execute_command("SMOVE", "{a}src", "{b}dst", "x") == 1
    assert members(r, "{a}src") == {b"y"}
    assert members(r, "{b}dst") == {b"x"}
    assert r.execute_command("SMOVE", "{a}src", "{b}dst", "nope") == 0
    assert r.execute_command("SMOVE", "{a}src", "{b}dst", "y") == 1
    assert r.execute_command("EXISTS", "{a}src") == 0  # emptied source is deleted
    assert members(r, "{b}dst") == {b"x", b"y"}
    assert r.execute_command("SMOVE", "{a}src", "{b}dst", "x") == 0  # missing source


def test_smove_same_slot_and_same_key(r):
    sadd(r, "{t}src", "x", "y")
    sadd(r, "{t}dst", "x")
    assert r.execute_command("SMOVE", "{t}src", "{t}dst", "x") == 1  # already in dst
    assert members(r, "{t}src") == {b"y"}
    assert members(r, "{t}dst") == {b"x"}
    assert r.execute_command("SMOVE", "{t}src", "{t}src", "y") == 1
    assert r.execute_command("SMOVE", "{t}src", "{t}src", "z") == 0
    assert members(r, "{t}src") == {b"y"}


def test_smove_type_checks(r):
    r.execute_command("SET", "{b}str", "v")
    # A missing source is 0 even when the destination has another type.
    assert r.execute_command("SMOVE", "{a}nokey", "{b}str", "x") == 0
    sadd(r, "{a}src", "x")
    assert err(r, "SMOVE", "{a}src", "{b}str", "x") == WRONGTYPE
    assert err(r, "SMOVE", "{a}src", "{b}str", "notamember") == WRONGTYPE
    assert err(r, "SMOVE", "{b}str", "{a}src", "x") == WRONGTYPE
    assert members(r, "{a}src") == {b"x"}
    assert err(r, "SMOVE", "{a}src", "{b}dst") == arity("smove")


def test_smove_keeps_ttls(r):
    sadd(r, "{a}src", "x", "y")
    sadd(r, "{b}dst", "z")
    r.execute_command("EXPIRE", "{a}src", "100")
    r.execute_command("EXPIRE", "{b}dst", "200")
    assert r.execute_command("SMOVE", "{a}src", "{b}dst", "x") == 1
    assert 90 < r.execute_command("TTL", "{a}src") <= 100
    assert 190 < r.execute_command("TTL", "{b}dst") <= 200


# ---- TTL, generic key commands -------------------------------------------------------------------

def test_modifications_keep_ttl(r):
    sadd(r, "s", "a", "b", "c", "d")
    r.execute_command("EXPIRE", "s", "100")
    sadd(r, "s", "e")
    assert 90 < r.execute_command("TTL", "s") <= 100
    r.execute_command("SREM", "s", "a")
    assert 90 < r.execute_command("TTL", "s") <= 100
    r.execute_command("SPOP", "s")
    assert 90 < r.execute_command("TTL", "s") <= 100
    r.execute_command("SPOP", "s", "1")
    assert 90 < r.execute_command("TTL", "s") <= 100
    assert r.execute_command("SCARD", "s") == 2


def test_expired_set_is_gone(r):
    sadd(r, "s", "a")
    r.execute_command("PEXPIRE", "s", "1")
    import time
    time.sleep(0.05)
    assert r.execute_command("SCARD", "s") == 0
    assert r.execute_command("SADD", "s", "b") == 1
    assert members(r, "s") == {b"b"}
    assert r.execute_command("TTL", "s") == -1


def test_generic_commands_on_a_set(r):
    sadd(r, "s", "a", "b")
    assert r.execute_command("TYPE", "s") == b"set"
    assert r.execute_command("OBJECT", "ENCODING", "s") == b"hashtable"
    assert r.execute_command("RENAME", "s", "{a}s2") == b"OK"
    assert members(r, "{a}s2") == {b"a", b"b"}
    assert r.execute_command("COPY", "{a}s2", "{b}s3") == 1
    sadd(r, "{b}s3", "c")
    assert members(r, "{a}s2") == {b"a", b"b"}
    assert members(r, "{b}s3") == {b"a", b"b", b"c"}
    assert r.execute_command("EXPIRE", "{b}s3", "100") == 1
    assert 90 < r.execute_command("TTL", "{b}s3") <= 100
    assert r.execute_command("DEL", "{a}s2", "{b}s3") == 2
    assert r.execute_command("EXISTS", "{a}s2", "{b}s3") == 0


def test_keyspace_hits_and_misses(server, r):
    rp = server.client(parsed=True)
    sadd(r, "s", "a")
    r.execute_command("CONFIG", "RESETSTAT")
    r.execute_command("SISMEMBER", "s", "a")
    r.execute_command("SCARD", "nokey")
    r.execute_command("SUNION", "s", "nokey")
    r.execute_command("SADD", "s", "b")  # a write lookup: not counted
    info = rp.info("stats")
    assert info["keyspace_hits"] == 2
    assert info["keyspace_misses"] == 2


# ---- big sets ------------------------------------------------------------------------------------

def test_100k_member_set(r):
    n = 100000
    pipe = r.pipeline(transaction=False)
    batch = 5000
    for start in range(0, n, batch):
        pipe.execute_command("SADD", "big", *["m%d" % i for i in range(start, start + batch)])
    assert sum(pipe.execute()) == n
    assert r.execute_command("SCARD", "big") == n
    assert r.execute_command("SISMEMBER", "big", "m0") == 1
    assert r.execute_command("SISMEMBER", "big", "m99999") == 1
    assert r.execute_command("SISMEMBER", "big", "m100000") == 0
    assert r.execute_command("SMISMEMBER", "big", "m5", "x", "m77777") == [1, 0, 1]
    assert r.execute_command("SREM", "big", *["m%d" % i for i in range(0, n, 2)]) == n // 2
    assert r.execute_command("SCARD", "big") == n // 2
    assert r.execute_command("SISMEMBER", "big", "m0") == 0
    assert r.execute_command("SISMEMBER", "big", "m1") == 1
    got = r.execute_command("SMEMBERS", "big")
    assert len(got) == n // 2 and set(got) == {("m%d" % i).encode() for i in range(1, n, 2)}
    assert len(r.execute_command("SRANDMEMBER", "big", "1000")) == 1000
    assert len(set(r.execute_command("SPOP", "big", "1000"))) == 1000
    assert r.execute_command("SCARD", "big") == n // 2 - 1000
