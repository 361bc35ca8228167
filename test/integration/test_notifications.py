"""Keyspace notifications (notify-keyspace-events): the events each command family publishes on
__keyspace@<db>__:<key> and __keyevent@<db>__:<event>, class filtering, "new", "keymiss",
"expired" from active expiry, and events of commands run by EXEC and scripts.

Events of one key come in Redis's order; events of several keys of one command are compared as
sets (slotkv writes a command's keys slot by slot, in its lock order)."""

import threading

import pytest

from conftest import Listener, err, wait_until

def both(key, *events, db=0):
    """The keyspace and keyevent messages of events of key, in order."""
    out = []
    for e in events:
        out += [(f"__keyspace@{db}__:{key}", e), (f"__keyevent@{db}__:{e}", key)]
    return out


def run(r, listen, *cmd):
    r.execute_command(*cmd)
    return listen.drain(r)


# ---- configuration ----------------------------------------------------------------------------

@pytest.mark.parametrize("value,shown", [
    ("KEA", "AKE"), ("AKE", "AKE"), ("gx", "gx"), ("K$", "$K"), ("Elg", "glE"), ("A", "A"),
    ("Am", "Am"), ("", ""), ("KEg$lshzxetd", "AKE")])
def test_config_shows_the_classes_as_redis_writes_them(r, value, shown):
    assert r.execute_command("CONFIG", "SET", "notify-keyspace-events", value) == b"OK"
    got = r.execute_command("CONFIG", "GET", "notify-keyspace-events")
    assert got == [b"notify-keyspace-events", shown.encode()]
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "")


def test_config_refuses_an_unknown_class_and_keeps_the_old_value(r):
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "Kg")
    assert err(r, "CONFIG", "SET", "notify-keyspace-events", "Kgq") == (
        "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
        "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
    got = r.execute_command("CONFIG", "GET", "notify-keyspace-events")
    assert got == [b"notify-keyspace-events", b"gK"]
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "")


def test_nothing_is_published_by_default(server, r):
    assert r.execute_command("CONFIG", "GET", "notify-keyspace-events")[1] == b""
    lst = Listener(server)
    try:
        r.execute_command("SET", "k", "v")
        r.execute_command("DEL", "k")
        assert lst.drain(r) == []
    finally:
        lst.close()


# ---- one key ----------------------------------------------------------------------------------

# Stream setups: two entries, a group reading from the start, its consumer c reading.
X1, X2 = ["XADD", "k", "1-1", "f", "v"], ["XADD", "k", "2-1", "f", "v"]
G, C = ["XGROUP", "CREATE", "k", "g", "0"], ["XGROUP", "CREATECONSUMER", "k", "g", "c"]
R = ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"]

