// segments.meta: one fixed-size entry per segment of chunks.dat, entry i at offset 32 * i.
// Format version 1 (chunks.meta records the version).
//
//   segments.meta := entry*
//   entry := crc:fixed32 group:fixed32 live:fixed32 run_head:fixed32 run_len:fixed32
//            alloc_seq:fixed64 fill:fixed32                                  (32 bytes)
//   crc   = Checksum(the 28 bytes after the crc field)
//
// A free segment has group 0xFFFFFFFF and every other field 0. An entry of 32 zero bytes (a gap
// that was never written) also reads as free: no used entry can look like it, since a used entry
// has run_len >= 1. For a used segment, run_head/run_len name its run of consecutive segments;
// every segment of the run repeats group, run_head, run_len and alloc_seq, and only the head
// carries the run's live bytes and fill (0 elsewhere). alloc_seq numbers runs in allocation
// order across the store, so "oldest first" survives a reopen; it starts at 1 and stays below
// 2^48. fill is the bytes of records in the run; records past it are the torn end of an append
// that never became durable. 0 means unknown (entries written before fills were kept, when the
// field was reserved and 0): the records then end at the run's zero padding.
//
// Entries are 32 bytes so that none straddles a 512-byte sector: a Commit cut by a power loss
// tears whole entries, never the inside of one. Each entry has its own checksum, so Commit can
// rewrite only the entries that changed.
//
// Worked example: segment 5 is the head of a 2-segment run of group 7, allocated 12th, with
// 1000 live bytes in 1200 bytes of records; entry 5 is at offset 160:
//   cc cc cc cc  07 00 00 00  e8 03 00 00  05 00 00 00  02 00 00 00
//   0c 00 00 00 00 00 00 00  b0 04 00 00
// and entry 6 is the same with live and fill = 00 00 00 00 (and its own crc).
#include "chunk/segment_table.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "chunk/record.h"
#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::chunk {
namespace {

Status EntryCorruption(uint32_t entry, std::string_view what) {
  return Status::Corruption("segments.meta: " + std::string(what) + " in entry " +
                            std::to_string(entry));
}

}  // namespace

Status SegmentTable::Load(std::string_view meta) {
  assert(segs_.empty());
  const size_t count = meta.size() / kSegmentEntryBytes;
  if (count >= kNoGroup) return Status::Corruption("segments.meta: too many entries");
  segs_.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view entry = meta.substr(i * kSegmentEntryBytes, kSegmentEntryBytes);
    if (IsAllZero(entry)) continue;
    if (DecodeFixed32(entry.data()) != Checksum(entry.substr(4))) {
      return EntryCorruption(i, "checksum mismatch");
    }
    Segment s;
    s.group = DecodeFixed32(entry.data() + 4);
    if (s.group == kNoGroup) continue;
    s.live = DecodeFixed32(entry.data() + 8);
    s.run_head = DecodeFixed32(entry.data() + 12);
    s.run_len = DecodeFixed32(entry.data() + 16);
    const uint64_t seq = DecodeFixed64(entry.data() + 20);
    s.alloc_seq = seq;
    s.fill = DecodeFixed32(entry.data() + 28);
    if (s.run_len == 0 || s.run_head > i || i - s.run_head >= s.run_len || seq == 0 ||
        seq != s.alloc_seq) {
      return EntryCorruption(i, "bad run");
    }
    if (i != s.run_head) s.live = s.fill = 0;
    segs_[i] = s;
  }

  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint32_t>>> by_group;  // seq, head
  std::vector<bool> in_whole_run(count, false);
  for (uint32_t i = 0; i < count; ++i) {
    if (segs_[i].group != kNoGroup && segs_[i].run_head == i && WholeRun(i)) {
      std::fill_n(in_whole_run.begin() + i, segs_[i].run_len, true);
    }
  }
  for (uint32_t i = 0; i < count; ++i) {
    Segment& s = segs_[i];
    if (s.group != kNoGroup && !in_whole_run[i]) {
      // Part of a run whose entries were written (allocated or freed) by one write that a kill
      // or power cut tore. Either way no durable page points at it: a run's entries go out
      // before any page names it, and "free" only once no page does. Freed, and rewritten by
      // the next Commit before the space is reused.
      s = Segment{};
      MarkDirty(i);
      if (!repaired_.empty() && repaired_.back().head + repaired_.back().length == i) {
        ++repaired_.back().length;
      } else {
        repaired_.push_back({i, 1});
      }
      continue;
    }
    if (s.group == kNoGroup) {
      reusable_.insert(i);
      holding_.insert(i);  // punched or not before: unknown
      continue;
    }
    if (i != s.run_head) continue;
    if (s.live > uint64_t{s.run_len} * segment_bytes_) return EntryCorruption(i, "live too big");
    if (s.fill > uint64_t{s.run_len} * segment_bytes_) return EntryCorruption(i, "fill too big");
    GroupIndex& g = groups_[s.group];
    by_group[s.group].emplace_back(uint64_t{s.alloc_seq}, i);
    g.used_bytes += uint64_t{s.run_len} * segment_bytes_;
    g.live_bytes += s.live;
    used_segments_ += s.run_len;
    live_bytes_ += s.live;
    next_alloc_seq_ = std::max(next_alloc_seq_, uint64_t{s.alloc_seq} + 1);
    if (s.live == 0) {
      // Everything in it was released but the store closed before the Commit that frees it.
      to_check_.push_back(i);
    }
  }
  for (auto& [group, runs] : by_group) {
    std::sort(runs.begin(), runs.end());
    GroupIndex& g = groups_[group];
    g.runs.reserve(runs.size());
    for (size_t k = 0; k < runs.size(); ++k) {
      if (k > 0 && runs[k].first == runs[k - 1].first) {
        return EntryCorruption(runs[k].second, "duplicate alloc_seq");
      }
      AddRun(g, runs[k].second);
    }
  }
  return Status::OK();
}

