"""EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT: Redis 7.0's replies and error texts, the sandbox,
redis-py's register_script and lock(), scripts spanning both workers never seen half done, and
keys a script did not declare."""

import threading
import time

import pytest
import redis

from conftest import RawConn, Error, Simple, arity, err, is_redis, run_for, wait_until


def sha_of(body):
    import hashlib
    return hashlib.sha1(body.encode()).hexdigest()


def suffix(body, line=1):
    return " script: %s, on @user_script:%d." % (sha_of(body), line)


def test_values_convert_both_ways(r):
    assert r.execute_command("EVAL", "return {1,2,{3,'x'},nil,4}", 0) == [1, 2, [3, b"x"]]
    assert r.execute_command("EVAL", "return 3.99", 0) == 3
    assert r.execute_command("EVAL", "return true", 0) == 1
    assert r.execute_command("EVAL", "return false", 0) is None
    assert r.execute_command("EVAL", "return redis.status_reply('FINE')", 0) == b"FINE"
    assert err(r, "EVAL", "return redis.error_reply('MY err')", 0) == "MY err"
    assert r.execute_command("EVAL", "return KEYS[1] .. ARGV[2]", 1, "k", "a", "b") == b"kb"
    r.execute_command("HSET", "h", "f", "v")
    assert r.execute_command("EVAL", "return redis.call('hgetall', KEYS[1])", 1, "h") == [
        b"f", b"v"]
    assert r.execute_command("EVAL", "return redis.call('get', 'nokey') == false", 0) == 1


def test_errors_name_the_script_and_line(r):
    body = "local a = 1\nerror('boom')"
    assert err(r, "EVAL", body, 0) == "ERR user_script:2: boom" + suffix(body, 2)
    r.execute_command("SET", "s", "abc")
    body = "return redis.call('incr', KEYS[1])"
    assert err(r, "EVAL", body, 1, "s") == (
        "ERR value is not an integer or out of range" + suffix(body))
    assert err(r, "EVAL", "return redis.pcall('incr', KEYS[1])", 1, "s") == (
        "ERR value is not an integer or out of range")
    for body, text in [("return redis.call('nope')",
                        "ERR Unknown Redis command called from script"),
                       ("return redis.call('get')",
                        "ERR Wrong number of args calling Redis command from script"),
                       ("return redis.call('multi')",
                        "ERR This Redis command is not allowed from script"),
                       ("return redis.call('blpop','l','0')",
                        "ERR This Redis command is not allowed from script"),
                       ("return redis.call('client','id')",
                        "ERR This Redis command is not allowed from script"),
                       ("return redis.call({})",
                        "ERR Lua redis lib command arguments must be strings or integers")]:
        assert err(r, "EVAL", body, 0) == text + suffix(body)
    assert err(r, "EVAL", "syntax error here", 0) == (
        "ERR Error compiling script (new function): user_script:1: '=' expected near 'error'")


def test_argument_errors(r):
    assert err(r, "EVALSHA", "0000", 0) == "NOSCRIPT No matching script. Please use EVAL."
    assert err(r, "EVAL", "return 1", "x") == "ERR value is not an integer or out of range"
    assert err(r, "EVAL", "return 1", -1) == "ERR Number of keys can't be negative"
    assert err(r, "EVAL", "return 1", 2, "a") == (
        "ERR Number of keys can't be greater than number of args")
    assert err(r, "EVAL", "return 1") == arity("eval")
    assert err(r, "SCRIPT") == arity("script")
    assert err(r, "SCRIPT", "NOPE") == "ERR unknown subcommand 'NOPE'. Try SCRIPT HELP."
    assert err(r, "SCRIPT", "FLUSH", "x") == "ERR SCRIPT FLUSH only support SYNC|ASYNC option"


@pytest.mark.parametrize("name", ["os", "io", "require", "dofile", "loadfile", "print",
                                  "getfenv", "setfenv", "debug", "newproxy", "module",
                                  "package"])
def test_sandbox_hides_escapes(r, name):
    body = "return %s" % name
    assert err(r, "EVAL", body, 0) == (
        "ERR user_script:1: Script attempted to access nonexistent global variable '%s'" % name
        + suffix(body))


def test_sandbox_is_read_only(r):
    assert r.execute_command("EVAL", "return loadstring", 0) is None
    for body in ["x = 1", "string.foo = 1", "redis.call = nil", "math.huge = 1"]:
        assert err(r, "EVAL", body, 0) == (
            "ERR user_script:1: Attempt to modify a readonly table" + suffix(body))
    body = "return rawset(_G, 'x', 1)"
    assert err(r, "EVAL", body, 0) == "ERR Attempt to modify a readonly table" + suffix(body)
    # A global set by one script never reaches the next.
    with pytest.raises(redis.ResponseError):
        r.execute_command("EVAL", "x = 1", 0)
    assert "nonexistent" in err(r, "EVAL", "return x", 0)


