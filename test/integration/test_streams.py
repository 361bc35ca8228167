"""Stream entry commands as Redis 7.0.15 gives them: XADD (every ID form, NOMKSTREAM, MAXLEN /
MINID trimming with = ~ and LIMIT), XRANGE / XREVRANGE (incomplete and exclusive IDs, COUNT),
XLEN, XDEL, XTRIM, XSETID (ENTRIESADDED, MAXDELETEDID), XREAD (many keys, $, BLOCK and its
wake-ups), XINFO STREAM (not FULL), WRONGTYPE, the generic key commands on a stream key, DUMP /
RESTORE, RESP3 replies, and a 3000-entry stream checked against a Python model.

Consumer groups (XGROUP XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM, XINFO GROUPS / CONSUMERS /
STREAM FULL) live in another file.

Every reply is Redis 7.0.15's, pinned as a literal where the IDs are explicit; `*` IDs are
checked for their shape (milliseconds near the client's clock, sequence 0 or the previous + 1).
XINFO STREAM's radix-tree-keys and radix-tree-nodes describe Redis's encoding and are only
checked to be integers. Approximate trimming (`~`) is checked by its contract only: Redis drops
whole radix-tree nodes (100 entries each by default) and never goes below the threshold or over
LIMIT, but how many entries it keeps is an encoding detail; exact trimming is pinned.

Notes from Redis 7.0.15: an ID is "ms-seq", "ms" (seq 0, or the largest seq at the end of a
range), with leading zeros allowed; a missing key reads as an empty stream everywhere except
XSETID and XINFO ("ERR no such key"); XRANGE COUNT 0 (or negative) and an XREAD with nothing to
return reply a null array; XDEL and XTRIM never delete the key; trimming does not move
max-deleted-entry-id, XDEL does.
"""

import os
import random
import threading
import time

from conftest import NOT_INT, SYNTAX, WRONGTYPE, OwnRedis, arity, err, wait_until

INVALID_ID = "ERR Invalid stream ID specified as stream command argument"
TOP_ITEM = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
ZERO_ID = "ERR The ID specified in XADD must be greater than 0-0"
EXHAUSTED = "ERR The stream has exhausted the last possible ID, unable to add more items"
LIMIT_NEEDS_APPROX = "ERR syntax error, LIMIT cannot be used without the special ~ option"
LIMIT_NEEDS_STRATEGY = ("ERR syntax error, LIMIT cannot be used without specifying a trimming "
                        "strategy")
MAXLEN_AND_MINID = ("ERR syntax error, MAXLEN and MINID options at the same time are not "
                    "compatible")
MAXLEN_NEGATIVE = "ERR The MAXLEN argument must be >= 0."
LIMIT_NEGATIVE = "ERR The LIMIT argument must be >= 0."
BAD_START = "ERR invalid start ID for the interval"
BAD_END = "ERR invalid end ID for the interval"
UNBALANCED = ("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
              "specified.")
