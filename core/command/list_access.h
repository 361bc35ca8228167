// What the list command files (list_commands.cc, blocking_commands.cc) share: one list key
// whatever its representation (ListAccess), the two ends, and the steps of LMOVE and LMPOP
// that their blocking forms (BLMOVE, BLMPOP) also run.
//
// A list above paged-collection-threshold elements is paged (core/types/list_pages.h): a push,
// a pop, LINDEX and LSET cost O(height) pages, LRANGE O(height + returned); LINSERT, LREM and
// LPOS scan as Redis does. A one-value list is decoded and written whole, and becomes paged
// when a write takes it past the threshold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <functional>

#include "core/command/collection_access.h"
#include "core/command/collection_pages.h"
#include "core/command/typed_read.h"
#include "core/types/list_pages.h"
#include "core/types/list_value.h"

namespace slotkv::command {

enum class End { kLeft, kRight };

// One list key for the list commands.
class ListAccess : public CollectionAccess<ListValue, ListPages, ListRoot> {
 public:
  explicit ListAccess(Store& store) : CollectionAccess(store, ValueType::kList) {}

  // Pushes v at `end`, creating the list when the key was missing.
  Status Push(End end, std::string_view v);
  // Pops from `end`. REQUIRES: size() > 0.
  Result<std::string> Pop(End end);
  // The element at Redis index i, or nullopt when out of range (LINDEX).
  Result<std::optional<std::string>> Index(int64_t i);
  // Replaces the element at Redis index i; false when out of range (LSET).
  Result<bool> Set(int64_t i, std::string_view v);
  // Inserts v before (after) the first element equal to pivot; false when pivot is absent.
  Result<bool> Insert(std::string_view pivot, std::string_view v, bool after);
  // Removes up to |count| elements equal to v (as ListValue::Remove); how many.
  Result<uint64_t> Remove(std::string_view v, int64_t count);
  // Keeps only Redis range [start, stop] (LTRIM); how many elements went.
  Result<uint64_t> Trim(int64_t start, int64_t stop);
  // Calls fn on the elements from position pos on, towards the tail or (reverse) the head,
  // until fn returns false or the elements end.
  Status Walk(uint64_t pos, bool reverse, const std::function<bool(const std::string&)>& fn);
};

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
