"""Server commands: INFO TIME DBSIZE CONFIG SLOWLOG LASTSAVE SAVE BGSAVE BGREWRITEAOF COMMAND
SHUTDOWN."""

import fnmatch
import os
import re
import time

import pytest

from conftest import arity, err, is_redis, is_redis_aof, wait_until


def config_get(r, *patterns):
    reply = r.execute_command("CONFIG", "GET", *patterns)
    assert isinstance(reply, list) and len(reply) % 2 == 0
    out = dict(zip(reply[0::2], reply[1::2]))
    assert len(out) == len(reply) // 2  # no name twice
    return out


# ---- INFO ----------------------------------------------------------------------------------------

def test_info_default_has_main_sections(r):
    text = r.execute_command("INFO")
    assert isinstance(text, bytes)
    assert text.startswith(b"# Server\r\n")
    for section in (b"# Server", b"# Clients", b"# Memory", b"# Persistence", b"# Stats",
                    b"# Replication", b"# Keyspace"):
        assert section + b"\r\n" in text
    for line in text.split(b"\r\n"):
        assert line == b"" or line.startswith(b"# ") or re.fullmatch(rb"[a-z0-9_|]+:.*", line,
                                                                       re.I), line


def test_info_server(rp, server):
    info = rp.info("server")
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(info["redis_version"]))
    assert info["tcp_port"] == server.port
    assert info["process_id"] == server.proc.pid
    assert isinstance(info["uptime_in_seconds"], int)


def test_info_clients(rp, server):
    before = rp.info("clients")["connected_clients"]
    with server.raw() as a, server.raw() as b:
        a.command("PING")
        b.command("PING")
        assert rp.info("clients")["connected_clients"] == before + 2
    assert wait_until(lambda: rp.info("clients")["connected_clients"] == before)


def test_info_memory(rp):
    info = rp.info("memory")
    assert isinstance(info["used_memory"], int) and info["used_memory"] > 0
    for name in ("allocator_allocated", "allocator_active", "allocator_resident",
                 "allocator_frag_bytes", "allocator_rss_bytes", "rss_overhead_bytes",
                 "mem_fragmentation_bytes"):
        assert isinstance(info[name], int), name
    for name in ("allocator_frag_ratio", "allocator_rss_ratio", "rss_overhead_ratio",
                 "mem_fragmentation_ratio"):
        assert isinstance(info[name], float), name
    if info["mem_allocator"] == "jemalloc":
        # What the allocator handed out, as Redis reports it; its pages hold that and more.
        assert info["allocator_allocated"] > 0
        assert info["allocator_allocated"] <= info["allocator_active"] <= \
            info["allocator_resident"]
        assert info["allocator_frag_ratio"] >= 1.0
        assert info["used_memory"] < info["used_memory_rss"]
    else:  # the sanitizer build: no allocator figures, used_memory is the RSS
        assert info["allocator_allocated"] == info["allocator_resident"] == 0


def test_info_persistence_and_replication(rp):
    persistence = rp.info("persistence")
    assert persistence["loading"] == 0
    assert "rdb_last_save_time" in persistence
    replication = rp.info("replication")
    assert replication["role"] == "master"
    assert replication["connected_slaves"] == 0


def test_info_stats_counts_commands(rp):
    before = rp.info("stats")["total_commands_processed"]
    for _ in range(10):
        rp.execute_command("PING")
    after = rp.info("stats")["total_commands_processed"]
    assert after >= before + 10
    assert "total_connections_received" in rp.info("stats")


@pytest.mark.slotkv_only(redis_aof=False)
@pytest.mark.slotkv_only
def test_threads_are_named(server):
    """Workers and the dictionary trainer carry names that top -H and perf show."""
    tasks = f"/proc/{server.proc.pid}/task"
    names = set()
    for tid in os.listdir(tasks):
        with open(f"{tasks}/{tid}/comm") as f:
            names.add(f.read().strip())
    assert {"slotkv-w0", "slotkv-train"} <= names


def test_info_loop_lag_shows_a_long_handler(rp):
    """slotkv_loop_lag_max_us: how late a worker's 10 ms probe timer fired at most; a script
    that keeps its worker busy for a while shows in it, and CONFIG RESETSTAT clears it."""
    rp.execute_command("CONFIG", "RESETSTAT")
    start = time.monotonic()
    rp.execute_command("EVAL", "local i = 0 while i < 20000000 do i = i + 1 end return i", 0)
    busy_us = (time.monotonic() - start) * 1e6
    assert wait_until(lambda: rp.info("stats")["slotkv_loop_lag_max_us"] >= busy_us / 2)
    rp.execute_command("CONFIG", "RESETSTAT")
    assert rp.info("stats")["slotkv_loop_lag_max_us"] < busy_us / 2


