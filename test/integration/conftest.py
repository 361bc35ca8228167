"""Server fixtures for the slotkv integration suites (pytest + redis-py).

SLOTKV_TEST_ARGS adds options to every slotkv server started (not to redis-server).

SLOTKV_TEST_SERVER picks the server under test:
  /path/to/slotkv-server   the slotkv binary (what the suites are for)
  redis                    /usr/bin/redis-server, to check that the suites pin real Redis behaviour
  redis-aof                redis-server with appendonly yes / appendfsync always; also runs the
                           slotkv_only tests marked redis_aof=True (restart / SIGKILL durability),
                           so their own logic is checked against a server known to be durable

Clients: `server.client()` is a redis-py client with bytes replies and NO response callbacks, so
`execute_command` returns exactly what the server sent (b"OK", ints, nested lists, None), and error
replies keep their full text, prefix included ("ERR syntax error", "WRONGTYPE ...", "NOAUTH ...").
`server.client(parsed=True)` keeps redis-py's callbacks for `r.info()` and friends.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
import redis
from redis.connection import PythonParser

SERVER = os.environ.get("SLOTKV_TEST_SERVER", "")
REDIS_BIN = os.environ.get("REDIS_SERVER_BIN", "/usr/bin/redis-server")
READY_TIMEOUT = 10.0


def is_redis():
    """True when the suites run against redis-server (plain or AOF) instead of slotkv."""
    return SERVER in ("redis", "redis-aof")


def is_redis_aof():
    return SERVER == "redis-aof"


# ---------------------------------------------------------------------------------------------
# redis-py plumbing: exact error texts, raw replies


class ExactErrorParser(PythonParser):
    """Keeps an error reply's full text: redis-py would strip "ERR " and map some prefixes."""

    def parse_error(self, response):
        return redis.ResponseError(response)


class RawRedis(redis.Redis):
    """redis.Redis without response callbacks: replies are exactly what the server sent."""

    RESPONSE_CALLBACKS = {}


def err(client, *args):
    """Runs a command that must fail and returns the full error text."""
    with pytest.raises(redis.ResponseError) as info:
        client.execute_command(*args)
    return str(info.value)


# ---------------------------------------------------------------------------------------------
# raw sockets and a small RESP2/RESP3 reader


class Simple(bytes):
    """A RESP simple string (+OK), so tests can tell it from a bulk string."""


