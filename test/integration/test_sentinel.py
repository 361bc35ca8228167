"""Real Redis Sentinel (Debian's redis-server 7.0.15, run as `redis-server <conf> --sentinel`)
managing the server under test: discovery (SENTINEL MASTER / CKQUORUM / REPLICAS), kill -9 of
the master under a redis-py Sentinel-managed writer (promotion, the other replica follows, the
writer resumes, no write acknowledged by SET + WAIT 1 is lost, the restarted old master is
turned into a replica and resyncs), replica-priority 0 (never promoted), SENTINEL FAILOVER (a
graceful switch, the old master becomes a replica), requirepass / masterauth with
`sentinel auth-pass`, and Sentinel's role transaction (MULTI, SLAVEOF, CONFIG REWRITE,
CLIENT KILL TYPE normal / pubsub, EXEC) sent by hand, with and without a config file.

Every test that fails over starts its own topology: a master, replicas (each data node gets a
config file as its first argument, so the CONFIG REWRITE in Sentinel's transaction works) and
three Sentinels, each with a fresh sentinel.conf in its own temp dir (its own myid), on free
loopback ports, with down-after-milliseconds 2000, failover-timeout 10000, quorum 2, and
`SENTINEL DEBUG ping-period 500`, `tilt-period 5000` and `info-period 1000` (the last one is not
needed for correctness: it makes Sentinel notice role and priority changes within a second, not
ten, which keeps the suite short). Every process is stopped by its PID when the test ends.

Two cases pin what this suite first found wrong in slotkv: PUBLISH on a master reaches
subscribers on its replicas, and a replica that clients PING while it applies the stream
reports (and acknowledges) its full offset, so WAIT counts it (repeated six times).

About 55-60 s against slotkv and 50 s against redis-server 7.0.15 on an idle 2-core machine,
70 s with both cores busy (a failover takes 5-10 s; a restarted old master is converted to a
replica after Sentinel's 8 s grace period); every wait is bounded (5-60 s).

Against redis the data nodes run with `repl-diskless-sync-delay 0`, as in test_replication.py.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest
import redis
from redis.sentinel import Sentinel

import repl_util
from conftest import (REDIS_BIN, SERVER, Error, RawRedis, Server, Simple, free_port, is_redis,
                      read_log, string_dump, wait_until)

# Under ASan (./scripts/test.sh's second run) the replication paths are exercised by
# test_replication.py; failovers driven by Sentinel's timers add minutes and no memory check.
pytestmark = pytest.mark.skipif(os.environ.get("SLOTKV_TEST_SANITIZED") == "1",
                                reason="Sentinel failovers run in the Release suite only")

MASTER_NAME = "mymaster"
DOWN_AFTER_MS = 2000
FAILOVER_TIMEOUT_MS = 10000
QUORUM = 2
PASSWORD = "s3ntinel-pw"

DISCOVERY_TIMEOUT = 30.0   # Sentinels find the replicas and each other (hello every 2 s)
FAILOVER_WAIT = 60.0       # kill -> every Sentinel names the promoted replica
SYNC_TIMEOUT = 30.0        # a (re)sync or a reconfigured replica linking up
CONVERT_TIMEOUT = 60.0     # a returning old master turned into a replica (8 s grace + sync)
RESUME_DEADLINE = 30.0     # the Sentinel-managed writer writes again, counted from the kill

SERVER_ARGS = ["--repl-diskless-sync-delay", "0"] if is_redis() else []


# ---------------------------------------------------------------------------------------------
# data nodes: conftest's Server with a config file as the first argument


class Node(Server):
    """A data node started as `<binary> <node.conf> --port ... [extra args]`."""

    def __init__(self, extra_args=None, password=None, conf=True):
        super().__init__(extra_args)
        self.password = password
        self.conf = None
        if conf:
            self.conf = os.path.join(self.base, "node.conf")
            with open(self.conf, "w") as f:
                f.write("# data node of the Sentinel suite\n")

    def command_line(self):
        cmd = super().command_line()
        return cmd if self.conf is None else [cmd[0], self.conf] + cmd[1:]

    def client(self, decode=False, parsed=False, **kwargs):
        if self.password is not None:
            kwargs.setdefault("password", self.password)
        return super().client(decode=decode, parsed=parsed, **kwargs)

    def cmd(self, *args, timeout=10):
        return repl_util.cmd(self, *args, socket_timeout=timeout)

    def info(self, section="replication"):
        out = {}
        for line in self.cmd("INFO", section).decode().split("\r\n"):
            if line and not line.startswith("#"):
                key, _, value = line.partition(":")
                out[key] = value
        return out

    def role(self):
        return self.cmd("ROLE")


class SentinelProc:
    """`redis-server <own sentinel.conf> --sentinel` on a free loopback port, in its own dir."""

    def __init__(self, master_port, auth_pass=None):
        self.base = tempfile.mkdtemp(prefix="slotkv-sentinel-")
        self.conf = os.path.join(self.base, "sentinel.conf")
        self.log_path = os.path.join(self.base, "sentinel.log")
        self.monitored_port = master_port
        self.auth_pass = auth_pass
        self.port = None
        self.proc = None

    def _write_conf(self):
        lines = ["port %d" % self.port, "bind 127.0.0.1", "dir %s" % self.base,
                 "sentinel monitor %s 127.0.0.1 %d %d" % (MASTER_NAME, self.monitored_port, QUORUM),
                 "sentinel down-after-milliseconds %s %d" % (MASTER_NAME, DOWN_AFTER_MS),
                 "sentinel failover-timeout %s %d" % (MASTER_NAME, FAILOVER_TIMEOUT_MS)]
        if self.auth_pass is not None:
            lines.append("sentinel auth-pass %s %s" % (MASTER_NAME, self.auth_pass))
        with open(self.conf, "w") as f:  # fresh every attempt: no myid carried over
            f.write("\n".join(lines) + "\n")

    def start(self):
        for _ in range(3):
            self.port = free_port()
            self._write_conf()
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen([REDIS_BIN, self.conf, "--sentinel"], stdout=log,
                                             stderr=subprocess.STDOUT, cwd=self.base)
            if self._wait_ready():
                break
            self.kill()
        else:
            raise RuntimeError("sentinel did not start; log:\n%s" % self.log()[-3000:])
        for param, value in (("ping-period", 500), ("tilt-period", 5000), ("info-period", 1000)):
            assert self.cmd("SENTINEL", "DEBUG", param, value) == "OK", param
        return self

    def _wait_ready(self):
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if self.cmd("PING", timeout=1.0) == "PONG":
                    return True
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                pass
            time.sleep(0.05)
        return False

    def cmd(self, *args, timeout=5.0):
        c = RawRedis(host="127.0.0.1", port=self.port, decode_responses=True,
                     socket_timeout=timeout)
        try:
            return c.execute_command(*args)
        finally:
            c.connection_pool.disconnect()

    def master(self):
        return pairs(self.cmd("SENTINEL", "MASTER", MASTER_NAME))

    def replicas(self):
        return [pairs(r) for r in self.cmd("SENTINEL", "REPLICAS", MASTER_NAME)]

    def master_port(self):
        return int(self.cmd("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)[1])

    def log(self):
        return read_log(self.log_path)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.base, ignore_errors=True)


def pairs(flat):
    return dict(zip(flat[::2], flat[1::2]))


def safe(fn):
    """fn(), or the exception it raised (for polling and failure messages)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return e