def test_info_keyspace(rp):
    assert rp.info("keyspace") == {}
    for i in range(7):
        rp.execute_command("SET", "k%d" % i, "v")
    rp.execute_command("EXPIRE", "k0", "100")
    rp.execute_command("SELECT", "3")
    rp.execute_command("SET", "x", "v")
    rp.execute_command("SELECT", "0")
    info = rp.info("keyspace")
    assert info["db0"]["keys"] == 7
    # slotkv does not count keys with a TTL (docs/server.md, "Where slotkv differs").
    assert info["db0"]["expires"] == (1 if is_redis() else 0)
    assert info["db3"]["keys"] == 1
    assert set(info) == {"db0", "db3"}


def test_info_commandstats_after_resetstat(rp):
    assert rp.execute_command("CONFIG", "RESETSTAT") in (True, b"OK")
    for i in range(3):
        rp.execute_command("SET", "cs%d" % i, "v")
    rp.execute_command("GET", "cs0")
    stats = rp.info("commandstats")
    assert stats["cmdstat_set"]["calls"] == 3
    assert stats["cmdstat_get"]["calls"] == 1
    assert "usec" in stats["cmdstat_set"]
    rp.execute_command("CONFIG", "RESETSTAT")
    assert "cmdstat_set" not in rp.info("commandstats")


def test_info_commandstats_of_subcommands(r):
    """Redis 7 counts a container's calls for its subcommand (cmdstat_config|get), refusals too,
    and LATENCY HISTOGRAM names it so."""
    r.execute_command("CONFIG", "SET", "latency-tracking", "yes")
    r.execute_command("CONFIG", "RESETSTAT")
    r.execute_command("CONFIG", "GET", "maxmemory")
    r.execute_command("CONFIG", "GET", "hz")
    assert err(r, "CONFIG", "SET", "maxmemory") == arity("config|set")
    r.execute_command("CLIENT", "ID")
    text = r.execute_command("INFO", "commandstats").decode()
    lines = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    assert lines["cmdstat_config|get"].startswith("calls=2,")
    assert lines["cmdstat_config|set"].startswith("calls=0,")
    assert ",rejected_calls=1," in lines["cmdstat_config|set"]
    assert lines["cmdstat_client|id"].startswith("calls=1,")
    assert "cmdstat_config" not in lines and "cmdstat_client" not in lines
    # A container stands for its subcommands called (RESETSTAT counts itself): config|get
    # comes twice. (Redis lists subcommands in its hash table's order.)
    hist = r.execute_command("LATENCY", "HISTOGRAM", "config|get", "config")
    assert hist[0] == b"config|get" and hist[1][:2] == [b"calls", 2]
    assert sorted(hist[2::2]) == [b"config|get", b"config|resetstat"]


