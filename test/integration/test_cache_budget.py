"""maxmemory-cache: the value, bucket page and chunk caches of every slot share one budget that
CONFIG SET changes live, divided among the slots by their use; INFO reports the cache sizes and
hit ratios, the admin API each slot's share."""

import json
import random
import urllib.request

import pytest

from conftest import start_http_server, wait_until

pytestmark = pytest.mark.slotkv_only


def info(r, section):
    text = r.execute_command("INFO", section).decode()
    out = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


def test_budget_shrinks_live_and_reads_stay_right(make_server):
    srv = make_server(extra_args=["--maxmemory-cache", "64mb"])
    r = srv.client()
    values = {f"user:{i}": (f"{i}:" + "x" * 900).encode() for i in range(3000)}
    pipe = r.pipeline(transaction=False)
    for k, v in values.items():
        pipe.execute_command("SET", k, v)
    pipe.execute()
    r.execute_command("SAVE")  # values move to chunks and bucket pages
    for _ in range(2):
        got = r.execute_command("MGET", *values.keys())
        assert got == list(values.values())
    mem = info(r, "memory")
    assert int(mem["slotkv_maxmemory_cache"]) == 64 << 20
    before = int(mem["slotkv_cache_bytes"])
    assert before > 1 << 20
    assert before == (int(mem["slotkv_value_cache_bytes"]) + int(mem["slotkv_bucket_cache_bytes"])
                      + int(mem["slotkv_chunk_cache_bytes"]))
    stats = info(r, "stats")
    for cache in ("value", "bucket", "chunk"):
        assert 0.0 <= float(stats[f"slotkv_{cache}_cache_hit_ratio"]) <= 1.0
    assert float(stats["slotkv_value_cache_hit_ratio"]) > 0

    assert r.execute_command("CONFIG", "SET", "maxmemory-cache", "1mb") == b"OK"
    assert r.execute_command("CONFIG", "GET", "maxmemory-cache") == [b"maxmemory-cache",
                                                                      b"1048576"]
    # Every slot adopts its share within a second (the periodic commit), at the latest.
    assert wait_until(lambda: int(info(r, "memory")["slotkv_cache_bytes"]) <= 1 << 20,
                      timeout=5.0)
    got = r.execute_command("MGET", *values.keys())
    assert got == list(values.values())
    assert int(info(r, "memory")["slotkv_cache_bytes"]) <= 1 << 20


def test_bad_budgets_are_refused(r):
    for bad in ("0", "-1", "abc", "100"):
        with pytest.raises(Exception) as e:
            r.execute_command("CONFIG", "SET", "maxmemory-cache", bad)
        assert "maxmemory-cache" in str(e.value)


def test_write_amplification_is_reported(r):
    for i in range(100):
        r.execute_command("SET", f"k{i}", "v" * 100)
    amp = float(info(r, "persistence")["slotkv_write_amplification"])
    assert amp > 0


def slot_list(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/slots" % port, timeout=10) as resp:
        return json.loads(resp.read())["slot_list"]


def test_budget_follows_use(make_server):
    srv = start_http_server(make_server, "--maxmemory-cache", "16mb")
    port = srv.http_port
    r = srv.client()
    # Every slot takes a share (an equal 1 MB of 16 at first) ...
    for i in range(300):
        r.execute_command("SET", f"spread:{i}", "x")
    # ... and one holds a hash of ~2.5 MB of random bytes (paged), persisted to its files.
    rng = random.Random(5)
    fields = {f"f:{i}".encode(): rng.randbytes(200) for i in range(10000)}
    pipe = r.pipeline(transaction=False)
    items = list(fields.items())
    for n in range(0, len(items), 500):
        pipe.execute_command("HSET", "big", *[x for kv in items[n:n + 500] for x in kv])
    pipe.execute()
    r.execute_command("SAVE")
    slots = slot_list(port)
    hot = max(range(len(slots)), key=lambda s: slots[s]["user_bytes_written"])
    equal = (16 << 20) // len(slots)

    names = list(fields)

    def read_round():
        pipe = r.pipeline(transaction=False)
        picks = rng.sample(names, 2000)
        for f in picks:
            pipe.execute_command("HGET", "big", f)
        assert pipe.execute() == [fields[f] for f in picks]

    # Reading it all the time, its slot takes most of the budget within seconds (the others
    # give up an eighth of theirs a second), and then its reads stop going to the files.
    def settled():
        before = slot_list(port)[hot]["bucket_cache_misses"]
        read_round()
        after = slot_list(port)[hot]
        return after["cache_budget_bytes"] > 2 * equal and \
            after["bucket_cache_misses"] - before < 20  # of 2000 reads
    assert wait_until(settled, timeout=40.0, interval=0.1), slot_list(port)[hot]
    # Each worker's slots adopt a division within a second of the other's (at the periodic
    # commit), so the sum may pass the budget by a step until both have.
    def budgets():
        return [s["cache_budget_bytes"] for s in slot_list(port)]
    assert wait_until(lambda: sum(budgets()) <= 16 << 20, timeout=5.0, interval=0.05), budgets()
    assert all(s["cache_budget_bytes"] >= equal // 4 for s in slot_list(port))
