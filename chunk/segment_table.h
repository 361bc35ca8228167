// SegmentTable: the in-memory table of a chunk store's segments (owner group, live bytes, run,
// allocation order), its per-group index, the free list, and the encoding of `segments.meta`
// (format at the top of segment_table.cc). Internal to chunk/; ChunkStore owns one.
//
// Runs. Segments are handed out in runs of consecutive segments (usually one). The run's first
// segment (its head) carries the run's live bytes and stands for the run in the group index,
// in CompactionCandidates and in frees; the other segments only name their head.
//
// Life of a run: Allocate (fresh: written since the last Commit, never a candidate) ->
// ClearFresh at Commit -> maybe Reopen (fresh again) to append to its unused end ->
// RequestFree, or live bytes reach 0 -> TakeFrees at Commit marks it free in the table (its
// entries become dirty) -> MakeReusable once those entries are durable, after which Allocate
// may hand it out again.
//
// Fill. A head also records its run's fill: the bytes of records written into it. Records end
// at the fill, so a group's newest run can be reopened by a later flush and its unused end
// filled (AppendableRun, Reopen) instead of every flush starting a fresh, mostly empty segment.
// A fill of 0 is unknown (an entry written before fills were kept): the records end at the
// run's zero padding, and the run is never reopened.
//
// Thread rule: one owner thread, like the ChunkStore.
#pragma once

#include <cstdint>
#include <optional>
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
  // Bytes of records in the run headed by head (0: unknown). REQUIRES: IsUsed(head).
  uint32_t Fill(uint32_t head) const { return segs_[head].fill; }
  // The allocation that handed the run headed by head out: no two share one.
  // REQUIRES: IsUsed(head).
  uint64_t AllocSeq(uint32_t head) const { return segs_[head].alloc_seq; }
  // The alloc_seq the next Allocate hands out.
  uint64_t next_alloc_seq() const { return next_alloc_seq_; }

  // Gives group a fresh run of n consecutive segments: reusable free segments first (lowest
  // index), else at the end of the file (possibly taking a free tail). Returns its head.
  // REQUIRES: group != kNoGroup, n >= 1.
  uint32_t Allocate(uint32_t group, uint32_t n);
  // Adds bytes to the live bytes of the run headed by head. REQUIRES: IsUsed(head).
  void AddLive(uint32_t head, uint32_t bytes);
  // Records that the run headed by head holds fill bytes of records.
  // REQUIRES: IsUsed(head), fill <= the run's bytes, and never lower than before.
  void SetFill(uint32_t head, uint32_t fill);
  // The head of group's newest run when bytes more fit after its fill and it may be reopened
  // (its fill is known, it is not fresh, not to be freed), else kNoGroup.
  uint32_t AppendableRun(uint32_t group, uint32_t bytes) const;
  // Makes the run headed by head fresh again, for appending after its fill: not a candidate,
  // and its entry goes out with SyncData's (DirtyWrites(true)).
  // REQUIRES: head == AppendableRun(its group, ...).
  void Reopen(uint32_t head);
  // Subtracts bytes from the live bytes of segment's run (never below 0); ignored for a segment
  // that is not used. The run is freed at the next TakeFrees when its live bytes reach 0.
  void ReleaseLive(uint32_t segment, uint32_t bytes);
  // Frees segment's run at the next TakeFrees; ignored for a segment that is not used.
  void RequestFree(uint32_t segment);
  // Withdraws RequestFree(segment) (a flush that failed keeps using the run).
  void CancelFree(uint32_t segment);
  // Sets the live bytes of each run of group to live[head] (0 when absent), through AddLive
  // and ReleaseLive: a run left with none is freed at the next TakeFrees.
  void SetGroupLive(uint32_t group, const std::unordered_map<uint32_t, uint64_t>& live);

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
  // values are durable, so a run's entry goes out once here, as it was sealed or refilled, with
  // the bytes released since the last TakeFrees still counted, and every later change waits
  // for Commit.
  std::vector<std::pair<uint64_t, std::string>> DirtyWrites(bool fresh_only) const;
  // Forgets the changes DirtyWrites(fresh_only) returned (marking those runs recorded), or all.
  void ClearDirty(bool fresh_only);
  // Commit, step 4 (after the writes are durable): run's segments may be allocated again.
  void MakeReusable(const SegmentRun& run);
  // While more than `keep` reusable segments still hold their disk blocks: the highest run of
  // adjacent such segments (not taking the count below keep), which counts as punched from
  // then on (the caller punches it). Allocate takes a segment out of the set, punched or not:
  // writing it allocates its blocks again. The run also leaves the free list until the caller,
  // its punch done, calls PunchDone: a punch in flight (through the io_uring) must not meet a
  // run allocated and written meanwhile.
  std::optional<SegmentRun> TakeToPunch(uint64_t keep);
  void PunchDone(const SegmentRun& run);
  uint64_t holding_segments() const { return holding_.size(); }

  uint64_t used_segments() const { return used_segments_; }
  uint64_t live_bytes() const { return live_bytes_; }

 private:
  // 32 bytes: one per segment of chunks.dat (millions at 50M keys), so the flags are bits.
  struct Segment {
    uint32_t group = kNoGroup;
    uint32_t live = 0;      // head only
    uint32_t run_head = 0;  // the rest: used segments only
    uint32_t run_len = 0;
    uint32_t index = 0;  // head only: its place in its group's GroupIndex::runs
    uint32_t fill = 0;   // head only
    uint64_t alloc_seq : 48 = 0;
    uint64_t dirty : 1 = false;
    uint64_t fresh : 1 = false;           // head only
    uint64_t recorded : 1 = false;        // head only: fresh, and its entries written by SyncData
    uint64_t free_requested : 1 = false;  // head only
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
  // With fresh_only, a head's live bytes count what was released since the last TakeFrees.
  void EncodeEntry(uint32_t segment, bool fresh_only, std::string* out) const;

  uint32_t segment_bytes_;
  std::vector<Segment> segs_;
  std::set<uint32_t> reusable_;  // free and durable as free
  std::set<uint32_t> holding_;   // of reusable_, those not punched since they were freed
  std::unordered_map<uint32_t, GroupIndex> groups_;
  std::vector<uint32_t> dirty_;
  std::vector<uint32_t> fresh_;     // heads
  // Heads requested free, with live bytes released, or empty at Load: TakeFrees looks at
  // them (a head may be listed twice).
  std::vector<uint32_t> to_check_;
  // Bytes released from heads since the last TakeFrees (what their entries on disk still
  // count).
  std::unordered_map<uint32_t, uint32_t> released_;
  std::vector<SegmentRun> repaired_;  // torn runs freed by Load, until TakeFrees
  uint64_t next_alloc_seq_ = 1;
  uint64_t used_segments_ = 0;
  uint64_t live_bytes_ = 0;
};

}  // namespace slotkv::chunk
