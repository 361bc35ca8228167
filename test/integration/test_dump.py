"""DUMP and RESTORE as Redis 7.0.15 gives them: payloads that round-trip every type and size,
payloads moved between a real redis-server and slotkv in both directions (every Redis 7.0
encoding: int, LZF-compressed strings, intset, listpack, hashtable, skiplist, quicklist with
packed and PLAIN nodes), RESTORE's options, its errors and the order it checks them in, keyspace
events and a restart.

A payload is the RDB object, then the RDB version (2 bytes, little endian: 10 for Redis 7.0)
and the CRC-64 (Jones polynomial, reflected, little endian) of everything before it. Every
reply and error text below is Redis 7.0.15's for the same commands.
"""

import struct
import time

import pytest

from conftest import NOT_INT, SYNTAX, OwnRedis, arity, err, is_redis, wait_until

BUSYKEY = "BUSYKEY Target key name already exists."
BAD_TTL = "ERR Invalid TTL value, must be >= 0"
BAD_PAYLOAD = "ERR DUMP payload version or checksum are wrong"
BAD_DATA = "ERR Bad data format"
BAD_IDLETIME = "ERR Invalid IDLETIME value, must be >= 0"
BAD_FREQ = "ERR Invalid FREQ value, must be >= 0 and <= 255"

RDB_VERSION = 10

# RDB object types Redis 7.0 writes
T_STRING, T_SET, T_HASH, T_ZSET_2 = 0, 2, 4, 5
T_SET_INTSET, T_HASH_LISTPACK, T_ZSET_LISTPACK, T_LIST_QUICKLIST_2 = 11, 16, 17, 18
# quicklist node containers
PLAIN, PACKED = 1, 2


# ---- payloads ---------------------------------------------------------------------------------

CRC64_POLY = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 (Jones), bit-reflected


def crc64(data, crc=0):
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (CRC64_POLY if crc & 1 else 0)
    return crc


def make_payload(obj, version=RDB_VERSION):
    """A payload with a valid trailer around the RDB object bytes `obj`."""
    body = obj + struct.pack("<H", version)
    return body + struct.pack("<Q", crc64(body))


def trailer_ok(payload):
    return (payload[-10:-8] == struct.pack("<H", RDB_VERSION)
            and payload[-8:] == struct.pack("<Q", crc64(payload[:-8])))


def rdb_len(data, pos):
    """An RDB length at data[pos] (6, 14 or 32 bit forms): (value, position after it)."""
    b = data[pos]
    if b >> 6 == 0:
        return b & 0x3F, pos + 1
    if b >> 6 == 1:
        return ((b & 0x3F) << 8) | data[pos + 1], pos + 2
    assert b == 0x80, "unexpected length byte %#x" % b
    return struct.unpack(">I", data[pos + 1:pos + 5])[0], pos + 5


# ---- values -----------------------------------------------------------------------------------

# (name, kind, data): strings are bytes, lists lists, sets sets, hashes dicts, zsets lists of
# (member, score as the text given to ZADD)
VALUES = [
    ("str_plain", "string", b"hello world"),
    ("str_int", "string", b"123"),
    ("str_neg_int", "string", b"-70000"),
    ("str_int64_min", "string", b"-9223372036854775808"),
    ("str_leading_zero", "string", b"0123"),
    ("str_empty", "string", b""),
    ("str_long_1000", "string", b"".join(b"%04d:" % i for i in range(200))),
    ("str_binary", "string", bytes(range(256)) + b"\r\n\x00\xff"),
    ("str_repeated_1000", "string", b"a" * 1000),
    ("list_small", "list", [b"a", b"1", b"-5", b"", b"x" * 70, b"3.14", b"a"]),
    ("list_1000", "list", [b"item:%d" % i for i in range(1000)]),
    ("set_ints", "set", {b"0", b"1", b"-2", b"300", b"70000", b"-9223372036854775808",
                         b"9223372036854775807"}),
    ("set_strings", "set", {b"a", b"b", b"hello world", b"", b"12.5", b"\x00\xff", b"7"}),
    ("set_1000", "set", {b"m:%d" % i for i in range(1000)}),
    ("set_1000_ints", "set", {b"%d" % (i * 7 - 3000) for i in range(1000)}),
    ("hash_small", "hash", {b"f1": b"v1", b"n": b"123", b"": b"empty field", b"e": b""}),
    ("hash_1000", "hash", {b"f:%d" % i: b"v:%d" % i for i in range(1000)}),
    ("hash_big_values", "hash", {b"a": b"A" * 1000, b"b": bytes(range(256)) * 4,
                                 b"c": b"12345"}),
    ("zset_small", "zset", [(b"one", "1.5"), (b"negzero", "-0.0"), (b"pinf", "inf"),
                            (b"ninf", "-inf"), (b"big", "1e300"), (b"int", "42"),
                            (b"neg", "-3.25")]),
    ("zset_1000", "zset", [(b"m:%d" % i, repr(i * 1.5 - 700)) for i in range(1000)]),
]

