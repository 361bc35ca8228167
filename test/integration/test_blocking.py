"""Blocking list and sorted-set commands (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX
BZMPOP): exact replies, timeouts, errors and wake-ups as Redis 7.0.15 gives them.

Blocked clients are raw sockets (`conns.block(...)`): the command is sent, then the test waits
until CLIENT LIST shows the connection with cmd=<command> (and, as Redis shows it, flags=b);
a server whose CLIENT LIST never says flags=b gets a 0.2 s grace instead. Pushes come from other
connections. Keys tagged {a}, {b} and {c} land in different slots of slotkv's 8-slot, 2-worker
test server ({a} and {c} on one worker, {b} on the other), and connections go to the workers in
turn, so wake-ups cross slots and workers.

Timeouts reply a null ARRAY for every command, BLMOVE/BRPOPLPUSH included: b"*-1\r\n" in RESP2,
b"_\r\n" in RESP3. Inside MULTI the commands do not block and answer like their non-blocking
forms (BLMOVE/BRPOPLPUSH: b"$-1\r\n").
"""

import time

import pytest

from conftest import (SYNTAX, WRONGTYPE, Error, arity, bulk, client_lines, encode_command, err,
                      quiet, wait_blocked, wait_until)

NOT_FLOAT = "ERR timeout is not a float or out of range"
NEGATIVE = "ERR timeout is negative"
NUMKEYS = "ERR numkeys should be greater than 0"
COUNT_POS = "ERR count should be greater than 0"
WRONGTYPE_BYTES = b"-" + WRONGTYPE.encode() + b"\r\n"
NULL2 = b"*-1\r\n"
NULL3 = b"_\r\n"

# Every blocking command, on empty keys, with its timeout as the placeholder T.
T = object()
EMPTY_FORMS = {
    "blpop": ["BLPOP", "{a}k1", "{b}k2", T],
    "brpop": ["BRPOP", "{a}k1", T],
    "blmove": ["BLMOVE", "{a}src", "{b}dst", "LEFT", "RIGHT", T],
    "brpoplpush": ["BRPOPLPUSH", "{a}src", "{b}dst", T],
    "blmpop": ["BLMPOP", T, 2, "{a}k1", "{b}k2", "LEFT"],
    "bzpopmin": ["BZPOPMIN", "{a}z1", "{c}z2", T],
    "bzpopmax": ["BZPOPMAX", "{a}z1", T],
    "bzmpop": ["BZMPOP", T, 1, "{a}z1", "MIN", "COUNT", 2],
}


def form(name, timeout):
    return [timeout if a is T else a for a in EMPTY_FORMS[name]]


def x(r, *args):
    return r.execute_command(*args)


# ---- helpers -------------------------------------------------------------------------------------

def arr(*items):
    return b"*%d\r\n" % len(items) + b"".join(items)


# ---- replies when data is there ------------------------------------------------------------------

def test_blpop_brpop_immediate(r):
    x(r, "RPUSH", "{a}l", "a", "b", "c")
    x(r, "RPUSH", "{b}l", "x")
    # the first non-empty key in argument order
    assert x(r, "BLPOP", "{c}none", "{b}l", "{a}l", 0) == [b"{b}l", b"x"]
    assert x(r, "EXISTS", "{b}l") == 0  # emptied: deleted
    assert x(r, "BRPOP", "{b}l", "{a}l", "{c}none", 0) == [b"{a}l", b"c"]
    assert x(r, "BLPOP", "{a}l", 1) == [b"{a}l", b"a"]
    assert x(r, "BRPOP", "{a}l", "0.5") == [b"{a}l", b"b"]
    assert x(r, "EXISTS", "{a}l") == 0


@pytest.mark.parametrize("src,dst", [("{a}s", "{a}d"), ("{a}s", "{b}d")])
def test_blmove_brpoplpush_immediate(r, src, dst):
    x(r, "RPUSH", src, "1", "2", "3")
    assert x(r, "BLMOVE", src, dst, "LEFT", "RIGHT", 0) == b"1"
    assert x(r, "BLMOVE", src, dst, "right", "left", "0.1") == b"3"
    assert x(r, "BRPOPLPUSH", src, dst, 0) == b"2"
    assert x(r, "EXISTS", src) == 0
    assert x(r, "LRANGE", dst, 0, -1) == [b"2", b"3", b"1"]
    assert x(r, "BRPOPLPUSH", dst, dst, 0) == b"1"  # rotation
    assert x(r, "LRANGE", dst, 0, -1) == [b"1", b"2", b"3"]


def test_blmpop_immediate(r):
    x(r, "RPUSH", "{a}l", "a", "b", "c")
    x(r, "RPUSH", "{b}l", "x", "y")
    assert x(r, "BLMPOP", 0, 3, "{c}none", "{b}l", "{a}l", "LEFT") == [b"{b}l", [b"x"]]
    assert x(r, "BLMPOP", 0, 2, "{a}l", "{b}l", "right", "count", 2) == [b"{a}l", [b"c", b"b"]]
    assert x(r, "BLMPOP", "0.5", 2, "{c}none", "{b}l", "LEFT", "COUNT", 10) == [b"{b}l", [b"y"]]
    assert x(r, "EXISTS", "{b}l") == 0
    assert x(r, "LRANGE", "{a}l", 0, -1) == [b"a"]