# Every field redis-server 7.0.15 prints in INFO everything (a master without replicas, no
# keys), in its order; per-command, per-error and per-db lines left out.
REDIS_INFO_FIELDS = {
    "Server": (
        "redis_version redis_git_sha1 redis_git_dirty redis_build_id redis_mode os arch_bits "
        "monotonic_clock multiplexing_api atomicvar_api gcc_version process_id process_supervised "
        "run_id tcp_port server_time_usec uptime_in_seconds uptime_in_days hz configured_hz "
        "lru_clock executable config_file io_threads_active"
    ),
    "Clients": (
        "connected_clients cluster_connections maxclients client_recent_max_input_buffer "
        "client_recent_max_output_buffer blocked_clients tracking_clients "
        "clients_in_timeout_table"
    ),
    "Memory": (
        "used_memory used_memory_human used_memory_rss used_memory_rss_human used_memory_peak "
        "used_memory_peak_human used_memory_peak_perc used_memory_overhead used_memory_startup "
        "used_memory_dataset used_memory_dataset_perc allocator_allocated allocator_active "
        "allocator_resident total_system_memory total_system_memory_human used_memory_lua "
        "used_memory_vm_eval used_memory_lua_human used_memory_scripts_eval "
        "number_of_cached_scripts number_of_functions number_of_libraries "
        "used_memory_vm_functions used_memory_vm_total used_memory_vm_total_human "
        "used_memory_functions used_memory_scripts used_memory_scripts_human maxmemory "
        "maxmemory_human maxmemory_policy allocator_frag_ratio allocator_frag_bytes "
        "allocator_rss_ratio allocator_rss_bytes rss_overhead_ratio rss_overhead_bytes "
        "mem_fragmentation_ratio mem_fragmentation_bytes mem_not_counted_for_evict "
        "mem_replication_backlog mem_total_replication_buffers mem_clients_slaves "
        "mem_clients_normal mem_cluster_links mem_aof_buffer mem_allocator active_defrag_running "
        "lazyfree_pending_objects lazyfreed_objects"
    ),
    "Persistence": (
        "loading async_loading current_cow_peak current_cow_size current_cow_size_age "
        "current_fork_perc current_save_keys_processed current_save_keys_total "
        "rdb_changes_since_last_save rdb_bgsave_in_progress rdb_last_save_time "
        "rdb_last_bgsave_status rdb_last_bgsave_time_sec rdb_current_bgsave_time_sec rdb_saves "
        "rdb_last_cow_size rdb_last_load_keys_expired rdb_last_load_keys_loaded aof_enabled "
        "aof_rewrite_in_progress aof_rewrite_scheduled aof_last_rewrite_time_sec "
        "aof_current_rewrite_time_sec aof_last_bgrewrite_status aof_rewrites "
        "aof_rewrites_consecutive_failures aof_last_write_status aof_last_cow_size "
        "module_fork_in_progress module_fork_last_cow_size"
    ),
    "Stats": (
        "total_connections_received total_commands_processed instantaneous_ops_per_sec "
        "total_net_input_bytes total_net_output_bytes total_net_repl_input_bytes "
        "total_net_repl_output_bytes instantaneous_input_kbps instantaneous_output_kbps "
        "instantaneous_input_repl_kbps instantaneous_output_repl_kbps rejected_connections "
        "sync_full sync_partial_ok sync_partial_err expired_keys expired_stale_perc "
        "expired_time_cap_reached_count expire_cycle_cpu_milliseconds evicted_keys "
        "evicted_clients total_eviction_exceeded_time current_eviction_exceeded_time "
        "keyspace_hits keyspace_misses pubsub_channels pubsub_patterns pubsubshard_channels "
        "latest_fork_usec total_forks migrate_cached_sockets slave_expires_tracked_keys "
        "active_defrag_hits active_defrag_misses active_defrag_key_hits active_defrag_key_misses "
        "total_active_defrag_time current_active_defrag_time tracking_total_keys "
        "tracking_total_items tracking_total_prefixes unexpected_error_replies "
        "total_error_replies dump_payload_sanitizations total_reads_processed "
        "total_writes_processed io_threaded_reads_processed io_threaded_writes_processed "
        "reply_buffer_shrinks reply_buffer_expands"
    ),
    "Replication": (
        "role connected_slaves master_failover_state master_replid master_replid2 "
        "master_repl_offset second_repl_offset repl_backlog_active repl_backlog_size "
        "repl_backlog_first_byte_offset repl_backlog_histlen"
    ),
    "CPU": (
        "used_cpu_sys used_cpu_user used_cpu_sys_children used_cpu_user_children "
        "used_cpu_sys_main_thread used_cpu_user_main_thread"
    ),
    "Modules": "",
    "Commandstats": "",
    "Errorstats": "",
    "Latencystats": "",
    "Cluster": (
        "cluster_enabled"
    ),
    "Keyspace": "",
}


def test_info_everything_has_every_redis_field_in_order(r):
    r.execute_command("CONFIG", "RESETSTAT")
    text = r.execute_command("INFO", "everything")
    text = text.decode() if isinstance(text, bytes) else text
    got = {}
    section = None
    for line in text.split("\r\n"):
        if line.startswith("# "):
            section = line[2:]
            got[section] = []
        elif ":" in line:
            name = line.split(":", 1)[0]
            if not name.startswith(("cmdstat_", "latency_percentiles_usec_", "errorstat_", "db",
                                    "slotkv_", "min_slaves_")):
                got[section].append(name)
    assert list(got) == list(REDIS_INFO_FIELDS)
    for section, names in REDIS_INFO_FIELDS.items():
        assert got[section] == names.split(), section