class Topology:
    """Everything one test starts; cleanup() stops the Sentinels first, then the data nodes."""

    def __init__(self):
        self.nodes = []
        self.sentinels = []
        self.master = None
        self.replicas = []

    def node(self, password=None, conf=True):
        if not SERVER:
            pytest.skip("SLOTKV_TEST_SERVER is not set (a slotkv-server path, or 'redis')")
        if not is_redis() and not os.access(SERVER, os.X_OK):
            pytest.fail("SLOTKV_TEST_SERVER=%s is not an executable file" % SERVER)
        args = list(SERVER_ARGS)
        if password is not None:
            args += ["--requirepass", password, "--masterauth", password]
        n = Node(args, password=password, conf=conf)
        self.nodes.append(n)
        return n.start()

    def build(self, replicas=2, password=None):
        """Master + linked replicas + three Sentinels that see them all and each other."""
        self.master = self.node(password)
        self.replicas = [self.node(password) for _ in range(replicas)]
        for rep in self.replicas:
            assert rep.cmd("REPLICAOF", "127.0.0.1", self.master.port) == b"OK"
        for rep in self.replicas:
            wait_follows(rep, self.master)
        assert wait_until(lambda: safe(lambda: self.master.info()["connected_slaves"])
                          == str(replicas), timeout=SYNC_TIMEOUT, interval=0.1)
        for _ in range(3):
            s = SentinelProc(self.master.port, auth_pass=password)
            self.sentinels.append(s)
            s.start()
        for s in self.sentinels:
            self.wait_discovered(s, replicas)
        return self

    def wait_discovered(self, s, replicas):
        want = {r.port for r in self.replicas}

        def seen():
            m = s.master()
            if m["num-slaves"] != str(replicas) or m["num-other-sentinels"] != "2":
                return False
            reps = s.replicas()
            return ({int(r["port"]) for r in reps} == want
                    and all(r["master-link-status"] == "ok" and r["flags"] == "slave"
                            for r in reps))

        assert wait_until(lambda: safe(seen) is True, timeout=DISCOVERY_TIMEOUT, interval=0.2), (
            "sentinel %d did not discover the topology: MASTER %r REPLICAS %r\n%s"
            % (s.port, safe(s.master), safe(s.replicas), self.logs()))

    def node_by_port(self, port):
        return next(n for n in self.nodes if n.port == port)

    def logs(self, tail=2500):
        out = []
        for s in self.sentinels:
            out.append("---- sentinel %s ----\n%s" % (s.port, s.log()[-tail:]))
        for n in self.nodes:
            out.append("---- node %s (%s) ----\n%s" % (n.port, status(n), n.log()[-tail:]))
        return "\n".join(out)

    def wait_new_master(self, old_port, never=()):
        """Waits until every Sentinel names the same master, not old_port; returns that node.
        Fails at once if a Sentinel ever names a port in `never`."""
        seen = {}

        def agreed():
            ports = [safe(s.master_port) for s in self.sentinels]
            for p in ports:
                assert p not in never, "sentinel promoted %s, which it must not\n%s" % (
                    p, self.logs())
            seen["ports"] = ports
            return len(set(ports)) == 1 and isinstance(ports[0], int) and ports[0] != old_port

        assert wait_until(agreed, timeout=FAILOVER_WAIT, interval=0.1), (
            "no failover: sentinels name %r (old master %d)\n%s"
            % (seen.get("ports"), old_port, self.logs()))
        new = self.node_by_port(seen["ports"][0])
        assert wait_until(lambda: safe(lambda: new.role()[0]) == b"master",
                          timeout=SYNC_TIMEOUT, interval=0.1), safe(new.role)
        return new

    def cleanup(self):
        for s in self.sentinels:
            s.cleanup()
        for n in self.nodes:
            n.cleanup()


