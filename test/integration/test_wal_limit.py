"""wal-max-bytes: the unpersisted WAL of a database stays near its budget (split over its slots),
and what was written reads back, also after a restart that replays the log."""

import random

import pytest

pytestmark = pytest.mark.slotkv_only

KEYS = 10000
VALUE = 4000  # 40 MB in all, spread so thinly over the groups that none fills up on its own
# Incompressible, so that the WAL holds all of it.
VALUES = [random.Random(i).randbytes(VALUE) for i in range(KEYS)]


def value(i):
    return VALUES[i]


def wal_bytes(r):
    for line in r.execute_command("INFO", "persistence").decode().splitlines():
        if line.startswith("slotkv_wal_bytes:"):
            return int(line.split(":", 1)[1])
    raise AssertionError("no slotkv_wal_bytes in INFO persistence")


def load(r):
    pipe = r.pipeline(transaction=False)
    for i in range(KEYS):
        pipe.execute_command("SET", f"k:{i}", value(i))
        if i % 1000 == 999:
            pipe.execute()
    pipe.execute()


def check(r):
    for start in range(0, KEYS, 500):
        keys = [f"k:{i}" for i in range(start, start + 500)]
        got = r.execute_command("MGET", *keys)
        assert got == [value(i) for i in range(start, start + 500)]


def test_wal_stays_near_its_budget(make_server):
    # 4 slots: 4 MB of WAL each (log files of 1 MB).
    srv = make_server(extra_args=["--slots", "4", "--wal-max-bytes", "16mb"])
    r = srv.client()
    load(r)
    assert wal_bytes(r) < 26 << 20
    check(r)
    srv.restart()
    r = srv.client()
    check(r)


def test_default_budget_keeps_the_whole_load_in_the_wal(make_server):
    # The contrast: with the default 256 MB (64 MB a slot) the same load is not persisted early.
    srv = make_server(extra_args=["--slots", "4"])
    r = srv.client()
    load(r)
    assert wal_bytes(r) > 35 << 20


def test_wal_max_bytes_is_fixed_at_startup(make_server):
    srv = make_server(extra_args=["--wal-max-bytes", "64mb"])
    r = srv.client()
    assert r.execute_command("CONFIG", "GET", "wal-max-bytes") == [b"wal-max-bytes", b"67108864"]
    with pytest.raises(Exception) as e:
        r.execute_command("CONFIG", "SET", "wal-max-bytes", "32mb")
    assert "can't set immutable config" in str(e.value)