# Redis 7.0.15's ZRANGE zset_small 0 -1 WITHSCORES (-0.0 is shown as 0)
ZSET_SMALL_RANGE = [b"ninf", b"-inf", b"neg", b"-3.25", b"negzero", b"0", b"one", b"1.5",
                    b"int", b"42", b"big", b"1.0000000000000001e+300", b"pinf", b"inf"]


def write(c, key, kind, data):
    """Creates key holding data (the key must not exist)."""
    if kind == "string":
        assert c.execute_command("SET", key, data) == b"OK"
        return
    if kind in ("list", "set"):
        items = list(data) if kind == "list" else sorted(data)
        cmd = "RPUSH" if kind == "list" else "SADD"
        args = items
    elif kind == "hash":
        cmd, args = "HSET", [x for f, v in sorted(data.items()) for x in (f, v)]
    else:
        cmd, args = "ZADD", [x for m, s in data for x in (s, m)]
    step = 1000
    for i in range(0, len(args), step):
        c.execute_command(cmd, key, *args[i:i + step])


def contents(c, key):
    """(TYPE, value): GET, LRANGE, SMEMBERS as a set, HGETALL as a dict, ZRANGE WITHSCORES."""
    kind = c.execute_command("TYPE", key)
    if kind == b"string":
        return kind, c.execute_command("GET", key)
    if kind == b"list":
        return kind, c.execute_command("LRANGE", key, 0, -1)
    if kind == b"set":
        return kind, set(c.execute_command("SMEMBERS", key))
    if kind == b"hash":
        flat = c.execute_command("HGETALL", key)
        return kind, dict(zip(flat[::2], flat[1::2]))
    if kind == b"zset":
        return kind, c.execute_command("ZRANGE", key, 0, -1, "WITHSCORES")
    return kind, None


def check(c, key, kind, data):
    """key holds data, as written by write()."""
    got_kind, got = contents(c, key)
    assert got_kind == kind.encode()
    if kind != "zset":
        assert got == data
        return
    pairs = [(m, float(s)) for m, s in zip(got[::2], got[1::2])]
    assert pairs == sorted(((m, float(s)) for m, s in data), key=lambda p: (p[1], p[0]))


# ---- DUMP -------------------------------------------------------------------------------------

def test_crc64_and_the_trailer_of_a_real_dump(r):
    assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA
    r.execute_command("SET", "s", "hello")
    payload = r.execute_command("DUMP", "s")
    # Redis 7.0.15's exact payload: type 0, length 5, "hello", version 10, CRC-64
    assert payload == b"\x00\x05hello\n\x00cr\xdfve4 \n"
    assert trailer_ok(payload)
    assert make_payload(b"\x00\x05hello") == payload


def test_dump_of_a_missing_key_is_nil(r):
    assert r.execute_command("DUMP", "nokey") is None
    r.execute_command("SET", "gone", "x", "PX", 1)
    time.sleep(0.01)
    assert r.execute_command("DUMP", "gone") is None
    assert r.execute_command("EXISTS", "nokey", "gone") == 0


@pytest.mark.parametrize("name,kind,data", VALUES, ids=[v[0] for v in VALUES])
def test_dump_and_restore_round_trip(r, name, kind, data):
    write(r, name, kind, data)
    before = contents(r, name)
    payload = r.execute_command("DUMP", name)
    assert isinstance(payload, bytes) and trailer_ok(payload)
    assert r.execute_command("RESTORE", "copy", 0, payload) == b"OK"
    check(r, "copy", kind, data)
    assert contents(r, "copy") == before
    assert r.execute_command("PTTL", "copy") == -1
    check(r, name, kind, data)  # the source is untouched
    # the copy dumps to a payload that restores the same value again
    assert r.execute_command("RESTORE", "copy2", 0, r.execute_command("DUMP", "copy")) == b"OK"
    assert contents(r, "copy2") == before
    if name == "zset_small":
        assert before[1] == ZSET_SMALL_RANGE