@pytest.fixture
def topo():
    t = Topology()
    try:
        yield t
    finally:
        print(t.logs(4000))  # shown by pytest only when the test failed
        t.cleanup()


def follows(replica, master):
    """ROLE on replica: slave of master, link connected; INFO: master_link_status up."""
    got = replica.role()
    return (got[0] == b"slave" and got[1] == b"127.0.0.1" and got[2] == master.port
            and got[3] == b"connected" and replica.info()["master_link_status"] == "up")


def wait_follows(replica, master, timeout=SYNC_TIMEOUT):
    assert wait_until(lambda: safe(lambda: follows(replica, master)) is True, timeout=timeout,
                      interval=0.1), (
        "node %d does not follow %d: ROLE %r (%s)\n%s"
        % (replica.port, master.port, safe(replica.role), status(replica),
           replica.log()[-3000:]))


def status(node):
    """'running', or how the process ended (a SIGTERM exit nobody here asked for shows as rc 0
    after "persisted, bye" in slotkv's log: something outside the test stopped it)."""
    if node.proc is None:
        return "never started"
    rc = node.proc.poll()
    return "running" if rc is None else "exited with rc %s" % rc


def assert_same(a, b, timeout=SYNC_TIMEOUT):
    last = {}

    def same():
        da, db = string_dump(a), string_dump(b)
        last["diff"] = [k for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k)][:5]
        last["sizes"] = (len(da), len(db))
        return not last["diff"]

    assert wait_until(lambda: safe(same) is True, timeout=timeout, interval=0.3), (
        "node %d and node %d differ: %r" % (a.port, b.port, last))


