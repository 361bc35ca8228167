"""List commands: exact replies, errors and edge cases as Redis 7.0.15 gives them.

Keys tagged {a}, {b} and {c} land in different slots of slotkv's 8-slot test server, so the
cross-slot paths of LMOVE, RPOPLPUSH and LMPOP run. The blocking commands are in
test_blocking.py.
"""

import pytest

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err

POSITIVE = "ERR value is out of range, must be positive"
RANK_ZERO = ("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
             "or use negative to start from the end of the list")
COUNT_NEG = "ERR COUNT can't be negative"
MAXLEN_NEG = "ERR MAXLEN can't be negative"
NUMKEYS = "ERR numkeys should be greater than 0"
COUNT_POS = "ERR count should be greater than 0"


def x(r, *args):
    return r.execute_command(*args)


def items(r, key):
    return x(r, "LRANGE", key, 0, -1)


# ---- push / len / range -------------------------------------------------------------------------

def test_push_and_range(r):
    assert x(r, "RPUSH", "l", "b", "c") == 2
    assert x(r, "LPUSH", "l", "a", "z") == 4
    assert items(r, "l") == [b"z", b"a", b"b", b"c"]
    assert x(r, "LLEN", "l") == 4
    assert x(r, "LLEN", "nokey") == 0
    assert x(r, "TYPE", "l") == b"list"
    assert x(r, "LRANGE", "l", -2, 100) == [b"b", b"c"]
    assert x(r, "LRANGE", "l", -100, 1) == [b"z", b"a"]
    assert x(r, "LRANGE", "l", 3, 1) == []
    assert x(r, "LRANGE", "l", 4, 10) == []
    assert x(r, "LRANGE", "l", 0, -5) == []
    assert x(r, "LRANGE", "nokey", 0, -1) == []
    assert err(r, "LRANGE", "l", "x", 1) == NOT_INT
    assert err(r, "LRANGE", "l", 0, "x") == NOT_INT
    assert err(r, "LPUSH", "l") == arity("lpush")
    assert err(r, "RPUSH", "l") == arity("rpush")
    assert err(r, "LLEN") == arity("llen")
    assert err(r, "LRANGE", "l", 0) == arity("lrange")


def test_binary_elements(r):
    every_byte = bytes(range(256))
    assert x(r, "RPUSH", "l", "", every_byte, b"a\r\nb", "") == 4
    assert items(r, "l") == [b"", every_byte, b"a\r\nb", b""]


def test_pushx(r):
    assert x(r, "LPUSHX", "l", "a") == 0
    assert x(r, "RPUSHX", "l", "a", "b") == 0
    assert x(r, "EXISTS", "l") == 0
    x(r, "RPUSH", "l", "m")
    assert x(r, "LPUSHX", "l", "a", "b") == 3
    assert x(r, "RPUSHX", "l", "z") == 4
    assert items(r, "l") == [b"b", b"a", b"m", b"z"]
    assert err(r, "LPUSHX", "l") == arity("lpushx")
    assert err(r, "RPUSHX", "l") == arity("rpushx")


# ---- pop ----------------------------------------------------------------------------------------

def test_pop(r):
    assert x(r, "LPOP", "l") is None
    assert x(r, "RPOP", "l") is None
    assert x(r, "LPOP", "l", 2) is None  # a null array for a missing key with count
    assert x(r, "LPOP", "l", 0) is None
    x(r, "RPUSH", "l", "a", "b", "c", "d", "e")
    assert x(r, "LPOP", "l", 0) == []
    assert x(r, "LPOP", "l") == b"a"
    assert x(r, "RPOP", "l") == b"e"
    assert x(r, "LPOP", "l", 2) == [b"b", b"c"]
    assert x(r, "RPOP", "l", 5) == [b"d"]
    assert x(r, "EXISTS", "l") == 0
    assert err(r, "LPOP", "l", -1) == POSITIVE
    assert err(r, "RPOP", "l", "x") == POSITIVE
    assert err(r, "LPOP", "l", "9223372036854775808") == POSITIVE
    assert err(r, "LPOP", "l", 1, 2) == arity("lpop")
    assert err(r, "RPOP", "l", 1, 2) == arity("rpop")
    assert err(r, "LPOP") == arity("lpop")


