// HyperLogLog family: PFADD PFCOUNT PFMERGE, and Redis's debugging PFDEBUG and PFSELFTEST, over
// string values holding Redis's HLL format (core/types/hyperloglog.h), as Redis 7.0's
// hyperloglog.c.
//
// Semantics kept from Redis: a missing key counts as an empty HLL; a key of another type gives
// WRONGTYPE, a string that is not an HLL "WRONGTYPE Key is not a valid HyperLogLog string
// value.", registers that do not decode INVALIDOBJ. PFADD creates the key (also with no
// elements) and keeps its TTL; PFMERGE merges its destination too, makes it dense when any
// source is dense, and keeps its TTL. Both tell keyspace notifications "pfadd".
//
// PFCOUNT of one key whose cached cardinality is stale writes the count into the value's
// header, as Redis (a replica leaves its copy as the master sent it); of several keys it
// writes nothing.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/replication.h"
#include "core/command/typed_read.h"
#include "core/types/hyperloglog.h"

namespace slotkv::command {
namespace {

size_t SparseMax(const ServerState& server) {
  return static_cast<size_t>(server.hll_sparse_max_bytes.load(std::memory_order_relaxed));
}

// What reading a key as an HLL found.
enum class HllRead { kOk, kWrongType, kNotHll };

// Reads key from store: *value is nullopt for a missing key. A reader's lookup (lookup)
// counts a keyspace hit or miss.
Result<HllRead> ReadHll(Store& store, WorkerStats& stats, Lookup lookup, std::string_view key,
                        std::optional<std::string>* value, slot::KeyMeta* meta) {
  SLOTKV_ASSIGN_OR_RETURN(*value, store.Get(key, meta));
  if (lookup == Lookup::kRead) CountLookup(store, stats, key, value->has_value());
  if (!*value) return HllRead::kOk;
  if (meta->type != ValueType::kString) return HllRead::kWrongType;
  return hll::LooksValid(**value) ? HllRead::kOk : HllRead::kNotHll;
}

// The error a read that found no HLL replies; empty when it found one (or nothing).
std::string_view ErrorOf(HllRead read) {
  if (read == HllRead::kWrongType) return kErrWrongType;
  if (read == HllRead::kNotHll) return kErrNotHll;
  return {};
}

// PFADD key [element ...]: 1 when the key was created or a register grew, else 0.
void PfAdd(CommandContext& ctx) {
  const std::string& key = ctx.args[1];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  Result<HllRead> read = ReadHll(ctx.store, ctx.stats, Lookup::kWrite, key, &value, &meta);
  if (Failed(read.status(), ctx.reply)) return;
  if (std::string_view error = ErrorOf(*read); !error.empty()) {
    ctx.reply.Error(error);
    return;
  }
  bool updated = !value;
  if (!value) value = hll::Empty();
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    Result<bool> grew = hll::Add(&*value, ctx.args[i], SparseMax(ctx.server));
    if (!grew.ok()) {
      ctx.reply.Error(kErrBadHll);
      return;
    }
    updated = updated || *grew;
  }
  if (updated) {
    hll::Invalidate(&*value);
    if (Failed(ctx.store.Put(key, *value, ValueType::kString, meta.expire_at_ms), ctx.reply)) {
      return;
    }
  }
  ctx.reply.Integer(updated ? 1 : 0);
}

// What ReadHlls calls on each HLL found: fn(store, key, value, meta) on the key's owner, OK or
// Corruption (registers that do not decode) or a failed write. It may write only after its
// reads: a step runs again after a fetch of what it missed.
using HllStep = std::function<Status(Store&, std::string_view, std::string&, const slot::KeyMeta&)>;

// Reads the HLLs at args[positions] on their owners (reads that would wait for the disk are
// fetched first: ForEachKeySlotReading, so fn may see a value twice) and calls fn on each that
// exists. *ok false after replying an error: WRONGTYPE, not an HLL, INVALIDOBJ, a failure.
Task ReadHlls(AsyncContext& ctx, const std::vector<size_t>& positions, HllStep fn, bool* ok) {
  std::string_view error;
  Status failure;
  co_await ForEachKeySlotReading(
      ctx, positions,
      [&](Store& store, const std::vector<size_t>& ps) -> Status {
        for (size_t p : ps) {
          std::optional<std::string> value;
          slot::KeyMeta meta;
          Result<HllRead> read =
              ReadHll(store, StatsHere(ctx.server), Lookup::kRead, ctx.args[p], &value, &meta);
          if (!read.ok()) return read.status();
          error = ErrorOf(*read);
          if (error.empty() && value) {
            Status st = fn(store, ctx.args[p], *value, meta);
            if (st.IsCorruption()) {
              error = kErrBadHll;
            } else if (!st.ok()) {
              return st;
            }
          }
          if (!error.empty()) return Status::InvalidArgument(error);
        }
        return Status::OK();
      },
      &failure);
  *ok = failure.ok();
  if (!error.empty()) {
    ctx.reply.Error(error);
  } else {
    Failed(failure, ctx.reply);
  }
}

std::vector<size_t> KeyPositions(const AsyncContext& ctx) {
  std::vector<size_t> positions;
  for (size_t i = 1; i < ctx.args.size(); ++i) positions.push_back(i);
  return positions;
}

// Whether a command may write here a change its master did not send (PFCOUNT's cache).
bool Replica(const ServerState& server) {
  return server.replication != nullptr && server.replication->is_replica();
}

// PFCOUNT key [key ...]: the cardinality of one HLL (its cached one when valid, else counted
// and cached), or of the union of several.
Task PfCount(AsyncContext& ctx) {
  const bool one = ctx.args.size() == 2;
  uint64_t count = 0;
  hll::Registers max{};
  bool ok = false;
  co_await ReadHlls(
      ctx, KeyPositions(ctx),
      [&](Store& store, std::string_view key, std::string& value, const slot::KeyMeta& meta) {
        if (!one) return hll::MergeInto(value, &max);
        bool cached = false;
        SLOTKV_ASSIGN_OR_RETURN(count, hll::Count(&value, &cached));
        if (!cached || Replica(ctx.server)) return Status::OK();
        return store.Put(key, value, ValueType::kString, meta.expire_at_ms);
      },
      &ok);
  if (ok) ctx.reply.Integer(static_cast<int64_t>(one ? count : hll::CountRegisters(max)));
  co_await ctx.ToHome();
}

// PFMERGE destkey [sourcekey ...]: OK; destkey holds the union of itself and the sources.
Task PfMerge(AsyncContext& ctx) {
  hll::Registers max{};
  bool dense = false;
  bool ok = false;
  co_await ReadHlls(
      ctx, KeyPositions(ctx),
      [&](Store&, std::string_view, std::string& value, const slot::KeyMeta&) {
        dense = dense || hll::IsDense(value);
        return hll::MergeInto(value, &max);
      },
      &ok);
  if (ok) {
    const std::string& dest = ctx.args[1];
    const uint32_t s = ctx.server.keyspace->SlotOfKey(dest);
    co_await ctx.ToSlot(s);
    Store store = ctx.StoreOf(s);
    std::optional<std::string> value;
    slot::KeyMeta meta;
    // The merge above checked it; the command holds its keys, so it is still an HLL.
    Result<HllRead> read =
        ReadHll(store, StatsHere(ctx.server), Lookup::kWrite, dest, &value, &meta);
    if (!Failed(read.status(), ctx.reply)) {
      if (!value) value = hll::Empty();
      if (!hll::RaiseTo(&*value, max, dense, SparseMax(ctx.server)).ok()) {
        ctx.reply.Error(kErrBadHll);
      } else if (!Failed(store.Put(dest, *value, ValueType::kString, meta.expire_at_ms),
                         ctx.reply)) {
        ctx.reply.Ok();
      }
    }
  }
  co_await ctx.ToHome();
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key: Redis's debugging view of an HLL value. GETREG
// and TODENSE make a sparse value dense first (a write, as in Redis; no keyspace event).
void PfDebug(CommandContext& ctx) {
  const std::string& sub = ctx.args[1];
  const std::string& key = ctx.args[2];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  Result<HllRead> read = ReadHll(ctx.store, ctx.stats, Lookup::kWrite, key, &value, &meta);
  if (Failed(read.status(), ctx.reply)) return;
  if (!value) {
    ctx.reply.Error("ERR The specified key does not exist");
    return;
  }
  if (std::string_view error = ErrorOf(*read); !error.empty()) {
    ctx.reply.Error(error);
    return;
  }
  const bool sparse = !hll::IsDense(*value);
  if (Is(sub, "GETREG") || Is(sub, "TODENSE")) {
    hll::Registers regs{};
    if (sparse && !hll::ToDense(&*value).ok()) {
      ctx.reply.Error(kErrBadHll);
      return;
    }
    if (sparse &&
        Failed(ctx.store.Put(key, *value, ValueType::kString, meta.expire_at_ms), ctx.reply)) {
      return;
    }
    if (Is(sub, "TODENSE")) {
      ctx.reply.Integer(sparse ? 1 : 0);
      return;
    }
    if (!hll::MergeInto(*value, &regs).ok()) {
      ctx.reply.Error(kErrBadHll);
      return;
    }
    ctx.reply.Array(regs.size());
    for (uint8_t r : regs) ctx.reply.Integer(r);
  } else if (Is(sub, "DECODE")) {
    if (!sparse) {
      ctx.reply.Error("ERR HLL encoding is not sparse");
      return;
    }
    ctx.reply.Bulk(hll::DescribeSparse(*value));
  } else if (Is(sub, "ENCODING")) {
    ctx.reply.SimpleString(sparse ? "sparse" : "dense");
  } else {
    ctx.reply.Error("ERR Unknown PFDEBUG subcommand '" + sub + "'");
  }
}

// PFSELFTEST: Redis's self test of the HLL code (hll::SelfTest), about half a second on the
// calling worker, which answers nothing else meanwhile (Redis's whole server waits).
Task PfSelfTest(AsyncContext& ctx) {
  const std::string failure = hll::SelfTest();
  if (failure.empty()) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Error(failure);
  }
  co_return;
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS. PFDEBUG and PFSELFTEST (Redis's internal test commands) are not here.
void RegisterHyperLogLogCommands(CommandTable& t) {
  t.Add({.name = "pfdebug", .arity = 3, .flags = kWrite | kDenyOom | kAdmin, .first_key = 2,
         .last_key = 2, .step = 1, .run = PfDebug, .group = "hyperloglog",
         .summary = "Internal commands for debugging HyperLogLog values", .since = "2.8.9",
         .acl = "write hyperloglog admin slow dangerous", .key_specs = "RW access"});
  t.Add({.name = "pfselftest", .arity = 1, .flags = kAdmin, .run_async = PfSelfTest,
         .group = "hyperloglog",
         .summary = "An internal command for testing HyperLogLog values", .since = "2.8.9",
         .acl = "hyperloglog admin slow dangerous"});
  t.Add({.name = "pfadd",
         .arity = -2,
         .flags = kWrite | kDenyOom | kFast,
         .first_key = 1,
         .last_key = 1,
         .step = 1,
         .run = PfAdd,
         .group = "hyperloglog",
         .summary = "Adds the specified elements to the specified HyperLogLog.",
         .since = "2.8.9",
         .acl = "write hyperloglog fast", .key_specs = "RW insert"});
  t.Add({.name = "pfcount",
         .arity = -2,
         .flags = kReadOnly,
         .first_key = 1,
         .last_key = -1,
         .step = 1,
         .run_async = PfCount,
         .group = "hyperloglog",
         .summary = "Return the approximated cardinality of the set(s) observed by the "
                    "HyperLogLog at key(s).",
         .since = "2.8.9",
         .acl = "read hyperloglog slow", .key_specs = "RW access"});
  t.Add({.name = "pfmerge",
         .arity = -2,
         .flags = kWrite | kDenyOom,
         .first_key = 1,
         .last_key = -1,
         .step = 1,
         .run_async = PfMerge,
         .group = "hyperloglog",
         .summary = "Merge N different HyperLogLogs into a single one.",
         .since = "2.8.9",
         .acl = "write hyperloglog slow", .key_specs = "RW access insert|RO access"});
}

}  // namespace slotkv::command
