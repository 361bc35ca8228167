#!/usr/bin/env python3
"""Measures how long other clients wait while a server is busy (e.g. during a bulk load).

    scripts/ping-probe.py --port P

Sends PING every 10 ms on one connection until SIGTERM or SIGINT, then prints one line
`samples p50_ms p99_ms max_ms` (round-trip times of the PINGs). A plain socket: the reply of
each PING is read before the next is sent.
"""

import argparse
import signal
import socket
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    conn = socket.create_connection(("127.0.0.1", args.port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtts = []
    while not stop:
        start = time.monotonic()
        conn.sendall(b"PING\r\n")
        reply = b""
        while not reply.endswith(b"\r\n"):
            try:
                chunk = conn.recv(64)
            except InterruptedError:
                continue
            if not chunk:
                raise SystemExit("ping-probe: the server closed the connection")
            reply += chunk
        if reply != b"+PONG\r\n":
            raise SystemExit("ping-probe: unexpected reply %r" % reply)
        rtts.append((time.monotonic() - start) * 1000)
        time.sleep(0.01)
    rtts.sort()
    if not rtts:
        print("0 - - -")
        return

    def pct(p):
        return rtts[min(len(rtts) - 1, int(len(rtts) * p / 100))]

    print("%d %.1f %.1f %.1f" % (len(rtts), pct(50), pct(99), rtts[-1]))


if __name__ == "__main__":
    main()
