"""Connection commands: PING ECHO QUIT HELLO AUTH SELECT MOVE CLIENT RESET."""

import re
import socket

import pytest

from conftest import Error, Simple, encode_command, err, is_redis, wait_until

NOAUTH_HELLO = ("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
                "the RESP protocol version at the same time")
WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."


def client_info_fields(line):
    """CLIENT INFO / one CLIENT LIST line -> dict of its key=value fields."""
    assert line.endswith(b"\n"), line
    return dict(f.split(b"=", 1) for f in line.rstrip(b"\n").split(b" "))


# ---- PING / ECHO / QUIT -------------------------------------------------------------------------

def test_ping_without_argument_is_status_pong(server):
    with server.raw() as c:
        c.send(b"*1\r\n$4\r\nPING\r\n")
        c.expect(b"+PONG\r\n")


def test_ping_with_argument_is_bulk_echo(server):
    with server.raw() as c:
        c.send(b"*2\r\n$4\r\nPING\r\n$5\r\nhello\r\n")
        c.expect(b"$5\r\nhello\r\n")


def test_ping_arity(r):
    assert err(r, "PING", "a", "b") == "ERR wrong number of arguments for 'ping' command"


def test_echo_binary_and_empty(r):
    assert r.execute_command("ECHO", b"\x00\xff\r\n") == b"\x00\xff\r\n"
    assert r.execute_command("ECHO", b"") == b""
    assert err(r, "ECHO") == "ERR wrong number of arguments for 'echo' command"
    assert err(r, "ECHO", "a", "b") == "ERR wrong number of arguments for 'echo' command"


def test_quit_replies_ok_then_closes(server):
    with server.raw() as c:
        c.send(b"*1\r\n$4\r\nQUIT\r\n*1\r\n$4\r\nPING\r\n")
        # the PING pipelined after QUIT is never answered
        assert c.read_available(2.0) == b"+OK\r\n<EOF>"


# ---- HELLO ---------------------------------------------------------------------------------------

def check_hello_map(m, proto):
    assert set(m) == {b"server", b"version", b"proto", b"id", b"mode", b"role", b"modules"}
    assert m[b"proto"] == proto
    assert isinstance(m[b"id"], int) and m[b"id"] > 0
    assert m[b"mode"] == b"standalone"
    assert m[b"role"] == b"master"
    assert m[b"modules"] == []
    assert re.fullmatch(rb"\d+\.\d+\.\d+", m[b"version"]), m[b"version"]
    if is_redis():
        assert m[b"server"] == b"redis"
    else:
        assert m[b"server"] in (b"redis", b"slotkv")


def test_hello_2_is_flat_array(r):
    reply = r.execute_command("HELLO", "2")
    assert isinstance(reply, list) and len(reply) == 14
    keys = reply[0::2]
    assert keys == [b"server", b"version", b"proto", b"id", b"mode", b"role", b"modules"]
    m = dict(zip(keys, reply[1::2]))
    check_hello_map(m, 2)
    assert m[b"id"] == r.execute_command("CLIENT", "ID")


def test_hello_without_version_reports_current_protocol(server):
    with server.raw() as c:
        reply = c.command("HELLO")
        assert isinstance(reply, list) and reply[4:6] == [b"proto", 2]


