// The commit tap (SlotOptions::on_commit): the Put and Delete records a slot logs, reported in
// units once a commit wrote them, for the replication stream of the slot.
//
// The tap keeps its own copy of each record, the bytes the log encoded (wal/record.cc),
// because the log's buffer is handed to the file (or the ring) and released. It mirrors the
// log's units: a record joins the tap's open unit as it joins the log's, and the tap closes
// the unit where the slot closes the log's (CloseUnit, Hold), setting the more bit on every
// record of the unit but the last (wal::SetMore, as wal::Log::Impl::EndUnit does). Flush
// records (kGroupFlushing, kGroupFlushed) are never copied: a unit in the tap is the Put and
// Delete records of a log unit.
//
// A commit takes the closed units when its write starts: a synchronous path (Commit, Flush,
// SetFsyncPolicy) once its write succeeded, CommitThen before handing its done to the log.
// Every log write covers the closed units appended before it started (the log writes closed
// units in order, and a later write is never reported before an earlier one fails or
// succeeds, since its failure is sticky), so a commit that succeeded wrote the units it took.
// Commits are reported in the order they took their units: a synchronous Commit that finishes
// while an earlier CommitThen's ring write is in flight waits for it (the `taken` FIFO).
//
// A failure drops the units no commit took (a failed slot takes no more writes, and Recover
// builds a new slot state with a new tap); a failed commit drops its own units and those of
// every commit after it, which may not have reached the file either.
#include "slot/slot_impl.h"

namespace slotkv::slot {

void Slot::Impl::TapRecord(const wal::Record& record, std::string_view encoded) {
  if (!tap) return;
  tap->open_starts.push_back(tap->open.size());
  tap->open.append(encoded);
  tap->open_seq = std::max(tap->open_seq, record.seq);
}

void Slot::Impl::TapEndUnit() {
  if (!tap || tap->open_starts.empty()) return;
  CommitTap& t = *tap;
  for (size_t i = 0; i + 1 < t.open_starts.size(); ++i) {
    wal::SetMore(t.open.data() + t.open_starts[i]);
  }
  if (t.closed.empty()) {
    t.closed.swap(t.open);
  } else {
    t.closed += t.open;
  }
  t.open.clear();
  t.open_starts.clear();
  t.closed_seq = std::max(t.closed_seq, t.open_seq);
}

uint64_t Slot::Impl::TapTake() {
  if (!tap) return 0;
  CommitTap& t = *tap;
  // Every commit gets an id, units or not: a failed one drops those of the commits after it.
  const uint64_t id = t.next_id++;
  if (t.closed.empty()) return id;
  t.taken.push_back({.id = id, .units = std::move(t.closed), .stream_seq = t.closed_seq});
  t.closed.clear();
  return id;
}

void Slot::Impl::TapWritten() {
  if (!tap) return;
  CommitTap::Done(tap, TapTake(), Status::OK());
}

void Slot::Impl::TapDrop() {
  if (!tap) return;
  tap->open.clear();
  tap->open_starts.clear();
  tap->closed.clear();
}

void Slot::Impl::CommitTap::Done(const std::shared_ptr<CommitTap>& tap, uint64_t id,
                                 const Status& st) {
  CommitTap& t = *tap;
  if (!st.ok()) {
    while (!t.taken.empty() && t.taken.back().id >= id) t.taken.pop_back();
    t.open.clear();
    t.open_starts.clear();
    t.closed.clear();
    return;
  }
  for (Taken& taken : t.taken) {
    if (taken.id == id) taken.written = true;
  }
  while (!t.taken.empty() && t.taken.front().written) {
    Taken front = std::move(t.taken.front());
    t.taken.pop_front();
    if (t.slot != nullptr) t.slot->options.on_commit(std::move(front.units), front.stream_seq);
  }
}

}  // namespace slotkv::slot
