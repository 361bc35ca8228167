"""RESP handling under load and abuse: pipelines across slots, concurrent clients, inline
commands, split writes, protocol errors, random bytes, abrupt disconnects, connection churn."""

import os
import random
import socket
import threading
import time

import pytest
import redis

from conftest import RawConn, encode_command, info_stat, wait_until


def seeded_rng(name):
    seed = int(os.environ.get("SLOTKV_TEST_SEED", "0")) or random.randrange(1, 2 ** 31)
    print("%s: seed %d (rerun with SLOTKV_TEST_SEED=%d)" % (name, seed, seed))
    return random.Random(seed)


# ---- pipelines and concurrency -------------------------------------------------------------------

def test_pipeline_10k_mixed_commands_in_order(r):
    rng = seeded_rng("pipeline")
    model = {}
    pipe = r.pipeline(transaction=False)
    expected = []
    for i in range(10000):
        key = b"p:%d" % rng.randrange(2000)  # many keys, so every slot and worker is involved
        op = rng.randrange(4)
        if op == 0:
            value = b"v%d" % i
            pipe.execute_command("SET", key, value)
            expected.append(b"OK")
            model[key] = value
        elif op == 1:
            pipe.execute_command("GET", key)
            expected.append(model.get(key))
        elif op == 2:
            cur = model.get(key)
            if cur is not None and not cur.lstrip(b"-").isdigit():
                pipe.execute_command("DEL", key)
                expected.append(1)
                del model[key]
            else:
                pipe.execute_command("INCR", key)
                nxt = (int(cur) if cur is not None else 0) + 1
                expected.append(nxt)
                model[key] = b"%d" % nxt
        else:
            pipe.execute_command("DEL", key)
            expected.append(1 if key in model else 0)
            model.pop(key, None)
    replies = pipe.execute()
    assert len(replies) == len(expected)
    for i, (got, want) in enumerate(zip(replies, expected)):
        assert got == want, "reply %d: got %r, want %r" % (i, got, want)
    assert r.execute_command("DBSIZE") == len(model)


def test_raw_pipeline_in_one_write(server, r):
    n = 2000
    payload = b"".join(encode_command("SET", "raw:%d" % i, "v%d" % i) for i in range(n))
    payload += b"".join(encode_command("GET", "raw:%d" % i) for i in range(n))
    with server.raw(timeout=30) as c:
        c.send(payload)
        for i in range(n):
            assert c.read_reply() == b"OK"
        for i in range(n):
            assert c.read_reply() == b"v%d" % i


def test_replies_before_a_blocking_command_leave_at_once(server, r):
    # Replies to one read may wait for a request behind them that is still in flight, but
    # never for a blocking one: SET's and GET's replies come while BLPOP still waits.
    r.delete("blk:list")
    with server.raw(timeout=10) as c:
        c.send(encode_command("SET", "blk:a", "1") + encode_command("GET", "blk:a") +
               encode_command("BLPOP", "blk:list", "3"))
        start = time.monotonic()
        assert c.read_reply() == b"OK"
        assert c.read_reply() == b"1"
        assert time.monotonic() - start < 1.5
        r.rpush("blk:list", "x")
        assert c.read_reply() == [b"blk:list", b"x"]


def test_concurrent_clients_own_keys(server, r):
    errors = []

    def worker(t):
        try:
            c = server.client()
            for i in range(200):
                key = "t%d:k%d" % (t, i)
                value = "t%d-v%d" % (t, i)
                assert c.execute_command("SET", key, value) == b"OK"
                got = c.execute_command("GET", key)
                assert got == value.encode(), (key, got)
            c.connection_pool.disconnect()
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[:5]
    assert r.execute_command("DBSIZE") == 50 * 200
    assert r.execute_command("GET", "t49:k199") == b"t49-v199"


