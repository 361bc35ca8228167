"""Reads that miss the OS page cache (io-uring yes, the default): a read-only command whose
reads would wait is parked while its regions are fetched through the worker's io_uring, then run
again. Replies stay right and in order; a write after a parked read waits for it."""

import os
import random

import pytest

from conftest import info_stat

pytestmark = pytest.mark.slotkv_only

KEYS = 3000
LONG = [random.Random(i).randbytes(1000) for i in range(KEYS)]  # chunk values
SHORT = [b"s%d" % i for i in range(KEYS)]  # inline in the bucket cells


def evict(data_dir):
    """Drops the data files from the OS page cache; False when they stay cached (tmpfs)."""
    missed = False
    for root, _, files in os.walk(data_dir):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                if os.fstat(fd).st_size >= 4096:
                    try:
                        os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
                    except BlockingIOError:
                        missed = True
            finally:
                os.close(fd)
    return missed


def loaded(make_server, *args):
    """A server holding the keys on disk only: loaded, persisted, restarted (caches empty) with
    a 1 MB cache, and its files dropped from the page cache."""
    srv = make_server(extra_args=["--maxmemory-cache", "1mb", "--appendfsync", "everysec", *args])
    r = srv.client()
    pipe = r.pipeline(transaction=False)
    for i in range(KEYS):
        pipe.execute_command("SET", "long:%d" % i, LONG[i])
        pipe.execute_command("SET", "short:%d" % i, SHORT[i])
    pipe.execute()
    assert r.execute_command("SAVE") == b"OK"
    srv.restart()
    if not evict(srv.dir):
        pytest.skip("the data files stay in the page cache on this file system")
    return srv, srv.client()


def test_pipelined_cold_gets_read_right(make_server):
    srv, r = loaded(make_server)
    order = list(range(KEYS))
    random.Random(7).shuffle(order)
    pipe = r.pipeline(transaction=False)
    for i in order:
        pipe.execute_command("GET", "long:%d" % i)
        pipe.execute_command("GET", "short:%d" % i)
        pipe.execute_command("STRLEN", "long:%d" % i)
    got = pipe.execute()
    expected = []
    for i in order:
        expected += [LONG[i], SHORT[i], len(LONG[i])]
    assert got == expected
    assert info_stat(r, "slotkv_read_waits") > 0
    assert info_stat(r, "slotkv_async_reads") > 0
    assert info_stat(r, "keyspace_hits") == 3 * KEYS  # a parked command is counted once


def test_write_after_parked_read_waits_for_it(make_server):
    srv, r = loaded(make_server)
    pipe = r.pipeline(transaction=False)
    for i in range(0, KEYS, 3):
        pipe.execute_command("GET", "long:%d" % i)
        pipe.execute_command("SET", "long:%d" % i, b"new%d" % i)
        pipe.execute_command("GET", "long:%d" % i)
        pipe.execute_command("DEL", "short:%d" % i)
        pipe.execute_command("EXISTS", "short:%d" % i)
    got = pipe.execute()
    expected = []
    for i in range(0, KEYS, 3):
        expected += [LONG[i], b"OK", b"new%d" % i, 1, 0]
    assert got == expected
    assert info_stat(r, "slotkv_read_waits") > 0


def check_clients(srv, count, requests):
    """Queues requests(c), a list of (command, expected reply), on each of `count` new clients,
    sends every pipeline, then checks the replies."""
    sent = []
    for c in range(count):
        pipe = srv.client().pipeline(transaction=False)
        pairs = requests(c)
        for command, _ in pairs:
            pipe.execute_command(*command)
        sent.append((pipe, [reply for _, reply in pairs]))
    for pipe, replies in sent:
        assert pipe.execute() == replies


def test_cold_reads_of_many_clients(make_server):
    srv, _ = loaded(make_server)
    check_clients(srv, 8, lambda c: [(("GET", "long:%d" % i), LONG[i]) for i in range(c, KEYS, 8)])


def test_cold_mget_is_fetched_through_the_ring(make_server):
    srv, r = loaded(make_server)
    r.execute_command("RPUSH", "list", "x")  # another type: nil, as in Redis
    picked = random.Random(11).sample(range(KEYS), 400)
    keys, expected = [], []
    for i in picked:
        keys += ["long:%d" % i, "short:%d" % i]
        expected += [LONG[i], SHORT[i]]
    keys += ["missing", "list"]
    expected += [None, None]
    hits = info_stat(r, "keyspace_hits")
    assert r.execute_command("MGET", *keys) == expected
    assert info_stat(r, "slotkv_read_waits") > 0
    assert info_stat(r, "slotkv_async_reads") > 0
    # A slot's step that waited for the ring is counted once, when it reads.
    assert info_stat(r, "keyspace_hits") - hits == 2 * len(picked) + 1


def test_cold_exists_is_fetched_through_the_ring(make_server):
    srv, r = loaded(make_server)
    picked = random.Random(12).sample(range(KEYS), 300)
    keys = ["long:%d" % i for i in picked] + ["missing:%d" % i for i in range(50)]
    keys += ["long:%d" % picked[0]]  # named twice: counted twice, as in Redis
    hits = info_stat(r, "keyspace_hits")
    assert r.execute_command("EXISTS", *keys) == len(picked) + 1
    assert info_stat(r, "slotkv_read_waits") > 0
    assert info_stat(r, "keyspace_hits") - hits == len(picked) + 1
    assert r.execute_command("TOUCH", *keys[:20]) == 20


def test_cold_mgets_of_many_clients_beside_gets(make_server):
    srv, _ = loaded(make_server)

    def requests(c):
        pairs = []
        for i in range(c, KEYS, 60):
            ten = range(i, min(i + 10, KEYS))
            pairs.append((["MGET"] + ["long:%d" % j for j in ten], [LONG[j] for j in ten]))
            pairs.append((("GET", "short:%d" % i), SHORT[i]))
        return pairs

    check_clients(srv, 6, requests)


def test_io_uring_off_reads_wait(make_server):
    srv, r = loaded(make_server, "--io-uring", "no")
    pipe = r.pipeline(transaction=False)
    for i in range(0, KEYS, 7):
        pipe.execute_command("GET", "long:%d" % i)
    pipe.execute_command("MGET", *["long:%d" % i for i in range(0, KEYS, 5)])
    assert pipe.execute() == [LONG[i] for i in range(0, KEYS, 7)] + [
        [LONG[i] for i in range(0, KEYS, 5)]]
    assert info_stat(r, "slotkv_read_waits") == 0
    assert info_stat(r, "slotkv_async_reads") == 0
