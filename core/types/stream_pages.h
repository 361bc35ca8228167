// StreamPages: a long stream stored as a small root plus pages, so that XADD, XDEL, a trim of
// the oldest entries or a read from an ID reads and writes O(height) pages whatever the
// stream's length.
//
// Design. The entries are a keyed CountedTree (counted_tree.h) by ID on pages kTreePageBit + n
// of the collection id; an internal node keeps its children's smallest IDs (no fields), so a
// seek to an ID is one descent, and the counts give XLEN and ranks. An XADD appends at the
// end (1 + height page writes); trimming pops the first entries.
//
// A consumer group's pending entries (PEL) are two more keyed trees of the collection: by ID
// (consumer, delivery time and count) and by (consumer, ID), for a consumer's own reads, counts
// and deletion. Group number g (StreamMeta::next_group hands them out, never twice) has them at
// PelBase(g, false) and PelBase(g, true): 2^32 pages each, below kTreePageBit. So XACK,
// XCLAIM and XREADGROUP change O(height) pages per entry whatever the PEL's length, and
// XGROUP DESTROY hands its group's two page ranges over for reclaim (DropGroup).
//
// The stream's state besides (StreamMeta in its paged form: IDs, counters, the groups with
// their consumers, counts and tree roots) is kept in the root, written with it once per
// command.
//
// Root grammar (the value of the user's key):
//   root := kPagedMarker kStreamKind id:fixed64 count:varint64 tree:varint64 height:u8
//           nodes:varint64 free:varint64 meta
// (meta as StreamMeta::EncodeTo's paged form). Unlike the other collections a stream stays when
// its last entry goes: its root then names an empty tree.
//
// Thread rule: none inside; used by the slot's owner for the duration of one command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  // Group numbers below kMaxGroups; a group's tree has at most kPelNodes nodes.
  static constexpr uint64_t kMaxGroups = uint64_t{1} << 29;
  static constexpr uint64_t kPelNodes = uint64_t{1} << 32;
  // The first page of group number's PEL tree by ID (by consumer: owned).
  static uint64_t PelBase(uint64_t number, bool owned) {
    return (uint64_t{1} << 62) + ((number * 2 + (owned ? 1 : 0)) << 32);
  }

  // A stream whose root is root; page_members entries per leaf.
  StreamPages(StreamRoot root, PageIo* io, uint32_t page_members);
  // A new stream with no entries, a fresh random id and no state.
  static StreamPages Create(PageIo* io, uint32_t page_members);

  // The root as it stands (meta included); store it after Finish.
  StreamRoot root() const;
  uint64_t size() const { return count_; }
  uint64_t collection_id() const { return id_; }
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

  // ---- the PELs: g is one of meta().groups -------------------------------------------------
  // Gives a new group (not in meta().groups yet) its number; Corruption when none is left.
  Status NumberGroup(StreamGroup* g);
  // The pending entry id, or nullopt.
  Result<std::optional<StreamNack>> FindPending(StreamGroup& g, const StreamId& id);
  // Makes id pending for consumer (in g.consumers), delivered at time, count times: a new entry
  // or one moved over from another consumer.
  Status SetPending(StreamGroup& g, const StreamId& id, const std::string& consumer, int64_t time,
                    uint64_t count);
  // Removes id from the PEL; false when it was not pending.
  Result<bool> Ack(StreamGroup& g, const StreamId& id);
  // Removes consumer name (which must exist) and its pending entries; returns how many.
  Result<uint64_t> DeleteConsumer(StreamGroup& g, const std::string& name);
  using PendingFn = std::function<bool(const StreamId&, const StreamNack&)>;
  // Calls fn on the pending entries from the first with an ID >= from (reverse: the last <=
  // from, going down) until fn returns false or they end. fn must not change the PEL.
  Status WalkPending(StreamGroup& g, const StreamId& from, bool reverse, const PendingFn& fn);
  // Calls fn on consumer's pending IDs from `from` on, ascending, until fn returns false.
  Status WalkOwned(StreamGroup& g, const std::string& consumer, const StreamId& from,
                   const std::function<bool(const StreamId&)>& fn);
  // Forgets group g's trees (unwritten changes dropped) and returns their page ranges
  // (base, pages), to be reclaimed once the group is gone from the root.
  std::vector<std::pair<uint64_t, uint64_t>> DropGroup(StreamGroup& g);

  // The meta as a one-value stream has it (every group's PEL read from its pages).
  Result<StreamMeta> OneValueMeta();
  // Takes a one-value stream's meta: numbers its groups and writes their PELs into pages.
  // REQUIRES: a new stream with no groups yet.
  Status AdoptMeta(const StreamMeta& one_value);

  // Writes every changed page (Corruption, writing nothing, when the root's count or a group's
  // pending count, its consumers' together, disagrees with its trees). The caller then stores
  // root().
  Status Finish();

 private:
  struct GroupTrees {
    CountedTree<StreamPelTraits> pel;
    CountedTree<StreamOwnedTraits> owned;
  };
  GroupTrees& Trees(const StreamGroup& g);

  PageIo* io_;
  uint32_t page_members_;
  uint64_t id_;
  uint64_t count_;
  StreamMeta meta_;
  CountedTree<StreamTreeTraits> tree_;
  std::map<uint64_t, GroupTrees> groups_;  // loaded, by group number
};

}  // namespace slotkv
