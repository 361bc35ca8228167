// INFO [section ...]: the sections clients and tools parse, laid out as Redis 7.0 does ("# Title"
// line, "name:value" lines, a blank line between sections, "\r\n" line ends), every field Redis
// 7.0.15 prints in its order. A field about machinery slotkv does not have (fork, RDB child, AOF
// rewrite, defragmentation, lazy free, I/O threads) has Redis's value for none
// (0, -1, "ok"), each said at its field; slotkv's own engine figures follow as slotkv_* fields.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/base/redis_version.h"
#include "core/command/args.h"
#include "core/command/blocking.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/latency.h"
#include "core/command/process_memory.h"
#include "core/command/replication.h"
#include "core/command/server_family.h"
#include "core/pubsub/registry.h"

namespace slotkv::command {
namespace {


enum Section : uint32_t {
  kServer = 1 << 0,
  kClients = 1 << 1,
  kMemory = 1 << 2,
  kPersistence = 1 << 3,
  kStats = 1 << 4,
  kReplication = 1 << 5,
  kCpu = 1 << 6,
  kModules = 1 << 7,
  kCommandStats = 1 << 8,
  kCluster = 1 << 9,
  kKeyspace = 1 << 10,
  kErrorStats = 1 << 11,
  kLatencyStats = 1 << 12,
};

// Appends "name:value\r\n".
void Field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.push_back(':');
  out.append(value);
  out.append("\r\n");
}
void Field(std::string& out, std::string_view name, int64_t value) {
  Field(out, name, std::to_string(value));
}
void Field(std::string& out, std::string_view name, uint64_t value) {
  Field(out, name, std::to_string(value));
}
void Field(std::string& out, std::string_view name, int value) {
  Field(out, name, std::to_string(value));
}

// Redis's bytesToHuman: "895.27K", "11.66M", "0B".
std::string Human(uint64_t n) {
  char buf[32];
  const double d = static_cast<double>(n);
  constexpr double kK = 1024.0;
  if (n < 1024) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 "B", n);
  } else if (d < kK * kK) {
    std::snprintf(buf, sizeof buf, "%.2fK", d / kK);
  } else if (d < kK * kK * kK) {
    std::snprintf(buf, sizeof buf, "%.2fM", d / (kK * kK));
  } else if (d < kK * kK * kK * kK) {
    std::snprintf(buf, sizeof buf, "%.2fG", d / (kK * kK * kK));
  } else if (d < kK * kK * kK * kK * kK) {
    std::snprintf(buf, sizeof buf, "%.2fT", d / (kK * kK * kK * kK));
  } else {
    std::snprintf(buf, sizeof buf, "%.2fP", d / (kK * kK * kK * kK * kK));
  }
  return buf;
}

std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.string();
}

// a / b with two decimals, as Redis prints its memory ratios (0 when b is).
std::string Ratio(uint64_t a, uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", MemRatio(a, b));
  return buf;
}

std::string CpuSeconds(const timeval& tv) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%ld.%06ld", static_cast<long>(tv.tv_sec),
                static_cast<long>(tv.tv_usec));
  return buf;
}

uint64_t SumWorkers(const ServerState& state, std::atomic<uint64_t> WorkerStats::*counter) {
  uint64_t sum = 0;
  for (const auto& w : *state.stats) sum += WorkerStats::Get((*w).*counter);
  return sum;
}

uint64_t MaxWorkers(const ServerState& state, std::atomic<uint64_t> WorkerStats::*counter) {
  uint64_t max = 0;
  for (const auto& w : *state.stats) max = std::max(max, WorkerStats::Get((*w).*counter));
  return max;
}

