// What the list command files (list_commands.cc, blocking_commands.cc) share: reading and
// writing a key as a ListValue, the two ends, and the steps of LMOVE and LMPOP that their
// blocking forms (BLMOVE, BLMPOP) also run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/typed_read.h"
#include "core/types/list_value.h"

namespace slotkv::command {

using ListRead = TypedRead<ListValue>;

inline ListRead ReadListValue(Store& store, WorkerStats& stats, Lookup lookup,
                              std::string_view key) {
  return ReadTyped<ListValue>(store, stats, lookup, key, ValueType::kList);
}

// Writes list under key (keeping expire_at_ms), or deletes the key when list is empty.
inline Status WriteList(Store& store, std::string_view key, const ListValue& list,
                        int64_t expire_at_ms) {
  return WriteTyped(store, key, list, ValueType::kList, expire_at_ms);
}

enum class End { kLeft, kRight };

std::string Pop(ListValue& list, End end);
void Push(ListValue& list, End end, std::string_view v);
// LEFT / RIGHT (any case); nullopt for anything else.
std::optional<End> ParseEnd(std::string_view arg);

// LMOVE's work: pops from `end` of src and pushes to `to_end` of dst, replying the element or
// an error. When src does not exist, replies nothing and sets *source_missing. With src and
// dst in one slot it is one step on the owner (atomic); otherwise see list_access.cc. Ends on
// any worker.
Task MoveElement(AsyncContext& ctx, std::string_view src, std::string_view dst, End from_end,
                 End to_end, bool* source_missing);

// The arguments of LMPOP / BLMPOP after the timeout: numkeys key [key ...] LEFT|RIGHT
// [COUNT count].
struct MPopArgs {
  size_t first_key = 0;  // index in args
  size_t num_keys = 0;
  End end = End::kLeft;
  int64_t count = 1;
};
// Parses them from args[numkeys_at] on, checked in Redis's order; nullopt after replying the
// error.
std::optional<MPopArgs> ParseMPopArgs(const std::vector<std::string>& args, size_t numkeys_at,
                                      Reply& reply);

// Pops up to count elements from `end` of the list at key for LMPOP / BLMPOP. When the key
// holds a list, writes it back, replies [key, [elements]] and returns true; also true after
// replying an error. False, with nothing replied, when the key does not exist.
bool ListMPopFrom(Store& store, WorkerStats& stats, std::string_view key, End end,
                  int64_t count, Reply& reply);

}  // namespace slotkv::command