def test_pop_raw_nil_vs_null_array(r):
    # redis-py turns both into None; check the count form keeps a list type on a hit.
    x(r, "RPUSH", "l", "a")
    assert x(r, "RPOP", "l", 1) == [b"a"]
    assert x(r, "EXISTS", "l") == 0


# ---- index / set / insert -----------------------------------------------------------------------

def test_lindex_lset(r):
    assert x(r, "LINDEX", "l", 0) is None
    assert x(r, "LINDEX", "l", "x") is None  # the key is looked up before the index is parsed
    assert err(r, "LSET", "l", 0, "v") == "ERR no such key"
    assert err(r, "LSET", "l", "x", "v") == "ERR no such key"
    x(r, "RPUSH", "l", "a", "b", "c")
    assert x(r, "LINDEX", "l", 0) == b"a"
    assert x(r, "LINDEX", "l", -1) == b"c"
    assert x(r, "LINDEX", "l", -3) == b"a"
    assert x(r, "LINDEX", "l", 3) is None
    assert x(r, "LINDEX", "l", -4) is None
    assert err(r, "LINDEX", "l", "x") == NOT_INT
    assert err(r, "LINDEX", "l", "9223372036854775808") == NOT_INT
    assert x(r, "LSET", "l", -1, "C") == b"OK"
    assert x(r, "LSET", "l", 0, "A") == b"OK"
    assert items(r, "l") == [b"A", b"b", b"C"]
    assert err(r, "LSET", "l", 3, "v") == "ERR index out of range"
    assert err(r, "LSET", "l", -4, "v") == "ERR index out of range"
    assert err(r, "LSET", "l", "x", "v") == NOT_INT
    assert err(r, "LINDEX", "l") == arity("lindex")
    assert err(r, "LSET", "l", 0) == arity("lset")


def test_linsert(r):
    assert x(r, "LINSERT", "l", "BEFORE", "a", "x") == 0
    assert x(r, "EXISTS", "l") == 0
    assert err(r, "LINSERT", "l", "MIDDLE", "a", "x") == SYNTAX
    x(r, "RPUSH", "l", "a", "b", "b")
    assert x(r, "LINSERT", "l", "before", "b", "x") == 4
    assert x(r, "LINSERT", "l", "AFTER", "b", "y") == 5
    assert x(r, "LINSERT", "l", "After", "a", "0") == 6
    assert x(r, "LINSERT", "l", "AFTER", "q", "y") == -1
    assert items(r, "l") == [b"a", b"0", b"x", b"b", b"y", b"b"]
    assert err(r, "LINSERT", "l", "MIDDLE", "a", "x") == SYNTAX
    assert err(r, "LINSERT", "l", "BEFORE", "a") == arity("linsert")


# ---- rem / trim ---------------------------------------------------------------------------------

def test_lrem(r):
    assert x(r, "LREM", "l", 0, "a") == 0
    x(r, "RPUSH", "l", "a", "b", "a", "c", "a", "a")
    assert x(r, "LREM", "l", 1, "a") == 1
    assert items(r, "l") == [b"b", b"a", b"c", b"a", b"a"]
    assert x(r, "LREM", "l", -2, "a") == 2
    assert items(r, "l") == [b"b", b"a", b"c"]
    assert x(r, "LREM", "l", 0, "zz") == 0
    assert x(r, "LREM", "l", 0, "a") == 1
    assert x(r, "LREM", "l", 0, "b") == 1
    assert x(r, "LREM", "l", 5, "c") == 1
    assert x(r, "EXISTS", "l") == 0
    assert err(r, "LREM", "l", "x", "a") == NOT_INT
    assert err(r, "LREM", "l", 0) == arity("lrem")


def test_ltrim(r):
    assert x(r, "LTRIM", "l", 0, 1) == b"OK"
    x(r, "RPUSH", "l", "a", "b", "c", "d", "e")
    assert x(r, "LTRIM", "l", 1, -2) == b"OK"
    assert items(r, "l") == [b"b", b"c", b"d"]
    assert x(r, "LTRIM", "l", -100, 100) == b"OK"
    assert items(r, "l") == [b"b", b"c", b"d"]
    assert x(r, "LTRIM", "l", -1, -1) == b"OK"
    assert items(r, "l") == [b"d"]
    assert x(r, "LTRIM", "l", 2, 1) == b"OK"
    assert x(r, "EXISTS", "l") == 0
    assert err(r, "LTRIM", "l", "x", 1) == NOT_INT
    assert err(r, "LTRIM", "l", 0, "x") == NOT_INT
    assert err(r, "LTRIM", "l", 0) == arity("ltrim")


