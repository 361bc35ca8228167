// What the sorted-set command files (zset_commands.cc, zset_range_commands.cc,
// zset_setops_commands.cc, blocking_commands.cc) share: reading and writing a key as a
// ZSetValue, popping from either end, and replying entries as Redis does in RESP2 and RESP3.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/typed_read.h"
#include "core/types/zset_value.h"

namespace slotkv::command {

using ZSetRead = TypedRead<ZSetValue>;

inline ZSetRead ReadZSet(Store& store, WorkerStats& stats, Lookup lookup, std::string_view key) {
  return ReadTyped<ZSetValue>(store, stats, lookup, key, ValueType::kZSet);
}

// Writes zset under key (keeping expire_at_ms), or deletes the key when zset is empty.
inline Status WriteZSet(Store& store, std::string_view key, const ZSetValue& zset,
                        int64_t expire_at_ms) {
  return WriteTyped(store, key, zset, ValueType::kZSet, expire_at_ms);
}

// Which end a pop takes from: the lowest scores (ZPOPMIN, MIN) or the highest (ZPOPMAX, MAX).
enum class ZEnd { kMin, kMax };

// Removes up to count entries from `end` of zset and returns them in pop order.
std::vector<ZSetValue::Entry> PopEntries(ZSetValue& zset, ZEnd end, size_t count);

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