def test_dump_of_a_value_changed_after_the_dump_restores_the_old_value(r):
    r.execute_command("RPUSH", "l", "a", "b", "c")
    payload = r.execute_command("DUMP", "l")
    r.execute_command("RPUSH", "l", "d")
    r.execute_command("LSET", "l", 0, "z")
    assert r.execute_command("RESTORE", "l", 0, payload, "REPLACE") == b"OK"
    assert r.execute_command("LRANGE", "l", 0, -1) == [b"a", b"b", b"c"]


# ---- between redis-server and the server under test -------------------------------------------

# Keys made in redis-server on top of VALUES, for the encodings VALUES does not reach.
EXTRA = [
    # 5000 items of 100 bytes: a quicklist of several packed (LZF-compressed) nodes
    ("list_5000x100", "list", [b"%0100d" % i for i in range(5000)]),
    # one item of 10000 bytes: under Redis 7.0.15's defaults a PACKED node holding one item
    ("list_one_10000_packed", "list", [bytes((i * 31) % 251 for i in range(10000))]),
    ("zset_long_member", "zset", [(b"m" * 100, "1"), (b"short", "2")]),
    ("hash_long_field", "hash", {b"f" * 100: b"v", b"g": b"w"}),
    ("set_big_int", "set", {b"1", b"2", b"99999999999999999999"}),
]
# made after DEBUG QUICKLIST-PACKED-THRESHOLD 1000: items of 1000 bytes and more get a node of
# their own, stored PLAIN (raw bytes, no listpack)
PLAIN_LISTS = [
    ("list_plain", "list", [b"p" * 10000]),
    ("list_plain_binary", "list", [bytes((i * 13) % 256 for i in range(5000))]),
    ("list_mixed", "list", [b"a", b"q" * 10000, b"b", b"c", b"r" * 2000, b"d"]),
]

# Redis 7.0.15's OBJECT ENCODING and the RDB type its DUMP wrote, per key
REDIS_ENCODINGS = {
    "str_plain": (b"embstr", T_STRING),
    "str_int": (b"int", T_STRING),
    "str_neg_int": (b"int", T_STRING),
    "str_int64_min": (b"int", T_STRING),
    "str_leading_zero": (b"embstr", T_STRING),
    "str_empty": (b"embstr", T_STRING),
    "str_long_1000": (b"raw", T_STRING),
    "str_binary": (b"raw", T_STRING),
    "str_repeated_1000": (b"raw", T_STRING),
    "list_small": (b"quicklist", T_LIST_QUICKLIST_2),
    "list_1000": (b"quicklist", T_LIST_QUICKLIST_2),
    "set_ints": (b"intset", T_SET_INTSET),
    "set_strings": (b"hashtable", T_SET),
    "set_1000": (b"hashtable", T_SET),
    "set_1000_ints": (b"hashtable", T_SET),
    "hash_small": (b"listpack", T_HASH_LISTPACK),
    "hash_1000": (b"hashtable", T_HASH),
    "hash_big_values": (b"hashtable", T_HASH),
    "zset_small": (b"listpack", T_ZSET_LISTPACK),
    "zset_1000": (b"skiplist", T_ZSET_2),
    "list_5000x100": (b"quicklist", T_LIST_QUICKLIST_2),
    "list_one_10000_packed": (b"quicklist", T_LIST_QUICKLIST_2),
    "zset_long_member": (b"skiplist", T_ZSET_2),
    "hash_long_field": (b"hashtable", T_HASH),
    "set_big_int": (b"hashtable", T_SET),
    "list_plain": (b"quicklist", T_LIST_QUICKLIST_2),
    "list_plain_binary": (b"quicklist", T_LIST_QUICKLIST_2),
    "list_mixed": (b"quicklist", T_LIST_QUICKLIST_2),
}


def quicklist_containers(payload):
    """The container of every node of a RDB_TYPE_LIST_QUICKLIST_2 payload."""
    assert payload[0] == T_LIST_QUICKLIST_2
    nodes, pos = rdb_len(payload, 1)
    out = []
    for _ in range(nodes):
        container, pos = rdb_len(payload, pos)
        out.append(container)
        b = payload[pos]
        if b == 0xC3:  # LZF: compressed length, plain length, data
            clen, pos = rdb_len(payload, pos + 1)
            _, pos = rdb_len(payload, pos)
            pos += clen
        else:
            n, pos = rdb_len(payload, pos)
            pos += n
    assert pos == len(payload) - 10
    return out


