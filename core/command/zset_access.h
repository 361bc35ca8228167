// What the sorted-set command files (zset_commands.cc, zset_range_commands.cc,
// zset_setops_commands.cc, blocking_commands.cc) share: reading and writing a key as a whole
// ZSetValue, point and end operations on a key whatever its representation (ZSetAccess), and
// replying entries as Redis does in RESP2 and RESP3.
//
// A sorted set above paged-collection-threshold entries is paged (core/types/zset_pages.h):
// ZSetAccess reaches it in O(log n) pages per member; ReadZSet reads it whole (O(n)), for the
// commands that need every entry (set operations, ZRANDMEMBER, ZRANGESTORE's source).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/collection_access.h"
#include "core/command/collection_pages.h"
#include "core/command/typed_read.h"
#include "core/types/zset_pages.h"
#include "core/types/zset_value.h"

namespace slotkv::command {

using ZSetRead = TypedRead<ZSetValue>;

// Reads key whole (a paged set from all its pages).
inline ZSetRead ReadZSet(Store& store, WorkerStats& stats, Lookup lookup, std::string_view key) {
  return ReadWhole<ZSetValue>(store, stats, lookup, key, ValueType::kZSet);
}

// Writes zset under key (keeping expire_at_ms; paged above the threshold), or deletes the key
// when zset is empty; a paged set the key held is queued for reclaim.
inline Status WriteZSet(Store& store, std::string_view key, const ZSetValue& zset,
                        int64_t expire_at_ms) {
  return StoreCollection(store, key, zset, ValueType::kZSet, expire_at_ms);
}

// Which end a pop takes from: the lowest scores (ZPOPMIN, MIN) or the highest (ZPOPMAX, MAX).
enum class ZEnd { kMin, kMax };

// Removes up to count entries from `end` of zset and returns them in pop order.
std::vector<ZSetValue::Entry> PopEntries(ZSetValue& zset, ZEnd end, size_t count);

// One sorted-set key for the commands that touch a few entries (ZADD ZREM ZSCORE ZRANK, pops,
// ranges): a one-value set is decoded whole, as before, and becomes paged when a write takes
// it past the threshold; a paged set costs O(log n) pages per entry touched.
class ZSetAccess : public CollectionAccess<ZSetValue, ZSetPages, ZSetRoot> {
 public:
  explicit ZSetAccess(Store& store) : CollectionAccess(store, ValueType::kZSet) {}

  Result<std::optional<double>> Score(std::string_view member);
  // As ZSetValue::Set; creates the set when the key was missing.
  Result<ZSetValue::Change> Set(std::string_view member, double score);
  // true when member was there.
  Result<bool> Remove(std::string_view member);
  // The ascending rank of member, or nullopt.
  Result<std::optional<uint64_t>> Rank(std::string_view member);
  // Removes up to count entries from `end` and returns them in pop order.
  Result<std::vector<ZSetValue::Entry>> Pop(ZEnd end, size_t count);
  // Calls fn on the entries with min <= score < max, ascending, until fn returns false (the
  // score ranges of GEO searches).
  Status ForEachScoreIn(double min, double max,
                        const std::function<bool(const ZSetValue::Entry&)>& fn);
};

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ...: also GEOADD's work, which calls it
// with its coordinates made scores, as Redis's geoaddCommand.
void ZAdd(CommandContext& ctx);

// Entries as ZRANGE ... WITHSCORES replies them: RESP2 a flat array member, score, ...;
// RESP3 an array of [member, score] pairs with double scores. Without scores, the members.
void ReplyEntries(Reply& reply, const std::vector<ZSetValue::Entry>& entries, bool with_scores);

// The arguments of ZMPOP / BZMPOP after the timeout: numkeys key [key ...] MIN|MAX
// [COUNT count].
struct ZMPopArgs {
  size_t first_key = 0;  // index in args
  size_t num_keys = 0;
  ZEnd end = ZEnd::kMin;
  int64_t count = 1;
};
// Parses them from args[numkeys_at] on, checked in Redis's order; nullopt after replying the
// error.
std::optional<ZMPopArgs> ParseZMPopArgs(const std::vector<std::string>& args,
                                        size_t numkeys_at, Reply& reply);

// Pops up to count entries from `end` of the sorted set at key for ZMPOP / BZMPOP. When the
// key holds a sorted set, writes it back (keeping its TTL; deleting it when emptied), replies
// [key, [[member, score] ...]] and returns true; also true after replying an error (WRONGTYPE,
// storage). False, with nothing replied, when the key does not exist.
bool ZMPopFrom(Store& store, WorkerStats& stats, std::string_view key, ZEnd end, int64_t count,
               Reply& reply);

}  // namespace slotkv::command
