// Reading one key as a collection of a given type, for the collection families: the value is
// fetched, its type checked (WRONGTYPE), decoded (Corruption on a bad value) and counted as a
// keyspace hit or miss when the command is a reader (Redis's lookupKeyRead).
//
// V is a collection value class with `static Result<V> Decode(std::string_view)` (ListValue,
// ZSetValue ...).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/command/args.h"
#include "core/command/context.h"
#include "core/types/zset_pages.h"

namespace slotkv::command {

// Whether a lookup counts in keyspace_hits / keyspace_misses (lookupKeyRead) or not
// (lookupKeyWrite).
enum class Lookup { kRead, kWrite };

// The running worker's stats. REQUIRES: on a worker.
inline WorkerStats& StatsHere(ServerState& server) {
  return *(*server.stats)[static_cast<size_t>(server.executor->current())];
}

// Counts a reader's lookup of key as a keyspace hit or miss, as Redis's lookupKeyRead; a miss
// is told to keyspace notifications ("keymiss") too.
inline void CountLookup(Store& store, WorkerStats& stats, std::string_view key, bool hit) {
  WorkerStats::Add(hit ? stats.keyspace_hits : stats.keyspace_misses);
  if (!hit) store.Missed(key);
}

// The outcome of reading one key as a V.
template <class V>
struct TypedRead {
  Status status;            // storage failure or Corruption of the value
  bool wrong_type = false;  // the key holds another type
  std::optional<V> value;   // nullopt when the key does not exist (or on failure)
  slot::KeyMeta meta;       // the key's metadata; default (no TTL) when missing
};

// access.Open(key, stats, lookup, &wrong_type), replying WRONGTYPE or the failure; false then.
template <class Access>
bool OpenOrReply(Access& access, std::string_view key, WorkerStats& stats, Lookup lookup,
                 Reply& reply) {
  bool wrong_type = false;
  if (Failed(access.Open(key, stats, lookup, &wrong_type), reply)) return false;
  if (wrong_type) reply.Error(kErrWrongType);
  return !wrong_type;
}

// Replies the error of a failed read; true when there was one.
template <class V>
bool ReadFailed(const TypedRead<V>& read, Reply& reply) {
  if (Failed(read.status, reply)) return true;
  if (read.wrong_type) {
    reply.Error(kErrWrongType);
    return true;
  }
  return false;
}

// LLEN / SCARD / ZCARD / HLEN key: the count read from the value's header alone
// (V::DecodeSize), or from a paged collection's root, 0 for a missing key; a reader's lookup
// (a keyspace hit or miss).
template <class V>
void ReplyCollectionSize(CommandContext& ctx, ValueType type) {
  slot::KeyMeta meta;
  Result<std::optional<std::string>> r = ctx.store.Get(ctx.args[1], &meta);
  if (Failed(r.status(), ctx.reply)) return;
  CountLookup(ctx.store, ctx.stats, ctx.args[1], r->has_value());
  if (!r->has_value()) {
    ctx.reply.Integer(0);
    return;
  }
  if (meta.type != type) {
    ctx.reply.Error(kErrWrongType);
    return;
  }
  Result<uint64_t> n = IsPagedRoot(**r) ? PagedRootCount(**r) : V::DecodeSize(**r);
  if (Failed(n.status(), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(*n));
}

}  // namespace slotkv::command
