// SegmentTable: the in-memory table of a chunk store's segments (owner group, live bytes, run,
// allocation order), its per-group index, the free list, and the encoding of `segments.meta`
// (format at the top of segment_table.cc). Internal to chunk/; ChunkStore owns one.
//
// Runs. Segments are handed out in runs of consecutive segments (usually one). The run's first
// segment (its head) carries the run's live bytes and stands for the run in the group index,
// in CompactionCandidates and in frees; the other segments only name their head.
//
// Life of a run: Allocate (fresh: written since the last Commit, never a candidate) ->
// ClearFresh at Commit -> RequestFree, or live bytes reach 0 -> TakeFrees at Commit marks it free
// in the table (its entries become dirty) -> MakeReusable once those entries are durable, after
// which Allocate may hand it out again.
//
// Thread rule: one owner thread, like the ChunkStore.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace slotkv::chunk {

// Group id of a free segment in segments.meta; not a valid group for Add.
inline constexpr uint32_t kNoGroup = 0xFFFFFFFF;
inline constexpr size_t kSegmentEntryBytes = 32;

struct SegmentRun {
  uint32_t head = 0;
  uint32_t length = 0;
};

class SegmentTable {
 public:
  explicit SegmentTable(uint32_t segment_bytes) : segment_bytes_(segment_bytes) {}

  // Rebuilds the table from the contents of segments.meta. Corruption (naming the entry) on a
  // checksum mismatch or an impossible entry. A trailing partial entry is ignored, and a run
  // whose entries disagree (or that ends past the table) is freed: either is the torn write of
  // a flush that never finished, whose segments nothing durable points at. The next TakeFrees
  // returns such runs so that Commit writes them free before they are reused.
  // REQUIRES: called once, on an empty table.
  Status Load(std::string_view meta);

  // Segments the table covers; chunks.dat holds at most this many that matter.
  uint32_t segment_count() const { return static_cast<uint32_t>(segs_.size()); }
  // True when segment is in the table and owned by a group.
  bool IsUsed(uint32_t segment) const {
    return segment < segs_.size() && segs_[segment].group != kNoGroup;
  }
  // REQUIRES for the four below: IsUsed(segment).
  uint32_t RunHead(uint32_t segment) const { return segs_[segment].run_head; }
  uint32_t RunLength(uint32_t segment) const { return segs_[segment].run_len; }
  uint32_t Group(uint32_t segment) const { return segs_[segment].group; }
  bool FreeRequested(uint32_t segment) const { return segs_[RunHead(segment)].free_requested; }

  // Gives group a fresh run of n consecutive segments: reusable free segments first (lowest
  // index), else at the end of the file (possibly taking a free tail). Returns its head.
  // REQUIRES: group != kNoGroup, n >= 1.
  uint32_t Allocate(uint32_t group, uint32_t n);
  // Adds bytes to the live bytes of the run headed by head. REQUIRES: IsUsed(head).
  void AddLive(uint32_t head, uint32_t bytes);
  // Subtracts bytes from the live bytes of segment's run (never below 0); ignored for a segment
  // that is not used. The run is freed at the next TakeFrees when its live bytes reach 0.
  void ReleaseLive(uint32_t segment, uint32_t bytes);
  // Frees segment's run at the next TakeFrees; ignored for a segment that is not used.
  void RequestFree(uint32_t segment);

  // Heads of up to max runs of group worth compacting, oldest allocation first: only when the
  // group's runs hold more than twice its live bytes, and only runs under half live that are
  // neither fresh nor already to be freed.
  std::vector<uint32_t> Candidates(uint32_t group, size_t max) const;

  // Commit, step 1: runs stop being fresh.
  void ClearFresh();
  // Commit, step 2: marks every run to be freed (requested, or with no live bytes) free in the
  // table and drops it from its group; returns them. *requested counts the segments freed
  // because of RequestFree.
  std::vector<SegmentRun> TakeFrees(uint64_t* requested);
  // Commit, step 3: the segments.meta writes for the entries changed since ClearDirty, as
  // (file offset, bytes), adjacent entries merged into one write. With fresh_only, only the
  // entries of fresh runs not recorded yet (what SyncData records before bucket pages may point
  // at them). Live bytes must never drop on disk before the pages that stopped using those
  // values are durable, so a run's entry goes out once here, as it was sealed, and every later
  // change waits for Commit.
  std::vector<std::pair<uint64_t, std::string>> DirtyWrites(bool fresh_only) const;
  // Forgets the changes DirtyWrites(fresh_only) returned (marking those runs recorded), or all.
  void ClearDirty(bool fresh_only);
  // Commit, step 4 (after the writes are durable): run's segments may be allocated again.
  void MakeReusable(const SegmentRun& run);

  uint64_t used_segments() const { return used_segments_; }
  uint64_t live_bytes() const { return live_bytes_; }

 private:
  // 32 bytes: one per segment of chunks.dat (3.3M at 50M keys), so the flags are bits.
  struct Segment {
    uint32_t group = kNoGroup;
    uint32_t live = 0;      // head only
    uint32_t run_head = 0;  // the rest: used segments only
    uint32_t run_len = 0;
    uint64_t alloc_seq = 0;
    uint32_t index = 0;             // head only: its place in its group's GroupIndex::runs
    bool dirty : 1 = false;
    bool fresh : 1 = false;           // head only
    bool recorded : 1 = false;        // head only: fresh, and its entries written by SyncData
    bool free_requested : 1 = false;  // head only
    bool touched : 1 = false;         // head only: live went down since the last TakeFrees
  };
  static_assert(sizeof(Segment) == 32);
  // A freed run's place in GroupIndex::runs until the list is compacted.
  static constexpr uint32_t kDeadRun = 0xFFFFFFFF;
  struct GroupIndex {
    uint64_t used_bytes = 0;
    uint64_t live_bytes = 0;
    // Heads in allocation order, oldest first (allocation only appends); freed runs leave
    // kDeadRun until more than half the list is dead. 4 bytes a run, not a tree node.
    std::vector<uint32_t> runs;
    size_t dead = 0;
  };

  // The entries of the run headed by head all agree with it and lie within the table.
  bool WholeRun(uint32_t head) const;
  uint32_t FindFreeRun(uint32_t n) const;
  // In a fresh run whose entries DirtyWrites(true) has not returned yet.
  bool Unrecorded(uint32_t segment) const;
  void MarkDirty(uint32_t segment);
  void FreeRun(uint32_t head, std::vector<SegmentRun>* freed);
  // Appends head to g's run list.
  void AddRun(GroupIndex& g, uint32_t head);
  // Drops the dead places of g's run list, renumbering the heads' indexes.
  void CompactRuns(GroupIndex& g);
  void EncodeEntry(uint32_t segment, std::string* out) const;

  uint32_t segment_bytes_;
  std::vector<Segment> segs_;
  std::set<uint32_t> reusable_;  // free and durable as free
  std::unordered_map<uint32_t, GroupIndex> groups_;
  std::vector<uint32_t> dirty_;
  std::vector<uint32_t> fresh_;     // heads
  std::vector<uint32_t> to_check_;  // heads requested free or touched
  std::vector<SegmentRun> repaired_;  // torn runs freed by Load, until TakeFrees
  uint64_t next_alloc_seq_ = 1;
  uint64_t used_segments_ = 0;
  uint64_t live_bytes_ = 0;
};

}  // namespace slotkv::chunk