def test_bzpop_immediate(r):
    x(r, "ZADD", "{a}z", "1.5", "m1", "2", "m2", "3", "m3")
    x(r, "ZADD", "{b}z", "-inf", "lo", "inf", "hi")
    assert x(r, "BZPOPMIN", "{c}none", "{a}z", "{b}z", 0) == [b"{a}z", b"m1", b"1.5"]
    assert x(r, "BZPOPMAX", "{a}z", 0) == [b"{a}z", b"m3", b"3"]
    assert x(r, "BZPOPMIN", "{b}z", "0.5") == [b"{b}z", b"lo", b"-inf"]
    assert x(r, "BZPOPMAX", "{b}z", 1) == [b"{b}z", b"hi", b"inf"]
    assert x(r, "EXISTS", "{b}z") == 0
    assert x(r, "ZRANGE", "{a}z", 0, -1) == [b"m2"]


def test_bzmpop_immediate(r):
    x(r, "ZADD", "{a}z", "1.5", "m1", "2", "m2", "3", "m3")
    assert x(r, "BZMPOP", 0, 2, "{c}none", "{a}z", "MIN", "COUNT", 2) == [
        b"{a}z", [[b"m1", b"1.5"], [b"m2", b"2"]]]
    assert x(r, "BZMPOP", 0, 1, "{a}z", "max", "count", 5) == [b"{a}z", [[b"m3", b"3"]]]
    assert x(r, "EXISTS", "{a}z") == 0
    x(r, "ZADD", "{b}z", "5", "a", "6", "b")
    assert x(r, "BZMPOP", "0.5", 1, "{b}z", "MAX") == [b"{b}z", [[b"b", b"6"]]]


@pytest.mark.parametrize("resp", [2, 3])
def test_immediate_reply_bytes(conns, resp):
    c = conns.open(resp3=resp == 3)
    c.command("RPUSH", "{a}l", "a", "b", "c")
    c.command("ZADD", "{b}z", "1.5", "m1", "2", "m2", "3", "m3", "-inf", "lo")
    c.send_command("BLPOP", "{c}none", "{a}l", 0)
    c.expect(arr(bulk(b"{a}l"), bulk(b"a")))
    c.send_command("BLMOVE", "{a}l", "{a}l", "LEFT", "LEFT", 0)
    c.expect(bulk(b"b"))
    c.send_command("BRPOPLPUSH", "{a}l", "{c}d", 0)
    c.expect(bulk(b"c"))
    c.send_command("BLMPOP", 0, 1, "{a}l", "LEFT", "COUNT", 3)
    c.expect(arr(bulk(b"{a}l"), arr(bulk(b"b"))))
    score = (lambda s: b"," + s + b"\r\n") if resp == 3 else bulk  # RESP3: a double
    c.send_command("BZPOPMIN", "{b}z", 0)
    c.expect(arr(bulk(b"{b}z"), bulk(b"lo"), score(b"-inf")))
    c.send_command("BZPOPMAX", "{b}z", 0)
    c.expect(arr(bulk(b"{b}z"), bulk(b"m3"), score(b"3")))
    c.send_command("BZMPOP", 0, 1, "{b}z", "MIN", "COUNT", 5)
    c.expect(arr(bulk(b"{b}z"), arr(arr(bulk(b"m1"), score(b"1.5")),
                                    arr(bulk(b"m2"), score(b"2")))))
    assert c.read_available(0.05) == b""


# ---- timeouts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("resp", [2, 3])
@pytest.mark.parametrize("name", list(EMPTY_FORMS))
def test_timeout_reply_is_null_array(conns, name, resp):
    c = conns.open(resp3=resp == 3)
    start = time.monotonic()
    c.send_command(*form(name, "0.1"))
    c.expect(NULL3 if resp == 3 else NULL2)  # *-1 even for BLMOVE / BRPOPLPUSH
    elapsed = time.monotonic() - start
    assert 0.09 <= elapsed < 2.0, elapsed
    assert c.command("PING") == b"PONG"
    assert c.command("EXISTS", "{b}dst") == 0  # nothing moved


def test_timeout_through_redis_py(r):
    assert x(r, "BLPOP", "{a}k", "0.1") is None
    assert x(r, "BLMOVE", "{a}k", "{b}k", "LEFT", "LEFT", "0.1") is None
    assert x(r, "BZMPOP", "0.1", 1, "{a}z", "MAX") is None


def test_integer_and_float_timeouts(conns, r):
    c = conns.open()
    start = time.monotonic()
    c.send_command("BRPOP", "{a}k", "0.5")
    c.expect(NULL2)
    assert 0.45 <= time.monotonic() - start < 2.5
    start = time.monotonic()
    c.send_command("BLPOP", "{a}k", "1")
    c.expect(NULL2)
    assert 0.95 <= time.monotonic() - start < 3.0
    # a whole-second timeout that does not run out: served by a push
    conns.block("BLPOP", "{a}k", "5", conn=c)
    assert x(r, "RPUSH", "{a}k", "v") == 1
    c.expect(arr(bulk(b"{a}k"), bulk(b"v")))