void ServerSection(const ServerState& state, const ServerFigures&, std::string& out) {
  Field(out, "redis_version", kRedisVersion);
  Field(out, "redis_git_sha1", "00000000");  // not a Redis build
  Field(out, "redis_git_dirty", 0);
  Field(out, "redis_build_id", std::string("slotkv-") + SLOTKV_VERSION);
  Field(out, "slotkv_version", SLOTKV_VERSION);
  Field(out, "redis_mode", "standalone");
  utsname name{};
  if (uname(&name) == 0) {
    Field(out, "os", std::string(name.sysname) + " " + name.release + " " + name.machine);
  }
  Field(out, "arch_bits", static_cast<int>(sizeof(void*) * 8));
  Field(out, "monotonic_clock", "POSIX clock_gettime");  // std::chrono::steady_clock
  Field(out, "multiplexing_api", "epoll");                // Boost.Asio's reactor on Linux
  Field(out, "atomicvar_api", "c11-builtin");             // std::atomic
  Field(out, "gcc_version", std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) +
                                "." + std::to_string(__GNUC_PATCHLEVEL__));
  Field(out, "process_id", static_cast<int64_t>(getpid()));
  Field(out, "process_supervised", "no");
  Field(out, "run_id", state.run_id);
  Field(out, "tcp_port", state.tcp_port);
  Field(out, "server_time_usec", ServerTimeUs(state));
  const int64_t now_ms = state.keyspace->clock()->NowMs();
  const int64_t uptime_s = (now_ms - state.start_ms) / 1000;
  Field(out, "uptime_in_seconds", uptime_s);
  Field(out, "uptime_in_days", uptime_s / 86400);
  Field(out, "hz", state.hz.load());
  Field(out, "configured_hz", state.config->GetInt("hz"));
  // Redis's LRU clock: seconds, 24 bits (slotkv keeps no per-key LRU data with it).
  Field(out, "lru_clock", (now_ms / 1000) & ((int64_t{1} << 24) - 1));
  Field(out, "executable", AbsolutePath(state.executable));
  Field(out, "config_file", AbsolutePath(state.config->file()));
  Field(out, "io_threads_active", 0);
  Field(out, "slotkv_workers", state.executor->workers());
  Field(out, "slotkv_slots", static_cast<uint64_t>(state.keyspace->slots()));
  Field(out, "slotkv_storage", state.config->Get("storage"));
}

void ClientsSection(const ServerState& state, const ServerFigures& f, std::string& out) {
  Field(out, "connected_clients", state.clients->connected());
  Field(out, "cluster_connections", 0);
  Field(out, "maxclients", state.maxclients.load());
  // Redis's "recent" maxima span a few seconds; slotkv's are now's.
  Field(out, "client_recent_max_input_buffer", f.max_input_buffer);
  Field(out, "client_recent_max_output_buffer", f.max_output_buffer);
  Field(out, "blocked_clients", state.blocking ? state.blocking->blocked_clients.load() : 0);
  Field(out, "tracking_clients", state.tracking ? state.tracking->clients() : 0);
  // slotkv has no client timeouts table.
  Field(out, "clients_in_timeout_table", 0);
}