# (setup commands, command, events of key k in order)
ONE_KEY = [
    ([], ["SET", "k", "v"], ["set"]),
    ([], ["SET", "k", "v", "EX", "100"], ["set", "expire"]),
    ([], ["SET", "k", "v", "PXAT", "99999999999999"], ["set", "expire"]),
    ([["SET", "k", "v", "EX", "100"]], ["SET", "k", "w", "KEEPTTL"], ["set"]),
    ([["SET", "k", "v"]], ["SET", "k", "w", "NX"], []),
    ([], ["SETEX", "k", "100", "v"], ["set", "expire"]),
    ([], ["PSETEX", "k", "100000", "v"], ["set", "expire"]),
    ([], ["SETNX", "k", "v"], ["set"]),
    ([], ["GETSET", "k", "v"], ["set"]),
    ([], ["INCR", "k"], ["incrby"]),
    ([], ["DECRBY", "k", "3"], ["incrby"]),
    ([], ["INCRBYFLOAT", "k", "1.5"], ["incrbyfloat"]),
    ([], ["APPEND", "k", "x"], ["append"]),
    ([], ["SETRANGE", "k", "2", "x"], ["setrange"]),
    ([["SET", "k", "v"]], ["GETDEL", "k"], ["del"]),
    ([["SET", "k", "v"]], ["GETEX", "k", "EX", "100"], ["expire"]),
    ([["SET", "k", "v", "EX", "100"]], ["GETEX", "k", "PERSIST"], ["persist"]),
    ([["SET", "k", "v"]], ["GETEX", "k"], []),
    ([], ["SETBIT", "k", "7", "1"], ["setbit"]),
    ([], ["BITFIELD", "k", "SET", "u8", "0", "5"], ["setbit"]),
    ([["SET", "k", "v"]], ["EXPIRE", "k", "100"], ["expire"]),
    ([["SET", "k", "v"]], ["PEXPIREAT", "k", "99999999999999"], ["expire"]),
    ([["SET", "k", "v"]], ["EXPIRE", "k", "-1"], ["del"]),
    ([["SET", "k", "v"]], ["EXPIRE", "k", "100", "XX"], []),
    ([["SET", "k", "v", "EX", "100"]], ["PERSIST", "k"], ["persist"]),
    ([["SET", "k", "v"]], ["PERSIST", "k"], []),
    ([], ["DEL", "k"], []),
    ([["SET", "k", "v"]], ["UNLINK", "k"], ["del"]),
    ([], ["RPUSH", "k", "a", "b"], ["rpush"]),
    ([], ["LPUSH", "k", "a"], ["lpush"]),
    ([["RPUSH", "k", "a"]], ["LPUSHX", "k", "b"], ["lpush"]),
    ([["RPUSH", "k", "a"]], ["RPUSHX", "k", "b"], ["rpush"]),
    ([], ["RPUSHX", "k", "b"], []),
    ([["RPUSH", "k", "a", "b"]], ["LPOP", "k"], ["lpop"]),
    ([["RPUSH", "k", "a"]], ["RPOP", "k"], ["rpop", "del"]),
    ([["RPUSH", "k", "a", "b"]], ["LINSERT", "k", "BEFORE", "b", "c"], ["linsert"]),
    ([["RPUSH", "k", "a", "b"]], ["LSET", "k", "0", "c"], ["lset"]),
    ([["RPUSH", "k", "a", "b"]], ["LREM", "k", "0", "a"], ["lrem"]),
    ([["RPUSH", "k", "a"]], ["LREM", "k", "0", "z"], []),
    ([["RPUSH", "k", "a", "b"]], ["LTRIM", "k", "0", "-1"], ["ltrim"]),
    ([["RPUSH", "k", "a", "b"]], ["LTRIM", "k", "5", "9"], ["ltrim", "del"]),
    ([["RPUSH", "k", "a", "b"]], ["LMPOP", "1", "k", "RIGHT"], ["rpop"]),
    ([["RPUSH", "k", "a"]], ["BLPOP", "k", "0"], ["lpop", "del"]),
    ([["RPUSH", "k", "a", "b"]], ["BLMPOP", "0", "1", "k", "LEFT"], ["lpop"]),
    ([], ["HSET", "k", "f", "v"], ["hset"]),
    ([], ["HMSET", "k", "f", "v"], ["hset"]),
    ([], ["HSETNX", "k", "f", "v"], ["hset"]),
    ([["HSET", "k", "f", "v"]], ["HSETNX", "k", "f", "v"], []),
    ([], ["HINCRBY", "k", "f", "2"], ["hincrby"]),
    ([], ["HINCRBYFLOAT", "k", "f", "2.5"], ["hincrbyfloat"]),
    ([["HSET", "k", "f", "v", "g", "w"]], ["HDEL", "k", "f"], ["hdel"]),
    ([["HSET", "k", "f", "v"]], ["HDEL", "k", "f"], ["hdel", "del"]),
    ([["HSET", "k", "f", "v"]], ["HDEL", "k", "nosuch"], []),
    ([], ["SADD", "k", "a"], ["sadd"]),
    ([["SADD", "k", "a"]], ["SADD", "k", "a"], []),
    ([["SADD", "k", "a", "b"]], ["SREM", "k", "a"], ["srem"]),
    ([["SADD", "k", "a"]], ["SPOP", "k"], ["spop", "del"]),
    ([["SADD", "k", "a", "b"]], ["SPOP", "k", "1"], ["spop"]),
    ([], ["ZADD", "k", "1", "a"], ["zadd"]),
    ([["ZADD", "k", "1", "a"]], ["ZADD", "k", "1", "a"], []),
    ([], ["ZADD", "k", "INCR", "1", "a"], ["zincr"]),
    ([], ["ZINCRBY", "k", "1", "a"], ["zincr"]),
    ([["ZADD", "k", "1", "a", "2", "b"]], ["ZREM", "k", "a"], ["zrem"]),
    ([["ZADD", "k", "1", "a", "2", "b"]], ["ZREMRANGEBYSCORE", "k", "0", "1"],
     ["zremrangebyscore"]),
    ([["ZADD", "k", "1", "a"]], ["ZREMRANGEBYRANK", "k", "0", "-1"], ["zremrangebyrank", "del"]),
    ([["ZADD", "k", "0", "a", "0", "b"]], ["ZREMRANGEBYLEX", "k", "[a", "[a"], ["zremrangebylex"]),
    ([["ZADD", "k", "1", "a", "2", "b"]], ["ZPOPMIN", "k"], ["zpopmin"]),
    ([["ZADD", "k", "1", "a"]], ["ZPOPMAX", "k"], ["zpopmax", "del"]),
    ([["ZADD", "k", "1", "a", "2", "b"]], ["BZPOPMAX", "k", "0"], ["zpopmax"]),
    ([["ZADD", "k", "1", "a", "2", "b"]], ["ZMPOP", "1", "k", "MIN"], ["zpopmin"]),
    ([["ZADD", "k", "1", "a", "2", "b"]], ["BZMPOP", "0", "1", "k", "MAX"], ["zpopmax"]),
    # streams: the family's own events; XACK and a claim of an existing consumer tell none
    ([], X1, ["xadd"]),
    ([], ["XADD", "k", "NOMKSTREAM", "1-1", "f", "v"], []),
    ([X1, X2], ["XADD", "k", "MAXLEN", "1", "3-1", "f", "v"], ["xadd", "xtrim"]),
    ([X1], ["XADD", "k", "MAXLEN", "5", "3-1", "f", "v"], ["xadd"]),
    ([X1, X2], ["XDEL", "k", "1-1"], ["xdel"]),
    ([X1], ["XDEL", "k", "9-9"], []),
    ([X1, X2], ["XTRIM", "k", "MAXLEN", "1"], ["xtrim"]),
    ([X1], ["XTRIM", "k", "MAXLEN", "1"], []),
    ([X1], ["XSETID", "k", "5-5"], ["xsetid"]),
    ([X1], G, ["xgroup-create"]),
    ([], ["XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"], ["xgroup-create"]),
    ([X1, G], ["XGROUP", "CREATECONSUMER", "k", "g", "c"], ["xgroup-createconsumer"]),
    ([X1, G, C], ["XGROUP", "DELCONSUMER", "k", "g", "c"], ["xgroup-delconsumer"]),
    ([X1, G], ["XGROUP", "SETID", "k", "g", "0"], ["xgroup-setid"]),
    ([X1, G], ["XGROUP", "DESTROY", "k", "g"], ["xgroup-destroy"]),
    ([X1, G], R, ["xgroup-createconsumer"]),
    ([X1, G, R], ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "0"], []),
    ([X1, G, R], ["XACK", "k", "g", "1-1"], []),
    ([X1, G, R], ["XCLAIM", "k", "g", "d", "0", "1-1"], ["xgroup-createconsumer"]),
    ([X1, G, R], ["XCLAIM", "k", "g", "c", "0", "1-1"], []),
    ([X1, G, R], ["XAUTOCLAIM", "k", "g", "d", "0", "0"], ["xgroup-createconsumer"]),
]


