// Fuzz target: chunk/segment_table (SegmentTable::Load of segments.meta), then the table's
// bookkeeping run by a few operations and Commits as ChunkStore runs them.
//
// Input:  flags:u8 segment_shift:u8 meta_len:fixed16 meta[meta_len] ops
//   flags bit 0: rewrite every entry's crc first, so that mutations reach the run checks.
//   segment_bytes = 1 << (12 + segment_shift % 20)   (4 KiB .. 2 GiB)
//   ops: 4 bytes each (code, a, b, c), see RunOp; the tail of an op is zero when cut short;
//   at most kMaxOps are run.
//
// Checks: Load either fails with Corruption or builds a table whose Commit (ClearFresh,
// TakeFrees, DirtyWrites written into the meta bytes, ClearDirty, MakeReusable) leaves bytes
// that load back into the same table: the same segments, runs, groups, fills, used segments,
// live bytes and compaction candidates, and nothing torn to repair. The same holds after the
// operations, which the harness issues within their REQUIRES.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "chunk/segment_table.h"
#include "core/base/coding.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::chunk {
namespace {

// What ChunkStore::Commit does to the table, with segments.meta as a string.
void Commit(SegmentTable& table, std::string* meta) {
  table.ClearFresh();
  uint64_t requested = 0;
  const std::vector<SegmentRun> freed = table.TakeFrees(&requested);
  for (const auto& [offset, bytes] : table.DirtyWrites(/*fresh_only=*/false)) {
    FUZZ_CHECK(offset % kSegmentEntryBytes == 0 && bytes.size() % kSegmentEntryBytes == 0);
    if (meta->size() < offset + bytes.size()) meta->resize(offset + bytes.size(), '\0');
    meta->replace(offset, bytes.size(), bytes);
  }
  table.ClearDirty(/*fresh_only=*/false);
  FUZZ_CHECK(table.DirtyWrites(false).empty());
  for (const SegmentRun& run : freed) {
    for (uint32_t j = run.head; j < run.head + run.length; ++j) FUZZ_CHECK(!table.IsUsed(j));
    table.MakeReusable(run);
  }
}

// What SyncData writes before bucket pages may point at fresh runs.
void SyncData(SegmentTable& table, std::string* meta) {
  for (const auto& [offset, bytes] : table.DirtyWrites(/*fresh_only=*/true)) {
    if (meta->size() < offset + bytes.size()) meta->resize(offset + bytes.size(), '\0');
    meta->replace(offset, bytes.size(), bytes);
  }
  table.ClearDirty(/*fresh_only=*/true);
}

std::set<uint32_t> Groups(const SegmentTable& table) {
  std::set<uint32_t> groups;
  for (uint32_t i = 0; i < table.segment_count(); ++i) {
    if (table.IsUsed(i)) groups.insert(table.Group(i));
  }
  return groups;
}

// Loads the committed bytes into a second table and compares.
void CheckReload(const SegmentTable& table, uint32_t segment_bytes, const std::string& meta) {
  SegmentTable reloaded(segment_bytes);
  const Status s = reloaded.Load(meta);
  FUZZ_CHECK_MSG(s.ok(), s.ToString());
  FUZZ_CHECK(reloaded.used_segments() == table.used_segments());
  FUZZ_CHECK(reloaded.live_bytes() == table.live_bytes());
  const uint32_t n = std::max(table.segment_count(), reloaded.segment_count());
  for (uint32_t i = 0; i < n; ++i) {
    FUZZ_CHECK(reloaded.IsUsed(i) == table.IsUsed(i));
    if (!table.IsUsed(i)) continue;
    FUZZ_CHECK(reloaded.RunHead(i) == table.RunHead(i));
    FUZZ_CHECK(reloaded.RunLength(i) == table.RunLength(i));
    FUZZ_CHECK(reloaded.Group(i) == table.Group(i));
    if (table.RunHead(i) == i) FUZZ_CHECK(reloaded.Fill(i) == table.Fill(i));
  }
  for (uint32_t group : Groups(table)) {
    FUZZ_CHECK(reloaded.Candidates(group, 64) == table.Candidates(group, 64));
  }
  // Nothing torn: the only runs the reloaded table frees are those left without live bytes.
  uint64_t requested = 0;
  for (const SegmentRun& run : reloaded.TakeFrees(&requested)) {
    FUZZ_CHECK(table.IsUsed(run.head) && table.RunHead(run.head) == run.head &&
               table.RunLength(run.head) == run.length);
  }
  FUZZ_CHECK(requested == 0);
}

// Bounds that keep an input quick (a table this size already has every shape of run).
constexpr uint32_t kMaxSegments = 256;
constexpr size_t kMaxOps = 128;

struct Harness {
  SegmentTable& table;
  uint32_t segment_bytes;
  std::string& meta;
  // Live bytes of the runs this harness allocated (AddLive must keep a run's live bytes within
  // its size, as ChunkStore does by adding only records it wrote there).
  std::map<uint32_t, uint64_t> live;

