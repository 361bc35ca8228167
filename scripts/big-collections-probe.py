#!/usr/bin/env python3
"""Driver of scripts/bench-big-collections.sh (see there for what it measures):

    scripts/big-collections-probe.py --port P --pid PID --dir DIR [--members N] [--small M]
                                     [--ops K] [--clients C]

PID (the server's: VmHWM) and DIR (its data dir: du -sm) are only read. Progress goes to stderr,
the tables and the RESULT line to stdout. The clients are processes (one Python process would
cap the rate), connected before they all start together; a rate is their ops / the wall time
from the first start to the last end.
"""

import argparse
import multiprocessing as mp
import random
import socket
import subprocess
import sys
import time

import redis

BATCH, PIPELINE, DEL_WINDOW_S, TIMEOUT_S = 1000, 10, 10, 600
ctx = mp.get_context("fork")
started = time.monotonic()


def step(msg):
    print("[%ds] %s" % (time.monotonic() - started, msg), file=sys.stderr, flush=True)


def connect(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=TIMEOUT_S)


def parallel(port, fn, arglist):
    """Runs fn(conn, rnd, *args) for each args in its own process; returns the wall seconds."""
    barrier, results = ctx.Barrier(len(arglist)), ctx.Queue()

    def job(args):
        r, rnd = connect(port), random.Random()
        r.ping()
        barrier.wait(timeout=60)
        start = time.monotonic()
        fn(r, rnd, *args)
        results.put((start, time.monotonic()))

    procs = [ctx.Process(target=job, args=(a,), daemon=True) for a in arglist]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    if any(p.exitcode != 0 for p in procs):
        raise SystemExit("big-collections-probe: a client process failed")
    times = [results.get(timeout=10) for _ in procs]
    return max(end for _, end in times) - min(start for start, _ in times)


# The members of a build command: ZADD bigz <i> m:<i>, HSET bigh f:<i> v:<i>, RPUSH bigl e:<i>.
MEMBER = {"ZADD": lambda i: (i, "m:%d" % i), "HSET": lambda i: ("f:%d" % i, "v:%d" % i),
          "RPUSH": lambda i: ("e:%d" % i,)}


def fill(r, _rnd, cmd, key, lo, hi):
    pipe = r.pipeline(transaction=False)
    for start in range(lo, hi, BATCH):
        pipe.execute_command(cmd, key, *(x for i in range(start, min(start + BATCH, hi))
                                         for x in MEMBER[cmd](i)))
        if len(pipe) == PIPELINE:
            pipe.execute()
    pipe.execute()