void MemorySection(const ServerState& state, const ServerFigures& f, std::string& out) {
  // used_memory is what the allocator handed out, as in Redis; without jemalloc (the sanitizer
  // build) the process RSS stands in. The peak is the process's RSS peak (the kernel keeps it).
  // The overhead and dataset split as MEMORY STATS (memory_command.cc).
  const ProcessMemory& m = f.process;
  const uint64_t used = m.used();
  const uint64_t rss = m.rss;
  const uint64_t maxmemory = static_cast<uint64_t>(state.config->GetInt("maxmemory"));
  char percent[32];
  Field(out, "used_memory", used);
  Field(out, "used_memory_human", Human(used));
  Field(out, "used_memory_rss", rss);
  Field(out, "used_memory_rss_human", Human(rss));
  Field(out, "used_memory_peak", m.peak);
  Field(out, "used_memory_peak_human", Human(m.peak));
  std::snprintf(percent, sizeof(percent), "%.2f%%", MemRatio(used, m.peak) * 100);
  Field(out, "used_memory_peak_perc", percent);
  Field(out, "used_memory_overhead", f.overhead());
  Field(out, "used_memory_startup", f.startup);
  Field(out, "used_memory_dataset", f.dataset());
  std::snprintf(percent, sizeof(percent), "%.2f%%", MemRatio(f.dataset(), f.net()) * 100);
  Field(out, "used_memory_dataset_perc", percent);
  Field(out, "allocator_allocated", m.allocated);
  Field(out, "allocator_active", m.active);
  Field(out, "allocator_resident", m.resident);
  Field(out, "total_system_memory", m.system);
  Field(out, "total_system_memory_human", Human(m.system));
  // The Lua interpreters' own memory is not measured: the script cache's bytes stand in.
  Field(out, "used_memory_lua", f.scripts_bytes);
  Field(out, "used_memory_vm_eval", f.scripts_bytes);
  Field(out, "used_memory_lua_human", Human(f.scripts_bytes));
  Field(out, "used_memory_scripts_eval", f.scripts_bytes);
  Field(out, "number_of_cached_scripts", f.scripts);
  Field(out, "number_of_functions", f.functions);
  Field(out, "number_of_libraries", f.libraries);
  Field(out, "used_memory_vm_functions", f.functions_bytes);
  Field(out, "used_memory_vm_total", f.scripts_bytes + f.functions_bytes);
  Field(out, "used_memory_vm_total_human", Human(f.scripts_bytes + f.functions_bytes));
  Field(out, "used_memory_functions", f.functions_bytes);
  Field(out, "used_memory_scripts", f.scripts_bytes + f.functions_bytes);
  Field(out, "used_memory_scripts_human", Human(f.scripts_bytes + f.functions_bytes));
  Field(out, "maxmemory", maxmemory);
  Field(out, "maxmemory_human", Human(maxmemory));
  Field(out, "maxmemory_policy", state.config->Get("maxmemory-policy"));
  // Where the RSS goes, as Redis splits it: pages the allocator holds beyond its allocations
  // (fragmentation), resident pages it has not returned, the rest of the process.
  Field(out, "allocator_frag_ratio", Ratio(m.active, m.allocated));
  Field(out, "allocator_frag_bytes", MemDiff(m.active, m.allocated));
  Field(out, "allocator_rss_ratio", Ratio(m.resident, m.active));
  Field(out, "allocator_rss_bytes", MemDiff(m.resident, m.active));
  Field(out, "rss_overhead_ratio", Ratio(rss, m.resident));
  Field(out, "rss_overhead_bytes", MemDiff(rss, m.resident));
  Field(out, "mem_fragmentation_ratio", Ratio(rss, used));
  Field(out, "mem_fragmentation_bytes", MemDiff(rss, used));
  Field(out, "mem_not_counted_for_evict", 0);  // nothing is evicted
  Field(out, "mem_replication_backlog", 0);    // backlogs are not counted apart
  Field(out, "mem_total_replication_buffers", f.clients_replica_bytes);
  Field(out, "mem_clients_slaves", f.clients_replica_bytes);
  Field(out, "mem_clients_normal", f.clients_normal_bytes);
  Field(out, "mem_cluster_links", 0);
  Field(out, "mem_aof_buffer", 0);
  Field(out, "mem_allocator", HasJemalloc() ? "jemalloc" : "libc");
  Field(out, "active_defrag_running", 0);  // no active defragmentation
  Field(out, "lazyfree_pending_objects", 0);
  Field(out, "lazyfreed_objects", 0);
  // The caches of every slot share maxmemory-cache with the group maps of unpersisted writes.
  const slot::SlotStats& e = f.stats;
  Field(out, "slotkv_maxmemory_cache", state.keyspace->cache_budget());
  Field(out, "slotkv_cache_bytes", f.caches());
  Field(out, "slotkv_value_cache_bytes", e.value_cache_bytes);
  Field(out, "slotkv_bucket_cache_bytes", e.bucket_cache_bytes);
  Field(out, "slotkv_chunk_cache_bytes", e.chunk_cache_bytes);
  Field(out, "slotkv_wal_map_bytes", e.wal_map_bytes);
}

