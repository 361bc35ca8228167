"""MEMORY USAGE | STATS | DOCTOR | MALLOC-STATS | PURGE | HELP as Redis 7.0.15 gives them: error
texts and their precedence, HELP's lines, the reply shapes in RESP2 and RESP3 (nil, map, `,`
doubles, `=` verbatim text), STATS's field order and the sums that tie its fields together,
USAGE outside the keyspace hit/miss counters, COMMAND GETKEYS and MULTI/EXEC.

slotkv reports its own figures (core/command/memory_command.cc): USAGE is what it stores for a
key, not RAM (the key, a bucket cell's 26 fixed bytes, the value before compression; a paged
collection's root plus its pages, SAMPLES of them read), and STATS adds `slotkv.caches` and
`slotkv.wal-maps` after `functions.caches` where Redis puts its `db.N` maps. The tests that pin
those figures are slotkv_only or branch on is_redis(); every other reply is Redis 7.0.15's.
"""

import pytest

from conftest import NOT_INT, SYNTAX, Error, Simple, arity, err, info_stat, is_redis

UNKNOWN = "ERR unknown subcommand 'foo'. Try MEMORY HELP."
HELP = [
    b"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    b"DOCTOR",
    b"    Return memory problems reports.",
    b"MALLOC-STATS",
    b"    Return internal statistics report from the memory allocator.",
    b"PURGE",
    b"    Attempt to purge dirty pages for reclamation by the allocator.",
    b"STATS",
    b"    Return information about the memory usage of the server.",
    b"USAGE <key> [SAMPLES <count>]",
    b"    Return memory in bytes used by <key> and its value. Nested values are",
    b"    sampled up to <count> times (default: 5, 0 means sample all).",
    b"HELP",
    b"    Prints this help.",
]
# MEMORY STATS fields both servers give, in Redis 7.0's order; Redis puts its db.N maps (slotkv
# its slotkv.* fields) between functions.caches and overhead.total.
STATS_HEAD = ["peak.allocated", "total.allocated", "startup.allocated", "replication.backlog",
              "clients.slaves", "clients.normal", "cluster.links", "aof.buffer", "lua.caches",
              "functions.caches"]
STATS_TAIL = ["overhead.total", "keys.count", "keys.bytes-per-key", "dataset.bytes",
              "dataset.percentage", "peak.percentage", "allocator.allocated", "allocator.active",
              "allocator.resident", "allocator-fragmentation.ratio",
              "allocator-fragmentation.bytes", "allocator-rss.ratio", "allocator-rss.bytes",
              "rss-overhead.ratio", "rss-overhead.bytes", "fragmentation", "fragmentation.bytes"]
DOUBLES = {"dataset.percentage", "peak.percentage", "allocator-fragmentation.ratio",
           "allocator-rss.ratio", "rss-overhead.ratio", "fragmentation"}
CELL_FIXED = 26  # slotkv: a bucket cell's fixed fields


def usage(r, key, *opts):
    return r.execute_command("MEMORY", "USAGE", key, *opts)


def resp3(server):
    c = server.raw()
    assert c.command("HELLO", 3)[b"proto"] == 3
    return c


def stats3(server):
    """MEMORY STATS over RESP3: {name (str): value}, in the server's order."""
    with resp3(server) as c:
        reply = c.command("MEMORY", "STATS")
    assert isinstance(reply, dict)
    return {k.decode(): v for k, v in reply.items()}


def read_verbatim(c, *args):
    """Sends a command on a RESP3 connection; the text of its `=` reply (format prefix kept)."""
    c.send_command(*args)
    line = c.read_line()
    assert line[:1] == b"=", line
    data = c.read_exact(int(line[1:]) + 2)
    assert data.endswith(b"\r\n")
    return data[:-2]


# ---- errors -----------------------------------------------------------------------------------