def test_timeouts_are_per_client(conns, r):
    short = conns.block("BLPOP", "{a}k", "0.2")
    forever = conns.block("BLPOP", "{a}k", "0")
    short.expect(NULL2)
    time.sleep(0.2)
    assert quiet(forever)
    assert x(r, "RPUSH", "{a}k", "late") == 1
    forever.expect(arr(bulk(b"{a}k"), bulk(b"late")))
    assert x(r, "EXISTS", "{a}k") == 0


def test_huge_timeout_still_blocks(conns, r):
    # 1e15 s fits in milliseconds: accepted, blocks, served by a push
    c = conns.block("BLPOP", "{a}k", "1e15")
    x(r, "RPUSH", "{a}k", "v")
    c.expect(arr(bulk(b"{a}k"), bulk(b"v")))


def test_blocking_commands_inside_multi_do_not_block(conns):
    c = conns.open()
    c.command("RPUSH", "{a}full", "x")
    assert c.command("MULTI") == b"OK"
    for name in EMPTY_FORMS:
        assert c.command(*form(name, 0)) == b"QUEUED"
    c.command("BLPOP", "{a}full", 0)
    c.send_command("EXEC")
    # no blocking: null replies of the non-blocking forms (LMOVE's nil bulk for BLMOVE/BRPOPLPUSH)
    c.expect(b"*9\r\n" + NULL2 + NULL2 + b"$-1\r\n$-1\r\n" + NULL2 + NULL2 + NULL2 + NULL2
             + arr(bulk(b"{a}full"), bulk(b"x")))
    c.command("HELLO", "3")
    c.command("MULTI")
    c.command("BLPOP", "{a}k", 0)
    c.command("BLMOVE", "{a}k", "{b}k", "LEFT", "LEFT", 0)
    c.send_command("EXEC")
    c.expect(b"*2\r\n_\r\n_\r\n")
    assert c.command("MULTI") == b"OK"
    c.command("BLPOP", "{a}k", "x")
    assert c.command("EXEC") == [Error(NOT_FLOAT.encode())]


# ---- errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(EMPTY_FORMS))
def test_timeout_errors(r, name):
    for bad in ("abc", "", " 1", "1 ", "1x", "nan", "0.1.2"):
        assert err(r, *form(name, bad)) == NOT_FLOAT, bad
    # negative, and values whose milliseconds overflow a 64-bit integer (Redis 7.0 casts them
    # to LLONG_MIN): "timeout is negative"
    for bad in ("-1", "-0.1", "-inf", "inf", "1e16", "1e17", "99999999999999999999",
                "9223372036854775807"):
        assert err(r, *form(name, bad)) == NEGATIVE, bad


def test_timeout_checked_before_data_and_type(r):
    x(r, "RPUSH", "{a}l", "a")
    x(r, "SET", "{a}s", "v")
    assert err(r, "BLPOP", "{a}l", "x") == NOT_FLOAT  # data there: the timeout still fails
    assert err(r, "BLPOP", "{a}l", "-1") == NEGATIVE
    assert err(r, "BLPOP", "{a}s", "x") == NOT_FLOAT  # before WRONGTYPE
    assert err(r, "BLPOP", "{a}s", "1e17") == NEGATIVE
    assert err(r, "BLMOVE", "{a}l", "{a}d", "LEFT", "RIGHT", "-1") == NEGATIVE
    assert err(r, "BZPOPMIN", "{a}l", "x") == NOT_FLOAT
    assert x(r, "LRANGE", "{a}l", 0, -1) == [b"a"]
    # ... but after the other arguments: direction, numkeys, where, COUNT come first
    assert err(r, "BLMOVE", "{a}l", "{a}d", "UP", "RIGHT", "x") == SYNTAX
    assert err(r, "BLMPOP", "x", 0, "{a}l", "LEFT") == NUMKEYS
    assert err(r, "BLMPOP", "-1", 1, "{a}l", "UP") == SYNTAX
    assert err(r, "BLMPOP", "x", 1, "{a}l", "LEFT", "COUNT", 0) == COUNT_POS
    assert err(r, "BZMPOP", "x", 1, "{a}z", "UP") == SYNTAX
    assert err(r, "BZMPOP", "x", 1, "{a}z", "MIN") == NOT_FLOAT


def test_arity(r):
    assert err(r, "BLPOP") == arity("blpop")
    assert err(r, "BLPOP", "k") == arity("blpop")
    assert err(r, "BRPOP", "k") == arity("brpop")
    assert err(r, "BLMOVE", "s", "d", "LEFT", "RIGHT") == arity("blmove")
    assert err(r, "BLMOVE", "s", "d", "LEFT", "RIGHT", 0, 0) == arity("blmove")
    assert err(r, "BRPOPLPUSH", "s", "d") == arity("brpoplpush")
    assert err(r, "BRPOPLPUSH", "s", "d", 0, 0) == arity("brpoplpush")
    assert err(r, "BLMPOP", 0, 1, "k") == arity("blmpop")
    assert err(r, "BLMPOP", 0, 1) == arity("blmpop")
    assert err(r, "BZPOPMIN", "z") == arity("bzpopmin")
    assert err(r, "BZPOPMAX", "z") == arity("bzpopmax")
    assert err(r, "BZMPOP", 0, 1, "z") == arity("bzmpop")


