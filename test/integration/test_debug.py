"""DEBUG as Redis 7.0.15 has it: a protected command, refused (before authentication, and at
MULTI's queueing) unless enable-debug-command lets the client run it; then the subcommands
slotkv has (core/command/debug_command.cc): SLEEP, SET-ACTIVE-EXPIRE, LOG, ERROR, PROTOCOL,
SEGFAULT, PANIC, ASSERT, HELP, with Redis's replies byte for byte. Everything but HELP's list
passes on redis-server too.
"""

import time

import pytest

from conftest import RawConn, arity, err, is_redis, start_server, wait_until

NOT_ALLOWED = (
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.")
TYPES = "string integer double bignum null array set map attrib push verbatim true false".split()
WRONG_TYPE_NAME = (b"-ERR Wrong protocol type name. Please use one of the following: "
                   b"string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|"
                   b"false\r\n")
# redis-server 7.0.15's bytes for DEBUG PROTOCOL <each of TYPES>, then an unknown type.
RESP2 = (b"$11\r\nHello World\r\n:12345\r\n$5\r\n3.141\r\n"
         b"$37\r\n1234567999999999999999999999999999999\r\n$-1\r\n*3\r\n:0\r\n:1\r\n:2\r\n"
         b"*3\r\n:0\r\n:1\r\n:2\r\n*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n"
         b"$39\r\nSome real reply following the attribute\r\n"
         b"-ERR RESP2 is not supported by this command\r\n"
         b"$25\r\nThis is a verbatim\nstring\r\n:1\r\n:0\r\n" + WRONG_TYPE_NAME)
RESP3 = (b"$11\r\nHello World\r\n:12345\r\n,3.141\r\n(1234567999999999999999999999999999999\r\n"
         b"_\r\n*3\r\n:0\r\n:1\r\n:2\r\n~3\r\n:0\r\n:1\r\n:2\r\n"
         b"%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n"
         b"|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"
         b"$39\r\nSome real reply following the attribute\r\n"
         b">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n"
         b"$40\r\nSome real reply following the push reply\r\n"
         b"=29\r\ntxt:This is a verbatim\nstring\r\n#t\r\n#f\r\n" + WRONG_TYPE_NAME)
# What slotkv's DEBUG HELP lists (Redis's lines for the subcommands slotkv has).
HELP = [
    b"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    b"ASSERT",
    b"    Crash by assertion failed.",
    b"ERROR <string>",
    b"    Return a Redis protocol error with <string> as message. Useful for clients",
    b"    unit tests to simulate Redis errors.",
    b"LOG <message>",
    b"    Write <message> to the server log.",
    b"PANIC",
    b"    Crash the server simulating a panic.",
    b"PROTOCOL <type>",
    b"    Reply with a test value of the specified type. <type> can be: string,",
    b"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    b"    true, false.",
    b"SEGFAULT",
    b"    Crash the server with sigsegv.",
    b"SET-ACTIVE-EXPIRE <0|1>",
    b"    Setting it to 0 disables expiring keys in background when they are not",
    b"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    b"    default.",
    b"SLEEP <seconds>",
    b"    Stop the server for <seconds>. Decimals allowed.",
    b"HELP",
    b"    Prints this help.",
]


@pytest.fixture(scope="module")
def debug_server():
    s = start_server(["--enable-debug-command", "yes"])
    yield s
    s.cleanup()


@pytest.fixture
def d(debug_server):
    if not debug_server.running():
        debug_server.restart()
    c = debug_server.client()
    c.execute_command("FLUSHALL")
    yield c
    c.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", 1)
    c.connection_pool.disconnect()


def raw_replies(port, commands, expected_len, hello3=False):
    """The bytes the server answers to commands (after HELLO 3's reply when hello3)."""
    with RawConn(port) as c:
        if hello3:
            c.send_command("HELLO", "3")
            c.expect(b"%7\r\n")
            while b"modules" not in c.buf:
                c._fill()
            c.read_exact(c.buf.index(b"modules") + len(b"modules\r\n*0\r\n"))
        for cmd in commands:
            c.send_command(*cmd)
        return c.read_exact(expected_len)


def test_debug_is_refused_by_default(r):
    for args in (["HELP"], ["SLEEP", "0"], ["NOSUCH"], ["PROTOCOL", "string"]):
        assert err(r, "DEBUG", *args) == NOT_ALLOWED
    assert err(r, "DEBUG") == arity("debug")  # the arity comes first
    assert r.execute_command("CONFIG", "GET", "enable-debug-command") == [
        b"enable-debug-command", b"no"]
    # Refused while queueing: EXEC aborts.
    r.execute_command("MULTI")
    assert err(r, "DEBUG", "SLEEP", "0") == NOT_ALLOWED
    assert err(r, "EXEC").startswith("EXECABORT")
    # MODULE's loads are refused the same way (at queueing too).
    r.execute_command("MULTI")
    assert err(r, "MODULE", "LOAD", "/x.so").startswith("ERR MODULE command not allowed.")
    assert r.execute_command("MODULE", "LIST") == b"QUEUED"
    assert err(r, "EXEC").startswith("EXECABORT")


def test_refused_before_authentication():
    s = start_server(["--requirepass", "pw"])
    try:
        with RawConn(s.port) as c:
            c.send_command("DEBUG", "SLEEP", "0")
            c.expect(b"-" + NOT_ALLOWED.encode() + b"\r\n")
            c.send_command("GET", "k")
            c.expect(b"-NOAUTH Authentication required.\r\n")
    finally:
        s.cleanup()


def test_help_and_unknown_subcommands(d):
    help_lines = d.execute_command("DEBUG", "HELP")
    if is_redis():
        assert help_lines[0] == HELP[0]
        assert all(line in help_lines for line in HELP)
    else:
        assert help_lines == HELP
    for args in (["NOSUCH"], ["SLEEP"], ["SLEEP", "1", "2"], ["PROTOCOL"], ["help", "x"]):
        assert err(d, "DEBUG", *args) == (
            "ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP."
            % args[0])


def test_sleep_holds_the_server(d):
    start = time.monotonic()
    assert d.execute_command("DEBUG", "SLEEP", "0.3") == b"OK"
    assert time.monotonic() - start >= 0.29
    assert d.execute_command("DEBUG", "SLEEP", "x") == b"OK"  # strtod's 0
    assert d.execute_command("DEBUG", "SLEEP", "-1") == b"OK"


def test_set_active_expire(d, debug_server):
    p = debug_server.client(parsed=True)

    def expired():
        return p.info("stats")["expired_keys"]
    base = expired()
    assert d.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"OK"
    for i in range(20):
        d.execute_command("SET", "k%d" % i, "v", "PX", 50)
    time.sleep(1.2)  # several expiry rounds: none deletes them
    assert expired() == base
    assert d.execute_command("DBSIZE") == 20  # still stored (not read since)
    assert d.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1") == b"OK"
    assert wait_until(lambda: expired() == base + 20, timeout=10)
    assert d.execute_command("DBSIZE") == 0
    # atoi's reading: anything but a number is 0
    assert d.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "x") == b"OK"
    assert d.execute_command("DEBUG", "set-active-expire", "2") == b"OK"