def test_a_long_pipeline_does_not_hold_other_clients_of_its_slot(server, r):
    # Two clients (on both workers: connections go to the workers in turn, so one of them
    # posts its requests to the owner) pipeline 1000 ZADDs each to a 20k-member sorted set;
    # meanwhile two others GET a key of the same slot. Each request gets its turn (about one
    # read buffer of a client, as in Redis): a GET never waits for a whole pipeline.
    p = r.pipeline(transaction=False)
    for i in range(0, 20000, 1000):
        members = [x for j in range(i, i + 1000) for x in (j, "m%d" % j)]
        p.execute_command("ZADD", "{t}big", *members)
    p.execute()
    r.execute_command("SET", "{t}k", "v")
    rng = seeded_rng("long pipeline")
    payloads = []
    for _ in range(2):
        cmds = []
        for _ in range(1000):
            pairs = []
            for _ in range(20):
                pairs += [str(rng.random() * 1000), "m%d" % rng.randrange(20000)]
            cmds.append(encode_command("ZADD", "{t}big", *pairs))
        payloads.append(b"".join(cmds))
    heavies = [server.raw(timeout=60) for _ in range(2)]
    getters = [server.raw(timeout=60) for _ in range(2)]
    done = threading.Event()
    spans, waits = [], []

    def heavy(conn, payload):
        start = time.monotonic()
        conn.send(payload)
        for _ in range(1000):
            assert isinstance(conn.read_reply(), int)
        spans.append(time.monotonic() - start)

    def getter(conn):
        while not done.is_set():
            start = time.monotonic()
            assert conn.command("GET", "{t}k") == b"v"
            waits.append(time.monotonic() - start)
            time.sleep(0.001)

    gets = [threading.Thread(target=getter, args=(g,)) for g in getters]
    for t in gets:
        t.start()
    loads = [threading.Thread(target=heavy, args=(h, pl)) for h, pl in zip(heavies, payloads)]
    for t in loads:
        t.start()
    for t in loads:
        t.join(120)
    done.set()
    for t in gets:
        t.join(10)
    assert len(spans) == 2 and len(waits) > 10
    span = max(spans)
    assert max(waits) < max(span / 4, 0.1), (max(waits), span, len(waits))


def test_a_multi_key_command_runs_after_the_pipeline_before_it(server, r):
    # The owner runs a long pipeline in turns; a DEL (a coroutine, which hops to the owner)
    # pipelined after it still runs after all of it. Two connections: one is on the other
    # worker than the slot's owner.
    r.execute_command("ZADD", "{o}big", *[x for j in range(5000) for x in (j, "m%d" % j)])
    for c in range(2):
        conn = server.raw(timeout=60)
        cmds = [encode_command("ZADD", "{o}big", *[x for j in range(200)
                                                   for x in (j + i, "m%d" % ((i * 7 + j) % 5000))])
                for i in range(300)]
        cmds += [encode_command("SET", "{o}x", "1"), encode_command("DEL", "{o}x", "{o}y"),
                 encode_command("EXISTS", "{o}x")]
        conn.send(b"".join(cmds))
        for _ in range(300):
            assert isinstance(conn.read_reply(), int)
        assert conn.read_reply() == b"OK"
        assert conn.read_reply() == 1, "connection %d: DEL ran before the SET" % c
        assert conn.read_reply() == 0
        conn.close()


def test_concurrent_incr_same_key(server, r):
    def worker():
        c = server.client()
        for _ in range(250):
            c.execute_command("INCR", "counter")
        c.connection_pool.disconnect()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert r.execute_command("GET", "counter") == b"2000"


def test_mset_mget_100_keys_across_slots(r):
    keys = [b"multi:%d" % i for i in range(100)]
    args = []
    for i, k in enumerate(keys):
        args += [k, b"value-%d" % i]
    assert r.execute_command("MSET", *args) == b"OK"
    got = r.execute_command("MGET", *keys)
    assert got == [b"value-%d" % i for i in range(100)]
    mixed = [keys[5], b"missing", keys[99], keys[0]]
    assert r.execute_command("MGET", *mixed) == [b"value-5", None, b"value-99", b"value-0"]
    assert r.execute_command("DEL", *keys[:50]) == 50
    assert r.execute_command("EXISTS", *keys) == 50
    assert r.execute_command("MSETNX", *args) == 0
    assert r.execute_command("EXISTS", *keys) == 50
    assert r.execute_command("DBSIZE") == 50


# ---- raw protocol --------------------------------------------------------------------------------

