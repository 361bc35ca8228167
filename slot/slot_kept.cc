// What a group flush persists, and what it leaves in the group map. See the design note in
// slot_flush.cc.
//
// With everysec and no, the log's records reach the disk at its syncs, but the kernel may
// write a flush's bucket page back at any time: a power cut could then keep a page that names
// a value (in chunk bytes the cut lost too) whose log record it lost, and the key read a
// damaged value instead of its previous one. So a flush persists only entries whose records
// end by the log's durable end (PersistUpto); its kGroupFlushing record names that place, and
// replay drops exactly those entries at the group's next mark. The others stay in the map
// (RetainAfter) until a later flush finds them synced; the log syncs once a second under
// everysec, and soon (SyncSoon) when a flush finds nothing to persist. With always, the flush's
// commit syncs every record before a page changes; pure memory has nothing to lose.
//
// After a power cut or a failed flush, a group's pages may name places the chunk table does
// not hold (DropLostCells): they are never released, and a kept key's such cell goes.
#include <unordered_set>

#include "core/base/buffer.h"
#include "slot/slot_impl.h"

namespace slotkv::slot {

Result<bool> Slot::Impl::PersistUpto(uint32_t g, std::optional<wal::LogPos>* upto) {
  upto->reset();
  if (options.memory || options.fsync == wal::FsyncPolicy::kAlways) return true;
  const Group& group = groups[g];
  if (MovesReady(group)) {  // the flush applies them, whatever it persists
    *upto = log->durable_end();
    return true;
  }
  auto any = [&](const wal::LogPos& end) {
    if (group.kept_upto == end) return false;  // every entry came after that flush's end
    bool found = false;
    group.map.ForEach([&](std::string_view, uint64_t, const MapEntry& entry) {
      found = found || wal::EndsBy(entry.pos, end);
    });
    return found;
  };
  *upto = log->durable_end();
  if (any(**upto)) return true;
  SLOTKV_RETURN_IF_ERROR(log->SyncSoon());  // in place without an io_uring
  *upto = log->durable_end();
  if (any(**upto)) return true;
  groups[g].kept_upto = **upto;
  return false;
}

void Slot::Impl::DropLostCells(uint32_t g, const std::optional<wal::LogPos>& upto,
                               const std::vector<chunk::ValuePtr>& referenced,
                               GroupCells* group_cells, std::unordered_set<uint64_t>* lost) {
  // Before any add of this flush: an add may take such a place again, even before the merge
  // meets the cell (a run reopened and appended to here).
  const chunk::ChunkStore::AddMark now = chunks->Mark();
  for (const chunk::ValuePtr& ptr : referenced) {
    if (!chunks->Holds(g, ptr, now)) lost->insert(chunk::PlaceOf(ptr));
  }
  if (lost->empty() || !upto) return;
  // A persisting key's lost cell is replaced by the merge; a kept key's goes now, before an
  // add takes its place (a later flush would release the new value's bytes with it). The
  // key's value is in the log.
  Group& group = groups[g];
  group.map.ForEach([&](std::string_view key, uint64_t hash, MapEntry& entry) {
    if (wal::EndsBy(entry.pos, *upto)) return;
    BucketCells& bc = group_cells->cells[buckets->BucketOf(hash) - group_cells->first];
    const size_t at = bc.Position(hash, key);
    chunk::ValuePtr ptr;
    if (at == BucketCells::kNone || !bc.cells[at].is_pointer ||
        !chunk::DecodeValuePtr(bc.cells[at].payload, &ptr) ||
        !lost->contains(chunk::PlaceOf(ptr))) {
      return;
    }
    bc.removed[at] = true;
    CountEntry(group, entry, -1);
    entry.base = BaseState::kAbsent;
    CountEntry(group, entry, 1);
  });
}

Status Slot::Impl::RetainAfter(uint32_t g, const wal::LogPos& upto, bool relog) {
  Group& group = groups[g];
  struct Kept {
    std::string key;
    uint64_t hash;
    MapEntry entry;
    HeldValue held;  // moved out, its bytes still counted in held_bytes and decoded_bytes
  };
  std::vector<Kept> kept;
  group.map.ForEach([&](std::string_view key, uint64_t hash, const MapEntry& entry) {
    if (wal::EndsBy(entry.pos, upto)) return;
    Kept& k = kept.emplace_back(Kept{std::string(key), hash, entry, HeldValue()});
    if (entry.held == 0) return;
    k.held = std::move(group.held[entry.held - 1]);
    group.held[entry.held - 1] = HeldValue();  // what ResetGroup takes off the counts
  });
  wal_entries -= group.map.size() - kept.size();
  ResetGroup(group);
  for (Kept& k : kept) {
    MapEntry& entry = *group.map.FindOrInsert(k.key, k.hash).first;
    entry = k.entry;
    if (entry.held != 0) {
      group.bytes += k.held.value.size();
      group.held.push_back(std::move(k.held));
      entry.held = static_cast<uint32_t>(group.held.size());
      if (relog && (entry.type & kSpliceTag) != 0) {
        SLOTKV_RETURN_IF_ERROR(Relog(k.key, group.held.back().value, &entry));
      }
    }
    AddToGroup(group, entry);
  }
  map_bytes += group.map.memory_bytes();
  MaybeSizeCaches();
  return Status::OK();
}

Status Slot::Impl::Relog(std::string_view key, const std::string& value, MapEntry* entry) {
  // Not a write: no new seq, and not for the commit tap (a replica has this version).
  wal::Record& record = scratch;
  record.kind = wal::RecordKind::kPut;
  record.seq = entry->seq;
  record.type_tag = PlainTag(entry->type);
  record.expire_at_ms = entry->expire_at_ms;
  record.key.assign(key);
  record.value.assign(value);
  SLOTKV_ASSIGN_OR_RETURN(const wal::LogPos pos, log->Append(record));
  ReleaseLargeBuffer(&record.value);
  entry->pos = pos;
  entry->type = record.type_tag;
  NoteFileSeq(pos.file_no, record.seq);
  return Status::OK();
}

}  // namespace slotkv::slot
