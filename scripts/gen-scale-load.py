#!/usr/bin/env python3
"""Writes N `SET key:<id> <value>` commands as RESP to standard output, for redis-cli --pipe.

    scripts/gen-scale-load.py --keys N

Key i (0..N-1) is `key:%012d`, the name redis-benchmark -t get/set uses for key:__rand_int__
(12 zero-padded digits), so `redis-benchmark -r N -t get` reads existing keys only. The value of
key i is 200 pseudo-random letters and digits (64 symbols: ~6 bits per byte, so compression gains
little) that depend on i mod 100000 only; the output depends on N only.

Speed: every command has the same length, so one block of 100000 commands (ids 0..99999) is
built once, and each block of 100000 ids is that block with its upper 7 id digits rewritten in
place (7 strided slice assignments): several million commands per second on one core.
"""

import argparse
import hashlib
import sys

BLOCK = 100000  # ids per block: the lower 5 digits of an id are its index in the block
VALUE_BYTES = 200
ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
PREFIX = b"*3\r\n$3\r\nSET\r\n$16\r\nkey:"
MIDDLE = b"\r\n$%d\r\n" % VALUE_BYTES
RECORD = len(PREFIX) + 12 + len(MIDDLE) + VALUE_BYTES + 2


def first_block(keys):
    """The commands of ids 0..keys-1 (keys <= BLOCK)."""
    # Maps every byte to one of the 64 symbols (256 = 4 x 64: uniform).
    text = bytes.maketrans(bytes(range(256)), ALPHABET * 4)
    values = hashlib.shake_128(b"slotkv scale").digest(keys * VALUE_BYTES).translate(text)
    return bytearray(b"".join([PREFIX + b"%012d" % i + MIDDLE +
                               values[i * VALUE_BYTES:(i + 1) * VALUE_BYTES] + b"\r\n"
                               for i in range(keys)]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, required=True)
    args = parser.parse_args()
    if not 0 < args.keys < 10**12:
        parser.error("--keys must be between 1 and 10^12 - 1 (12-digit ids)")

    block = first_block(min(args.keys, BLOCK))
    out = sys.stdout.buffer
    for start in range(0, args.keys, BLOCK):
        for k, digit in enumerate(b"%07d" % (start // BLOCK)):
            block[len(PREFIX) + k::RECORD] = bytes([digit]) * (len(block) // RECORD)
        out.write(memoryview(block)[:min(BLOCK, args.keys - start) * RECORD])
    out.flush()


if __name__ == "__main__":
    main()