# ---- LPOS ---------------------------------------------------------------------------------------

def test_lpos(r):
    assert x(r, "LPOS", "l", "a") is None
    assert x(r, "LPOS", "l", "a", "COUNT", 0) == []
    x(r, "RPUSH", "l", "a", "b", "c", "a", "b", "a")
    assert x(r, "LPOS", "l", "a") == 0
    assert x(r, "LPOS", "l", "b") == 1
    assert x(r, "LPOS", "l", "z") is None
    assert x(r, "LPOS", "l", "z", "COUNT", 1) == []
    assert x(r, "LPOS", "l", "a", "RANK", 2) == 3
    assert x(r, "LPOS", "l", "a", "RANK", 4) is None
    assert x(r, "LPOS", "l", "a", "RANK", -1) == 5
    assert x(r, "LPOS", "l", "a", "RANK", -3) == 0
    assert x(r, "LPOS", "l", "a", "COUNT", 0) == [0, 3, 5]
    assert x(r, "LPOS", "l", "a", "COUNT", 2) == [0, 3]
    assert x(r, "LPOS", "l", "a", "RANK", -2, "COUNT", 2) == [3, 0]
    assert x(r, "LPOS", "l", "a", "COUNT", 0, "MAXLEN", 4) == [0, 3]
    assert x(r, "LPOS", "l", "a", "RANK", -1, "COUNT", 0, "MAXLEN", 1) == [5]
    assert x(r, "LPOS", "l", "a", "MAXLEN", 0) == 0
    assert x(r, "LPOS", "l", "a", "COUNT", 1, "COUNT", 0) == [0, 3, 5]  # the last one wins
    assert x(r, "LPOS", "l", "a", "rank", "-9223372036854775808") == 5
    assert err(r, "LPOS", "l", "a", "RANK", 0) == RANK_ZERO
    assert err(r, "LPOS", "l", "a", "RANK", "x") == NOT_INT
    assert err(r, "LPOS", "l", "a", "COUNT", -1) == COUNT_NEG
    assert err(r, "LPOS", "l", "a", "COUNT", "x") == COUNT_NEG
    assert err(r, "LPOS", "l", "a", "MAXLEN", -1) == MAXLEN_NEG
    assert err(r, "LPOS", "l", "a", "MAXLEN", "x") == MAXLEN_NEG
    assert err(r, "LPOS", "l", "a", "RANK") == SYNTAX
    assert err(r, "LPOS", "l", "a", "FOO", 1) == SYNTAX
    assert err(r, "LPOS", "nokey", "a", "RANK", 0) == RANK_ZERO  # options before the key
    assert err(r, "LPOS", "l") == arity("lpos")


# ---- LMOVE / RPOPLPUSH --------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [("{a}s", "{a}d"), ("{a}s", "{b}d")])
def test_lmove(r, src, dst):
    assert x(r, "LMOVE", src, dst, "LEFT", "RIGHT") is None
    assert x(r, "EXISTS", dst) == 0
    x(r, "RPUSH", src, "1", "2", "3", "4")
    assert x(r, "LMOVE", src, dst, "LEFT", "RIGHT") == b"1"
    assert x(r, "LMOVE", src, dst, "left", "left") == b"2"
    assert x(r, "LMOVE", src, dst, "RIGHT", "RIGHT") == b"4"
    assert items(r, dst) == [b"2", b"1", b"4"]
    assert x(r, "RPOPLPUSH", src, dst) == b"3"
    assert x(r, "EXISTS", src) == 0
    assert items(r, dst) == [b"3", b"2", b"1", b"4"]
    assert x(r, "RPOPLPUSH", src, dst) is None
    assert err(r, "LMOVE", src, dst, "UP", "LEFT") == SYNTAX
    assert err(r, "LMOVE", src, dst, "LEFT", "DOWN") == SYNTAX
    assert err(r, "LMOVE", src, dst, "LEFT") == arity("lmove")
    assert err(r, "RPOPLPUSH", src) == arity("rpoplpush")