// slotkv_<name>_cache_hits, _misses and _hit_ratio (hits / lookups, 0 before any).
void CacheFields(std::string& out, const std::string& name, uint64_t hits, uint64_t misses) {
  Field(out, "slotkv_" + name + "_cache_hits", hits);
  Field(out, "slotkv_" + name + "_cache_misses", misses);
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.4f",
                hits + misses == 0 ? 0.0 : static_cast<double>(hits) / (hits + misses));
  Field(out, "slotkv_" + name + "_cache_hit_ratio", ratio);
}

// Values compressed since start, their ratio (bytes before / after), and one line per
// dictionary: slotkv_dict_<id>:group=<g>,values=<n>,level=<zstd level>,ratio=<r> (id 0:
// plain zstd).
void CompressionFields(const slot::Dictionaries& dicts, std::string& out) {
  uint64_t values = 0;
  uint64_t raw = 0;
  uint64_t stored = 0;
  std::string lines;
  const auto ratio = [](uint64_t before, uint64_t after) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f",
                  after == 0 ? 1.0 : static_cast<double>(before) / static_cast<double>(after));
    return std::string(buf);
  };
  size_t trained = 0;
  for (const slot::Dictionaries::DictStats& d : dicts.Stats()) {
    values += d.values;
    raw += d.raw_bytes;
    stored += d.stored_bytes;
    if (d.id > 0) ++trained;
    std::string group = d.group;
    for (char& c : group) {
      if (c == ',' || c == '\r' || c == '\n' || c == '=') c = '_';
    }
    Field(lines, "slotkv_dict_" + std::to_string(d.id),
          "group=" + group + ",values=" + std::to_string(d.values) + ",level=" +
              std::to_string(d.level) + ",ratio=" + ratio(d.raw_bytes, d.stored_bytes));
  }
  Field(out, "slotkv_compressed_values", values);
  Field(out, "slotkv_uncompressed_values", dicts.raw_values());
  Field(out, "slotkv_compression_ratio", ratio(raw, stored));
  Field(out, "slotkv_dictionaries", static_cast<uint64_t>(trained));
  out += lines;
}