def test_read_only_scripts_refuse_writes(r):
    body = "return redis.call('set', KEYS[1], 'v')"
    assert err(r, "EVAL_RO", body, 1, "k") == (
        "ERR Write commands are not allowed from read-only scripts." + suffix(body))
    r.execute_command("SET", "k", "v")
    assert r.execute_command("EVAL_RO", "return redis.call('get', KEYS[1])", 1, "k") == b"v"
    sha = r.execute_command("SCRIPT", "LOAD", "return redis.call('get', KEYS[1])").decode()
    assert r.execute_command("EVALSHA_RO", sha, 1, "k") == b"v"


def test_blocking_commands_scripts_may_call_answer_at_once(r):
    """XREAD, XREADGROUP, BLMPOP and BZMPOP run in a script without waiting (BLPOP & co. are
    refused: noscript); XREAD's BLOCK option is refused there."""
    r.execute_command("XADD", "s", "1-1", "f", "v")
    body = "return redis.call('XREAD', 'STREAMS', KEYS[1], '0')"
    assert r.execute_command("EVAL", body, 1, "s") == [[b"s", [[b"1-1", [b"f", b"v"]]]]]
    body = "return redis.call('xread', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')"
    assert err(r, "EVAL", body, 1, "s") == (
        "ERR xread command is not allowed with BLOCK option from scripts" + suffix(body))
    body = "return redis.call('BLMPOP', '0', '1', KEYS[1], 'LEFT')"
    assert r.execute_command("EVAL", body, 1, "nolist") is None
    body = "return redis.call('BZMPOP', '0', '1', KEYS[1], 'MIN')"
    assert r.execute_command("EVAL", body, 1, "nozset") is None
    body = "return redis.call('BLPOP', KEYS[1], '0')"
    assert err(r, "EVAL", body, 1, "l") == (
        "ERR This Redis command is not allowed from script" + suffix(body))


def test_script_load_exists_flush(r):
    sha = r.execute_command("SCRIPT", "LOAD", "return 1")
    assert sha == b"e0e1f9fabfc9d4800c877a703b823ac0578ff8db"
    assert r.execute_command("SCRIPT", "EXISTS", sha, "0000") == [1, 0]
    assert r.execute_command("EVALSHA", sha, 0) == 1
    assert r.execute_command("EVALSHA", sha.upper(), 0) == 1
    assert r.execute_command("SCRIPT", "FLUSH") == b"OK"
    assert r.execute_command("SCRIPT", "EXISTS", sha) == [0]
    assert err(r, "SCRIPT", "LOAD", "x x") == (
        "ERR Error compiling script (new function): user_script:1: '=' expected near 'x'")
    r.execute_command("EVAL", "return 2", 0)  # EVAL caches its script too
    assert r.execute_command("EVALSHA", sha_of("return 2"), 0) == 2
    assert err(r, "SCRIPT", "KILL") == "NOTBUSY No scripts in execution right now."


def test_select_inside_a_script_stays_inside(r):
    assert r.execute_command(
        "EVAL", "redis.call('select', 2); redis.call('set','x','y'); return redis.call('get','x')",
        0) == b"y"
    assert r.execute_command("GET", "x") is None
    r.execute_command("SELECT", "2")
    assert r.execute_command("GET", "x") == b"y"


def test_undeclared_keys_and_every_slot_commands(r):
    body = ("redis.call('set','a','1'); redis.call('set','b','2'); redis.call('set','{a}c','3');"
            " return redis.call('mget','a','b','{a}c')")
    assert r.execute_command("EVAL", body, 0) == [b"1", b"2", b"3"]
    assert sorted(r.execute_command("EVAL", "return redis.call('keys','*')", 0)) == [
        b"a", b"b", b"{a}c"]
    assert r.execute_command("EVAL", "return redis.call('flushall')", 0) == b"OK"
    assert r.execute_command("DBSIZE") == 0


def test_scripts_inside_multi(server, r):
    with RawConn(server.port) as c:
        c.command("MULTI")
        c.command("EVAL", "return redis.call('incr', KEYS[1])", 1, "n")
        c.command("EVAL", "return redis.call('incr', KEYS[1])", 1, "n")
        assert c.command("EXEC") == [1, 2]