@pytest.mark.skipif(is_redis(), reason="moves payloads between redis-server and slotkv")
def test_payloads_move_between_redis_server_and_slotkv_both_ways(r):
    own = OwnRedis(["--enable-debug-command", "yes"])
    try:
        rs = own.client
        keys = VALUES + EXTRA
        for name, kind, data in keys:
            write(rs, name, kind, data)
        assert rs.execute_command("DEBUG", "QUICKLIST-PACKED-THRESHOLD", 1000) == b"OK"
        for name, kind, data in PLAIN_LISTS:
            write(rs, name, kind, data)
        keys += PLAIN_LISTS

        payloads = {}
        for name, kind, data in keys:
            check(rs, name, kind, data)
            payloads[name] = p = rs.execute_command("DUMP", name)
            assert trailer_ok(p), name
            assert (rs.execute_command("OBJECT", "ENCODING", name), p[0]) == (
                REDIS_ENCODINGS[name]), name

        # what the encodings look like in Redis 7.0.15's payloads
        assert payloads["str_int"][:3] == b"\x00\xc0{"  # 8-bit integer
        assert payloads["str_neg_int"][:2] == b"\x00\xc2"  # 32-bit integer
        assert payloads["str_repeated_1000"][:2] == b"\x00\xc3"  # LZF
        assert payloads["str_long_1000"][:2] == b"\x00\xc3"
        assert payloads["str_binary"][:4] == b"\x00\x41\x04\x00"  # 260 bytes as they are
        assert quicklist_containers(payloads["list_small"]) == [PACKED]
        assert quicklist_containers(payloads["list_1000"]) == [PACKED] * 2
        assert quicklist_containers(payloads["list_5000x100"]) == [PACKED] * 64
        assert quicklist_containers(payloads["list_one_10000_packed"]) == [PACKED]
        assert quicklist_containers(payloads["list_plain"]) == [PLAIN]
        assert quicklist_containers(payloads["list_plain_binary"]) == [PLAIN]
        assert quicklist_containers(payloads["list_mixed"]) == [
            PACKED, PLAIN, PACKED, PLAIN, PACKED]

        # redis-server -> slotkv
        for name, kind, data in keys:
            assert r.execute_command("RESTORE", name, 0, payloads[name]) == b"OK", name
            check(r, name, kind, data)
            assert contents(r, name) == contents(rs, name), name

        # slotkv -> redis-server
        for name, kind, data in keys:
            back = r.execute_command("DUMP", name)
            assert trailer_ok(back), name
            assert rs.execute_command("RESTORE", name + ":back", 0, back) == b"OK", name
            check(rs, name + ":back", kind, data)
            assert contents(rs, name + ":back") == contents(rs, name), name
    finally:
        own.cleanup()


# ---- RESTORE: an existing key, REPLACE --------------------------------------------------------

def test_restore_onto_an_existing_key_needs_replace(r):
    r.execute_command("SET", "s", "new")
    new = r.execute_command("DUMP", "s")
    r.execute_command("SET", "k", "old")
    assert err(r, "RESTORE", "k", 0, new) == BUSYKEY
    assert r.execute_command("GET", "k") == b"old"
    assert r.execute_command("RESTORE", "k", 0, new, "REPLACE") == b"OK"
    assert r.execute_command("GET", "k") == b"new"
    # REPLACE over a key of another type, either way
    r.execute_command("RPUSH", "l", "a", "b")
    lst = r.execute_command("DUMP", "l")
    assert err(r, "RESTORE", "k", 0, lst) == BUSYKEY
    assert r.execute_command("RESTORE", "k", 0, lst, "REPLACE") == b"OK"
    assert contents(r, "k") == (b"list", [b"a", b"b"])
    assert r.execute_command("RESTORE", "k", 0, new, "replace") == b"OK"
    assert contents(r, "k") == (b"string", b"new")
    r.execute_command("ZADD", "z", 1, "m")
    assert r.execute_command("RESTORE", "z", 0, lst, "REPLACE") == b"OK"
    assert contents(r, "z") == (b"list", [b"a", b"b"])
    # REPLACE on a missing key, REPLACE given twice
    assert r.execute_command("RESTORE", "fresh", 0, new, "REPLACE", "REPLACE") == b"OK"
    assert r.execute_command("GET", "fresh") == b"new"


def test_restore_with_replace_drops_the_old_ttl(r):
    r.execute_command("SET", "s", "v")
    payload = r.execute_command("DUMP", "s")
    r.execute_command("SET", "k", "old", "EX", 100)
    assert r.execute_command("RESTORE", "k", 0, payload, "REPLACE") == b"OK"
    assert r.execute_command("PTTL", "k") == -1
    r.execute_command("EXPIRE", "k", 100)
    assert r.execute_command("RESTORE", "k", 3000, payload, "REPLACE") == b"OK"
    assert 0 < r.execute_command("PTTL", "k") <= 3000


# ---- RESTORE: TTLs ----------------------------------------------------------------------------