def missing(node, expected):
    """Keys of `expected` (key -> value) that node does not hold with that value."""
    c = node.client()
    try:
        keys = list(expected)
        lost = []
        for i in range(0, len(keys), 1000):
            batch = keys[i:i + 1000]
            got = c.execute_command("MGET", *batch)
            lost += [k for k, v in zip(batch, got) if v != expected[k]]
        return lost
    finally:
        c.connection_pool.disconnect()


def write_acked(node, prefix, n, replicas):
    """n keys (MSETs of 500), then WAIT for every node of `replicas`; returns {key: value}."""
    c = node.client(socket_timeout=30)
    try:
        data = {b"%s:%d" % (prefix, i): b"v%d" % i for i in range(n)}
        items = list(data.items())
        for i in range(0, n, 500):
            assert c.execute_command("MSET", *[x for kv in items[i:i + 500] for x in kv]) == b"OK"
        got = c.execute_command("WAIT", len(replicas), 10000)
    finally:
        c.connection_pool.disconnect()
    if got != len(replicas):
        msg = ("WAIT %d 10000 -> %r; master_repl_offset %s, replicas' slave_repl_offset %r, "
               "keys missing on them %r" % (
                   len(replicas), got, safe(lambda: node.info()["master_repl_offset"]),
                   [safe(lambda: r.info()["slave_repl_offset"]) for r in replicas],
                   [len(safe(lambda: missing(r, data))) for r in replicas]))
        raise AssertionError(msg)
    return data


class SentinelWriter(threading.Thread):
    """Writes through redis-py's Sentinel.master_for: SET k v then WAIT 1 1000 in one pipeline
    (one connection). A write is acknowledged when SET said OK and WAIT returned >= 1."""

    def __init__(self, sentinels, prefix):
        super().__init__(daemon=True)
        self.addrs = [("127.0.0.1", s.port) for s in sentinels]
        self.prefix = prefix
        self.stop = threading.Event()
        self.acked = {}           # key -> value
        self.set_ok_at = []       # monotonic time of every SET that returned OK
        self.acked_at = []        # monotonic time of every acknowledged write
        self.failures = 0
        self.other_errors = []

    def run(self):
        sentinel = Sentinel(self.addrs, socket_timeout=2.0)
        client = sentinel.master_for(MASTER_NAME, socket_timeout=3.0)
        i = 0
        while not self.stop.is_set():
            i += 1
            key, value = b"%s:%d" % (self.prefix, i), b"v%d" % i
            try:
                pipe = client.pipeline(transaction=False)
                pipe.execute_command("SET", key, value)
                pipe.execute_command("WAIT", 1, 1000)
                set_reply, wait_reply = pipe.execute()
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                self.failures += 1  # master down, failover in progress, or redirected
                time.sleep(0.05)
                continue
            except redis.ResponseError as e:
                self.other_errors.append(str(e))
                time.sleep(0.05)
                continue
            now = time.monotonic()
            if set_reply in (True, b"OK"):
                self.set_ok_at.append(now)
                if isinstance(wait_reply, int) and wait_reply >= 1:
                    self.acked[key] = value
                    self.acked_at.append(now)
            time.sleep(0.002)
        client.connection_pool.disconnect()

    def set_ok_after(self, t):
        return bool(self.set_ok_at) and self.set_ok_at[-1] > t

    def acked_after(self, t):
        return bool(self.acked_at) and self.acked_at[-1] > t

    def finish(self):
        self.stop.set()
        self.join(30)
        assert not self.is_alive()