def test_resp3_client(server, r):
    with RawConn(server.port) as c:
        c.command("HELLO", "3")
        assert c.command("EVAL", "return {double=1.5}", 0) == 1.5
        assert c.command("EVAL", "redis.setresp(3); return false", 0) is False
        assert c.command("EVAL", "return {map={a=1}}", 0) == {b"a": 1}


def test_redis_py_register_script_and_lock(server, r):
    # redis-py's own error parsing: its Script retries NoScriptError with EVAL.
    c = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
    add = c.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
    assert add(keys=["counter"], args=[5]) == 5
    c.script_flush()
    assert add(keys=["counter"], args=[2]) == 7  # NOSCRIPT, then EVAL: redis-py retries
    lock = c.lock("resource", timeout=5, blocking_timeout=1)
    assert lock.acquire()
    assert not c.lock("resource", blocking_timeout=0.1).acquire()
    assert lock.extend(5)
    lock.release()
    assert c.get("resource") is None
    other = c.lock("resource", timeout=0.2)
    assert other.acquire()
    time.sleep(0.4)
    with pytest.raises(redis.exceptions.LockNotOwnedError):
        other.release()  # expired meanwhile: its release script finds another token or none
    c.close()


def test_script_spanning_both_workers_is_never_seen_half_done(server, r):
    """Scripts move money between accounts on both workers; MGET readers never see the total
    change."""
    from test_transactions import keys_on
    accounts = keys_on(0, 3, "sa") + keys_on(1, 3, "sb")
    r.execute_command("MSET", *[x for a in accounts for x in (a, 100)])
    total = 100 * len(accounts)
    body = ("local v = redis.call('decrby', KEYS[1], ARGV[1]); "
            "redis.call('incrby', KEYS[2], ARGV[1]); return v")
    stop = threading.Event()
    bad = []
    moves = [0]

    def mover(i):
        c = server.client()
        n = 0
        while not stop.is_set():
            src = accounts[n % len(accounts)]
            dst = accounts[(n * 7 + i + 1) % len(accounts)]
            n += 1
            if src == dst:
                continue
            c.execute_command("EVAL", body, 2, src, dst, 3)
            moves[0] += 1

    def reader():
        c = server.client()
        while not stop.is_set():
            s = sum(int(v) for v in c.execute_command("MGET", *accounts))
            if s != total:
                bad.append(s)

    threads = [threading.Thread(target=mover, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    run_for(3, threads, stop)
    assert moves[0] > 50
    assert bad == []


def reply_or_error(client, *args):
    try:
        return client.execute_command(*args)
    except redis.ResponseError as e:
        return str(e)


def test_busy_script_gets_busy_replies_and_script_kill(server, r):
    r.execute_command("CONFIG", "SET", "busy-reply-threshold", "200")
    try:
        looping = RawConn(server.port, timeout=20)
        body = "local i = 0 while true do i = i + 1 end"
        looping.send_command("EVAL", body, 0)
        busy = ("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
                "NOSAVE.")
        assert wait_until(lambda: reply_or_error(r, "GET", "k") == busy, timeout=5)
        assert r.execute_command("MULTI") == b"OK"  # allowed while busy, as in Redis
        assert r.execute_command("DISCARD") == b"OK"
        assert r.execute_command("SCRIPT", "KILL") == b"OK"
        assert looping.read_reply() == Error(
            ("ERR Script killed by user with SCRIPT KILL..." + suffix(body)).encode())
        assert r.execute_command("GET", "k") is None
        looping.close()

        # A script that wrote cannot be killed; it runs to its end: three whole seconds of TIME,
        # so a loaded machine still finds it busy after the 200 ms threshold.
        writer = RawConn(server.port, timeout=20)
        body = ("redis.call('set', KEYS[1], '1') local function now() local t = redis.call('time') "
                "return tonumber(t[1]) + tonumber(t[2]) / 1e6 end "
                "local s = now() while now() < s + 3 do end return 'done'")
        writer.send_command("EVAL", body, 1, "w")
        assert wait_until(lambda: reply_or_error(r, "GET", "k") == busy, timeout=5)
        assert err(r, "SCRIPT", "KILL").startswith(
            "UNKILLABLE Sorry the script already executed write commands against the dataset.")
        assert writer.read_reply() == b"done"
        assert r.execute_command("GET", "w") == b"1"
        writer.close()
        assert err(r, "SCRIPT", "KILL") == "NOTBUSY No scripts in execution right now."
    finally:
        r.execute_command("CONFIG", "SET", "busy-reply-threshold", "5000")