@pytest.mark.parametrize("setup,cmd,events", ONE_KEY, ids=[" ".join(c[1]) for c in ONE_KEY])
def test_a_command_publishes_its_event_on_both_channels(r, listen, setup, cmd, events):
    for s in setup:
        r.execute_command(*s)
    listen.drain(r)
    assert run(r, listen, *cmd) == both("k", *events)


# ---- several keys -----------------------------------------------------------------------------

# (setup commands, command, {key: events of that key in order})
SEVERAL_KEYS = [
    ([], ["MSET", "a", "1", "b", "2"], {"a": ["set"], "b": ["set"]}),
    ([["SET", "a", "1"]], ["MSETNX", "a", "1", "b", "2"], {}),
    ([["SET", "a", "1"], ["SET", "b", "2"]], ["DEL", "a", "b", "c"], {"a": ["del"], "b": ["del"]}),
    ([["SET", "a", "1"], ["SET", "b", "2"]], ["RENAME", "a", "b"],
     {"a": ["rename_from"], "b": ["rename_to"]}),
    ([["SET", "a", "1"]], ["RENAMENX", "a", "b"], {"a": ["rename_from"], "b": ["rename_to"]}),
    ([["SET", "a", "1"]], ["COPY", "a", "b"], {"b": ["copy_to"]}),
    ([["SADD", "a", "x"]], ["SMOVE", "a", "b", "x"], {"a": ["srem", "del"], "b": ["sadd"]}),
    ([["RPUSH", "a", "x", "y"]], ["LMOVE", "a", "b", "RIGHT", "LEFT"],
     {"a": ["rpop"], "b": ["lpush"]}),
    ([["RPUSH", "a", "x"]], ["RPOPLPUSH", "a", "b"], {"a": ["rpop", "del"], "b": ["lpush"]}),
    ([["RPUSH", "a", "x", "y"]], ["BLMOVE", "a", "a", "LEFT", "RIGHT", "0"],
     {"a": ["rpush", "lpop"]}),
    ([["SADD", "a", "x"], ["SADD", "b", "x"]], ["SINTERSTORE", "d", "a", "b"],
     {"d": ["sinterstore"]}),
    ([["SADD", "d", "x"]], ["SUNIONSTORE", "d", "nosuch"], {"d": ["del"]}),
    ([["SADD", "a", "x"]], ["SDIFFSTORE", "d", "a", "nosuch"], {"d": ["sdiffstore"]}),
    ([["ZADD", "a", "1", "x"]], ["ZUNIONSTORE", "d", "1", "a"], {"d": ["zunionstore"]}),
    ([["ZADD", "d", "1", "x"]], ["ZINTERSTORE", "d", "2", "a", "nosuch"], {"d": ["del"]}),
    ([["ZADD", "a", "1", "x"]], ["ZRANGESTORE", "d", "a", "0", "-1"], {"d": ["zrangestore"]}),
    ([["SET", "a", "x"]], ["BITOP", "NOT", "d", "a"], {"d": ["set"]}),
    ([["SET", "d", "x"]], ["BITOP", "OR", "d", "nosuch"], {"d": ["del"]}),
]


