// StreamPages: a long stream stored as a small root plus pages, so that XADD, XDEL, a trim of
// the oldest entries or a read from an ID reads and writes O(height) pages whatever the
// stream's length.
//
// Design. The entries are a keyed CountedTree (counted_tree.h) by ID on pages kTreePageBit + n
// of the collection id; an internal node keeps its children's smallest IDs (no fields), so a
// seek to an ID is one descent, and the counts give XLEN and ranks. An XADD appends at the
// end (1 + height page writes); trimming pops the first entries. The stream's state besides
// its entries (StreamMeta: IDs, counters, consumer groups with their pending entries) is kept
// in the root, written with it once per command.
//
// Root grammar (the value of the user's key):
//   root := kPagedMarker kStreamKind id:fixed64 count:varint64 tree:varint64 height:u8
//           nodes:varint64 free:varint64 meta
// (meta as StreamMeta::EncodeTo). Unlike the other collections a stream stays when its last
// entry goes: its root then names an empty tree.
//
// Thread rule: none inside; used by the slot's owner for the duration of one command.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/types/counted_tree.h"
#include "core/types/member_pages.h"
#include "core/types/stream_value.h"

namespace slotkv {

inline constexpr uint8_t kStreamKind = 4;

struct StreamRoot : TreeRoot {
  uint64_t id = 0;
  uint64_t count = 0;  // entries
  StreamMeta meta;

  std::string Encode() const;
  // Corruption on anything Encode could not have made.
  static Result<StreamRoot> Decode(std::string_view bytes);
};

class StreamPages {
 public:
  using Entry = StreamTreeEntry;

  // A stream whose root is root; page_members entries per leaf.
  StreamPages(StreamRoot root, PageIo* io, uint32_t page_members);
  // A new stream with no entries, a fresh random id and no state.
  static StreamPages Create(PageIo* io, uint32_t page_members);

  // The root as it stands (meta included); store it after Finish.
  StreamRoot root() const;
  uint64_t size() const { return count_; }
  StreamMeta& meta() { return meta_; }

  // Appends an entry. REQUIRES: id is above every entry's.
  Status Append(StreamId id, StreamFields fields);
  // Removes the entry id; false when there is none.
  Result<bool> Erase(const StreamId& id);
  // Removes the first entry and returns its ID. REQUIRES: size() > 0.
  Result<StreamId> EraseFirst();
  // The fields of entry id, or nullopt.
  Result<std::optional<StreamFields>> Get(const StreamId& id);
  // Calls fn on the entries from the first with an ID >= from (reverse: the last with an ID
  // <= from, going down), until fn returns false or the entries end.
  Status Walk(const StreamId& from, bool reverse, const std::function<bool(const Entry&)>& fn);
  // How many entries have an ID below id.
  Result<uint64_t> CountBelow(const StreamId& id);

  // Writes every changed page (Corruption, writing nothing, when the root's count disagrees
  // with the tree). The caller then stores root().
  Status Finish();

 private:
  uint64_t id_;
  uint64_t count_;
  StreamMeta meta_;
  CountedTree<StreamTreeTraits> tree_;
};

}  // namespace slotkv
