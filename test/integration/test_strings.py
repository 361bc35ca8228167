"""String commands: exact replies, errors and edge cases as Redis 7.0.15 gives them."""

import time

import pytest

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err

NOT_FLOAT = "ERR value is not a valid float"
OVERFLOW = "ERR increment or decrement would overflow"


# ---- GET / SET basics ----------------------------------------------------------------------------

def test_get_set_basic(r):
    assert r.execute_command("GET", "k") is None
    assert r.execute_command("SET", "k", "v") == b"OK"
    assert r.execute_command("GET", "k") == b"v"
    assert r.execute_command("SET", "k", "w") == b"OK"
    assert r.execute_command("GET", "k") == b"w"
    assert err(r, "GET") == arity("get")
    assert err(r, "GET", "a", "b") == arity("get")
    assert err(r, "SET", "k") == arity("set")


def test_set_reply_is_status_and_get_is_bulk(server, r):
    with server.raw() as c:
        c.send_command("SET", "k", "v")
        c.expect(b"+OK\r\n")
        c.send_command("GET", "k")
        c.expect(b"$1\r\nv\r\n")
        c.send_command("GET", "nokey")
        c.expect(b"$-1\r\n")
        c.send_command("SET", "k", "v", "NX")
        c.expect(b"$-1\r\n")  # a null bulk, not an error


def test_binary_safe_values_and_keys(r):
    every_byte = bytes(range(256))
    assert r.execute_command("SET", every_byte, every_byte) == b"OK"
    assert r.execute_command("GET", every_byte) == every_byte
    assert r.execute_command("STRLEN", every_byte) == 256
    assert r.execute_command("SET", "crlf", b"a\r\nb\r\n$3\r\n*1\r\n") == b"OK"
    assert r.execute_command("GET", "crlf") == b"a\r\nb\r\n$3\r\n*1\r\n"


def test_utf8_round_trip_decoded(rd):
    text = "h\u00e9llo w\u00f6rld \u2713 \U0001f600"
    assert rd.execute_command("SET", "utf8", text) == "OK"
    assert rd.execute_command("GET", "utf8") == text
    assert rd.execute_command("STRLEN", "utf8") == len(text.encode("utf-8"))
    assert rd.execute_command("GETRANGE", "utf8", "1", "2") == "\u00e9"


def test_empty_value(r):
    assert r.execute_command("SET", "e", "") == b"OK"
    assert r.execute_command("GET", "e") == b""
    assert r.execute_command("EXISTS", "e") == 1
    assert r.execute_command("STRLEN", "e") == 0
    assert r.execute_command("SET", "", "empty key") == b"OK"
    assert r.execute_command("GET", "") == b"empty key"