# ---------------------------------------------------------------------------------------------
# 1. discovery


def test_discovery(topo):
    topo.build()
    master, replicas = topo.master, topo.replicas
    for s in topo.sentinels:
        m = s.master()
        assert m["name"] == MASTER_NAME and m["ip"] == "127.0.0.1", m
        assert int(m["port"]) == master.port, m
        assert m["flags"] == "master", m
        assert m["num-slaves"] == "2" and m["num-other-sentinels"] == "2", m
        assert m["quorum"] == str(QUORUM), m
        ck = s.cmd("SENTINEL", "CKQUORUM", MASTER_NAME)
        assert ck.startswith("OK "), ck
        reps = s.replicas()
        assert sorted(int(r["port"]) for r in reps) == sorted(r.port for r in replicas), reps
        for r in reps:
            assert r["flags"] == "slave", r
            assert r["master-link-status"] == "ok", r
            assert r["master-host"] == "127.0.0.1" and int(r["master-port"]) == master.port, r
            assert r["slave-priority"] == "100", r
            assert int(r["slave-repl-offset"]) >= 0, r
        others = s.cmd("SENTINEL", "SENTINELS", MASTER_NAME)
        assert sorted(int(pairs(o)["port"]) for o in others) == sorted(
            x.port for x in topo.sentinels if x is not s)
        assert s.cmd("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME) == [
            "127.0.0.1", str(master.port)]
    # the three Sentinels have distinct ids
    ids = {s.cmd("SENTINEL", "MYID") for s in topo.sentinels}
    assert len(ids) == 3, ids
    # Sentinel talks to the data nodes: its connections show up in CLIENT LIST
    clients = master.cmd("CLIENT", "LIST").decode()
    assert clients.count("cmd=") >= 3, clients


# ---------------------------------------------------------------------------------------------
# 2. kill -9 of the master under a Sentinel-managed writer