void SegmentTable::AddRun(GroupIndex& g, uint32_t head) {
  segs_[head].index = static_cast<uint32_t>(g.runs.size());
  g.runs.push_back(head);
}

void SegmentTable::CompactRuns(GroupIndex& g) {
  size_t kept = 0;
  for (uint32_t head : g.runs) {
    if (head == kDeadRun) continue;
    segs_[head].index = static_cast<uint32_t>(kept);
    g.runs[kept++] = head;
  }
  g.runs.resize(kept);
  g.runs.shrink_to_fit();
  g.dead = 0;
}

bool SegmentTable::WholeRun(uint32_t head) const {
  const Segment& h = segs_[head];
  if (uint64_t{head} + h.run_len > segs_.size()) return false;
  for (uint32_t j = head + 1; j < head + h.run_len; ++j) {
    const Segment& s = segs_[j];
    if (s.group != h.group || s.run_head != head || s.run_len != h.run_len ||
        s.alloc_seq != h.alloc_seq) {
      return false;
    }
  }
  return true;
}

uint32_t SegmentTable::FindFreeRun(uint32_t n) const {
  const auto end = static_cast<uint32_t>(segs_.size());
  if (reusable_.empty()) return end;
  if (n == 1) return *reusable_.begin();
  uint32_t start = 0;
  uint32_t len = 0;
  for (uint32_t s : reusable_) {
    if (len > 0 && s == start + len) {
      ++len;
    } else {
      start = s;
      len = 1;
    }
    if (len == n) return start;
  }
  // A free tail of the file can start a run that grows the file.
  if (start + len == end) return start;
  return end;
}

uint32_t SegmentTable::Allocate(uint32_t group, uint32_t n) {
  assert(group != kNoGroup && n >= 1);
  const uint32_t head = FindFreeRun(n);
  assert(uint64_t{head} + n < kNoGroup);
  if (head + n > segs_.size()) segs_.resize(head + n);
  const uint64_t seq = next_alloc_seq_++;
  for (uint32_t j = head; j < head + n; ++j) {
    reusable_.erase(j);
    holding_.erase(j);
    Segment& s = segs_[j];
    const bool dirty = s.dirty;
    s = Segment{.group = group, .run_head = head, .run_len = n, .alloc_seq = seq};
    s.dirty = dirty;
    MarkDirty(j);
  }
  segs_[head].fresh = true;
  fresh_.push_back(head);
  GroupIndex& g = groups_[group];
  g.used_bytes += uint64_t{n} * segment_bytes_;
  AddRun(g, head);
  used_segments_ += n;
  return head;
}

void SegmentTable::AddLive(uint32_t head, uint32_t bytes) {
  assert(IsUsed(head) && RunHead(head) == head);
  Segment& s = segs_[head];
  s.live += bytes;
  groups_[s.group].live_bytes += bytes;
  live_bytes_ += bytes;
  MarkDirty(head);
}

void SegmentTable::SetFill(uint32_t head, uint32_t fill) {
  assert(IsUsed(head) && RunHead(head) == head && fill >= segs_[head].fill &&
         fill <= uint64_t{segs_[head].run_len} * segment_bytes_);
  if (segs_[head].fill == fill) return;
  segs_[head].fill = fill;
  MarkDirty(head);
}