def test_log_and_error(d, debug_server):
    assert d.execute_command("DEBUG", "LOG", "hello from the test") == b"OK"
    if not is_redis():
        assert wait_until(lambda: "DEBUG LOG: hello from the test" in debug_server.log())
    assert err(d, "DEBUG", "ERROR", "MYERR something failed") == "MYERR something failed"
    assert raw_replies(debug_server.port, [["DEBUG", "ERROR", "a\r\nb"]], 7) == b"-a  b\r\n"


def test_protocol_samples(debug_server):
    cmds = [["DEBUG", "PROTOCOL", t] for t in TYPES + ["nope"]]
    assert raw_replies(debug_server.port, cmds, len(RESP2)) == RESP2
    assert raw_replies(debug_server.port, cmds, len(RESP3), hello3=True) == RESP3


@pytest.mark.parametrize("crash", ["SEGFAULT", "PANIC", "ASSERT"])
def test_crashes_keep_acknowledged_writes(crash):
    s = start_server(["--enable-debug-command", "local", "--appendonly", "yes",
                      "--appendfsync", "always"])
    try:
        c = s.client()
        c.execute_command("SET", "kept", crash)
        with pytest.raises(Exception):
            c.execute_command("DEBUG", crash)
        assert wait_until(lambda: not s.running(), timeout=10)
        s.restart()
        c = s.client()
        assert c.execute_command("GET", "kept") == crash.encode()
        c.connection_pool.disconnect()
    finally:
        s.cleanup()