@pytest.mark.parametrize("size", [1 << 20, 20 << 20])
def test_large_values(r, size):
    value = bytes((i * 31 + 7) & 0xFF for i in range(256)) * (size // 256)
    assert r.execute_command("SET", "big", value) == b"OK"
    assert r.execute_command("STRLEN", "big") == size
    assert r.execute_command("GET", "big") == value
    assert r.execute_command("GETRANGE", "big", size - 3, -1) == value[-3:]
    assert r.execute_command("APPEND", "big", "tail") == size + 4
    assert r.execute_command("GETRANGE", "big", -6, -1) == value[-2:] + b"tail"


# ---- SET options ---------------------------------------------------------------------------------

def test_set_nx_xx(r):
    assert r.execute_command("SET", "k", "v", "XX") is None
    assert r.execute_command("EXISTS", "k") == 0
    assert r.execute_command("SET", "k", "v", "NX") == b"OK"
    assert r.execute_command("SET", "k", "w", "NX") is None
    assert r.execute_command("GET", "k") == b"v"
    assert r.execute_command("SET", "k", "w", "XX") == b"OK"
    assert r.execute_command("GET", "k") == b"w"


def test_set_ex_px_exat_pxat(r):
    assert r.execute_command("SET", "a", "v", "EX", "100") == b"OK"
    assert r.execute_command("TTL", "a") == 100
    assert r.execute_command("SET", "b", "v", "PX", "100000") == b"OK"
    assert 99000 < r.execute_command("PTTL", "b") <= 100000
    at = int(time.time()) + 500
    assert r.execute_command("SET", "c", "v", "EXAT", at) == b"OK"
    assert r.execute_command("EXPIRETIME", "c") == at
    assert r.execute_command("SET", "d", "v", "PXAT", at * 1000 + 1) == b"OK"
    assert r.execute_command("PEXPIRETIME", "d") == at * 1000 + 1
    assert r.execute_command("SET", "e", "v", "EXAT", "1") == b"OK"  # in the past: gone
    assert r.execute_command("EXISTS", "e") == 0
    assert r.execute_command("SET", "f", "v", "ex", "10", "EX", "20") == b"OK"  # last one wins
    assert r.execute_command("TTL", "f") == 20


def test_set_keepttl(r):
    r.execute_command("SET", "k", "v", "EX", "100")
    assert r.execute_command("SET", "k", "v2", "KEEPTTL") == b"OK"
    assert 0 < r.execute_command("TTL", "k") <= 100
    assert r.execute_command("GET", "k") == b"v2"
    assert r.execute_command("SET", "k", "v3") == b"OK"
    assert r.execute_command("TTL", "k") == -1
    assert r.execute_command("SET", "new", "v", "KEEPTTL") == b"OK"
    assert r.execute_command("TTL", "new") == -1


def test_set_get(r):
    assert r.execute_command("SET", "k", "v1", "GET") is None
    assert r.execute_command("SET", "k", "v2", "GET") == b"v1"
    assert r.execute_command("GET", "k") == b"v2"
    # GET combined with NX (allowed since 7.0) and XX
    assert r.execute_command("SET", "k", "v3", "NX", "GET") == b"v2"
    assert r.execute_command("GET", "k") == b"v2"
    assert r.execute_command("SET", "k", "v4", "XX", "GET") == b"v2"
    assert r.execute_command("GET", "k") == b"v4"
    assert r.execute_command("SET", "nokey", "x", "XX", "GET") is None
    assert r.execute_command("EXISTS", "nokey") == 0
    assert r.execute_command("SET", "k", "v5", "KEEPTTL", "GET") == b"v4"
    assert r.execute_command("SET", "k", "v6", "EX", "100", "GET") == b"v5"
    assert r.execute_command("TTL", "k") == 100


def test_set_get_wrongtype_leaves_key(r, list_key):
    assert err(r, "SET", list_key, "v", "GET") == WRONGTYPE
    assert r.execute_command("TYPE", list_key) == b"list"
    assert r.execute_command("SET", list_key, "v") == b"OK"  # plain SET overwrites any type
    assert r.execute_command("TYPE", list_key) == b"string"


@pytest.mark.parametrize("args", [
    ["EX", "10", "PX", "100"],
    ["NX", "XX"],
    ["EX", "10", "KEEPTTL"],
    ["KEEPTTL", "PX", "100"],
    ["EXAT", "9999999999", "EX", "10"],
    ["EX"],
    ["FOO"],
    ["EX", "10", "EX", "20", "PX", "100"],
])
def test_set_syntax_errors(r, args):
    r.execute_command("SET", "k", "orig")
    assert err(r, "SET", "k", "v", *args) == SYNTAX
    assert r.execute_command("GET", "k") == b"orig"


@pytest.mark.parametrize("args", [
    ["EX", "0"], ["EX", "-1"], ["PX", "0"], ["PX", "-5"], ["EXAT", "0"], ["PXAT", "0"],
    ["EX", "9223372036854775807"], ["PX", "9223372036854775807"], ["EX", "9223372036854774"],
])
def test_set_invalid_expire(r, args):
    assert err(r, "SET", "k", "v", *args) == "ERR invalid expire time in 'set' command"
    assert r.execute_command("EXISTS", "k") == 0


def test_set_expire_not_integer(r):
    assert err(r, "SET", "k", "v", "EX", "abc") == NOT_INT
    assert err(r, "SET", "k", "v", "EX", "1.5") == NOT_INT


def test_setex_psetex(r):
    assert r.execute_command("SETEX", "s", "10", "v") == b"OK"
    assert r.execute_command("TTL", "s") == 10
    assert r.execute_command("GET", "s") == b"v"
    assert r.execute_command("PSETEX", "p", "5000", "v") == b"OK"
    assert 4000 < r.execute_command("PTTL", "p") <= 5000
    assert err(r, "SETEX", "s", "0", "v") == "ERR invalid expire time in 'setex' command"
    assert err(r, "SETEX", "s", "-1", "v") == "ERR invalid expire time in 'setex' command"
    assert err(r, "PSETEX", "s", "0", "v") == "ERR invalid expire time in 'psetex' command"
    assert err(r, "SETEX", "s", "abc", "v") == NOT_INT
    assert err(r, "SETEX", "s", "10") == arity("setex")
    assert r.execute_command("TTL", "s") == 10


def test_setnx(r):
    assert r.execute_command("SETNX", "k", "a") == 1
    assert r.execute_command("SETNX", "k", "b") == 0
    assert r.execute_command("GET", "k") == b"a"
    assert err(r, "SETNX", "k") == arity("setnx")


# ---- GETDEL / GETEX / GETSET ---------------------------------------------------------------------

def test_getdel(r):
    r.execute_command("SET", "k", "v", "EX", "100")
    assert r.execute_command("GETDEL", "k") == b"v"
    assert r.execute_command("EXISTS", "k") == 0
    assert r.execute_command("GETDEL", "k") is None
    assert err(r, "GETDEL") == arity("getdel")


def test_getex(r):
    r.execute_command("SET", "k", "v")
    assert r.execute_command("GETEX", "k") == b"v"
    assert r.execute_command("TTL", "k") == -1
    assert r.execute_command("GETEX", "k", "EX", "100") == b"v"
    assert r.execute_command("TTL", "k") == 100
    assert r.execute_command("GETEX", "k", "PX", "50000") == b"v"
    assert 49000 < r.execute_command("PTTL", "k") <= 50000
    at = int(time.time()) + 300
    assert r.execute_command("GETEX", "k", "EXAT", at) == b"v"
    assert r.execute_command("EXPIRETIME", "k") == at
    assert r.execute_command("GETEX", "k", "PXAT", at * 1000 + 7) == b"v"
    assert r.execute_command("PEXPIRETIME", "k") == at * 1000 + 7
    assert r.execute_command("GETEX", "k", "PERSIST") == b"v"
    assert r.execute_command("TTL", "k") == -1
    assert r.execute_command("GETEX", "nokey", "EX", "10") is None
    assert r.execute_command("EXISTS", "nokey") == 0
    assert r.execute_command("GETEX", "k", "EXAT", "1") == b"v"  # in the past: deleted
    assert r.execute_command("EXISTS", "k") == 0


def test_getex_errors(r):
    r.execute_command("SET", "k", "v")
    assert err(r, "GETEX", "k", "EX", "10", "PX", "100") == SYNTAX
    assert err(r, "GETEX", "k", "PERSIST", "EX", "10") == SYNTAX
    assert err(r, "GETEX", "k", "FOO") == SYNTAX
    assert err(r, "GETEX", "k", "EX") == SYNTAX
    assert err(r, "GETEX", "k", "EX", "0") == "ERR invalid expire time in 'getex' command"
    assert err(r, "GETEX", "k", "PXAT", "-1") == "ERR invalid expire time in 'getex' command"
    assert err(r, "GETEX", "k", "EX", "x") == NOT_INT
    assert r.execute_command("TTL", "k") == -1


def test_getset(r):
    assert r.execute_command("GETSET", "k", "a") is None
    r.execute_command("EXPIRE", "k", "100")
    assert r.execute_command("GETSET", "k", "b") == b"a"
    assert r.execute_command("GET", "k") == b"b"
    assert r.execute_command("TTL", "k") == -1  # GETSET drops the TTL like SET
    assert err(r, "GETSET", "k") == arity("getset")


# ---- MGET / MSET / MSETNX ------------------------------------------------------------------------

def test_mget_mset(r):
    assert r.execute_command("MSET", "a", "1", "b", "2", "a", "3") == b"OK"  # last wins
    assert r.execute_command("MGET", "a", "b", "nokey", "a") == [b"3", b"2", None, b"3"]
    assert err(r, "MSET", "a", "1", "b") == arity("mset")
    assert err(r, "MSET") == arity("mset")
    assert err(r, "MGET") == arity("mget")


def test_mget_non_string_is_nil(r, list_key):
    r.execute_command("SET", "s", "v")
    assert r.execute_command("MGET", "s", list_key) == [b"v", None]


def test_msetnx(r):
    assert r.execute_command("MSETNX", "a", "1", "b", "2") == 1
    assert r.execute_command("MSETNX", "c", "3", "a", "9") == 0
    assert r.execute_command("EXISTS", "c") == 0  # all or nothing
    assert r.execute_command("GET", "a") == b"1"
    assert err(r, "MSETNX", "a") == arity("msetnx")
    assert err(r, "MSETNX", "a", "1", "b") == arity("msetnx")


def test_mset_clears_ttl(r):
    r.execute_command("SET", "a", "1", "EX", "100")
    r.execute_command("MSET", "a", "2")
    assert r.execute_command("TTL", "a") == -1


# ---- APPEND / STRLEN / GETRANGE / SUBSTR / SETRANGE ----------------------------------------------

def test_append(r):
    assert r.execute_command("APPEND", "k", "abc") == 3
    assert r.execute_command("APPEND", "k", "def") == 6
    assert r.execute_command("GET", "k") == b"abcdef"
    assert r.execute_command("APPEND", "n", "") == 0
    assert r.execute_command("EXISTS", "n") == 1  # APPEND of "" creates an empty string
    r.execute_command("SET", "i", "10")
    assert r.execute_command("APPEND", "i", "5") == 3
    assert r.execute_command("INCR", "i") == 106
    assert err(r, "APPEND", "k") == arity("append")


def test_strlen(r):
    r.execute_command("SET", "k", "hello")
    assert r.execute_command("STRLEN", "k") == 5
    assert r.execute_command("STRLEN", "nokey") == 0
    r.execute_command("SET", "i", "-12345")
    assert r.execute_command("STRLEN", "i") == 6
    assert err(r, "STRLEN", "k", "x") == arity("strlen")


@pytest.mark.parametrize("start,end,expected", [
    (0, 4, b"Hello"), (-5, -1, b"World"), (0, -1, b"Hello World"), (5, 2, b""),
    (-100, 100, b"Hello World"), (100, 200, b""), (-1, -5, b""), (0, 0, b"H"), (-1, -1, b"d"),
    (6, 1000, b"World"),
    # Redis 7.0.15 (and 7.2) clamp a negative end below -strlen to 0, so these return the first
    # byte; redis/redis#12272 made them return "" and was reverted as a breaking change
    (0, -100, b"H"), (-100, -50, b"H"),
])
def test_getrange(r, start, end, expected):
    r.execute_command("SET", "s", "Hello World")
    assert r.execute_command("GETRANGE", "s", start, end) == expected


def test_getrange_misc(r):
    assert r.execute_command("GETRANGE", "nokey", "0", "-1") == b""
    r.execute_command("SET", "s", "Hello World")
    assert r.execute_command("SUBSTR", "s", "0", "4") == b"Hello"
    assert err(r, "GETRANGE", "s", "a", "b") == NOT_INT
    assert err(r, "GETRANGE", "s", "0") == arity("getrange")
    assert err(r, "SUBSTR", "s", "0") == arity("substr")
    r.execute_command("SET", "i", "12345")
    assert r.execute_command("GETRANGE", "i", "1", "2") == b"23"


def test_setrange(r):
    assert r.execute_command("SETRANGE", "k", "5", "ab") == 7
    assert r.execute_command("GET", "k") == b"\x00\x00\x00\x00\x00ab"
    assert r.execute_command("SETRANGE", "k", "0", "XY") == 7
    assert r.execute_command("GET", "k") == b"XY\x00\x00\x00ab"
    assert r.execute_command("SETRANGE", "k", "6", "123") == 9
    assert r.execute_command("GET", "k") == b"XY\x00\x00\x00a123"
    assert r.execute_command("SETRANGE", "k", "1", "") == 9  # empty write: just the length
    assert r.execute_command("SETRANGE", "nokey", "10", "") == 0
    assert r.execute_command("EXISTS", "nokey") == 0  # ... and no key is created
    r.execute_command("SET", "i", "12345")
    assert r.execute_command("SETRANGE", "i", "0", "9") == 5
    assert r.execute_command("INCR", "i") == 92346


def test_setrange_errors(r):
    r.execute_command("SET", "k", "v")
    assert err(r, "SETRANGE", "k", "-1", "a") == "ERR offset is out of range"
    assert err(r, "SETRANGE", "k", "abc", "a") == NOT_INT
    assert err(r, "SETRANGE", "k", "536870912", "a") == (
        "ERR string exceeds maximum allowed size (proto-max-bulk-len)")
    assert err(r, "SETRANGE", "k", "536870911", "ab") == (
        "ERR string exceeds maximum allowed size (proto-max-bulk-len)")
    assert r.execute_command("SETRANGE", "nokey", "536870911", "") == 0
    assert err(r, "SETRANGE", "k", "0") == arity("setrange")
    assert r.execute_command("GET", "k") == b"v"


# ---- INCR / DECR family --------------------------------------------------------------------------

def test_incr_decr(r):
    assert r.execute_command("INCR", "n") == 1
    assert r.execute_command("INCR", "n") == 2
    assert r.execute_command("DECR", "n") == 1
    assert r.execute_command("DECR", "m") == -1
    assert r.execute_command("INCRBY", "n", "10") == 11
    assert r.execute_command("INCRBY", "n", "-20") == -9
    assert r.execute_command("DECRBY", "n", "-9") == 0
    assert r.execute_command("DECRBY", "n", "5") == -5
    assert r.execute_command("GET", "n") == b"-5"
    r.execute_command("SET", "t", "7", "EX", "100")
    assert r.execute_command("INCR", "t") == 8
    assert 0 < r.execute_command("TTL", "t") <= 100  # INCR keeps the TTL


def test_incr_reply_is_integer(server, r):
    with server.raw() as c:
        c.send_command("INCRBY", "n", "42")
        c.expect(b":42\r\n")


@pytest.mark.parametrize("value", ["1.5", " 1", "1 ", "01", "", "+1", "-0", "1e3", "abc",
                                   "12345678901234567890", "0x10"])
def test_incr_non_integer_values(r, value):
    r.execute_command("SET", "n", value)
    assert err(r, "INCR", "n") == NOT_INT
    assert r.execute_command("GET", "n") == value.encode()


def test_incr_overflow(r):
    r.execute_command("SET", "n", "9223372036854775807")
    assert err(r, "INCR", "n") == OVERFLOW
    assert err(r, "INCRBY", "n", "1") == OVERFLOW
    assert r.execute_command("INCRBY", "n", "-1") == 9223372036854775806
    r.execute_command("SET", "m", "-9223372036854775808")
    assert err(r, "DECR", "m") == OVERFLOW
    assert err(r, "DECRBY", "m", "1") == OVERFLOW
    assert r.execute_command("GET", "m") == b"-9223372036854775808"
    # DECRBY cannot negate INT64_MIN: its own message
    r.execute_command("SET", "z", "0")
    assert err(r, "DECRBY", "z", "-9223372036854775808") == "ERR decrement would overflow"
    assert err(r, "INCRBY", "z", "9223372036854775808") == NOT_INT
    assert r.execute_command("INCRBY", "z", "-9223372036854775808") == -9223372036854775808


def test_incr_arity_and_bad_increment(r):
    assert err(r, "INCR") == arity("incr")
    assert err(r, "INCRBY", "n") == arity("incrby")
    assert err(r, "INCRBY", "n", "abc") == NOT_INT
    assert err(r, "DECRBY", "n", "1.0") == NOT_INT
    assert r.execute_command("EXISTS", "n") == 0


@pytest.mark.parametrize("start,incr,expected", [
    (None, "3", b"3"),
    (None, "10.5", b"10.5"),
    (None, "3.0", b"3"),
    (None, "5.0e3", b"5000"),
    (None, "1e5", b"100000"),
    (None, ".5", b"0.5"),
    (None, "5.", b"5"),
    (None, "1.0e-3", b"0.001"),
    (None, "-1.5", b"-1.5"),
    (None, "-0", b"0"),
    ("10.50", "0.1", b"10.6"),  # long double arithmetic: no 10.599999999999999
    ("5.0e3", "0", b"5000"),
    ("5.0e3", "2.0e2", b"5200"),
    ("3", "1.5", b"4.5"),
    ("100", "-100.25", b"-0.25"),
    ("3.14", "0", b"3.14"),
    ("1", "1.23456789012345678901234567", b"2.23456789012345679"),
])
def test_incrbyfloat_formatting(r, start, incr, expected):
    if start is not None:
        r.execute_command("SET", "f", start)
    assert r.execute_command("INCRBYFLOAT", "f", incr) == expected
    assert r.execute_command("GET", "f") == expected


def test_incrbyfloat_errors(r):
    r.execute_command("SET", "f", "1")
    assert err(r, "INCRBYFLOAT", "f", "abc") == NOT_FLOAT
    assert err(r, "INCRBYFLOAT", "f", "nan") == NOT_FLOAT
    assert err(r, "INCRBYFLOAT", "f", " 1") == NOT_FLOAT
    assert err(r, "INCRBYFLOAT", "f", "") == NOT_FLOAT
    assert err(r, "INCRBYFLOAT", "f", "inf") == "ERR increment would produce NaN or Infinity"
    for bad in ("abc", "5 ", " 5", "", "1.5.5"):
        r.execute_command("SET", "g", bad)
        assert err(r, "INCRBYFLOAT", "g", "1") == NOT_FLOAT
        assert r.execute_command("GET", "g") == bad.encode()
    r.execute_command("SET", "h", "inf")
    assert err(r, "INCRBYFLOAT", "h", "1") == "ERR increment would produce NaN or Infinity"
    assert err(r, "INCRBYFLOAT", "f") == arity("incrbyfloat")
    assert r.execute_command("GET", "f") == b"1"


def test_incrbyfloat_keeps_ttl(r):
    r.execute_command("SET", "f", "1", "EX", "100")
    assert r.execute_command("INCRBYFLOAT", "f", "0.5") == b"1.5"
    assert 0 < r.execute_command("TTL", "f") <= 100


def test_incrbyfloat_result_can_be_incr_ed_only_if_integral(r):
    assert r.execute_command("INCRBYFLOAT", "f", "2.0") == b"2"
    assert r.execute_command("INCR", "f") == 3
    assert r.execute_command("INCRBYFLOAT", "f", "0.5") == b"3.5"
    assert err(r, "INCR", "f") == NOT_INT


# ---- LCS -----------------------------------------------------------------------------------------

@pytest.fixture
def lcs_keys(r):
    r.execute_command("MSET", "a", "ohmytext", "b", "mynewtext")
    return r


def test_lcs_plain_and_len(lcs_keys):
    r = lcs_keys
    assert r.execute_command("LCS", "a", "b") == b"mytext"
    assert r.execute_command("LCS", "a", "b", "LEN") == 6
    assert r.execute_command("LCS", "a", "nokey") == b""
    assert r.execute_command("LCS", "nokey", "nokey2") == b""
    assert r.execute_command("LCS", "nokey", "nokey2", "LEN") == 0
    assert r.execute_command("LCS", "a", "a") == b"ohmytext"


def test_lcs_idx(lcs_keys):
    r = lcs_keys
    assert r.execute_command("LCS", "a", "b", "IDX") == [
        b"matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], b"len", 6]
    assert r.execute_command("LCS", "a", "b", "IDX", "MINMATCHLEN", "4") == [
        b"matches", [[[4, 7], [5, 8]]], b"len", 6]
    assert r.execute_command("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN") == [
        b"matches", [[[4, 7], [5, 8], 4]], b"len", 6]
    assert r.execute_command("LCS", "a", "b", "IDX", "WITHMATCHLEN") == [
        b"matches", [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], b"len", 6]
    assert r.execute_command("LCS", "a", "b", "IDX", "MINMATCHLEN", "-1") == [
        b"matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], b"len", 6]
    assert r.execute_command("LCS", "a", "nokey", "IDX") == [b"matches", [], b"len", 0]
    # MINMATCHLEN without IDX is accepted and ignored
    assert r.execute_command("LCS", "a", "b", "LEN", "MINMATCHLEN", "4") == 6


def test_lcs_errors(lcs_keys):
    r = lcs_keys
    assert err(r, "LCS", "a", "b", "LEN", "IDX") == (
        "ERR If you want both the length and indexes, please just use IDX.")
    assert err(r, "LCS", "a", "b", "FOO") == SYNTAX
    assert err(r, "LCS", "a", "b", "MINMATCHLEN", "x") == NOT_INT
    assert err(r, "LCS", "a") == arity("lcs")


def test_lcs_wrongtype(r, list_key):
    r.execute_command("SET", "a", "x")
    assert err(r, "LCS", "a", list_key) == "ERR The specified keys must contain string values"


# ---- WRONGTYPE -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", [
    ["GET", "list"], ["GETDEL", "list"], ["GETEX", "list"], ["GETSET", "list", "v"],
    ["APPEND", "list", "a"], ["STRLEN", "list"], ["GETRANGE", "list", "0", "1"],
    ["SUBSTR", "list", "0", "1"], ["SETRANGE", "list", "0", "a"], ["INCR", "list"],
    ["DECR", "list"], ["INCRBY", "list", "1"], ["DECRBY", "list", "1"],
    ["INCRBYFLOAT", "list", "1"], ["SET", "list", "v", "GET"],
])
def test_wrongtype(r, list_key, cmd):
    assert err(r, *cmd) == WRONGTYPE
    assert r.execute_command("TYPE", list_key) == b"list"


def test_msetnx_and_setnx_see_other_types(r, list_key):
    assert r.execute_command("MSETNX", "a", "1", list_key, "2") == 0
    assert r.execute_command("EXISTS", "a") == 0
    assert r.execute_command("SETNX", list_key, "x") == 0
    assert r.execute_command("SET", list_key, "x", "NX") is None
    assert r.execute_command("TYPE", list_key) == b"list"