def test_direction_errors(r):
    for cmd in (["BLMOVE", "s", "d", "UP", "RIGHT", 0], ["BLMOVE", "s", "d", "LEFT", "DOWN", 0],
                ["BLMOVE", "s", "d", "MIN", "MAX", 0]):
        assert err(r, *cmd) == SYNTAX


@pytest.mark.parametrize("cmd,where", [("BLMPOP", "LEFT"), ("BZMPOP", "MIN")])
def test_mpop_errors(r, cmd, where):
    assert err(r, cmd, 0, 0, "k", where) == NUMKEYS
    assert err(r, cmd, 0, -1, "k", where) == NUMKEYS
    assert err(r, cmd, 0, "x", "k", where) == NUMKEYS
    assert err(r, cmd, "-1", 0, "k", where) == NUMKEYS
    assert err(r, cmd, 0, 3, "a", "b", where) == SYNTAX  # numkeys past the end
    assert err(r, cmd, 0, 1, "k", "UP") == SYNTAX
    assert err(r, cmd, 0, 1, "k", "RIGHT" if cmd == "BZMPOP" else "MAX") == SYNTAX
    assert err(r, cmd, 0, 1, "k", where, "COUNT") == SYNTAX
    assert err(r, cmd, 0, 1, "k", where, "COUNT", 0) == COUNT_POS
    assert err(r, cmd, 0, 1, "k", where, "COUNT", -1) == COUNT_POS
    assert err(r, cmd, 0, 1, "k", where, "COUNT", "x") == COUNT_POS
    assert err(r, cmd, 0, 1, "k", where, "COUNT", "9223372036854775808") == COUNT_POS
    assert err(r, cmd, 0, 1, "k", where, "COUNT", 1, "COUNT", 2) == SYNTAX
    assert err(r, cmd, 0, 1, "k", where, "FOO") == SYNTAX
    assert err(r, cmd, 0, 1, "k", where, "COUNT", 1, "FOO") == SYNTAX


# ---- WRONGTYPE -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", [
    ["BLPOP", "{a}none", "{a}str", 0],  # an empty key before it does not help: error at once
    ["BLPOP", "{a}str", "{a}list", 0],
    ["BRPOP", "{b}none", "{a}str", 0],
    ["BLMPOP", 0, 2, "{a}none", "{a}str", "LEFT"],
    ["BLMOVE", "{a}str", "{b}d", "LEFT", "LEFT", 0],
    ["BRPOPLPUSH", "{a}zset", "{b}d", 0],
    ["BLMOVE", "{a}list", "{a}str", "LEFT", "LEFT", 0],  # destination checked before the pop
    ["BRPOPLPUSH", "{a}list", "{b}zset", 0],
    ["BZPOPMIN", "{a}list", 0],
    ["BZPOPMAX", "{b}none", "{a}str", 0],
    ["BZMPOP", 0, 1, "{a}list", "MIN"],
])
def test_wrongtype_fails_at_once(r, cmd):
    x(r, "SET", "{a}str", "v")
    x(r, "RPUSH", "{a}list", "a")
    x(r, "ZADD", "{a}zset", "1", "m")
    x(r, "ZADD", "{b}zset", "1", "m")
    assert err(r, *cmd) == WRONGTYPE
    assert x(r, "LRANGE", "{a}list", 0, -1) == [b"a"]
    assert x(r, "ZCARD", "{a}zset") == 1
    assert x(r, "EXISTS", "{b}d") == 0


def test_data_before_wrongtype_key_is_served(r):
    x(r, "SET", "{a}str", "v")
    x(r, "RPUSH", "{b}list", "a", "b")
    x(r, "ZADD", "{c}z", "1", "m")
    assert x(r, "BLPOP", "{b}list", "{a}str", 0) == [b"{b}list", b"a"]
    assert x(r, "BLMPOP", 0, 2, "{b}list", "{a}str", "LEFT") == [b"{b}list", [b"b"]]
    assert x(r, "BZPOPMIN", "{c}z", "{a}str", 0) == [b"{c}z", b"m", b"1"]


def test_blocked_blmove_onto_string_destination(conns, r):
    # the source is empty, so BLMOVE blocks although the destination is a string; the push
    # wakes it with WRONGTYPE and the element stays in the source
    x(r, "SET", "{b}str", "v")
    c = conns.block("BLMOVE", "{a}src", "{b}str", "LEFT", "LEFT", 0)
    assert x(r, "RPUSH", "{a}src", "x") == 1
    c.expect(WRONGTYPE_BYTES)
    assert x(r, "LRANGE", "{a}src", 0, -1) == [b"x"]
    assert x(r, "GET", "{b}str") == b"v"