uint32_t SegmentTable::AppendableRun(uint32_t group, uint32_t bytes) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return kNoGroup;
  const std::vector<uint32_t>& runs = it->second.runs;
  auto newest = std::find_if(runs.rbegin(), runs.rend(), [](uint32_t h) { return h != kDeadRun; });
  if (newest == runs.rend()) return kNoGroup;
  const Segment& s = segs_[*newest];
  if (s.fill == 0 || s.fresh || s.free_requested ||
      uint64_t{s.fill} + bytes > uint64_t{s.run_len} * segment_bytes_) {
    return kNoGroup;
  }
  return *newest;
}

void SegmentTable::Reopen(uint32_t head) {
  assert(IsUsed(head) && RunHead(head) == head && !segs_[head].fresh);
  segs_[head].fresh = true;
  segs_[head].recorded = false;
  fresh_.push_back(head);
}

void SegmentTable::ReleaseLive(uint32_t segment, uint32_t bytes) {
  if (!IsUsed(segment)) return;
  const uint32_t head = RunHead(segment);
  Segment& s = segs_[head];
  const uint32_t d = std::min(bytes, s.live);
  if (d == 0) return;
  s.live -= d;
  groups_[s.group].live_bytes -= d;
  live_bytes_ -= d;
  MarkDirty(head);
  auto [it, first] = released_.try_emplace(head, 0);
  it->second += d;
  if (first && !s.free_requested) to_check_.push_back(head);
}

void SegmentTable::RequestFree(uint32_t segment) {
  if (!IsUsed(segment)) return;
  const uint32_t head = RunHead(segment);
  Segment& s = segs_[head];
  if (!released_.contains(head) && !s.free_requested) to_check_.push_back(head);
  s.free_requested = true;
}

void SegmentTable::CancelFree(uint32_t segment) {
  if (IsUsed(segment)) segs_[RunHead(segment)].free_requested = false;
}

void SegmentTable::SetGroupLive(uint32_t group,
                                const std::unordered_map<uint32_t, uint64_t>& live) {
  auto it = groups_.find(group);
  if (it == groups_.end()) return;
  const std::vector<uint32_t> runs = it->second.runs;  // ReleaseLive may not touch the list
  for (uint32_t head : runs) {
    if (head == kDeadRun) continue;
    auto found = live.find(head);
    const uint64_t want = found == live.end() ? 0 : found->second;
    const uint32_t have = segs_[head].live;
    if (want > have) {
      AddLive(head, static_cast<uint32_t>(want - have));
    } else if (want < have) {
      ReleaseLive(head, static_cast<uint32_t>(have - want));
    }
  }
}

std::vector<uint32_t> SegmentTable::Candidates(uint32_t group, size_t max) const {
  std::vector<uint32_t> out;
  auto it = groups_.find(group);
  if (it == groups_.end() || max == 0) return out;
  const GroupIndex& g = it->second;
  if (g.used_bytes <= 2 * g.live_bytes) return out;
  for (uint32_t head : g.runs) {
    if (head == kDeadRun) continue;
    const Segment& s = segs_[head];
    if (s.fresh || s.free_requested) continue;
    if (2 * uint64_t{s.live} >= uint64_t{s.run_len} * segment_bytes_) continue;
    out.push_back(head);
    if (out.size() == max) break;
  }
  return out;
}

void SegmentTable::ClearFresh() {
  for (uint32_t head : fresh_) {
    segs_[head].fresh = false;
    segs_[head].recorded = false;
  }
  fresh_.clear();
}

std::vector<SegmentRun> SegmentTable::TakeFrees(uint64_t* requested) {
  std::vector<SegmentRun> freed;
  freed.swap(repaired_);
  for (uint32_t head : to_check_) {
    Segment& s = segs_[head];
    const bool req = s.free_requested;
    s.free_requested = false;
    if (s.group == kNoGroup || s.run_head != head) continue;  // listed twice
    if (!req && s.live > 0) continue;
    if (req) *requested += s.run_len;
    FreeRun(head, &freed);
  }
  to_check_.clear();
  released_.clear();
  return freed;
}