def build(port, cmd, key, n, clients):
    parts = [(cmd, key, n * j // clients, n * (j + 1) // clients) for j in range(clients)]
    secs = parallel(port, fill, parts)
    size = connect(port).execute_command({"ZADD": "ZCARD", "HSET": "HLEN"}.get(cmd, "LLEN"), key)
    if size != n:
        raise SystemExit("big-collections-probe: %s has %s members, not %d" % (key, size, n))
    print("build %-6s %9d members  %6.1f s  %10.0f members/s" % (key, n, secs, n / secs))


def mid(rnd, n):  # a random index or rank in the middle half
    return rnd.randrange(n // 4, max(n // 4 + 1, 3 * n // 4))


# op -> (structure, whether the reply must be non-empty, its command on key k of n members)
OPS = {
    "zadd": ("z", False, lambda rnd, k, n: (
        "ZADD", k, rnd.uniform(0, n), "n:%d" % rnd.getrandbits(62))),
    "zrank": ("z", True, lambda rnd, k, n: ("ZRANK", k, "m:%d" % rnd.randrange(n))),
    "zrange": ("z", True, lambda rnd, k, n: (lambda i: ("ZRANGE", k, i, i + 9))(mid(rnd, n))),
    "hset": ("h", False, lambda rnd, k, n: ("HSET", k, "f:%d" % rnd.randrange(2 * n), "v")),
    "hget": ("h", True, lambda rnd, k, n: ("HGET", k, "f:%d" % rnd.randrange(n))),
    "lpush": ("l", False, lambda rnd, k, n: ("LPUSH", k, "x")),
    "lindex": ("l", True, lambda rnd, k, n: ("LINDEX", k, mid(rnd, n))),
}


def repeat(r, rnd, op, key, n, count):
    _, must_hit, command = OPS[op]
    for _ in range(count):
        args = command(rnd, key, n)
        if r.execute_command(*args) in (None, []) and must_hit:
            raise SystemExit("big-collections-probe: %r found nothing" % (args,))


def pinger(port, ready, stop, out):  # PINGs every 1 ms until stop, puts the p99 (ms)
    conn = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    replies, rtts = conn.makefile("rb"), []
    ready.set()
    while not stop.is_set():
        start = time.monotonic()
        conn.sendall(b"PING\r\n")
        if replies.readline() != b"+PONG\r\n":
            raise SystemExit("big-collections-probe: PING got no PONG")
        rtts.append((time.monotonic() - start) * 1000)
        time.sleep(0.001)
    out.put(sorted(rtts)[len(rtts) * 99 // 100])


def delete(port, key):
    """DELs key; returns (DEL round trip ms, PING p99 ms over the DEL and the 10 s after it)."""
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    probe = ctx.Process(target=pinger, args=(port, ready, stop, out), daemon=True)
    probe.start()
    if not ready.wait(10):
        raise SystemExit("big-collections-probe: the PING client did not connect")
    start = time.monotonic()
    if connect(port).delete(key) != 1:
        raise SystemExit("big-collections-probe: DEL %s deleted nothing" % key)
    del_ms = (time.monotonic() - start) * 1000
    time.sleep(DEL_WINDOW_S)
    stop.set()
    probe.join(TIMEOUT_S)
    if probe.exitcode != 0:
        raise SystemExit("big-collections-probe: the PING client failed")
    return del_ms, out.get(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    for name, default in (("port", None), ("pid", None), ("members", 10000000),
                          ("small", 1000), ("ops", 20000), ("clients", 8)):
        ap.add_argument("--" + name, type=int, default=default, required=default is None)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()

    for size, prefix in ((a.members, "big"), (a.small, "small")):
        for cmd, s in (("ZADD", "z"), ("HSET", "h"), ("RPUSH", "l")):
            step("building %s%s (%d members)" % (prefix, s, size))
            build(a.port, cmd, prefix + s, size, a.clients)
    disk_mb = int(subprocess.check_output(["du", "-sm", a.dir]).split()[0])

    print("\n| op | ops/s at %d | ops/s at %d | big/small |\n|---|---|---|---|" % (a.small, a.members))
    ratios = []
    for op, (s, _, _) in OPS.items():
        step("%s: %d ops on small%s, then on big%s" % (op, a.ops, s, s))
        small, big = (a.ops / parallel(a.port, repeat, [
            (op, prefix + s, n, a.ops * (j + 1) // a.clients - a.ops * j // a.clients)
            for j in range(a.clients)]) for prefix, n in (("small", a.small), ("big", a.members)))
        ratios.append(big / small)
        print("| %s | %.0f | %.0f | %.2f |" % (op, small, big, big / small), flush=True)

    print("\n| DEL | ms | PING p99 ms (DEL + %d s) |\n|---|---|---|" % DEL_WINDOW_S)
    dels = []
    for s in "zhl":
        step("DEL big%s, PINGs for %d s" % (s, DEL_WINDOW_S))
        dels.append(delete(a.port, "big" + s))
        print("| big%s | %.1f | %.1f |" % (s, *dels[-1]), flush=True)

    with open("/proc/%d/status" % a.pid) as f:
        hwm_kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    print("\n(members=%d small=%d ops=%d clients=%d; peak RSS %d MB, disk after build %d MB)"
          % (a.members, a.small, a.ops, a.clients, hwm_kb // 1024, disk_mb))
    print("RESULT big_op_ratio_min=%.2f big_del_ms_max=%.1f big_ping_p99_ms=%.1f "
          "big_rss_mb=%d big_disk_mb=%d" % (min(ratios), max(d for d, _ in dels),
                                            max(p for _, p in dels), hwm_kb // 1024, disk_mb))


if __name__ == "__main__":
    main()