def test_info_multiple_and_unknown_sections(r):
    text = r.execute_command("INFO", "server", "clients")
    assert b"# Server\r\n" in text and b"# Clients\r\n" in text
    assert b"# Memory\r\n" not in text
    assert r.execute_command("INFO", "nosuchsection") == b""
    assert b"# Keyspace" in r.execute_command("INFO", "all")


# ---- TIME / DBSIZE / LASTSAVE / SAVE / BGSAVE ----------------------------------------------------

def test_time(r):
    reply = r.execute_command("TIME")
    assert isinstance(reply, list) and len(reply) == 2
    secs, usecs = reply
    assert isinstance(secs, bytes) and isinstance(usecs, bytes)  # bulk strings, not integers
    assert abs(int(secs) - time.time()) < 5
    assert 0 <= int(usecs) < 1000000
    assert err(r, "TIME", "x") == arity("time")


def test_dbsize(r):
    assert r.execute_command("DBSIZE") == 0
    r.execute_command("MSET", "a", "1", "b", "2", "c", "3")
    assert r.execute_command("DBSIZE") == 3
    assert err(r, "DBSIZE", "x") == arity("dbsize")


def test_save_and_lastsave(r):
    before = r.execute_command("LASTSAVE")
    assert isinstance(before, int)
    start = int(time.time())
    r.execute_command("SET", "k", "v")
    assert r.execute_command("SAVE") == b"OK"
    after = r.execute_command("LASTSAVE")
    assert after >= before and after >= start - 1
    assert err(r, "LASTSAVE", "x") == arity("lastsave")


def test_bgsave(rp, r):
    assert r.execute_command("BGSAVE") == b"Background saving started"

    def idle():
        return rp.info("persistence").get("rdb_bgsave_in_progress", 0) == 0
    assert wait_until(idle, timeout=10)
    assert err(r, "BGSAVE", "FOO") == "ERR syntax error"


def test_bgrewriteaof(rp, r):
    """BGREWRITEAOF starts the background persist (slotkv: the WAL's groups move to the bucket
    files, as BGSAVE's), one job at a time; inside EXEC both are scheduled, as Redis does."""
    def idle():
        p = rp.info("persistence")
        return (p.get("aof_rewrite_in_progress", 0) == 0 and p.get("aof_rewrite_scheduled") == 0
                and p.get("rdb_bgsave_in_progress") == 0)
    assert wait_until(idle, timeout=10)
    before = rp.info("persistence")["aof_rewrites"]
    r.execute_command("SET", "k", "v")
    assert r.execute_command("BGREWRITEAOF") == b"Background append only file rewriting started"
    assert wait_until(idle, timeout=10)
    p = rp.info("persistence")
    assert p["aof_rewrites"] == before + 1
    assert p["aof_last_bgrewrite_status"] == "ok"
    assert p["aof_last_rewrite_time_sec"] >= 0
    assert p["aof_current_rewrite_time_sec"] == -1
    if not is_redis():
        assert p["rdb_changes_since_last_save"] == 0
    assert err(r, "BGREWRITEAOF", "x") == arity("bgrewriteaof")
    r.execute_command("MULTI")
    r.execute_command("BGSAVE")
    r.execute_command("BGREWRITEAOF")
    assert r.execute_command("EXEC") == [b"Background saving scheduled",
                                         b"Background append only file rewriting scheduled"]
    # Scheduled jobs run when nothing else does (Redis: from its cron, within a second).
    assert wait_until(lambda: idle() and rp.info("persistence")["aof_rewrites"] == before + 2,
                      timeout=10)
    info = r.execute_command("COMMAND", "INFO", "bgrewriteaof")[0]
    assert info[:7] == [b"bgrewriteaof", 1, [b"admin", b"noscript", b"no_async_loading"], 0, 0,
                        0, [b"@admin", b"@slow", b"@dangerous"]]


# ---- CONFIG --------------------------------------------------------------------------------------

def test_config_get_exact_names(r, server):
    assert config_get(r, "port") == {b"port": str(server.port).encode()}
    assert config_get(r, "databases") == {b"databases": b"16"}
    assert config_get(r, "nosuchoption") == {}
    appendfsync = b"everysec" if is_redis() and not is_redis_aof() else b"always"
    assert config_get(r, "appendfsync") == {b"appendfsync": appendfsync}
    got = config_get(r, "maxmemory", "port")
    assert set(got) == {b"maxmemory", b"port"}
    assert got[b"port"] == str(server.port).encode()
    if is_redis():
        assert got[b"maxmemory"] == b"0"
    else:  # slotkv's maxmemory is its cache budget: some byte count
        assert got[b"maxmemory"].isdigit()
    assert err(r, "CONFIG", "GET") == arity("config|get")