void PersistenceSection(const ServerState& state, const ServerFigures& f, std::string& out) {
  // No fork or child exists: their fields are Redis's values for none.
  Field(out, "loading", 0);
  Field(out, "async_loading", 0);
  Field(out, "current_cow_peak", 0);
  Field(out, "current_cow_size", 0);
  Field(out, "current_cow_size_age", 0);
  Field(out, "current_fork_perc", "0.00");
  Field(out, "current_save_keys_processed", 0);
  Field(out, "current_save_keys_total", 0);
  // Writes still only in the WAL (not yet merged into bucket files): what SAVE would persist.
  Field(out, "rdb_changes_since_last_save", f.stats.wal_entries);
  const int job = state.background_persist.load();
  const int64_t now_ms = state.keyspace->clock()->NowMs();
  // A background job's run time so far, -1 unless it is the one running.
  const auto current_s = [&](int kind, const PersistJobStats& s) -> int64_t {
    return job == kind ? (now_ms - s.started_ms.load()) / 1000 : -1;
  };
  Field(out, "rdb_bgsave_in_progress", job == kBgSaveJob ? 1 : 0);
  Field(out, "rdb_last_save_time", state.last_save_s.load());
  Field(out, "rdb_last_bgsave_status", state.bgsave.last_ok.load() ? "ok" : "err");
  Field(out, "rdb_last_bgsave_time_sec", state.bgsave.last_time_s.load());
  Field(out, "rdb_current_bgsave_time_sec", current_s(kBgSaveJob, state.bgsave));
  Field(out, "rdb_saves", state.saves.load());
  Field(out, "rdb_last_cow_size", 0);
  Field(out, "rdb_last_load_keys_expired", 0);
  Field(out, "rdb_last_load_keys_loaded", 0);
  // Every write goes through the WAL before it is acknowledged, unless there are no files.
  Field(out, "aof_enabled", state.config->Get("storage") == "memory" ? 0 : 1);
  // BGREWRITEAOF persists the WAL as BGSAVE does (persist_commands.cc).
  const PersistJobStats& rw = state.aof_rewrite;
  Field(out, "aof_rewrite_in_progress", job == kAofRewriteJob ? 1 : 0);
  Field(out, "aof_rewrite_scheduled", rw.scheduled.load() ? 1 : 0);
  Field(out, "aof_last_rewrite_time_sec", rw.last_time_s.load());
  Field(out, "aof_current_rewrite_time_sec", current_s(kAofRewriteJob, rw));
  Field(out, "aof_last_bgrewrite_status", rw.last_ok.load() ? "ok" : "err");
  Field(out, "aof_rewrites", rw.runs.load());
  Field(out, "aof_rewrites_consecutive_failures", rw.failures_in_row.load());
  // As Redis after a failed AOF write: writes get MISCONF while a slot is failed.
  const int64_t failed = state.keyspace->refusals();
  Field(out, "aof_last_write_status", failed == 0 ? "ok" : "err");
  Field(out, "aof_last_cow_size", 0);
  Field(out, "module_fork_in_progress", 0);
  Field(out, "module_fork_last_cow_size", 0);
  Field(out, "slotkv_failed_slots", failed);
  Field(out, "slotkv_write_failures", state.write_failures.count());
  for (const slot::SlotStatRow& r : slot::kSlotStatRows) {
    if (!r.info.empty()) Field(out, r.info, f.stats.*r.field);
  }
  // Bytes written to files per byte of keys and values written by commands.
  char amp[32];
  std::snprintf(amp, sizeof(amp), "%.2f",
                f.stats.user_bytes_written == 0
                    ? 0.0
                    : static_cast<double>(f.stats.disk_bytes_written) /
                          static_cast<double>(f.stats.user_bytes_written));
  Field(out, "slotkv_write_amplification", amp);
  CompressionFields(*state.keyspace->dictionaries(), out);
}

