"""Redis 7 functions: FUNCTION LOAD LIST DELETE FLUSH STATS DUMP RESTORE KILL, FCALL, FCALL_RO;
Redis 7.0's replies and errors, and (slotkv) libraries kept across restarts."""

import subprocess

import pytest
import redis

from conftest import REDIS_BIN, RawConn, arity, err, free_port, wait_until

LIB = ("#!lua name=mylib\n"
       "redis.register_function('myfunc', function(keys, args) "
       "return redis.call('set', keys[1], args[1]) end)\n"
       "redis.register_function{function_name='ro', callback=function(keys, args) "
       "return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads'}\n"
       "redis.register_function('boom', function(keys, args) error('bad') end)")


@pytest.fixture
def f(r):
    r.execute_command("FUNCTION", "FLUSH")
    yield r
    r.execute_command("FUNCTION", "FLUSH")


def by_name(entries):
    """A FUNCTION LIST entry (flat RESP2 map) as a dict, its functions by name."""
    d = dict(zip(entries[::2], entries[1::2]))
    d[b"functions"] = {dict(zip(fn[::2], fn[1::2]))[b"name"]: dict(zip(fn[::2], fn[1::2]))
                       for fn in d[b"functions"]}
    return d


def test_load_call_and_errors(f):
    assert f.execute_command("FUNCTION", "LOAD", LIB) == b"mylib"
    assert err(f, "FUNCTION", "LOAD", LIB) == "ERR Library 'mylib' already exists"
    assert f.execute_command("FUNCTION", "LOAD", "REPLACE", LIB) == b"mylib"
    assert f.execute_command("FCALL", "myfunc", 1, "k", "v") == b"OK"
    assert f.execute_command("FCALL_RO", "ro", 1, "k") == b"v"
    assert err(f, "FCALL_RO", "myfunc", 1, "k", "v") == (
        "ERR Can not execute a script with write flag using *_ro command.")
    assert err(f, "FCALL", "boom", 0) == (
        "ERR user_function:4: bad script: boom, on @user_function:4.")
    assert err(f, "FCALL", "nope", 0) == "ERR Function not found"
    assert err(f, "FCALL", "myfunc", "x") == "ERR Bad number of keys provided"
    assert err(f, "FCALL", "myfunc", -1) == "ERR Number of keys can't be negative"
    assert err(f, "FCALL", "myfunc", 3, "a") == (
        "ERR Number of keys can't be greater than number of args")
    assert err(f, "FCALL") == arity("fcall")


@pytest.mark.parametrize("code,error", [
    ("return 1", "ERR Missing library metadata"),
    ("#!lua\nreturn 1", "ERR Library name was not given"),
    ("#!js name=x\n", "ERR Engine 'js' not found"),
    ("#!lua name=l2\nreturn 1", "ERR No functions registered"),
    ("#!lua name=l3\nredis.register_function('a-b', function() end)",
     "ERR Error registering functions: ERR Library names can only contain letters, numbers, "
     "or underscores(_) and must be at least one character long"),
    ("#!lua name=l4\nredis.call('ping')",
     "ERR Error registering functions: ERR user_function:2: Script attempted to access "
     "nonexistent global variable 'call'"),
    ("#!lua name=l5 foo=bar\nredis.register_function('x', function() end)",
     "ERR Invalid metadata value given: foo=bar"),
    ("#!lua name=l7\nredis.register_function('x', function() return 1 end)\n"
     "redis.register_function('x', function() end)",
     "ERR Error registering functions: ERR Function already exists in the library"),
    ("#!lua name=l8\nredis.register_function{function_name='f', callback=function() end, "
     "flags={'bogus'}}", "ERR Error registering functions: ERR unknown flag given"),
])
def test_load_refusals(f, code, error):
    assert err(f, "FUNCTION", "LOAD", code) == error


def test_function_names_are_unique_across_libraries(f):
    f.execute_command("FUNCTION", "LOAD", LIB)
    assert err(f, "FUNCTION", "LOAD",
               "#!lua name=l6\nredis.register_function('myfunc', function() end)") == (
        "ERR Function myfunc already exists")