@pytest.mark.parametrize("setup,cmd,events", SEVERAL_KEYS,
                         ids=[" ".join(c[1]) for c in SEVERAL_KEYS])
def test_a_command_on_several_keys_tells_each_key_its_events(r, listen, setup, cmd, events):
    for s in setup:
        r.execute_command(*s)
    listen.drain(r)
    got = run(r, listen, *cmd)
    want = []
    for key, evs in events.items():
        want += both(key, *evs)
    assert sorted(got) == sorted(want)
    for key, evs in events.items():  # each key's own events in order
        mine = [p for c, p in got if c == f"__keyspace@0__:{key}"]
        assert mine == evs


def test_move_and_copy_name_the_database_of_each_side(r, listen):
    r.execute_command("SET", "k", "v")
    listen.drain(r)
    got = run(r, listen, "MOVE", "k", "3")
    assert sorted(got) == sorted(both("k", "move_from") + both("k", "move_to", db=3))
    got = run(r, listen, "COPY", "k", "k2", "DB", "0")
    assert got == []  # k is in db 3 now: nothing to copy from db 0
    r.execute_command("SELECT", "3")
    got = run(r, listen, "COPY", "k", "k2", "DB", "5")
    assert got == both("k2", "copy_to", db=5)
    r.execute_command("SELECT", "0")


def test_the_database_number_is_the_clients(server, listen):
    c = server.client()
    c.execute_command("SELECT", "7")
    c.execute_command("SET", "k", "v")
    assert listen.drain(c) == both("k", "set", db=7)
    c.execute_command("FLUSHDB")
    c.connection_pool.disconnect()


# ---- classes ----------------------------------------------------------------------------------