void StatsSection(const ServerState& state, const ServerFigures& f, std::string& out) {
  using Inst = InstantaneousMetrics;
  const auto kbps = [&](Inst::Metric m) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(state.instantaneous.Rate(m)) / 1024);
    return std::string(buf);
  };
  Field(out, "total_connections_received", SumWorkers(state, &WorkerStats::connections_received));
  Field(out, "total_commands_processed", SumWorkers(state, &WorkerStats::commands_processed));
  Field(out, "instantaneous_ops_per_sec", state.instantaneous.Rate(Inst::kOps));
  Field(out, "total_net_input_bytes", SumWorkers(state, &WorkerStats::net_input_bytes));
  Field(out, "total_net_output_bytes", SumWorkers(state, &WorkerStats::net_output_bytes));
  // Replication links are counted with the other connections' bytes.
  Field(out, "total_net_repl_input_bytes", 0);
  Field(out, "total_net_repl_output_bytes", 0);
  Field(out, "instantaneous_input_kbps", kbps(Inst::kNetInput));
  Field(out, "instantaneous_output_kbps", kbps(Inst::kNetOutput));
  Field(out, "instantaneous_input_repl_kbps", "0.00");
  Field(out, "instantaneous_output_repl_kbps", "0.00");
  Field(out, "rejected_connections", SumWorkers(state, &WorkerStats::rejected_connections));
  // Replication syncs per slot stream, not Redis's PSYNC: none counted here.
  Field(out, "sync_full", 0);
  Field(out, "sync_partial_ok", 0);
  Field(out, "sync_partial_err", 0);
  // Keys reclaimed by active expiry or a group flush; keys found expired on read are not
  // counted until then.
  Field(out, "expired_keys", f.stats.expired_keys);
  Field(out, "expired_stale_perc", "0.00");
  Field(out, "expired_time_cap_reached_count", 0);
  Field(out, "expire_cycle_cpu_milliseconds", 0);
  Field(out, "evicted_keys", 0);  // nothing is evicted: data lives on disk
  Field(out, "evicted_clients", 0);
  Field(out, "total_eviction_exceeded_time", 0);
  Field(out, "current_eviction_exceeded_time", 0);
  Field(out, "keyspace_hits", SumWorkers(state, &WorkerStats::keyspace_hits));
  Field(out, "keyspace_misses", SumWorkers(state, &WorkerStats::keyspace_misses));
  if (state.pubsub != nullptr) {
    Field(out, "pubsub_channels",
          static_cast<uint64_t>(state.pubsub->Channels(pubsub::Kind::kChannel, nullptr).size()));
    Field(out, "pubsub_patterns", state.pubsub->NumPat());
    Field(out, "pubsubshard_channels",
          static_cast<uint64_t>(state.pubsub->Channels(pubsub::Kind::kShard, nullptr).size()));
  }
  // No fork, MIGRATE connection cache or defragmentation exists.
  for (std::string_view none :
       {"latest_fork_usec", "total_forks", "migrate_cached_sockets", "slave_expires_tracked_keys",
        "active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits",
        "active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time"}) {
    Field(out, none, 0);
  }
  const Tracking* tracking = state.tracking;
  Field(out, "tracking_total_keys", tracking ? tracking->keys() : 0);
  Field(out, "tracking_total_items", tracking ? tracking->items() : 0);
  Field(out, "tracking_total_prefixes", tracking ? tracking->prefixes() : 0);
  Field(out, "unexpected_error_replies", 0);
  Field(out, "total_error_replies", SumWorkers(state, &WorkerStats::error_replies));
  Field(out, "dump_payload_sanitizations", 0);
  Field(out, "total_reads_processed", SumWorkers(state, &WorkerStats::reads_processed));
  Field(out, "total_writes_processed", SumWorkers(state, &WorkerStats::writes_processed));
  for (std::string_view none : {"io_threaded_reads_processed", "io_threaded_writes_processed",
                                "reply_buffer_shrinks", "reply_buffer_expands"}) {
    Field(out, none, 0);
  }
  Field(out, "slotkv_read_waits", SumWorkers(state, &WorkerStats::read_waits));
  Field(out, "slotkv_async_reads", SumWorkers(state, &WorkerStats::async_reads));
  Field(out, "slotkv_client_moves", SumWorkers(state, &WorkerStats::client_moves));
  Field(out, "slotkv_direct_replies", SumWorkers(state, &WorkerStats::direct_replies));
  Field(out, "slotkv_loop_lag_max_us", MaxWorkers(state, &WorkerStats::loop_lag_max_us));
  const slot::SlotStats& e = f.stats;
  CacheFields(out, "value", e.value_cache_hits, e.value_cache_misses);
  CacheFields(out, "bucket", e.bucket_cache_hits, e.bucket_cache_misses);
  CacheFields(out, "chunk", e.chunk_cache_hits, e.chunk_cache_misses);
}

void ReplicationSection(const ServerState& state, const ServerFigures&, std::string& out) {
  if (state.replication != nullptr) {
    out += state.replication->Info();
    return;
  }
  Field(out, "role", "master");
  Field(out, "connected_slaves", 0);
  Field(out, "master_failover_state", "no-failover");
  Field(out, "master_replid", state.run_id);
  Field(out, "master_replid2", std::string(40, '0'));
  Field(out, "master_repl_offset", 0);
  Field(out, "second_repl_offset", -1);
  Field(out, "repl_backlog_active", 0);
  Field(out, "repl_backlog_size", state.config->GetInt("repl-backlog-size"));
  Field(out, "repl_backlog_first_byte_offset", 0);
  Field(out, "repl_backlog_histlen", 0);
}