def test_kill9_failover_under_writer_then_old_master_rejoins(topo):
    topo.build()
    old, (r1, r2) = topo.master, topo.replicas
    writer = SentinelWriter(topo.sentinels, b"w")
    writer.start()
    try:
        assert wait_until(lambda: len(writer.acked) >= 200, timeout=SYNC_TIMEOUT), (
            len(writer.acked), writer.failures, writer.other_errors[:5])
        t_kill = time.monotonic()
        old.kill()
        acked_before = dict(writer.acked)

        new = topo.wait_new_master(old.port)
        other = r2 if new is r1 else r1
        # the other replica follows the promoted one
        wait_follows(other, new)
        # the writer is back within the deadline: a SET on the new master (the old one is dead)
        left = t_kill + RESUME_DEADLINE - time.monotonic()
        assert wait_until(lambda: writer.set_ok_after(t_kill), timeout=max(left, 0.1)), (
            "writer did not resume within %.0f s of the kill: %d failures, errors %r\n%s"
            % (RESUME_DEADLINE, writer.failures, writer.other_errors[:5], topo.logs()))
        t_follow = time.monotonic()
        # and its writes are acknowledged again (WAIT 1 counts the replica that followed)
        assert wait_until(lambda: writer.acked_after(t_follow), timeout=SYNC_TIMEOUT), (
            writer.failures, writer.other_errors[:5])
        lost = missing(new, acked_before)
        assert not lost, "%d of %d acknowledged writes lost in the failover, e.g. %r" % (
            len(lost), len(acked_before), lost[:5])

        # the old master comes back (same port, same data dir) and Sentinel demotes it
        old.start()
        wait_follows(old, new, timeout=CONVERT_TIMEOUT)
        n = len(writer.acked)
        assert wait_until(lambda: len(writer.acked) >= n + 50, timeout=SYNC_TIMEOUT)
    finally:
        writer.finish()
    assert not writer.other_errors, writer.other_errors[:5]
    lost = missing(new, writer.acked)
    assert not lost, "%d of %d acknowledged writes missing on the new master, e.g. %r" % (
        len(lost), len(writer.acked), lost[:5])
    for s in topo.sentinels:
        assert s.master_port() == new.port
    assert new.role()[0] == b"master"
    assert_same(new, old)
    assert_same(new, other)
    assert not missing(old, writer.acked)


# ---------------------------------------------------------------------------------------------
# 3. replica-priority 0


def test_replica_priority_zero_is_never_promoted(topo):
    topo.build()
    old, (never, chosen) = topo.master, topo.replicas
    assert never.cmd("CONFIG", "SET", "replica-priority", "0") == b"OK"
    assert never.cmd("CONFIG", "GET", "replica-priority") == [b"replica-priority", b"0"]
    assert never.info()["slave_priority"] == "0"

    def priorities(s):
        return {int(r["port"]): r["slave-priority"] for r in s.replicas()}

    for s in topo.sentinels:
        want = {never.port: "0", chosen.port: "100"}
        assert wait_until(lambda: safe(lambda: priorities(s)) == want, timeout=SYNC_TIMEOUT,
                          interval=0.2), safe(lambda: priorities(s))
    data = write_acked(old, b"p", 300, [never, chosen])
    old.kill()
    new = topo.wait_new_master(old.port, never=(never.port,))
    assert new is chosen
    wait_follows(never, chosen)
    assert not missing(chosen, data)
    assert never.role()[0] == b"slave"
    for s in topo.sentinels:
        assert s.master_port() == chosen.port


# ---------------------------------------------------------------------------------------------
# 4. SENTINEL FAILOVER


def test_sentinel_failover_command(topo):
    topo.build()
    old = topo.master
    data = write_acked(old, b"g", 1000, topo.replicas)
    assert topo.sentinels[0].cmd("SENTINEL", "FAILOVER", MASTER_NAME) == "OK"
    new = topo.wait_new_master(old.port)
    other = next(r for r in topo.replicas if r is not new)
    lost = missing(new, data)
    assert not lost, "%d acknowledged writes lost, e.g. %r" % (len(lost), lost[:5])
    wait_follows(other, new)
    wait_follows(old, new, timeout=CONVERT_TIMEOUT)  # the old master is demoted
    more = write_acked(new, b"h", 200, [old, other])
    for n in (old, other):
        assert not missing(n, data) and not missing(n, more)
        assert_same(new, n)
    assert old.cmd("ROLE")[0] == b"slave"
    with pytest.raises(redis.ResponseError, match="READONLY"):
        old.cmd("SET", "g:0", "x")


# ---------------------------------------------------------------------------------------------
# 5. requirepass / masterauth with sentinel auth-pass


