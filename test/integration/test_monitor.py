"""MONITOR as Redis 7.0.15 gives it: +OK, then one simple-string line per command run by any
client (the monitor too), `+<secs>.<micros> [<db> <ip:port>] "cmd" "arg" ...`, arguments quoted
with C escapes (\\xHH for other bytes, lower case) and the command name as typed.

What Redis 7.0.15 does, pinned below: a line is written after the command ran, so `SELECT 3`
already shows db 3, MULTI shows at once but queued commands only at EXEC, before the EXEC line.
Scripts are the exception: EVAL / EVALSHA / FCALL show before their calls (`[0 lua]`), even an
EVALSHA of an unknown script. Admin commands (CONFIG, CLIENT LIST, MONITOR...) and rejected ones
(unknown, wrong arity, NOAUTH, refused on a monitor) are not shown; CLIENT INFO, QUIT, RESET are.
AUTH / HELLO AUTH / MIGRATE AUTH passwords are "(redacted)", except in an AUTH or HELLO that
fails its syntax check. A second MONITOR gets no reply; a monitor may PING but keyspace commands
fail with "Replica can't interact with the keyspace"; MONITOR in MULTI fails at EXEC.
Keys use distinct names, so slotkv spreads them over its workers.
"""

import contextlib
import re
import time

from conftest import Error, Simple

LINE = re.compile(rb"^\+(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)$", re.S)
DENY_BLOCKING = b"ERR MONITOR isn't allowed for DENY BLOCKING client"
NO_KEYSPACE = b"ERR Replica can't interact with the keyspace"
REDACTED = b'"(redacted)"'
MARK = b'"ECHO" "monitor-mark"'


def start(conn):
    assert conn.command("MONITOR") == Simple(b"OK")
    return conn


@contextlib.contextmanager
def monitor(server):
    """A raw connection that ran MONITOR, closed on exit."""
    with server.raw() as mon:
        yield start(mon)


def addr(conn):
    return "%s:%d" % conn.sock.getsockname()[:2]


def entry(line):
    """(db, address, command part) of one monitor line; checks its form and timestamp."""
    match = LINE.match(line)
    assert match, line
    secs, micros, db, who, rest = match.groups()
    assert abs(int(secs) + int(micros) / 1e6 - time.time()) < 5, line
    return int(db), who.decode(), rest


def lines(mon, n):
    return [entry(mon.read_line()) for _ in range(n)]


def rests(mon, n):
    return [e[2] for e in lines(mon, n)]


def until_mark(mon, conn):
    """The command parts shown before `ECHO monitor-mark`, run now by conn (order kept)."""
    assert conn.command("ECHO", "monitor-mark") == b"monitor-mark"
    got = []
    for _ in range(200):
        rest = entry(mon.read_line())[2]
        if rest == MARK:
            return got
        got.append(rest)
    raise AssertionError("no mark line: %r" % got)


def quiet(mon, wait=0.3):
    assert mon.read_available(wait) == b""


# ---- what a line looks like ---------------------------------------------------------------------

def test_lines_of_another_client_in_order_with_its_address(server, r):
    with monitor(server) as mon, server.raw() as c:
        info = c.command("CLIENT", "INFO").decode()
        who = re.search(r"\baddr=(\S+)", info).group(1)
        assert who == addr(c)
        assert c.command("SET", "k", "v") == b"OK"
        assert c.command("Get", "k") == b"v"
        assert lines(mon, 3) == [(0, who, b'"CLIENT" "INFO"'), (0, who, b'"SET" "k" "v"'),
                                 (0, who, b'"Get" "k"')]
        quiet(mon)