def test_string_set_on_watched_key_keeps_blpop_blocked(conns, r):
    c = conns.block("BLPOP", "{a}k", 0)
    assert x(r, "SET", "{a}k", "v") == b"OK"
    assert quiet(c)
    assert err(r, "BLPOP", "{a}k", 0) == WRONGTYPE  # a new one fails at once
    x(r, "DEL", "{a}k")
    assert x(r, "LPUSH", "{a}k", "e") == 1
    c.expect(arr(bulk(b"{a}k"), bulk(b"e")))
    assert x(r, "EXISTS", "{a}k") == 0


def test_string_set_on_watched_key_then_timeout(conns, r):
    start = time.monotonic()
    c = conns.block("BLPOP", "{a}k", "1")
    x(r, "SET", "{a}k", "v")
    c.expect(NULL2)  # not woken with WRONGTYPE: it just times out
    assert time.monotonic() - start >= 0.95
    assert x(r, "GET", "{a}k") == b"v"


def test_bzpopmin_woken_by_zadd_not_by_list_push(conns, r):
    c = conns.block("BZPOPMIN", "{a}z", 0)
    assert x(r, "LPUSH", "{a}z", "v") == 1
    assert quiet(c)
    assert x(r, "LRANGE", "{a}z", 0, -1) == [b"v"]
    x(r, "DEL", "{a}z")
    assert x(r, "ZADD", "{a}z", "5", "m") == 1
    c.expect(arr(bulk(b"{a}z"), bulk(b"m"), bulk(b"5")))
    assert x(r, "EXISTS", "{a}z") == 0


def test_blpop_not_woken_by_zadd(conns, r):
    c = conns.block("BLPOP", "{a}k", 0)
    assert x(r, "ZADD", "{a}k", "1", "m") == 1
    assert quiet(c)
    x(r, "DEL", "{a}k")
    x(r, "RPUSH", "{a}k", "v")
    c.expect(arr(bulk(b"{a}k"), bulk(b"v")))


# ---- wake-ups ------------------------------------------------------------------------------------

def _lpush(r, key):
    assert x(r, "LPUSH", key, "v") == 1


def _rpush(r, key):
    assert x(r, "RPUSH", key, "v") == 1


def _lmove(r, key):
    x(r, "RPUSH", "{c}other", "v", "w")
    assert x(r, "LMOVE", "{c}other", key, "LEFT", "RIGHT") == b"v"


def _rpoplpush(r, key):
    x(r, "RPUSH", "{c}other", "w", "v")
    assert x(r, "RPOPLPUSH", "{c}other", key) == b"v"


def _rename(r, key):
    x(r, "RPUSH", "{a}other", "v", "w")
    assert x(r, "RENAME", "{a}other", key) == b"OK"


def _multi(r, key):
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("RPUSH", key, "v")
    pipe.execute_command("LLEN", key)
    assert pipe.execute() == [1, 1]  # served after EXEC, not inside it


@pytest.mark.parametrize("push", [_lpush, _rpush, _lmove, _rpoplpush, _rename, _multi])
def test_blpop_woken_by(conns, r, push):
    c = conns.block("BLPOP", "{a}k", 0)
    push(r, "{a}k")
    c.expect(arr(bulk(b"{a}k"), bulk(b"v")))


def test_rename_onto_watched_key_serves_first_element(conns, r):
    c = conns.block("BRPOP", "{a}k", 0)
    x(r, "RPUSH", "{a}tmp", "x", "y", "z")
    assert x(r, "RENAME", "{a}tmp", "{a}k") == b"OK"
    c.expect(arr(bulk(b"{a}k"), bulk(b"z")))
    assert x(r, "LRANGE", "{a}k", 0, -1) == [b"x", b"y"]


@pytest.mark.parametrize("how", ["zadd", "zunionstore", "rename"])
def test_bzpopmax_woken_by(conns, r, how):
    c = conns.block("BZPOPMAX", "{a}z", 0)
    if how == "zadd":
        assert x(r, "ZADD", "{a}z", "1", "a", "2", "b") == 2
    else:
        x(r, "ZADD", "{a}src", "1", "a", "2", "b")
        if how == "zunionstore":
            assert x(r, "ZUNIONSTORE", "{a}z", 1, "{a}src") == 2
        else:
            assert x(r, "RENAME", "{a}src", "{a}z") == b"OK"
    c.expect(arr(bulk(b"{a}z"), bulk(b"b"), bulk(b"2")))
    assert x(r, "ZRANGE", "{a}z", 0, -1, "WITHSCORES") == [b"a", b"1"]


def test_pusher_reply_counts_the_served_element(conns, r):
    c = conns.block("BLPOP", "{a}k", 0)
    pipe = r.pipeline(transaction=False)
    pipe.execute_command("LPUSH", "{a}k", "a")
    pipe.execute_command("LLEN", "{a}k")
    pipe.execute_command("EXISTS", "{a}k")
    # LPUSH counts the element that was handed over before the next command ran
    assert pipe.execute() == [1, 0, 0]
    c.expect(arr(bulk(b"{a}k"), bulk(b"a")))
    c = conns.block("BLPOP", "{a}k", 0, conn=c)
    assert x(r, "LPUSH", "{a}k", "a", "b", "c") == 3
    c.expect(arr(bulk(b"{a}k"), bulk(b"c")))  # popped after the whole push
    assert x(r, "LRANGE", "{a}k", 0, -1) == [b"b", b"a"]


