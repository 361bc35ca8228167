"""Sorted-set commands: exact replies, errors and edge cases as Redis 7.0.15 gives them.

Scores come back in RESP2 as bulk strings printed with "%.17g" (0.1 is b"0.10000000000000001",
1e20 is b"1e+20", infinities are b"inf" / b"-inf") and in RESP3 as doubles (",1.5"). Members with
equal scores are ordered by their bytes (memcmp, then length). Keys tagged {a}, {b} and {c} land in
different slots of slotkv's 8-slot test server (hash slots 15495, 3300 and 7365), so the cross-slot
paths of Z*STORE, ZRANGESTORE, ZUNION/ZINTER/ZDIFF/ZINTERCARD and ZMPOP run. Blocking commands
(BZPOPMIN BZPOPMAX BZMPOP) are not covered. OBJECT ENCODING is only asserted for small zsets
(b"listpack"); the conversion to skiplist is checked against redis only.
"""

import os
import random

import pytest

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err, is_redis

NOT_FLOAT = "ERR value is not a valid float"
NAN_SCORE = "ERR resulting score is not a number (NaN)"
XX_NX = "ERR XX and NX options at the same time are not compatible"
GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible"
INCR_PAIR = "ERR INCR option supports a single increment-element pair"
MINMAX_FLOAT = "ERR min or max is not a float"
MINMAX_LEX = "ERR min or max not valid string range item"
LIMIT_NEEDS_BY = ("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
                  "BYLEX")
WITHSCORES_BYLEX = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
WEIGHT = "ERR weight value is not a float"
POSITIVE = "ERR value is out of range, must be positive"
OUT_OF_RANGE = "ERR value is out of range"
LONG_RANGE = ("ERR value is out of range, value must between -9223372036854775807 and "
              "9223372036854775807")
NUMKEYS = "ERR numkeys should be greater than 0"
COUNT_POS = "ERR count should be greater than 0"
LIMIT_NEG = "ERR LIMIT can't be negative"
CURSOR = "ERR invalid cursor"


def at_least_one_key(cmd):
    return "ERR at least 1 input key is needed for '%s' command" % cmd


def x(r, *args):
    return r.execute_command(*args)


def zadd(r, key, *pairs):
    return x(r, "ZADD", key, *pairs)


def scored(r, key):
    """The whole zset as [(member, score bytes), ...] in rank order."""
    flat = x(r, "ZRANGE", key, 0, -1, "WITHSCORES")
    return list(zip(flat[0::2], flat[1::2]))


def members(r, key):
    return x(r, "ZRANGE", key, 0, -1)


def seeded_rng(name):
    seed = int(os.environ.get("SLOTKV_TEST_SEED", "0")) or random.randrange(1, 2 ** 31)
    print("%s: seed %d (rerun with SLOTKV_TEST_SEED=%d)" % (name, seed, seed))
    return random.Random(seed)


def fmt(score):
    """A score as Redis prints it: %.17g, with inf / -inf."""
    return (b"%.17g" % score)


@pytest.fixture
def abcde(r):
    zadd(r, "z", 1, "a", 2, "b", 3, "c", 4, "d", 5, "e")
    return r


# ---- ZADD ----------------------------------------------------------------------------------------

def test_zadd_zcard_zscore(r):
    assert zadd(r, "z", 1, "a", 2, "b") == 2
    assert zadd(r, "z", 3, "a", 4, "c") == 1  # a updated, c added
    assert x(r, "ZCARD", "z") == 3
    assert x(r, "ZSCORE", "z", "a") == b"3"
    assert x(r, "ZSCORE", "z", "nope") is None
    assert x(r, "ZSCORE", "nokey", "a") is None
    assert x(r, "ZCARD", "nokey") == 0
    assert x(r, "TYPE", "z") == b"zset"
    assert scored(r, "z") == [(b"b", b"2"), (b"a", b"3"), (b"c", b"4")]
    # The same member twice in one call: counted once, the last score wins.
    assert zadd(r, "y", 1, "m", 2, "m") == 1
    assert x(r, "ZSCORE", "y", "m") == b"2"
    assert err(r, "ZADD", "z") == arity("zadd")
    assert err(r, "ZADD", "z", 1) == arity("zadd")
    assert err(r, "ZADD", "z", "NX") == arity("zadd")
    assert err(r, "ZCARD") == arity("zcard")
    assert err(r, "ZCARD", "z", "z") == arity("zcard")
    assert err(r, "ZSCORE", "z") == arity("zscore")
    assert err(r, "ZSCORE", "z", "a", "b") == arity("zscore")


def test_zadd_nx_xx(r):
    zadd(r, "z", 1, "a")
    assert zadd(r, "z", "NX", 10, "a", 10, "c") == 1
    assert scored(r, "z") == [(b"a", b"1"), (b"c", b"10")]
    assert zadd(r, "z", "xx", 10, "a", 10, "d") == 0  # updates a, does not add d
    assert scored(r, "z") == [(b"a", b"10"), (b"c", b"10")]
    assert zadd(r, "z", "XX", "CH", 11, "a", 10, "e") == 1
    assert x(r, "ZSCORE", "z", "e") is None
    assert zadd(r, "z", "nx", "ch", 1, "a", 1, "f") == 1
    # XX on a missing key does not create it.
    assert zadd(r, "new", "XX", 1, "m") == 0
    assert x(r, "EXISTS", "new") == 0


def test_zadd_gt_lt(r):
    zadd(r, "z", 10, "a", 10, "b")
    assert zadd(r, "z", "GT", 5, "a", 20, "b", 1, "f") == 1  # GT still adds new members
    assert scored(r, "z") == [(b"f", b"1"), (b"a", b"10"), (b"b", b"20")]
    assert zadd(r, "z", "GT", "CH", 5, "a", 21, "b", 1, "g") == 2
    assert zadd(r, "z", "LT", "CH", 50, "a", 0, "b", 1, "h") == 2
    assert scored(r, "z") == [(b"b", b"0"), (b"f", b"1"), (b"g", b"1"), (b"h", b"1"),
                              (b"a", b"10")]
    assert zadd(r, "z", "XX", "GT", "CH", 100, "a", 100, "nob") == 1
    assert zadd(r, "z", "xx", "lt", 0, "f", 100, "noc") == 0
    assert x(r, "ZSCORE", "z", "a") == b"100"
    assert x(r, "ZSCORE", "z", "f") == b"0"
    assert x(r, "ZSCORE", "z", "nob") is None
    assert zadd(r, "z", "GT", "GT", 1, "a") == 0  # a repeated flag is fine
    assert x(r, "ZSCORE", "z", "a") == b"100"


def test_zadd_ch(r):
    zadd(r, "z", 2, "a")
    assert zadd(r, "z", "CH", 3, "a", 3, "a", 4, "b") == 2  # a changed once, b added
    assert zadd(r, "z", "CH", 3, "a", 4, "b") == 0
    assert zadd(r, "z", "ch", 0, "a", 0, "c") == 2
    assert zadd(r, "z", 9, "a") == 0  # without CH only additions count


def test_zadd_incr(r):
    assert zadd(r, "z", "INCR", 5, "m") == b"5"  # creates the key
    assert x(r, "TYPE", "z") == b"zset"
    assert zadd(r, "z", "incr", 1.5, "m") == b"6.5"
    assert zadd(r, "z", "INCR", "NX", 1, "m") is None  # NX on an existing member: nil
    assert zadd(r, "z", "INCR", "XX", 1, "nope") is None
    assert x(r, "ZSCORE", "z", "nope") is None
    assert zadd(r, "z", "INCR", "GT", -10, "m") is None  # not greater: nil, unchanged
    assert zadd(r, "z", "INCR", "GT", 1, "m") == b"7.5"
    assert zadd(r, "z", "INCR", "LT", 1, "m") is None
    assert zadd(r, "z", "INCR", "LT", -1, "m") == b"6.5"
    assert zadd(r, "z", "INCR", "LT", -10, "c") == b"-10"  # LT adds a new member
    assert zadd(r, "z", "INCR", "GT", 1, "d") == b"1"
    assert zadd(r, "z", "INCR", "CH", 1, "m") == b"7.5"
    assert zadd(r, "z", "INCR", "NX", 2, "n") == b"2"
    assert zadd(r, "new", "INCR", "XX", 1, "m") is None
    assert x(r, "EXISTS", "new") == 0
    assert err(r, "ZADD", "z", "INCR", 1, "a", 2, "b") == INCR_PAIR
    assert err(r, "ZADD", "z", "INCR", "CH") == SYNTAX
    assert err(r, "ZADD", "z", "NX", "INCR") == SYNTAX
    assert err(r, "ZADD", "z", "INCR", 1, "a", 2) == SYNTAX


def test_zadd_option_errors(r):
    zadd(r, "z", 1, "a")
    assert err(r, "ZADD", "z", "NX", "XX", 1, "a") == XX_NX
    assert err(r, "ZADD", "z", "GT", "LT", 1, "a") == GT_LT_NX
    assert err(r, "ZADD", "z", "GT", "NX", 1, "a") == GT_LT_NX
    assert err(r, "ZADD", "z", "lt", "nx", 1, "a") == GT_LT_NX
    assert err(r, "ZADD", "z", "ch", "nx", "xx", 1, "a") == XX_NX
    assert err(r, "ZADD", "z", "CH", "NX", "XX") == SYNTAX  # no pairs: syntax error first
    assert err(r, "ZADD", "z", 1, "a", 2) == SYNTAX
    assert err(r, "ZADD", "z", 1, "a", 2, "b", "c") == SYNTAX
    assert err(r, "ZADD", "z", 1, "a", "NX") == SYNTAX  # options only before the pairs
    assert err(r, "ZADD", "z", 1, "a", "NX", "b") == NOT_FLOAT
    assert err(r, "ZADD", "z", "-0", "y", "CH") == SYNTAX
    assert scored(r, "z") == [(b"a", b"1")]


@pytest.mark.parametrize("score", ["x", "nan", "-nan", "NaN", "", " 1", "1 ", "1e", "1_0", "1e400",
                                   "-1e400", "1e-400", "--1", "1.2.3", "inf1"])
def test_zadd_bad_scores(r, score):
    zadd(r, "z", 1, "a")
    assert err(r, "ZADD", "z", score, "a") == NOT_FLOAT
    assert err(r, "ZADD", "z", "INCR", score, "a") == NOT_FLOAT
    assert err(r, "ZINCRBY", "z", score, "a") == NOT_FLOAT
    assert err(r, "ZADD", "z", 5, "b", score, "c") == NOT_FLOAT  # nothing applied
    assert scored(r, "z") == [(b"a", b"1")]


def test_zadd_score_spellings(r):
    # Scores go through strtod: infinities in any case, hex, exponents, a leading "+".
    assert zadd(r, "z", "inf", "a", "-inf", "b", "+inf", "c", "Infinity", "d", "-INF", "e",
                "0x10", "f", "+1.5", "g", "1E2", "h", ".5", "i", "5.", "j", "1e-310", "k") == 11
    assert x(r, "ZMSCORE", "z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j") == [
        b"inf", b"-inf", b"inf", b"inf", b"-inf", b"16", b"1.5", b"100", b"0.5", b"5"]
    assert x(r, "ZSCORE", "z", "k") == b"9.9999999999999694e-311"  # subnormal: accepted


def test_zadd_nan_results(r):
    zadd(r, "z", "inf", "a", "-inf", "b")
    assert err(r, "ZADD", "z", "INCR", "-inf", "a") == NAN_SCORE
    assert err(r, "ZADD", "z", "INCR", "+inf", "b") == NAN_SCORE
    assert err(r, "ZINCRBY", "z", "-inf", "a") == NAN_SCORE
    assert err(r, "ZINCRBY", "z", "inf", "b") == NAN_SCORE
    assert scored(r, "z") == [(b"b", b"-inf"), (b"a", b"inf")]
    assert zadd(r, "z", "INCR", "inf", "a") == b"inf"
    assert x(r, "ZINCRBY", "z", 1, "a") == b"inf"
    assert x(r, "ZINCRBY", "z", "-inf", "c") == b"-inf"


def test_zadd_errors_come_before_type_check(r):
    x(r, "SET", "str", "v")
    assert err(r, "ZADD", "str", "x", "a") == NOT_FLOAT
    assert err(r, "ZADD", "str", "NX", "XX", 1, "a") == XX_NX
    assert err(r, "ZADD", "str", 1, "a", 2) == SYNTAX
    assert err(r, "ZINCRBY", "str", "abc", "a") == NOT_FLOAT
    assert err(r, "ZADD", "str", 1, "a") == WRONGTYPE


# ---- score formatting and ordering ---------------------------------------------------------------

@pytest.mark.parametrize("score,shown", [
    ("1.5", b"1.5"), ("1", b"1"), ("1.0", b"1"), ("-1.25", b"-1.25"), ("1e20", b"1e+20"),
    ("3.0000000000000004", b"3.0000000000000004"), ("0.1", b"0.10000000000000001"),
    ("1e-5", b"1.0000000000000001e-05"), ("1e15", b"1000000000000000"),
    ("1e16", b"10000000000000000"), ("1e17", b"1e+17"),
    ("12345678901234567", b"12345678901234568"),
    ("123456789012345678", b"1.2345678901234568e+17"), ("-1e-300", b"-1e-300"),
    ("inf", b"inf"), ("-inf", b"-inf"), ("1.7976931348623157e308", b"1.7976931348623157e+308"),
])
def test_score_formatting(r, score, shown):
    zadd(r, "z", score, "m")
    assert x(r, "ZSCORE", "z", "m") == shown
    assert x(r, "ZRANGE", "z", 0, -1, "WITHSCORES") == [b"m", shown]
    assert x(r, "ZMSCORE", "z", "m") == [shown]
    assert x(r, "ZINCRBY", "w", score, "m") == shown
    assert x(r, "ZUNION", 1, "z", "WITHSCORES") == [b"m", shown]
    assert x(r, "ZPOPMIN", "z") == [b"m", shown]