void SegmentTable::FreeRun(uint32_t head, std::vector<SegmentRun>* freed) {
  const Segment s = segs_[head];
  auto it = groups_.find(s.group);
  assert(it != groups_.end());
  GroupIndex& g = it->second;
  g.used_bytes -= uint64_t{s.run_len} * segment_bytes_;
  g.live_bytes -= s.live;
  g.runs[s.index] = kDeadRun;
  ++g.dead;
  if (g.dead == g.runs.size()) {
    groups_.erase(it);
  } else if (g.dead > 16 && 2 * g.dead > g.runs.size()) {
    CompactRuns(g);
  }
  used_segments_ -= s.run_len;
  live_bytes_ -= s.live;
  for (uint32_t j = head; j < head + s.run_len; ++j) {
    const bool dirty = segs_[j].dirty;
    segs_[j] = Segment{};
    segs_[j].dirty = dirty;
    MarkDirty(j);
  }
  freed->push_back({head, s.run_len});
}

void SegmentTable::MarkDirty(uint32_t segment) {
  if (segs_[segment].dirty) return;
  segs_[segment].dirty = true;
  dirty_.push_back(segment);
}

void SegmentTable::EncodeEntry(uint32_t segment, bool fresh_only, std::string* out) const {
  const size_t start = out->size();
  const Segment& s = segs_[segment];
  const bool used = s.group != kNoGroup;
  const bool head = used && s.run_head == segment;
  uint64_t live = head ? s.live : 0;
  if (head && fresh_only) {
    // Before Commit, the bytes released since the last one still count: the pages that stop
    // pointing at them are not durable yet.
    if (auto it = released_.find(segment); it != released_.end()) live += it->second;
    live = std::min<uint64_t>(live, uint64_t{s.run_len} * segment_bytes_);
  }
  PutFixed32(out, 0);  // crc, filled below
  PutFixed32(out, s.group);
  PutFixed32(out, static_cast<uint32_t>(live));
  PutFixed32(out, used ? s.run_head : 0);
  PutFixed32(out, used ? s.run_len : 0);
  PutFixed64(out, used ? s.alloc_seq : 0);
  PutFixed32(out, head ? s.fill : 0);
  EncodeFixed32(out->data() + start, Checksum(std::string_view(*out).substr(start + 4)));
}

std::vector<std::pair<uint64_t, std::string>> SegmentTable::DirtyWrites(bool fresh_only) const {
  std::vector<uint32_t> sorted;
  for (uint32_t s : dirty_) {
    if (!fresh_only || Unrecorded(s)) {
      sorted.push_back(s);
    }
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::pair<uint64_t, std::string>> writes;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i] != sorted[i - 1] + 1) {
      writes.emplace_back(uint64_t{sorted[i]} * kSegmentEntryBytes, std::string());
    }
    EncodeEntry(sorted[i], fresh_only, &writes.back().second);
  }
  return writes;
}

bool SegmentTable::Unrecorded(uint32_t segment) const {
  if (segs_[segment].group == kNoGroup) return false;
  const Segment& head = segs_[segs_[segment].run_head];
  return head.fresh && !head.recorded;
}

void SegmentTable::ClearDirty(bool fresh_only) {
  std::vector<uint32_t> still;
  std::vector<uint32_t> recorded_heads;
  for (uint32_t s : dirty_) {
    if (fresh_only && !Unrecorded(s)) {
      still.push_back(s);
      continue;
    }
    if (fresh_only) {
      recorded_heads.push_back(segs_[s].run_head);
      // Written counting released bytes: Commit writes the lower figure.
      if (released_.contains(s)) {
        still.push_back(s);
        continue;
      }
    }
    segs_[s].dirty = false;
  }
  // Recorded once: later changes to these entries (live bytes going down) wait for Commit.
  for (uint32_t head : recorded_heads) segs_[head].recorded = true;
  dirty_.swap(still);
}

void SegmentTable::MakeReusable(const SegmentRun& run) {
  for (uint32_t j = run.head; j < run.head + run.length; ++j) {
    if (segs_[j].group == kNoGroup) {
      reusable_.insert(j);
      holding_.insert(j);
    }
  }
}

std::optional<SegmentRun> SegmentTable::TakeToPunch(uint64_t keep) {
  if (holding_.size() <= keep) return std::nullopt;
  // The highest first: Allocate reuses the lowest.
  SegmentRun run{.head = *holding_.rbegin(), .length = 1};
  holding_.erase(run.head);
  while (holding_.size() > keep && !holding_.empty() && *holding_.rbegin() + 1 == run.head) {
    --run.head;
    ++run.length;
    holding_.erase(run.head);
  }
  for (uint32_t j = run.head; j < run.head + run.length; ++j) reusable_.erase(j);
  return run;
}

void SegmentTable::PunchDone(const SegmentRun& run) {
  for (uint32_t j = run.head; j < run.head + run.length; ++j) reusable_.insert(j);
}

}  // namespace slotkv::chunk