def test_inline_commands(server, r):
    with server.raw() as c:
        c.send(b"PING\r\n")
        c.expect(b"+PONG\r\n")
        c.send(b"SET a b\r\nGET a\r\n")
        c.expect(b"+OK\r\n$1\r\nb\r\n")
        c.send(b"PING\n")  # a bare LF ends an inline command too
        c.expect(b"+PONG\r\n")
        c.send(b"SET a \"x y\\x41\\n\"\r\nGET a\r\n")
        c.expect(b"+OK\r\n$5\r\nx yA\n\r\n")
        c.send(b"SET a 'single quoted'\r\nGET a\r\n")
        c.expect(b"+OK\r\n$13\r\nsingle quoted\r\n")
        c.send(b"ECHO \"\"\r\n")
        c.expect(b"$0\r\n\r\n")
        c.send(b"\r\n\r\n   PING   \r\n")  # empty lines are skipped
        c.expect(b"+PONG\r\n")
        c.send(b"FOO bar\r\n")
        c.expect(b"-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n")
        c.send(b"PING\r\n")
        c.expect(b"+PONG\r\n")


def test_inline_unbalanced_quotes_closes(server, r):
    with server.raw() as c:
        c.send(b"SET a \"unbalanced\r\n")
        assert c.read_available(2.0) == (
            b"-ERR Protocol error: unbalanced quotes in request\r\n<EOF>")


def test_command_split_into_single_bytes(server, r):
    data = b"*1\r\n$4\r\nPING\r\n" + encode_command("SET", "split", "x" * 100) + \
        encode_command("GET", "split")
    with server.raw() as c:
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(data)):
            c.send(data[i:i + 1])
            if i % 7 == 0:
                time.sleep(0.001)
        assert c.read_reply() == b"PONG"
        assert c.read_reply() == b"OK"
        assert c.read_reply() == b"x" * 100


def test_empty_bulk_and_binary_args(server, r):
    with server.raw() as c:
        c.send(b"*3\r\n$3\r\nSET\r\n$0\r\n\r\n$4\r\n\r\n\x00\xff\r\n")
        c.expect(b"+OK\r\n")
        c.send(b"*2\r\n$3\r\nGET\r\n$0\r\n\r\n")
        c.expect(b"$4\r\n\r\n\x00\xff\r\n")