def test_lmove_rotate(r):
    x(r, "RPUSH", "l", "a", "b", "c")
    assert x(r, "LMOVE", "l", "l", "LEFT", "RIGHT") == b"a"
    assert items(r, "l") == [b"b", b"c", b"a"]
    assert x(r, "RPOPLPUSH", "l", "l") == b"a"
    assert items(r, "l") == [b"a", b"b", b"c"]
    assert x(r, "LMOVE", "l", "l", "LEFT", "LEFT") == b"a"
    assert items(r, "l") == [b"a", b"b", b"c"]


@pytest.mark.parametrize("src,dst", [("{a}s", "{a}str"), ("{a}s", "{b}str")])
def test_lmove_wrongtype(r, src, dst):
    x(r, "SET", dst, "v")
    assert x(r, "LMOVE", src, dst, "LEFT", "LEFT") is None  # a missing source wins
    x(r, "RPUSH", src, "a")
    assert err(r, "LMOVE", src, dst, "LEFT", "LEFT") == WRONGTYPE
    assert err(r, "RPOPLPUSH", src, dst) == WRONGTYPE
    assert err(r, "LMOVE", dst, src, "LEFT", "LEFT") == WRONGTYPE
    assert items(r, src) == [b"a"]
    assert x(r, "GET", dst) == b"v"


def test_lmove_keeps_ttls(r):
    x(r, "RPUSH", "{a}s", "1", "2")
    x(r, "RPUSH", "{b}d", "x")
    x(r, "EXPIRE", "{a}s", 100)
    x(r, "EXPIRE", "{b}d", 200)
    assert x(r, "LMOVE", "{a}s", "{b}d", "LEFT", "LEFT") == b"1"
    assert 98 <= x(r, "TTL", "{a}s") <= 100
    assert 198 <= x(r, "TTL", "{b}d") <= 200
    assert x(r, "LMOVE", "{a}s", "{c}new", "LEFT", "LEFT") == b"2"
    assert x(r, "TTL", "{c}new") == -1


# ---- LMPOP --------------------------------------------------------------------------------------

def test_lmpop(r):
    assert x(r, "LMPOP", 2, "{a}x", "{b}y", "LEFT") is None
    x(r, "RPUSH", "{b}y", "1", "2", "3")
    x(r, "RPUSH", "{c}z", "9")
    assert x(r, "LMPOP", 3, "{a}x", "{b}y", "{c}z", "RIGHT", "COUNT", 2) == [b"{b}y", [b"3", b"2"]]
    assert x(r, "LMPOP", 2, "{a}x", "{b}y", "LEFT") == [b"{b}y", [b"1"]]
    assert x(r, "EXISTS", "{b}y") == 0
    assert x(r, "LMPOP", 3, "{a}x", "{b}y", "{c}z", "left", "count", 100) == [b"{c}z", [b"9"]]
    assert x(r, "EXISTS", "{c}z") == 0
    x(r, "RPUSH", "{a}1", "a", "b")
    x(r, "RPUSH", "{a}2", "c")
    assert x(r, "LMPOP", 2, "{a}0", "{a}1", "LEFT", "COUNT", 5) == [b"{a}1", [b"a", b"b"]]