def test_incr_arithmetic_formatting(r):
    zadd(r, "z", "0.1", "p")
    assert x(r, "ZINCRBY", "z", "0.2", "p") == b"0.30000000000000004"
    assert x(r, "ZINCRBY", "z", "0.1", "q") == b"0.10000000000000001"
    assert x(r, "ZINCRBY", "z", "1", "q") == b"1.1000000000000001"
    assert x(r, "ZINCRBY", "z", "-1.1000000000000001", "q") == b"0"
    assert zadd(r, "z", "INCR", "2.5", "q") == b"2.5"


def test_negative_zero(r):
    # A small (listpack) zset stores -0 as 0; the ZINCRBY / ZADD INCR reply itself says -0.
    assert zadd(r, "z", "-0", "y") == 1
    assert x(r, "ZSCORE", "z", "y") == b"0"
    assert x(r, "ZINCRBY", "z", "-0", "new") == b"-0"
    assert zadd(r, "z", "INCR", "-0", "new2") == b"-0"
    assert x(r, "ZSCORE", "z", "new") == b"0"
    assert scored(r, "z") == [(b"new", b"0"), (b"new2", b"0"), (b"y", b"0")]
    assert zadd(r, "z", "CH", 0, "y") == 0  # -0 == 0: no change
    assert zadd(r, "z", "CH", "-0", "y") == 0
    assert x(r, "ZRANGEBYSCORE", "z", "-0", "0") == [b"new", b"new2", b"y"]
    assert x(r, "ZRANGEBYSCORE", "z", "(-0", "0") == []
    assert x(r, "ZCOUNT", "z", "-0", "-0") == 3


def test_ties_ordered_by_member_bytes(r):
    names = [b"b", b"\xff", b"a", b"", b"ab", b"A", b"\x00", b"a\x00", b"B", b"\xfe\xff"]
    zadd(r, "z", *[v for m in names for v in (0, m)])
    ordered = sorted(names)
    assert members(r, "z") == ordered
    assert ordered[-1] == b"\xff"  # after b"a" and b"\xfe\xff": bytes compare unsigned
    assert x(r, "ZREVRANGE", "z", 0, -1) == ordered[::-1]
    for i, m in enumerate(ordered):
        assert x(r, "ZRANK", "z", m) == i
        assert x(r, "ZREVRANK", "z", m) == len(ordered) - 1 - i
    zadd(r, "z", -1, b"\xff", 1, b"")
    assert members(r, "z")[0] == b"\xff"
    assert members(r, "z")[-1] == b""


def test_binary_members(r):
    every_byte = bytes(range(256))
    assert zadd(r, "z", 1, every_byte, 2, b"a\r\nb", 3, "") == 3
    assert scored(r, "z") == [(every_byte, b"1"), (b"a\r\nb", b"2"), (b"", b"3")]
    assert x(r, "ZSCORE", "z", every_byte) == b"1"
    assert x(r, "ZSCORE", "z", "") == b"3"
    assert x(r, "ZREM", "z", every_byte) == 1


# ---- ZINCRBY -------------------------------------------------------------------------------------

def test_zincrby(r):
    assert x(r, "ZINCRBY", "z", "2.5", "m") == b"2.5"  # creates the key
    assert x(r, "TYPE", "z") == b"zset"
    assert x(r, "TTL", "z") == -1
    assert x(r, "ZINCRBY", "z", -1, "m") == b"1.5"
    assert x(r, "ZINCRBY", "z", 0, "m") == b"1.5"
    assert x(r, "ZINCRBY", "z", 10, "other") == b"10"
    assert scored(r, "z") == [(b"m", b"1.5"), (b"other", b"10")]
    assert err(r, "ZINCRBY", "z", "abc", "m") == NOT_FLOAT
    assert err(r, "ZINCRBY", "z", 1) == arity("zincrby")
    assert err(r, "ZINCRBY", "z", 1, "a", "b") == arity("zincrby")


# ---- ZMSCORE / ZRANK / ZREVRANK / ZREM ----------------------------------------------------------

def test_zmscore(abcde):
    r = abcde
    assert x(r, "ZMSCORE", "z", "b", "x", "c", "b") == [b"2", None, b"3", b"2"]
    assert x(r, "ZMSCORE", "nokey", "a", "b") == [None, None]
    assert err(r, "ZMSCORE", "z") == arity("zmscore")


def test_zrank_zrevrank(abcde):
    r = abcde
    assert x(r, "ZRANK", "z", "a") == 0
    assert x(r, "ZRANK", "z", "e") == 4
    assert x(r, "ZREVRANK", "z", "a") == 4
    assert x(r, "ZREVRANK", "z", "b") == 3
    assert x(r, "ZRANK", "z", "x") is None
    assert x(r, "ZREVRANK", "z", "x") is None
    assert x(r, "ZRANK", "nokey", "x") is None
    assert x(r, "ZREVRANK", "nokey", "x") is None
    # 7.0 has no WITHSCORE option: a third argument is an arity error.
    assert err(r, "ZRANK", "z", "a", "WITHSCORE") == arity("zrank")
    assert err(r, "ZREVRANK", "z", "a", "WITHSCORE") == arity("zrevrank")
    assert err(r, "ZRANK", "z") == arity("zrank")
    assert err(r, "ZREVRANK", "z") == arity("zrevrank")


def test_zrem(abcde):
    r = abcde
    assert x(r, "ZREM", "z", "a", "x", "a") == 1
    assert x(r, "ZCARD", "z") == 4
    assert x(r, "ZREM", "nokey", "a") == 0
    assert x(r, "ZREM", "z", "b", "c", "d") == 3
    assert x(r, "ZREM", "z", "e") == 1
    assert x(r, "EXISTS", "z") == 0  # the last member removed deletes the key
    assert err(r, "ZREM", "z") == arity("zrem")


# ---- ZCOUNT / ZLEXCOUNT --------------------------------------------------------------------------

def test_zcount(abcde):
    r = abcde
    assert x(r, "ZCOUNT", "z", "-inf", "+inf") == 5
    assert x(r, "ZCOUNT", "z", 2, 4) == 3
    assert x(r, "ZCOUNT", "z", "(2", 4) == 2
    assert x(r, "ZCOUNT", "z", 2, "(4") == 2
    assert x(r, "ZCOUNT", "z", "(2", "(4") == 1
    assert x(r, "ZCOUNT", "z", "(1", "(1") == 0
    assert x(r, "ZCOUNT", "z", 4, 2) == 0
    assert x(r, "ZCOUNT", "z", "-inf", 0) == 0
    assert x(r, "ZCOUNT", "z", "(-inf", "(+inf") == 5
    assert x(r, "ZCOUNT", "nokey", 0, 1) == 0
    assert err(r, "ZCOUNT", "z", "a", 1) == MINMAX_FLOAT
    assert err(r, "ZCOUNT", "z", 1, "b") == MINMAX_FLOAT
    assert err(r, "ZCOUNT", "z", "nan", 1) == MINMAX_FLOAT
    assert err(r, "ZCOUNT", "nokey", "a", "b") == MINMAX_FLOAT
    assert err(r, "ZCOUNT", "z", 0) == arity("zcount")
    assert err(r, "ZCOUNT", "z", 0, 1, 2) == arity("zcount")


@pytest.fixture
def lex(r):
    zadd(r, "z", 0, "a", 0, "b", 0, "c", 0, "d", 0, "e", 0, b"\xff", 0, "", 0, "A")
    return r


def test_zlexcount(lex):
    r = lex
    assert x(r, "ZLEXCOUNT", "z", "-", "+") == 8
    assert x(r, "ZLEXCOUNT", "z", "[b", "[d") == 3
    assert x(r, "ZLEXCOUNT", "z", "(b", "(d") == 1
    assert x(r, "ZLEXCOUNT", "z", "[d", "[b") == 0
    assert x(r, "ZLEXCOUNT", "z", "+", "-") == 0
    assert x(r, "ZLEXCOUNT", "z", "[", "+") == 8  # "[" is the empty string, inclusive
    assert x(r, "ZLEXCOUNT", "z", "(", "+") == 7
    assert x(r, "ZLEXCOUNT", "nokey", "-", "+") == 0
    assert err(r, "ZLEXCOUNT", "z", "a", "b") == MINMAX_LEX
    assert err(r, "ZLEXCOUNT", "nokey", "a", "b") == MINMAX_LEX
    assert err(r, "ZLEXCOUNT", "z", "+") == arity("zlexcount")
    assert err(r, "ZLEXCOUNT", "z", "-", "+", "x") == arity("zlexcount")


# ---- ZRANGE by rank ------------------------------------------------------------------------------

def test_zrange_by_rank(abcde):
    r = abcde
    assert x(r, "ZRANGE", "z", 0, -1) == [b"a", b"b", b"c", b"d", b"e"]
    assert x(r, "ZRANGE", "z", -2, -1) == [b"d", b"e"]
    assert x(r, "ZRANGE", "z", -100, 1) == [b"a", b"b"]
    assert x(r, "ZRANGE", "z", 1, -1) == [b"b", b"c", b"d", b"e"]
    assert x(r, "ZRANGE", "z", 3, 1) == []
    assert x(r, "ZRANGE", "z", -1, -2) == []
    assert x(r, "ZRANGE", "z", 0, 100) == [b"a", b"b", b"c", b"d", b"e"]
    assert x(r, "ZRANGE", "z", 5, 10) == []
    assert x(r, "ZRANGE", "z", "-9223372036854775808", "9223372036854775807") == [
        b"a", b"b", b"c", b"d", b"e"]
    assert x(r, "ZRANGE", "z", 0, -1, "REV") == [b"e", b"d", b"c", b"b", b"a"]
    assert x(r, "ZRANGE", "z", 0, 1, "rev", "withscores") == [b"e", b"5", b"d", b"4"]
    assert x(r, "ZRANGE", "z", 3, -1, "REV") == [b"b", b"a"]
    assert x(r, "ZRANGE", "z", 0, 1, "WITHSCORES") == [b"a", b"1", b"b", b"2"]
    assert x(r, "ZRANGE", "z", 0, 0, "WITHSCORES", "WITHSCORES") == [b"a", b"1"]
    assert x(r, "ZRANGE", "nokey", 0, -1) == []
    assert x(r, "ZRANGE", "nokey", 0, -1, "WITHSCORES") == []


def test_zrevrange(abcde):
    r = abcde
    assert x(r, "ZREVRANGE", "z", 0, 1) == [b"e", b"d"]
    assert x(r, "ZREVRANGE", "z", 0, 1, "WITHSCORES") == [b"e", b"5", b"d", b"4"]
    assert x(r, "ZREVRANGE", "z", -1, -1) == [b"a"]
    assert x(r, "ZREVRANGE", "z", -2, 100) == [b"b", b"a"]
    assert x(r, "ZREVRANGE", "z", 2, 1) == []
    assert x(r, "ZREVRANGE", "nokey", 0, -1) == []
    assert err(r, "ZREVRANGE", "z", 0, 1, "foo") == SYNTAX
    assert err(r, "ZREVRANGE", "z", 0, 1, "WITHSCORES", "foo") == SYNTAX
    assert err(r, "ZREVRANGE", "z", 0, 1, "REV") == SYNTAX
    assert err(r, "ZREVRANGE", "z", 0, 1, "BYSCORE") == SYNTAX
    assert err(r, "ZREVRANGE", "z", 0, 1, "LIMIT", 0, 1) == LIMIT_NEEDS_BY
    assert err(r, "ZREVRANGE", "z", "a", 1) == NOT_INT
    assert err(r, "ZREVRANGE", "z", 0) == arity("zrevrange")