@pytest.mark.parametrize("data,reply", [
    (b"*abc\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
    (b"*+1\r\n$4\r\nPING\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
    (b"*1\r\n$abc\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\n$-1\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*2\r\n$4\r\nECHO\r\n$-5\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\n$999999999999\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\n$536870913\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),  # > 512 MB
    (b"*1\r\nPING\r\n", b"-ERR Protocol error: expected '$', got 'P'\r\n"),
    (b"*1\r\n:4\r\n", b"-ERR Protocol error: expected '$', got ':'\r\n"),
    (b"*1\r\n$4\r\nPING\r\n*abc\r\n",
     b"+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"),
])
def test_protocol_errors_close_connection(server, r, data, reply):
    with server.raw() as c:
        c.send(data)
        assert c.read_available(3.0) == reply + b"<EOF>"
    assert r.execute_command("PING") == b"PONG"


@pytest.mark.parametrize("data", [
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1:7379\r\n\r\nFLUSHALL\r\n",
    b"post /x HTTP/1.0\r\n",
    b"*1\r\n$4\r\nPING\r\nHost: evil\r\nSET k v\r\n",
    b"*2\r\n$5\r\nHOST:\r\n$1\r\nx\r\n",
])
def test_http_requests_close_the_connection_unanswered(server, r, data):
    # Cross-protocol scripting: a web page can make a browser POST to 127.0.0.1. As Redis, a
    # request named POST or Host: drops the connection and what it had not sent yet.
    r.execute_command("SET", "xproto", "kept")
    with server.raw() as c:
        c.send(data)
        got = c.read_available(3.0)
        # A PING before the Host: line may be answered first when the worker ends its turn
        # between the two (a 1 ms turn; seen once under ASan on a loaded machine): Redis reads
        # the whole buffer at once and never does. The requests after it never run either way.
        assert got == b"<EOF>" or (data.startswith(b"*1\r\n$4\r\nPING") and
                                    got == b"+PONG\r\n<EOF>"), got
    assert r.execute_command("GET", "xproto") == b"kept"
    assert r.execute_command("EXISTS", "k") == 0


def test_error_replies_quoting_client_bytes_stay_one_line(server, r):
    with server.raw() as c:
        c.send(encode_command("x\r\n+OK") + encode_command("CLIENT", "y\r\n+OK") +
               encode_command("PING"))
        assert c.read_line() == b"-ERR unknown command 'x  +OK', with args beginning with: "
        assert c.read_line() == b"-ERR unknown subcommand 'y  +OK'. Try CLIENT HELP."
        assert c.read_line() == b"+PONG"


def test_empty_and_null_multibulk_are_ignored(server, r):
    with server.raw() as c:
        c.send(b"*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n")
        assert c.read_available(1.0, settle=0.2) == b"+PONG\r\n"


def test_random_bytes_do_not_hurt_other_clients(server, r):
    rng = seeded_rng("random-bytes")
    r.execute_command("SET", "canary", "alive")
    stop = threading.Event()
    healthy = []

    def keep_working():
        c = server.client()
        n = 0
        while not stop.is_set():
            assert c.execute_command("SET", "busy:%d" % (n % 50), n) == b"OK"
            assert c.execute_command("GET", "canary") == b"alive"
            n += 1
        healthy.append(n)
        c.connection_pool.disconnect()

    worker = threading.Thread(target=keep_working)
    worker.start()
    try:
        for i in range(20):
            size = rng.randrange(1, 4096)
            junk = rng.randbytes(size)
            if i % 2 == 0 and junk[:1] != b"*":
                junk = b"*" + junk  # half of them start like a multibulk request
            junk += b"\r\n"
            with server.raw() as c:
                try:
                    c.send(junk)
                except (BrokenPipeError, ConnectionResetError):
                    continue
                got = c.read_available(0.3, settle=0.1)
                if got == b"":
                    # the server may still be waiting for the end of a line: Redis looks for the
                    # newline with strchr, so a NUL byte hides it. 70 KB more without a newline
                    # passes the 64 KB inline / count-line limit and must end in an error.
                    try:
                        c.send(b"x" * 70000)
                    except (BrokenPipeError, ConnectionResetError):
                        continue
                    got = c.read_available(3.0, settle=0.1)
                # an error reply, or the server closed the connection: never a success reply
                assert got.startswith(b"-") or got == b"<EOF>", (i, got[:200])
    finally:
        stop.set()
        worker.join(30)
    assert healthy and healthy[0] > 0
    assert r.execute_command("GET", "canary") == b"alive"
    assert r.execute_command("PING") == b"PONG"


def test_half_request_then_disconnect(server, r):
    for partial in (b"*3\r\n$3\r\nSET\r\n$4\r\nhalf\r\n$10\r\nabc",
                    b"*2\r\n$3\r\nGET\r\n",
                    b"*5\r\n",
                    b"SET half inline-no-newline"):
        c = RawConn(server.port)
        c.send(partial)
        time.sleep(0.05)
        c.close()
    assert r.execute_command("EXISTS", "half") == 0
    assert r.execute_command("PING") == b"PONG"
    with server.raw() as c:
        # a request cut at every possible point, then completed, works
        data = encode_command("SET", "half", "complete")
        for cut in (1, 4, len(data) - 1):
            c.send(data[:cut])
            time.sleep(0.02)
            c.send(data[cut:])
            assert c.read_reply() == b"OK"


def test_connect_disconnect_churn(server, r):
    before = time.monotonic()
    for i in range(10000):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        if i % 10 == 0:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            assert s.recv(7) == b"+PONG\r\n"
        s.close()
    assert time.monotonic() - before < 120
    assert r.execute_command("PING") == b"PONG"
    with server.raw() as c:
        assert c.command("PING") == b"PONG"


def test_many_open_connections_then_gone(server, r):
    # 500 clients at once, each served, then all gone: the server keeps no trace of them
    socks = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(500)]
    for s in socks:
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
    for s in socks:
        assert s.recv(7) == b"+PONG\r\n"
    for s in socks:
        s.close()
    assert wait_until(
        lambda: int(r.execute_command("INFO", "clients").split(b"connected_clients:")[1]
                    .split(b"\r\n")[0]) == 1, timeout=5.0)


def test_maxclients_refuses_the_extra_client(make_server):
    s = make_server(["--maxclients", "3"])
    held = [s.raw() for _ in range(3)]
    for c in held:
        assert c.command("PING") == b"PONG"
    # (nothing sent: a request left unread would make the close a reset that eats the reply)
    extra = socket.create_connection(("127.0.0.1", s.port), timeout=5)
    got = b""
    while True:
        chunk = extra.recv(100)
        if not chunk:
            break
        got += chunk
    assert got == b"-ERR max number of clients reached\r\n"
    extra.close()
    held[0].close()
    # a place is free again once a client left
    assert wait_until(lambda: _ping_ok(s.port), timeout=5.0)
    for c in held[1:]:
        c.close()


@pytest.mark.slotkv_only
def test_open_files_limit_lowers_maxclients_and_accept_backs_off(tmp_path):
    # With 300 descriptors (soft and hard) the server keeps 104 for its files (4 slots, one
    # database) and lowers maxclients to fit, saying so. When descriptors run out anyway,
    # accept is retried every 100 ms instead of spinning, and writes still commit.
    import resource
    import subprocess
    from conftest import SERVER, free_port
    port = free_port()
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [SERVER, "--port", str(port), "--dir", str(tmp_path / "data"), "--slots", "4",
             "--databases", "1", "--http-port", "0", "--workers", "2"],
            stdout=out, stderr=subprocess.STDOUT,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300)))
    conns = []
    try:
        assert wait_until(lambda: _ping_ok(port), timeout=10.0)
        c = redis.Redis(port=port, socket_timeout=10)
        assert c.config_get("maxclients") == {"maxclients": "196"}
        assert b"maxclients 10000 reduced to 196" in log.read_bytes()
        # nor can CONFIG SET raise it past what the descriptors allow
        with pytest.raises(redis.ResponseError, match="between 1 and 196 inclusive"):
            c.config_set("maxclients", "1000")
        assert c.execute_command("SET", "fd:k", "v") is True  # the slot's files are open
        if "libasan" in open("/proc/%d/maps" % proc.pid).read():
            # UBSan's vptr check probes memory through a pipe, which EMFILE refuses: it then
            # reports every dynamic call as a bad object and stops the server.
            return
        # Descriptors run out all the same (the limit lowered under the running server): accept
        # fails with EMFILE and must back off, not spin.
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (60, 300))
        for _ in range(100):
            try:
                conns.append(socket.create_connection(("127.0.0.1", port), timeout=2))
            except OSError:
                break
        time.sleep(0.5)
        cpu = lambda: sum(int(x) for x in open("/proc/%d/stat" % proc.pid).read()
                          .rsplit(")", 1)[1].split()[11:13])
        before = cpu()
        time.sleep(1.0)
        assert cpu() - before < 50, "the server spins on accept"  # ticks of 10 ms
        assert b"accept: Too many open files" in log.read_bytes()
        assert c.execute_command("SET", "fd:k", "v2") is True  # writes still commit
        for s in conns:
            s.close()
        conns = []
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (300, 300))
        assert wait_until(lambda: _ping_ok(port), timeout=5.0)
        assert c.execute_command("GET", "fd:k") == b"v2"
    finally:
        for s in conns:
            s.close()
        proc.terminate()
        proc.wait(timeout=15)


