#!/usr/bin/python3
"""Per-op latency of stream writes against a consumer group's pending-entries list (PEL) of
growing size, for scripts/bench-stream-pel.sh.

  stream-pel-probe.py PORT SIZES OPS

For each PEL size P in SIZES (comma-separated): a fresh stream of P entries (XADD, pipelined),
a group read whole by one consumer (XREADGROUP COUNT P: the PEL holds P), then OPS single XACKs
of pending entries spread over the PEL, OPS XADDs, OPS XCLAIMs to a second consumer and OPS
XPENDING of 10 from a random ID, each one round trip, timed from the client. Prints one line
per size: "P xack_ms xadd_ms xclaim_ms xpending_ms" (medians), after checking the PEL count.
"""
import random
import statistics
import sys
import time

import redis


def timed(fn, n):
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def main():
    port, sizes, ops = int(sys.argv[1]), [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
    r = redis.Redis(port=port, socket_timeout=600)
    r.response_callbacks.clear()  # raw replies
    rng = random.Random(1)
    for size in sizes:
        key = "pel:%d" % size
        r.delete(key)
        pipe = r.pipeline(transaction=False)
        for i in range(1, size + 1):
            pipe.execute_command("XADD", key, "%d-1" % i, "f", "v%d" % i)
            if len(pipe) == 1000:
                pipe.execute()
        pipe.execute()
        r.execute_command("XGROUP", "CREATE", key, "g", "0")
        got = r.execute_command("XREADGROUP", "GROUP", "g", "alice", "COUNT", size,
                                "STREAMS", key, ">")
        assert len(got[0][1]) == size, "read %d of %d" % (len(got[0][1]), size)
        ids = rng.sample(range(1, size + 1), 3 * ops) if 3 * ops <= size else None
        assert ids is not None, "OPS too large for the PEL size"
        xack = timed(lambda i: r.execute_command("XACK", key, "g", "%d-1" % ids[i]), ops)
        xadd = timed(lambda i: r.execute_command("XADD", key, "*", "f", "new"), ops)
        xclaim = timed(lambda i: r.execute_command("XCLAIM", key, "g", "bob", 0,
                                                   "%d-1" % ids[ops + i]), ops)
        xpending = timed(lambda i: r.execute_command(
            "XPENDING", key, "g", "%d-1" % rng.randint(1, size), "+", 10), ops)
        pending = r.execute_command("XPENDING", key, "g")[0]
        assert pending == size - ops, "PEL %d, want %d" % (pending, size - ops)
        print(size, "%.3f" % xack, "%.3f" % xadd, "%.3f" % xclaim, "%.3f" % xpending, flush=True)
        r.delete(key)


if __name__ == "__main__":
    main()