void CpuSection(const ServerState&, const ServerFigures&, std::string& out) {
  rusage self{};
  rusage children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  Field(out, "used_cpu_sys", CpuSeconds(self.ru_stime));
  Field(out, "used_cpu_user", CpuSeconds(self.ru_utime));
  Field(out, "used_cpu_sys_children", CpuSeconds(children.ru_stime));
  Field(out, "used_cpu_user_children", CpuSeconds(children.ru_utime));
  // Redis's main thread is the one event loop; here the worker that runs INFO stands in.
  rusage thread{};
  getrusage(RUSAGE_THREAD, &thread);
  Field(out, "used_cpu_sys_main_thread", CpuSeconds(thread.ru_stime));
  Field(out, "used_cpu_user_main_thread", CpuSeconds(thread.ru_utime));
}

// cmdstat_<name>:calls=..,usec=..,usec_per_call=..,rejected_calls=..,failed_calls=.. for every
// command called or refused since the last CONFIG RESETSTAT, summed over workers.
void CommandStatsSection(const ServerState& state, const ServerFigures&, std::string& out) {
  state.table->ForEachRow([&](const CommandSpec& spec) {
    uint64_t calls = 0, usec = 0, failed = 0, rejected = 0;
    for (const auto& w : *state.stats) {
      const CommandStat& cs = w->per_command[spec.id];
      calls += WorkerStats::Get(cs.calls);
      usec += WorkerStats::Get(cs.usec);
      failed += WorkerStats::Get(cs.failed_calls);
      rejected += WorkerStats::Get(cs.rejected_calls);
    }
    if (calls == 0 && rejected == 0 && failed == 0) return;
    char line[256];
    std::snprintf(line, sizeof line,
                  "calls=%" PRIu64 ",usec=%" PRIu64 ",usec_per_call=%.2f,rejected_calls=%" PRIu64
                  ",failed_calls=%" PRIu64,
                  calls, usec, calls ? static_cast<double>(usec) / static_cast<double>(calls) : 0.0,
                  rejected, failed);
    Field(out, "cmdstat_" + std::string(spec.name), line);
  });
}

void KeyspaceSection(const ServerState&, const ServerFigures& f, std::string& out) {
  for (size_t db = 0; db < f.keys.size(); ++db) {
    if (f.keys[db] == 0) continue;
    // expires and avg_ttl stay 0: slotkv does not count the keys that have a TTL yet (that
    // would need a per-slot counter kept through writes, expiry and replay).
    Field(out, "db" + std::to_string(db),
          "keys=" + std::to_string(f.keys[db]) + ",expires=0,avg_ttl=0");
  }
  // Not a Redis field: the internal keys (pages of paged collections, queued or not) that the
  // db lines leave out; printed only when there are some, so a plain server matches Redis.
  if (f.internal_keys > 0) Field(out, "slotkv_internal_keys", f.internal_keys);
}

void ModulesSection(const ServerState&, const ServerFigures&, std::string&) {}  // no modules