def _rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slotkv_only
@pytest.mark.parametrize("shape", ["big bulks", "a million empty arguments"])
def test_query_limit_counts_the_arguments_of_an_unfinished_request(make_server, shape):
    # The arguments a request has finished count against client-query-buffer-limit (16 MB
    # here): a client declaring 1000 arguments and sending 1 MB ones, or a million $0, is cut
    # off and the server's memory stays bounded (Redis counts only its query buffer).
    s = make_server(["--client-query-buffer-limit", "16mb"])
    pid = s.proc.pid
    before = _rss_kb(pid)
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as c:
        if shape == "big bulks":
            c.sendall(b"*1000\r\n")
            chunk = b"$1048576\r\n" + b"x" * 1048576 + b"\r\n"
            count = 200
        else:
            c.sendall(b"*1000000\r\n")
            chunk = b"$0\r\n\r\n" * 10000
            count = 100
        closed = False
        for _ in range(count):
            try:
                c.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        if not closed:
            c.settimeout(5)
            try:
                closed = c.recv(100) == b""
            except ConnectionResetError:
                closed = True
        assert closed
    assert _rss_kb(pid) - before < 100 * 1024, "RSS grew past 100 MB"
    assert s.client().execute_command("PING") == b"PONG"


# With --slots 8 and 2 workers, "a" is in slot 7 (worker 1) and "k0" in slot 4 (worker 0):
# whichever worker a connection is on, one of them is another worker's.
KEY_ON_WORKER = {0: "k0", 1: "a"}