def test_usage_option_errors_come_before_the_key_lookup(r):
    r.execute_command("SET", "k", "v")
    for key in ("k", "nokey"):
        assert err(r, "MEMORY", "USAGE", key, "SAMPLES", "x") == NOT_INT
        assert err(r, "MEMORY", "USAGE", key, "SAMPLES", "1.5") == NOT_INT
        assert err(r, "MEMORY", "USAGE", key, "SAMPLES", -1) == SYNTAX
        assert err(r, "MEMORY", "USAGE", key, "foo") == SYNTAX
        assert err(r, "MEMORY", "USAGE", key, "SAMPLES") == SYNTAX
        assert err(r, "MEMORY", "USAGE", key, "SAMPLES", 5, "foo") == SYNTAX


def test_arity_and_unknown_subcommands(r):
    assert err(r, "MEMORY", "USAGE") == arity("memory|usage")
    for sub in ("stats", "doctor", "purge", "malloc-stats", "help"):
        assert err(r, "MEMORY", sub.upper(), "x") == arity("memory|" + sub)
    assert err(r, "MEMORY", "foo") == UNKNOWN
    assert err(r, "MEMORY", "foo", "bar") == UNKNOWN
    assert err(r, "MEMORY") == arity("memory")


def test_help_lines(server, r):
    assert r.execute_command("MEMORY", "HELP") == HELP
    assert r.execute_command("memory", "help") == HELP
    with server.raw() as c:
        lines = c.command("MEMORY", "HELP")
    assert lines == HELP and all(isinstance(line, Simple) for line in lines)


# ---- USAGE ------------------------------------------------------------------------------------

def test_usage_of_a_missing_key_is_nil(server, r):
    assert usage(r, "nokey") is None
    assert usage(r, "nokey", "SAMPLES", 0) is None
    with server.raw() as c:
        c.send_command("MEMORY", "USAGE", "nokey")
        c.expect(b"$-1\r\n")
    with resp3(server) as c:
        c.send_command("MEMORY", "USAGE", "nokey")
        c.expect(b"_\r\n")


def test_usage_is_an_integer_for_every_type(r):
    r.execute_command("SET", "s", "hello")
    r.execute_command("RPUSH", "l", "a", "b", "c")
    r.execute_command("HSET", "h", "f", "v", "g", "w")
    r.execute_command("SADD", "set", "a", "b")
    r.execute_command("ZADD", "z", 1, "a", 2, "b")
    for key in ("s", "l", "h", "set", "z"):
        for opts in ((), ("SAMPLES", 0), ("samples", 1), ("SAMPLES", 3, "SAMPLES", 7)):
            n = usage(r, key, *opts)
            assert isinstance(n, int) and n > len(key), (key, opts, n)
    # a string is not sampled: SAMPLES changes nothing
    assert usage(r, "s", "SAMPLES", 0) == usage(r, "s") == usage(r, "s", "SAMPLES", 1)


def test_a_larger_value_uses_more(r):
    r.execute_command("SET", "small", "x" * 10)
    r.execute_command("SET", "large", "x" * 10000)
    assert usage(r, "large") - usage(r, "small") >= 9990
    r.execute_command("HSET", "h10", *[b"f%d" % i for i in range(20)])
    for lo in range(0, 5000, 1000):
        args = []
        for i in range(lo, lo + 1000):
            args += [b"field:%d" % i, b"value:%d" % i]
        r.execute_command("HSET", "h5000", *args)
    assert r.execute_command("HLEN", "h5000") == 5000
    assert usage(r, "h5000") > 5 * usage(r, "h10")
    assert usage(r, "h5000", "SAMPLES", 0) > 5 * usage(r, "h10", "SAMPLES", 0)


def test_usage_counts_no_keyspace_hit_or_miss(r):
    r.execute_command("SET", "k", "v")
    before = (info_stat(r, "keyspace_hits"), info_stat(r, "keyspace_misses"))
    for _ in range(3):
        assert usage(r, "k") > 0
        assert usage(r, "nokey") is None
    assert (info_stat(r, "keyspace_hits"), info_stat(r, "keyspace_misses")) == before
    r.execute_command("GET", "k")
    r.execute_command("GET", "nokey")
    assert info_stat(r, "keyspace_hits") == before[0] + 1
    assert info_stat(r, "keyspace_misses") == before[1] + 1