def test_restore_with_a_ttl(r):
    r.execute_command("HSET", "h", "f", "v")
    payload = r.execute_command("DUMP", "h")
    assert r.execute_command("RESTORE", "k", 5000, payload) == b"OK"
    assert 1 <= r.execute_command("PTTL", "k") <= 5000
    assert r.execute_command("HGET", "k", "f") == b"v"
    # ABSTTL: a Unix time in milliseconds
    at = int(time.time() * 1000) + 100000
    assert r.execute_command("RESTORE", "abs", at, payload, "ABSTTL") == b"OK"
    assert 90000 <= r.execute_command("PTTL", "abs") <= 100000
    assert r.execute_command("PEXPIRETIME", "abs") == at
    # 0 is no TTL, with or without ABSTTL
    assert r.execute_command("RESTORE", "z", 0, payload) == b"OK"
    assert r.execute_command("RESTORE", "za", 0, payload, "ABSTTL") == b"OK"
    assert r.execute_command("PTTL", "z") == r.execute_command("PTTL", "za") == -1
    # a short TTL expires
    assert r.execute_command("RESTORE", "short", 1, payload) == b"OK"
    assert wait_until(lambda: r.execute_command("EXISTS", "short") == 0, timeout=2)


def test_restore_with_a_ttl_already_past_stores_nothing(r):
    r.execute_command("SET", "s", "v")
    payload = r.execute_command("DUMP", "s")
    assert r.execute_command("RESTORE", "k", 1, payload, "ABSTTL") == b"OK"
    assert r.execute_command("EXISTS", "k") == 0
    past = int(time.time() * 1000) - 10000
    assert r.execute_command("RESTORE", "k", past, payload, "ABSTTL") == b"OK"
    assert r.execute_command("EXISTS", "k") == 0
    # an existing key: BUSYKEY without REPLACE (the key stays)
    r.execute_command("RPUSH", "old", "x")
    assert err(r, "RESTORE", "old", 1, payload, "ABSTTL") == BUSYKEY
    assert r.execute_command("LRANGE", "old", 0, -1) == [b"x"]
    # with REPLACE the old key is deleted and nothing is stored
    assert r.execute_command("RESTORE", "old", 1, payload, "ABSTTL", "REPLACE") == b"OK"
    assert r.execute_command("EXISTS", "old") == 0
    assert r.execute_command("RESTORE", "old", 1, payload, "REPLACE", "ABSTTL") == b"OK"
    assert r.execute_command("EXISTS", "old") == 0


def test_restore_ttl_errors(r):
    r.execute_command("SET", "s", "v")
    payload = r.execute_command("DUMP", "s")
    assert err(r, "RESTORE", "k", -1, payload) == BAD_TTL
    assert err(r, "RESTORE", "k", -1, payload, "ABSTTL") == BAD_TTL
    assert err(r, "RESTORE", "k", -1, payload, "REPLACE") == BAD_TTL
    for ttl in ("x", "1.5", "", "99999999999999999999", " 1"):
        assert err(r, "RESTORE", "k", ttl, payload) == NOT_INT, ttl
    assert r.execute_command("EXISTS", "k") == 0


# ---- RESTORE: bad payloads --------------------------------------------------------------------