def test_zrange_errors(abcde):
    r = abcde
    assert err(r, "ZRANGE", "z", 0, -1, "LIMIT", 0, 1) == LIMIT_NEEDS_BY
    assert err(r, "ZRANGE", "z", 0, -1, "LIMIT", 0, 1, "WITHSCORES") == LIMIT_NEEDS_BY
    assert err(r, "ZRANGE", "nokey", 0, -1, "LIMIT", 0, 1) == LIMIT_NEEDS_BY
    assert err(r, "ZRANGE", "z", "[a", "[c", "BYLEX", "WITHSCORES") == WITHSCORES_BYLEX
    assert err(r, "ZRANGE", "nokey", "[a", "[c", "BYLEX", "WITHSCORES") == WITHSCORES_BYLEX
    assert err(r, "ZRANGE", "z", "a", "c", "BYLEX") == MINMAX_LEX
    assert err(r, "ZRANGE", "z", "(a", "x", "BYSCORE") == MINMAX_FLOAT
    assert err(r, "ZRANGE", "nokey", "x", "y", "BYSCORE") == MINMAX_FLOAT
    assert err(r, "ZRANGE", "z", 0, -1, "BYSCORE", "BYLEX") == SYNTAX
    assert err(r, "ZRANGE", "z", 0, -1, "BYLEX", "BYSCORE") == SYNTAX
    assert err(r, "ZRANGE", "z", 0, -1, "BYSCORE", "BYSCORE") == SYNTAX
    assert err(r, "ZRANGE", "z", 0, -1, "REV", "REV") == SYNTAX  # REV twice is an error
    assert err(r, "ZRANGE", "z", 0, -1, "foo") == SYNTAX
    assert err(r, "ZRANGE", "z", 0, -1, "BYSCORE", "LIMIT", 0) == SYNTAX
    assert err(r, "ZRANGE", "z", 0, -1, "LIMIT", 0) == SYNTAX
    assert err(r, "ZRANGE", "z", 0, -1, "BYSCORE", "LIMIT", "x", 1) == NOT_INT
    assert err(r, "ZRANGE", "z", 0, -1, "BYSCORE", "LIMIT", 0, "x") == NOT_INT
    assert err(r, "ZRANGE", "z", 0, -1, "BYSCORE", "LIMIT", 0, "9223372036854775808") == NOT_INT
    assert err(r, "ZRANGE", "z", "a", -1) == NOT_INT
    assert err(r, "ZRANGE", "z", 0, "b") == NOT_INT
    assert err(r, "ZRANGE", "z", 0, "9223372036854775808") == NOT_INT
    assert err(r, "ZRANGE", "nokey", "a", "b") == NOT_INT
    assert err(r, "ZRANGE", "z", 0) == arity("zrange")


# ---- ZRANGE BYSCORE / ZRANGEBYSCORE / ZREVRANGEBYSCORE ------------------------------------------

def test_zrange_byscore(abcde):
    r = abcde
    assert x(r, "ZRANGE", "z", "(1", 3, "BYSCORE") == [b"b", b"c"]
    assert x(r, "ZRANGE", "z", 1, "(3", "byscore") == [b"a", b"b"]
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 1, 2) == [b"b", b"c"]
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 1, -1) == [
        b"b", b"c", b"d", b"e"]  # a negative count means all the rest
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 1, -5) == [
        b"b", b"c", b"d", b"e"]
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 1, 0) == []
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", -1, 2) == []
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 10, 2) == []
    assert x(r, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 0, 1, "LIMIT", 4, 1) == [b"e"]
    # REV takes max first.
    assert x(r, "ZRANGE", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", 1, 2,
             "WITHSCORES") == [b"d", b"4", b"c", b"3"]
    assert x(r, "ZRANGE", "z", 3, 1, "BYSCORE", "REV") == [b"c", b"b", b"a"]
    assert x(r, "ZRANGE", "z", 1, 3, "BYSCORE", "REV") == []
    assert x(r, "ZRANGE", "z", 3, "(1", "BYSCORE", "REV", "WITHSCORES") == [b"c", b"3", b"b", b"2"]
    assert x(r, "ZRANGE", "z", 5, 1, "WITHSCORES", "rev", "BYSCORE", "limit", 0, 2) == [
        b"e", b"5", b"d", b"4"]
    assert x(r, "ZRANGE", "nokey", "(0", 1, "BYSCORE") == []


def test_zrangebyscore(abcde):
    r = abcde
    assert x(r, "ZRANGEBYSCORE", "z", 2, 4) == [b"b", b"c", b"d"]
    assert x(r, "ZRANGEBYSCORE", "z", "(2", "(4") == [b"c"]
    assert x(r, "ZRANGEBYSCORE", "z", 2, 2) == [b"b"]
    assert x(r, "ZRANGEBYSCORE", "z", "(2", "(2") == []
    assert x(r, "ZRANGEBYSCORE", "z", 4, 2) == []
    assert x(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", 1, 2) == [
        b"b", b"2", b"c", b"3"]
    assert x(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "limit", 1, 2, "withscores") == [
        b"b", b"2", b"c", b"3"]
    assert x(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 0, -5) == [
        b"a", b"b", b"c", b"d", b"e"]
    assert x(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 4, "9223372036854775807") == [b"e"]
    assert x(r, "ZRANGEBYSCORE", "nokey", 0, 1) == []
    assert err(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 1) == SYNTAX
    assert err(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "foo") == SYNTAX
    assert err(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "BYLEX") == SYNTAX
    assert err(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "BYSCORE") == SYNTAX
    assert err(r, "ZRANGEBYSCORE", "z", "-inf", "+inf", "REV") == SYNTAX
    assert err(r, "ZRANGEBYSCORE", "z", "x", 1) == MINMAX_FLOAT
    assert err(r, "ZRANGEBYSCORE", "z", "1 ", 2) == MINMAX_FLOAT
    assert err(r, "ZRANGEBYSCORE", "z", "nan", 2) == MINMAX_FLOAT
    assert err(r, "ZRANGEBYSCORE", "z", "(nan", 2) == MINMAX_FLOAT
    assert err(r, "ZRANGEBYSCORE", "z", "((1", 2) == MINMAX_FLOAT
    assert err(r, "ZRANGEBYSCORE", "z", "-inf") == arity("zrangebyscore")


def test_score_range_spellings(abcde):
    # Range bounds go through plain strtod: leading blanks, hex and overflow to +-inf are fine
    # there (ZADD rejects " 1" and 1e400), and a lone "(" is an exclusive 0.
    r = abcde
    assert x(r, "ZRANGEBYSCORE", "z", " 1", 2) == [b"a", b"b"]
    assert x(r, "ZRANGEBYSCORE", "z", "0x1", "0x2") == [b"a", b"b"]
    assert x(r, "ZRANGEBYSCORE", "z", "1e400", 2) == []
    assert x(r, "ZRANGEBYSCORE", "z", "-1e400", 2) == [b"a", b"b"]
    assert x(r, "ZRANGEBYSCORE", "z", "(", 1) == [b"a"]
    assert x(r, "ZCOUNT", "z", "-Infinity", "INF") == 5


def test_zrevrangebyscore(abcde):
    r = abcde
    assert x(r, "ZREVRANGEBYSCORE", "z", "+inf", "-inf") == [b"e", b"d", b"c", b"b", b"a"]
    assert x(r, "ZREVRANGEBYSCORE", "z", 4, "(2", "WITHSCORES") == [b"d", b"4", b"c", b"3"]
    assert x(r, "ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES", "LIMIT", 0, 2) == [
        b"e", b"5", b"d", b"4"]
    assert x(r, "ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", 3, -1) == [b"b", b"a"]
    assert x(r, "ZREVRANGEBYSCORE", "z", "-inf", "+inf") == []
    assert err(r, "ZREVRANGEBYSCORE", "z", "x", 1) == MINMAX_FLOAT
    assert err(r, "ZREVRANGEBYSCORE", "z", 1, 0, "REV") == SYNTAX
    assert err(r, "ZREVRANGEBYSCORE", "z", 1, 0, "BYLEX") == SYNTAX
    assert err(r, "ZREVRANGEBYSCORE", "z", 1) == arity("zrevrangebyscore")


def test_inf_scores_in_ranges(r):
    zadd(r, "z", "-inf", "lo", 0, "mid", "inf", "hi")
    assert x(r, "ZRANGEBYSCORE", "z", "-inf", "+inf") == [b"lo", b"mid", b"hi"]
    assert x(r, "ZRANGEBYSCORE", "z", "(-inf", "(+inf") == [b"mid"]
    assert x(r, "ZRANGEBYSCORE", "z", "inf", "inf", "WITHSCORES") == [b"hi", b"inf"]
    assert x(r, "ZRANGEBYSCORE", "z", "-inf", "-inf", "WITHSCORES") == [b"lo", b"-inf"]
    assert x(r, "ZCOUNT", "z", "(0", "+inf") == 1
    assert x(r, "ZRANK", "z", "hi") == 2
    assert x(r, "ZREMRANGEBYSCORE", "z", "inf", "inf") == 1
    assert members(r, "z") == [b"lo", b"mid"]


# ---- ZRANGE BYLEX / ZRANGEBYLEX / ZREVRANGEBYLEX -------------------------------------------------

def test_zrangebylex(lex):
    r = lex
    everything = [b"", b"A", b"a", b"b", b"c", b"d", b"e", b"\xff"]
    assert x(r, "ZRANGEBYLEX", "z", "-", "+") == everything
    assert x(r, "ZRANGEBYLEX", "z", "[b", "(d") == [b"b", b"c"]
    assert x(r, "ZRANGEBYLEX", "z", "(b", "[d") == [b"c", b"d"]
    assert x(r, "ZRANGEBYLEX", "z", "[b", "[b") == [b"b"]
    assert x(r, "ZRANGEBYLEX", "z", "(b", "[b") == []
    assert x(r, "ZRANGEBYLEX", "z", "[c", "[a") == []
    assert x(r, "ZRANGEBYLEX", "z", "[", "[b") == [b"", b"A", b"a", b"b"]
    assert x(r, "ZRANGEBYLEX", "z", "(", "[b") == [b"A", b"a", b"b"]
    assert x(r, "ZRANGEBYLEX", "z", "-", "[b") == [b"", b"A", b"a", b"b"]
    assert x(r, "ZRANGEBYLEX", "z", "[d", "+") == [b"d", b"e", b"\xff"]
    assert x(r, "ZRANGEBYLEX", "z", "(e", "+") == [b"\xff"]
    assert x(r, "ZRANGEBYLEX", "z", "+", "-") == []
    assert x(r, "ZRANGEBYLEX", "z", "-", "-") == []
    assert x(r, "ZRANGEBYLEX", "z", "-", "+", "LIMIT", 1, 2) == [b"A", b"a"]
    assert x(r, "ZRANGEBYLEX", "z", "-", "+", "LIMIT", 1, -1) == everything[1:]
    assert x(r, "ZRANGEBYLEX", "z", "-", "+", "LIMIT", -1, 1) == []
    assert x(r, "ZRANGEBYLEX", "nokey", "-", "+") == []
    assert err(r, "ZRANGEBYLEX", "z", "-", "+", "WITHSCORES") == WITHSCORES_BYLEX
    assert err(r, "ZRANGEBYLEX", "z", "a", "b") == MINMAX_LEX
    assert err(r, "ZRANGEBYLEX", "z", "-a", "+") == MINMAX_LEX
    assert err(r, "ZRANGEBYLEX", "z", "-", "+a") == MINMAX_LEX
    assert err(r, "ZRANGEBYLEX", "z", "", "+") == MINMAX_LEX
    assert err(r, "ZRANGEBYLEX", "nokey", "a", "b") == MINMAX_LEX
    assert err(r, "ZRANGEBYLEX", "z", "-", "+", "foo") == SYNTAX
    assert err(r, "ZRANGEBYLEX", "z", "-", "+", "LIMIT", 0) == SYNTAX
    assert err(r, "ZRANGEBYLEX", "z", "-", "+", "BYSCORE") == SYNTAX
    assert err(r, "ZRANGEBYLEX", "z", "-") == arity("zrangebylex")


def test_zrevrangebylex(lex):
    r = lex
    assert x(r, "ZREVRANGEBYLEX", "z", "+", "-") == [b"\xff", b"e", b"d", b"c", b"b", b"a", b"A",
                                                     b""]
    assert x(r, "ZREVRANGEBYLEX", "z", "[d", "(b") == [b"d", b"c"]
    assert x(r, "ZREVRANGEBYLEX", "z", "(d", "[b", "LIMIT", 0, 1) == [b"c"]
    assert x(r, "ZREVRANGEBYLEX", "z", "-", "+") == []
    assert err(r, "ZREVRANGEBYLEX", "z", "a", "b") == MINMAX_LEX
    assert err(r, "ZREVRANGEBYLEX", "z", "+", "-", "WITHSCORES") == WITHSCORES_BYLEX
    assert err(r, "ZREVRANGEBYLEX", "z", "+", "-", "REV") == SYNTAX
    assert err(r, "ZREVRANGEBYLEX", "z", "+") == arity("zrevrangebylex")


def test_zrange_bylex(lex):
    r = lex
    assert x(r, "ZRANGE", "z", "[a", "[c", "BYLEX") == [b"a", b"b", b"c"]
    assert x(r, "ZRANGE", "z", "-", "+", "BYLEX", "LIMIT", 2, 3) == [b"a", b"b", b"c"]
    assert x(r, "ZRANGE", "z", "[c", "[a", "BYLEX", "REV") == [b"c", b"b", b"a"]
    assert x(r, "ZRANGE", "z", "[c", "(a", "BYLEX", "REV") == [b"c", b"b"]
    assert x(r, "ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", 1, 2) == [b"e", b"d"]
    assert x(r, "ZRANGE", "z", "[a", "[c", "BYLEX", "REV") == []


# ---- ZRANGESTORE ---------------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [("{a}src", "{a}dst"), ("{a}src", "{b}dst")])
def test_zrangestore(r, src, dst):
    zadd(r, src, 1, "a", 2, "b", 3, "c", 4, "d")
    assert x(r, "ZRANGESTORE", dst, src, 0, 1) == 2
    assert scored(r, dst) == [(b"a", b"1"), (b"b", b"2")]
    assert x(r, "ZRANGESTORE", dst, src, 0, 1, "REV") == 2
    assert scored(r, dst) == [(b"c", b"3"), (b"d", b"4")]
    assert x(r, "ZRANGESTORE", dst, src, "(1", "+inf", "BYSCORE", "LIMIT", 0, 2) == 2
    assert scored(r, dst) == [(b"b", b"2"), (b"c", b"3")]
    assert x(r, "ZRANGESTORE", dst, src, "[c", "-", "BYLEX", "REV") == 3
    assert scored(r, dst) == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]
    assert x(r, "ZRANGESTORE", dst, src, "+inf", "(2", "BYSCORE", "REV", "LIMIT", 1, 5) == 1
    assert scored(r, dst) == [(b"c", b"3")]
    assert x(r, "TYPE", dst) == b"zset"
    # An empty result deletes the destination.
    assert x(r, "ZRANGESTORE", dst, src, 5, 10) == 0
    assert x(r, "EXISTS", dst) == 0
    zadd(r, dst, 1, "x")
    assert x(r, "ZRANGESTORE", dst, "{a}nokey", 0, -1) == 0
    assert x(r, "EXISTS", dst) == 0
    assert scored(r, src) == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3"), (b"d", b"4")]