def test_auth_pass_discovery_and_failover(topo):
    topo.build(replicas=1, password=PASSWORD)
    old, (rep,) = topo.master, topo.replicas
    # no password, no access: the Sentinels above got in with auth-pass
    for n in (old, rep):
        with n.raw() as conn:
            assert conn.command("GET", "x") == Error(b"NOAUTH Authentication required.")
    for s in topo.sentinels:
        m = s.master()
        assert m["flags"] == "master", m
        assert m["num-slaves"] == "1" and m["num-other-sentinels"] == "2", m
        assert s.cmd("SENTINEL", "CKQUORUM", MASTER_NAME).startswith("OK ")
    data = write_acked(old, b"a", 300, [rep])
    old.kill()
    new = topo.wait_new_master(old.port)
    assert new is rep
    assert not missing(rep, data)
    assert rep.cmd("SET", "after", "failover") == b"OK"
    for s in topo.sentinels:  # the Sentinels' new link to the promoted node comes up
        assert wait_until(lambda: safe(lambda: s.master()["flags"]) == "master",
                          timeout=SYNC_TIMEOUT, interval=0.2), safe(s.master)
        assert int(s.master()["port"]) == rep.port


# ---------------------------------------------------------------------------------------------
# 6. Sentinel's role transaction, by hand


def test_role_transaction_by_hand(topo):
    master, rep = topo.node(), topo.node()
    write_acked(master, b"t", 100, [])
    assert rep.cmd("REPLICAOF", "127.0.0.1", master.port) == b"OK"
    wait_follows(rep, master)

    def transaction(*slaveof):
        with rep.raw() as conn, rep.raw() as bystander, rep.raw() as subscriber:
            assert bystander.command("PING") == Simple(b"PONG")
            assert subscriber.command("SUBSCRIBE", "somechannel") == [
                b"subscribe", b"somechannel", 1]
            assert conn.command("MULTI") == Simple(b"OK")
            for args in (("SLAVEOF",) + slaveof, ("CONFIG", "REWRITE"),
                         ("CLIENT", "KILL", "TYPE", "normal"),
                         ("CLIENT", "KILL", "TYPE", "pubsub")):
                assert conn.command(*args) == Simple(b"QUEUED"), args
            got = conn.command("EXEC")
            assert isinstance(got, list), got  # not EXECABORT
            assert len(got) == 4, got
            assert got[0] == Simple(b"OK"), got
            assert got[1] == Simple(b"OK"), got  # the node has a config file
            assert isinstance(got[2], int) and got[2] >= 1, got  # at least the bystander
            assert isinstance(got[3], int) and got[3] >= 1, got  # the subscriber
            assert bystander.is_closed(), "CLIENT KILL TYPE normal left a normal client"
            assert subscriber.is_closed(), "CLIENT KILL TYPE pubsub left a subscriber"
            assert conn.command("PING") == Simple(b"PONG")  # SKIPME yes: the caller survives
            return got

    def replicaof_lines():
        with open(rep.conf) as f:
            return [line.strip() for line in f if line.startswith(("replicaof", "slaveof"))]

    transaction("NO", "ONE")
    got = rep.role()
    assert got[0] == b"master", got
    assert replicaof_lines() == []  # as Redis writes the file
    assert rep.cmd("SET", "t:promoted", "yes") == b"OK"
    # a promoted node stays a master across a restart (redis: no replicaof left in the file)
    rep.restart()
    got = rep.role()
    assert got[0] == b"master", got
    if not is_redis():  # redis here runs without persistence
        assert rep.cmd("GET", "t:promoted") == b"yes"

    transaction("127.0.0.1", str(master.port))
    assert replicaof_lines() == ["replicaof 127.0.0.1 %d" % master.port]
    wait_follows(rep, master)
    assert_same(master, rep)
    assert rep.cmd("EXISTS", "t:promoted") == 0
    with pytest.raises(redis.ResponseError, match="READONLY"):
        rep.cmd("SET", "t:x", "y")
    # the role survives a restart (redis: CONFIG REWRITE wrote replicaof into the config file)
    rep.restart()
    wait_follows(rep, master)
    assert_same(master, rep)