@pytest.mark.slotkv_only
@pytest.mark.parametrize("workers,limit", [(1, None), (1, "normal 4mb 0 0"), (2, None)])
def test_pipelined_big_replies_to_a_client_that_does_not_read(make_server, workers, limit):
    # 100 GETs of an 8 MB value pipelined by a client that reads nothing: the finished replies
    # not sent yet count as unsent output, so the server stops running the client's requests
    # and its memory stays bounded, also when the key's owner is another worker (its batch
    # sends its replies home in parts and waits for the client to take them: before, the
    # owner ran all 100); past a hard client-output-buffer-limit the client is cut off. With 2
    # workers two clients do it, one on each worker (accepted in turn): for one of them the
    # key is another worker's.
    args = ["--workers", str(workers)]
    if limit:
        args += ["--client-output-buffer-limit", limit]
    s = make_server(args)
    c = s.client()
    c.execute_command("SET", "k0", b"v" * (8 << 20))
    before = _rss_kb(s.proc.pid)
    others = [socket.create_connection(("127.0.0.1", s.port), timeout=10)
              for _ in range(workers - 1)]
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as raw:
        for conn in others + [raw]:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            conn.sendall(encode_command("GET", "k0") * 100)
        peak = 0
        for _ in range(15):  # the old code grew ~180 MB/s here, for the whole 800 MB
            time.sleep(0.2)
            peak = max(peak, _rss_kb(s.proc.pid) - before)
        assert peak < 150 * 1024, "RSS grew by %d MB" % (peak // 1024)
        if limit:
            raw.settimeout(10)
            got = 0
            try:
                while True:
                    data = raw.recv(1 << 20)
                    if not data:
                        break
                    got += len(data)
            except ConnectionResetError:
                pass
            assert got < 100 * (8 << 20)  # cut off before the end
    for conn in others:
        conn.close()
    assert c.execute_command("PING") == b"PONG"


@pytest.mark.slotkv_only
def test_big_replies_from_another_worker_arrive_whole_and_in_order(make_server):
    # Parts of a remote batch (kBatchReplyBytes) keep the replies whole and in request order,
    # writes among them included.
    s = make_server(["--workers", "2"])
    c = s.client()
    for key in KEY_ON_WORKER.values():
        c.execute_command("SET", key, b"0" * (3 << 20))
    with s.raw(timeout=30) as raw:
        cmds = []
        for i in range(24):
            key = KEY_ON_WORKER[i % 2]
            cmds.append(encode_command("GET", key))
            cmds.append(encode_command("SETRANGE", key, 0, str(i % 10)))
        raw.send(b"".join(cmds))
        seen = {key: b"0" for key in KEY_ON_WORKER.values()}
        for i in range(24):
            key = KEY_ON_WORKER[i % 2]
            value = raw.read_reply()
            assert len(value) == 3 << 20 and value[:1] == seen[key], i
            assert raw.read_reply() == 3 << 20
            seen[key] = str(i % 10).encode()
    assert c.execute_command("PING") == b"PONG"


@pytest.mark.slotkv_only
def test_no_reply_reaches_a_new_client_on_a_closed_ones_descriptor(make_server):
    # The worker owning a request's slot may write its reply to the socket itself (DirectReply).
    # A client that leaves while its write waits for the group commit (an fsync: appendfsync
    # always) frees its descriptor number, which the next client is given: that reply must go
    # nowhere, not to the next client.
    s = make_server(["--workers", "2"])
    for i in range(100):
        with s.raw(timeout=10) as leaving:
            leaving.send_command("SET", KEY_ON_WORKER[i % 2], "v%d" % i)
        with s.raw(timeout=10) as next_client:
            assert next_client.command("PING") == b"PONG"
            assert next_client.command("ECHO", "e") == b"e"
            assert next_client.read_available(wait=0.02) == b""
    # Whole replies of one client, alternating workers, stay in order; the owner writes those
    # of the other worker's keys itself (one request pending each time).
    before = info_stat(s.client(), "slotkv_direct_replies")
    with s.raw(timeout=10) as c:
        for i in range(200):
            key = KEY_ON_WORKER[i % 2]
            assert c.command("SET", key, "w%d" % i) == b"OK"
            assert c.command("GET", key) == b"w%d" % i
    assert info_stat(s.client(), "slotkv_direct_replies") - before >= 150  # of 200


def _reply_times(c, pipeline, n, reply, at):
    """Sends pipeline (n requests, each answered `reply`): when reply `at` and the last came."""
    start = time.monotonic()
    c.send(pipeline)
    for i in range(n):
        assert c.read_reply() == reply
        if i == at:
            first = time.monotonic() - start
    return first, time.monotonic() - start


@pytest.mark.slotkv_only
def test_pipelined_slow_requests_are_answered_as_they_finish(make_server):
    # Slow requests to one key sent at once by a client of each worker (accepted in turn): for
    # one client the key is the other worker's. The first replies come while the rest still
    # run. Before, all came at once after the last: an owner ran every batch queued ahead of
    # its commit (a batch a request: 30 HSETs of 1000 fields, 14 kB each), ran a batch of many
    # (200 BITCOUNTs of a 512 kB value) to its end, and the home held the replies done for the
    # requests behind them. 100 such HSETs took 23 s under ASan with pages of 2, past
    # redis-py's socket timeout. A worker runs its own writes 32 at a time: the replies of
    # each 32 leave before the next 32 run after them (96 SETRANGEs of a 1 MB value: the
    # second 32 replies came with the third).
    s = make_server(["--workers", "2", "--appendfsync", "everysec"])
    n, fields = 30, 1000
    s.client().execute_command("SET", "s", b"\xff" * (512 << 10))
    s.client().execute_command("SET", "r", b"v" * (1 << 20))
    with s.raw(timeout=60) as c0, s.raw(timeout=60) as c1:
        for j, c in enumerate([c0, c1]):
            first, last = _reply_times(c, b"".join(
                encode_command("HSET", "a", *[x for f in range(fields)
                                              for x in ("f%d:%d:%d" % (j, i, f), "v")])
                for i in range(n)), n, fields, 0)
            assert first < last / 2, "HSET: first reply at %.3f s, last at %.3f s" % (first, last)
            first, last = _reply_times(c, encode_command("BITCOUNT", "s") * 200, 200, 4 << 20, 0)
            assert first < last / 2, "BITCOUNT: first at %.3f s, last at %.3f s" % (first, last)
        for c in [c0, c1]:  # after both: a failure here must not hide one above
            second, last = _reply_times(c, encode_command("SETRANGE", "r", 0, "x") * 96, 96,
                                        1 << 20, 32)
            # About 2/3 when it works; the old hold gave 1 (the 33rd came with the last, within
            # milliseconds). Under ASan on a loaded machine it reached 0.857 and 0.903 while
            # working (the 33rd 0.4 s before the last): 0.95 still tells the hold apart.
            assert second < last * 0.95, "SETRANGE: 33rd at %.3f s, last at %.3f s" % (second,
                                                                                     last)
        assert c0.command("HLEN", "a") == 2 * n * fields


def _ping_ok(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            c.sendall(b"*1\r\n$4\r\nPING\r\n")
            return c.recv(7) == b"+PONG\r\n"
    except OSError:
        return False