def test_push_and_pop_in_multi_serves_nobody(conns, r):
    c = conns.block("BLPOP", "{a}k", 0)
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("LPUSH", "{a}k", "a")
    pipe.execute_command("LPOP", "{a}k")
    assert pipe.execute() == [1, b"a"]
    assert quiet(c)
    x(r, "RPUSH", "{a}k", "b")
    c.expect(arr(bulk(b"{a}k"), bulk(b"b")))


def test_arrival_order(conns, r):
    a = conns.block("BLPOP", "{a}k", 0)
    b = conns.block("BRPOP", "{a}k", 0)
    c = conns.block("BLPOP", "{a}k", 0)
    assert x(r, "RPUSH", "{a}k", "1", "2") == 2
    a.expect(arr(bulk(b"{a}k"), bulk(b"1")))
    b.expect(arr(bulk(b"{a}k"), bulk(b"2")))
    assert quiet(c)
    assert x(r, "EXISTS", "{a}k") == 0
    assert x(r, "RPUSH", "{a}k", "3") == 1
    c.expect(arr(bulk(b"{a}k"), bulk(b"3")))
    assert quiet(a, 0.05) and quiet(b, 0.05)


def test_one_client_on_several_keys_is_served_once(conns, r):
    c = conns.block("BLPOP", "{a}k1", "{b}k2", "{c}k3", 0)
    assert x(r, "RPUSH", "{c}k3", "three") == 1
    c.expect(arr(bulk(b"{c}k3"), bulk(b"three")))
    assert x(r, "RPUSH", "{a}k1", "one") == 1
    assert quiet(c)
    assert x(r, "LRANGE", "{a}k1", 0, -1) == [b"one"]


def test_same_key_twice(conns, r):
    c = conns.block("BLPOP", "{a}k", "{a}k", 0)
    assert x(r, "RPUSH", "{a}k", "x", "y") == 2
    c.expect(arr(bulk(b"{a}k"), bulk(b"x")))
    assert x(r, "LRANGE", "{a}k", 0, -1) == [b"y"]


@pytest.mark.parametrize("dst", ["{a}dst", "{b}dst"])
def test_blmove_woken(conns, r, dst):
    c = conns.block("BLMOVE", "{a}src", dst, "RIGHT", "LEFT", 0)
    assert x(r, "RPUSH", "{a}src", "a", "b", "c") == 3
    c.expect(bulk(b"c"))
    assert x(r, "LRANGE", "{a}src", 0, -1) == [b"a", b"b"]
    assert x(r, "LRANGE", dst, 0, -1) == [b"c"]
    c = conns.block("BRPOPLPUSH", "{c}src", dst, 0, conn=c)
    assert x(r, "LPUSH", "{c}src", "z") == 1
    c.expect(bulk(b"z"))
    assert x(r, "LRANGE", dst, 0, -1) == [b"z", b"c"]
    assert x(r, "EXISTS", "{c}src") == 0


def test_blmove_rotation_on_one_key(conns, r):
    c = conns.block("BLMOVE", "{a}k", "{a}k", "LEFT", "RIGHT", 0)
    assert x(r, "RPUSH", "{a}k", "x") == 1
    c.expect(bulk(b"x"))
    assert x(r, "LRANGE", "{a}k", 0, -1) == [b"x"]


@pytest.mark.parametrize("src,dst", [("{a}src", "{a}dst"), ("{a}src", "{b}dst")])
def test_blmove_chained_wakeup(conns, r, src, dst):
    mover = conns.block("BLMOVE", src, dst, "LEFT", "RIGHT", 0)
    popper = conns.block("BLPOP", dst, 0)
    assert x(r, "RPUSH", src, "x") == 1
    mover.expect(bulk(b"x"))
    popper.expect(arr(bulk(dst.encode()), bulk(b"x")))
    assert x(r, "EXISTS", src, dst) == 0


def test_blmpop_woken_with_count(conns, r):
    c = conns.block("BLMPOP", 0, 2, "{a}x", "{b}y", "RIGHT", "COUNT", 2)
    assert x(r, "RPUSH", "{b}y", "1", "2", "3") == 3
    c.expect(arr(bulk(b"{b}y"), arr(bulk(b"3"), bulk(b"2"))))
    assert x(r, "LRANGE", "{b}y", 0, -1) == [b"1"]
    c = conns.block("BLMPOP", 0, 2, "{a}x", "{c}z", "LEFT", "COUNT", 5, conn=c)
    assert x(r, "RPUSH", "{c}z", "only") == 1
    c.expect(arr(bulk(b"{c}z"), arr(bulk(b"only"))))
    assert x(r, "EXISTS", "{c}z") == 0