def test_list_stats_delete(f):
    f.execute_command("FUNCTION", "LOAD", LIB)
    [lib] = f.execute_command("FUNCTION", "LIST")
    d = by_name(lib)
    assert d[b"library_name"] == b"mylib" and d[b"engine"] == b"LUA"
    assert b"library_code" not in d
    assert d[b"functions"][b"ro"][b"description"] == b"reads"
    assert d[b"functions"][b"ro"][b"flags"] == [b"no-writes"]
    assert d[b"functions"][b"myfunc"][b"description"] is None
    assert d[b"functions"][b"myfunc"][b"flags"] == []
    [lib] = f.execute_command("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "my*")
    assert by_name(lib)[b"library_code"] == LIB.encode()
    assert f.execute_command("FUNCTION", "LIST", "LIBRARYNAME", "other*") == []
    assert err(f, "FUNCTION", "LIST", "LIBRARYNAME") == "ERR library name argument was not given"
    assert err(f, "FUNCTION", "LIST", "bogus") == "ERR Unknown argument bogus"
    assert f.execute_command("FUNCTION", "STATS") == [
        b"running_script", None, b"engines",
        [b"LUA", [b"libraries_count", 1, b"functions_count", 3]]]
    assert err(f, "FUNCTION", "DELETE", "nolib") == "ERR Library not found"
    assert f.execute_command("FUNCTION", "DELETE", "mylib") == b"OK"
    assert err(f, "FCALL", "myfunc", 0) == "ERR Function not found"
    assert err(f, "FUNCTION", "KILL") == "NOTBUSY No scripts in execution right now."
    assert err(f, "FUNCTION", "FLUSH", "x") == "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
    assert err(f, "FUNCTION", "NOPE") == "ERR unknown subcommand 'NOPE'. Try FUNCTION HELP."


def test_dump_restore_round_trip(f):
    f.execute_command("FUNCTION", "LOAD", LIB)
    payload = f.execute_command("FUNCTION", "DUMP")
    f.execute_command("FUNCTION", "FLUSH")
    assert f.execute_command("FUNCTION", "RESTORE", payload) == b"OK"
    assert f.execute_command("FCALL", "myfunc", 1, "k", "w") == b"OK"
    assert err(f, "FUNCTION", "RESTORE", payload) == "ERR Library mylib already exists"
    assert f.execute_command("FUNCTION", "RESTORE", payload, "REPLACE") == b"OK"
    assert f.execute_command("FUNCTION", "RESTORE", payload, "FLUSH") == b"OK"
    assert err(f, "FUNCTION", "RESTORE", b"xx") == (
        "ERR DUMP payload version or checksum are wrong")
    bad = bytearray(payload)
    bad[5] ^= 1
    assert err(f, "FUNCTION", "RESTORE", bytes(bad)) == (
        "ERR DUMP payload version or checksum are wrong")


@pytest.mark.slotkv_only
def test_restore_of_a_dump_from_redis_server(f):
    """FUNCTION DUMP of a real redis-server (its strings LZF-compressed) restores here."""
    port = free_port()
    proc = subprocess.Popen([REDIS_BIN, "--port", str(port), "--save", "", "--appendonly", "no",
                             "--bind", "127.0.0.1"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        real = redis.Redis(port=port)
        assert wait_until(lambda: ping(real), timeout=10)
        real.execute_command("FUNCTION", "LOAD", LIB)
        payload = real.execute_command("FUNCTION", "DUMP")
        assert f.execute_command("FUNCTION", "RESTORE", payload) == b"OK"
        assert f.execute_command("FCALL", "myfunc", 1, "k", "from-redis") == b"OK"
        assert f.execute_command("FCALL_RO", "ro", 1, "k") == b"from-redis"
        # And the other way: slotkv's payload restores into redis-server.
        real.execute_command("FUNCTION", "FLUSH")
        assert real.execute_command("FUNCTION", "RESTORE",
                                    f.execute_command("FUNCTION", "DUMP")) == b"OK"
        assert real.execute_command("FCALL", "myfunc", 1, "k", "back") == b"OK"
        real.close()
    finally:
        proc.terminate()
        proc.wait(10)


def ping(client):
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


def test_functions_inside_multi(server, f):
    f.execute_command("FUNCTION", "LOAD", LIB)
    with RawConn(server.port) as c:
        c.command("MULTI")
        c.command("FCALL", "myfunc", 1, "m", "1")
        c.command("FCALL_RO", "ro", 1, "m")
        assert c.command("EXEC") == [b"OK", b"1"]


@pytest.mark.slotkv_only
def test_libraries_survive_a_restart(server, f):
    f.execute_command("FUNCTION", "LOAD", LIB)
    server.restart()
    c = server.client()
    assert c.execute_command("FCALL", "myfunc", 1, "k", "after") == b"OK"
    assert c.execute_command("FCALL_RO", "ro", 1, "k") == b"after"
    c.execute_command("FUNCTION", "FLUSH")
    server.restart()
    assert server.client().execute_command("FUNCTION", "LIST") == []