def test_zrangestore_overwrites_and_drops_ttl(r):
    zadd(r, "{a}src", 1, "a", 2, "b", 3, "c")
    x(r, "SET", "{c}str", "v", "EX", 100)
    assert x(r, "ZRANGESTORE", "{c}str", "{a}src", 0, 0) == 1
    assert x(r, "TYPE", "{c}str") == b"zset"
    assert x(r, "TTL", "{c}str") == -1
    x(r, "SET", "{c}str", "v", "EX", 100)
    assert x(r, "ZRANGESTORE", "{c}str", "{a}nokey", 0, -1) == 0
    assert x(r, "EXISTS", "{c}str") == 0
    x(r, "EXPIRE", "{a}src", 100)
    assert x(r, "ZRANGESTORE", "{a}src", "{a}src", 1, 2) == 2  # the source as destination
    assert scored(r, "{a}src") == [(b"b", b"2"), (b"c", b"3")]
    assert x(r, "TTL", "{a}src") == -1


def test_zrangestore_errors(r):
    zadd(r, "src", 1, "a")
    x(r, "SET", "str", "v")
    assert err(r, "ZRANGESTORE", "dst", "src", 0, -1, "WITHSCORES") == SYNTAX
    assert err(r, "ZRANGESTORE", "dst", "src", "[a", "[b", "BYLEX", "WITHSCORES") == SYNTAX
    assert err(r, "ZRANGESTORE", "dst", "src", 0, -1, "LIMIT", 0, 1) == LIMIT_NEEDS_BY
    assert err(r, "ZRANGESTORE", "dst", "src", "a", "b") == NOT_INT
    assert err(r, "ZRANGESTORE", "dst", "src", "a", "b", "BYSCORE") == MINMAX_FLOAT
    assert err(r, "ZRANGESTORE", "dst", "src", "a", "b", "BYLEX") == MINMAX_LEX
    assert err(r, "ZRANGESTORE", "dst", "str", 0, -1) == WRONGTYPE
    assert err(r, "ZRANGESTORE", "dst", "src", 0) == arity("zrangestore")
    assert x(r, "EXISTS", "dst") == 0


# ---- ZREMRANGEBY* --------------------------------------------------------------------------------

def test_zremrangebyrank(abcde):
    r = abcde
    assert x(r, "ZREMRANGEBYRANK", "z", 0, 0) == 1
    assert x(r, "ZREMRANGEBYRANK", "z", -1, -1) == 1
    assert x(r, "ZREMRANGEBYRANK", "z", 5, 10) == 0
    assert x(r, "ZREMRANGEBYRANK", "z", 2, 1) == 0
    assert members(r, "z") == [b"b", b"c", b"d"]
    assert x(r, "ZREMRANGEBYRANK", "z", -100, -3) == 1
    assert members(r, "z") == [b"c", b"d"]
    assert x(r, "ZREMRANGEBYRANK", "nokey", 0, 1) == 0
    assert err(r, "ZREMRANGEBYRANK", "z", "a", 1) == NOT_INT
    assert err(r, "ZREMRANGEBYRANK", "nokey", "a", 1) == NOT_INT
    assert err(r, "ZREMRANGEBYRANK", "z", 0) == arity("zremrangebyrank")
    assert err(r, "ZREMRANGEBYRANK", "z", 0, 1, 2) == arity("zremrangebyrank")
    assert x(r, "ZREMRANGEBYRANK", "z", 0, -1) == 2
    assert x(r, "EXISTS", "z") == 0


def test_zremrangebyscore(abcde):
    r = abcde
    assert x(r, "ZREMRANGEBYSCORE", "z", "(1", 3) == 2
    assert members(r, "z") == [b"a", b"d", b"e"]
    assert x(r, "ZREMRANGEBYSCORE", "z", 10, 20) == 0
    assert x(r, "ZREMRANGEBYSCORE", "z", 5, 1) == 0
    assert x(r, "ZREMRANGEBYSCORE", "nokey", 0, 3) == 0
    assert err(r, "ZREMRANGEBYSCORE", "z", "x", 3) == MINMAX_FLOAT
    assert err(r, "ZREMRANGEBYSCORE", "nokey", "x", 3) == MINMAX_FLOAT
    assert err(r, "ZREMRANGEBYSCORE", "z", 1) == arity("zremrangebyscore")
    assert x(r, "ZREMRANGEBYSCORE", "z", "-inf", "+inf") == 3
    assert x(r, "EXISTS", "z") == 0


def test_zremrangebylex(lex):
    r = lex
    assert x(r, "ZREMRANGEBYLEX", "z", "(a", "[c") == 2
    assert x(r, "ZREMRANGEBYLEX", "z", "[x", "[y") == 0
    assert x(r, "ZREMRANGEBYLEX", "z", "[", "(a") == 2
    assert members(r, "z") == [b"a", b"d", b"e", b"\xff"]
    assert x(r, "ZREMRANGEBYLEX", "nokey", "-", "+") == 0
    assert err(r, "ZREMRANGEBYLEX", "z", "a", "b") == MINMAX_LEX
    assert err(r, "ZREMRANGEBYLEX", "nokey", "a", "b") == MINMAX_LEX
    assert err(r, "ZREMRANGEBYLEX", "z", "[a") == arity("zremrangebylex")
    assert x(r, "ZREMRANGEBYLEX", "z", "-", "+") == 4
    assert x(r, "EXISTS", "z") == 0


# ---- ZPOPMIN / ZPOPMAX ---------------------------------------------------------------------------

def test_zpop(abcde):
    r = abcde
    assert x(r, "ZPOPMIN", "z") == [b"a", b"1"]
    assert x(r, "ZPOPMAX", "z") == [b"e", b"5"]
    assert x(r, "ZPOPMIN", "z", 0) == []
    assert x(r, "ZPOPMIN", "z", 1) == [b"b", b"2"]
    assert x(r, "ZPOPMAX", "z", 10) == [b"d", b"4", b"c", b"3"]  # flat in RESP2
    assert x(r, "EXISTS", "z") == 0
    zadd(r, "z", 1, "a", 2, "b", 3, "c")
    assert x(r, "ZPOPMIN", "z", 2) == [b"a", b"1", b"b", b"2"]
    assert x(r, "ZPOPMIN", "z", "9223372036854775807") == [b"c", b"3"]
    assert x(r, "EXISTS", "z") == 0


def test_zpop_missing_key_is_an_empty_array(r):
    for cmd in ("ZPOPMIN", "ZPOPMAX"):
        assert x(r, cmd, "nokey") == []
        assert x(r, cmd, "nokey", 2) == []
        assert x(r, cmd, "nokey", 0) == []


def test_zpop_ties_and_errors(r):
    zadd(r, "z", 1, "b", 1, "a", 1, "c")
    assert x(r, "ZPOPMIN", "z") == [b"a", b"1"]
    assert x(r, "ZPOPMAX", "z") == [b"c", b"1"]
    for cmd in ("ZPOPMIN", "ZPOPMAX"):
        assert err(r, cmd, "z", -1) == POSITIVE
        assert err(r, cmd, "z", "x") == POSITIVE
        assert err(r, cmd, "z", "1.5") == POSITIVE
        assert err(r, cmd, "z", "9223372036854775808") == POSITIVE
        assert err(r, cmd, "nokey", -1) == POSITIVE
        assert err(r, cmd, "z", 1, 2) == SYNTAX
        assert err(r, cmd) == arity(cmd.lower())
    assert members(r, "z") == [b"b"]


# ---- ZRANDMEMBER ---------------------------------------------------------------------------------

def test_zrandmember_missing_key(r):
    assert x(r, "ZRANDMEMBER", "nokey") is None
    assert x(r, "ZRANDMEMBER", "nokey", 2) == []
    assert x(r, "ZRANDMEMBER", "nokey", -2) == []
    assert x(r, "ZRANDMEMBER", "nokey", 2, "WITHSCORES") == []
    assert err(r, "ZRANDMEMBER", "nokey", "x") == NOT_INT
    assert err(r, "ZRANDMEMBER", "nokey", 2, "foo") == SYNTAX


def test_zrandmember(r):
    scores = {b"a": b"1", b"b": b"2.5", b"c": b"inf", b"d": b"-3", b"e": b"0"}
    zadd(r, "z", *[v for m, s in scores.items() for v in (s, m)])
    for _ in range(20):
        assert x(r, "ZRANDMEMBER", "z") in scores
    assert x(r, "ZRANDMEMBER", "z", 0) == []
    assert x(r, "ZRANDMEMBER", "z", 0, "WITHSCORES") == []
    got = x(r, "ZRANDMEMBER", "z", 3)
    assert len(got) == 3 and len(set(got)) == 3 and set(got) <= set(scores)
    assert sorted(x(r, "ZRANDMEMBER", "z", 5)) == sorted(scores)
    assert sorted(x(r, "ZRANDMEMBER", "z", 100)) == sorted(scores)
    assert sorted(x(r, "ZRANDMEMBER", "z", "9223372036854775807")) == sorted(scores)
    got = x(r, "ZRANDMEMBER", "z", -50)
    assert len(got) == 50 and set(got) <= set(scores)
    flat = x(r, "ZRANDMEMBER", "z", 3, "withscores")
    assert len(flat) == 6 and len(set(flat[0::2])) == 3
    for m, s in zip(flat[0::2], flat[1::2]):
        assert scores[m] == s
    flat = x(r, "ZRANDMEMBER", "z", 10, "WITHSCORES")
    assert sorted(zip(flat[0::2], flat[1::2])) == sorted(scores.items())
    flat = x(r, "ZRANDMEMBER", "z", -20, "WITHSCORES")
    assert len(flat) == 40
    for m, s in zip(flat[0::2], flat[1::2]):
        assert scores[m] == s
    assert x(r, "ZCARD", "z") == 5  # nothing removed


def test_zrandmember_negative_count_repeats(r):
    zadd(r, "z", "1.5", "only")
    assert x(r, "ZRANDMEMBER", "z", -3) == [b"only"] * 3
    assert x(r, "ZRANDMEMBER", "z", -2, "WITHSCORES") == [b"only", b"1.5"] * 2
    assert x(r, "ZRANDMEMBER", "z", 3) == [b"only"]
    assert x(r, "ZRANDMEMBER", "z", 3, "WITHSCORES") == [b"only", b"1.5"]


def test_zrandmember_spreads_over_members(r):
    zadd(r, "z", *[v for i in range(10) for v in (i, "m%d" % i)])
    seen = set()
    for _ in range(200):
        seen.add(x(r, "ZRANDMEMBER", "z"))
    assert len(seen) == 10
    seen = set(x(r, "ZRANDMEMBER", "z", -300))
    assert len(seen) == 10


def test_zrandmember_errors(r):
    zadd(r, "z", 1, "a")
    assert err(r, "ZRANDMEMBER", "z", "x") == NOT_INT
    assert err(r, "ZRANDMEMBER", "z", "1.5") == NOT_INT
    assert err(r, "ZRANDMEMBER", "z", "WITHSCORES") == NOT_INT
    assert err(r, "ZRANDMEMBER", "z", "9223372036854775808") == NOT_INT
    assert err(r, "ZRANDMEMBER", "z", "-9223372036854775808") == LONG_RANGE
    assert err(r, "ZRANDMEMBER", "z", 1, "foo") == SYNTAX
    assert err(r, "ZRANDMEMBER", "z", 1, "WITHSCORES", "foo") == SYNTAX
    # WITHSCORES doubles the reply, so |count| is capped at LONG_MAX / 2.
    assert err(r, "ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES") == OUT_OF_RANGE
    assert err(r, "ZRANDMEMBER", "z", "-9223372036854775807", "WITHSCORES") == OUT_OF_RANGE
    assert err(r, "ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES") == OUT_OF_RANGE
    assert x(r, "ZRANDMEMBER", "z", "4611686018427387903", "WITHSCORES") == [b"a", b"1"]
    assert err(r, "ZRANDMEMBER") == arity("zrandmember")


# ---- ZMPOP ---------------------------------------------------------------------------------------

