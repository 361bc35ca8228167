"""ZooKeeper mode (repl/coordinator.cc, repl/sentinel.cc): a real ZooKeeper (zk_util) and three
slotkv nodes started with --zookeeper-connect, session timeout 2000 ms, failover-down-after-ms
1000, each with its own --sentinel-port.

Covered: discovery (the first master record, the member and election znodes, linked replicas,
every SENTINEL subcommand's reply on the sentinel ports, redis-py's Sentinel client, REPLICAOF
refused, SENTINEL unknown without ZooKeeper); a SIGKILL failover under a SET + WAIT 1 writer (no
acknowledged write lost, epoch 2, +switch-master, the old master rejoins as a replica); fencing
of a SIGSTOPped master (writes queued while it was stopped are refused after SIGCONT);
ZooKeeper restarted within and beyond the session timeout (no failover, the lease error while it
is down, writes again after); a failover whose controller dies with the master (the survivor
wins exactly epoch + 1; a stale conditional write loses); FAILOVER TO, a graceful switch of the
record, also to a replica that has just joined; the admin API (GET /cluster, POST
/cluster/failover under a writer, POST /cluster/replicaof, the cluster metrics).

One module-scoped cluster (ZooKeeper + 3 nodes, kazoo to read the znodes) serves every test in
file order; each test starts from a settled cluster (one master named by the record, two linked
replicas its coordinator knows) and leaves it whole. About 40 s on a 2-core machine (a SIGKILL
failover takes 3-4 s: the 2 s session expiry + 1 s down-after + ticks); every wait is bounded.
"""

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest
import redis
from redis.sentinel import Sentinel

import zk_util
from conftest import Error, ExactErrorParser, RawRedis, err, free_port, start_server, wait_until
from repl_util import assert_same_strings, cmd, info, role, wait_linked

pytest.importorskip("kazoo", reason="python3-kazoo is not installed")
from kazoo.client import KazooClient  # noqa: E402
from kazoo.exceptions import (BadVersionError, ConnectionLoss, NoNodeError,  # noqa: E402
                              SessionExpiredError)
from kazoo.retry import KazooRetry  # noqa: E402

pytestmark = [
    pytest.mark.slotkv_only,
    pytest.mark.skipif(not zk_util.available(), reason="the zookeeper package is not installed"),
]

SESSION_MS = 2000
DOWN_AFTER_MS = 1000
LEASE_S = SESSION_MS * 2 / 3 / 1000.0
# kill -> new master: session expiry + down-after + a few coordinator ticks; bound given by the
# brief (down-after + 5 s).
FAILOVER_BOUND_S = DOWN_AFTER_MS / 1000.0 + 5.0
SETTLE_TIMEOUT = 30.0

NO_LEASE = ("READONLY This master has lost its ZooKeeper lease: it takes no writes until it has "
            "read the master record again.")
ZK_MANAGED = "ERR the roles are managed by ZooKeeper here: use the admin API's /cluster"
NO_SUCH_MASTER = "ERR No such master with that name"
READONLY_REPLICA = "READONLY You can't write against a read only replica."

_names = iter(range(1000))


# ---------------------------------------------------------------------------------------------
# helpers


def parse_kv(data):
    """A znode's "key=value" lines as a dict of str."""
    out = {}
    for line in data.decode().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key] = value
    return out


def as_dict(flat):
    """A RESP2 map (flat [k, v, k, v, ...]) as {str: str}."""
    it = iter(flat)
    return {k.decode(): v.decode() if isinstance(v, bytes) else v for k, v in zip(it, it)}


def tails(*nodes, lines=25):
    """The last lines of each node's log, for failure messages."""
    out = []
    for n in nodes:
        text = n.log().splitlines()[-lines:]
        out.append("---- node %d log tail ----\n%s" % (n.port, "\n".join(text)))
    return "\n".join(out)


def quick(node, *args):
    """One command with a short timeout; the exception object instead of raising."""
    try:
        return cmd(node, *args, socket_timeout=2)
    except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError) as e:
        return e


def is_master(node):
    got = quick(node, "ROLE")
    return isinstance(got, list) and got[0] == b"master"


def follows(node, master):
    """ROLE says slave of `master`, link connected."""
    got = quick(node, "ROLE")
    return (isinstance(got, list) and got[0] == b"slave" and got[2] == master.port
            and got[3] == b"connected")


def all_threads_stopped(pid):
    """True once every thread of the process is in state T (SIGSTOP has taken effect)."""
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if state not in ("T", "t"):
                return False
        return True
    except OSError:
        return False


def can_write(node, key="zk:probe"):
    return quick(node, "SET", key, "1") == b"OK"