GT_NEEDS_GROUP = ("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                  "<group> <consumer> option.")
NOACK_NEEDS_GROUP = ("ERR The NOACK option is only supported by XREADGROUP. You called XREAD "
                     "instead.")
GROUP_NEEDS_GROUP = ("ERR The GROUP option is only supported by XREADGROUP. You called XREAD "
                     "instead.")
TIMEOUT_NOT_INT = "ERR timeout is not an integer or out of range"
TIMEOUT_NEGATIVE = "ERR timeout is negative"
SETID_TOP = "ERR The ID specified in XSETID is smaller than the target stream top item"
SETID_ENTRIES = ("ERR The entries_added specified in XSETID is smaller than the target stream "
                 "length")
SETID_MAXDEL = ("ERR The ID specified in XSETID is smaller than the provided "
                "max_deleted_entry_id")
ENTRIES_POSITIVE = "ERR entries_added must be positive"
NO_KEY = "ERR no such key"
XINFO_STREAM_ARGS = ("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try "
                     "XINFO HELP.")

U64 = 18446744073709551615  # the largest ms and seq of an ID
NULL_ARRAY = b"*-1\r\n"
NULL_BULK = b"$-1\r\n"


def cmd(r, *args):
    return r.execute_command(*args)


def rng(name):
    seed = int(os.environ.get("SLOTKV_TEST_SEED", "0")) or random.randrange(1, 2 ** 31)
    print("%s: seed %d (rerun with SLOTKV_TEST_SEED=%d)" % (name, seed, seed))
    return random.Random(seed)


def e(entry_id, *fields):
    """An entry as XRANGE replies it: [b"ms-seq", [b"f1", b"v1", ...]]."""
    return [entry_id.encode(), [f.encode() for f in fields]]


def info(r, key):
    """XINFO STREAM as a dict keyed by str; the two radix-tree counters are checked to be ints
    and dropped."""
    flat = cmd(r, "XINFO", "STREAM", key)
    out = {k.decode(): v for k, v in zip(flat[0::2], flat[1::2])}
    assert [k.decode() for k in flat[0::2]] == [
        "length", "radix-tree-keys", "radix-tree-nodes", "last-generated-id",
        "max-deleted-entry-id", "entries-added", "recorded-first-entry-id", "groups",
        "first-entry", "last-entry"]
    for k in ("radix-tree-keys", "radix-tree-nodes"):
        assert isinstance(out.pop(k), int), flat
    return out


def meta(length, last, maxdel, added, first_id, first=None, last_entry=None, groups=0):
    return {"length": length, "last-generated-id": last.encode(),
            "max-deleted-entry-id": maxdel.encode(), "entries-added": added,
            "recorded-first-entry-id": first_id.encode(), "groups": groups,
            "first-entry": first, "last-entry": last_entry}


def parse_id(raw):
    ms, seq = raw.split(b"-")
    return int(ms), int(seq)


def fmt_id(entry_id):
    return "%d-%d" % entry_id


def now_ms():
    return int(time.time() * 1000)


def five(r, key="s"):
    """1-0 1-1 2-0 5-0 (two fields) 5-7."""
    for entry_id, value in [("1-0", "v1"), ("1-1", "v2"), ("2-0", "v3")]:
        cmd(r, "XADD", key, entry_id, "f", value)
    cmd(r, "XADD", key, "5-0", "f", "v4", "g", "w")
    cmd(r, "XADD", key, "5-7", "f", "v5")


FIVE = [e("1-0", "f", "v1"), e("1-1", "f", "v2"), e("2-0", "f", "v3"),
        e("5-0", "f", "v4", "g", "w"), e("5-7", "f", "v5")]


# ---- XADD ----------------------------------------------------------------------------------------

def test_xadd_explicit_ids(r):
    assert cmd(r, "XADD", "s", "1-1", "a", "1") == b"1-1"
    assert err(r, "XADD", "s", "1-1", "a", "1") == TOP_ITEM
    assert err(r, "XADD", "s", "1-0", "a", "1") == TOP_ITEM
    assert err(r, "XADD", "s", "1", "a", "1") == TOP_ITEM  # 1 is 1-0
    assert err(r, "XADD", "s", "0-5", "a", "1") == TOP_ITEM
    assert cmd(r, "XADD", "s", "1-2", "a", "2") == b"1-2"
    assert cmd(r, "XADD", "s", "5", "a", "3") == b"5-0"  # ms alone: seq 0
    assert cmd(r, "XADD", "s", "0031-0001", "a", "4") == b"31-1"  # leading zeros
    assert cmd(r, "XADD", "s", "%d-%d" % (U64 - 1, U64), "a", "5") == b"%d-%d" % (U64 - 1, U64)
    assert cmd(r, "XLEN", "s") == 5
    assert cmd(r, "XRANGE", "s", "-", "+") == [
        e("1-1", "a", "1"), e("1-2", "a", "2"), e("5-0", "a", "3"), e("31-1", "a", "4"),
        e("%d-%d" % (U64 - 1, U64), "a", "5")]
    # a failed XADD leaves nothing behind
    assert err(r, "XADD", "s", "31-0", "a", "x") == TOP_ITEM
    assert cmd(r, "XLEN", "s") == 5


def test_xadd_zero_id(r):
    assert err(r, "XADD", "s", "0-0", "a", "1") == ZERO_ID
    assert err(r, "XADD", "s", "0", "a", "1") == ZERO_ID
    assert cmd(r, "EXISTS", "s") == 0
    assert cmd(r, "XADD", "s", "0-1", "a", "1") == b"0-1"
    assert err(r, "XADD", "s", "0-0", "a", "1") == ZERO_ID
    assert cmd(r, "XADD", "t", "0-*", "a", "1") == b"0-1"  # 0-0 is skipped
    assert cmd(r, "XADD", "t", "0-*", "a", "1") == b"0-2"


def test_xadd_ms_star(r):
    assert cmd(r, "XADD", "s", "5-*", "a", "1") == b"5-0"
    assert cmd(r, "XADD", "s", "5-*", "a", "1") == b"5-1"
    assert cmd(r, "XADD", "s", "5-*", "a", "1") == b"5-2"
    assert cmd(r, "XADD", "s", "7-*", "a", "1") == b"7-0"
    assert err(r, "XADD", "s", "6-*", "a", "1") == TOP_ITEM
    assert cmd(r, "XADD", "s", "7-%d" % U64, "a", "1") == b"7-%d" % U64
    # no seq left in ms 7: Redis 7.0.15 gives this (misleading) text, not TOP_ITEM
    assert err(r, "XADD", "s", "7-*", "a", "1") == "ERR Elements are too large to be stored"
    assert err(r, "XADD", "s", "6-*", "a", "1") == TOP_ITEM
    assert cmd(r, "XADD", "s", "8-*", "a", "1") == b"8-0"
    assert cmd(r, "XADD", "t", "1-*", "a", "1") == b"1-0"


def test_xadd_star_ids(r):
    before = now_ms()
    ids = [parse_id(cmd(r, "XADD", "s", "*", "n", i)) for i in range(50)]
    after = now_ms()
    for i, (ms, seq) in enumerate(ids):
        assert before - 2000 <= ms <= after + 2000, (ms, before, after)
        if i == 0 or ms != ids[i - 1][0]:
            assert seq == 0 and (i == 0 or ms > ids[i - 1][0]), ids
        else:
            assert seq == ids[i - 1][1] + 1, ids
    assert cmd(r, "XLEN", "s") == 50
    last = fmt_id(ids[-1]).encode()
    assert cmd(r, "XREVRANGE", "s", "+", "-", "COUNT", 1) == [[last, [b"n", b"49"]]]
    # a top item in the future: `*` continues from it
    assert cmd(r, "XADD", "f", "99999999999999-5", "a", "1") == b"99999999999999-5"
    assert cmd(r, "XADD", "f", "*", "a", "1") == b"99999999999999-6"
    assert cmd(r, "XADD", "f", "99999999999999-%d" % U64, "a", "1") == b"99999999999999-%d" % U64
    assert cmd(r, "XADD", "f", "*", "a", "1") == b"100000000000000-0"
    assert cmd(r, "XADD", "f", "100000000000000-*", "a", "1") == b"100000000000000-1"


def test_xadd_last_possible_id(r):
    top = "%d-%d" % (U64, U64)
    assert cmd(r, "XADD", "s", top, "a", "1") == top.encode()
    assert err(r, "XADD", "s", top, "a", "1") == EXHAUSTED
    assert err(r, "XADD", "s", "*", "a", "1") == EXHAUSTED
    assert err(r, "XADD", "s", "%d-*" % U64, "a", "1") == EXHAUSTED
    assert err(r, "XADD", "s", "1-0", "a", "1") == EXHAUSTED
    assert cmd(r, "XADD", "t", str(U64), "a", "1") == b"%d-0" % U64
    assert cmd(r, "XADD", "t", "%d-*" % U64, "a", "1") == b"%d-1" % U64


def test_xadd_invalid_ids(r):
    cmd(r, "XADD", "s", "1-0", "a", "1")
    for bad in ["abc", "1-x", "-1", "1-", "-1-1", "1-1-1", "18446744073709551616",
                "1-18446744073709551616", "99999999999999999999-*", "*-1", "*-*", "-", "+",
                "(1", "", "3e1", "1.5", "$", ">"]:
        assert err(r, "XADD", "s", bad, "a", "1") == INVALID_ID, bad
        assert err(r, "XADD", "nokey", bad, "a", "1") == INVALID_ID, bad
    # an unknown option is taken for the ID
    assert err(r, "XADD", "s", "FOO", "100", "a", "1") == INVALID_ID
    assert cmd(r, "EXISTS", "nokey") == 0
    assert cmd(r, "XLEN", "s") == 1


def test_xadd_fields(r):
    assert err(r, "XADD", "s", "*", "a", "1", "b") == arity("xadd")
    assert err(r, "XADD", "s", "*", "a") == arity("xadd")
    assert err(r, "XADD", "s", "*") == arity("xadd")
    assert err(r, "XADD", "s") == arity("xadd")
    assert err(r, "XADD") == arity("xadd")
    assert err(r, "XADD", "s", "MAXLEN", "1", "*") == arity("xadd")
    assert err(r, "XADD", "s", "MAXLEN", "1", "*", "f") == arity("xadd")
    assert err(r, "XADD", "s", "MAXLEN") == arity("xadd")
    assert cmd(r, "EXISTS", "s") == 0
    # duplicate fields are kept, empty fields and values are fine, bytes are kept as they are
    assert cmd(r, "XADD", "s", "1-0", "f", "v", "f", "v2") == b"1-0"
    assert cmd(r, "XADD", "s", "2-0", "", "") == b"2-0"
    assert cmd(r, "XADD", "s", "3-0", b"\x00\xff", b"a\r\nb", "n", 12345) == b"3-0"
    # the ID ends the options: what follows is fields, whatever it says
    assert cmd(r, "XADD", "s", "4-0", "MAXLEN", "1", "NOMKSTREAM", "x") == b"4-0"
    assert cmd(r, "XRANGE", "s", "-", "+") == [
        e("1-0", "f", "v", "f", "v2"), e("2-0", "", ""),
        [b"3-0", [b"\x00\xff", b"a\r\nb", b"n", b"12345"]],
        e("4-0", "MAXLEN", "1", "NOMKSTREAM", "x")]
    big = b"x" * 100000
    assert cmd(r, "XADD", "s", "5-0", "big", big) == b"5-0"
    assert cmd(r, "XRANGE", "s", "5", "5") == [[b"5-0", [b"big", big]]]


def test_xadd_nomkstream(server, r):
    assert cmd(r, "XADD", "s", "NOMKSTREAM", "*", "a", "1") is None
    assert cmd(r, "XADD", "s", "nomkstream", "MAXLEN", 5, "1-0", "a", "1") is None
    assert cmd(r, "EXISTS", "s") == 0
    cmd(r, "XADD", "s", "1-0", "a", "1")
    assert cmd(r, "XADD", "s", "NOMKSTREAM", "2-0", "a", "2") == b"2-0"
    assert cmd(r, "XADD", "s", "NOMKSTREAM", "NOMKSTREAM", "3-0", "a", "3") == b"3-0"
    assert cmd(r, "XADD", "s", "NOMKSTREAM", "MAXLEN", "=", 1, "4-0", "a", "4") == b"4-0"
    assert cmd(r, "XRANGE", "s", "-", "+") == [e("4-0", "a", "4")]
    # an emptied stream still exists
    cmd(r, "XDEL", "s", "4-0")
    assert cmd(r, "XADD", "s", "NOMKSTREAM", "5-0", "a", "5") == b"5-0"
    with server.raw() as c:  # the RESP2 bytes of the nil
        c.send_command("XADD", "nokey", "NOMKSTREAM", "*", "a", "1")
        c.expect(NULL_BULK)


def test_xadd_maxlen_and_minid(r):
    for i in range(1, 6):
        cmd(r, "XADD", "s", "%d-0" % i, "f", "v%d" % i)
    assert cmd(r, "XADD", "s", "MAXLEN", 3, "6-0", "f", "v6") == b"6-0"
    assert cmd(r, "XRANGE", "s", "-", "+") == [e("4-0", "f", "v4"), e("5-0", "f", "v5"),
                                               e("6-0", "f", "v6")]
    assert cmd(r, "XADD", "s", "maxlen", "=", 2, "7-0", "f", "v7") == b"7-0"
    assert cmd(r, "XRANGE", "s", "-", "+") == [e("6-0", "f", "v6"), e("7-0", "f", "v7")]
    assert cmd(r, "XADD", "s", "MINID", 7, "8-0", "f", "v8") == b"8-0"
    assert cmd(r, "XRANGE", "s", "-", "+") == [e("7-0", "f", "v7"), e("8-0", "f", "v8")]
    assert cmd(r, "XADD", "s", "MINID", "=", "8-1", "9-0", "f", "v9") == b"9-0"
    assert cmd(r, "XRANGE", "s", "-", "+") == [e("9-0", "f", "v9")]
    # the new entry itself may be trimmed away: the ID is still returned, the key stays
    assert cmd(r, "XADD", "s", "MAXLEN", 0, "10-0", "f", "v") == b"10-0"
    assert cmd(r, "XADD", "s", "MINID", 100, "11-0", "f", "v") == b"11-0"
    assert cmd(r, "XLEN", "s") == 0
    assert cmd(r, "EXISTS", "s") == 1
    assert info(r, "s") == meta(0, "11-0", "0-0", 11, "0-0")
    # a MAXLEN already met trims nothing
    assert cmd(r, "XADD", "s", "MAXLEN", 5, "12-0", "f", "v") == b"12-0"
    assert cmd(r, "XADD", "s", "MAXLEN", 9223372036854775807, "13-0", "f", "v") == b"13-0"
    assert cmd(r, "XLEN", "s") == 2


def test_xadd_trim_errors(r):
    cmd(r, "XADD", "s", "1-0", "f", "v")
    cases = [
        (("MAXLEN", 1, "LIMIT", 10), LIMIT_NEEDS_APPROX),
        (("MAXLEN", "=", 1, "LIMIT", 10), LIMIT_NEEDS_APPROX),
        (("MINID", 1, "LIMIT", 10), LIMIT_NEEDS_APPROX),
        (("LIMIT", 5), LIMIT_NEEDS_STRATEGY),
        (("MAXLEN", 1, "MINID", 2), MAXLEN_AND_MINID),
        (("MAXLEN", -1), MAXLEN_NEGATIVE),
        (("MAXLEN", "abc"), NOT_INT),
        (("MAXLEN", "9223372036854775808"), NOT_INT),
        (("MAXLEN", "~", 1, "LIMIT", -1), LIMIT_NEGATIVE),
        (("MAXLEN", "~", 1, "LIMIT", "abc"), NOT_INT),
        (("MINID", "abc"), INVALID_ID),
        (("MINID", "~", "abc"), INVALID_ID),
        (("MINID", "-"), INVALID_ID),
        (("MINID", "+"), INVALID_ID),
        (("MINID", "5-*"), INVALID_ID),
    ]
    for opts, want in cases:
        assert err(r, "XADD", "s", *opts, "*", "f", "v") == want, opts
        assert err(r, "XADD", "nokey", *opts, "*", "f", "v") == want, opts
    assert cmd(r, "XLEN", "s") == 1
    assert cmd(r, "EXISTS", "nokey") == 0


def test_xadd_approximate_trim(r):
    pipe = r.pipeline(transaction=False)
    for i in range(1, 251):
        pipe.execute_command("XADD", "s", "%d-0" % i, "f", "v")
    pipe.execute()
    # LIMIT 0 with ~ is no limit; ~ never trims below the threshold
    assert cmd(r, "XADD", "s", "MAXLEN", "~", 10, "LIMIT", 0, "251-0", "f", "v") == b"251-0"
    n = cmd(r, "XLEN", "s")
    assert 10 <= n <= 251
    ids = [x[0] for x in cmd(r, "XRANGE", "s", "-", "+")]
    assert ids == [b"%d-0" % i for i in range(252 - n, 252)]  # the oldest ones went
    assert cmd(r, "XADD", "s", "MINID", "~", 300, "LIMIT", 5, "252-0", "f", "v") == b"252-0"
    m = cmd(r, "XLEN", "s")
    assert n + 1 - 5 <= m <= n + 1


# ---- XRANGE / XREVRANGE --------------------------------------------------------------------------

def test_xrange(r):
    five(r)
    cmd(r, "XADD", "s", "9-%d" % U64, "f", "v6")
    six = FIVE + [e("9-%d" % U64, "f", "v6")]
    assert cmd(r, "XRANGE", "s", "-", "+") == six
    assert cmd(r, "xrange", "s", "0", str(U64)) == six
    assert cmd(r, "XRANGE", "s", "0-0", "%d-%d" % (U64, U64)) == six
    # incomplete IDs: ms-0 as a start, ms-<max> as an end
    assert cmd(r, "XRANGE", "s", "5", "5") == six[3:5]
    assert cmd(r, "XRANGE", "s", "2", "9") == six[2:]
    assert cmd(r, "XRANGE", "s", "1", "1") == six[:2]
    assert cmd(r, "XRANGE", "s", "5-7", "5-7") == six[4:5]
    assert cmd(r, "XRANGE", "s", "5-1", "5-6") == []
    assert cmd(r, "XRANGE", "s", "3", "4") == []
    assert cmd(r, "XRANGE", "s", "9-%d" % U64, "+") == six[5:]
    assert cmd(r, "XRANGE", "s", "00001-00001", "0002") == six[1:3]
    # exclusive ranges
    assert cmd(r, "XRANGE", "s", "(1-0", "+") == six[1:]
    assert cmd(r, "XRANGE", "s", "(1", "+") == six[1:]  # (1 is after 1-0
    assert cmd(r, "XRANGE", "s", "-", "(5-7") == six[:4]
    assert cmd(r, "XRANGE", "s", "-", "(5") == six[:5]  # (5 is before 5-<max>
    assert cmd(r, "XRANGE", "s", "(1-1", "(5-0") == six[2:3]
    assert cmd(r, "XRANGE", "s", "(0-0", "1") == six[:2]
    assert cmd(r, "XRANGE", "s", "(5-7", "5-7") == []
    assert cmd(r, "XRANGE", "s", "(9-%d" % U64, "+") == []
    # empty and reversed ranges
    assert cmd(r, "XRANGE", "s", "+", "-") == []
    assert cmd(r, "XRANGE", "s", "5", "1") == []
    assert cmd(r, "XRANGE", "s", str(U64), "+") == []
    assert cmd(r, "XRANGE", "nokey", "-", "+") == []


def test_xrange_count(server, r):
    five(r)
    assert cmd(r, "XRANGE", "s", "-", "+", "COUNT", 2) == FIVE[:2]
    assert cmd(r, "XRANGE", "s", "-", "+", "count", 1) == FIVE[:1]
    assert cmd(r, "XRANGE", "s", "2", "+", "COUNT", 100) == FIVE[2:]
    assert cmd(r, "XRANGE", "s", "-", "+", "COUNT", 9223372036854775807) == FIVE
    assert cmd(r, "XRANGE", "s", "-", "+", "COUNT", 1, "COUNT", 3) == FIVE[:3]  # the last wins
    # COUNT 0 and negative counts: a null array (a missing key still gives an empty one)
    assert cmd(r, "XRANGE", "s", "-", "+", "COUNT", 0) is None
    assert cmd(r, "XRANGE", "s", "-", "+", "COUNT", -1) is None
    assert cmd(r, "XRANGE", "s", "-", "+", "COUNT", 1, "COUNT", 0) is None
    assert cmd(r, "XREVRANGE", "s", "+", "-", "COUNT", 0) is None
    assert cmd(r, "XRANGE", "nokey", "-", "+", "COUNT", 0) == []
    assert cmd(r, "XREVRANGE", "s", "+", "-", "COUNT", 2) == [FIVE[4], FIVE[3]]
    assert cmd(r, "XREVRANGE", "s", "(5-7", "-", "COUNT", 2) == [FIVE[3], FIVE[2]]
    assert cmd(r, "XRANGE", "s", "(2-0", "+", "COUNT", 1) == FIVE[3:4]
    with server.raw() as c:
        c.send_command("XRANGE", "s", "-", "+", "COUNT", 0)
        c.expect(NULL_ARRAY)


def test_xrevrange(r):
    five(r)
    rev = FIVE[::-1]
    assert cmd(r, "XREVRANGE", "s", "+", "-") == rev
    assert cmd(r, "XREVRANGE", "s", "5", "5") == [FIVE[4], FIVE[3]]
    assert cmd(r, "XREVRANGE", "s", "(5-7", "-") == rev[1:]
    assert cmd(r, "XREVRANGE", "s", "+", "(5-0") == rev[:1]
    assert cmd(r, "XREVRANGE", "s", "(5", "(1") == rev[:4]  # below 5-<max>, above 1-0
    assert cmd(r, "XREVRANGE", "s", "(5-0", "(1-1") == [FIVE[2]]
    assert cmd(r, "XREVRANGE", "s", "2", "1-1") == [FIVE[2], FIVE[1]]
    assert cmd(r, "XREVRANGE", "s", "-", "+") == []
    assert cmd(r, "XREVRANGE", "s", "1", "5") == []
    assert cmd(r, "XREVRANGE", "s", "(5", "(5") == [FIVE[4]]  # 5-1 .. 5-<max - 1>
    assert cmd(r, "XRANGE", "s", "(5", "(5") == [FIVE[4]]
    assert cmd(r, "XREVRANGE", "s", "(5-7", "(5-0") == []
    assert cmd(r, "XREVRANGE", "nokey", "+", "-") == []


def test_range_errors(r):
    five(r)
    for name, lo_hi in (("XRANGE", lambda a, b: (a, b)), ("XREVRANGE", lambda a, b: (b, a))):
        for bad in ["abc", "(", "(-", "(+", "1-*", "*", "1-2-3", "1-", "-1", "$", "3e1",
                    "1-18446744073709551616", "18446744073709551616"]:
            assert err(r, name, "s", *lo_hi(bad, "+")) == INVALID_ID, (name, bad)
            assert err(r, name, "s", *lo_hi("-", bad)) == INVALID_ID, (name, bad)
            assert err(r, name, "nokey", *lo_hi(bad, "+")) == INVALID_ID, (name, bad)
        assert err(r, name, "s", *lo_hi("-", "+"), "COUNT") == SYNTAX
        assert err(r, name, "s", *lo_hi("-", "+"), "COUNT", "abc") == NOT_INT
        assert err(r, name, "s", *lo_hi("-", "+"), "COUNT", "9223372036854775808") == NOT_INT
        assert err(r, name, "s", *lo_hi("-", "+"), "FOO", 1) == SYNTAX
        assert err(r, name, "s", *lo_hi("-", "+"), "COUNT", 1, "x") == SYNTAX
        assert err(r, name, "s", "-") == arity(name.lower())
        assert err(r, name, "s") == arity(name.lower())
    # an exclusive bound that has nowhere to go
    assert err(r, "XRANGE", "s", "-", "(0-0") == BAD_END
    assert err(r, "XRANGE", "s", "(%d-%d" % (U64, U64), "+") == BAD_START
    assert err(r, "XREVRANGE", "s", "(0-0", "-") == BAD_END
    assert err(r, "XREVRANGE", "s", "+", "(%d-%d" % (U64, U64)) == BAD_START
    assert err(r, "XRANGE", "nokey", "-", "(0-0") == BAD_END


# ---- XLEN / XDEL ---------------------------------------------------------------------------------

def test_xlen(r):
    assert cmd(r, "XLEN", "nokey") == 0
    five(r)
    assert cmd(r, "XLEN", "s") == 5
    assert err(r, "XLEN") == arity("xlen")
    assert err(r, "XLEN", "s", "s") == arity("xlen")


def test_xdel(r):
    five(r)
    assert cmd(r, "XDEL", "s", "1-1", "1-1", "9-0", "2") == 2  # 2 is 2-0; repeats count once
    assert cmd(r, "XRANGE", "s", "-", "+") == [FIVE[0], FIVE[3], FIVE[4]]
    assert cmd(r, "XDEL", "s", "1-1") == 0
    assert cmd(r, "XDEL", "nokey", "1-0") == 0
    assert cmd(r, "XDEL", "nokey", "abc") == 0  # a missing key is not parsed further
    assert err(r, "XDEL", "s", "abc") == INVALID_ID
    assert err(r, "XDEL", "s", "5-7", "abc") == INVALID_ID  # nothing is deleted
    assert err(r, "XDEL", "s", "-") == INVALID_ID
    assert err(r, "XDEL", "s", "5-*") == INVALID_ID
    assert err(r, "XDEL", "s") == arity("xdel")
    assert cmd(r, "XLEN", "s") == 3
    # deleting the first entry moves recorded-first-entry-id; max-deleted-entry-id is the
    # largest ID XDEL removed
    assert cmd(r, "XDEL", "s", "1-0") == 1
    assert info(r, "s") == meta(2, "5-7", "2-0", 5, "5-0", FIVE[3], FIVE[4])
    assert cmd(r, "XDEL", "s", "5-7") == 1
    assert info(r, "s") == meta(1, "5-7", "5-7", 5, "5-0", FIVE[3], FIVE[3])
    # the key stays when emptied, and new IDs must still be above the last one generated
    assert cmd(r, "XDEL", "s", "5-0") == 1
    assert cmd(r, "EXISTS", "s") == 1
    assert cmd(r, "XLEN", "s") == 0
    assert info(r, "s") == meta(0, "5-7", "5-7", 5, "0-0")
    assert err(r, "XADD", "s", "5-7", "a", "b") == TOP_ITEM
    assert cmd(r, "XADD", "s", "5-8", "a", "b") == b"5-8"
    assert info(r, "s") == meta(1, "5-8", "5-7", 6, "5-8", e("5-8", "a", "b"), e("5-8", "a", "b"))


# ---- XTRIM ---------------------------------------------------------------------------------------

def test_xtrim_exact(r):
    for i in range(1, 6):
        cmd(r, "XADD", "s", "%d-0" % i, "f", "v%d" % i)
    assert cmd(r, "XTRIM", "s", "MAXLEN", 3) == 2
    assert cmd(r, "XRANGE", "s", "-", "+") == [e("%d-0" % i, "f", "v%d" % i) for i in (3, 4, 5)]
    assert cmd(r, "XTRIM", "s", "MAXLEN", "=", 3) == 0
    assert cmd(r, "XTRIM", "s", "maxlen", 100) == 0
    assert cmd(r, "XTRIM", "s", "MINID", 4) == 1
    assert cmd(r, "XTRIM", "s", "MINID", 4) == 0
    assert cmd(r, "XTRIM", "s", "minid", "=", "4-1") == 1
    # trimming leaves max-deleted-entry-id alone
    assert info(r, "s") == meta(1, "5-0", "0-0", 5, "5-0", e("5-0", "f", "v5"),
                                e("5-0", "f", "v5"))
    assert cmd(r, "XTRIM", "s", "MAXLEN", 0) == 1
    assert cmd(r, "EXISTS", "s") == 1
    assert info(r, "s") == meta(0, "5-0", "0-0", 5, "0-0")
    assert cmd(r, "XTRIM", "s", "MAXLEN", 0) == 0
    assert cmd(r, "XTRIM", "nokey", "MAXLEN", 0) == 0
    assert cmd(r, "XTRIM", "nokey", "MINID", "~", 5, "LIMIT", 3) == 0
    assert cmd(r, "EXISTS", "nokey") == 0
    assert cmd(r, "XTRIM", "s", "MAXLEN", 9223372036854775807) == 0


def test_xtrim_minid_between_entries(r):
    five(r)
    assert cmd(r, "XTRIM", "s", "MINID", "1-1") == 1
    assert cmd(r, "XTRIM", "s", "MINID", "5-3") == 3  # 1-1, 2-0, 5-0
    assert cmd(r, "XRANGE", "s", "-", "+") == FIVE[4:]
    assert cmd(r, "XTRIM", "s", "MINID", "%d-%d" % (U64, U64)) == 1
    assert cmd(r, "XLEN", "s") == 0


def test_xtrim_errors(r):
    cmd(r, "XADD", "s", "1-0", "f", "v")
    cases = [
        (("MAXLEN", 1, "LIMIT", 10), LIMIT_NEEDS_APPROX),
        (("MAXLEN", "=", 1, "LIMIT", 10), LIMIT_NEEDS_APPROX),
        (("MINID", 1, "LIMIT", 10), LIMIT_NEEDS_APPROX),
        (("LIMIT", 10), LIMIT_NEEDS_STRATEGY),
        (("MAXLEN", 1, "MINID", 1), MAXLEN_AND_MINID),
        (("MAXLEN", 1, "MAXLEN", 2), MAXLEN_AND_MINID),  # two strategies, even the same one
        (("MAXLEN", -1), MAXLEN_NEGATIVE),
        (("MAXLEN", "abc"), NOT_INT),
        (("MAXLEN", "~"), NOT_INT),  # the ~ is read as the threshold
        (("MAXLEN", "="), NOT_INT),
        (("MAXLEN", "9223372036854775808"), NOT_INT),
        (("MAXLEN", "~", 1, "LIMIT", -1), LIMIT_NEGATIVE),
        (("MAXLEN", "~", 1, "LIMIT"), SYNTAX),
        (("MINID", "abc"), INVALID_ID),
        (("MINID", "-"), INVALID_ID),
        (("MINID", "+"), INVALID_ID),
        (("MINID", "(5"), INVALID_ID),
        (("FOO", 1), SYNTAX),
        (("MAXLEN", 1, "FOO"), SYNTAX),
        (("MAXLEN", 1, "NOMKSTREAM"), SYNTAX),
    ]
    for opts, want in cases:
        assert err(r, "XTRIM", "s", *opts) == want, opts
    assert err(r, "XTRIM", "s") == arity("xtrim")
    assert err(r, "XTRIM", "s", "MAXLEN") == arity("xtrim")
    assert cmd(r, "XLEN", "s") == 1


def test_xtrim_approximate(r):
    """~ trims at most down to the threshold and at most LIMIT entries (LIMIT 0: no limit),
    always the oldest ones. Redis 7.0.15 removes whole 100-entry nodes here: 250 entries with
    MAXLEN ~ 10 LIMIT 50 remove 0, LIMIT 150 removes 100, no LIMIT removes 100 more."""
    pipe = r.pipeline(transaction=False)
    for i in range(1, 251):
        pipe.execute_command("XADD", "s", "%d-0" % i, "f", "v")
    pipe.execute()
    length = 250

    def check(removed, threshold, limit=None):
        nonlocal length
        assert 0 <= removed <= length - threshold
        if limit:
            assert removed <= limit
        length -= removed
        assert cmd(r, "XLEN", "s") == length
        ids = [x[0] for x in cmd(r, "XRANGE", "s", "-", "+")]
        assert ids == [b"%d-0" % i for i in range(251 - length, 251)]

    check(cmd(r, "XTRIM", "s", "MAXLEN", "~", 10, "LIMIT", 50), 10, 50)
    check(cmd(r, "XTRIM", "s", "MAXLEN", "~", 10, "LIMIT", 150), 10, 150)
    check(cmd(r, "XTRIM", "s", "MAXLEN", "~", 10), 10)
    assert cmd(r, "XTRIM", "s", "MAXLEN", "~", length) == 0  # already there
    assert cmd(r, "XTRIM", "s", "MAXLEN", "~", 1000) == 0
    removed = cmd(r, "XTRIM", "s", "MINID", "~", "240", "LIMIT", 0)
    assert 0 <= removed <= 239 - (250 - length)
    check(removed, 0)
    assert cmd(r, "XTRIM", "s", "MINID", "~", "1") == 0
    # exact trimming finishes the job
    assert cmd(r, "XTRIM", "s", "MAXLEN", 10) == length - 10
    length = 10
    check(0, 10)
    assert info(r, "s")["entries-added"] == 250
    assert info(r, "s")["max-deleted-entry-id"] == b"0-0"


# ---- XSETID --------------------------------------------------------------------------------------

def test_xsetid(r):
    for i in (1, 2, 3):
        cmd(r, "XADD", "s", "%d-0" % i, "f", "v%d" % i)
    first, last = e("1-0", "f", "v1"), e("3-0", "f", "v3")
    assert cmd(r, "XSETID", "s", "5-0") == b"OK"
    assert info(r, "s") == meta(3, "5-0", "0-0", 3, "1-0", first, last)
    assert err(r, "XADD", "s", "5-0", "a", "b") == TOP_ITEM
    # checked against the top entry, not the last generated ID: it may go down to the entry
    assert cmd(r, "XSETID", "s", "4-0") == b"OK"
    assert cmd(r, "XSETID", "s", "3-0") == b"OK"
    assert cmd(r, "XSETID", "s", "3") == b"OK"  # 3-0
    assert err(r, "XSETID", "s", "2-9") == SETID_TOP
    assert info(r, "s")["last-generated-id"] == b"3-0"
    assert cmd(r, "XADD", "s", "3-*", "a", "b") == b"3-1"
    assert cmd(r, "XSETID", "s", "10-0", "ENTRIESADDED", 10, "MAXDELETEDID", "4-0") == b"OK"
    assert info(r, "s") == meta(4, "10-0", "4-0", 10, "1-0", first, e("3-1", "a", "b"))
    assert cmd(r, "XSETID", "s", "10-0", "entriesadded", 4) == b"OK"  # the length is enough
    assert cmd(r, "XSETID", "s", "10-0", "maxdeletedid", "10-0") == b"OK"
    # MAXDELETEDID 0-0 is taken for "not given": it leaves the stored one alone
    assert cmd(r, "XSETID", "s", "10-0", "MAXDELETEDID", "0-0") == b"OK"
    assert cmd(r, "XSETID", "s", "10-0", "ENTRIESADDED", 8, "ENTRIESADDED", 7) == b"OK"
    assert info(r, "s") == meta(4, "10-0", "10-0", 7, "1-0", first, e("3-1", "a", "b"))
    assert cmd(r, "XSETID", "s", "10-0", "MAXDELETEDID", "0-1") == b"OK"  # it may go down
    assert info(r, "s")["max-deleted-entry-id"] == b"0-1"
    assert cmd(r, "XSETID", "s", "11-0", "MAXDELETEDID", "9") == b"OK"
    # the stored max-deleted-entry-id does not bound the new ID
    assert cmd(r, "XSETID", "s", "3-5") == b"OK"
    assert info(r, "s") == meta(4, "3-5", "9-0", 7, "1-0", first, e("3-1", "a", "b"))
    assert cmd(r, "XADD", "s", "*", "a", "b").endswith(b"-0")


def test_xsetid_on_an_empty_stream(r):
    for i in (1, 2, 3):
        cmd(r, "XADD", "s", "%d-0" % i, "f", "v%d" % i)
    assert cmd(r, "XTRIM", "s", "MAXLEN", 0) == 3
    # no entry to compare with: any ID goes, and any ENTRIESADDED
    assert cmd(r, "XSETID", "s", "1-0", "ENTRIESADDED", 0) == b"OK"
    assert info(r, "s") == meta(0, "1-0", "0-0", 0, "0-0")
    assert cmd(r, "XADD", "s", "1-*", "a", "b") == b"1-1"
    assert cmd(r, "XDEL", "s", "1-1") == 1
    assert cmd(r, "XSETID", "s", "0-5") == b"OK"
    assert info(r, "s") == meta(0, "0-5", "1-1", 1, "0-0")
    assert cmd(r, "XADD", "s", "0-*", "a", "b") == b"0-6"


def test_xsetid_errors(r):
    for i in (1, 2, 3):
        cmd(r, "XADD", "s", "%d-0" % i, "f", "v%d" % i)
    cases = [
        (("2-0",), SETID_TOP),
        (("5-0", "ENTRIESADDED", 2), SETID_ENTRIES),
        (("5-0", "ENTRIESADDED", 0), SETID_ENTRIES),
        (("5-0", "ENTRIESADDED", -1), ENTRIES_POSITIVE),
        (("5-0", "ENTRIESADDED", "abc"), NOT_INT),
        (("5-0", "ENTRIESADDED", "9223372036854775808"), NOT_INT),
        (("5-0", "MAXDELETEDID", "6-0"), SETID_MAXDEL),
        (("5-0", "MAXDELETEDID", "abc"), INVALID_ID),
        (("5-0", "MAXDELETEDID", "-"), INVALID_ID),
        (("5-0", "ENTRIESADDED"), SYNTAX),
        (("5-0", "MAXDELETEDID"), SYNTAX),
        (("5-0", "FOO", 1), SYNTAX),
        (("5-0", "FOO"), SYNTAX),
        (("5-0", "ENTRIESADDED", 5, "FOO"), SYNTAX),
        (("abc",), INVALID_ID),
        (("*",), INVALID_ID),
        (("6-*",), INVALID_ID),
        (("-",), INVALID_ID),
        (("+",), INVALID_ID),
        (("(5",), INVALID_ID),
        # options are checked left to right, all before the key
        (("6-0", "MAXDELETEDID", "7-0", "ENTRIESADDED", "abc"), SETID_MAXDEL),
        (("6-0", "ENTRIESADDED", "abc", "MAXDELETEDID", "7-0"), NOT_INT),
        (("2-0", "ENTRIESADDED", 9223372036854775807), SETID_TOP),
    ]
    for args, want in cases:
        assert err(r, "XSETID", "s", *args) == want, args
    assert info(r, "s") == meta(3, "3-0", "0-0", 3, "1-0", e("1-0", "f", "v1"),
                                e("3-0", "f", "v3"))
    assert err(r, "XSETID", "nokey", "1-0") == NO_KEY
    assert err(r, "XSETID", "nokey", "1-0", "ENTRIESADDED", 5) == NO_KEY
    assert err(r, "XSETID", "nokey", "abc") == INVALID_ID
    assert err(r, "XSETID", "nokey", "6-0", "MAXDELETEDID", "7-0") == SETID_MAXDEL
    assert err(r, "XSETID", "nokey", "6-0", "ENTRIESADDED", -1) == ENTRIES_POSITIVE
    assert cmd(r, "EXISTS", "nokey") == 0
    assert err(r, "XSETID", "s") == arity("xsetid")


# ---- XREAD ---------------------------------------------------------------------------------------

def test_xread(server, r):
    cmd(r, "XADD", "a", "1-0", "f", "a1")
    cmd(r, "XADD", "a", "2-0", "f", "a2")
    cmd(r, "XADD", "b", "1-5", "f", "b1")
    a1, a2, b1 = e("1-0", "f", "a1"), e("2-0", "f", "a2"), e("1-5", "f", "b1")
    assert cmd(r, "XREAD", "STREAMS", "a", "b", 0, 0) == [[b"a", [a1, a2]], [b"b", [b1]]]
    assert cmd(r, "XREAD", "COUNT", 1, "STREAMS", "a", "b", 0, 0) == [[b"a", [a1]], [b"b", [b1]]]
    assert cmd(r, "xread", "count", 1, "streams", "a", "0-0") == [[b"a", [a1]]]
    # the ID is exclusive; streams with nothing newer are left out
    assert cmd(r, "XREAD", "STREAMS", "a", "b", "1", "1-5") == [[b"a", [a2]]]
    assert cmd(r, "XREAD", "STREAMS", "a", "b", "1-0", "1-4") == [[b"a", [a2]], [b"b", [b1]]]
    assert cmd(r, "XREAD", "STREAMS", "a", "b", "2", "1-5") is None
    assert cmd(r, "XREAD", "STREAMS", "a", "b", "$", "$") is None
    assert cmd(r, "XREAD", "STREAMS", "a", "%d-%d" % (U64, U64)) is None
    assert cmd(r, "XREAD", "STREAMS", "a", "nokey", 0, 0) == [[b"a", [a1, a2]]]
    assert cmd(r, "XREAD", "STREAMS", "nokey", "a", "$", "1") == [[b"a", [a2]]]
    assert cmd(r, "XREAD", "STREAMS", "nokey", 0) is None
    assert cmd(r, "XREAD", "STREAMS", "nokey", "$") is None
    # COUNT 0 or negative: no limit; the last COUNT wins
    assert cmd(r, "XREAD", "COUNT", 0, "STREAMS", "a", 0) == [[b"a", [a1, a2]]]
    assert cmd(r, "XREAD", "COUNT", -1, "STREAMS", "a", 0) == [[b"a", [a1, a2]]]
    assert cmd(r, "XREAD", "COUNT", 1, "COUNT", 2, "STREAMS", "a", 0) == [[b"a", [a1, a2]]]
    # the same key twice is read twice
    assert cmd(r, "XREAD", "STREAMS", "a", "a", 0, 1) == [[b"a", [a1, a2]], [b"a", [a2]]]
    # a key named STREAMS
    assert cmd(r, "XREAD", "STREAMS", "STREAMS", 0) is None
    # an emptied stream reads like a missing one
    cmd(r, "XDEL", "b", "1-5")
    assert cmd(r, "XREAD", "STREAMS", "b", 0) is None
    with server.raw() as c:
        c.send_command("XREAD", "STREAMS", "a", "$")
        c.expect(NULL_ARRAY)


def test_xread_many_keys(r):
    """Keys under many names (spread over slotkv's workers), some missing, some read from $."""
    rand = rng("test_xread_many_keys")
    keys = ["stream:%d:%s" % (i, "x" * (i % 7)) for i in range(40)]
    model = {}
    pipe = r.pipeline(transaction=False)
    for i, key in enumerate(keys):
        if i % 5 == 4:
            continue  # missing
        n = rand.randint(1, 6)
        model[key] = []
        for j in range(n):
            entry_id = "%d-%d" % (10 + j, i)
            pipe.execute_command("XADD", key, entry_id, "k", key, "j", j)
            model[key].append(e(entry_id, "k", key, "j", str(j)))
    pipe.execute()
    assert cmd(r, "XREAD", "STREAMS", *keys, *([0] * len(keys))) == [
        [k.encode(), model[k]] for k in keys if k in model]
    assert cmd(r, "XREAD", "COUNT", 2, "STREAMS", *keys, *(["0-0"] * len(keys))) == [
        [k.encode(), model[k][:2]] for k in keys if k in model]
    # after 11-<key index>: only keys with a third entry; $ keys give nothing
    ids = ["$" if i % 3 == 0 else "11-%d" % i for i in range(len(keys))]
    want = [[k.encode(), model[k][2:]] for i, k in enumerate(keys)
            if k in model and i % 3 != 0 and len(model[k]) > 2]
    assert cmd(r, "XREAD", "STREAMS", *keys, *ids) == (want or None)
    assert cmd(r, "XREAD", "STREAMS", *keys, *(["$"] * len(keys))) is None


def test_xread_errors(r):
    cmd(r, "XADD", "a", "1-0", "f", "v")
    assert err(r, "XREAD", "STREAMS", "a", "b", 0) == UNBALANCED
    assert err(r, "XREAD", "STREAMS", "a", "b", "c", 0, 0) == UNBALANCED
    assert err(r, "XREAD", "COUNT", 1, "STREAMS", "a", "b", 0) == UNBALANCED
    assert err(r, "XREAD", "STREAMS", "a") == arity("xread")
    assert err(r, "XREAD", "STREAMS") == arity("xread")
    assert err(r, "XREAD") == arity("xread")
    assert err(r, "XREAD", "COUNT", 1) == arity("xread")
    assert err(r, "XREAD", "COUNT", 1, "STREAMS") == SYNTAX
    assert err(r, "XREAD", "FOO", "STREAMS", "a", 0) == SYNTAX
    assert err(r, "XREAD", "COUNT", "abc", "STREAMS", "a", 0) == NOT_INT
    assert err(r, "XREAD", "COUNT", "STREAMS", "a", 0) == NOT_INT
    for bad in ["abc", "-", "+", "(1-0", "1-*", "*", "1-2-3"]:
        assert err(r, "XREAD", "STREAMS", "a", bad) == INVALID_ID, bad
        assert err(r, "XREAD", "STREAMS", "nokey", bad) == INVALID_ID, bad
    assert err(r, "XREAD", "STREAMS", "a", ">") == GT_NEEDS_GROUP
    # options after STREAMS are keys and IDs
    assert err(r, "XREAD", "STREAMS", "a", "b", 0, 0, "COUNT", 1) == INVALID_ID
    assert err(r, "XREAD", "NOACK", "STREAMS", "a", 0) == NOACK_NEEDS_GROUP
    assert err(r, "XREAD", "GROUP", "g", "c", "STREAMS", "a", 0) == GROUP_NEEDS_GROUP
    assert err(r, "XREAD", "BLOCK", "abc", "STREAMS", "a", 0) == TIMEOUT_NOT_INT
    assert err(r, "XREAD", "BLOCK", "1.5", "STREAMS", "a", 0) == TIMEOUT_NOT_INT
    assert err(r, "XREAD", "BLOCK", -1, "STREAMS", "a", 0) == TIMEOUT_NEGATIVE


# ---- XREAD BLOCK ---------------------------------------------------------------------------------

def _blocked_xread(r):
    """How many clients CLIENT LIST shows blocked (flags containing b) in xread."""
    n = 0
    for line in cmd(r, "CLIENT", "LIST").split(b"\n"):
        fields = dict(p.split(b"=", 1) for p in line.split(b" ") if b"=" in p)
        if fields.get(b"cmd") == b"xread" and b"b" in fields.get(b"flags", b""):
            n += 1
    return n


def wait_blocked(r, n=1):
    """Until n clients are blocked in XREAD; a server whose CLIENT LIST never shows that gets a
    0.2 s grace instead."""
    if not wait_until(lambda: _blocked_xread(r) >= n, timeout=1.0):
        time.sleep(0.2)


class BlockedRead:
    """An XREAD run in a thread on its own connection; .result is its reply (or exception)."""

    def __init__(self, server, *args):
        self.client = server.client(socket_timeout=10)
        self.result = None
        self.thread = threading.Thread(target=self._run, args=args, daemon=True)
        self.thread.start()

    def _run(self, *args):
        try:
            self.result = self.client.execute_command("XREAD", *args)
        except Exception as ex:  # noqa: BLE001
            self.result = ex

    def join(self, timeout=5.0):
        self.thread.join(timeout)
        try:
            assert not self.thread.is_alive(), "XREAD still blocked"
            return self.result
        finally:
            self.client.connection_pool.disconnect()


def test_xread_block_woken_by_xadd(server, r):
    cmd(r, "XADD", "s", "1-0", "f", "old")
    reader = BlockedRead(server, "BLOCK", 5000, "STREAMS", "s", "$")
    wait_blocked(r)
    assert cmd(r, "XADD", "s", "2-0", "f", "new") == b"2-0"
    assert reader.join() == [[b"s", [e("2-0", "f", "new")]]]


def test_xread_block_0_on_a_missing_key(server, r):
    reader = BlockedRead(server, "BLOCK", 0, "STREAMS", "s", "$")
    wait_blocked(r)
    assert cmd(r, "XADD", "s", "7-1", "f", "v") == b"7-1"
    assert reader.join() == [[b"s", [e("7-1", "f", "v")]]]


def test_xread_block_several_keys_and_readers(server, r):
    cmd(r, "XADD", "{a}s", "1-0", "f", "v")
    one = BlockedRead(server, "BLOCK", 5000, "STREAMS", "{a}s", "{b}s", "$", "$")
    two = BlockedRead(server, "BLOCK", 5000, "COUNT", 1, "STREAMS", "{b}s", "0")
    wait_blocked(r, 2)
    cmd(r, "MULTI")
    cmd(r, "XADD", "{b}s", "3-0", "f", "x")
    cmd(r, "XADD", "{b}s", "4-0", "f", "y")
    assert cmd(r, "EXEC") == [b"3-0", b"4-0"]
    assert one.join() == [[b"{b}s", [e("3-0", "f", "x"), e("4-0", "f", "y")]]]
    assert two.join() == [[b"{b}s", [e("3-0", "f", "x")]]]


def test_xread_block_waits_for_an_id_above_its_own(server, r):
    cmd(r, "XADD", "s", "5-0", "f", "v")
    reader = BlockedRead(server, "BLOCK", 5000, "STREAMS", "s", "100-0")
    wait_blocked(r)
    cmd(r, "XADD", "s", "6-0", "f", "v")  # not above 100-0: stays blocked
    time.sleep(0.1)
    assert reader.thread.is_alive()
    cmd(r, "XADD", "s", "101-0", "f", "w")
    assert reader.join() == [[b"s", [e("101-0", "f", "w")]]]


def test_xread_block_timeout(server, r):
    cmd(r, "XADD", "s", "1-0", "f", "v")
    start = time.monotonic()
    assert cmd(r, "XREAD", "BLOCK", 150, "STREAMS", "s", "nokey", "$", "$") is None
    elapsed = time.monotonic() - start
    assert 0.1 <= elapsed < 3, elapsed
    with server.raw() as c:
        start = time.monotonic()
        c.send_command("XREAD", "BLOCK", 100, "STREAMS", "s", "$")
        c.expect(NULL_ARRAY)
        assert time.monotonic() - start >= 0.07
    # data already there: no wait
    start = time.monotonic()
    assert cmd(r, "XREAD", "BLOCK", 0, "STREAMS", "s", 0) == [[b"s", [e("1-0", "f", "v")]]]
    assert cmd(r, "XREAD", "BLOCK", 10000, "STREAMS", "nokey", "s", "$", 0) == [
        [b"s", [e("1-0", "f", "v")]]]
    assert time.monotonic() - start < 2


def test_xread_block_in_multi_does_not_block(server, r):
    cmd(r, "XADD", "s", "1-0", "f", "v")
    with server.raw() as c:
        c.command("MULTI")
        assert c.command("XREAD", "BLOCK", 0, "STREAMS", "s", "$") == b"QUEUED"
        assert c.command("XREAD", "BLOCK", 0, "STREAMS", "s", 0) == b"QUEUED"
        c.send_command("EXEC")
        c.expect(b"*2\r\n*-1\r\n*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-0\r\n"
                 b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n")


# ---- XINFO STREAM --------------------------------------------------------------------------------

def test_xinfo_stream(server, r):
    five(r)
    assert info(r, "s") == meta(5, "5-7", "0-0", 5, "1-0", FIVE[0], FIVE[4])
    flat = cmd(r, "XINFO", "STREAM", "s")
    assert flat[0::2] == [b"length", b"radix-tree-keys", b"radix-tree-nodes",
                          b"last-generated-id", b"max-deleted-entry-id", b"entries-added",
                          b"recorded-first-entry-id", b"groups", b"first-entry", b"last-entry"]
    assert cmd(r, "XDEL", "s", "2-0") == 1
    assert info(r, "s") == meta(4, "5-7", "2-0", 5, "1-0", FIVE[0], FIVE[4])
    cmd(r, "XSETID", "s", "9-0")
    assert info(r, "s") == meta(4, "9-0", "2-0", 5, "1-0", FIVE[0], FIVE[4])
    cmd(r, "XDEL", "s", "1-0", "1-1", "5-0", "5-7")
    assert info(r, "s") == meta(0, "9-0", "5-7", 5, "0-0")
    with server.raw() as c:
        c.send_command("XINFO", "STREAM", "s")
        reply = c.read_reply()
        assert reply[-4:] == [b"first-entry", None, b"last-entry", None]
        c.send_command("XINFO", "STREAM", "s")
        assert c.read_available(1.0, settle=0.1).endswith(
            b"$11\r\nfirst-entry\r\n" + NULL_BULK + b"$10\r\nlast-entry\r\n" + NULL_BULK)


def test_xinfo_stream_errors(r):
    cmd(r, "XADD", "s", "1-0", "f", "v")
    assert err(r, "XINFO", "STREAM", "nokey") == NO_KEY
    assert err(r, "XINFO", "STREAM", "s", "FOO") == XINFO_STREAM_ARGS
    assert err(r, "XINFO", "STREAM") == arity("xinfo|stream")
    assert err(r, "XINFO") == arity("xinfo")
    assert err(r, "XINFO", "FOO") == "ERR unknown subcommand 'FOO'. Try XINFO HELP."


# ---- types and keys ------------------------------------------------------------------------------

def test_wrongtype(r):
    cmd(r, "SET", "str", "x")
    for args in [("XADD", "str", "*", "f", "v"), ("XADD", "str", "NOMKSTREAM", "*", "f", "v"),
                 ("XADD", "str", "MAXLEN", 1, "1-0", "f", "v"),
                 ("XRANGE", "str", "-", "+"), ("XRANGE", "str", "-", "+", "COUNT", 0),
                 ("XREVRANGE", "str", "+", "-"), ("XREVRANGE", "str", "+", "-", "COUNT", 0),
                 ("XLEN", "str"), ("XDEL", "str", "1-0"), ("XDEL", "str", "abc"),
                 ("XTRIM", "str", "MAXLEN", 1), ("XTRIM", "str", "MINID", "~", 1),
                 ("XSETID", "str", "1-0"), ("XREAD", "STREAMS", "str", 0),
                 ("XREAD", "STREAMS", "str", "$"), ("XREAD", "STREAMS", "str", "abc"),
                 ("XREAD", "BLOCK", 10, "STREAMS", "str", "$"),
                 ("XREAD", "COUNT", 1, "STREAMS", "nokey", "str", 0, 0),
                 ("XINFO", "STREAM", "str")]:
        assert err(r, *args) == WRONGTYPE, args
    # argument errors come first where the arguments are parsed before the lookup
    assert err(r, "XADD", "str", "abc", "f", "v") == INVALID_ID
    assert err(r, "XADD", "str", "0-0", "f", "v") == ZERO_ID
    assert err(r, "XADD", "str", "MAXLEN", "abc", "*", "f", "v") == NOT_INT
    assert err(r, "XRANGE", "str", "abc", "+") == INVALID_ID
    assert err(r, "XTRIM", "str", "MAXLEN", "abc") == NOT_INT
    assert err(r, "XSETID", "str", "abc") == INVALID_ID
    assert cmd(r, "GET", "str") == b"x"
    # and the other way round
    cmd(r, "XADD", "s", "1-0", "f", "v")
    for args in [("GET", "s"), ("LPUSH", "s", "x"), ("HSET", "s", "a", "b"), ("SADD", "s", "m"),
                 ("ZADD", "s", 1, "m"), ("APPEND", "s", "x"), ("LLEN", "s")]:
        assert err(r, *args) == WRONGTYPE, args
    assert cmd(r, "XLEN", "s") == 1


def test_type_and_generic_key_commands(r):
    five(r)
    cmd(r, "XDEL", "s", "2-0")
    cmd(r, "XSETID", "s", "10-0", "ENTRIESADDED", 7, "MAXDELETEDID", "5-0")
    entries = [FIVE[0], FIVE[1], FIVE[3], FIVE[4]]
    want = meta(4, "10-0", "5-0", 7, "1-0", FIVE[0], FIVE[4])
    assert cmd(r, "TYPE", "s") == b"stream"
    assert cmd(r, "EXISTS", "s", "nokey", "s") == 2
    assert cmd(r, "COPY", "s", "c") == 1
    assert cmd(r, "COPY", "s", "c") == 0
    assert cmd(r, "XRANGE", "c", "-", "+") == entries
    assert info(r, "c") == want
    assert cmd(r, "XADD", "c", "11-0", "f", "copy") == b"11-0"  # the copy is independent
    assert cmd(r, "XLEN", "s") == 4
    assert cmd(r, "RENAME", "c", "d") == b"OK"
    assert cmd(r, "EXISTS", "c", "d") == 1
    assert cmd(r, "TYPE", "d") == b"stream"
    assert cmd(r, "XRANGE", "d", "-", "+") == entries + [e("11-0", "f", "copy")]
    assert info(r, "d")["entries-added"] == 8
    assert cmd(r, "EXPIRE", "d", 100) == 1
    assert 0 < cmd(r, "TTL", "d") <= 100
    assert cmd(r, "XADD", "d", "12-0", "f", "v") == b"12-0"  # XADD keeps the TTL
    assert 0 < cmd(r, "TTL", "d") <= 100
    assert cmd(r, "PERSIST", "d") == 1
    assert cmd(r, "TTL", "d") == -1
    assert cmd(r, "PEXPIRE", "d", 50) == 1
    assert wait_until(lambda: cmd(r, "EXISTS", "d") == 0, timeout=3)
    assert cmd(r, "XLEN", "d") == 0
    assert cmd(r, "XRANGE", "d", "-", "+") == []
    assert cmd(r, "DEL", "s") == 1
    assert cmd(r, "EXISTS", "s") == 0
    assert cmd(r, "TYPE", "s") == b"none"
    assert cmd(r, "XADD", "s", "1-0", "a", "b") == b"1-0"  # a fresh stream: IDs start over
    assert info(r, "s")["entries-added"] == 1


def test_dump_restore_round_trip(r):
    five(r)
    cmd(r, "XDEL", "s", "2-0")
    cmd(r, "XSETID", "s", "10-0", "ENTRIESADDED", 7, "MAXDELETEDID", "5-0")
    pipe = r.pipeline(transaction=False)
    for i in range(250):  # several nodes, long values, many fields
        pipe.execute_command("XADD", "big", "%d-%d" % (1000 + i // 4, i % 4), "i", i,
                             "val", "x" * (i * 3), *sum([["g%d" % j, j] for j in range(i % 5)],
                                                        []))
    pipe.execute()
    cmd(r, "XDEL", "big", "1010-1", "1020-2")
    cmd(r, "XTRIM", "big", "MAXLEN", 240)
    for key in ("s", "big"):
        payload = cmd(r, "DUMP", key)
        assert isinstance(payload, bytes)
        assert cmd(r, "RESTORE", key + ":copy", 0, payload) == b"OK"
        assert cmd(r, "XRANGE", key + ":copy", "-", "+") == cmd(r, "XRANGE", key, "-", "+")
        assert info(r, key + ":copy") == info(r, key)
        assert cmd(r, "TYPE", key + ":copy") == b"stream"
        assert err(r, "RESTORE", key + ":copy", 0, payload) == "BUSYKEY Target key name " \
                                                                 "already exists."
        assert cmd(r, "RESTORE", key + ":copy", 0, payload, "REPLACE") == b"OK"
    assert info(r, "s:copy") == meta(4, "10-0", "5-0", 7, "1-0", FIVE[0], FIVE[4])
    # the restored stream goes on from its last ID
    assert err(r, "XADD", "s:copy", "10-0", "a", "b") == TOP_ITEM
    assert cmd(r, "XADD", "s:copy", "10-*", "a", "b") == b"10-1"
    assert cmd(r, "DUMP", "nokey") is None


def test_dump_restore_with_redis(r):
    """Stream payloads move both ways between the server and a real redis-server."""
    five(r)
    cmd(r, "XDEL", "s", "5-0")
    other = OwnRedis()
    try:
        o = other.client
        assert cmd(o, "RESTORE", "s", 0, cmd(r, "DUMP", "s")) == b"OK"
        assert cmd(o, "XRANGE", "s", "-", "+") == [FIVE[0], FIVE[1], FIVE[2], FIVE[4]]
        assert info(o, "s") == meta(4, "5-7", "5-0", 5, "1-0", FIVE[0], FIVE[4])
        for i in range(150):
            cmd(o, "XADD", "t", "%d-1" % (i + 1), "n", i, "pad", "p" * (i % 40))
        cmd(o, "XDEL", "t", "3-1")
        cmd(o, "XSETID", "t", "500-0", "ENTRIESADDED", 200)
        assert cmd(r, "RESTORE", "t", 0, cmd(o, "DUMP", "t")) == b"OK"
        assert cmd(r, "XRANGE", "t", "-", "+") == cmd(o, "XRANGE", "t", "-", "+")
        assert info(r, "t") == info(o, "t")
        assert info(r, "t")["entries-added"] == 200
    finally:
        other.cleanup()


# ---- RESP3 ---------------------------------------------------------------------------------------

def test_resp3(server, r):
    cmd(r, "XADD", "s", "1-0", "f", "v")
    cmd(r, "XADD", "s", "2-0", "f", "w", "g", "x")
    with server.raw() as c:
        assert c.command("HELLO", "3")[b"proto"] == 3
        got = c.command("XINFO", "STREAM", "s")
        assert isinstance(got, dict)
        assert isinstance(got.pop(b"radix-tree-keys"), int)
        assert isinstance(got.pop(b"radix-tree-nodes"), int)
        assert got == {b"length": 2, b"last-generated-id": b"2-0",
                       b"max-deleted-entry-id": b"0-0", b"entries-added": 2,
                       b"recorded-first-entry-id": b"1-0", b"groups": 0,
                       b"first-entry": [b"1-0", [b"f", b"v"]],
                       b"last-entry": [b"2-0", [b"f", b"w", b"g", b"x"]]}
        # entries stay arrays (fields too); XREAD is a map of key -> entries
        c.send_command("XRANGE", "s", "-", "+")
        c.expect(b"*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
                 b"*2\r\n$3\r\n2-0\r\n*4\r\n$1\r\nf\r\n$1\r\nw\r\n$1\r\ng\r\n$1\r\nx\r\n")
        c.send_command("XREAD", "STREAMS", "s", "nokey", "1", "0")
        c.expect(b"%1\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-0\r\n"
                 b"*4\r\n$1\r\nf\r\n$1\r\nw\r\n$1\r\ng\r\n$1\r\nx\r\n")
        for args in [("XRANGE", "s", "-", "+", "COUNT", 0), ("XREAD", "STREAMS", "s", "$"),
                     ("XREAD", "BLOCK", 50, "STREAMS", "s", "$"),
                     ("XADD", "nokey", "NOMKSTREAM", "*", "f", "v")]:
            c.send_command(*args)
            c.expect(b"_\r\n")
        c.send_command("XDEL", "s", "1-0", "2-0")
        c.expect(b":2\r\n")
        got = c.command("XINFO", "STREAM", "s")
        assert got[b"first-entry"] is None and got[b"last-entry"] is None
        assert got[b"max-deleted-entry-id"] == b"2-0"


# ---- a larger stream against a model -------------------------------------------------------------

def _range(model, lo, hi):
    return [x for x in model if lo <= x[0] <= hi]


def _bound(rand, ids, start):
    """A random range bound: (argument, inclusive lower/upper ID it means)."""
    kind = rand.randrange(5)
    ms, seq = rand.choice(ids)
    ms += rand.choice([-1, 0, 0, 1])
    ms = max(ms, 1)
    if kind == 0:
        return ("-", (0, 0)) if start else ("+", (U64, U64))
    if kind == 1:
        return "%d-%d" % (ms, seq), (ms, seq)
    if kind == 2:
        return str(ms), (ms, 0) if start else (ms, U64)
    if kind == 3:
        return "(%d-%d" % (ms, seq), (ms, seq + 1) if start else (ms, seq - 1) if seq else (
            ms - 1, U64)
    return "(%d" % ms, (ms, 1) if start else (ms, U64 - 1)


def test_large_stream_against_model(r):
    rand = rng("test_large_stream_against_model")
    model = []  # [((ms, seq), [fields...]), ...]
    ms = 1000
    pipe = r.pipeline(transaction=False)
    while len(model) < 3000:
        ms += rand.choice([1, 1, 2, 5])
        for seq in sorted(rand.sample(range(6), rand.randint(1, 3))):
            fields = []
            for j in range(rand.randint(1, 4)):
                fields += [b"f%d" % j, b"%d" % rand.randrange(10 ** rand.randint(1, 12))]
            model.append(((ms, seq), fields))
            pipe.execute_command("XADD", "big", "%d-%d" % (ms, seq), *fields)
    ids = pipe.execute()
    assert ids == [fmt_id(x[0]).encode() for x in model]
    n_added = len(model)
    last_id = model[-1][0]

    def reply(entries):
        return [[fmt_id(i).encode(), f] for i, f in entries]

    assert cmd(r, "XLEN", "big") == n_added
    assert cmd(r, "XRANGE", "big", "-", "+") == reply(model)
    # pages forward with exclusive starts, backward with exclusive ends
    got, start = [], "-"
    while True:
        page = cmd(r, "XRANGE", "big", start, "+", "COUNT", 250)
        got += page
        if len(page) < 250:
            break
        start = "(" + page[-1][0].decode()
    assert got == reply(model)
    got, end = [], "+"
    while True:
        page = cmd(r, "XREVRANGE", "big", end, "-", "COUNT", 333)
        got += page
        if len(page) < 333:
            break
        end = "(" + page[-1][0].decode()
    assert got == reply(model[::-1])
    # random ranges
    all_ids = [x[0] for x in model]
    for _ in range(150):
        (lo_arg, lo), (hi_arg, hi) = _bound(rand, all_ids, True), _bound(rand, all_ids, False)
        count = rand.choice([None, 1, 7, 100])
        extra = () if count is None else ("COUNT", count)
        want = _range(model, lo, hi)
        assert cmd(r, "XRANGE", "big", lo_arg, hi_arg, *extra) == reply(want[:count]), (
            lo_arg, hi_arg, count)
        assert cmd(r, "XREVRANGE", "big", hi_arg, lo_arg, *extra) == reply(
            want[::-1][:count]), (lo_arg, hi_arg, count)
    # XDEL random IDs, some twice, some never there
    victims = rand.sample(all_ids, 400)
    asked = victims + rand.sample(victims, 50) + [(ms, 9) for ms, _ in rand.sample(all_ids, 20)]
    rand.shuffle(asked)
    deleted = 0
    for i in range(0, len(asked), 47):
        deleted += cmd(r, "XDEL", "big", *[fmt_id(x) for x in asked[i:i + 47]])
    assert deleted == 400
    gone = set(victims)
    model = [x for x in model if x[0] not in gone]
    assert cmd(r, "XLEN", "big") == len(model)
    assert cmd(r, "XRANGE", "big", "-", "+") == reply(model)
    max_deleted = max(victims)
    assert info(r, "big") == meta(len(model), fmt_id(last_id), fmt_id(max_deleted), n_added,
                                  fmt_id(model[0][0]), reply(model[:1])[0],
                                  reply(model[-1:])[0])
    # exact trim to 1000
    assert cmd(r, "XTRIM", "big", "MAXLEN", 1000) == len(model) - 1000
    model = model[-1000:]
    assert cmd(r, "XLEN", "big") == 1000
    assert cmd(r, "XRANGE", "big", "-", "+") == reply(model)
    assert cmd(r, "XREVRANGE", "big", "+", "-", "COUNT", 10) == reply(model[::-1][:10])
    assert info(r, "big") == meta(1000, fmt_id(last_id), fmt_id(max_deleted), n_added,
                                  fmt_id(model[0][0]), reply(model[:1])[0],
                                  reply(model[-1:])[0])
    # exact MINID trim to the middle, then an approximate one
    cut = model[500][0]
    assert cmd(r, "XTRIM", "big", "MINID", fmt_id(cut)) == 500
    model = model[500:]
    removed = cmd(r, "XTRIM", "big", "MAXLEN", "~", 100)
    assert 0 <= removed <= 400
    model = model[removed:]
    assert cmd(r, "XRANGE", "big", "-", "+") == reply(model)
    # XREAD from the middle, in COUNT pages
    got, after = [], fmt_id(model[len(model) // 3][0])
    while True:
        page = cmd(r, "XREAD", "COUNT", 64, "STREAMS", "big", after)
        if page is None:
            break
        got += page[0][1]
        after = page[0][1][-1][0]
    assert got == reply(model[len(model) // 3 + 1:])


def test_no_stream_commands_touch_other_keys(r):
    """Sanity: a run of stream commands on one key leaves a neighbour key alone."""
    cmd(r, "SET", "other", "1")
    five(r)
    cmd(r, "XTRIM", "s", "MAXLEN", 1)
    cmd(r, "XDEL", "s", "5-7")
    assert cmd(r, "GET", "other") == b"1"
    assert sorted(cmd(r, "KEYS", "*")) == [b"other", b"s"]