def test_zmpop(r):
    assert x(r, "ZMPOP", 1, "{a}x", "MIN") is None
    assert x(r, "ZMPOP", 2, "{a}x", "{b}y", "MAX", "COUNT", 3) is None
    zadd(r, "{b}y", 1, "a", 2, "b", 3, "c")
    zadd(r, "{c}z", 9, "q")
    # The reply nests [member, score] pairs even in RESP2.
    assert x(r, "ZMPOP", 3, "{a}x", "{b}y", "{c}z", "MIN") == [b"{b}y", [[b"a", b"1"]]]
    assert x(r, "ZMPOP", 3, "{a}x", "{b}y", "{c}z", "max", "count", 5) == [
        b"{b}y", [[b"c", b"3"], [b"b", b"2"]]]
    assert x(r, "EXISTS", "{b}y") == 0
    assert x(r, "ZMPOP", 3, "{a}x", "{b}y", "{c}z", "MIN", "COUNT", 1) == [b"{c}z", [[b"q", b"9"]]]
    assert x(r, "EXISTS", "{c}z") == 0
    zadd(r, "{a}1", 1, "a", 2, "b")
    zadd(r, "{a}2", 3, "c")
    assert x(r, "ZMPOP", 2, "{a}0", "{a}1", "MAX", "COUNT", 5) == [
        b"{a}1", [[b"b", b"2"], [b"a", b"1"]]]
    assert x(r, "ZMPOP", 2, "{a}1", "{a}2", "MIN") == [b"{a}2", [[b"c", b"3"]]]


def test_zmpop_keeps_ttl(r):
    zadd(r, "z", 1, "a", 2, "b")
    x(r, "EXPIRE", "z", 100)
    assert x(r, "ZMPOP", 1, "z", "MAX") == [b"z", [[b"b", b"2"]]]
    assert 98 <= x(r, "TTL", "z") <= 100


def test_zmpop_errors(r):
    assert err(r, "ZMPOP", 0, "z", "MIN") == NUMKEYS
    assert err(r, "ZMPOP", -1, "z", "MIN") == NUMKEYS
    assert err(r, "ZMPOP", "x", "z", "MIN") == NUMKEYS
    assert err(r, "ZMPOP", 3, "a", "b", "MIN") == SYNTAX
    assert err(r, "ZMPOP", "9223372036854775807", "a", "MIN") == SYNTAX
    assert err(r, "ZMPOP", 2, "a", "b") == SYNTAX
    assert err(r, "ZMPOP", 1, "a", "UP") == SYNTAX
    assert err(r, "ZMPOP", 1, "a", "MIN", "COUNT") == SYNTAX
    assert err(r, "ZMPOP", 1, "a", "MIN", "COUNT", 0) == COUNT_POS
    assert err(r, "ZMPOP", 1, "a", "MIN", "COUNT", -1) == COUNT_POS
    assert err(r, "ZMPOP", 1, "a", "MIN", "COUNT", "x") == COUNT_POS
    assert err(r, "ZMPOP", 1, "a", "MIN", "COUNT", 1, "COUNT", 2) == SYNTAX
    assert err(r, "ZMPOP", 1, "a", "MIN", "foo") == SYNTAX
    assert err(r, "ZMPOP", 1, "a") == arity("zmpop")
    assert err(r, "ZMPOP", 2, "a") == arity("zmpop")
    x(r, "SET", "{a}s", "v")
    zadd(r, "{b}l", 1, "a")
    assert err(r, "ZMPOP", 2, "{a}s", "{b}l", "MIN") == WRONGTYPE
    assert err(r, "ZMPOP", 2, "{a}none", "{a}s", "MIN") == WRONGTYPE
    assert err(r, "ZMPOP", 1, "{a}s", "MIN", "COUNT", "x") == COUNT_POS  # options first
    # A non-empty zset before the wrong-type key wins.
    assert x(r, "ZMPOP", 2, "{b}l", "{a}s", "MIN") == [b"{b}l", [[b"a", b"1"]]]


# ---- ZSCAN ---------------------------------------------------------------------------------------

def zscan_all(r, key, *opts):
    """Iterates to cursor 0; returns the flat [member, score, ...] list."""
    cursor, out = b"0", []
    while True:
        cursor, batch = x(r, "ZSCAN", key, cursor, *opts)
        out += batch
        if cursor == b"0":
            return out


def test_zscan(r):
    assert x(r, "ZSCAN", "nokey", 0) == [b"0", []]
    zadd(r, "z", 1, "a", "2.5", "b", "inf", "c")
    flat = zscan_all(r, "z")
    assert dict(zip(flat[0::2], flat[1::2])) == {b"a": b"1", b"b": b"2.5", b"c": b"inf"}
    flat = zscan_all(r, "z", "COUNT", 1)
    assert dict(zip(flat[0::2], flat[1::2])) == {b"a": b"1", b"b": b"2.5", b"c": b"inf"}
    assert zscan_all(r, "z", "MATCH", "a*") == [b"a", b"1"]
    assert set(zscan_all(r, "z", "match", "*", "COUNT", 100)[0::2]) == {b"a", b"b", b"c"}


def test_zscan_many_members(r):
    names = {("m%d" % i).encode(): i for i in range(300)}
    zadd(r, "z", *[v for m, s in names.items() for v in (s, m)])
    zadd(r, "z", "0.1", "other", 7, "")
    flat = zscan_all(r, "z", "COUNT", 7)
    got = dict(zip(flat[0::2], flat[1::2]))
    assert len(got) == 302
    assert got[b"other"] == b"0.10000000000000001" and got[b""] == b"7"
    assert all(got[m] == str(s).encode() for m, s in names.items())
    flat = zscan_all(r, "z", "MATCH", "m1?", "COUNT", 1000)
    assert set(flat[0::2]) == {("m1%d" % i).encode() for i in range(10)}
    assert set(zscan_all(r, "z", "MATCH", "*")[0::2]) == set(got)  # a lone * matches b""
    assert zscan_all(r, "z", "MATCH", "oth*", "MATCH", "x*") == []  # the last MATCH wins


def test_zscan_errors(r):
    zadd(r, "z", 1, "a")
    assert err(r, "ZSCAN", "z", "abc") == CURSOR
    assert err(r, "ZSCAN", "z", " 1") == CURSOR
    assert err(r, "ZSCAN", "z", "18446744073709551616") == CURSOR
    assert err(r, "ZSCAN", "z", 0, "COUNT", 0) == SYNTAX
    assert err(r, "ZSCAN", "z", 0, "COUNT", -1) == SYNTAX
    assert err(r, "ZSCAN", "z", 0, "COUNT", "x") == NOT_INT
    assert err(r, "ZSCAN", "z", 0, "COUNT") == SYNTAX
    assert err(r, "ZSCAN", "z", 0, "MATCH") == SYNTAX
    assert err(r, "ZSCAN", "z", 0, "TYPE", "zset") == SYNTAX
    assert err(r, "ZSCAN", "z", 0, "NOVALUES") == SYNTAX
    assert err(r, "ZSCAN", "z") == arity("zscan")
    # A missing key replies an empty scan before the options are read; the cursor is first.
    assert x(r, "ZSCAN", "nokey", 0, "COUNT", 0) == [b"0", []]
    assert err(r, "ZSCAN", "nokey", "abc") == CURSOR
    x(r, "SET", "str", "v")
    assert err(r, "ZSCAN", "str", "x") == CURSOR
    assert err(r, "ZSCAN", "str", 0, "COUNT", 0) == WRONGTYPE


# ---- ZUNION / ZINTER / ZDIFF / ZINTERCARD --------------------------------------------------------

@pytest.fixture
def three(r):
    """Zsets in three different slots."""
    zadd(r, "{a}1", 1, "a", 2, "b", 3, "c")
    zadd(r, "{b}2", 10, "b", 20, "c", 30, "d")
    zadd(r, "{c}3", 100, "c", 200, "d", 300, "e")
    return r


def test_zunion(three):
    r = three
    assert x(r, "ZUNION", 2, "{a}1", "{b}2") == [b"a", b"b", b"c", b"d"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WITHSCORES") == [
        b"a", b"1", b"b", b"12", b"c", b"23", b"d", b"30"]
    assert x(r, "ZUNION", 3, "{a}1", "{b}2", "{c}3", "withscores") == [
        b"a", b"1", b"b", b"12", b"c", b"123", b"d", b"230", b"e", b"300"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WEIGHTS", 2, 3, "WITHSCORES") == [
        b"a", b"2", b"b", b"34", b"c", b"66", b"d", b"90"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "AGGREGATE", "MIN", "WITHSCORES") == [
        b"a", b"1", b"b", b"2", b"c", b"3", b"d", b"30"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "aggregate", "max", "WITHSCORES") == [
        b"a", b"1", b"b", b"10", b"c", b"20", b"d", b"30"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "AGGREGATE", "SUM", "WITHSCORES") == [
        b"a", b"1", b"b", b"12", b"c", b"23", b"d", b"30"]
    # The last WEIGHTS / AGGREGATE wins; options come in any order.
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WEIGHTS", 1, 1, "WEIGHTS", 2, 2, "WITHSCORES") == [
        b"a", b"2", b"b", b"24", b"c", b"46", b"d", b"60"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "AGGREGATE", "MIN", "AGGREGATE", "MAX",
             "WITHSCORES") == [b"a", b"1", b"b", b"10", b"c", b"20", b"d", b"30"]
    assert x(r, "ZUNION", 1, "{a}1", "WITHSCORES", "WEIGHTS", "0.5", "AGGREGATE", "MAX") == [
        b"a", b"0.5", b"b", b"1", b"c", b"1.5"]
    assert x(r, "ZUNION", 1, "{a}1", "WITHSCORES", "WITHSCORES") == [
        b"a", b"1", b"b", b"2", b"c", b"3"]
    assert x(r, "ZUNION", 2, "{a}1", "nokey", "WITHSCORES") == [b"a", b"1", b"b", b"2", b"c", b"3"]
    assert x(r, "ZUNION", 2, "nokey", "nokey2") == []
    assert x(r, "ZUNION", 2, "{a}1", "{a}1", "WITHSCORES") == [b"a", b"2", b"b", b"4", b"c", b"6"]


def test_zinter(three):
    r = three
    assert x(r, "ZINTER", 2, "{a}1", "{b}2", "WITHSCORES") == [b"b", b"12", b"c", b"23"]
    assert x(r, "ZINTER", 2, "{a}1", "{b}2") == [b"b", b"c"]
    assert x(r, "ZINTER", 3, "{a}1", "{b}2", "{c}3", "WITHSCORES") == [b"c", b"123"]
    assert x(r, "ZINTER", 2, "{a}1", "{b}2", "WEIGHTS", 1, -1, "AGGREGATE", "MAX",
             "WITHSCORES") == [b"b", b"2", b"c", b"3"]
    assert x(r, "ZINTER", 2, "{a}1", "{b}2", "AGGREGATE", "MIN", "WITHSCORES") == [
        b"b", b"2", b"c", b"3"]
    assert x(r, "ZINTER", 2, "{a}1", "nokey") == []
    assert x(r, "ZINTER", 2, "nokey", "{a}1") == []
    assert x(r, "ZINTER", 1, "{a}1") == [b"a", b"b", b"c"]


def test_zdiff(three):
    r = three
    assert x(r, "ZDIFF", 2, "{a}1", "{b}2", "WITHSCORES") == [b"a", b"1"]
    assert x(r, "ZDIFF", 2, "{b}2", "{a}1") == [b"d"]
    assert x(r, "ZDIFF", 3, "{c}3", "{a}1", "{b}2", "WITHSCORES") == [b"e", b"300"]
    assert x(r, "ZDIFF", 1, "{a}1") == [b"a", b"b", b"c"]
    assert x(r, "ZDIFF", 2, "{a}1", "nokey") == [b"a", b"b", b"c"]
    assert x(r, "ZDIFF", 2, "nokey", "{a}1") == []
    assert x(r, "ZDIFF", 2, "{a}1", "{a}1") == []
    # ZDIFF takes no WEIGHTS / AGGREGATE.
    assert err(r, "ZDIFF", 2, "{a}1", "{b}2", "WEIGHTS", 1, 1) == SYNTAX
    assert err(r, "ZDIFF", 2, "{a}1", "{b}2", "AGGREGATE", "SUM") == SYNTAX
    assert err(r, "ZDIFF", 2, "{a}1", "{b}2", "foo") == SYNTAX


def test_zintercard(three):
    r = three
    assert x(r, "ZINTERCARD", 2, "{a}1", "{b}2") == 2
    assert x(r, "ZINTERCARD", 3, "{a}1", "{b}2", "{c}3") == 1
    assert x(r, "ZINTERCARD", 2, "{a}1", "{b}2", "LIMIT", 1) == 1
    assert x(r, "ZINTERCARD", 2, "{a}1", "{b}2", "limit", 0) == 2  # 0: no limit
    assert x(r, "ZINTERCARD", 2, "{a}1", "{b}2", "LIMIT", 100) == 2
    assert x(r, "ZINTERCARD", 1, "{a}1", "LIMIT", 1, "LIMIT", 3) == 3
    assert x(r, "ZINTERCARD", 1, "{a}1") == 3
    assert x(r, "ZINTERCARD", 2, "{a}1", "nokey") == 0
    assert x(r, "ZINTERCARD", 1, "nokey") == 0


def test_zintercard_errors(three):
    r = three
    assert err(r, "ZINTERCARD", 0, "{a}1") == at_least_one_key("zintercard")
    assert err(r, "ZINTERCARD", -1, "{a}1") == at_least_one_key("zintercard")
    assert err(r, "ZINTERCARD", "x", "{a}1") == NOT_INT
    assert err(r, "ZINTERCARD", 3, "{a}1") == SYNTAX
    assert err(r, "ZINTERCARD", 1, "{a}1", "{b}2") == SYNTAX
    assert err(r, "ZINTERCARD", 2, "{a}1", "{b}2", "LIMIT", -1) == LIMIT_NEG
    assert err(r, "ZINTERCARD", 2, "{a}1", "{b}2", "LIMIT", "x") == LIMIT_NEG
    assert err(r, "ZINTERCARD", 2, "{a}1", "{b}2", "LIMIT") == SYNTAX
    assert err(r, "ZINTERCARD", 2, "{a}1", "{b}2", "foo", 1) == SYNTAX
    assert err(r, "ZINTERCARD", 2, "{a}1", "{b}2", "WEIGHTS", 1, 1) == SYNTAX
    assert err(r, "ZINTERCARD", 1) == arity("zintercard")