def test_role_transaction_without_config_file(topo):
    """Without a config file CONFIG REWRITE fails when EXEC runs it: one error in EXEC's array,
    the rest of the transaction still runs (Sentinel ignores that error)."""
    node = topo.node(conf=False)
    with node.raw() as conn:
        assert conn.command("MULTI") == Simple(b"OK")
        for args in (("SLAVEOF", "NO", "ONE"), ("CONFIG", "REWRITE"),
                     ("CLIENT", "KILL", "TYPE", "normal"), ("CLIENT", "KILL", "TYPE", "pubsub")):
            assert conn.command(*args) == Simple(b"QUEUED"), args
        got = conn.command("EXEC")
        assert isinstance(got, list) and len(got) == 4, got
        assert got[0] == Simple(b"OK"), got
        assert got[1] == Error(b"ERR The server is running without a config file"), got
        assert got[2:] == [0, 0], got
        assert conn.command("PING") == Simple(b"PONG")
    assert node.role()[0] == b"master"


def test_publish_on_master_reaches_replica_subscribers(topo):
    """Redis propagates PUBLISH through the replication stream: a client subscribed on a
    replica (as every Sentinel is, to __sentinel__:hello) gets what is published on the master."""
    master, rep = topo.node(), topo.node()
    assert rep.cmd("REPLICAOF", "127.0.0.1", master.port) == b"OK"
    wait_follows(rep, master)
    with rep.raw() as sub:
        assert sub.command("SUBSCRIBE", "__sentinel__:hello") == [
            b"subscribe", b"__sentinel__:hello", 1]
        assert master.cmd("PUBLISH", "__sentinel__:hello", "from the master") == 0
        got = sub.read_available(wait=2.0, settle=0.2)
    assert got == (b"*3\r\n$7\r\nmessage\r\n$18\r\n__sentinel__:hello\r\n"
                   b"$15\r\nfrom the master\r\n"), got


def test_replica_offsets_with_clients_on_the_replica(topo):
    """What Sentinel's PINGs do to a replica's acknowledged offset: per round a fresh master
    with two replicas that three clients each PING every 170 ms, 1000 keys, WAIT 2 5000: both
    replicas count and report the master's offset."""
    for _ in range(6):
        master = topo.node()
        reps = [topo.node(), topo.node()]
        for rep in reps:
            assert rep.cmd("REPLICAOF", "127.0.0.1", master.port) == b"OK"
        for rep in reps:
            wait_follows(rep, master)
        stop = threading.Event()

        def pinger(node):
            try:
                with node.raw() as conn:
                    while not stop.is_set():
                        conn.command("PING")
                        time.sleep(0.17)
            except (OSError, ConnectionError):
                pass

        pingers = [threading.Thread(target=pinger, args=(rep,), daemon=True)
                   for rep in reps for _ in range(3)]
        for p in pingers:
            p.start()
        try:
            time.sleep(1.0)
            c = master.client(socket_timeout=30)
            items = [(b"o:%d" % i, b"v%d" % i) for i in range(1000)]
            for i in range(0, 1000, 500):
                c.execute_command("MSET", *[x for kv in items[i:i + 500] for x in kv])
            got = c.execute_command("WAIT", 2, 5000)
            c.connection_pool.disconnect()
            for rep in reps:
                assert not missing(rep, dict(items))

            def offsets():
                return ([master.info()["master_repl_offset"]]
                         + [rep.info()["slave_repl_offset"] for rep in reps])

            same = wait_until(lambda: len(set(offsets())) == 1, timeout=5.0, interval=0.1)
            assert got == 2 and same, "WAIT 2 5000 -> %r; master, replica offsets %r" % (
                got, offsets())
        finally:
            stop.set()
            for p in pingers:
                p.join(5)
        for n in [master] + reps:
            n.cleanup()
        topo.nodes = [n for n in topo.nodes if n not in [master] + reps]