@pytest.mark.slotkv_only
def test_usage_of_a_string_is_key_plus_cell_plus_value(r):
    for key, value in ((b"k", b"v"), (b"key:1", b"x" * 100), (b"a" * 50, b"y" * 10000),
                       (b"bin", bytes(range(256)))):
        r.execute_command("SET", key, value)
        want = len(key) + CELL_FIXED + len(value)
        assert usage(r, key) == want, key
        assert usage(r, key, "SAMPLES", 0) == want, key
    r.execute_command("APPEND", "k", "zz")
    assert usage(r, "k") == 1 + CELL_FIXED + 3


@pytest.mark.slotkv_only
def test_usage_of_a_paged_set_reads_its_pages(make_server):
    s = make_server(["--paged-collection-threshold", 4, "--paged-page-members", 4])
    r = s.client()
    members = [b"member:%05d" % i for i in range(2000)]
    for lo in range(0, len(members), 500):
        assert r.execute_command("SADD", "big", *members[lo:lo + 500]) == 500
    member_bytes = sum(len(m) for m in members)
    full = usage(r, "big", "SAMPLES", 0)
    assert full >= member_bytes
    assert usage(r, "big", "SAMPLES", 0) == full  # every page read: the same figure
    estimate = usage(r, "big")
    assert full / 3 <= estimate <= full * 3
    assert full / 3 <= usage(r, "big", "SAMPLES", 1) <= full * 3
    # a small set stays one value: far less than the paged one
    r.execute_command("SADD", "small", "a", "b")
    assert usage(r, "small") < 100 < full


# ---- STATS ------------------------------------------------------------------------------------

def test_stats_fields_and_order(server, r):
    r.execute_command("SET", "k", "v")
    names = list(stats3(server))
    middle = ["db.0"] if is_redis() else ["slotkv.caches", "slotkv.wal-maps"]
    assert names == STATS_HEAD + middle + STATS_TAIL
    # the fields common to both servers keep Redis's relative order, keys or no keys
    r.execute_command("FLUSHALL")
    names = list(stats3(server))
    assert [n for n in names if n in STATS_HEAD + STATS_TAIL] == STATS_HEAD + STATS_TAIL
    assert not any(n.startswith("db.") for n in names)


def test_stats_value_types_resp3_and_resp2(server, r):
    stats = stats3(server)
    for name in STATS_HEAD + STATS_TAIL:
        want = float if name in DOUBLES else int
        assert type(stats[name]) is want, (name, stats[name])
    assert stats["clients.normal"] >= 0 and stats["total.allocated"] > 0
    assert stats["replication.backlog"] == stats["clients.slaves"] == 0
    assert stats["cluster.links"] == stats["aof.buffer"] == 0
    flat = r.execute_command("MEMORY", "STATS")  # RESP2: a flat array, doubles as bulk strings
    assert len(flat) % 2 == 0 and flat[0] == b"peak.allocated"
    two = dict(zip(flat[::2], flat[1::2]))
    assert isinstance(two[b"keys.count"], int)
    assert float(two[b"dataset.percentage"]) >= 0 and isinstance(two[b"fragmentation"], bytes)


def approx_ratio(ratio, a, b):
    if b > 0:
        assert ratio == pytest.approx(a / b, rel=1e-4), (ratio, a, b)


