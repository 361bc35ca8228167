// Just-in-time compaction of a group's chunk runs, riding on the group's flush
// (slot_flush.cc): the live records of mostly-dead runs are copied forward and the runs freed.
// A record is live when a cell with its key hash still points at it.
//
// The copies exist nowhere else (the log dropped those records long ago), so no page may point
// at a copy before the copy is durable. With appendfsync always (and in a synchronous
// FlushAll) the flush copies in place: it points the cells at the copies, frees the runs, and
// syncs the copies before it writes a page. With everysec and no, that sync held the worker for
// 30-50 ms at a time (a DEL's reclaim of a 10M-member set), so the flush moves in two phases:
//   1. CopyRuns copies the records and leaves the cells pointing at the originals and the
//      runs unfreed: the group holds the moves (PendingMoves) until a publish has synced the
//      copies (the group's flush mark waits for the same publish).
//   2. The group's next flush after that publish (ApplyMoves) points the cells that still
//      point at an original at its copy, releases the copies no cell needs (the key was
//      written or deleted meanwhile), and frees the runs, which their pages stop naming once
//      that flush is published (the chunk store frees at Commit).
// A run whose stamp changed between the phases (freed when its last record died and handed
// out again, or reopened and appended to) is not freed: its moves are dropped, their copies
// released. A group with moves pending compacts nothing more, so a copy never moves again
// before it is used. A crash, a Recover or a failed flush (whose next flush recounts the
// group's live bytes from its pages) forgets the moves: the cells still name the originals,
// and a copy left counted live only makes its run look fuller (at most kCompactRunsPerFlush
// runs of records per group).
//
// Thread rule: the slot's owner, inside a flush.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "chunk/chunk_store.h"
#include "chunk/value_ptr.h"
#include "core/base/status.h"
#include "keybucket/bucket_store.h"

namespace slotkv::slot {

inline constexpr size_t kCompactRunsPerFlush = 8;

// The cells of one bucket during a merge: existing cells (some marked removed) plus appended.
struct BucketCells {
  static constexpr size_t kNone = SIZE_MAX;

  std::vector<keybucket::Cell> cells;
  std::vector<bool> removed;
  std::vector<std::pair<uint64_t, uint32_t>> by_hash;  // (hash, position), sorted

  void BuildIndex();
  // Position of the first cell with this hash (removed or not) that match(position) accepts,
  // or kNone.
  template <typename Match>
  size_t FirstWithHash(uint64_t hash, Match&& match) const {
    auto it = std::lower_bound(by_hash.begin(), by_hash.end(), std::make_pair(hash, uint32_t{0}));
    for (; it != by_hash.end() && it->first == hash; ++it) {
      if (match(it->second)) return it->second;
    }
    return kNone;
  }
  // Position of key's cell (removed or not), or kNone.
  size_t Position(uint64_t hash, std::string_view key) const {
    return FirstWithHash(hash, [&](size_t at) { return cells[at].key == key; });
  }
  // The live cell with this hash whose value pointer is ptr, or nullptr.
  keybucket::Cell* PointingAt(uint64_t hash, const chunk::ValuePtr& ptr);
};

// The cells of a flushing group's buckets [first, first + cells.size()).
struct GroupCells {
  const keybucket::BucketStore* buckets = nullptr;
  uint32_t first = 0;
  std::vector<BucketCells> cells;

  // The live cell of the group with this hash pointing at ptr, or nullptr.
  keybucket::Cell* PointingAt(uint64_t hash, const chunk::ValuePtr& ptr);
};

// What a flush did to the chunk store, taken back when it fails (nothing of it is durable
// before the next Commit): the values it released count again, the runs it freed stay.
struct ChunkUndo {
  std::vector<chunk::ValuePtr> released;
  std::vector<uint32_t> freed;

  void Release(chunk::ChunkStore& chunks, const chunk::ValuePtr& ptr);
  void Free(chunk::ChunkStore& chunks, uint32_t segment);
  void Undo(chunk::ChunkStore& chunks) const;
};

// A group's copies waiting for a publish (phase 1 done).
struct PendingMoves {
  struct Run {
    uint32_t head;
    chunk::ChunkStore::RunStamp stamp;  // as it was copied
  };
  struct Move {
    uint32_t run;  // the head of the run copied
    uint64_t hash;
    chunk::ValuePtr from;
    chunk::ValuePtr to;
  };
  std::vector<Run> runs;
  std::vector<Move> moves;
  uint64_t publishes = 0;  // the slot's publishes when copied: ready once one more completed
};

// Copies the live records of group g's runs forward (Add). Without moves (in place) the cells
// point at the copies at once and the runs are freed through undo (the caller syncs the copies
// before it writes a page); otherwise *moves gets the runs and the copies (phase 1).
Status CopyRuns(chunk::ChunkStore& chunks, uint32_t g, const std::vector<uint32_t>& runs,
                GroupCells& cells, ChunkUndo& undo, PendingMoves* moves);

// Phase 2: points the cells still at a moved record to its copy, releases the other copies,
// frees the runs whose stamp held.
void ApplyMoves(chunk::ChunkStore& chunks, const PendingMoves& moves, GroupCells& cells,
                ChunkUndo& undo);

}  // namespace slotkv::slot