def test_raw_bytes_of_a_line(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.command("PING")
        line = mon.read_line() + b"\r\n"
        head = re.match(rb"\+\d+\.\d{6} ", line).group(0)
        assert line == head + b'[0 %s] "PING"\r\n' % addr(c).encode()


def test_arguments_are_quoted_with_c_escapes(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.command("SET", "b", b'a"b\\c\n\x01\xff')
        c.command("SET", "c", b"\r\t\x07\x08 \x7f~")
        c.command("SET", "e", b"")
        c.command("SET", "u", "\u00e9 x")
        assert rests(mon, 4) == [b'"SET" "b" "a\\"b\\\\c\\n\\x01\\xff"',
                                 b'"SET" "c" "\\r\\t\\a\\b \\x7f~"', b'"SET" "e" ""',
                                 b'"SET" "u" "\\xc3\\xa9 x"']


def test_inline_command_shows_its_parsed_arguments(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.send(b'set inl  "a b"\r\n')
        assert c.read_reply() == Simple(b"OK")
        assert rests(mon, 1) == [b'"set" "inl" "a b"']


def test_db_is_the_db_after_the_command(server, r):
    with monitor(server) as mon, server.raw() as c:
        who = addr(c)
        assert c.command("SELECT", "3") == Simple(b"OK")
        c.command("GET", "x")
        assert lines(mon, 2) == [(3, who, b'"SELECT" "3"'), (3, who, b'"GET" "x"')]
        assert c.command("QUIT") == Simple(b"OK")
        assert lines(mon, 1) == [(3, who, b'"QUIT"')]


def test_fifty_keys_of_one_client_arrive_in_order(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.send(b"".join(b"*3\r\n$3\r\nSET\r\n$6\r\nkey:%02d\r\n$2\r\n%02d\r\n" % (i, i)
                        for i in range(50)))
        assert [c.read_reply() for _ in range(50)] == [Simple(b"OK")] * 50
        assert lines(mon, 50) == [(0, addr(c), b'"SET" "key:%02d" "%02d"' % (i, i))
                                  for i in range(50)]
        quiet(mon)


def test_commands_show_as_typed_not_as_propagated(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.command("set", "k", "v", "EX", "100")
        c.command("GETEX", "k", "PX", "100000")
        c.command("EXPIRE", "k", "50")
        c.command("INCRBYFLOAT", "f", "1.5")
        c.command("SPOP", "nokey")
        assert until_mark(mon, c) == [b'"set" "k" "v" "EX" "100"',
                                      b'"GETEX" "k" "PX" "100000"', b'"EXPIRE" "k" "50"',
                                      b'"INCRBYFLOAT" "f" "1.5"', b'"SPOP" "nokey"']


# ---- what is not shown --------------------------------------------------------------------------

def test_admin_commands_are_not_shown(server, r):
    with monitor(server) as mon, server.raw() as c, server.raw() as other:
        assert c.command("CONFIG", "GET", "maxmemory")[0] == b"maxmemory"
        assert c.command("CONFIG", "SET", "maxmemory", "0") == Simple(b"OK")
        assert b"cmd=monitor" in c.command("CLIENT", "LIST")
        start(other)  # MONITOR itself
        assert c.command("CLIENT", "SETNAME", "nm") == Simple(b"OK")  # not admin: shown
        c.command("CLIENT", "INFO")
        assert until_mark(mon, c) == [b'"CLIENT" "SETNAME" "nm"', b'"CLIENT" "INFO"']


def test_rejected_commands_are_not_shown(server, r):
    with monitor(server) as mon, server.raw() as c:
        assert c.command("NOSUCH", "a").startswith(b"ERR unknown command 'NOSUCH'")
        assert c.command("GET") == Error(b"ERR wrong number of arguments for 'get' command")
        assert c.command("SET", "a") == Error(b"ERR wrong number of arguments for 'set' command")
        c.command("SET", "s", "x")
        assert c.command("LPUSH", "s", "y").startswith(b"WRONGTYPE")  # ran: shown
        assert until_mark(mon, c) == [b'"SET" "s" "x"', b'"LPUSH" "s" "y"']


def test_scripts_show_before_their_calls_which_show_as_lua(server, r):
    with monitor(server) as mon, server.raw() as c:
        who = addr(c)
        src = "redis.call('set','a','b'); return redis.call('get','a')"
        assert c.command("EVAL", src, "0") == b"b"
        assert lines(mon, 3) == [(0, who, b'"EVAL" "%s" "0"' % src.encode()),
                                 (0, "lua", b'"set" "a" "b"'), (0, "lua", b'"get" "a"')]
        sha = c.command("SCRIPT", "LOAD", "return redis.call('incr',KEYS[1])")
        assert c.command("EVALSHA", sha, "1", "cnt") == 1
        assert c.command("EVALSHA", "0" * 40, "0").startswith(b"NOSCRIPT")
        assert until_mark(mon, c) == [
            b'"SCRIPT" "LOAD" "return redis.call(\'incr\',KEYS[1])"',
            b'"EVALSHA" "%s" "1" "cnt"' % sha, b'"incr" "cnt"',
            b'"EVALSHA" "%s" "0"' % (b"0" * 40)]


def test_fcall_shows_before_its_calls(server, r):
    with monitor(server) as mon, server.raw() as c:
        code = ("#!lua name=monlib\n"
                "redis.register_function('mf', function(k, a) return redis.call('get', k[1]) end)")
        assert c.command("FUNCTION", "LOAD", "REPLACE", code) == b"monlib"
        try:
            assert c.command("FCALL", "mf", "1", "fk") is None
            got = lines(mon, 3)[1:]
            assert got == [(0, addr(c), b'"FCALL" "mf" "1" "fk"'), (0, "lua", b'"get" "fk"')]
        finally:
            assert c.command("FUNCTION", "DELETE", "monlib") == Simple(b"OK")


# ---- transactions -------------------------------------------------------------------------------

def test_multi_at_once_queued_commands_at_exec_before_it(server, r):
    with monitor(server) as mon, server.raw() as c:
        who = addr(c)
        assert c.command("MULTI") == Simple(b"OK")
        assert lines(mon, 1) == [(0, who, b'"MULTI"')]
        assert c.command("SET", "a", "1") == Simple(b"QUEUED")
        assert c.command("GET", "a") == Simple(b"QUEUED")
        quiet(mon)
        assert c.command("EXEC") == [b"OK", b"1"]
        assert lines(mon, 3) == [(0, who, b'"SET" "a" "1"'), (0, who, b'"GET" "a"'),
                                 (0, who, b'"EXEC"')]


def test_execabort_and_discard(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.command("MULTI")
        assert c.command("SET", "a") == Error(b"ERR wrong number of arguments for 'set' command")
        assert c.command("EXEC") == Error(
            b"EXECABORT Transaction discarded because of previous errors.")
        c.command("MULTI")
        assert c.command("SET", "a", "2") == Simple(b"QUEUED")
        assert c.command("DISCARD") == Simple(b"OK")
        assert until_mark(mon, c) == [b'"MULTI"', b'"EXEC"', b'"MULTI"', b'"DISCARD"']


def test_monitor_inside_multi_fails_at_exec(server, r):
    with monitor(server) as mon, server.raw() as c:
        c.command("MULTI")
        assert c.command("MONITOR") == Simple(b"QUEUED")
        c.send_command("EXEC")
        c.expect(b"*1\r\n-" + DENY_BLOCKING + b"\r\n")
        assert c.command("GET", "x") is None  # not a monitor
        assert b" flags=N " in c.command("CLIENT", "INFO")
        assert until_mark(mon, c) == [b'"MULTI"', b'"EXEC"', b'"GET" "x"', b'"CLIENT" "INFO"']


# ---- the monitor connection ---------------------------------------------------------------------

def test_second_monitor_sends_no_reply(server, r):
    with monitor(server) as mon:
        mon.send_command("MONITOR")
        mon.send_command("PING")
        assert mon.read_line() == b"+PONG"
        assert lines(mon, 1) == [(0, addr(mon), b'"PING"')]  # its own commands too
        quiet(mon)


def test_monitor_may_ping_but_not_touch_the_keyspace(server, r):
    with monitor(server) as mon, server.raw() as c:
        mon.send_command("PING", "hi")
        assert mon.read_line() == b"$2"
        assert mon.read_line() == b"hi"
        assert lines(mon, 1) == [(0, addr(mon), b'"PING" "hi"')]
        mon.send_command("GET", "x")
        assert mon.read_line() == b"-" + NO_KEYSPACE
        mon.send_command("PUBLISH", "ch", "m")
        assert mon.read_line() == b"-" + NO_KEYSPACE
        c.command("SET", "x", "1")  # the monitor still gets lines
        assert lines(mon, 1) == [(0, addr(c), b'"SET" "x" "1"')]
        quiet(mon)


def test_reset_stops_the_feed(server, r):
    with monitor(server) as mon, monitor(server) as watcher, server.raw() as c:
        assert mon.command("RESET") == Simple(b"RESET")
        assert lines(watcher, 1) == [(0, addr(mon), b'"RESET"')]
        c.command("SET", "z", "1")
        assert lines(watcher, 1) == [(0, addr(c), b'"SET" "z" "1"')]
        quiet(mon)
        assert mon.command("GET", "z") == b"1"  # a plain client again
        quiet(mon)
        assert lines(watcher, 1) == [(0, addr(mon), b'"GET" "z"')]


def test_client_list_flags_and_closing_the_monitor(server, r):
    with server.raw() as c:
        with monitor(server) as mon:
            who = b" addr=%s " % addr(mon).encode()
            mine = [l for l in c.command("CLIENT", "LIST").split(b"\n") if who in l]
            assert len(mine) == 1
            assert b" flags=O " in mine[0] and b" cmd=monitor " in mine[0]
        for _ in range(100):
            if who not in c.command("CLIENT", "LIST"):
                break
            time.sleep(0.02)
        else:
            raise AssertionError("closed monitor still listed")
        assert c.command("SET", "after", "1") == Simple(b"OK")
        assert c.command("GET", "after") == b"1"


def test_resp3_monitor_gets_simple_strings(server, r):
    with server.raw() as mon, server.raw() as c:
        assert mon.command("HELLO", "3")[b"proto"] == 3
        start(mon)
        c.command("SET", "r3", "v")
        raw = mon.read_available(2, settle=0.3)
        assert raw.startswith(b"+") and raw.endswith(b'"SET" "r3" "v"\r\n')
        assert entry(raw[:-2]) == (0, addr(c), b'"SET" "r3" "v"')


def test_two_monitors_get_the_same_lines(server, r):
    with monitor(server) as m1, monitor(server) as m2, server.raw() as c:
        for i in range(5):
            c.command("INCR", "n%d" % i)
        a = [m1.read_line() for _ in range(5)]
        assert [m2.read_line() for _ in range(5)] == a
        assert [entry(l) for l in a] == [(0, addr(c), b'"INCR" "n%d"' % i) for i in range(5)]


def test_blocking_pop_shows_when_it_blocks(server, r):
    with monitor(server) as mon, server.raw() as b, server.raw() as p:
        b.send_command("BLPOP", "q", "0")
        assert lines(mon, 1) == [(0, addr(b), b'"BLPOP" "q" "0"')]
        assert p.command("LPUSH", "q", "x") == 1
        assert b.read_reply() == [b"q", b"x"]
        assert lines(mon, 1) == [(0, addr(p), b'"LPUSH" "q" "x"')]
        quiet(mon)


# ---- passwords ----------------------------------------------------------------------------------

def test_auth_passwords_are_redacted(make_server):
    s = make_server(["--requirepass", "s3cret"])
    with s.raw() as mon, s.raw() as c:
        assert mon.command("AUTH", "s3cret") == Simple(b"OK")
        start(mon)
        assert c.command("GET", "x") == Error(b"NOAUTH Authentication required.")
        assert c.command("AUTH", "wrong").startswith(b"WRONGPASS")
        assert c.command("AUTH", "s3cret") == Simple(b"OK")
        assert c.command("AUTH", "default", "s3cret") == Simple(b"OK")
        assert c.command("AUTH", "nouser", "pw").startswith(b"WRONGPASS")
        assert until_mark(mon, c) == [b'"AUTH" ' + REDACTED] * 2 + [
            b'"AUTH" ' + REDACTED + b" " + REDACTED] * 2
        # a syntax error is caught before the redaction
        assert c.command("AUTH", "a", "b", "c") == Error(b"ERR syntax error")
        assert until_mark(mon, c) == [b'"AUTH" "a" "b" "c"']


def test_hello_auth_is_redacted(make_server):
    s = make_server(["--requirepass", "s3cret"])
    with s.raw() as mon, s.raw() as c:
        assert mon.command("AUTH", "s3cret") == Simple(b"OK")
        start(mon)
        assert c.command("HELLO", "2", "AUTH", "default", "bad").startswith(b"WRONGPASS")
        assert c.command("HELLO", "2", "AUTH", "default", "s3cret")[:2] == [b"server", b"redis"]
        assert c.command("HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "nm")[
            b"proto"] == 3
        assert c.command("HELLO", "2", "SETNAME", "x", "AUTH", "default", "s3cret")[5] == 2
        assert c.command("HELLO", "2", "AUTH", "default") == Error(
            b"ERR Syntax error in HELLO option 'AUTH'")
        pair = REDACTED + b" " + REDACTED
        assert until_mark(mon, c) == [b'"HELLO" "2" "AUTH" ' + pair] * 2 + [
            b'"HELLO" "3" "AUTH" ' + pair + b' "SETNAME" "nm"',
            b'"HELLO" "2" "SETNAME" "x" "AUTH" ' + pair, b'"HELLO" "2" "AUTH" "default"']


def test_auth_without_requirepass_and_migrate_auth_are_redacted(server, r):
    with monitor(server) as mon, server.raw() as c:
        assert c.command("AUTH", "x").startswith(b"ERR AUTH <password> called without any")
        assert c.command("MIGRATE", "127.0.0.1", "1", "nokey", "0", "1000", "AUTH", "pw") == (
            Simple(b"NOKEY"))
        assert c.command("MIGRATE", "127.0.0.1", "1", "nokey", "0", "1000", "AUTH2", "u",
                         "pw") == Simple(b"NOKEY")
        m = b'"MIGRATE" "127.0.0.1" "1" "nokey" "0" "1000" '
        assert until_mark(mon, c) == [b'"AUTH" ' + REDACTED, m + b'"AUTH" ' + REDACTED,
                                      m + b'"AUTH2" ' + REDACTED + b" " + REDACTED]