@pytest.mark.parametrize("classes,want", [
    ("K$", [("__keyspace@0__:k", "set")]),
    ("E$", [("__keyevent@0__:set", "k")]),
    ("Kg", [("__keyspace@0__:k", "expire"), ("__keyspace@0__:l", "del")]),
    ("El", [("__keyevent@0__:lpop", "l")]),
    ("KElg", [("__keyspace@0__:k", "expire"), ("__keyevent@0__:expire", "k"),
              ("__keyspace@0__:l", "lpop"), ("__keyevent@0__:lpop", "l"),
              ("__keyspace@0__:l", "del"), ("__keyevent@0__:del", "l")]),
    ("A", []),  # no K nor E: nothing
])
def test_only_the_configured_classes_are_published(server, r, classes, want):
    r.execute_command("RPUSH", "l", "x")
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", classes)
    lst = Listener(server)
    try:
        r.execute_command("SET", "k", "v", "EX", "100")
        r.execute_command("LPOP", "l")
        assert lst.drain(r) == want
    finally:
        lst.close()
        r.execute_command("CONFIG", "SET", "notify-keyspace-events", "")


def test_new_is_told_before_the_first_write_of_a_key(r, listen):
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "KEAn")
    assert run(r, listen, "SET", "k", "v") == both("k", "new", "set")
    assert run(r, listen, "SET", "k", "w") == both("k", "set")
    assert run(r, listen, "RPUSH", "l", "a") == both("l", "new", "rpush")
    r.execute_command("SET", "d", "old")
    listen.drain(r)
    got = run(r, listen, "RENAME", "k", "d")  # the replaced destination is new all the same
    assert sorted(got) == sorted(both("k", "rename_from") + both("d", "new", "rename_to"))


def test_keymiss_is_told_for_reads_that_find_nothing(r, listen):
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "KEm")
    r.execute_command("SET", "k", "v")
    assert run(r, listen, "GET", "nosuch") == both("nosuch", "keymiss")
    assert run(r, listen, "GET", "k") == []
    assert run(r, listen, "HGET", "h", "f") == both("h", "keymiss")
    assert run(r, listen, "TTL", "t") == both("t", "keymiss")
    assert sorted(run(r, listen, "MGET", "k", "m1", "m2")) == sorted(
        both("m1", "keymiss") + both("m2", "keymiss"))
    assert run(r, listen, "INCR", "w") == []  # a writer's lookup is no miss
    assert run(r, listen, "SUNIONSTORE", "d", "nosuch") == both("nosuch", "keymiss")


def test_expired_is_told_when_active_expiry_removes_a_key(r, listen):
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "Ex")
    r.execute_command("SET", "k", "v", "PX", "50")
    got = []
    assert wait_until(lambda: got.extend(listen.drain(r)) or got, timeout=10)
    assert got == [("__keyevent@0__:expired", "k")]


# ---- transactions and scripts -----------------------------------------------------------------

def test_commands_run_by_exec_publish_their_events(r, listen):
    p = r.pipeline(transaction=True)
    p.set("k", "1")
    p.incr("k")
    p.rpush("l", "x")
    p.execute()
    got = listen.drain(r)
    assert [e for e in got if e[0].endswith(":k") or e[1] == "k"] == both("k", "set", "incrby")
    assert sorted(got) == sorted(both("k", "set", "incrby") + both("l", "rpush"))


def test_commands_a_script_calls_publish_their_events(r, listen):
    script = "redis.call('SET', KEYS[1], 'v'); redis.call('HSET', KEYS[2], 'f', 'v'); return 1"
    # a script's calls run one after the other: their events come in that order
    assert run(r, listen, "EVAL", script, "2", "s", "h") == both("s", "set") + both("h", "hset")
    r.execute_command("FUNCTION", "LOAD", "REPLACE",
                      "#!lua name=ntf\nredis.register_function('ntf_del', "
                      "function(keys) return redis.call('DEL', keys[1]) end)")
    assert run(r, listen, "FCALL", "ntf_del", "1", "s") == both("s", "del")
    r.execute_command("FUNCTION", "FLUSH")


def test_a_waiting_pop_served_by_a_push_tells_both(server, r, listen):
    waiter = server.client()
    out = []
    t = threading.Thread(target=lambda: out.append(waiter.execute_command("BLPOP", "q", "5")))
    t.start()
    assert wait_until(lambda: b"cmd=blpop" in r.execute_command("CLIENT", "LIST"))
    r.execute_command("RPUSH", "q", "x")
    t.join(10)
    assert out == [[b"q", b"x"]]
    assert listen.drain(r) == both("q", "rpush", "lpop", "del")
    waiter.connection_pool.disconnect()
