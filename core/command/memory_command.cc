// MEMORY USAGE | STATS | DOCTOR | MALLOC-STATS | PURGE | HELP, as Redis 7.0's object.c, with
// slotkv's figures.
//
// USAGE counts what slotkv stores for a key, not RAM (a key takes RAM only while a cache holds
// it): the key, a bucket cell's fixed fields, and the value as encoded before compression; a
// paged collection's root plus its pages, `SAMPLES` of them read (default 5, 0: all) and their
// mean size counted for every page, as Redis samples nested values. STATS gives Redis's fields
// from the process's figures (process_memory.h): `overhead.total` is what slotkv holds besides
// keys (startup, client buffers, script and function caches, and slotkv's caches and write
// maps, added as `slotkv.*` fields); `dataset.bytes` the rest of the allocations. There is no
// replication backlog, AOF buffer or cluster link in memory (0), and no per-database hash
// table (no `db.N` entries). DOCTOR applies Redis's rules to those figures.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/command/args.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/server_family.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kMemoryHelp[] = {
    "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return memory problems reports.",
    "MALLOC-STATS",
    "    Return internal statistics report from the memory allocator.",
    "PURGE",
    "    Attempt to purge dirty pages for reclamation by the allocator.",
    "STATS",
    "    Return information about the memory usage of the server.",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all).",
    "HELP",
    "    Prints this help.",
};

// A bucket cell's fixed fields: key hash, sequence, expiry, type, pointer flag
// (keybucket/cell.h).
constexpr uint64_t kCellFixedBytes = 26;

// The bytes of a stored value: itself, or a paged root plus its pages, estimated from up to
// samples of them (0: all) spread over its ranges.
Result<uint64_t> StoredBytes(Store& store, ValueType type, std::string_view stored,
                             uint64_t samples) {
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> ranges, PageRanges(stored));
  const uint64_t pages =
      std::accumulate(ranges.begin(), ranges.end(), uint64_t{0},
                      [](uint64_t n, const PageRange& r) { return n + r.count; });
  if (pages == 0) return static_cast<uint64_t>(stored.size());
  const uint64_t take = samples == 0 ? pages : std::min(samples, pages);
  StorePageIo io(store, type);
  uint64_t read = 0, bytes = 0;
  for (uint64_t k = 0; k < take; ++k) {
    uint64_t at = k * pages / take;  // the at-th page over all ranges
    const PageRange* r = ranges.data();
    while (at >= r->count) at -= (r++)->count;
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> page, io.GetPage(r->id, r->base + at));
    if (!page) continue;  // an emptied page
    ++read;
    bytes += page->size();
  }
  const uint64_t per_page = read == 0 ? 0 : bytes / read;
  return static_cast<uint64_t>(stored.size()) + per_page * pages;
}