def test_lmpop_errors(r):
    assert err(r, "LMPOP", 0, "l", "LEFT") == NUMKEYS
    assert err(r, "LMPOP", -1, "l", "LEFT") == NUMKEYS
    assert err(r, "LMPOP", "x", "l", "LEFT") == NUMKEYS
    assert err(r, "LMPOP", 3, "a", "b", "LEFT") == SYNTAX
    assert err(r, "LMPOP", 2, "a", "b") == SYNTAX
    assert err(r, "LMPOP", 1, "l", "UP") == SYNTAX
    assert err(r, "LMPOP", 1, "l", "LEFT", "COUNT") == SYNTAX
    assert err(r, "LMPOP", 1, "l", "LEFT", "COUNT", 0) == COUNT_POS
    assert err(r, "LMPOP", 1, "l", "LEFT", "COUNT", -1) == COUNT_POS
    assert err(r, "LMPOP", 1, "l", "LEFT", "COUNT", "x") == COUNT_POS
    assert err(r, "LMPOP", 1, "l", "LEFT", "COUNT", 1, "COUNT", 2) == SYNTAX
    assert err(r, "LMPOP", 1, "l", "LEFT", "FOO") == SYNTAX
    assert err(r, "LMPOP", 1, "l") == arity("lmpop")
    x(r, "SET", "{a}s", "v")
    x(r, "RPUSH", "{b}l", "a")
    assert err(r, "LMPOP", 2, "{a}s", "{b}l", "LEFT") == WRONGTYPE
    assert err(r, "LMPOP", 2, "{a}none", "{a}s", "LEFT") == WRONGTYPE
    assert x(r, "LMPOP", 2, "{b}l", "{a}s", "LEFT") == [b"{b}l", [b"a"]]


# ---- types, TTL, size ---------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", [
    ["LPUSH", "s", "a"], ["RPUSH", "s", "a"], ["LPUSHX", "s", "a"], ["RPUSHX", "s", "a"],
    ["LPOP", "s"], ["RPOP", "s"], ["LPOP", "s", 1], ["LLEN", "s"], ["LINDEX", "s", 0],
    ["LINSERT", "s", "BEFORE", "a", "b"], ["LRANGE", "s", 0, -1], ["LREM", "s", 0, "a"],
    ["LSET", "s", 0, "a"], ["LTRIM", "s", 0, 1], ["LPOS", "s", "a"],
    ["LMOVE", "s", "d", "LEFT", "LEFT"], ["RPOPLPUSH", "s", "d"], ["LMPOP", 1, "s", "LEFT"],
])
def test_wrongtype(r, cmd):
    x(r, "SET", "s", "v")
    assert err(r, *cmd) == WRONGTYPE
    assert x(r, "GET", "s") == b"v"


def test_other_types_see_a_list_as_wrongtype(r):
    x(r, "RPUSH", "l", "a")
    assert err(r, "GET", "l") == WRONGTYPE
    assert err(r, "SADD", "l", "a") == WRONGTYPE
    assert err(r, "HSET", "l", "f", "v") == WRONGTYPE


def test_modifications_keep_ttl(r):
    x(r, "RPUSH", "l", "a", "b", "c", "d")
    assert x(r, "EXPIRE", "l", 100) == 1
    x(r, "LPUSH", "l", "z")
    x(r, "RPUSHX", "l", "y")
    x(r, "LPOP", "l")
    x(r, "RPOP", "l", 1)
    x(r, "LSET", "l", 0, "q")
    x(r, "LINSERT", "l", "BEFORE", "q", "p")
    x(r, "LREM", "l", 1, "b")
    x(r, "LTRIM", "l", 0, -1)
    assert 98 <= x(r, "TTL", "l") <= 100
    assert items(r, "l") == [b"p", b"q", b"c", b"d"]


def test_emptied_list_is_deleted_everywhere(r):
    for cmd in (["LPOP", "l"], ["RPOP", "l", 5], ["LREM", "l", 0, "a"], ["LTRIM", "l", 1, 0],
                ["LMOVE", "l", "other", "LEFT", "LEFT"], ["LMPOP", 1, "l", "LEFT"]):
        x(r, "DEL", "other")
        x(r, "RPUSH", "l", "a")
        x(r, *cmd)
        assert x(r, "EXISTS", "l") == 0, cmd


def test_big_list(r):
    n = 100_000
    pipe = r.pipeline(transaction=False)
    for start in range(0, n, 1000):
        pipe.execute_command("RPUSH", "big", *[str(i) for i in range(start, start + 1000)])
    replies = pipe.execute()
    assert replies[-1] == n
    assert x(r, "LLEN", "big") == n
    assert x(r, "LINDEX", "big", 0) == b"0"
    assert x(r, "LINDEX", "big", -1) == str(n - 1).encode()
    assert x(r, "LINDEX", "big", 54321) == b"54321"
    assert x(r, "LRANGE", "big", 0, 99) == [str(i).encode() for i in range(100)]
    assert x(r, "LPOS", "big", "99999") == 99999