def test_config_get_glob(r):
    got = config_get(r, "max*")
    assert b"maxmemory" in got and b"maxclients" in got
    assert all(fnmatch.fnmatchcase(k.decode(), "max*") for k in got)
    got = config_get(r, "slowlog-*")
    assert set(got) == {b"slowlog-log-slower-than", b"slowlog-max-len"}
    everything = config_get(r, "*")
    assert len(everything) > 10 and b"port" in everything


def test_config_set_and_get(r):
    old = config_get(r, "slowlog-max-len", "slowlog-log-slower-than")
    try:
        assert r.execute_command("CONFIG", "SET", "slowlog-max-len", "200") == b"OK"
        assert config_get(r, "slowlog-max-len") == {b"slowlog-max-len": b"200"}
        # several options at once (Redis 7)
        assert r.execute_command("CONFIG", "SET", "slowlog-max-len", "300",
                                 "slowlog-log-slower-than", "5") == b"OK"
        assert config_get(r, "slowlog-*") == {b"slowlog-max-len": b"300",
                                              b"slowlog-log-slower-than": b"5"}
    finally:
        r.execute_command("CONFIG", "SET", "slowlog-max-len", old[b"slowlog-max-len"],
                          "slowlog-log-slower-than", old[b"slowlog-log-slower-than"])


def test_config_set_errors(r):
    old = config_get(r, "slowlog-max-len")
    assert err(r, "CONFIG", "SET", "slowlog-log-slower-than", "abc") == (
        "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - "
        "argument couldn't be parsed into an integer")
    assert err(r, "CONFIG", "SET", "appendfsync", "sometimes") == (
        "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must "
        "be one of the following: everysec, always, no")
    assert err(r, "CONFIG", "SET", "slowlog-max-len", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - argument must "
        "be between 0 and 9223372036854775807 inclusive")
    assert err(r, "CONFIG", "SET", "foo", "bar") == (
        "ERR Unknown option or number of arguments for CONFIG SET - 'foo'")
    assert err(r, "CONFIG", "SET", "slowlog-max-len") == arity("config|set")
    # one bad value: nothing is applied
    assert err(r, "CONFIG", "SET", "slowlog-max-len", "999", "slowlog-log-slower-than", "x") == (
        "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - "
        "argument couldn't be parsed into an integer")
    assert config_get(r, "slowlog-max-len") == old
    assert err(r, "CONFIG", "SET", "slowlog-max-len", "1", "slowlog-max-len", "2") == (
        "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - duplicate "
        "parameter")
    assert config_get(r, "slowlog-max-len") == old


def test_config_set_immutable(r):
    assert err(r, "CONFIG", "SET", "databases", "32") == (
        "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable "
        "config")


def test_config_resetstat_and_unknown_subcommand(r):
    assert r.execute_command("CONFIG", "RESETSTAT") == b"OK"
    assert err(r, "CONFIG", "FOO") == "ERR unknown subcommand 'FOO'. Try CONFIG HELP."
    assert err(r, "CONFIG") == arity("config")


def test_config_rewrite_without_config_file(r):
    assert err(r, "CONFIG", "REWRITE") == "ERR The server is running without a config file"


@pytest.mark.slotkv_only
def test_slotkv_config_options(r):
    got = config_get(r, "workers", "slots", "appendfsync", "storage")
    assert got[b"workers"] == b"2"
    assert got[b"slots"] == b"8"
    assert got[b"appendfsync"] == b"always"
    assert got[b"storage"] and got[b"storage"] != b"memory"


# ---- SLOWLOG -------------------------------------------------------------------------------------