  // A used head, picked by a, or kNoGroup when no segment is used.
  uint32_t PickHead(uint8_t a) const {
    const uint32_t count = table.segment_count();
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t i = (a + k) % count;
      if (table.IsUsed(i)) return table.RunHead(i);
    }
    return kNoGroup;
  }

  void RunOp(uint8_t code, uint8_t a, uint8_t b, uint8_t c) {
    const uint32_t head = PickHead(a);
    switch (code % 9) {
      case 0: {
        if (table.segment_count() > kMaxSegments) return;
        const uint32_t h = table.Allocate(b % 4, 1 + c % 3);
        FUZZ_CHECK(table.IsUsed(h) && table.RunHead(h) == h && table.Group(h) == b % 4);
        live[h] = 0;
        return;
      }
      case 1: {  // AddLive, to a run allocated here
        auto it = live.find(head);
        if (head == kNoGroup || it == live.end() || table.RunHead(head) != head) return;
        const uint64_t room = uint64_t{table.RunLength(head)} * segment_bytes - it->second;
        const uint32_t bytes = static_cast<uint32_t>(std::min<uint64_t>(room, b * 97 + c));
        table.AddLive(head, bytes);
        it->second += bytes;
        return;
      }
      case 2: {
        if (head == kNoGroup) return;
        const uint64_t run_bytes = uint64_t{table.RunLength(head)} * segment_bytes;
        const uint64_t fill = std::min<uint64_t>(run_bytes, table.Fill(head) + b * 131 + c);
        table.SetFill(head, static_cast<uint32_t>(std::min<uint64_t>(fill, UINT32_MAX)));
        return;
      }
      case 3:
        if (head != kNoGroup) table.ReleaseLive(head + c % table.RunLength(head), b * 61);
        return;
      case 4:
        if (head != kNoGroup) table.RequestFree(head);
        return;
      case 5:
        if (head != kNoGroup) table.CancelFree(head);
        return;
      case 6: {
        const uint32_t group = b % 4;
        const uint32_t h = table.AppendableRun(group, c * 50);
        if (h == kNoGroup) return;
        FUZZ_CHECK(table.IsUsed(h) && table.Group(h) == group && table.Fill(h) > 0);
        table.Reopen(h);
        return;
      }
      case 7:
        SyncData(table, &meta);
        return;
      case 8:
        Commit(table, &meta);
        CheckReload(table, segment_bytes, meta);
        return;
    }
  }
};

}  // namespace
}  // namespace slotkv::chunk

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv;
  using namespace slotkv::chunk;
  if (size < 4) return 0;
  const uint8_t flags = data[0];
  const uint32_t segment_bytes = 1u << (12 + data[1] % 20);
  std::string_view rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  const size_t meta_len =
      std::min<size_t>(DecodeFixed16(reinterpret_cast<const char*>(data) + 2), rest.size());
  std::string meta(rest.substr(0, meta_len));
  const std::string_view ops = rest.substr(meta_len);
  if (flags & 0x01) fuzz::RepairSegmentChecksums(&meta);

  SegmentTable table(segment_bytes);
  const Status s = table.Load(meta);
  if (!s.ok()) {
    FUZZ_CHECK_MSG(s.IsCorruption(), s.ToString());
    return 0;
  }
  FUZZ_CHECK(table.segment_count() == meta.size() / kSegmentEntryBytes);
  // Commit writes the repairs of the torn runs Load freed; the bytes then load back cleanly.
  meta.resize(meta.size() / kSegmentEntryBytes * kSegmentEntryBytes);  // a torn last entry
  Commit(table, &meta);
  CheckReload(table, segment_bytes, meta);

  Harness harness{table, segment_bytes, meta, {}};
  for (size_t i = 0; i < std::min(ops.size(), 4 * kMaxOps); i += 4) {
    auto at = [&](size_t k) { return i + k < ops.size() ? static_cast<uint8_t>(ops[i + k]) : 0; };
    harness.RunOp(at(0), at(1), at(2), at(3));
  }
  Commit(table, &meta);
  CheckReload(table, segment_bytes, meta);
  return 0;
}