class Cluster:
    """ZooKeeper, a kazoo client to inspect it, and the slotkv nodes of one cluster root."""

    def __init__(self):
        self.name = "zkt%d-%d" % (os.getpid(), next(_names))
        self.root = "/slotkv/" + self.name
        self.nodes = []
        self.zk = zk_util.ZooKeeper()
        self.kz = None

    def start_zk(self):
        self.zk.start()
        self.kz = KazooClient(hosts=self.zk.connect, timeout=4.0,
                              connection_retry=KazooRetry(max_tries=-1, delay=0.1, max_delay=0.5))
        self.kz.start(timeout=15)

    def add_node(self):
        sentinel_port, http_port = free_port(), free_port()
        node = start_server([
            "--zookeeper-connect", self.zk.connect, "--zookeeper-root", self.root,
            "--zookeeper-session-timeout-ms", SESSION_MS,
            "--failover-down-after-ms", DOWN_AFTER_MS, "--sentinel-port", sentinel_port,
            "--http-port", http_port])
        node.sentinel_port = sentinel_port
        node.http_port = http_port
        self.nodes.append(node)
        return node

    # ---- ZooKeeper's view (kazoo, retried across ZooKeeper restarts)

    def _zk_call(self, fn, *args, timeout=15.0):
        deadline = time.monotonic() + timeout
        while True:
            try:
                return fn(*args)
            except (ConnectionLoss, SessionExpiredError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def record(self):
        """(the master record as a dict, its ZnodeStat); (None, None) while there is none."""
        try:
            data, stat = self._zk_call(self.kz.get, self.root + "/master")
        except NoNodeError:
            return None, None
        return parse_kv(data), stat

    def record_port(self):
        rec, _ = self.record()
        return int(rec["port"]) if rec else None

    def epoch(self):
        rec, _ = self.record()
        return int(rec["epoch"]) if rec else None

    def children(self, part):
        return sorted(self._zk_call(self.kz.get_children, self.root + "/" + part))

    def controller_port(self):
        """The port of the node whose election znode is the lowest (the controller)."""
        names = self.children("election")
        data, _ = self._zk_call(self.kz.get, self.root + "/election/" + names[0])
        return int(data.decode().rsplit(":", 1)[1])

    def node(self, port):
        return next(n for n in self.nodes if n.port == port)

    def master(self):
        return self.node(self.record_port())

    def replicas(self):
        port = self.record_port()
        return [n for n in self.nodes if n.port != port]

    def sentinels(self):
        return [("127.0.0.1", n.sentinel_port) for n in self.nodes]

    # ---- waits

    def wait_settled(self, timeout=SETTLE_TIMEOUT):
        """Every node running, the record naming a master that takes writes, the others
        linked to it and known to its coordinator as linked replicas. Returns the master."""
        for n in self.nodes:
            if not n.running():
                n.start()
        state = {}

        def settled():
            port = self.record_port()
            state["port"] = port
            if port is None:
                return False
            m = self.node(port)
            return (is_master(m) and can_write(m)
                    and all(follows(n, m) for n in self.nodes if n is not m)
                    and self.known_replicas(m) == {n.port for n in self.nodes if n is not m})

        assert wait_until(settled, timeout=timeout, interval=0.1), (
            "the cluster did not settle within %.0f s: record %r, roles %r\n%s"
            % (timeout, self.record()[0], [quick(n, "ROLE") for n in self.nodes],
               tails(*self.nodes)))
        m = self.node(state["port"])
        for n in self.nodes:
            if n is not m:
                wait_linked(n, m)
        return m

    def known_replicas(self, node):
        """The ports of the replicas the node's coordinator knows with their link up (SENTINEL
        REPLICAS: its last read of the member znodes)."""
        try:
            reps = [as_dict(r) for r in sentinel_cmd(node, "REPLICAS", self.name)]
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            return set()
        return {int(r["port"]) for r in reps if r.get("master-link-status") == "ok"}

    def wait_new_master(self, old_port, timeout, survivors=None):
        """Waits until the record names another node, which says it is master; returns it.
        survivors: the nodes whose logs a failure shows (default: all running ones)."""
        survivors = survivors or [n for n in self.nodes if n.running()]

        def promoted():
            port = self.record_port()
            if port is None or port == old_port:
                return None
            n = self.node(port)
            return n if is_master(n) else None

        new = wait_until(promoted, timeout=timeout, interval=0.05)
        assert new, ("no new master within %.1f s of losing %d: record %r\n%s"
                     % (timeout, old_port, self.record()[0], tails(*survivors)))
        return new

    def cleanup(self):
        if self.kz is not None:
            try:
                self.kz.stop()
                self.kz.close()
            except Exception:  # noqa: BLE001
                pass
        for n in self.nodes:
            try:
                os.kill(n.proc.pid, signal.SIGCONT)  # never leave a stopped process behind
            except (OSError, AttributeError):
                pass
            n.cleanup()
        self.zk.cleanup()


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    try:
        c.start_zk()
        a = c.add_node()
        assert wait_until(lambda: is_master(a) and c.record_port() == a.port, timeout=15,
                          interval=0.1), ("A was never named the first master: record %r\n%s"
                                          % (c.record()[0], tails(a)))
        c.add_node()
        c.add_node()
        c.wait_settled()
        yield c
    finally:
        c.cleanup()


# ---------------------------------------------------------------------------------------------
# 1. discovery


def test_discovery_record_members_and_links(cluster):
    a, b, c = cluster.nodes
    rec, _ = cluster.record()
    assert rec == {"epoch": "1", "host": "127.0.0.1", "port": str(a.port),
                   "run_id": info(a, "server")["run_id"]}, rec
    for n in (b, c):
        wait_linked(n, a)
        got = role(n)
        assert got[:4] == [b"slave", b"127.0.0.1", a.port, b"connected"], got
    assert role(a)[0] == b"master"
    # Members: one ephemeral znode per node; election: one sequential znode per node.
    members = cluster.children("members")
    assert members == sorted("127.0.0.1:%d" % n.port for n in cluster.nodes), members
    for n in cluster.nodes:
        data, stat = cluster.kz.get("%s/members/127.0.0.1:%d" % (cluster.root, n.port))
        m = parse_kv(data)
        assert stat.ephemeralOwner != 0
        assert m["host"] == "127.0.0.1" and m["port"] == str(n.port), m
        assert m["sentinel_port"] == str(n.sentinel_port), m
        assert m["run_id"] == info(n, "server")["run_id"], m
        assert m["role"] == ("master" if n is a else "replica"), m
    election = cluster.children("election")
    assert len(election) == 3 and all(e.startswith("n_") for e in election), election


def expected_master_fields(cluster, master):
    return {"name": cluster.name, "ip": "127.0.0.1", "port": str(master.port),
            "runid": info(master, "server")["run_id"], "flags": "master",
            "num-slaves": "2", "num-other-sentinels": "2", "config-epoch": "1"}


def on_sentinel_port(node, *args):
    """One command on the node's sentinel port (raw replies, full error texts)."""
    c = RawRedis(connection_pool=redis.ConnectionPool(
        host="127.0.0.1", port=node.sentinel_port, parser_class=ExactErrorParser,
        socket_timeout=5))
    try:
        return c.execute_command(*args)
    finally:
        c.connection_pool.disconnect()


def sentinel_cmd(node, *args):
    return on_sentinel_port(node, "SENTINEL", *args)


def test_discovery_sentinel_commands(cluster):
    a, b, c = cluster.nodes
    name = cluster.name
    want = expected_master_fields(cluster, a)
    for n in cluster.nodes:
        last = {}

        def master_ok():
            masters = sentinel_cmd(n, "MASTERS")
            one = sentinel_cmd(n, "MASTER", name)
            last["masters"], last["master"] = masters, one
            if len(masters) != 1:
                return False
            got = as_dict(masters[0])
            return ({k: got.get(k) for k in want} == want
                    and {k: as_dict(one).get(k) for k in want} == want)

        assert wait_until(master_ok, timeout=10, interval=0.2), (
            "SENTINEL MASTERS / MASTER on node %d: %r, want %r\n%s"
            % (n.port, last, want, tails(n)))

        assert sentinel_cmd(n, "GET-MASTER-ADDR-BY-NAME", name) == [
            b"127.0.0.1", str(a.port).encode()]

        def replicas_ok(sub):
            reps = [as_dict(r) for r in sentinel_cmd(n, sub, name)]
            last[sub] = reps
            return sorted((r["ip"], r["port"], r["flags"], r["master-link-status"],
                           r["master-port"]) for r in reps) == sorted(
                ("127.0.0.1", str(x.port), "slave", "ok", str(a.port)) for x in (b, c))

        for sub in ("REPLICAS", "SLAVES"):
            assert wait_until(lambda: replicas_ok(sub), timeout=10, interval=0.2), (
                "SENTINEL %s on node %d: %r" % (sub, n.port, last.get(sub)))

        sentinels = [as_dict(s) for s in sentinel_cmd(n, "SENTINELS", name)]
        others = [x for x in cluster.nodes if x is not n]
        assert sorted((s["ip"], s["port"], s["runid"], s["flags"]) for s in sentinels) == sorted(
            ("127.0.0.1", str(x.sentinel_port), info(x, "server")["run_id"], "sentinel")
            for x in others), sentinels

        assert sentinel_cmd(n, "MYID") == info(n, "server")["run_id"].encode()
        # Unknown name: an error, nil for GET-MASTER-ADDR-BY-NAME (as Sentinel).
        for sub in ("MASTER", "REPLICAS", "SLAVES", "SENTINELS"):
            with pytest.raises(redis.ResponseError) as e:
                sentinel_cmd(n, sub, "no-such-master")
            assert str(e.value) == NO_SUCH_MASTER, (sub, str(e.value))
        assert sentinel_cmd(n, "GET-MASTER-ADDR-BY-NAME", "no-such-master") is None
        # The sentinel port is the same server: data commands work on it too.
        assert on_sentinel_port(n, "PING") == b"PONG"


def test_discovery_redis_py_sentinel_client(cluster):
    a = cluster.nodes[0]
    s = Sentinel(cluster.sentinels(), socket_timeout=1.0)
    assert s.discover_master(cluster.name) == ("127.0.0.1", a.port)
    assert sorted(s.discover_slaves(cluster.name)) == sorted(
        ("127.0.0.1", n.port) for n in cluster.nodes[1:])
    m = s.master_for(cluster.name, socket_timeout=3.0)
    assert m.set("discovery:key", "v1") is True
    assert m.execute_command("WAIT", 2, 5000) == 2
    r = s.slave_for(cluster.name, socket_timeout=3.0)
    assert r.get("discovery:key") == b"v1"
    assert r.connection_pool.get_connection("GET").port in (cluster.nodes[1].port,
                                                            cluster.nodes[2].port)
    m.connection_pool.disconnect()
    r.connection_pool.disconnect()


def test_discovery_roles_commands_refused(cluster):
    a, b, c = cluster.nodes
    for n in cluster.nodes:
        c_ = n.client()
        other = b if n is a else a
        assert err(c_, "REPLICAOF", "127.0.0.1", other.port) == ZK_MANAGED
        assert err(c_, "REPLICAOF", "NO", "ONE") == ZK_MANAGED
        assert err(c_, "SLAVEOF", "NO", "ONE") == ZK_MANAGED
        if n is not a:
            # FAILOVER is a graceful switch of the record in ZooKeeper mode (its own test at
            # the end); a replica refuses it as Redis does.
            assert err(c_, "FAILOVER") == "ERR FAILOVER is not valid when server is a replica."
        c_.connection_pool.disconnect()
    # Nothing changed.
    assert role(a)[0] == b"master"
    assert all(follows(n, a) for n in (b, c))


def test_sentinel_unknown_without_zookeeper():
    plain = start_server()
    try:
        c = plain.client()
        assert err(c, "sentinel", "masters") == (
            "ERR unknown command 'sentinel', with args beginning with: 'masters' ")
    finally:
        plain.cleanup()


# ---------------------------------------------------------------------------------------------
# 2. SIGKILL of the master under a Sentinel-managed SET + WAIT writer


class Writer(threading.Thread):
    """Writes k<i> = v<i> through redis-py's Sentinel client, each SET followed by WAIT 1 1000
    on the same connection; a key counts as acknowledged only with SET OK and WAIT >= 1.
    Errors (connection, READONLY, no master found) retry the same key after 0.1 s."""

    def __init__(self, cluster):
        super().__init__(daemon=True)
        self.sentinel = Sentinel(cluster.sentinels(), socket_timeout=0.5)
        self.client = self.sentinel.master_for(cluster.name, socket_timeout=3.0)
        self.stop = threading.Event()
        self.acked = {}        # key -> value
        self.ack_times = []    # monotonic time of each acknowledgement
        self.errors = []       # (time, repr)

    def run(self):
        i = 0
        while not self.stop.is_set():
            key, value = "k%d" % i, "v%d" % i
            try:
                pipe = self.client.pipeline(transaction=False)
                pipe.set(key, value)
                pipe.execute_command("WAIT", 1, 1000)
                res = pipe.execute(raise_on_error=False)
            except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError) as e:
                self.errors.append((time.monotonic(), repr(e)))
                time.sleep(0.1)
                continue
            if res[0] is True and isinstance(res[1], int) and res[1] >= 1:
                self.acked[key] = value.encode()
                self.ack_times.append(time.monotonic())
                i += 1
            else:
                self.errors.append((time.monotonic(), repr(res)))
                time.sleep(0.1)
        self.client.connection_pool.disconnect()

    def acks_after(self, t):
        return sum(1 for x in self.ack_times if x > t)


