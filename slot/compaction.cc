#include "slot/compaction.h"

#include <unordered_set>

#include "core/base/cleanup.h"

namespace slotkv::slot {

using keybucket::Cell;

void BucketCells::BuildIndex() {
  removed.assign(cells.size(), false);
  by_hash.clear();
  by_hash.reserve(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    by_hash.emplace_back(cells[i].hash, static_cast<uint32_t>(i));
  }
  std::sort(by_hash.begin(), by_hash.end());
}

Cell* BucketCells::PointingAt(uint64_t hash, const chunk::ValuePtr& ptr) {
  size_t at = FirstWithHash(hash, [&](size_t i) {
    chunk::ValuePtr p;
    return !removed[i] && cells[i].is_pointer && chunk::DecodeValuePtr(cells[i].payload, &p) &&
           p == ptr;
  });
  return at == kNone ? nullptr : &cells[at];
}

Cell* GroupCells::PointingAt(uint64_t hash, const chunk::ValuePtr& ptr) {
  const uint32_t b = buckets->BucketOf(hash);
  if (b < first || b - first >= cells.size()) return nullptr;
  return cells[b - first].PointingAt(hash, ptr);
}

void ChunkUndo::Release(chunk::ChunkStore& chunks, const chunk::ValuePtr& ptr) {
  chunks.Release(ptr);
  released.push_back(ptr);
}

void ChunkUndo::Free(chunk::ChunkStore& chunks, uint32_t segment) {
  chunks.FreeSegment(segment);
  freed.push_back(segment);
}

void ChunkUndo::Undo(chunk::ChunkStore& chunks) const {
  for (const chunk::ValuePtr& ptr : released) chunks.Unrelease(ptr);
  for (uint32_t segment : freed) chunks.CancelFree(segment);
}

Status CopyRuns(chunk::ChunkStore& chunks, uint32_t g, const std::vector<uint32_t>& runs,
                GroupCells& cells, ChunkUndo& undo, PendingMoves* moves) {
  const bool in_place = moves == nullptr;
  // Each run is to be freed while its records are copied, so that none goes into its own
  // unused end (Add skips a run to be freed); moved in two phases, it is kept afterwards.
  for (uint32_t head : runs) {
    if (in_place) {
      undo.Free(chunks, head);
    } else {
      moves->runs.push_back({head, chunks.Stamp(head)});
      chunks.FreeSegment(head);
    }
  }
  Cleanup keep([&] {
    if (!in_place) {
      for (uint32_t head : runs) chunks.CancelFree(head);
    }
  });
  for (uint32_t head : runs) {
    std::vector<chunk::ChunkRecord> records;
    SLOTKV_RETURN_IF_ERROR(chunks.ReadSegment(head, &records));
    for (chunk::ChunkRecord& record : records) {
      Cell* cell = cells.PointingAt(record.key_hash, record.ptr);
      if (!cell) continue;
      SLOTKV_ASSIGN_OR_RETURN(chunk::ValuePtr copy, chunks.Add(g, cell->key, record.value));
      if (in_place) {
        cell->payload.clear();
        chunk::EncodeValuePtr(copy, &cell->payload);
      } else {
        moves->moves.push_back({head, record.key_hash, record.ptr, copy});
      }
    }
  }
  return Status::OK();
}

void ApplyMoves(chunk::ChunkStore& chunks, const PendingMoves& moves, GroupCells& cells,
                ChunkUndo& undo) {
  std::unordered_set<uint32_t> held;  // heads of the runs whose stamp held
  for (const PendingMoves::Run& run : moves.runs) {
    if (chunks.Stamp(run.head) != run.stamp) continue;
    held.insert(run.head);
    undo.Free(chunks, run.head);
  }
  for (const PendingMoves::Move& move : moves.moves) {
    Cell* cell = held.contains(move.run) ? cells.PointingAt(move.hash, move.from) : nullptr;
    if (cell == nullptr) {
      undo.Release(chunks, move.to);
      continue;
    }
    cell->payload.clear();
    chunk::EncodeValuePtr(move.to, &cell->payload);
  }
}

}  // namespace slotkv::slot