@pytest.mark.parametrize("resp", [2, 3])
def test_bzpop_woken_reply_bytes(conns, r, resp):
    score = (lambda s: b"," + s + b"\r\n") if resp == 3 else bulk
    c = conns.block("BZPOPMIN", "{a}z", "{b}z", 0, resp3=resp == 3)
    assert x(r, "ZADD", "{b}z", "2.5", "m", "7", "n") == 2
    c.expect(arr(bulk(b"{b}z"), bulk(b"m"), score(b"2.5")))
    c = conns.block("BZPOPMAX", "{a}z", 0, conn=c)
    x(r, "ZADD", "{a}z", "-inf", "lo", "3", "hi")
    c.expect(arr(bulk(b"{a}z"), bulk(b"hi"), score(b"3")))
    assert x(r, "ZRANGE", "{a}z", 0, -1) == [b"lo"]
    assert x(r, "ZRANGE", "{b}z", 0, -1) == [b"n"]
    c = conns.block("BZMPOP", 0, 2, "{c}none", "{c}z", "MAX", "COUNT", 3, conn=c)
    x(r, "ZADD", "{c}z", "1", "a", "2", "b")
    c.expect(arr(bulk(b"{c}z"), arr(arr(bulk(b"b"), score(b"2")), arr(bulk(b"a"), score(b"1")))))
    assert x(r, "EXISTS", "{c}z") == 0
    c = conns.block("BZMPOP", 0, 1, "{c}z", "MIN", conn=c)
    x(r, "ZADD", "{c}z", "1", "a", "2", "b")
    c.expect(arr(bulk(b"{c}z"), arr(arr(bulk(b"a"), score(b"1")))))


@pytest.mark.parametrize("resp", [2, 3])
def test_list_woken_reply_bytes(conns, r, resp):
    c = conns.block("BRPOP", "{a}k", 0, resp3=resp == 3)
    x(r, "RPUSH", "{a}k", "v")
    c.expect(arr(bulk(b"{a}k"), bulk(b"v")))
    c = conns.block("BLMOVE", "{a}k", "{b}d", "LEFT", "LEFT", 0, conn=c)
    x(r, "RPUSH", "{a}k", "w")
    c.expect(bulk(b"w"))
    c = conns.block("BLMPOP", 0, 1, "{a}k", "LEFT", conn=c)
    x(r, "RPUSH", "{a}k", "u")
    c.expect(arr(bulk(b"{a}k"), arr(bulk(b"u"))))


def test_blocked_client_on_other_database(conns, r):
    c = conns.open()
    assert c.command("SELECT", "1") == b"OK"
    conns.block("BLPOP", "{a}k", 0, conn=c)
    x(r, "RPUSH", "{a}k", "db0")
    assert quiet(c)
    assert x(r, "LLEN", "{a}k") == 1
    p = conns.open()
    p.command("SELECT", "1")
    assert p.command("RPUSH", "{a}k", "db1") == 1
    c.expect(arr(bulk(b"{a}k"), bulk(b"db1")))
    assert p.command("EXISTS", "{a}k") == 0


# ---- slots and workers ---------------------------------------------------------------------------

@pytest.mark.parametrize("gap", [0, 1])
def test_wakeups_across_slots_and_workers(conns, r, gap):
    """The blocked connection and the pushing one land on the same or different workers (gap
    shifts the round robin); the keys live in slots of both workers."""
    keys = ["{a}k", "{b}k", "{c}k"]
    blocked = conns.open()
    for _ in range(gap):
        conns.open()
    pusher = conns.open()
    for i, key in enumerate(keys):
        conns.block("BLPOP", *keys, 0, conn=blocked)
        assert pusher.command("RPUSH", key, "v%d" % i) == 1
        blocked.expect(arr(bulk(key.encode()), bulk(b"v%d" % i)))
    for i, key in enumerate(keys):
        conns.block("BZPOPMIN", *keys, 0, conn=blocked)
        assert pusher.command("ZADD", key, i, "m") == 1
        blocked.expect(arr(bulk(key.encode()), bulk(b"m"), bulk(b"%d" % i)))
    conns.block("BLMOVE", "{b}src", "{c}dst", "LEFT", "LEFT", 0, conn=blocked)
    popper = conns.block("BLPOP", "{c}dst", 0)
    assert pusher.command("LPUSH", "{b}src", "hop") == 1
    blocked.expect(bulk(b"hop"))
    popper.expect(arr(bulk(b"{c}dst"), bulk(b"hop")))
    assert pusher.command("DBSIZE") == 0


def test_many_blocked_clients(conns, r):
    n = 50
    clients = [conns.open() for _ in range(n)]
    for i, c in enumerate(clients):
        c.send_command("BLPOP", "{k%d}list" % i, 0)
    wait_blocked(r, [c.cid for c in clients], "BLPOP")
    pipe = r.pipeline(transaction=False)
    for i in range(n):
        pipe.execute_command("RPUSH", "{k%d}list" % i, "v%d" % i)
    assert pipe.execute() == [1] * n
    for i, c in enumerate(clients):
        c.expect(arr(bulk(b"{k%d}list" % i), bulk(b"v%d" % i)))
    assert x(r, "DBSIZE") == 0