def test_hello_3_map_and_resp3_replies(server):
    with server.raw() as c:
        c.send_command("HELLO", "3")
        head = c.read_exact(3)
        assert head == b"%7\r"  # a RESP3 map of 7 pairs
        c.buf = head + c.buf
        m = c.read_reply()
        check_hello_map(m, 3)
        # replies after HELLO 3 use RESP3 types
        c.send_command("GET", "hello3:missing")
        c.expect(b"_\r\n")  # RESP3 null
        c.send_command("SET", "hello3:k", "v")
        c.expect(b"+OK\r\n")
        c.send_command("CONFIG", "GET", "port")
        port = str(server.port).encode()
        c.expect(b"%%1\r\n$4\r\nport\r\n$%d\r\n%s\r\n" % (len(port), port))
        c.send_command("MGET", "hello3:k", "hello3:missing")
        c.expect(b"*2\r\n$1\r\nv\r\n_\r\n")
        c.send_command("INCRBYFLOAT", "hello3:f", "1.5")
        c.expect(b"$3\r\n1.5\r\n")  # still a bulk string, not a double
        c.send_command("DEL", "hello3:k", "hello3:f")
        c.expect(b":2\r\n")
        # back to RESP2
        reply = c.command("HELLO", "2")
        assert isinstance(reply, list) and reply[4:6] == [b"proto", 2]
        c.send_command("GET", "hello3:missing")
        c.expect(b"$-1\r\n")


def test_hello_setname_sets_client_name(server):
    with server.raw() as c:
        m = c.command("HELLO", "3", "SETNAME", "hello-name")
        assert m[b"proto"] == 3
        assert c.command("CLIENT", "GETNAME") == b"hello-name"


def test_hello_errors(r):
    assert err(r, "HELLO", "4") == "NOPROTO unsupported protocol version"
    assert err(r, "HELLO", "1") == "NOPROTO unsupported protocol version"
    assert err(r, "HELLO", "abc") == "ERR Protocol version is not an integer or out of range"


# ---- AUTH ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def auth_server(make_server):
    return make_server(["--requirepass", "secret"])


def test_auth_required_before_commands(auth_server):
    c = auth_server.client()
    assert err(c, "PING") == "NOAUTH Authentication required."
    assert err(c, "GET", "a") == "NOAUTH Authentication required."
    assert err(c, "SELECT", "1") == "NOAUTH Authentication required."


def test_auth_wrong_password(auth_server):
    c = auth_server.client()
    assert err(c, "AUTH", "wrong") == WRONGPASS
    assert err(c, "AUTH", "default", "wrong") == WRONGPASS
    assert err(c, "AUTH", "nosuchuser", "secret") == WRONGPASS
    assert err(c, "PING") == "NOAUTH Authentication required."


def test_auth_arity_and_syntax(auth_server):
    c = auth_server.client()
    assert err(c, "AUTH") == "ERR wrong number of arguments for 'auth' command"
    assert err(c, "AUTH", "a", "b", "c") == "ERR syntax error"


def test_auth_ok_then_commands_work(auth_server):
    c = auth_server.client()
    assert c.execute_command("AUTH", "secret") == b"OK"
    assert c.execute_command("PING") == b"PONG"
    assert c.execute_command("SET", "auth:k", "v") == b"OK"
    c2 = auth_server.client()
    assert c2.execute_command("AUTH", "default", "secret") == b"OK"
    assert c2.execute_command("GET", "auth:k") == b"v"


def test_auth_is_per_connection(auth_server):
    with auth_server.raw() as a, auth_server.raw() as b:
        assert a.command("AUTH", "secret") == b"OK"
        assert a.command("PING") == b"PONG"
        assert b.command("PING") == Error(b"NOAUTH Authentication required.")


def test_hello_before_auth_and_hello_auth(auth_server):
    c = auth_server.client()
    assert err(c, "HELLO", "3") == NOAUTH_HELLO
    assert err(c, "HELLO", "2", "AUTH", "default", "wrong") == WRONGPASS
    reply = c.execute_command("HELLO", "2", "AUTH", "default", "secret")
    assert reply[4:6] == [b"proto", 2]
    assert c.execute_command("PING") == b"PONG"


def test_reset_drops_authentication(auth_server):
    with auth_server.raw() as c:
        assert c.command("AUTH", "secret") == b"OK"
        assert c.command("RESET") == Simple(b"RESET")
        assert c.command("PING") == Error(b"NOAUTH Authentication required.")