@pytest.mark.parametrize("cmd", ["ZUNION", "ZINTER", "ZDIFF"])
def test_set_operation_errors(three, cmd):
    r = three
    low = cmd.lower()
    assert err(r, cmd, 0, "{a}1") == at_least_one_key(low)
    assert err(r, cmd, -1, "{a}1") == at_least_one_key(low)
    assert err(r, cmd, "x", "{a}1") == NOT_INT
    assert err(r, cmd, 3, "{a}1", "{b}2") == SYNTAX
    assert err(r, cmd, 1) == arity(low)
    if cmd == "ZDIFF":
        return
    assert err(r, cmd, 2, "{a}1", "{b}2", "WEIGHTS", 2, "WITHSCORES") == WEIGHT
    assert err(r, cmd, 2, "{a}1", "{b}2", "WEIGHTS", 2) == SYNTAX  # too few weights at the end
    assert err(r, cmd, 2, "{a}1", "{b}2", "WEIGHTS", 2, 3, 4) == SYNTAX
    assert err(r, cmd, 2, "{a}1", "{b}2", "WEIGHTS") == SYNTAX
    for bad in ("x", "nan", "1e400", ""):
        assert err(r, cmd, 2, "{a}1", "{b}2", "WEIGHTS", 2, bad) == WEIGHT
    assert err(r, cmd, 2, "{a}1", "{b}2", "AGGREGATE", "AVG") == SYNTAX
    assert err(r, cmd, 2, "{a}1", "{b}2", "AGGREGATE") == SYNTAX
    assert err(r, cmd, 2, "{a}1", "{b}2", "LIMIT", 1) == SYNTAX
    assert err(r, cmd, 2, "{a}1", "{b}2", "foo") == SYNTAX
    assert err(r, cmd, 1, "nokey", "WEIGHTS", "x") == WEIGHT


def test_weights_and_infinities(r):
    zadd(r, "{a}1", 1, "a", "inf", "b", "-inf", "c", 0, "d")
    zadd(r, "{b}2", -1, "a", "-inf", "b", "inf", "c", 5, "d")
    # inf + -inf sums to 0, and inf * 0 weights to 0.
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WITHSCORES") == [
        b"a", b"0", b"b", b"0", b"c", b"0", b"d", b"5"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WEIGHTS", 0, 0, "WITHSCORES") == [
        b"a", b"0", b"b", b"0", b"c", b"0", b"d", b"0"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WEIGHTS", "inf", 1, "WITHSCORES") == [
        b"b", b"0", b"c", b"0", b"d", b"5", b"a", b"inf"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WEIGHTS", "-inf", 1, "AGGREGATE", "MAX",
             "WITHSCORES") == [b"b", b"-inf", b"a", b"-1", b"d", b"5", b"c", b"inf"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "AGGREGATE", "MIN", "WEIGHTS", 1, 1,
             "WITHSCORES") == [b"b", b"-inf", b"c", b"-inf", b"a", b"-1", b"d", b"0"]
    assert x(r, "ZUNION", 2, "{a}1", "{b}2", "WEIGHTS", "0x2", 1, "WITHSCORES") == [
        b"b", b"0", b"c", b"0", b"a", b"1", b"d", b"5"]
    assert x(r, "ZINTER", 2, "{a}1", "{b}2", "AGGREGATE", "MAX", "WITHSCORES") == [
        b"a", b"1", b"d", b"5", b"b", b"inf", b"c", b"inf"]


# ---- *STORE --------------------------------------------------------------------------------------

def test_zunionstore_cross_slot(three):
    r = three
    assert x(r, "ZUNIONSTORE", "{c}dst", 2, "{a}1", "{b}2") == 4
    assert scored(r, "{c}dst") == [(b"a", b"1"), (b"b", b"12"), (b"c", b"23"), (b"d", b"30")]
    assert x(r, "ZUNIONSTORE", "{b}dst", 3, "{a}1", "{b}2", "{c}3", "WEIGHTS", 1, 0, "0.5",
             "AGGREGATE", "MAX") == 5
    assert scored(r, "{b}dst") == [(b"a", b"1"), (b"b", b"2"), (b"c", b"50"), (b"d", b"100"),
                                   (b"e", b"150")]
    assert x(r, "ZUNIONSTORE", "{a}1", 2, "{a}1", "{c}3") == 5  # a source as destination
    assert scored(r, "{a}1") == [(b"a", b"1"), (b"b", b"2"), (b"c", b"103"), (b"d", b"200"),
                                 (b"e", b"300")]
    assert err(r, "ZUNIONSTORE", "d", 1) == arity("zunionstore")


def test_zinterstore_cross_slot(three):
    r = three
    assert x(r, "ZINTERSTORE", "{c}dst", 2, "{a}1", "{b}2") == 2
    assert scored(r, "{c}dst") == [(b"b", b"12"), (b"c", b"23")]
    assert x(r, "ZINTERSTORE", "{a}dst", 3, "{a}1", "{b}2", "{c}3", "AGGREGATE", "MIN") == 1
    assert scored(r, "{a}dst") == [(b"c", b"3")]
    assert x(r, "ZINTERSTORE", "{b}dst", 2, "{a}1", "{b}2", "WEIGHTS", 2, "-1") == 2
    assert scored(r, "{b}dst") == [(b"c", b"-14"), (b"b", b"-6")]
    assert err(r, "ZINTERSTORE", "d") == arity("zinterstore")


def test_zdiffstore_cross_slot(three):
    r = three
    assert x(r, "ZDIFFSTORE", "{c}dst", 2, "{a}1", "{b}2") == 1
    assert scored(r, "{c}dst") == [(b"a", b"1")]
    assert x(r, "ZDIFFSTORE", "{a}dst", 2, "{c}3", "{b}2") == 1
    assert scored(r, "{a}dst") == [(b"e", b"300")]
    assert x(r, "ZDIFFSTORE", "{b}dst", 1, "{c}3") == 3
    assert scored(r, "{b}dst") == [(b"c", b"100"), (b"d", b"200"), (b"e", b"300")]
    assert err(r, "ZDIFFSTORE", "{b}dst", 2, "{c}3", "{b}2", "WEIGHTS", 1, 1) == SYNTAX
    assert err(r, "ZDIFFSTORE", "d", 1) == arity("zdiffstore")


@pytest.mark.parametrize("cmd", ["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"])
def test_store_errors(three, cmd):
    r = three
    low = cmd.lower()
    assert err(r, cmd, "{c}d", 0, "{a}1") == at_least_one_key(low)
    assert err(r, cmd, "{c}d", -1, "{a}1") == at_least_one_key(low)
    assert err(r, cmd, "{c}d", "x", "{a}1") == NOT_INT
    assert err(r, cmd, "{c}d", 2, "{a}1") == SYNTAX
    assert err(r, cmd, "{c}d", 1, "{a}1", "WITHSCORES") == SYNTAX
    if cmd != "ZDIFFSTORE":
        assert err(r, cmd, "{c}d", 2, "{a}1", "{b}2", "WEIGHTS", 1) == SYNTAX
        assert err(r, cmd, "{c}d", 2, "{a}1", "{b}2", "WEIGHTS", 1, "x") == WEIGHT
        assert err(r, cmd, "{c}d", 2, "{a}1", "{b}2", "WEIGHTS", 1, 2, 3) == SYNTAX
        assert err(r, cmd, "{c}d", 2, "{a}1", "{b}2", "WEIGHTS", 1, "WITHSCORES") == WEIGHT
        assert err(r, cmd, "{c}d", 2, "{a}1", "{b}2", "AGGREGATE", "foo") == SYNTAX
    assert x(r, "EXISTS", "{c}d") == 0


def test_store_empty_result_deletes_destination(three):
    r = three
    x(r, "SET", "{c}dst", "string")
    assert x(r, "ZINTERSTORE", "{c}dst", 2, "{a}1", "nokey") == 0
    assert x(r, "EXISTS", "{c}dst") == 0
    zadd(r, "{c}dst", 1, "x")
    assert x(r, "ZDIFFSTORE", "{c}dst", 2, "{a}1", "{a}1") == 0
    assert x(r, "EXISTS", "{c}dst") == 0
    zadd(r, "{c}dst", 1, "x")
    assert x(r, "ZUNIONSTORE", "{c}dst", 1, "nokey") == 0
    assert x(r, "EXISTS", "{c}dst") == 0
    zadd(r, "{c}dst", 1, "x")
    zadd(r, "{b}other", 1, "zz")
    assert x(r, "ZINTERSTORE", "{c}dst", 2, "{a}1", "{b}other") == 0
    assert x(r, "EXISTS", "{c}dst") == 0


def test_store_overwrites_any_type_and_drops_ttl(three):
    r = three
    x(r, "SET", "dst", "string", "EX", 100)
    assert x(r, "ZUNIONSTORE", "dst", 1, "{a}1") == 3
    assert x(r, "TYPE", "dst") == b"zset"
    assert x(r, "TTL", "dst") == -1
    x(r, "EXPIRE", "dst", 100)
    assert x(r, "ZINTERSTORE", "dst", 2, "{a}1", "{b}2") == 2
    assert x(r, "TTL", "dst") == -1
    x(r, "EXPIRE", "dst", 100)
    assert x(r, "ZDIFFSTORE", "dst", 1, "{a}1") == 3
    assert x(r, "TTL", "dst") == -1
    x(r, "DEL", "dst")
    x(r, "HSET", "dst", "f", "v")  # a hash destination is replaced too
    assert x(r, "ZUNIONSTORE", "dst", 1, "{a}1") == 3
    assert x(r, "TYPE", "dst") == b"zset"
    x(r, "EXPIRE", "{a}1", 100)
    assert x(r, "ZUNIONSTORE", "{a}1", 1, "{a}1") == 3  # the source as destination loses TTL
    assert x(r, "TTL", "{a}1") == -1


def test_store_same_slot(r):
    zadd(r, "{t}1", 1, "a", 2, "b")
    zadd(r, "{t}2", 2, "b", 3, "c")
    assert x(r, "ZUNIONSTORE", "{t}d", 2, "{t}1", "{t}2") == 3
    assert x(r, "ZINTERSTORE", "{t}d", 2, "{t}1", "{t}2") == 1
    assert scored(r, "{t}d") == [(b"b", b"4")]
    assert x(r, "ZDIFFSTORE", "{t}d", 2, "{t}1", "{t}2") == 1
    assert scored(r, "{t}d") == [(b"a", b"1")]


def test_plain_sets_are_accepted_as_sources(r):
    # A set (SADD) is read as a zset whose members all score 1.
    zadd(r, "{a}1", 1, "a", 2, "b", 3, "c")
    x(r, "SADD", "{b}s", "b", "c", "x")
    assert x(r, "ZUNIONSTORE", "{c}d", 2, "{a}1", "{b}s") == 4
    assert scored(r, "{c}d") == [(b"a", b"1"), (b"x", b"1"), (b"b", b"3"), (b"c", b"4")]
    assert x(r, "ZINTERSTORE", "{c}d", 2, "{a}1", "{b}s") == 2
    assert scored(r, "{c}d") == [(b"b", b"3"), (b"c", b"4")]
    assert x(r, "ZDIFFSTORE", "{c}d", 2, "{a}1", "{b}s") == 1
    assert scored(r, "{c}d") == [(b"a", b"1")]
    assert x(r, "ZUNIONSTORE", "{c}d", 1, "{b}s", "WEIGHTS", "2.5") == 3
    assert scored(r, "{c}d") == [(b"b", b"2.5"), (b"c", b"2.5"), (b"x", b"2.5")]
    assert x(r, "ZUNION", 2, "{a}1", "{b}s", "WITHSCORES") == [
        b"a", b"1", b"x", b"1", b"b", b"3", b"c", b"4"]
    assert x(r, "ZINTER", 2, "{a}1", "{b}s", "WITHSCORES") == [b"b", b"3", b"c", b"4"]
    assert x(r, "ZDIFF", 2, "{b}s", "{a}1", "WITHSCORES") == [b"x", b"1"]
    assert x(r, "ZINTERCARD", 2, "{a}1", "{b}s") == 2
    assert x(r, "ZINTER", 1, "{b}s", "WITHSCORES") == [b"b", b"1", b"c", b"1", b"x", b"1"]
    assert x(r, "TYPE", "{b}s") == b"set"


@pytest.mark.parametrize("maker", [("SET", "{b}k", "v"), ("RPUSH", "{b}k", "x"),
                                   ("HSET", "{b}k", "f", "v")])