def test_slowlog_records_commands(r, server):
    old = config_get(r, "slowlog-log-slower-than")[b"slowlog-log-slower-than"]
    try:
        assert r.execute_command("CONFIG", "SET", "slowlog-log-slower-than", "0") == b"OK"
        assert r.execute_command("SLOWLOG", "RESET") == b"OK"
        r.execute_command("CLIENT", "SETNAME", "slow-client")
        r.execute_command("SET", "slowkey", "slowvalue")
        r.execute_command("GET", "slowkey")
        assert r.execute_command("SLOWLOG", "LEN") >= 3
        entries = r.execute_command("SLOWLOG", "GET", "100")
        assert isinstance(entries, list)
        by_args = {tuple(e[3]): e for e in entries}
        set_entry = by_args[(b"SET", b"slowkey", b"slowvalue")]
        get_entry = by_args[(b"GET", b"slowkey")]
        for e in (set_entry, get_entry):
            assert len(e) == 6
            entry_id, ts, duration, args, addr, name = e
            assert isinstance(entry_id, int) and isinstance(duration, int) and duration >= 0
            assert abs(ts - time.time()) < 10
            assert re.fullmatch(rb"127\.0\.0\.1:\d+", addr)
            assert name == b"slow-client"
        assert get_entry[0] > set_entry[0]  # ids grow
        assert entries.index(get_entry) < entries.index(set_entry)  # newest first
        assert len(r.execute_command("SLOWLOG", "GET", "1")) == 1
        assert r.execute_command("SLOWLOG", "RESET") == b"OK"
        assert r.execute_command("CONFIG", "SET", "slowlog-log-slower-than", "-1") == b"OK"
        r.execute_command("SLOWLOG", "RESET")
        r.execute_command("SET", "a", "b")
        assert r.execute_command("SLOWLOG", "LEN") == 0
        assert r.execute_command("SLOWLOG", "GET") == []
    finally:
        r.execute_command("CONFIG", "SET", "slowlog-log-slower-than", old)


def test_slowlog_errors(r):
    assert err(r, "SLOWLOG", "GET", "x") == "ERR count should be greater than or equal to -1"
    assert err(r, "SLOWLOG", "FOO") == "ERR unknown subcommand 'FOO'. Try SLOWLOG HELP."


# ---- COMMAND -------------------------------------------------------------------------------------

def test_command_count_matches_command_list(r):
    count = r.execute_command("COMMAND", "COUNT")
    assert isinstance(count, int) and count > 20
    assert len(r.execute_command("COMMAND")) == count


def test_command_info_get(r):
    reply = r.execute_command("COMMAND", "INFO", "get", "nosuchcommand")
    assert len(reply) == 2 and reply[1] is None
    info = reply[0]
    assert info[:6] == [b"get", 2, [b"readonly", b"fast"], 1, 1, 1]
    assert set(info[6]) == {b"@read", b"@string", b"@fast"}
    assert len(info) == 10  # Redis 7 shape: + tips, key specs, subcommands
    assert info[9] == []
    set_info = r.execute_command("COMMAND", "INFO", "SET")[0]
    assert set_info[:6] == [b"set", -3, [b"write", b"denyoom"], 1, 1, 1]
    mset_info = r.execute_command("COMMAND", "INFO", "mset")[0]
    assert mset_info[1] == -3 and mset_info[3:6] == [1, -1, 2]


def test_command_docs_get(r):
    reply = r.execute_command("COMMAND", "DOCS", "get")
    assert len(reply) == 2 and reply[0] == b"get"
    doc = dict(zip(reply[1][0::2], reply[1][1::2]))
    assert doc[b"summary"]
    assert doc[b"group"] == b"string"
    assert doc[b"since"] == b"1.0.0"
    assert r.execute_command("COMMAND", "DOCS", "nosuchcommand") == []


def test_command_errors(r):
    assert err(r, "COMMAND", "FOO") == "ERR unknown subcommand 'FOO'. Try COMMAND HELP."
    assert r.execute_command("COMMAND", "GETKEYS", "GET", "a") == [b"a"]
    assert r.execute_command("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2") == [b"a", b"b"]