def test_stats_fields_add_up(server, r):
    r.execute_command("MSET", "k", "v", "k2", "v")
    s = stats3(server)
    names = list(s)
    parts = names[names.index("startup.allocated"):names.index("overhead.total")]
    total = 0
    for name in parts:
        total += sum(s[name].values()) if isinstance(s[name], dict) else s[name]
    assert s["overhead.total"] == total
    used, startup = s["total.allocated"], s["startup.allocated"]
    assert s["dataset.bytes"] == max(0, used - s["overhead.total"])
    assert s["keys.count"] == 2
    assert s["keys.bytes-per-key"] == max(used - startup, 1) // 2
    approx_ratio(s["dataset.percentage"] / 100, s["dataset.bytes"], used - startup)
    approx_ratio(s["peak.percentage"] / 100, used, s["peak.allocated"])
    allocated, active = s["allocator.allocated"], s["allocator.active"]
    resident = s["allocator.resident"]
    assert s["allocator-fragmentation.bytes"] == active - allocated
    approx_ratio(s["allocator-fragmentation.ratio"], active, allocated)
    assert s["allocator-rss.bytes"] == resident - active
    approx_ratio(s["allocator-rss.ratio"], resident, active)
    rss = resident + s["rss-overhead.bytes"]
    approx_ratio(s["rss-overhead.ratio"], rss, resident)
    approx_ratio(s["fragmentation"], rss, rss - s["fragmentation.bytes"])


def test_stats_keys_count_sums_every_db(server, r):
    r.execute_command("MSET", "a", 1, "b", 2, "c", 3)
    r2 = server.client(db=2)
    r2.execute_command("MSET", "x", 1, "y", 2)
    assert r.execute_command("DBSIZE") + r2.execute_command("DBSIZE") == 5
    assert stats3(server)["keys.count"] == 5
    r2.execute_command("DEL", "x")
    assert stats3(server)["keys.count"] == 4


def test_stats_lua_caches_grow_with_a_loaded_script(server, r):
    r.execute_command("SCRIPT", "FLUSH")
    before = stats3(server)["lua.caches"]
    body = "return 1 --" + "x" * 20000
    r.execute_command("SCRIPT", "LOAD", body)
    assert stats3(server)["lua.caches"] - before >= len(body)
    r.execute_command("SCRIPT", "FLUSH")
    assert stats3(server)["lua.caches"] < len(body)


# ---- DOCTOR, MALLOC-STATS, PURGE --------------------------------------------------------------

def test_doctor_is_text_for_sam(server, r):
    report = r.execute_command("MEMORY", "DOCTOR")
    assert isinstance(report, bytes) and b"Sam" in report and report.endswith(b"\n")
    with resp3(server) as c:
        text = read_verbatim(c, "MEMORY", "DOCTOR")
    assert text.startswith(b"txt:") and b"Sam" in text


def test_malloc_stats_is_text(server, r):
    accepted = (b"___ Begin jemalloc statistics ___", b"Stats not supported for the current")
    assert r.execute_command("MEMORY", "MALLOC-STATS").startswith(accepted)
    with resp3(server) as c:
        text = read_verbatim(c, "MEMORY", "MALLOC-STATS")
    assert text.startswith(b"txt:") and text[4:].startswith(accepted)


def test_purge_replies_ok(server, r):
    with server.raw() as c:
        c.send_command("MEMORY", "PURGE")
        c.expect(b"+OK\r\n")
    assert r.execute_command("MEMORY", "purge") == b"OK"


# ---- GETKEYS, MULTI ---------------------------------------------------------------------------

def test_command_getkeys_names_the_usage_key(r):
    assert r.execute_command("COMMAND", "GETKEYS", "MEMORY", "USAGE", "k") == [b"k"]
    assert r.execute_command("COMMAND", "GETKEYS", "MEMORY", "USAGE", "k", "SAMPLES", 3) == [b"k"]


def test_usage_inside_multi_exec(server, r):
    r.execute_command("SET", "k", "v")
    with server.raw() as c:
        assert c.command("MULTI") == b"OK"
        for args in (("MEMORY", "USAGE", "k"), ("MEMORY", "USAGE", "nokey"),
                     ("MEMORY", "USAGE", "k", "SAMPLES", "x")):
            assert c.command(*args) == b"QUEUED"
        got = c.command("EXEC")
    assert got == [usage(r, "k"), None, Error(NOT_INT.encode())] and got[0] > 0
