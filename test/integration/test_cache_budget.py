"""maxmemory-cache: the value, bucket page and chunk caches of every slot share one budget that
CONFIG SET changes live; INFO reports the cache sizes and hit ratios."""

import pytest

from conftest import wait_until

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