def test_many_clients_on_one_key(conns, r):
    n = 20
    clients = []
    for _ in range(n):
        clients.append(conns.block("BLPOP", "{a}k", "{b}k", 0))
    assert x(r, "RPUSH", "{b}k", *["v%d" % i for i in range(n + 2)]) == n + 2
    for i, c in enumerate(clients):
        c.expect(arr(bulk(b"{b}k"), bulk(b"v%d" % i)))
    assert x(r, "LRANGE", "{b}k", 0, -1) == [b"v%d" % n, b"v%d" % (n + 1)]


# ---- connections ---------------------------------------------------------------------------------

def test_disconnected_blocked_client_consumes_nothing(conns, r):
    c = conns.block("BLPOP", "{a}k", 0)
    c.close()
    wait_until(lambda: c.cid not in client_lines(r))
    other = conns.block("BLPOP", "{b}k", 0)  # a live one elsewhere is unaffected
    assert x(r, "RPUSH", "{a}k", "kept") == 1
    assert x(r, "LRANGE", "{a}k", 0, -1) == [b"kept"]
    x(r, "RPUSH", "{b}k", "served")
    other.expect(arr(bulk(b"{b}k"), bulk(b"served")))


def test_client_kill_of_blocked_client(conns, r):
    c = conns.block("BZPOPMIN", "{a}z", 0)
    assert x(r, "CLIENT", "KILL", "ID", c.cid) == 1
    assert c.is_closed()
    assert x(r, "ZADD", "{a}z", "1", "m") == 1
    assert x(r, "ZCARD", "{a}z") == 1


def test_pipeline_after_blocking_command_waits(conns, r):
    c = conns.open()
    c.send(encode_command("BLPOP", "{a}k", 0) + encode_command("PING")
           + encode_command("GET", "{a}k"))
    wait_blocked(r, [c.cid], "BLPOP")
    assert quiet(c, 0.3)  # PING is not answered while BLPOP waits
    x(r, "RPUSH", "{a}k", "v")
    c.expect(arr(bulk(b"{a}k"), bulk(b"v")) + b"+PONG\r\n$-1\r\n")


# ---- what Redis reports about blocked clients ----------------------------------------------------

def _info_blocked(r):
    for line in x(r, "INFO", "clients").split(b"\r\n"):
        if line.startswith(b"blocked_clients:"):
            return int(line.split(b":")[1])
    return None


def test_client_list_and_info_show_blocked_clients(conns, r):
    assert _info_blocked(r) == 0
    a = conns.block("BLPOP", "{a}k", 0)
    b = conns.block("BZPOPMAX", "{b}z", "10")
    c = conns.block("BLMOVE", "{c}s", "{c}d", "LEFT", "LEFT", 0)
    lines = client_lines(r)
    assert (lines[a.cid][b"flags"], lines[a.cid][b"cmd"]) == (b"b", b"blpop")
    assert (lines[b.cid][b"flags"], lines[b.cid][b"cmd"]) == (b"b", b"bzpopmax")
    assert (lines[c.cid][b"flags"], lines[c.cid][b"cmd"]) == (b"b", b"blmove")
    assert _info_blocked(r) == 3
    x(r, "RPUSH", "{a}k", "v")
    a.expect(arr(bulk(b"{a}k"), bulk(b"v")))
    assert wait_until(lambda: _info_blocked(r) == 2)
    assert client_lines(r)[a.cid][b"flags"] == b"N"
    c.close()
    assert wait_until(lambda: _info_blocked(r) == 1)
    assert x(r, "CLIENT", "KILL", "ID", b.cid) == 1
    assert wait_until(lambda: _info_blocked(r) == 0)


def test_client_unblock(conns, r):
    c = conns.block("BLPOP", "{a}k", 0)
    assert x(r, "CLIENT", "UNBLOCK", c.cid) == 1  # TIMEOUT by default: the timeout reply
    c.expect(NULL2)
    assert x(r, "CLIENT", "UNBLOCK", c.cid) == 0  # not blocked any more
    conns.block("BLMOVE", "{a}k", "{b}d", "LEFT", "LEFT", 0, conn=c)
    assert x(r, "CLIENT", "UNBLOCK", c.cid, "TIMEOUT") == 1
    c.expect(NULL2)
    conns.block("BZPOPMIN", "{a}z", 0, conn=c)
    assert x(r, "CLIENT", "UNBLOCK", c.cid, "error") == 1
    c.expect(b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n")
    c.command("HELLO", "3")
    conns.block("BRPOPLPUSH", "{a}k", "{b}d", 0, conn=c)
    assert x(r, "CLIENT", "UNBLOCK", c.cid) == 1
    c.expect(NULL3)
    assert c.command("PING") == b"PONG"
    assert err(r, "CLIENT", "UNBLOCK", c.cid, "FOO") == (
        "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
    assert err(r, "CLIENT", "UNBLOCK", "x") == "ERR value is not an integer or out of range"
    assert err(r, "CLIENT", "UNBLOCK") == arity("client|unblock")