def test_restore_of_a_payload_with_a_wrong_trailer(r):
    r.execute_command("RPUSH", "l", "a", "b", "c")
    payload = r.execute_command("DUMP", "l")
    for i in (0, 1, len(payload) // 2, len(payload) - 10, len(payload) - 9, len(payload) - 1):
        bad = bytearray(payload)
        bad[i] ^= 0x01
        assert err(r, "RESTORE", "k", 0, bytes(bad)) == BAD_PAYLOAD, i
    for bad in (b"", b"x", b"junk", payload[:-1], payload[:10], payload[:9], payload + b"\x00"):
        assert err(r, "RESTORE", "k", 0, bad) == BAD_PAYLOAD, bad
    # a version above Redis 7.0's (10) is refused even with a right CRC; older ones are read
    assert err(r, "RESTORE", "k", 0, make_payload(b"\x00\x05hello", 11)) == BAD_PAYLOAD
    assert err(r, "RESTORE", "k", 0, make_payload(b"\x00\x05hello", 0xFFFF)) == BAD_PAYLOAD
    assert r.execute_command("EXISTS", "k") == 0
    assert r.execute_command("RESTORE", "k9", 0, make_payload(b"\x00\x05hello", 9)) == b"OK"
    assert r.execute_command("GET", "k9") == b"hello"
    # REPLACE does not delete the key when the payload is refused
    r.execute_command("SET", "keep", "v")
    assert err(r, "RESTORE", "keep", 0, payload[:-1], "REPLACE") == BAD_PAYLOAD
    assert r.execute_command("GET", "keep") == b"v"


GARBAGE = [
    ("unknown_type", b"\xc8"),
    ("empty_object", b""),
    ("module_type", b"\x07"),
    ("string_cut_short", b"\x00\x40\xc8abc"),  # 200 bytes announced, 3 there
    ("hash_listpack_not_a_listpack", b"\x10\x01a"),
    ("empty_set", b"\x02\x00"),
    ("set_duplicate_members", b"\x02\x02\x01a\x01a"),
    ("empty_list", b"\x01\x00"),
    ("empty_quicklist", b"\x12\x00"),
    ("quicklist_unknown_container", b"\x12\x01\x03\x01a"),
    ("empty_hash", b"\x04\x00"),
    ("empty_intset", b"\x0b\x00"),
    ("intset_cut_short", b"\x0b\x09\x02\x00\x00\x00\x01\x00\x00\x00\x05"),
    ("empty_zset", b"\x05\x00"),
    ("zset_nan_score", b"\x05\x01\x01a" + struct.pack("<d", float("nan"))),
    ("zset_duplicate_members", b"\x05\x02\x01a" + struct.pack("<d", 1) + b"\x01a"
     + struct.pack("<d", 2)),
    ("zset_text_nan_score", b"\x03\x01\x01a\xfd"),
]


@pytest.mark.parametrize("obj", [g[1] for g in GARBAGE], ids=[g[0] for g in GARBAGE])
def test_restore_of_a_payload_whose_object_does_not_parse(r, obj):
    assert err(r, "RESTORE", "k", 0, make_payload(obj)) == BAD_DATA
    assert r.execute_command("EXISTS", "k") == 0
    r.execute_command("SET", "keep", "v")
    assert err(r, "RESTORE", "keep", 0, make_payload(obj), "REPLACE") == BAD_DATA
    assert r.execute_command("GET", "keep") == b"v"


def test_restore_of_hand_made_payloads(r):
    """Objects Redis 7.0.15 reads that its own DUMP would write differently."""
    cases = [
        (b"\x00\xc0\x7b", (b"string", b"123")),  # 8-bit integer encoding
        (b"\x00\xc1\x39\x30", (b"string", b"12345")),  # 16-bit
        (b"\x00\xc2\x90\xee\xfe\xff", (b"string", b"-70000")),  # 32-bit
        (b"\x01\x02\x01a\x01b", (b"list", [b"a", b"b"])),  # RDB_TYPE_LIST
        (b"\x12\x01\x01\x03abc", (b"list", [b"abc"])),  # one PLAIN node
        (b"\x03\x02\x01a\x031.5\x01b\xfe", (b"zset", [b"a", b"1.5", b"b", b"inf"])),
        (b"\x0b\x0c\x02\x00\x00\x00\x02\x00\x00\x00\xfe\xff\x05\x00",
         (b"set", {b"-2", b"5"})),  # intset of 16-bit values
    ]
    for i, (obj, want) in enumerate(cases):
        key = "k%d" % i
        assert r.execute_command("RESTORE", key, 0, make_payload(obj)) == b"OK", obj
        assert contents(r, key) == want, obj


# ---- RESTORE: IDLETIME, FREQ, syntax ----------------------------------------------------------

def test_restore_idletime_and_freq(r):
    r.execute_command("SET", "s", "v")
    p = r.execute_command("DUMP", "s")
    assert r.execute_command("RESTORE", "a", 0, p, "IDLETIME", 0) == b"OK"
    assert r.execute_command("RESTORE", "b", 0, p, "IDLETIME", 1000) == b"OK"
    assert r.execute_command("RESTORE", "c", 0, p, "FREQ", 0) == b"OK"
    assert r.execute_command("RESTORE", "d", 0, p, "FREQ", 255) == b"OK"
    assert r.execute_command("RESTORE", "e", 0, p, "idletime", 5, "idletime", 6) == b"OK"
    assert r.execute_command("RESTORE", "f", 0, p, "freq", 5, "freq", 6) == b"OK"
    assert r.execute_command("RESTORE", "g", 0, p, "replace", "absttl", "idletime", 5) == b"OK"
    assert r.execute_command("MGET", *"abcdefg") == [b"v"] * 7
    assert err(r, "RESTORE", "k", 0, p, "IDLETIME", -1) == BAD_IDLETIME
    assert err(r, "RESTORE", "k", 0, p, "FREQ", 256) == BAD_FREQ
    assert err(r, "RESTORE", "k", 0, p, "FREQ", -1) == BAD_FREQ
    assert err(r, "RESTORE", "k", 0, p, "IDLETIME", "x") == NOT_INT
    assert err(r, "RESTORE", "k", 0, p, "FREQ", "1.5") == NOT_INT
    # one or the other, never both
    assert err(r, "RESTORE", "k", 0, p, "IDLETIME", 1, "FREQ", 2) == SYNTAX
    assert err(r, "RESTORE", "k", 0, p, "FREQ", 2, "IDLETIME", 1) == SYNTAX
    assert err(r, "RESTORE", "k", 0, p, "FREQ", 0, "IDLETIME", 0) == SYNTAX
    assert r.execute_command("EXISTS", "k") == 0


def test_restore_asking_is_restore_outside_a_cluster(r):
    """RESTORE-ASKING (a cluster's RESTORE into a slot being imported) acts as RESTORE in a
    standalone server: options, BUSYKEY, TTL, arity; COMMAND INFO shows its asking flag."""
    r.execute_command("HSET", "h", "f", "v")
    p = r.execute_command("DUMP", "h")
    assert r.execute_command("RESTORE-ASKING", "k", 0, p) == b"OK"
    assert contents(r, "k") == (b"hash", {b"f": b"v"})
    assert err(r, "RESTORE-ASKING", "k", 0, p) == BUSYKEY
    assert r.execute_command("RESTORE-ASKING", "k", 5000, p, "REPLACE") == b"OK"
    assert 0 < r.execute_command("PTTL", "k") <= 5000
    assert err(r, "RESTORE-ASKING", "k", 0, p, "BOGUS") == SYNTAX
    assert err(r, "RESTORE-ASKING", "k", 0) == arity("restore-asking")
    info = r.execute_command("COMMAND", "INFO", "restore-asking")[0]
    assert info[:7] == [b"restore-asking", -4, [b"write", b"denyoom", b"asking"], 1, 1, 1,
                        [b"@keyspace", b"@write", b"@slow", b"@dangerous"]]
    assert r.execute_command("COMMAND", "GETKEYSANDFLAGS", "restore-asking", "k", 0, p) == [
        [b"k", [b"OW", b"update"]]]


def test_restore_syntax_errors_and_arity(r):
    r.execute_command("SET", "s", "v")
    p = r.execute_command("DUMP", "s")
    assert err(r, "RESTORE", "k", 0, p, "BOGUS") == SYNTAX
    assert err(r, "RESTORE", "k", 0, p, "REPLACE", "BOGUS") == SYNTAX
    assert err(r, "RESTORE", "k", 0, p, "IDLETIME") == SYNTAX
    assert err(r, "RESTORE", "k", 0, p, "FREQ") == SYNTAX
    assert err(r, "RESTORE", "k", 0, p, "TTL", 5) == SYNTAX
    assert r.execute_command("EXISTS", "k") == 0
    assert err(r, "DUMP") == arity("dump")
    assert err(r, "DUMP", "a", "b") == arity("dump")
    assert err(r, "RESTORE") == arity("restore")
    assert err(r, "RESTORE", "k") == arity("restore")
    assert err(r, "RESTORE", "k", 0) == arity("restore")


def test_restore_checks_options_then_the_key_then_the_ttl_then_the_payload(r):
    r.execute_command("SET", "s", "v")
    p = r.execute_command("DUMP", "s")
    junk = b"junk"
    # options first: before BUSYKEY, the TTL and the payload
    assert err(r, "RESTORE", "s", -1, junk, "BOGUS") == SYNTAX
    assert err(r, "RESTORE", "s", "x", junk, "IDLETIME", -1) == BAD_IDLETIME
    assert err(r, "RESTORE", "s", "x", junk, "FREQ", 300) == BAD_FREQ
    assert err(r, "RESTORE", "k", -1, junk, "IDLETIME", "x") == NOT_INT
    assert err(r, "RESTORE", "k", 0, p, "IDLETIME", -1, "BOGUS") == BAD_IDLETIME
    assert err(r, "RESTORE", "k", 0, p, "BOGUS", "IDLETIME", -1) == SYNTAX
    # then BUSYKEY: before the TTL and the payload
    assert err(r, "RESTORE", "s", "x", p) == BUSYKEY
    assert err(r, "RESTORE", "s", -1, p) == BUSYKEY
    assert err(r, "RESTORE", "s", 0, junk) == BUSYKEY
    assert err(r, "RESTORE", "s", 0, make_payload(b"\xc8")) == BUSYKEY
    # then the TTL: before the payload
    assert err(r, "RESTORE", "k", "x", junk) == NOT_INT
    assert err(r, "RESTORE", "k", -1, junk) == BAD_TTL
    assert err(r, "RESTORE", "s", -1, junk, "REPLACE") == BAD_TTL
    # then the trailer, then the object
    assert err(r, "RESTORE", "s", 0, junk, "REPLACE") == BAD_PAYLOAD
    assert err(r, "RESTORE", "s", 0, make_payload(b"\xc8"), "REPLACE") == BAD_DATA
    # and a TTL in the past only after the payload checked out
    assert err(r, "RESTORE", "s", 1, junk, "ABSTTL", "REPLACE") == BAD_PAYLOAD
    assert err(r, "RESTORE", "s", 1, make_payload(b"\xc8"), "ABSTTL", "REPLACE") == BAD_DATA
    assert r.execute_command("GET", "s") == b"v"
    assert r.execute_command("EXISTS", "k") == 0


# ---- keyspace events --------------------------------------------------------------------------

def events(key, *names):
    out = []
    for name in names:
        out += [("__keyspace@0__:" + key, name), ("__keyevent@0__:" + name, key)]
    return out


def test_keyspace_events(r, listen):
    r.execute_command("SET", "s", "v")
    r.execute_command("RPUSH", "l", "a")
    p = r.execute_command("DUMP", "s")
    pl = r.execute_command("DUMP", "l")
    listen.drain(r)

    def run(*cmd):
        r.execute_command(*cmd)
        return listen.drain(r)

    assert run("RESTORE", "k", 0, p) == events("k", "restore")
    assert run("RESTORE", "k", 0, pl, "REPLACE") == events("k", "restore")  # no "del"
    assert run("RESTORE", "t", 5000, p) == events("t", "restore")  # no "expire"
    at = int(time.time() * 1000) + 100000
    assert run("RESTORE", "a", at, p, "ABSTTL") == events("a", "restore")
    assert run("RESTORE", "i", 0, p, "IDLETIME", 10) == events("i", "restore")
    # a TTL in the past: "del" when REPLACE deleted a key, nothing otherwise
    assert run("RESTORE", "k", 1, p, "ABSTTL", "REPLACE") == events("k", "del")
    assert run("RESTORE", "k", 1, p, "ABSTTL", "REPLACE") == []
    assert run("RESTORE", "n", 1, p, "ABSTTL") == []
    # DUMP and failed RESTOREs publish nothing
    assert run("DUMP", "s") == []
    assert run("DUMP", "nokey") == []
    assert err(r, "RESTORE", "s", 0, p) == BUSYKEY
    assert err(r, "RESTORE", "s", 0, b"junk", "REPLACE") == BAD_PAYLOAD
    assert err(r, "RESTORE", "s", 0, make_payload(b"\xc8"), "REPLACE") == BAD_DATA
    assert err(r, "RESTORE", "s", -1, p, "REPLACE") == BAD_TTL
    assert listen.drain(r) == []


# ---- durability -------------------------------------------------------------------------------

@pytest.mark.slotkv_only(redis_aof=True)
def test_restored_values_survive_a_restart(server, r):
    for name, kind, data in VALUES:
        write(r, name, kind, data)
    for name, kind, data in VALUES:
        payload = r.execute_command("DUMP", name)
        assert r.execute_command("RESTORE", name + ":copy", 0, payload) == b"OK"
        assert r.execute_command("RESTORE", name, 0, payload, "REPLACE") == b"OK"
    r.execute_command("SET", "s", "v")
    p = r.execute_command("DUMP", "s")
    assert r.execute_command("RESTORE", "ttl", 600000, p) == b"OK"
    r.execute_command("SET", "gone", "x")
    assert r.execute_command("RESTORE", "gone", 1, p, "ABSTTL", "REPLACE") == b"OK"
    before = {n: contents(r, n) for n, _, _ in VALUES}
    server.restart()
    c = server.client()
    for name, kind, data in VALUES:
        check(c, name + ":copy", kind, data)
        check(c, name, kind, data)
        assert contents(c, name + ":copy") == before[name]
    assert c.execute_command("GET", "ttl") == b"v"
    assert 500000 < c.execute_command("PTTL", "ttl") <= 600000
    assert c.execute_command("EXISTS", "gone") == 0
    # the restored values dump and restore again after the restart
    for name, kind, data in VALUES:
        payload = c.execute_command("DUMP", name + ":copy")
        assert c.execute_command("RESTORE", name + ":again", 0, payload) == b"OK"
        check(c, name + ":again", kind, data)
    c.connection_pool.disconnect()