@pytest.mark.parametrize("call, keys", [
    (("LMOVE", "a", "b", "LEFT", "RIGHT"), [[b"a", [b"RW", b"access", b"delete"]],
                                           [b"b", [b"RW", b"insert"]]]),
    (("SET", "k", "v"), [[b"k", [b"OW", b"update"]]]),
    (("SET", "k", "v", "GET"), [[b"k", [b"RW", b"access", b"update"]]]),
    (("GET", "k"), [[b"k", [b"RO", b"access"]]]),
    (("COPY", "s", "d"), [[b"s", [b"RO", b"access"]], [b"d", [b"OW", b"update"]]]),
    (("SUNIONSTORE", "d", "a", "b"), [[b"d", [b"OW", b"update"]], [b"a", [b"RO", b"access"]],
                                      [b"b", [b"RO", b"access"]]]),
    (("STRLEN", "k"), [[b"k", [b"RO"]]]),
    (("OBJECT", "ENCODING", "k"), [[b"k", [b"RO"]]]),
    (("XINFO", "STREAM", "k"), [[b"k", [b"RO", b"access"]]]),
    (("BITFIELD", "k", "GET", "u8", "0"), [[b"k", [b"RO", b"access"]]]),
    (("BITFIELD", "k", "INCRBY", "u8", "0", "1"), [[b"k", [b"RW", b"access", b"update"]]]),
    (("SORT", "k", "BY", "w*", "STORE", "d"), [[b"k", [b"RO", b"access"]],
                                              [b"d", [b"OW", b"update"]]]),
    (("EVAL", "x", "2", "a", "b"), [[b"a", [b"RW", b"access", b"update"]],
                                   [b"b", [b"RW", b"access", b"update"]]]),
    (("EVAL", "x", "0"), []),
    (("DEL", "a", "b"), [[b"a", [b"RM", b"delete"]], [b"b", [b"RM", b"delete"]]]),
    (("PFMERGE", "d", "a"), [[b"d", [b"RW", b"access", b"insert"]], [b"a", [b"RO", b"access"]]]),
    (("GEORADIUS", "k", "0", "0", "1", "m", "STORE", "d"), [[b"k", [b"RO", b"access"]],
                                                           [b"d", [b"OW", b"update"]]]),
    (("XREADGROUP", "GROUP", "g", "c", "STREAMS", "a", "b", "0", "0"),
     [[b"a", [b"RO", b"access"]], [b"b", [b"RO", b"access"]]]),
    (("XGROUP", "CREATE", "k", "g", "$"), [[b"k", [b"RW", b"insert"]]]),
    (("RENAMENX", "a", "b"), [[b"a", [b"RW", b"access", b"delete"]], [b"b", [b"OW", b"insert"]]]),
])
def test_command_getkeysandflags(r, call, keys):
    assert r.execute_command("COMMAND", "GETKEYSANDFLAGS", *call) == keys


def test_command_getkeysandflags_errors(r):
    for call, text in [(("SPUBLISH", "ch", "m"), "ERR The command has no key arguments"),
                       (("CONFIG", "GET", "x"), "ERR The command has no key arguments"),
                       (("nosuch", "a"), "ERR Invalid command specified"),
                       (("CONFIG", "nosuch"), "ERR Invalid command specified"),
                       (("ZUNION", "0", "a"), "ERR Invalid arguments specified for command"),
                       (("GET",), arity("command|getkeysandflags"))]:
        assert err(r, "COMMAND", "GETKEYSANDFLAGS", *call) == text, call
    assert err(r, "COMMAND", "GETKEYS", "SPUBLISH", "ch", "m") == (
        "ERR The command has no key arguments")


def test_unknown_command_and_arity_texts(r):
    assert err(r, "NOSUCHCMD") == "ERR unknown command 'NOSUCHCMD', with args beginning with: "
    assert err(r, "nosuchcmd", "a", "b c") == (
        "ERR unknown command 'nosuchcmd', with args beginning with: 'a' 'b c' ")
    assert err(r, "SET", "k") == arity("set")
    assert err(r, "get") == arity("get")
    assert err(r, "GeT", "a", "b") == arity("get")  # the name is lowercased


# ---- SHUTDOWN ------------------------------------------------------------------------------------

def test_shutdown_exits_zero(make_server):
    s = make_server()
    c = s.client()
    c.execute_command("SET", "k", "v")
    with s.raw() as raw:
        raw.send_command("SHUTDOWN")
        assert raw.read_available(10.0) == b"<EOF>"  # no reply: the connection just closes
    assert s.wait_exit(15) == 0


@pytest.mark.slotkv_only(redis_aof=True)
def test_shutdown_then_restart_keeps_data(make_server):
    s = make_server()
    c = s.client()
    c.execute_command("SET", "k", "v")
    c.execute_command("SET", "t", "v", "EX", "1000")
    with s.raw() as raw:
        raw.send_command("SHUTDOWN")
        assert raw.read_available(10.0) == b"<EOF>"
    assert s.wait_exit(15) == 0
    s.start()
    c = s.client()
    assert c.execute_command("GET", "k") == b"v"
    assert 990 <= c.execute_command("TTL", "t") <= 1000