def test_auth_without_requirepass(r):
    assert err(r, "AUTH", "x") == (
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?")


def test_requirepass_set_later_keeps_connected_clients_authenticated(server, r):
    # As Redis: a client that connected while no password was required stays authenticated;
    # a new one must AUTH.
    assert r.execute_command("CONFIG", "SET", "requirepass", "later") == b"OK"
    try:
        assert r.execute_command("PING") == b"PONG"
        with server.raw() as c:
            c.send_command("PING")
            assert c.read_reply() == Error(b"NOAUTH Authentication required.")
            c.send_command("AUTH", "later")
            assert c.read_reply() == b"OK"
    finally:
        assert r.execute_command("CONFIG", "SET", "requirepass", "") == b"OK"


def _from_127_0_0_2(port, timeout=3.0):
    """What the server sends a client connecting from 127.0.0.2 (not 127.0.0.1) before it
    says anything, up to the close."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.2", 0))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
        s.sendall(b"PING\r\n")
        out = b""
        while True:
            try:
                data = s.recv(65536)
            except socket.timeout:
                return out + b"<timeout>"
            except ConnectionResetError:
                return out + b"<reset>"
            if not data:
                return out + b"<EOF>"
            out += data
            if out.endswith(b"+PONG\r\n"):
                return out
    finally:
        s.close()


def test_protected_mode_refuses_clients_not_from_127_0_0_1(server, r):
    got = _from_127_0_0_2(server.port)
    assert got.startswith(b"-DENIED Redis is running in protected mode because protected mode "
                          b"is enabled and no password is set for the default user.")
    # closed (a reset when the PING it sent was left unread)
    assert got.endswith((b"from the outside.\r\n<EOF>", b"from the outside.\r\n<reset>"))
    assert r.execute_command("CONFIG", "SET", "protected-mode", "no") == b"OK"
    try:
        assert _from_127_0_0_2(server.port) == b"+PONG\r\n"
    finally:
        r.execute_command("CONFIG", "SET", "protected-mode", "yes")
    # A password lifts it too (the client then has to AUTH).
    assert r.execute_command("CONFIG", "SET", "requirepass", "pw") == b"OK"
    try:
        assert _from_127_0_0_2(server.port, 0.5) == b"-NOAUTH Authentication required.\r\n<timeout>"
    finally:
        r.execute_command("CONFIG", "SET", "requirepass", "")


def test_timeout_closes_idle_clients_but_not_subscribers(server, r):
    assert r.execute_command("CONFIG", "SET", "timeout", "1") == b"OK"
    try:
        with server.raw() as idle, server.raw() as sub:
            assert idle.command("PING") == b"PONG"
            sub.send_command("SUBSCRIBE", "quiet")
            assert sub.read_reply() == [b"subscribe", b"quiet", 1]
            # closed within a few seconds of its timeout (Redis checks clients in batches)
            assert idle.read_available(6.0) == b"<EOF>"
            sub.send_command("PING")
            assert sub.read_reply() == [b"pong", b""]
    finally:
        # r idled too: its connection may be closed by now (or at any moment until this).
        r.connection_pool.disconnect()
        r.execute_command("CONFIG", "SET", "timeout", "0")


# ---- SELECT / MOVE -------------------------------------------------------------------------------

def test_select_range(r):
    for db in (0, 15, 7):
        assert r.execute_command("SELECT", db) == b"OK"
    assert err(r, "SELECT", "16") == "ERR DB index is out of range"
    assert err(r, "SELECT", "-1") == "ERR DB index is out of range"
    assert err(r, "SELECT", "abc") == "ERR value is not an integer or out of range"
    assert err(r, "SELECT", "1.5") == "ERR value is not an integer or out of range"
    assert err(r, "SELECT") == "ERR wrong number of arguments for 'select' command"


def test_select_isolates_keyspaces(r):
    r.execute_command("SET", "k", "db0")
    r.execute_command("SELECT", "3")
    assert r.execute_command("GET", "k") is None
    r.execute_command("SET", "k", "db3")
    assert r.execute_command("DBSIZE") == 1
    r.execute_command("SELECT", "0")
    assert r.execute_command("GET", "k") == b"db0"


def test_select_is_per_connection(server, r):
    with server.raw() as a, server.raw() as b:
        assert a.command("SELECT", "5") == b"OK"
        assert a.command("SET", "sel", "five") == b"OK"
        assert b.command("GET", "sel") is None
        assert b.command("SELECT", "5") == b"OK"
        assert b.command("GET", "sel") == b"five"


def test_move(r):
    assert r.execute_command("MOVE", "nokey", "1") == 0
    r.execute_command("SET", "k", "v")
    r.execute_command("EXPIRE", "k", "100")
    assert r.execute_command("MOVE", "k", "1") == 1
    assert r.execute_command("EXISTS", "k") == 0
    r.execute_command("SET", "k", "again")
    r.execute_command("SELECT", "1")
    assert r.execute_command("GET", "k") == b"v"
    assert 0 < r.execute_command("TTL", "k") <= 100  # the TTL moves with the key
    # target holds the key already: nothing moves
    assert r.execute_command("MOVE", "k", "0") == 0
    assert r.execute_command("GET", "k") == b"v"
    r.execute_command("SELECT", "0")
    assert r.execute_command("GET", "k") == b"again"


def test_move_errors(r):
    r.execute_command("SET", "k", "v")
    assert err(r, "MOVE", "k", "0") == "ERR source and destination objects are the same"
    assert err(r, "MOVE", "k", "16") == "ERR DB index is out of range"
    assert err(r, "MOVE", "k", "x") == "ERR value is not an integer or out of range"
    assert err(r, "MOVE", "k") == "ERR wrong number of arguments for 'move' command"


# ---- CLIENT --------------------------------------------------------------------------------------

def test_client_id_unique_and_increasing(server):
    with server.raw() as a, server.raw() as b:
        ida = a.command("CLIENT", "ID")
        idb = b.command("CLIENT", "ID")
        assert isinstance(ida, int) and isinstance(idb, int)
        assert idb > ida > 0
        assert a.command("CLIENT", "ID") == ida


def test_client_setname_getname(r):
    assert r.execute_command("CLIENT", "GETNAME") is None
    assert r.execute_command("CLIENT", "SETNAME", "worker-1") == b"OK"
    assert r.execute_command("CLIENT", "GETNAME") == b"worker-1"
    msg = "ERR Client names cannot contain spaces, newlines or special characters."
    assert err(r, "CLIENT", "SETNAME", "a b") == msg
    assert err(r, "CLIENT", "SETNAME", "a\nb") == msg
    assert r.execute_command("CLIENT", "GETNAME") == b"worker-1"
    assert r.execute_command("CLIENT", "SETNAME", "") == b"OK"  # empty name clears it
    assert r.execute_command("CLIENT", "GETNAME") is None
    assert err(r, "CLIENT", "SETNAME") == (
        "ERR wrong number of arguments for 'client|setname' command")


def test_client_info_fields(r):
    r.execute_command("CLIENT", "SETNAME", "info-me")
    r.execute_command("SELECT", "2")
    line = r.execute_command("CLIENT", "INFO")
    f = client_info_fields(line)
    assert int(f[b"id"]) == r.execute_command("CLIENT", "ID")
    assert f[b"name"] == b"info-me"
    assert f[b"db"] == b"2"
    assert f[b"resp"] == b"2"
    assert f[b"cmd"] == b"client|info"
    assert re.fullmatch(rb"127\.0\.0\.1:\d+", f[b"addr"])
    for field in (b"laddr", b"age", b"idle", b"flags", b"user"):
        assert field in f


def test_client_list_lists_every_connection(server, r):
    r.execute_command("CLIENT", "SETNAME", "lister")
    with server.raw() as other:
        other.command("CLIENT", "SETNAME", "other-conn")
        other_id = other.command("CLIENT", "ID")
        listing = r.execute_command("CLIENT", "LIST")
        lines = [client_info_fields(l + b"\n") for l in listing.rstrip(b"\n").split(b"\n")]
        by_id = {int(f[b"id"]): f for f in lines}
        assert by_id[other_id][b"name"] == b"other-conn"
        assert by_id[r.execute_command("CLIENT", "ID")][b"name"] == b"lister"
        assert listing.endswith(b"\n")
        only = r.execute_command("CLIENT", "LIST", "ID", other_id)
        assert [int(client_info_fields(only)[b"id"])] == [other_id]


def test_client_kill_by_id(server, r):
    with server.raw() as victim:
        vid = victim.command("CLIENT", "ID")
        assert r.execute_command("CLIENT", "KILL", "ID", vid) == 1
        assert victim.is_closed()
    assert r.execute_command("CLIENT", "KILL", "ID", vid) == 0
    assert r.execute_command("PING") == b"PONG"


def test_client_kill_by_addr(server, r):
    with server.raw() as victim:
        addr = client_info_fields(victim.command("CLIENT", "INFO"))[b"addr"]
        assert r.execute_command("CLIENT", "KILL", "ADDR", addr) == 1
        assert victim.is_closed()
    with server.raw() as victim:
        addr = client_info_fields(victim.command("CLIENT", "INFO"))[b"addr"]
        assert r.execute_command("CLIENT", "KILL", addr) == b"OK"  # old form: one address
        assert victim.is_closed()
    assert r.execute_command("CLIENT", "KILL", "ADDR", "1.2.3.4:5") == 0
    assert err(r, "CLIENT", "KILL", "1.2.3.4:5") == "ERR No such client"
    assert err(r, "CLIENT", "KILL") == "ERR wrong number of arguments for 'client|kill' command"


def test_client_unknown_subcommand(r):
    assert err(r, "CLIENT", "FOO") == "ERR unknown subcommand 'FOO'. Try CLIENT HELP."


def test_client_reply_off_skip_on(server):
    with server.raw() as c:
        c.send(encode_command("CLIENT", "REPLY", "SKIP") + encode_command("SET", "rk", "1") +
               encode_command("GET", "rk"))
        assert c.read_reply() == b"1"  # SKIP and the SET answered nothing
        c.send(encode_command("CLIENT", "REPLY", "OFF") + encode_command("SET", "rk", "2") +
               encode_command("NOSUCH") + encode_command("CLIENT", "REPLY", "SKIP") +
               encode_command("CLIENT", "REPLY", "bad") + encode_command("CLIENT", "REPLY", "ON") +
               encode_command("GET", "rk"))
        assert c.read_reply() == Simple(b"OK")  # only ON answers while off
        assert c.read_reply() == b"2"
        c.send(encode_command("CLIENT", "REPLY", "SKIP") + encode_command("CLIENT", "REPLY", "ON") +
               encode_command("PING"))
        assert c.read_reply() == Simple(b"OK")  # ON clears a pending SKIP and answers
        assert c.read_reply() == Simple(b"PONG")
        assert c.command("CLIENT", "REPLY", "bad") == Error(b"ERR syntax error")
        assert c.read_available(wait=0.2) == b""


def test_client_reply_off_keeps_pushes(server):
    with server.raw() as c, server.raw() as p:
        c.send(encode_command("CLIENT", "REPLY", "OFF") + encode_command("SUBSCRIBE", "rch"))
        assert wait_until(lambda: p.command("PUBLISH", "rch", "hi") == 1)
        # The confirmation and the message are pushes, which CLIENT REPLY OFF keeps.
        assert c.read_available(wait=0.3) == (b"*3\r\n$9\r\nsubscribe\r\n$3\r\nrch\r\n:1\r\n"
                                              b"*3\r\n$7\r\nmessage\r\n$3\r\nrch\r\n$2\r\nhi\r\n")


def test_client_no_evict(r):
    assert r.execute_command("CLIENT", "NO-EVICT", "on") == b"OK"
    assert b" flags=e " in r.execute_command("CLIENT", "INFO")
    assert err(r, "CLIENT", "NO-EVICT", "maybe") == "ERR syntax error"
    assert err(r, "CLIENT", "NO-EVICT") == (
        "ERR wrong number of arguments for 'client|no-evict' command")
    assert r.execute_command("CLIENT", "NO-EVICT", "OFF") == b"OK"
    assert b" flags=N " in r.execute_command("CLIENT", "INFO")


def test_client_setinfo_is_unknown_as_in_redis_7_0(r):
    # CLIENT SETINFO and CLIENT LIST's lib-name / lib-ver came with Redis 7.2.
    assert err(r, "CLIENT", "SETINFO", "lib-name", "redis-py") == (
        "ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.")
    assert b"lib-name=" not in r.execute_command("CLIENT", "INFO")


# ---- RESET ---------------------------------------------------------------------------------------

def test_reset_restores_connection_defaults(server):
    with server.raw() as c:
        assert c.command("SELECT", "4") == b"OK"
        assert c.command("CLIENT", "SETNAME", "to-reset") == b"OK"
        c.command("HELLO", "3")
        c.send_command("RESET")
        c.expect(b"+RESET\r\n")
        f = client_info_fields(c.command("CLIENT", "INFO"))
        assert f[b"db"] == b"0"
        assert f[b"name"] == b""
        assert f[b"resp"] == b"2"
        c.send_command("GET", "reset:missing")
        c.expect(b"$-1\r\n")  # RESP2 again


def test_reset_arity(r):
    assert err(r, "RESET", "x") == "ERR wrong number of arguments for 'reset' command"


def test_unknown_command_text(r):
    assert err(r, "FOO", "a") == "ERR unknown command 'FOO', with args beginning with: 'a' "
    assert err(r, "foo") == "ERR unknown command 'foo', with args beginning with: "
    assert err(r, "GET") == "ERR wrong number of arguments for 'get' command"


def test_pipelined_writes_and_what_follows_them_run_in_order(server, r):
    """One read of many requests: the writes to this worker's slots run together (their keys
    prefetched first, net/connection.h), and every request still sees what those before it
    did, whatever kind it is."""
    script = [
        (("SET", "k", "1"), b"OK"),
        (("INCR", "k"), 2),
        (("GET", "k"), b"2"),
        (("APPEND", "k", "x"), 2),
        (("GET", "k"), b"2x"),
        (("SELECT", "1"), b"OK"),
        (("SET", "k", "db1"), b"OK"),
        (("GET", "k"), b"db1"),
        (("SELECT", "0"), b"OK"),
        (("GET", "k"), b"2x"),
        (("WATCH", "w"), b"OK"),
        (("SET", "w", "1"), b"OK"),
        (("MULTI",), b"OK"),
        (("GET", "w"), b"QUEUED"),
        (("EXEC",), None),  # w changed after WATCH, by this client: aborted
        (("MSET", "a", "1", "b", "2"), b"OK"),
        (("INCR", "a"), 2),
        (("DEL", "k"), 1),
        (("SET", "k", "z"), b"OK"),
        (("GET", "k"), b"z"),
    ]
    for i in range(200):  # keys of both workers, each written then read back
        script.append((("SET", "many:%d" % i, str(i)), b"OK"))
        script.append((("INCR", "many:%d" % i), i + 1))
    for i in range(200):
        script.append((("GET", "many:%d" % i), str(i + 1).encode()))
    with server.raw() as c:
        c.send(b"".join(encode_command(*cmd) for cmd, _ in script))
        for cmd, expected in script:
            got = c.read_reply()
            assert got == expected, (cmd, got)