def test_other_types_as_sources_are_wrongtype(r, maker):
    zadd(r, "{a}1", 1, "a")
    x(r, *maker)
    for cmd in (("ZUNIONSTORE", "{c}d", 2, "{a}1", "{b}k"),
                ("ZINTERSTORE", "{c}d", 2, "{a}1", "{b}k"),
                ("ZDIFFSTORE", "{c}d", 2, "{a}1", "{b}k"),
                ("ZUNION", 2, "{a}1", "{b}k"), ("ZINTER", 2, "{a}1", "{b}k"),
                ("ZDIFF", 2, "{a}1", "{b}k"), ("ZINTERCARD", 2, "{a}1", "{b}k"),
                # a missing key before it does not hide its type, even for ZINTER / ZDIFF
                ("ZINTER", 2, "nokey", "{b}k"), ("ZDIFF", 2, "nokey", "{b}k"),
                ("ZINTERCARD", 2, "nokey", "{b}k"),
                ("ZINTERSTORE", "{c}d", 2, "nokey", "{b}k"),
                ("ZRANGESTORE", "{c}d", "{b}k", 0, -1)):
        assert err(r, *cmd) == WRONGTYPE, cmd
    assert x(r, "EXISTS", "{c}d") == 0


def test_source_types_are_checked_before_options(r):
    x(r, "SET", "str", "v")
    assert err(r, "ZUNION", 1, "str", "WEIGHTS", "x") == WRONGTYPE
    assert err(r, "ZUNION", 1, "str", "foo") == WRONGTYPE
    assert err(r, "ZDIFF", 1, "str", "foo") == WRONGTYPE
    assert err(r, "ZUNIONSTORE", "d", 1, "str", "AGGREGATE", "foo") == WRONGTYPE
    assert err(r, "ZINTERCARD", 1, "str", "LIMIT", -1) == WRONGTYPE
    assert err(r, "ZUNION", 3, "nokey", "str") == SYNTAX  # numkeys is checked first
    assert err(r, "ZUNIONSTORE", "d", 1, "nokey", "AGGREGATE", "foo") == SYNTAX
    assert err(r, "ZINTERCARD", 1, "nokey", "LIMIT", -1) == LIMIT_NEG


# ---- types, TTL, generic commands ----------------------------------------------------------------

@pytest.mark.parametrize("cmd", [
    ["ZADD", "s", 1, "a"], ["ZADD", "s", "INCR", 1, "a"], ["ZCARD", "s"], ["ZCOUNT", "s", 0, 1],
    ["ZCOUNT", "s", 2, 1], ["ZDIFF", 1, "s"], ["ZDIFFSTORE", "d", 1, "s"], ["ZINCRBY", "s", 1, "a"],
    ["ZINTER", 1, "s"], ["ZINTERCARD", 1, "s"], ["ZINTERSTORE", "d", 1, "s"],
    ["ZLEXCOUNT", "s", "-", "+"], ["ZLEXCOUNT", "s", "+", "-"], ["ZMPOP", 1, "s", "MIN"],
    ["ZMSCORE", "s", "a"], ["ZPOPMAX", "s"], ["ZPOPMIN", "s"], ["ZPOPMIN", "s", 0],
    ["ZPOPMAX", "s", 2], ["ZRANDMEMBER", "s"], ["ZRANDMEMBER", "s", 0],
    ["ZRANDMEMBER", "s", 2, "WITHSCORES"], ["ZRANGE", "s", 0, -1], ["ZRANGE", "s", 5, 1],
    ["ZRANGE", "s", 0, 1, "BYSCORE", "LIMIT", 0, 0], ["ZRANGE", "s", "-", "+", "BYLEX"],
    ["ZRANGEBYLEX", "s", "-", "+"], ["ZRANGEBYSCORE", "s", 0, 1], ["ZRANGEBYSCORE", "s", 2, 1],
    ["ZRANGESTORE", "d", "s", 0, -1], ["ZRANK", "s", "a"], ["ZREM", "s", "a"],
    ["ZREMRANGEBYLEX", "s", "-", "+"], ["ZREMRANGEBYRANK", "s", 0, 1],
    ["ZREMRANGEBYRANK", "s", 5, 1], ["ZREMRANGEBYSCORE", "s", 0, 1], ["ZREVRANGE", "s", 0, 1],
    ["ZREVRANGEBYLEX", "s", "+", "-"], ["ZREVRANGEBYSCORE", "s", 1, 0], ["ZREVRANK", "s", "a"],
    ["ZSCAN", "s", 0], ["ZSCORE", "s", "a"], ["ZUNION", 1, "s"], ["ZUNIONSTORE", "d", 1, "s"],
])
def test_wrongtype(r, cmd):
    x(r, "SET", "s", "v")
    assert err(r, *cmd) == WRONGTYPE
    assert x(r, "GET", "s") == b"v"
    assert x(r, "EXISTS", "d") == 0


@pytest.mark.parametrize("cmd,args", [
    ("zadd", ["z"]), ("zadd", ["z", 1]), ("zcard", []), ("zcard", ["z", "x"]),
    ("zcount", ["z", 0]), ("zcount", ["z", 0, 1, 2]), ("zdiff", [1]), ("zdiffstore", ["d", 1]),
    ("zincrby", ["z", 1]), ("zincrby", ["z", 1, "a", "b"]), ("zinter", [1]),
    ("zintercard", [1]), ("zinterstore", ["d", 1]), ("zlexcount", ["z", "-"]),
    ("zlexcount", ["z", "-", "+", "x"]), ("zmpop", [1, "z"]), ("zmscore", ["z"]),
    ("zpopmax", []), ("zpopmin", []), ("zrandmember", []), ("zrange", ["z", 0]),
    ("zrangebylex", ["z", "-"]), ("zrangebyscore", ["z", 0]), ("zrangestore", ["d", "z", 0]),
    ("zrank", ["z"]), ("zrank", ["z", "a", "b"]), ("zrem", ["z"]),
    ("zremrangebylex", ["z", "-"]), ("zremrangebylex", ["z", "-", "+", "x"]),
    ("zremrangebyrank", ["z", 0]), ("zremrangebyrank", ["z", 0, 1, 2]),
    ("zremrangebyscore", ["z", 0]), ("zremrangebyscore", ["z", 0, 1, 2]),
    ("zrevrange", ["z", 0]), ("zrevrangebylex", ["z", "+"]), ("zrevrangebyscore", ["z", 1]),
    ("zrevrank", ["z"]), ("zrevrank", ["z", "a", "b"]), ("zscan", ["z"]), ("zscore", ["z"]),
    ("zscore", ["z", "a", "b"]), ("zunion", [1]), ("zunionstore", ["d", 1]),
])
def test_arity(r, cmd, args):
    zadd(r, "z", 1, "a")
    assert err(r, cmd.upper(), *args) == arity(cmd)
    assert err(r, cmd, *args) == arity(cmd)  # the name in the error is always lower case


def test_other_types_see_a_zset_as_wrongtype(r):
    zadd(r, "z", 1, "a")
    assert err(r, "GET", "z") == WRONGTYPE
    assert err(r, "SADD", "z", "a") == WRONGTYPE
    assert err(r, "LPUSH", "z", "a") == WRONGTYPE
    assert err(r, "HSET", "z", "f", "v") == WRONGTYPE
    assert err(r, "SUNION", "z") == WRONGTYPE  # set commands do not read zsets
    assert scored(r, "z") == [(b"a", b"1")]


def test_modifications_keep_ttl(r):
    zadd(r, "z", 1, "a", 2, "b", 3, "c", 4, "d", 5, "e")
    assert x(r, "EXPIRE", "z", 100) == 1
    zadd(r, "z", 6, "f")
    zadd(r, "z", "INCR", 1, "a")
    x(r, "ZINCRBY", "z", 1, "b")
    x(r, "ZREM", "z", "f")
    x(r, "ZPOPMIN", "z")
    x(r, "ZPOPMAX", "z", 1)
    x(r, "ZREMRANGEBYSCORE", "z", 100, 200)
    x(r, "ZREMRANGEBYRANK", "z", 5, 10)
    x(r, "ZREMRANGEBYLEX", "z", "[x", "[y")
    x(r, "ZMPOP", 1, "z", "MIN")
    assert 98 <= x(r, "TTL", "z") <= 100
    assert scored(r, "z") == [(b"c", b"3"), (b"d", b"4")]


@pytest.mark.parametrize("cmd", [
    ["ZREM", "z", "a"], ["ZPOPMIN", "z"], ["ZPOPMAX", "z", 5], ["ZMPOP", 1, "z", "MAX"],
    ["ZREMRANGEBYRANK", "z", 0, -1], ["ZREMRANGEBYSCORE", "z", "-inf", "+inf"],
    ["ZREMRANGEBYLEX", "z", "-", "+"],
])
def test_emptied_zset_is_deleted(r, cmd):
    zadd(r, "z", 1, "a")
    x(r, "EXPIRE", "z", 100)
    x(r, *cmd)
    assert x(r, "EXISTS", "z") == 0
    assert zadd(r, "z", 2, "b") == 1  # a fresh key, no TTL left over
    assert x(r, "TTL", "z") == -1


def test_expired_zset_is_gone(r):
    import time
    zadd(r, "z", 1, "a")
    x(r, "PEXPIRE", "z", 1)
    time.sleep(0.05)
    assert x(r, "ZCARD", "z") == 0
    assert x(r, "ZSCORE", "z", "a") is None
    assert zadd(r, "z", 2, "b") == 1
    assert scored(r, "z") == [(b"b", b"2")]
    assert x(r, "TTL", "z") == -1


def test_generic_commands_on_a_zset(r):
    zadd(r, "z", 1, "a", 2, "b")
    assert x(r, "TYPE", "z") == b"zset"
    assert x(r, "OBJECT", "ENCODING", "z") == b"listpack"
    assert x(r, "EXPIRE", "z", 100) == 1
    assert x(r, "COPY", "z", "{a}z2") == 1
    assert 98 <= x(r, "TTL", "{a}z2") <= 100  # COPY keeps the TTL
    zadd(r, "{a}z2", 3, "c")
    assert scored(r, "z") == [(b"a", b"1"), (b"b", b"2")]
    assert scored(r, "{a}z2") == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]
    assert x(r, "COPY", "z", "{a}z2") == 0
    assert x(r, "COPY", "z", "{a}z2", "REPLACE") == 1
    assert scored(r, "{a}z2") == [(b"a", b"1"), (b"b", b"2")]
    assert x(r, "RENAME", "z", "{b}z3") == b"OK"
    assert x(r, "EXISTS", "z") == 0
    assert scored(r, "{b}z3") == [(b"a", b"1"), (b"b", b"2")]
    assert 98 <= x(r, "TTL", "{b}z3") <= 100
    assert x(r, "OBJECT", "ENCODING", "{b}z3") == b"listpack"
    assert x(r, "PERSIST", "{b}z3") == 1
    assert x(r, "TTL", "{b}z3") == -1
    assert x(r, "DEL", "{a}z2", "{b}z3") == 2
    assert x(r, "EXISTS", "{a}z2", "{b}z3") == 0


def test_scan_type_zset(r):
    zadd(r, "z1", 1, "a")
    zadd(r, "{a}z2", 1, "a")
    x(r, "SET", "str", "v")
    x(r, "SADD", "set", "a")
    x(r, "RPUSH", "list", "a")
    found, cursor = [], b"0"
    while True:
        cursor, keys = x(r, "SCAN", cursor, "TYPE", "zset", "COUNT", 100)
        found += keys
        if cursor == b"0":
            break
    assert sorted(found) == [b"z1", b"{a}z2"]
    found, cursor = [], b"0"
    while True:
        cursor, keys = x(r, "SCAN", cursor, "TYPE", "ZSET")
        found += keys
        if cursor == b"0":
            break
    assert sorted(found) == [b"z1", b"{a}z2"]


@pytest.mark.skipif(not is_redis(), reason="Redis encodings: only small zsets are pinned")
def test_redis_encoding_conversions(r):
    zadd(r, "z", *[v for i in range(128) for v in (i, "m%d" % i)])
    assert x(r, "OBJECT", "ENCODING", "z") == b"listpack"
    zadd(r, "z", 128, "m128")
    assert x(r, "OBJECT", "ENCODING", "z") == b"skiplist"
    x(r, "ZREMRANGEBYRANK", "z", 1, -1)
    assert x(r, "OBJECT", "ENCODING", "z") == b"skiplist"  # no conversion back
    zadd(r, "y", 1, "a" * 64)
    assert x(r, "OBJECT", "ENCODING", "y") == b"listpack"
    zadd(r, "y", 1, "a" * 65)
    assert x(r, "OBJECT", "ENCODING", "y") == b"skiplist"
    # A skiplist keeps -0 as a double and replies "-0" (a listpack replies "0").
    zadd(r, "y", "-0", "negzero")
    assert x(r, "ZSCORE", "y", "negzero") == b"-0"


# ---- a model check ----------------------------------------------------------------------------

