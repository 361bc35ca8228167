#!/usr/bin/env python3
"""Measures how far a replica trails its master: the delay until a write shows on the replica.

    scripts/repl-lag-probe.py --master M --replica R

Every 10 ms, until SIGTERM or SIGINT, SETs a fresh key (lagprobe:<n>) on the master, then GETs
it from the replica every 0.2 ms until it is there (at most 30 s, else exit 1). Prints one line
`samples p50_ms p99_ms max_ms` of those delays (from the SET's reply to the replica having it).
Plain sockets, one connection to each server.
"""

import argparse
import signal
import socket
import sys
import time


def command(conn, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    conn.sendall(out)
    reply = b""
    while not reply.endswith(b"\r\n") or (reply.startswith(b"$") and reply.count(b"\r\n") < 2
                                         and not reply.startswith(b"$-1")):
        chunk = conn.recv(4096)
        if not chunk:
            sys.exit("connection closed")
        reply += chunk
    return reply


def connect(port):
    conn = socket.create_connection(("127.0.0.1", port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--master", type=int, required=True)
    parser.add_argument("--replica", type=int, required=True)
    args = parser.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    master, replica = connect(args.master), connect(args.replica)
    delays = []
    n = 0
    while not stop:
        key = "lagprobe:%d" % n
        n += 1
        command(master, "SET", key, "1")
        start = time.monotonic()
        while command(replica, "GET", key).startswith(b"$-1"):
            if time.monotonic() - start > 30:
                sys.exit("the replica never got %s" % key)
            time.sleep(0.0002)
        delays.append((time.monotonic() - start) * 1000)
        time.sleep(0.01)
    delays.sort()
    if not delays:
        print("0 0 0 0")
        return
    pick = lambda q: delays[min(len(delays) - 1, int(q * len(delays)))]
    print("%d %.2f %.2f %.2f" % (len(delays), pick(0.5), pick(0.99), delays[-1]))


if __name__ == "__main__":
    main()