// latency_percentiles_usec_<command>:p50=..,p99=..,p99.9=.. for every command called, at the
// percentiles of latency-tracking-info-percentiles (nothing while latency-tracking is off).
void LatencyStatsSection(const ServerState& state, const ServerFigures&, std::string& out) {
  if (!state.latency_tracking.load()) return;
  // The value was checked when set.
  Result<std::vector<double>> percentiles =
      conf::ParsePercentiles(state.config->Get("latency-tracking-info-percentiles"));
  if (!percentiles.ok()) return;
  for (const CommandSpec& spec : state.table->all()) {
    const LatencyHistogram h = CommandLatency(state, spec);
    if (h.total() == 0) continue;
    std::string line;
    for (double p : *percentiles) {
      if (!line.empty()) line.push_back(',');
      char value[64];
      std::snprintf(value, sizeof(value), "%.3f",
                    static_cast<double>(h.ValueAtPercentile(p)) / 1000.0);
      line += "p" + conf::TrimmedDouble(p) + "=" + value;
    }
    Field(out, "latency_percentiles_usec_" + std::string(spec.name), line);
  }
}

// errorstat_<code>:count=<n> per error code (stats.h ErrorStats), in code order.
void ErrorStatsSection(const ServerState& state, const ServerFigures&, std::string& out) {
  for (const auto& [code, count] : state.error_stats.Snapshot()) {
    Field(out, "errorstat_" + code, "count=" + std::to_string(count));
  }
}

void ClusterSection(const ServerState&, const ServerFigures&, std::string& out) {
  Field(out, "cluster_enabled", 0);
}

using SectionFn = void (*)(const ServerState&, const ServerFigures&, std::string&);

struct SectionDef {
  Section bit;
  std::string_view name;   // as INFO takes it
  std::string_view title;  // as the header shows it
  bool in_default;
  SectionFn write;
};

// In Redis's output order. Errorstats and Latencystats are not kept by slotkv.
constexpr SectionDef kSections[] = {
    {kServer, "server", "Server", true, ServerSection},
    {kClients, "clients", "Clients", true, ClientsSection},
    {kMemory, "memory", "Memory", true, MemorySection},
    {kPersistence, "persistence", "Persistence", true, PersistenceSection},
    {kStats, "stats", "Stats", true, StatsSection},
    {kReplication, "replication", "Replication", true, ReplicationSection},
    {kCpu, "cpu", "CPU", true, CpuSection},
    {kModules, "modules", "Modules", true, ModulesSection},
    {kCommandStats, "commandstats", "Commandstats", false, CommandStatsSection},
    {kErrorStats, "errorstats", "Errorstats", true, ErrorStatsSection},
    {kLatencyStats, "latencystats", "Latencystats", false, LatencyStatsSection},
    {kCluster, "cluster", "Cluster", true, ClusterSection},
    {kKeyspace, "keyspace", "Keyspace", true, KeyspaceSection},
};

// The sections named by INFO's arguments (none = "default"; unknown names select nothing).
uint32_t SelectSections(const std::vector<std::string>& args) {
  uint32_t all = 0;
  uint32_t defaults = 0;
  for (const SectionDef& s : kSections) {
    all |= s.bit;
    if (s.in_default) defaults |= s.bit;
  }
  if (args.size() == 1) return defaults;
  uint32_t selected = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (Is(a, "default")) {
      selected |= defaults;
    } else if (Is(a, "all") || Is(a, "everything")) {
      selected |= all;
    } else {
      for (const SectionDef& s : kSections) {
        if (Is(a, s.name)) selected |= s.bit;
      }
    }
  }
  return selected;
}

}  // namespace

Task InfoCommand(AsyncContext& ctx) {
  const uint32_t selected = SelectSections(ctx.args);
  ServerFigures figures;
  if (selected & (kClients | kMemory | kPersistence | kStats | kKeyspace)) {
    co_await GatherFigures(ctx, (selected & kKeyspace) != 0, &figures);
    if (Failed(figures.failure, ctx.reply)) co_return;
  }
  const ServerState& state = ctx.server;
  std::string text;
  for (const SectionDef& s : kSections) {
    if (!(selected & s.bit)) continue;
    if (!text.empty()) text.append("\r\n");
    text.append("# ");
    text.append(s.title);
    text.append("\r\n");
    s.write(state, figures, text);
  }
  ctx.reply.Verbatim(text);
}

}  // namespace slotkv::command