def test_random_operations_match_a_model(r):
    rng = seeded_rng("zset-model")
    names = [b"", b"a", b"b", b"ab", b"\xff", b"\x00", b"B"] + [b"m%d" % i for i in range(40)]
    values = [0, 1, -1, 2.5, 0.1, 1e20, -3.75, 7, float("inf"), float("-inf")]
    model = {}

    def expect_all():
        ranked = sorted(model.items(), key=lambda kv: (kv[1], kv[0]))
        assert scored(r, "z") == [(m, fmt(s)) for m, s in ranked]

    for step in range(300):
        op = rng.randrange(6)
        if op <= 1:
            pairs = [(rng.choice(values), rng.choice(names)) for _ in range(rng.randint(1, 4))]
            added = len({m for _, m in pairs} - set(model))
            assert zadd(r, "z", *[a for p in pairs for a in (repr(p[0]), p[1])]) == added
            for s, m in pairs:
                model[m] = s
        elif op == 2:
            gone = [rng.choice(names) for _ in range(rng.randint(1, 3))]
            assert x(r, "ZREM", "z", *gone) == len(set(gone) & set(model))
            for m in gone:
                model.pop(m, None)
        elif op == 3:
            m, inc = rng.choice(names), rng.choice([1, -2, 0.5, 10])
            model[m] = model.get(m, 0) + inc
            assert x(r, "ZINCRBY", "z", inc, m) == fmt(model[m])
        elif op == 4:
            lo, hi = sorted([rng.choice(values[:8]), rng.choice(values[:8])])
            want = sorted((s, m) for m, s in model.items() if lo < s <= hi)
            assert x(r, "ZRANGEBYSCORE", "z", "(%r" % lo, repr(hi)) == [m for _, m in want]
            assert x(r, "ZCOUNT", "z", "(%r" % lo, repr(hi)) == len(want)
        else:
            if model:
                m = rng.choice(sorted(model))
                ranked = sorted(model.items(), key=lambda kv: (kv[1], kv[0]))
                assert x(r, "ZRANK", "z", m) == [k for k, _ in ranked].index(m)
        if step % 10 == 0:
            expect_all()
    expect_all()
    assert x(r, "ZCARD", "z") == len(model)


# ---- RESP3 / raw wire bytes ----------------------------------------------------------------------

def test_resp2_raw_replies(server, r):
    zadd(r, "z", "1.5", "a")
    with server.raw() as c:
        c.send_command("ZSCORE", "z", "a")
        c.expect(b"$3\r\n1.5\r\n")
        c.send_command("ZSCORE", "z", "nope")
        c.expect(b"$-1\r\n")
        c.send_command("ZRANK", "z", "nope")
        c.expect(b"$-1\r\n")
        c.send_command("ZMSCORE", "z", "a", "nope")
        c.expect(b"*2\r\n$3\r\n1.5\r\n$-1\r\n")
        c.send_command("ZADD", "z", "INCR", "NX", "1", "a")
        c.expect(b"$-1\r\n")
        c.send_command("ZPOPMIN", "nokey")
        c.expect(b"*0\r\n")
        c.send_command("ZMPOP", "1", "nokey", "MIN")
        c.expect(b"*-1\r\n")
        c.send_command("ZRANDMEMBER", "nokey")
        c.expect(b"$-1\r\n")
        c.send_command("ZRANGE", "z", "0", "-1", "WITHSCORES")
        c.expect(b"*2\r\n$1\r\na\r\n$3\r\n1.5\r\n")
        c.send_command("ZMPOP", "1", "z", "MIN")
        c.expect(b"*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\na\r\n$3\r\n1.5\r\n")


def test_resp3_scores(server, r):
    zadd(r, "z", "1.5", "a", 2, "b", "inf", "c", "-inf", "d", "1e20", "e")
    with server.raw() as c:
        assert c.command("HELLO", "3")[b"proto"] == 3
        c.send_command("ZSCORE", "z", "a")
        c.expect(b",1.5\r\n")
        c.send_command("ZSCORE", "z", "b")
        c.expect(b",2\r\n")
        c.send_command("ZSCORE", "z", "c")
        c.expect(b",inf\r\n")
        c.send_command("ZSCORE", "z", "d")
        c.expect(b",-inf\r\n")
        c.send_command("ZSCORE", "z", "e")
        c.expect(b",1e+20\r\n")
        c.send_command("ZSCORE", "z", "nope")
        c.expect(b"_\r\n")
        c.send_command("ZSCORE", "nokey", "a")
        c.expect(b"_\r\n")
        c.send_command("ZMSCORE", "z", "a", "nope", "c")
        c.expect(b"*3\r\n,1.5\r\n_\r\n,inf\r\n")
        c.send_command("ZMSCORE", "nokey", "a")
        c.expect(b"*1\r\n_\r\n")
        c.send_command("ZINCRBY", "z", "1", "a")
        c.expect(b",2.5\r\n")
        c.send_command("ZINCRBY", "z", "0.1", "n")
        c.expect(b",0.10000000000000001\r\n")
        c.send_command("ZADD", "z", "INCR", "1", "b")
        c.expect(b",3\r\n")
        c.send_command("ZADD", "z", "INCR", "NX", "1", "b")
        c.expect(b"_\r\n")
        c.send_command("ZADD", "z", "1", "b")
        c.expect(b":0\r\n")
        c.send_command("ZRANK", "z", "a")
        c.expect(b":3\r\n")
        c.send_command("ZRANK", "z", "nope")
        c.expect(b"_\r\n")
        c.send_command("ZCARD", "z")
        c.expect(b":6\r\n")


def test_resp3_ranges(server, r):
    zadd(r, "z", "1.5", "a", 2, "b", "inf", "c")
    with server.raw() as c:
        c.command("HELLO", "3")
        c.send_command("ZRANGE", "z", "0", "-1", "WITHSCORES")
        c.expect(b"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,2\r\n*2\r\n$1\r\nc\r\n,inf\r\n")
        c.send_command("ZRANGE", "z", "0", "-1")
        c.expect(b"*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n")
        c.send_command("ZRANGE", "z", "0", "1", "REV", "WITHSCORES")
        c.expect(b"*2\r\n*2\r\n$1\r\nc\r\n,inf\r\n*2\r\n$1\r\nb\r\n,2\r\n")
        c.send_command("ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "0", "1")
        c.expect(b"*1\r\n*2\r\n$1\r\na\r\n,1.5\r\n")
        c.send_command("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES", "LIMIT", "0", "1")
        c.expect(b"*1\r\n*2\r\n$1\r\nc\r\n,inf\r\n")
        c.send_command("ZREVRANGE", "z", "0", "0", "WITHSCORES")
        c.expect(b"*1\r\n*2\r\n$1\r\nc\r\n,inf\r\n")
        c.send_command("ZRANGE", "nokey", "0", "-1", "WITHSCORES")
        c.expect(b"*0\r\n")
        c.send_command("ZUNION", "1", "z", "WITHSCORES")
        c.expect(b"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,2\r\n*2\r\n$1\r\nc\r\n,inf\r\n")
        c.send_command("ZINTER", "2", "z", "z", "WITHSCORES", "AGGREGATE", "MAX")
        c.expect(b"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,2\r\n*2\r\n$1\r\nc\r\n,inf\r\n")
        c.send_command("ZDIFF", "1", "z", "WITHSCORES")
        c.expect(b"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,2\r\n*2\r\n$1\r\nc\r\n,inf\r\n")
        c.send_command("ZUNION", "1", "z")
        c.expect(b"*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n")
        # ZSCAN keeps scores as bulk strings in RESP3.
        c.send_command("ZSCAN", "z", "0", "MATCH", "a")
        c.expect(b"*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$3\r\n1.5\r\n")


def test_resp3_pops_and_randmember(server, r):
    zadd(r, "z", "0.5", "a", 1, "b", "2.5", "c", "inf", "d")
    zadd(r, "one", "1.5", "m")
    with server.raw() as c:
        c.command("HELLO", "3")
        c.send_command("ZPOPMIN", "z")  # no count: a flat [member, score]
        c.expect(b"*2\r\n$1\r\na\r\n,0.5\r\n")
        c.send_command("ZPOPMAX", "z", "1")  # with a count: pairs
        c.expect(b"*1\r\n*2\r\n$1\r\nd\r\n,inf\r\n")
        c.send_command("ZPOPMIN", "z", "2")
        c.expect(b"*2\r\n*2\r\n$1\r\nb\r\n,1\r\n*2\r\n$1\r\nc\r\n,2.5\r\n")
        c.send_command("ZPOPMIN", "nokey")
        c.expect(b"*0\r\n")
        c.send_command("ZPOPMIN", "nokey", "2")
        c.expect(b"*0\r\n")
        c.send_command("ZPOPMAX", "one", "0")
        c.expect(b"*0\r\n")
        c.send_command("ZRANDMEMBER", "one")
        c.expect(b"$1\r\nm\r\n")
        c.send_command("ZRANDMEMBER", "one", "1")
        c.expect(b"*1\r\n$1\r\nm\r\n")
        c.send_command("ZRANDMEMBER", "one", "5", "WITHSCORES")
        c.expect(b"*1\r\n*2\r\n$1\r\nm\r\n,1.5\r\n")
        c.send_command("ZRANDMEMBER", "one", "-2", "WITHSCORES")
        c.expect(b"*2\r\n*2\r\n$1\r\nm\r\n,1.5\r\n*2\r\n$1\r\nm\r\n,1.5\r\n")
        c.send_command("ZRANDMEMBER", "nokey")
        c.expect(b"_\r\n")
        c.send_command("ZRANDMEMBER", "nokey", "1", "WITHSCORES")
        c.expect(b"*0\r\n")
        zadd(r, "two", 1, "a", 2, "b")
        c.send_command("ZMPOP", "1", "two", "MIN")
        c.expect(b"*2\r\n$3\r\ntwo\r\n*1\r\n*2\r\n$1\r\na\r\n,1\r\n")
        c.send_command("ZMPOP", "1", "two", "MAX", "COUNT", "2")
        c.expect(b"*2\r\n$3\r\ntwo\r\n*1\r\n*2\r\n$1\r\nb\r\n,2\r\n")
        c.send_command("ZMPOP", "1", "two", "MAX", "COUNT", "2")
        c.expect(b"_\r\n")
    with server.raw() as c:  # a fresh connection is RESP2 again
        c.send_command("ZSCORE", "one", "m")
        c.expect(b"$3\r\n1.5\r\n")


# ---- big zsets -----------------------------------------------------------------------------------

def test_100k_member_zset(r):
    n = 100_000
    batch = 1000
    # Pipelines of 10 commands: a reply then never waits for the whole load (under ASan a
    # 100-command pipeline took longer than the client's 30 s timeout).
    for first in range(0, n, 10 * batch):
        pipe = r.pipeline(transaction=False)
        for start in range(first, first + 10 * batch, batch):
            args = []
            for i in range(start, start + batch):
                args += [i, "m%d" % i]
            pipe.execute_command("ZADD", "big", *args)
        assert pipe.execute() == [batch] * 10
    assert x(r, "ZCARD", "big") == n
    rng = seeded_rng("big-zset")
    for i in [0, 1, n - 1] + [rng.randrange(n) for _ in range(5)]:
        assert x(r, "ZRANK", "big", "m%d" % i) == i
        assert x(r, "ZREVRANK", "big", "m%d" % i) == n - 1 - i
        assert x(r, "ZSCORE", "big", "m%d" % i) == b"%d" % i
    assert x(r, "ZRANK", "big", "nope") is None
    assert x(r, "ZRANGE", "big", 0, 4) == [b"m%d" % i for i in range(5)]
    assert x(r, "ZRANGE", "big", -3, -1, "WITHSCORES") == [
        b"m99997", b"99997", b"m99998", b"99998", b"m99999", b"99999"]
    assert x(r, "ZRANGE", "big", 50000, 50004) == [b"m%d" % i for i in range(50000, 50005)]
    assert x(r, "ZRANGE", "big", 0, 2, "REV") == [b"m99999", b"m99998", b"m99997"]
    assert x(r, "ZRANGEBYSCORE", "big", "(100", "+inf", "LIMIT", 10, 5) == [
        b"m%d" % i for i in range(111, 116)]
    assert x(r, "ZREVRANGEBYSCORE", "big", "+inf", "-inf", "LIMIT", 0, 3) == [
        b"m99999", b"m99998", b"m99997"]
    assert x(r, "ZRANGE", "big", 70000, "(70003", "BYSCORE", "WITHSCORES") == [
        b"m70000", b"70000", b"m70001", b"70001", b"m70002", b"70002"]
    assert x(r, "ZCOUNT", "big", 1000, "(2000") == 1000
    assert len(x(r, "ZRANGE", "big", 0, -1)) == n
    assert x(r, "ZREM", "big", "m0", "m5", "m50000", "m99999", "nope") == 4
    assert x(r, "ZCARD", "big") == n - 4
    assert x(r, "ZRANK", "big", "m50001") == 50001 - 3
    seen, cursor = set(), b"0"
    while True:
        cursor, flat = x(r, "ZSCAN", "big", cursor, "COUNT", 1000)
        for m, s in zip(flat[0::2], flat[1::2]):
            assert s == m[1:]
        seen.update(flat[0::2])
        if cursor == b"0":
            break
    assert len(seen) == n - 4 and b"m0" not in seen and b"m1" in seen
    flat = x(r, "ZPOPMIN", "big", 10)
    assert flat[0::2] == [b"m%d" % i for i in (1, 2, 3, 4, 6, 7, 8, 9, 10, 11)]
    assert flat[1::2] == [b"%d" % i for i in (1, 2, 3, 4, 6, 7, 8, 9, 10, 11)]
    assert x(r, "ZCARD", "big") == n - 14
    got = x(r, "ZRANDMEMBER", "big", 100)
    assert len(set(got)) == 100
    assert x(r, "ZRANGESTORE", "{a}slice", "big", 1000, 1999) == 1000
    assert x(r, "ZCARD", "{a}slice") == 1000
    assert x(r, "ZINTERCARD", 2, "big", "{a}slice") == 1000
    assert x(r, "ZREMRANGEBYSCORE", "big", 0, 49999) == 50000 - 12
    assert x(r, "ZRANGE", "big", 0, 0) == [b"m50001"]
