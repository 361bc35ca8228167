#!/usr/bin/python3
"""ZooKeeper-mode failover measurement (run by scripts/bench-failover.sh): a ZooKeeper server
and three slotkv nodes, then K rounds of: a writer through redis-py's Sentinel client (SET k v,
with WAIT 1 200 after each in every other round), SIGKILL of the master, and the times

  detect   kill -> the master record names another node (SENTINEL GET-MASTER-ADDR-BY-NAME
           asked of a survivor every 10 ms)
  promote  kill -> the new master answers ROLE master
  clients  kill -> the writer's first acknowledged write after the kill

and the writes lost: acknowledged (SET replied OK; with WAIT: and WAIT counted >= 1 replica)
and missing from the new master. The old master is restarted (same dir), rejoins as a replica
and is fully linked before the next round. Prints one line per round, then a RESULT line."""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "integration"))
import redis  # noqa: E402
from redis.sentinel import Sentinel  # noqa: E402

from zk_util import ZooKeeper  # noqa: E402
from conftest import RawRedis, free_port  # noqa: E402

NAME = "bench"


class Node:
    def __init__(self, binary, work, i, zk, session_ms, down_ms):
        self.port, self.sport = free_port(), free_port()
        self.dir = os.path.join(work, "n%d" % i)
        self.log = os.path.join(work, "n%d.log" % i)
        os.makedirs(self.dir)
        self.cmd = [binary, "--port", str(self.port), "--dir", self.dir, "--workers", "2",
                    "--http-port", "0", "--bind", "127.0.0.1", "--zookeeper-connect", zk,
                    "--zookeeper-root", "/slotkv/" + NAME, "--sentinel-port", str(self.sport),
                    "--zookeeper-session-timeout-ms", str(session_ms),
                    "--failover-down-after-ms", str(down_ms)]
        self.proc = None

    def start(self):
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT)
        until(lambda: self.call("PING") == b"PONG", 10, "node %d up" % self.port)
        return self

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def call(self, *args):
        try:
            c = RawRedis(port=self.port, socket_timeout=1)
            try:
                return c.execute_command(*args)
            finally:
                c.connection_pool.disconnect()
        except redis.RedisError:
            return None


def until(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.01)
    raise SystemExit("timed out: " + what)


def master_of(nodes):
    for n in nodes:
        if n.proc.poll() is None:
            r = n.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", NAME)
            if r:
                return int(r[1])
    return None


class Writer(threading.Thread):
    def __init__(self, nodes, round_no, wait):
        super().__init__(daemon=True)
        self.sentinel = Sentinel([("127.0.0.1", n.sport) for n in nodes], socket_timeout=0.5)
        self.round, self.wait = round_no, wait
        self.acked = []  # (key, value, monotonic time)
        self.stop = False

    def run(self):
        master = self.sentinel.master_for(NAME, socket_timeout=0.5)
        i = 0
        while not self.stop:
            key, value = "r%d:%d" % (self.round, i), str(i)
            try:
                pipe = master.pipeline(transaction=False)
                pipe.set(key, value)
                if self.wait:
                    pipe.execute_command("WAIT", 1, 200)
                got = pipe.execute()
                if got[0] is True and (not self.wait or got[1] >= 1):
                    self.acked.append((key, value, time.monotonic()))
                i += 1
            except (redis.RedisError, OSError):
                time.sleep(0.02)


def missing(node, acked):
    """The (key, value, t) of acked that node does not hold."""
    c = redis.Redis(port=node.port, socket_timeout=5)
    out = []
    for i in range(0, len(acked), 500):
        batch = acked[i:i + 500]
        got = c.mget([k for k, _, _ in batch])
        out += [a for a, g in zip(batch, got) if g != a[1].encode()]
    c.connection_pool.disconnect()
    return out


def one_round(nodes, round_no, wait):
    port = master_of(nodes)
    old = next(n for n in nodes if n.port == port)
    others = [n for n in nodes if n is not old]
    for n in others:  # both replicas linked and online
        until(lambda n=n: (n.call("ROLE") or [b""])[0] == b"slave" and
              n.call("ROLE")[3] == b"connected", 60, "replica %d linked" % n.port)
    w = Writer(nodes, round_no, wait)
    w.start()
    time.sleep(1.0)
    old.kill()
    killed = time.monotonic()  # dead: no write is acknowledged by it after this
    until(lambda: master_of(others) not in (None, port), 60, "a new master")
    detect = time.monotonic() - killed
    new_port = master_of(others)
    new = next(n for n in others if n.port == new_port)
    until(lambda: (new.call("ROLE") or [b""])[0] == b"master", 30, "promotion")
    promote = time.monotonic() - killed
    until(lambda: any(t > killed for _, _, t in w.acked), 30, "the writer's first write")
    clients = min(t for _, _, t in w.acked if t > killed) - killed
    time.sleep(0.5)
    w.stop = True
    w.join()
    lost = missing(new, w.acked)
    if lost and os.environ.get("FAILOVER_PROBE_DEBUG"):
        other = next(n for n in others if n is not new)
        print("  lost %s (of %d acked); on the other replica: %d missing" % (
            [k for k, _, _ in lost], len(w.acked), len(missing(other, lost))), flush=True)
    lost = len(lost)
    old.start()  # rejoins as a replica of the new master
    until(lambda: (old.call("ROLE") or [b""])[0] == b"slave", 30, "old master rejoined")
    return detect, promote, clients, lost, len(w.acked)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--session-ms", type=int, default=2000)
    ap.add_argument("--down-after-ms", type=int, default=1000)
    ap.add_argument("--wait-only", action="store_true", help="WAIT in every round")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="slotkv-bench-failover-")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally below stops everything
    zk = ZooKeeper().start()
    nodes = []
    try:
        for i in range(3):
            nodes.append(Node(args.binary, work, i, zk.connect, args.session_ms,
                              args.down_after_ms))
            nodes[-1].start()
            if i == 0:
                until(lambda: master_of(nodes) == nodes[0].port, 30, "the first master")
        rows = {True: [], False: []}
        for r in range(args.kills):
            wait = r % 2 == 0 or args.wait_only
            row = one_round(nodes, r, wait)
            rows[wait].append(row)
            print("round %2d %-7s detect %.2f s promote %.2f s clients %.2f s lost %d of %d"
                  % (r, "WAIT" if wait else "no-WAIT", *row), flush=True)
        every = rows[True] + rows[False]
        clients = [x[2] for x in every]
        print("RESULT kills=%d session_ms=%d down_after_ms=%d detect_p50_s=%.2f "
              "promote_p50_s=%.2f clients_p50_s=%.2f clients_max_s=%.2f "
              "lost_per_failover_wait_max=%d lost_per_failover_nowait_mean=%.1f "
              "lost_per_failover_nowait_max=%d"
              % (len(every), args.session_ms, args.down_after_ms,
                 statistics.median(x[0] for x in every), statistics.median(x[1] for x in every),
                 statistics.median(clients), max(clients),
                 max((x[3] for x in rows[True]), default=0),
                 statistics.mean(x[3] for x in rows[False]) if rows[False] else 0,
                 max((x[3] for x in rows[False]), default=0)))
    finally:
        for n in nodes:
            n.kill()
        zk.cleanup()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