def next_message(pubsub, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = pubsub.get_message(timeout=0.2)
        if msg and msg["type"] == "message":
            return msg
    return None


def test_failover_sigkill_under_writer(cluster):
    old = cluster.wait_settled()
    epoch0 = cluster.epoch()
    replicas = cluster.replicas()
    subs = []
    for n in replicas:
        p = n.client().pubsub()
        p.subscribe("+switch-master")
        assert p.get_message(timeout=2)["type"] == "subscribe"
        subs.append((n, p))

    writer = Writer(cluster)
    writer.start()
    try:
        assert wait_until(lambda: len(writer.acked) >= 50, timeout=15, interval=0.05), (
            "the writer made no progress before the kill: %r" % writer.errors[-5:])
        old.kill()
        t_kill = time.monotonic()
        new = cluster.wait_new_master(old.port, FAILOVER_BOUND_S)
        took = time.monotonic() - t_kill
        print("\nSIGKILL failover: new master %d named %.2f s after the kill" % (new.port, took))
        acked_before = len(writer.acked)
        t_new = time.monotonic()
        assert wait_until(lambda: writer.acks_after(t_new) >= 30, timeout=20, interval=0.05), (
            "the writer made no progress after the failover (%d acked before it): last errors "
            "%r\n%s" % (acked_before, writer.errors[-5:], tails(*replicas)))
    finally:
        writer.stop.set()
        writer.join(15)
    assert not writer.is_alive()

    print("writer: %d keys acknowledged (%d after the failover), %d failed attempts"
          % (len(writer.acked), writer.acks_after(t_new), len(writer.errors)))
    rec, _ = cluster.record()
    assert int(rec["epoch"]) == epoch0 + 1 == 2, rec
    assert rec["port"] == str(new.port), rec
    # SENTINEL MASTER on the survivors: the new master, config-epoch 2.
    for n in replicas:
        assert wait_until(lambda: as_dict(sentinel_cmd(n, "MASTER", cluster.name)).get("port")
                          == str(new.port), timeout=5, interval=0.1)
        got = as_dict(sentinel_cmd(n, "MASTER", cluster.name))
        assert got["config-epoch"] == str(epoch0 + 1) and got["flags"] == "master", got

    # Every acknowledged write is on the new master.
    keys = sorted(writer.acked)
    values = cmd(new, "MGET", *keys)
    missing = [(k, writer.acked[k], v) for k, v in zip(keys, values) if v != writer.acked[k]]
    assert not missing, ("%d of %d acknowledged writes missing or wrong on the new master %d: "
                         "%r\n%s" % (len(missing), len(keys), new.port, missing[:10],
                                     tails(*replicas)))

    # +switch-master on each surviving node's own Pub/Sub.
    want = "%s 127.0.0.1 %d 127.0.0.1 %d" % (cluster.name, old.port, new.port)
    for n, p in subs:
        msg = next_message(p, 10)
        assert msg is not None, "no +switch-master on node %d\n%s" % (n.port, tails(n))
        assert msg["channel"] == b"+switch-master" and msg["data"] == want.encode(), msg
        p.close()

    # The old master, restarted on its port and dir, follows the record: a replica that resyncs.
    old.start()
    t_start = time.monotonic()
    assert wait_until(lambda: follows(old, new), timeout=30, interval=0.1), (
        "the restarted old master %d did not follow %d: ROLE %r\n%s"
        % (old.port, new.port, quick(old, "ROLE"), tails(old, new)))
    wait_linked(old, new)
    print("restarted old master linked to %d in %.2f s" % (new.port, time.monotonic() - t_start))
    assert_same_strings(new, old)
    assert cluster.epoch() == epoch0 + 1
    cluster.wait_settled()


# ---------------------------------------------------------------------------------------------
# 3. fencing: a SIGSTOPped master's queued writes are refused when it resumes


def test_fencing_sigstop(cluster):
    old = cluster.wait_settled()
    epoch0 = cluster.epoch()
    others = cluster.replicas()
    stop_s = (SESSION_MS + DOWN_AFTER_MS) / 1000.0 + 2.0
    sent = 0
    conn = None
    os.kill(old.proc.pid, signal.SIGSTOP)
    t_stop = time.monotonic()
    try:
        assert wait_until(lambda: all_threads_stopped(old.proc.pid), timeout=5), (
            "SIGSTOP did not stop every thread of %d" % old.proc.pid)
        conn = old.raw(timeout=15)  # the kernel completes the handshake; nothing is read yet
        for _ in range(3):
            conn.send_command("SET", "fence:%d" % sent, "x")
            sent += 1
        # The failover happens while the old master is stopped.
        new = cluster.wait_new_master(old.port, stop_s, survivors=others)
        print("\nSIGSTOP failover: new master %d named %.2f s after the stop"
              % (new.port, time.monotonic() - t_stop))
        for _ in range(3):
            conn.send_command("SET", "fence:%d" % sent, "x")
            sent += 1
        time.sleep(max(0.0, t_stop + stop_s - time.monotonic()))
        assert cluster.record_port() == new.port
    finally:
        os.kill(old.proc.pid, signal.SIGCONT)
    replies = []
    try:
        for _ in range(sent):
            replies.append(conn.read_reply())
    finally:
        conn.close()
    refusals = {NO_LEASE.encode(), READONLY_REPLICA.encode()}
    bad = [r for r in replies if not (isinstance(r, Error) and bytes(r) in refusals)]
    assert not bad, ("a stopped master executed writes after it resumed (it was replaced by %d "
                     "in epoch %d): replies %r\n%s"
                     % (new.port, epoch0 + 1, replies, tails(old)))
    print("fenced replies: %r" % sorted(set(bytes(r) for r in replies)))
    fence_keys = ["fence:%d" % i for i in range(sent)]
    assert cmd(new, "EXISTS", *fence_keys) == 0
    assert wait_until(lambda: follows(old, new), timeout=20, interval=0.1), (
        "the resumed old master %d did not follow %d: ROLE %r\n%s"
        % (old.port, new.port, quick(old, "ROLE"), tails(old)))
    assert cluster.epoch() == epoch0 + 1
    cluster.wait_settled()
    for n in cluster.nodes:
        assert cmd(n, "EXISTS", *fence_keys) == 0, "fence keys on node %d" % n.port


# ---------------------------------------------------------------------------------------------
# 4./5. ZooKeeper restarts


def test_zookeeper_restart_within_session_timeout(cluster):
    m = cluster.wait_settled()
    epoch0 = cluster.epoch()
    t0 = time.monotonic()
    cluster.zk.restart(0.5)
    down = time.monotonic() - t0
    print("\nZooKeeper down for %.2f s (0.5 s + the JVM's start)" % down)
    t_back = time.monotonic()
    assert wait_until(lambda: can_write(m), timeout=10, interval=0.05), (
        "the master %d took no writes within 10 s of ZooKeeper's return: %r\n%s"
        % (m.port, quick(m, "SET", "zk:probe", "1"), tails(m)))
    print("master writes again %.2f s after ZooKeeper came back" % (time.monotonic() - t_back))
    time.sleep(max(0.0, t_back + 5.0 - time.monotonic()))
    rec, _ = cluster.record()
    assert (int(rec["epoch"]), int(rec["port"])) == (epoch0, m.port), (
        "a failover after a short ZooKeeper restart: %r\n%s" % (rec, tails(*cluster.nodes)))
    assert is_master(m)
    assert all(follows(n, m) for n in cluster.replicas()), [
        quick(n, "ROLE") for n in cluster.nodes]
    assert can_write(m)


def test_zookeeper_down_beyond_session_timeout(cluster):
    m = cluster.wait_settled()
    epoch0 = cluster.epoch()
    reps = cluster.replicas()
    outage_s = 4.0
    cluster.zk.kill()
    t_kill = time.monotonic()
    try:
        refused = wait_until(lambda: quick(m, "SET", "zk:probe", "1") != b"OK",
                             timeout=LEASE_S + 1.5, interval=0.05)
        took = time.monotonic() - t_kill
        got = quick(m, "SET", "zk:probe", "1")
        assert refused and isinstance(got, redis.ResponseError) and str(got) == NO_LEASE, (
            "the master still took writes %.2f s into a ZooKeeper outage: %r\n%s"
            % (took, got, tails(m)))
        assert took <= LEASE_S + 1.0, "lease error only after %.2f s" % took
        print("\nmaster refused writes %.2f s into the ZooKeeper outage" % took)
        # No node promotes itself while ZooKeeper is away.
        while time.monotonic() < t_kill + outage_s:
            for n in reps:
                got = quick(n, "ROLE")
                assert isinstance(got, list) and got[0] == b"slave", (
                    "replica %d changed role during the outage: %r\n%s" % (n.port, got, tails(n)))
            time.sleep(0.2)
    finally:
        cluster.zk.start()
    t_back = time.monotonic()

    def one_writable_master():
        masters = [n for n in cluster.nodes if is_master(n)]
        assert len(masters) <= 1, "two masters after the outage: %r" % [
            n.port for n in masters]
        return len(masters) == 1 and can_write(masters[0])

    assert wait_until(one_writable_master, timeout=15, interval=0.1), (
        "no master took writes within 15 s of ZooKeeper's return: roles %r\n%s"
        % ([quick(n, "ROLE") for n in cluster.nodes], tails(*cluster.nodes)))
    print("writes again %.2f s after ZooKeeper came back (record epoch %d -> %d)"
          % (time.monotonic() - t_back, epoch0, cluster.epoch()))
    cluster.wait_settled()
    assert sum(1 for n in cluster.nodes if is_master(n)) == 1


# ---------------------------------------------------------------------------------------------
# 6. the controller dies with the master


def test_controller_dies_with_master(cluster):
    m = cluster.wait_settled()
    rec0, stat0 = cluster.record()
    epoch0 = int(rec0["epoch"])
    controller_port = cluster.controller_port()
    controller_znode = cluster.children("election")[0]
    # Its log agrees: its last controller line says it is the controller.
    lines = [l for l in cluster.node(controller_port).log().splitlines()
             if l in ("zk: this node is the controller", "zk: no longer the controller")]
    assert lines and lines[-1] == "zk: this node is the controller", (controller_port, lines)
    victims = [m]
    if controller_port != m.port:
        victims.append(cluster.node(controller_port))
    else:
        victims.append(cluster.replicas()[0])
    survivor = next(n for n in cluster.nodes if n not in victims)
    print("\nmaster %d, controller %d: killing %r, survivor %d"
          % (m.port, controller_port, [v.port for v in victims], survivor.port))
    for v in victims:
        v.kill()
    t_kill = time.monotonic()
    new = cluster.wait_new_master(m.port, FAILOVER_BOUND_S + 5, survivors=[survivor])
    print("controller+master failover: %d named %.2f s after the kill"
          % (new.port, time.monotonic() - t_kill))
    assert new is survivor
    time.sleep(1.0)  # no second failover on top
    rec1, stat1 = cluster.record()
    assert int(rec1["epoch"]) == epoch0 + 1, (rec0, rec1)
    assert rec1["port"] == str(survivor.port)
    assert rec1["run_id"] == info(survivor, "server")["run_id"]

    # A controller with the view from before the failover cannot commit: the record moved on
    # (version check), and the old controller's election znode is gone (the server's guard).
    path = cluster.root + "/master"
    stale = ("epoch=%d\nhost=127.0.0.1\nport=%d\nrun_id=stale\n" % (epoch0 + 1, m.port)).encode()
    t = cluster.kz.transaction()
    t.check(path, stat0.version)
    t.set_data(path, stale)
    results = t.commit()
    assert isinstance(results[0], BadVersionError), results
    assert isinstance(results[1], Exception), results  # not applied (RuntimeInconsistency)
    t = cluster.kz.transaction()
    t.check(cluster.root + "/election/" + controller_znode, -1)
    t.set_data(path, stale, stat0.version)
    results = t.commit()
    assert isinstance(results[0], NoNodeError), results
    assert isinstance(results[1], Exception), results
    assert cluster.record() == (rec1, stat1), "the stale writes changed the record"

    # Whole again: the killed nodes restart and follow the survivor.
    for v in victims:
        v.start()
    assert cluster.wait_settled() is survivor
    assert cluster.epoch() == epoch0 + 1


# ---------------------------------------------------------------------------------------------
# 7. FAILOVER: a graceful switch of the record


def test_failover_command_switches_the_record(cluster):
    m = cluster.wait_settled()
    epoch0 = cluster.epoch()
    target, other = cluster.replicas()
    assert cmd(m, "SET", "graceful:key", "v") == b"OK"
    p = other.client().pubsub()
    p.subscribe("+switch-master")
    assert p.get_message(timeout=2)["type"] == "subscribe"
    t0 = time.monotonic()
    assert cmd(m, "FAILOVER", "TO", "127.0.0.1", target.port, "TIMEOUT", 10000) == b"OK"
    new = cluster.wait_new_master(m.port, 15)
    print("\nFAILOVER TO %d: named in %.2f s" % (new.port, time.monotonic() - t0))
    assert new is target, (new.port, target.port)
    rec, _ = cluster.record()
    assert int(rec["epoch"]) == epoch0 + 1, rec
    for n in (m, other):
        assert wait_until(lambda: follows(n, target), timeout=15, interval=0.1), (
            "node %d did not follow %d after FAILOVER: ROLE %r\n%s"
            % (n.port, target.port, quick(n, "ROLE"), tails(n, m)))
    assert wait_until(lambda: info(m).get("master_failover_state") == "no-failover",
                      timeout=10, interval=0.1), info(m)
    assert cmd(target, "GET", "graceful:key") == b"v"
    msg = next_message(p, 10)
    assert msg is not None and msg["data"] == ("%s 127.0.0.1 %d 127.0.0.1 %d" % (
        cluster.name, m.port, target.port)).encode(), msg
    p.close()
    assert cluster.wait_settled() is target
    assert cluster.epoch() == epoch0 + 1


def test_failover_to_a_replica_that_just_joined(cluster):
    """FAILOVER TO a replica that is online at the master and registered in ZooKeeper, but
    (re)joined less than the coordinator's member-read period (500 ms) ago."""
    m = cluster.wait_settled()
    epoch0 = cluster.epoch()
    target = cluster.replicas()[0]
    target.stop()
    assert wait_until(lambda: target.port not in cluster.known_replicas(m), timeout=10,
                      interval=0.05)
    target.start()
    wait_linked(target, m)
    member = "127.0.0.1:%d" % target.port
    assert wait_until(lambda: member in cluster.children("members"), timeout=5, interval=0.02)
    known = sorted(cluster.known_replicas(m))
    assert cmd(m, "FAILOVER", "TO", "127.0.0.1", target.port, "TIMEOUT", 10000) == b"OK"
    switched = wait_until(lambda: cluster.record_port() == target.port, timeout=5,
                          interval=0.05)
    lines = [l for l in m.log().splitlines() if "FAILOVER" in l or "Failover" in l]
    assert switched, (
        "FAILOVER TO %d replied OK but the record still names %d (epoch %s): the target was an "
        "online replica with its member znode %s present, while the master's coordinator knew "
        "only replicas %r when FAILOVER ran. Master log:\n%s"
        % (target.port, m.port, cluster.epoch(), member, known, "\n".join(lines[-4:])))
    assert cluster.epoch() == epoch0 + 1
    assert cluster.wait_settled() is target


# ---------------------------------------------------------------------------------------------
# 7. the HTTP admin API


def http(node, method, path):
    """(status, parsed JSON body or text) of one request to the node's admin API."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (node.http_port, path),
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, body = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read().decode()
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def test_admin_cluster_view_and_metrics(cluster):
    m = cluster.wait_settled()
    viewer = cluster.replicas()[0]
    replica_addrs = {"127.0.0.1:%d" % n.port for n in cluster.replicas()}

    def converged():
        # A node's view is its last read of the member znodes (each rewritten every second).
        status, view = http(viewer, "GET", "/cluster")
        return status == 200 and all(
            n["role"] == "replica" and n["link_up"] for n in view["nodes"]
            if n["address"] in replica_addrs) and view
    view = wait_until(converged, timeout=10, interval=0.1)
    assert view, http(viewer, "GET", "/cluster")
    assert view["enabled"] is True and view["name"] == cluster.name
    assert view["zookeeper_session"] == "connected"
    assert view["epoch"] == cluster.epoch() and view["master"] == "127.0.0.1:%d" % m.port
    assert view["master_alive"] is True and view["lease"] is False  # a replica's view
    nodes = {n["address"]: n for n in view["nodes"]}
    assert set(nodes) == {"127.0.0.1:%d" % n.port for n in cluster.nodes}
    assert nodes["127.0.0.1:%d" % m.port]["role"] == "master"
    for n in cluster.replicas():
        entry = nodes["127.0.0.1:%d" % n.port]
        assert entry["role"] == "replica" and entry["link_up"] is True, entry
        assert entry["sentinel_port"] == n.sentinel_port and "lag" in entry
    assert sum(1 for n in cluster.nodes if http(n, "GET", "/cluster")[1]["controller"]) == 1
    status, master_view = http(m, "GET", "/cluster")
    assert master_view["lease"] is True, master_view
    metrics = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % m.http_port,
                                     timeout=10).read().decode()
    assert "slotkv_cluster_epoch %d" % cluster.epoch() in metrics
    assert "slotkv_cluster_zookeeper_connected 1" in metrics
    assert "slotkv_cluster_master_lease 1" in metrics
    assert "slotkv_cluster_failovers_total" in metrics


def test_admin_failover_under_a_writer_loses_nothing(cluster):
    m = cluster.wait_settled()
    epoch0 = cluster.epoch()
    target = cluster.replicas()[1]
    assert http(m, "POST", "/cluster/failover?to=127.0.0.1")[0] == 400
    assert http(target, "POST", "/cluster/failover")[0] == 409  # not the master
    w = Writer(cluster)
    w.start()
    try:
        assert wait_until(lambda: len(w.acked) >= 50, timeout=15, interval=0.05), w.errors[-3:]
        status, body = http(m, "POST",
                            "/cluster/failover?to=127.0.0.1:%d&timeout_ms=5000" % target.port)
        assert status == 200, (body, tails(m, target))
        assert body["master"] == "127.0.0.1:%d" % target.port and body["epoch"] == epoch0 + 1
        print("\nPOST /cluster/failover: switched in %d ms" % body["took_ms"])
        switched = time.monotonic()
        assert wait_until(lambda: w.acks_after(switched) >= 20, timeout=15, interval=0.05), (
            "the writer made no progress after the switch: %r" % w.errors[-3:])
    finally:
        w.stop.set()
        w.join(10)
    new = cluster.wait_settled()
    assert new is target
    got = new.client().mget(list(w.acked))
    lost = [k for k, v in zip(w.acked, got) if v != w.acked[k]]
    assert not lost, "acknowledged writes lost in a graceful switch: %r" % lost[:5]


def test_admin_replicaof_names_a_master(cluster):
    m = cluster.wait_settled()
    epoch0 = cluster.epoch()
    target = cluster.replicas()[0]
    assert http(m, "POST", "/cluster/replicaof")[0] == 400
    status, body = http(m, "POST", "/cluster/replicaof?master=127.0.0.1:1")
    assert status == 404, body  # not a member
    status, body = http(target, "POST", "/cluster/replicaof?master=127.0.0.1:%d" % target.port)
    assert status == 200, body
    assert body["master"] == "127.0.0.1:%d" % target.port and body["epoch"] == epoch0 + 1
    assert cluster.wait_settled() is target
    assert cluster.epoch() == epoch0 + 1
    assert http(m, "GET", "/cluster")[1]["failovers"] >= 1