class Error(bytes):
    """A RESP error reply (-ERR ...); equal only to another Error, never to a plain string."""

    def __eq__(self, other):
        return isinstance(other, Error) and bytes(self) == bytes(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = bytes.__hash__


class Push(list):
    pass


class RawConn:
    """A plain socket speaking RESP by hand: for inline commands, split writes, RESP3, bad input."""

    def __init__(self, port, timeout=5.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.timeout = timeout
        self.buf = b""

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def send_command(self, *args):
        self.send(encode_command(*args))

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("connection closed by server")
        self.buf += data

    def read_exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def expect(self, data):
        """Reads exactly len(data) bytes and checks they are `data`."""
        got = self.read_exact(len(data))
        assert got == data, "expected %r, got %r" % (data, got)

    def read_line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_reply(self):
        line = self.read_line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return Simple(rest)
        if kind == b"-":
            return Error(rest)
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.read_exact(n + 2)
            assert data[-2:] == b"\r\n", data[-2:]
            return data[:-2]
        if kind in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return None
            items = [self.read_reply() for _ in range(n)]
            if kind == b"~":
                return set(items)
            return Push(items) if kind == b">" else items
        if kind == b"%":
            n = int(rest)
            out = {}
            for _ in range(n):
                k = self.read_reply()
                out[k] = self.read_reply()
            return out
        if kind == b"_":
            return None
        if kind == b",":
            return float(rest)
        if kind == b"#":
            return rest == b"t"
        if kind == b"(":
            return int(rest)
        if kind in (b"=", b"!"):
            n = int(rest)
            data = self.read_exact(n + 2)[:-2]
            return Error(data) if kind == b"!" else data
        raise AssertionError("unknown RESP type byte in %r" % line)

    def command(self, *args):
        self.send_command(*args)
        return self.read_reply()

    def read_available(self, wait=0.3, settle=None):
        """Everything the server sends within `wait` seconds; b"<EOF>" appended if it closed.
        With `settle`, returns once no more bytes came for `settle` seconds after the first."""
        deadline = time.monotonic() + wait
        out = self.buf
        self.buf = b""
        try:
            while True:
                left = deadline - time.monotonic()
                if settle is not None and out:
                    left = min(left, settle)
                if left <= 0:
                    return out
                self.sock.settimeout(left)
                try:
                    data = self.sock.recv(65536)
                except socket.timeout:
                    return out
                except ConnectionResetError:
                    return out + b"<EOF>"
                if not data:
                    return out + b"<EOF>"
                out += data
        finally:
            self.sock.settimeout(self.timeout)  # later reads wait as long as they did before

    def is_closed(self, wait=2.0):
        """True if the server closes the connection within `wait` seconds."""
        return self.read_available(wait).endswith(b"<EOF>")


def encode_command(*args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, int):
            a = str(a).encode()
        elif isinstance(a, str):
            a = a.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(parts)


# ---------------------------------------------------------------------------------------------
# server processes


def read_log(path):
    """A process's log file as text ("" before it exists)."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _slotkv_binary():
    if SERVER and not is_redis():
        return SERVER
    return None


class Server:
    """One server process: .port, .dir, .proc, start/stop/kill/restart, client factories."""

    def __init__(self, extra_args=None, data_dir=None, port=None):
        self.extra_args = [str(a) for a in (extra_args or [])]
        self.base = tempfile.mkdtemp(prefix="slotkv-it-")
        self.dir = data_dir or os.path.join(self.base, "data")
        os.makedirs(self.dir, exist_ok=True)
        self.log_path = os.path.join(self.base, "server.log")
        self.port = port
        self.proc = None
        self._clients = []

    def command_line(self):
        if is_redis():
            cmd = [REDIS_BIN, "--port", str(self.port), "--dir", self.dir, "--save", "",
                   "--bind", "127.0.0.1"]
            if is_redis_aof():
                cmd += ["--appendonly", "yes", "--appendfsync", "always"]
            else:
                cmd += ["--appendonly", "no"]
        else:
            cmd = [_slotkv_binary(), "--port", str(self.port), "--dir", self.dir,
                   "--appendfsync", "always", "--workers", "2", "--slots", "8",
                   "--bind", "127.0.0.1"]
            # No HTTP listener unless a test asks for one: servers must not share port 7380.
            if "--http-port" not in self.extra_args:
                cmd += ["--http-port", "0"]
            # SLOTKV_TEST_ARGS: options for every slotkv server of the run (e.g. the paged
            # collection threshold forced down, so the collection suites run on both layouts).
            cmd += os.environ.get("SLOTKV_TEST_ARGS", "").split()
        return cmd + self.extra_args

    def log(self):
        return read_log(self.log_path)

    def start(self):
        fixed_port = self.port is not None
        for _ in range(3):
            if not fixed_port:
                self.port = free_port()
            with open(self.log_path, "ab") as log:
                log.write(b"\n=== start: %s\n" % " ".join(self.command_line()).encode())
                log.flush()
                self.proc = subprocess.Popen(self.command_line(), stdout=log,
                                             stderr=subprocess.STDOUT, cwd=self.base)
            if self._wait_ready():
                return self
            if fixed_port or self.proc.poll() is None:
                break  # a restart keeps its port; a live process that never answers is a failure
        log = self.log()
        self.kill()
        print("---- server output ----\n%s\n-----------------------" % log)
        raise RuntimeError("server did not answer PING within %.0f s on port %s; output:\n%s"
                           % (READY_TIMEOUT, self.port, log[-4000:]))

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with RawConn(self.port, timeout=1.0) as c:
                    reply = c.command("PING")
                if reply == b"PONG" or (isinstance(reply, Error) and reply.startswith(b"NOAUTH")):
                    return True
            except (OSError, ConnectionError):
                pass
            time.sleep(0.05)
        return False

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def _close_clients(self):
        for c in self._clients:
            try:
                c.connection_pool.disconnect()
            except Exception:
                pass
        self._clients = []

    def stop(self, timeout=15.0):
        """Graceful stop (SIGTERM); returns the exit code. SIGKILL if it does not exit in time."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self):
        """SIGKILL, no chance to flush anything. Clients are left alone (other threads may be
        using them): their next command fails with a connection error."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self):
        """Stops if running, then starts again on the same port with the same data dir."""
        if self.running():
            self.stop()
        return self.start()

    def wait_exit(self, timeout=15.0):
        return self.proc.wait(timeout)

    def client(self, decode=False, parsed=False, **kwargs):
        pool = redis.ConnectionPool(host="127.0.0.1", port=self.port,
                                    parser_class=ExactErrorParser, decode_responses=decode,
                                    socket_timeout=kwargs.pop("socket_timeout", 30), **kwargs)
        cls = redis.Redis if parsed else RawRedis
        c = cls(connection_pool=pool)
        self._clients.append(c)
        return c

    def raw(self, timeout=5.0):
        return RawConn(self.port, timeout=timeout)

    def cleanup(self):
        self.kill()
        self._close_clients()
        shutil.rmtree(self.base, ignore_errors=True)


def start_server(extra_args=None, data_dir=None, port=None):
    """Starts a server (slotkv or redis per SLOTKV_TEST_SERVER) and waits until it answers."""
    if not SERVER:
        pytest.skip("SLOTKV_TEST_SERVER is not set (a slotkv-server path, or 'redis')")
    if not is_redis() and not os.access(SERVER, os.X_OK):
        pytest.fail("SLOTKV_TEST_SERVER=%s is not an executable file" % SERVER)
    return Server(extra_args, data_dir, port).start()


# ---------------------------------------------------------------------------------------------
# fixtures and markers


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "slotkv_only(redis_aof=False): needs slotkv (persistence, slotkv options); skipped "
        "against redis; with redis_aof=True it also runs under SLOTKV_TEST_SERVER=redis-aof")
    config.addinivalue_line(
        "markers",
        "huge: moves values of hundreds of MB; skipped when SLOTKV_TEST_SANITIZED=1 (the "
        "ASan build, where it would take minutes)")
    config.addinivalue_line(
        "markers",
        "one_value: pins what a small (one-value, listpack in Redis) collection does: its "
        "member order, a scan in one call; skipped when SLOTKV_TEST_ARGS forces paging")


def pytest_runtest_setup(item):
    if item.get_closest_marker("huge") and os.environ.get("SLOTKV_TEST_SANITIZED") == "1":
        pytest.skip("huge values under the sanitizer build")
    if item.get_closest_marker("one_value") and "paged-" in os.environ.get("SLOTKV_TEST_ARGS", ""):
        pytest.skip("pins the one-value layout; this run forces paging")
    marker = item.get_closest_marker("slotkv_only")
    if marker is None or not is_redis():
        return
    if is_redis_aof() and marker.kwargs.get("redis_aof"):
        return
    pytest.skip("slotkv only")


@pytest.fixture(scope="module")
def server():
    s = start_server()
    yield s
    s.cleanup()


@pytest.fixture(scope="module")
def make_server():
    """Factory for extra servers in a module (own args, own dir); all cleaned up at the end."""
    made = []

    def make(extra_args=None, data_dir=None, port=None):
        s = start_server(extra_args, data_dir, port)
        made.append(s)
        return s

    yield make
    for s in made:
        s.cleanup()


@pytest.fixture
def servers():
    """Factory for servers a single test starts (repl_util.Servers: against redis with the
    replication suites' option), all stopped when the test ends."""
    from repl_util import Servers  # repl_util imports this module
    made = Servers()
    yield made
    made.cleanup()


@pytest.fixture
def r(server):
    """Raw-reply bytes client on a flushed server (db 0)."""
    if not server.running():
        server.restart()
    c = server.client()
    c.execute_command("FLUSHALL")
    yield c
    c.connection_pool.disconnect()


@pytest.fixture
def rd(server, r):
    """Like r but replies decoded to str."""
    c = server.client(decode=True)
    yield c
    c.connection_pool.disconnect()


@pytest.fixture
def rp(server, r):
    """redis-py with its usual reply parsing (r.info(), r.config_get(), ...)."""
    c = server.client(parsed=True)
    yield c
    c.connection_pool.disconnect()


def scan_keys(c):
    """Every key of the client's db (SCAN; a key may repeat)."""
    keys, cursor = [], b"0"
    while True:
        cursor, batch = c.execute_command("SCAN", cursor, "COUNT", 1000)
        keys.extend(batch)
        if cursor == b"0":
            return keys


def string_dump(server):
    """Every key of db 0 of a server (started here) with its string value: SCAN, then MGET in
    batches."""
    c = server.client()
    try:
        keys = sorted(set(scan_keys(c)))
        out = {}
        for i in range(0, len(keys), 1000):
            batch = keys[i:i + 1000]
            out.update(zip(batch, c.execute_command("MGET", *batch)))
        return out
    finally:
        c.connection_pool.disconnect()


def wait_http(port, timeout=10.0):
    """Until the admin API on port answers /health."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("no HTTP answer on port %d within %.0f s" % (port, timeout))
        time.sleep(0.05)


def start_http_server(make_server, *args):
    """A server of make_server with its admin API on a free port (s.http_port)."""
    # The port is free when picked, but a suite running beside this one may take it before the
    # server listens on it (seen in CI): then the server cannot start, and another port is tried.
    for attempt in range(3):
        port = free_port()
        try:
            s = make_server(extra_args=["--http-port", str(port)] + [str(a) for a in args])
        except RuntimeError as e:
            if "cannot listen" in str(e) and attempt < 2:
                continue
            raise
        s.http_port = port
        wait_http(port)
        return s


def info_stat(r, name):
    """The integer field `name` of INFO stats."""
    for line in r.execute_command("INFO", "stats").decode().splitlines():
        if line.startswith(name + ":"):
            return int(line.split(":", 1)[1])
    raise AssertionError("no %s in INFO stats" % name)


def wait_until(predicate, timeout=2.0, interval=0.02):
    """Polls predicate until true or timeout; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def run_for(seconds, threads, stop):
    """Starts threads, lets them run for `seconds`, sets stop and joins them."""
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(30)


# ---- shared by the family suites -------------------------------------------------------------

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
NOT_INT = "ERR value is not an integer or out of range"
SYNTAX = "ERR syntax error"


def arity(cmd):
    """Redis's wrong-number-of-arguments error for cmd (lower case, 'a|b' for subcommands)."""
    return "ERR wrong number of arguments for '%s' command" % cmd


@pytest.fixture
def list_key(r):
    """A key holding a list, for WRONGTYPE checks; skips if the server has no lists yet."""
    try:
        r.execute_command("RPUSH", "list", "x")
    except Exception as e:  # noqa: BLE001
        if "unknown command" in str(e):
            pytest.skip("server has no RPUSH yet")
        raise
    return b"list"


# Keyspace notifications: a listener of every keyspace channel (the `listen` fixture turns
# notify-keyspace-events KEA on around a test).
MARK = "notifications-test-mark"


class Listener:
    """A connection subscribed to every keyspace channel and to MARK."""

    def __init__(self, server):
        self.conn = RawConn(server.port)
        self.conn.command("PSUBSCRIBE", "__key*__:*")
        self.conn.command("SUBSCRIBE", MARK)

    def close(self):
        self.conn.close()

    def drain(self, r):
        """The (channel, payload) pairs published before now, read up to a mark published
        after them."""
        r.execute_command("PUBLISH", MARK, "x")
        got = []
        while True:
            msg = self.conn.read_reply()
            if msg[0] == b"message" and msg[1] == MARK.encode():
                return got
            assert msg[0] == b"pmessage", msg
            got.append((msg[2].decode(), msg[3].decode()))


@pytest.fixture
def listen(server, r):
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "KEA")
    lst = Listener(server)
    yield lst
    lst.close()
    r.execute_command("CONFIG", "SET", "notify-keyspace-events", "")


# A redis-server a test starts itself: the other side of the tests that move data between
# servers (DUMP/RESTORE, MIGRATE).
class OwnRedis:
    """redis-server on a free loopback port, no persistence, extra_args added; stopped by its
    pid (cleanup). `client` is a raw-reply client of it."""

    def __init__(self, extra_args=()):
        self.dir = tempfile.mkdtemp(prefix="slotkv-own-redis-")
        self.proc = None
        self.client = None
        for _ in range(3):
            self.port = free_port()
            self.proc = subprocess.Popen(
                [REDIS_BIN, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", self.dir] + list(extra_args),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_until(self._ready, timeout=10, interval=0.05)
            if self.proc.poll() is None and self._ready():
                pool = redis.ConnectionPool(host="127.0.0.1", port=self.port, socket_timeout=30,
                                            parser_class=ExactErrorParser)
                self.client = RawRedis(connection_pool=pool)
                return
            self.stop()  # exited: the port was taken before redis-server listened on it
        shutil.rmtree(self.dir, ignore_errors=True)
        raise AssertionError("redis-server did not answer PING")

    def _ready(self):
        if self.proc.poll() is not None:
            return True  # exited: no use waiting
        try:
            with RawConn(self.port, timeout=1.0) as c:
                reply = c.command("PING")
            return reply == b"PONG" or reply.startswith(b"NOAUTH")
        except (OSError, ConnectionError):
            return False

    def stop(self):
        if self.client is not None:
            self.client.connection_pool.disconnect()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- blocked clients -----------------------------------------------------------------------------

# What CLIENT LIST tells about blocked clients, learnt on first use: "cmd" False when it never
# shows cmd=<command> for one, "flag" False when it shows the command but never flags=b.
_client_list = {"cmd": True, "flag": None}


def client_lines(r):
    try:
        listing = r.execute_command("CLIENT", "LIST")
    except redis.ResponseError:
        return {}
    out = {}
    for line in listing.split(b"\n"):
        if not line:
            continue
        f = dict(p.split(b"=", 1) for p in line.split(b" ") if b"=" in p)
        if b"id" in f:
            out[int(f[b"id"])] = f
    return out


def wait_blocked(r, ids, name):
    """Waits until every connection in ids is blocked in command `name`: CLIENT LIST shows it
    with cmd=<name> and flags=b (as Redis does). A server that shows the command but never the
    flag, or neither, gets a 0.2 s grace after the command shows (or blindly) instead."""
    want = name.lower().encode()

    def state():
        lines = client_lines(r)
        got = [lines.get(i) for i in ids]
        if all(f is not None and f.get(b"cmd") == want for f in got):
            return "flagged" if all(b"b" in f.get(b"flags", b"") for f in got) else "cmd"
        return None

    if _client_list["cmd"]:
        if _client_list["flag"] is not False:
            timeout = 3.0 if _client_list["flag"] else 0.5
            if wait_until(lambda: state() == "flagged", timeout=timeout):
                _client_list["flag"] = True
                return
        seen = wait_until(state, timeout=2.0)
        if seen is None:
            _client_list["cmd"] = False
        elif seen == "flagged":
            return
        elif _client_list["flag"] is None:
            _client_list["flag"] = False
    time.sleep(0.2)


class Conns:
    """Raw connections of one test; all closed (and gone from CLIENT LIST) at teardown."""

    def __init__(self, server, r):
        self.server = server
        self.r = r
        self.opened = []

    def open(self, resp3=False):
        c = self.server.raw()
        self.opened.append(c)
        c.cid = c.command("CLIENT", "ID")
        if resp3:
            assert isinstance(c.command("HELLO", "3"), dict)
        return c

    def block(self, *cmd, resp3=False, conn=None):
        """Sends cmd on a new (or the given) connection and waits until it is blocked."""
        c = conn or self.open(resp3)
        c.send_command(*cmd)
        wait_blocked(self.r, [c.cid], cmd[0])
        return c

    def close(self):
        ids = {c.cid for c in self.opened if hasattr(c, "cid")}
        for c in self.opened:
            c.close()
        # a later test must not find one of these still blocked on a key of the same name
        wait_until(lambda: not ids & set(client_lines(self.r)), timeout=2.0)


@pytest.fixture
def conns(server, r):
    c = Conns(server, r)
    yield c
    c.close()


def quiet(c, wait=0.2):
    """Nothing arrives on c within wait seconds (the client is still blocked)."""
    return c.read_available(wait) == b""


def bulk(b):
    return b"$%d\r\n%s\r\n" % (len(b), b)