// MEMORY USAGE key [SAMPLES count]
Task Usage(AsyncContext& ctx) {
  uint64_t samples = 5;
  for (size_t j = 3; j < ctx.args.size(); ++j) {
    if (!Is(ctx.args[j], "SAMPLES") || j + 1 >= ctx.args.size()) {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
    std::optional<int64_t> n = IntArg(ctx.args[++j], ctx.reply);
    if (!n) co_return;
    if (*n < 0) {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
    samples = static_cast<uint64_t>(*n);
  }
  const std::string& key = ctx.args[2];
  const uint32_t s = ctx.server.keyspace->SlotOfKey(key);
  co_await ctx.ToSlot(s);
  Store store = ctx.StoreOf(s);
  slot::KeyMeta meta;
  Result<std::optional<std::string>> v = store.Get(key, &meta);  // no hit or miss: as Redis
  if (Failed(v.status(), ctx.reply)) co_return;
  if (!*v) {
    ctx.reply.Null();
    co_return;
  }
  Result<uint64_t> bytes = StoredBytes(store, meta.type, **v, samples);
  if (Failed(bytes.status(), ctx.reply)) co_return;
  ctx.reply.Integer(static_cast<int64_t>(key.size() + kCellFixedBytes + *bytes));
}

void ReplyStats(const ServerFigures& o, Reply& reply) {
  const ProcessMemory& m = o.process;
  const uint64_t used = o.used();
  const std::pair<std::string_view, uint64_t> counts[] = {
      {"peak.allocated", m.peak},
      {"total.allocated", used},
      {"startup.allocated", o.startup},
      {"replication.backlog", 0},
      {"clients.slaves", o.clients_replica_bytes},
      {"clients.normal", o.clients_normal_bytes},
      {"cluster.links", 0},
      {"aof.buffer", 0},
      {"lua.caches", o.scripts_bytes},
      {"functions.caches", o.functions_bytes},
      {"slotkv.caches", o.caches()},
      {"slotkv.wal-maps", o.wal_maps()},
      {"overhead.total", o.overhead()},
      {"keys.count", o.key_count()},
      {"keys.bytes-per-key", o.key_count() == 0 ? 0 : o.net() / o.key_count()},
      {"dataset.bytes", o.dataset()},
  };
  reply.Map(std::size(counts) + 13);
  for (const auto& [name, value] : counts) {
    reply.Bulk(name);
    reply.Integer(static_cast<int64_t>(value));
  }
  auto pair = [&](std::string_view name, auto value) {
    reply.Bulk(name);
    if constexpr (std::is_floating_point_v<decltype(value)>) {
      reply.Double(value);
    } else {
      reply.Integer(static_cast<int64_t>(value));
    }
  };
  pair("dataset.percentage", MemRatio(o.dataset(), o.net()) * 100);
  pair("peak.percentage", MemRatio(used, m.peak) * 100);
  pair("allocator.allocated", m.allocated);
  pair("allocator.active", m.active);
  pair("allocator.resident", m.resident);
  pair("allocator-fragmentation.ratio", MemRatio(m.active, m.allocated));
  pair("allocator-fragmentation.bytes", MemDiff(m.active, m.allocated));
  pair("allocator-rss.ratio", MemRatio(m.resident, m.active));
  pair("allocator-rss.bytes", MemDiff(m.resident, m.active));
  pair("rss-overhead.ratio", MemRatio(m.rss, m.resident));
  pair("rss-overhead.bytes", MemDiff(m.rss, m.resident));
  pair("fragmentation", MemRatio(m.rss, used));
  pair("fragmentation.bytes", MemDiff(m.rss, used));
}

// Redis's getMemoryDoctorReport over o.
std::string DoctorReport(const ServerFigures& o) {
  const ProcessMemory& m = o.process;
  const uint64_t used = o.used();
  constexpr int64_t k10M = 10 << 20;
  if (used < (5 << 20)) {
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  }
  // Redis's checks, in its order: each that holds adds its paragraph.
  const bool big_client_buf = o.clients > 0 && o.clients_normal_bytes / o.clients > (200u << 10);
  const bool big_replica_buf = o.replicas > 0 && o.clients_replica_bytes / o.replicas > (10u << 20);
  const std::pair<bool, std::string> checks[] = {
      {MemRatio(m.peak, used) > 1.5,
       " * Peak memory: In the past this instance used more than 150% the memory that is "
       "currently using. The allocator is normally not able to release memory after a "
       "peak, so you can expect to see a big fragmentation ratio, however this is actually "
       "harmless and is only due to the memory peak, and if the Redis instance Resident "
       "Set Size (RSS) is currently bigger than expected, the memory will be used as soon "
       "as you fill the Redis instance with more data. If the memory peak was only "
       "occasional and you want to try to reclaim memory, please try the MEMORY PURGE "
       "command, otherwise the only other option is to shutdown and restart the "
       "instance.\n\n"},
      {MemRatio(m.rss, used) > 1.4 && MemDiff(m.rss, used) > k10M,
       std::string(" * High total RSS: This instance has a memory fragmentation and RSS "
                   "overhead greater than 1.4 (this means that the Resident Set Size of "
                   "the Redis process is much larger than the sum of the logical "
                   "allocations Redis performed). This problem is usually due either to a "
                   "large peak memory (check if there is a peak memory entry above in the "
                   "report) or may result from a workload that causes the allocator to "
                   "fragment memory a lot. If the problem is a large peak memory, then "
                   "there is no issue. Otherwise, make sure you are using the Jemalloc "
                   "allocator and not the default libc malloc. Note: The currently used "
                   "allocator is \"") +
           (HasJemalloc() ? "jemalloc" : "libc") + "\".\n\n"},
      {MemRatio(m.active, m.allocated) > 1.1 && MemDiff(m.active, m.allocated) > k10M,
       " * High allocator fragmentation: This instance has an allocator external "
       "fragmentation greater than 1.1. This problem is usually due either to a large "
       "peak memory (check if there is a peak memory entry above in the report) or may "
       "result from a workload that causes the allocator to fragment memory a lot. You "
       "can try enabling 'activedefrag' config option.\n\n"},
      {MemRatio(m.resident, m.active) > 1.1 && MemDiff(m.resident, m.active) > k10M,
       " * High allocator RSS overhead: This instance has an RSS memory overhead is "
       "greater than 1.1 (this means that the Resident Set Size of the allocator is much "
       "larger than the sum what the allocator actually holds). This problem is usually "
       "due to a large peak memory (check if there is a peak memory entry above in the "
       "report), you can try the MEMORY PURGE command to reclaim it.\n\n"},
      {MemRatio(m.rss, m.resident) > 1.1 && MemDiff(m.rss, m.resident) > k10M,
       " * High process RSS overhead: This instance has non-allocator RSS memory "
       "overhead is greater than 1.1 (this means that the Resident Set Size of the Redis "
       "process is much larger than the RSS the allocator holds). This problem may be due "
       "to Lua scripts or Modules.\n\n"},
      {big_replica_buf,
       " * Big replica buffers: The replica output buffers in this instance are greater "
       "than 10MB for each replica (on average). This likely means that there is some "
       "replica instance that is struggling receiving data, either because it is too slow "
       "or because of networking issues. As a result, data piles on the master output "
       "buffers. Please try to identify what replica is not receiving data correctly and "
       "why. You can use the INFO output in order to check the replicas delays and the "
       "CLIENT LIST command to check the output buffers of each replica.\n\n"},
      {big_client_buf,
       " * Big client buffers: The clients output buffers in this instance are greater "
       "than 200K per client (on average). This may result from different causes, like "
       "Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that "
       "data piles on the Redis instance output buffer, or clients sending commands with "
       "large replies or very large sequences of commands in the same pipeline. Please "
       "use the CLIENT LIST command in order to investigate the issue if it causes "
       "problems in your instance, or to understand better why certain clients are using "
       "a big amount of memory.\n\n"},
      {o.scripts > 1000,
       " * Many scripts: There seem to be many cached scripts in this instance (more "
       "than 1000). This may be because scripts are generated and `EVAL`ed, instead of "
       "being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless "
       "`SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming "
       "most of your memory.\n\n"},
  };
  std::string issues;
  for (const auto& [holds, text] : checks) {
    if (holds) issues += text;
  }
  if (issues.empty()) {
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
           "occurs on this base.\n";
  }
  return "Sam, I detected a few issues in this Redis instance memory implants:\n\n" + issues +
         "I'm here to keep you safe, Sam. I want to help you.\n";
}

Task Memory(AsyncContext& ctx) {
  // Arities are the subcommand rows' (checked before the call).
  const std::string& sub = ctx.args[1];
  std::string name;
  for (std::string_view s : {"usage", "stats", "doctor", "malloc-stats", "purge", "help"}) {
    if (Is(sub, s)) name = s;
  }
  if (name.empty()) {
    ctx.reply.Error(UnknownSubcommand("memory", sub));
    co_return;
  }
  if (name == "help") {
    ctx.reply.Help(kMemoryHelp);
  } else if (name == "usage") {
    co_await Usage(ctx);
  } else if (name == "stats" || name == "doctor") {
    ServerFigures o;
    co_await GatherFigures(ctx, name == "stats", &o);
    if (Failed(o.failure, ctx.reply)) co_return;
    if (name == "stats") {
      ReplyStats(o, ctx.reply);
    } else {
      ctx.reply.Verbatim(DoctorReport(o));
    }
  } else if (name == "malloc-stats") {
    const std::string stats = JemallocStats();
    ctx.reply.Verbatim(stats.empty() ? "Stats not supported for the current allocator" : stats);
  } else if (PurgeAllocator()) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Error("ERR Error purging dirty pages");
  }
  co_await ctx.ToHome();
}

}  // namespace

void RegisterMemoryCommand(CommandTable& t) {
  // clang-format off
  t.Add({.name = "memory", .arity = -2, .flags = 0, .run_async = Memory,
         .group = "server", .summary = "A container for memory diagnostics commands",
         .since = "4.0.0", .acl = "slow",
         .subcommands = {
             Subcommand("memory|doctor", 2, 0, "slow"),
             Subcommand("memory|help", 2, kLoading | kStale, "slow"),
             Subcommand("memory|malloc-stats", 2, 0, "slow"),
             Subcommand("memory|purge", 2, 0, "slow"),
             Subcommand("memory|stats", 2, 0, "slow"),
             Subcommand("memory|usage", -3, kReadOnly, "read slow", 2, "RO"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
