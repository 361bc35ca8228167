#include "chunk/segment_table.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::chunk {
namespace {

constexpr uint32_t kSeg = 256;

// Applies writes (as DirtyWrites returns them) to a segments.meta image.
void Apply(const std::vector<std::pair<uint64_t, std::string>>& writes, std::string* meta) {
  for (const auto& [offset, bytes] : writes) {
    if (meta->size() < offset + bytes.size()) meta->resize(offset + bytes.size(), '\0');
    meta->replace(offset, bytes.size(), bytes);
  }
}

// A table with run A = segment 0 (group 1) and run B = segments 1..3 (group 2), committed, and
// the segments.meta image it wrote.
struct TwoRuns {
  SegmentTable table{kSeg};
  std::string meta;
  TwoRuns() {
    table.AddLive(table.Allocate(1, 1), 10);
    table.AddLive(table.Allocate(2, 3), 500);
    Apply(table.DirtyWrites(false), &meta);
    table.ClearDirty(false);
    table.ClearFresh();
  }
};

uint32_t Entry(uint32_t segment) { return segment * static_cast<uint32_t>(kSegmentEntryBytes); }

TEST_CASE("Load restores runs, groups and live bytes") {
  TwoRuns w;
  SegmentTable t(kSeg);
  REQUIRE(t.Load(w.meta).ok());
  CHECK(t.segment_count() == 4);
  CHECK(t.used_segments() == 4);
  CHECK(t.live_bytes() == 510);
  CHECK(t.RunHead(3) == 1);
  CHECK(t.RunLength(2) == 3);
  CHECK(t.Group(2) == 2);
  uint64_t requested = 0;
  CHECK(t.TakeFrees(&requested).empty());
}

TEST_CASE("an allocation torn after its head frees the run; the next commit rewrites it") {
  TwoRuns w;
  // The write of B's entries stopped after entry 2: entry 3 was never written.
  std::string meta = w.meta;
  std::fill(meta.begin() + Entry(3), meta.begin() + Entry(4), '\0');
  SegmentTable t(kSeg);
  REQUIRE(t.Load(meta).ok());
  CHECK(t.used_segments() == 1);
  CHECK(t.live_bytes() == 10);
  CHECK_FALSE(t.IsUsed(1));
  CHECK_FALSE(t.IsUsed(2));
  // Segment 3 read free and is reusable at once; 1 and 2 wait until written free.
  const uint32_t reused = t.Allocate(3, 1);
  CHECK(reused == 3);
  t.AddLive(reused, 4);
  uint64_t requested = 0;
  auto freed = t.TakeFrees(&requested);
  REQUIRE(freed.size() == 1);
  CHECK(freed[0].head == 1);
  CHECK(freed[0].length == 2);
  CHECK(requested == 0);
  std::string repaired = meta;
  Apply(t.DirtyWrites(false), &repaired);
  t.ClearDirty(false);
  t.MakeReusable(freed[0]);
  CHECK(t.Allocate(4, 2) == 1);
  // The rewritten image loads with no torn run left.
  SegmentTable again(kSeg);
  REQUIRE(again.Load(repaired).ok());
  CHECK(again.used_segments() == 2);
  CHECK(again.TakeFrees(&requested).empty());
}

TEST_CASE("an allocation cut at the end of the table frees the run") {
  TwoRuns w;
  SegmentTable t(kSeg);
  REQUIRE(t.Load(w.meta.substr(0, Entry(3))).ok());
  CHECK(t.used_segments() == 1);
  CHECK(t.segment_count() == 3);
  uint64_t requested = 0;
  auto freed = t.TakeFrees(&requested);
  REQUIRE(freed.size() == 1);
  CHECK(freed[0].head == 1);
  CHECK(freed[0].length == 2);
}

TEST_CASE("a free torn after its head frees the rest of the run") {
  TwoRuns w;
  w.table.RequestFree(2);
  uint64_t requested = 0;
  auto freed = w.table.TakeFrees(&requested);
  REQUIRE(freed.size() == 1);
  CHECK(requested == 3);
  auto writes = w.table.DirtyWrites(false);
  REQUIRE(writes.size() == 1);
  // Only the head's entry of the "free" write reached the file.
  writes[0].second.resize(kSegmentEntryBytes);
  std::string meta = w.meta;
  Apply(writes, &meta);
  SegmentTable t(kSeg);
  REQUIRE(t.Load(meta).ok());
  CHECK(t.used_segments() == 1);
  CHECK_FALSE(t.IsUsed(2));
  CHECK_FALSE(t.IsUsed(3));
  freed = t.TakeFrees(&requested);
  REQUIRE(freed.size() == 1);
  CHECK(freed[0].head == 2);
  CHECK(freed[0].length == 2);
}

TEST_CASE("a stale tail naming an older run at a reused head is freed, the new run kept") {
  TwoRuns w;
  // B freed durably, then segment 1 reused by a one-segment run of group 5 whose write landed,
  // while entries 2..3 still hold B (as if B's free write had been torn earlier).
  std::string meta = w.meta;
  SegmentTable fresh(kSeg);
  fresh.Allocate(9, 1);  // segment 0, to line up the next allocation with segment 1
  fresh.AddLive(fresh.Allocate(5, 1), 7);
  auto writes = fresh.DirtyWrites(false);
  REQUIRE(writes.size() == 1);
  writes[0].first = Entry(1);
  writes[0].second = writes[0].second.substr(kSegmentEntryBytes);
  Apply(writes, &meta);
  SegmentTable t(kSeg);
  REQUIRE(t.Load(meta).ok());
  CHECK(t.IsUsed(1));
  CHECK(t.Group(1) == 5);
  CHECK_FALSE(t.IsUsed(2));
  CHECK_FALSE(t.IsUsed(3));
  CHECK(t.live_bytes() == 17);
}

TEST_CASE("a flipped byte is still Corruption naming the entry") {
  TwoRuns w;
  std::string meta = w.meta;
  meta[Entry(2) + 9] ^= 0x40;
  SegmentTable t(kSeg);
  Status s = t.Load(meta);
  CHECK(s.IsCorruption());
  CHECK(s.ToString().find("checksum mismatch in entry 2") != std::string::npos);
}

// Commits t: entries written to meta, fresh cleared, frees taken and made reusable.
void CommitAll(SegmentTable& t, std::string* meta) {
  t.ClearFresh();
  uint64_t requested = 0;
  std::vector<SegmentRun> freed = t.TakeFrees(&requested);
  Apply(t.DirtyWrites(false), meta);
  t.ClearDirty(false);
  for (const SegmentRun& run : freed) t.MakeReusable(run);
}

// A one-segment run of group holding bytes of records (all live, fill = bytes), committed.
uint32_t FilledRun(SegmentTable& t, uint32_t group, uint32_t bytes, std::string* meta) {
  const uint32_t head = t.Allocate(group, 1);
  t.AddLive(head, bytes);
  t.SetFill(head, bytes);
  CommitAll(t, meta);
  return head;
}

TEST_CASE("candidates stay oldest first while runs are freed, compacted and reused") {
  SegmentTable t(kSeg);
  std::string meta;
  // 100 one-segment runs of group 3, 10 live bytes each: all under half live.
  for (int i = 0; i < 100; ++i) t.AddLive(t.Allocate(3, 1), 10);
  // Group 4's fully live run keeps the table from shrinking; group 3 is far over 2x live.
  t.AddLive(t.Allocate(4, 1), kSeg);
  CommitAll(t, &meta);
  CHECK(t.Candidates(3, 5) == std::vector<uint32_t>{0, 1, 2, 3, 4});
  // Free 80 of them (every run but those at multiples of 5): the list compacts past half dead.
  for (uint32_t head = 0; head < 100; ++head) {
    if (head % 5 != 0) t.RequestFree(head);
  }
  CommitAll(t, &meta);
  CHECK(t.used_segments() == 21);
  CHECK(t.Candidates(3, 3) == std::vector<uint32_t>{0, 5, 10});
  // A freed segment handed out again to the same group is its newest run.
  const uint32_t again = t.Allocate(3, 1);
  CHECK(again == 1);
  t.AddLive(again, 10);
  CommitAll(t, &meta);
  std::vector<uint32_t> all = t.Candidates(3, 100);
  REQUIRE(all.size() == 21);
  CHECK(all.front() == 0);
  CHECK(all.back() == 1);
  // The same order after a reopen.
  SegmentTable reopened(kSeg);
  REQUIRE(reopened.Load(meta).ok());
  CHECK(reopened.Candidates(3, 100) == all);
  // Freeing every run of a group drops it.
  for (uint32_t head : all) reopened.RequestFree(head);
  CommitAll(reopened, &meta);
  CHECK(reopened.Candidates(3, 100).empty());
  CHECK(reopened.used_segments() == 1);
}

TEST_CASE("a group's newest run with a known fill and room left can be reopened") {
  SegmentTable t(kSeg);
  std::string meta;
  const uint32_t a = FilledRun(t, 1, 100, &meta);
  CHECK(t.AppendableRun(1, kSeg - 100) == a);
  CHECK(t.AppendableRun(1, kSeg - 99) == kNoGroup);  // does not fit
  CHECK(t.AppendableRun(3, 10) == kNoGroup);         // no runs
  const uint32_t c = t.Allocate(2, 1);
  t.AddLive(c, 10);
  t.SetFill(c, 10);
  CHECK(t.AppendableRun(2, 10) == kNoGroup);  // fresh: still this flush's open run
  // The fill survives a reload; an entry without one (older stores) is never reopened.
  SegmentTable loaded(kSeg);
  REQUIRE(loaded.Load(meta).ok());
  CHECK(loaded.Fill(a) == 100);
  CHECK(loaded.AppendableRun(1, 10) == a);
  std::string legacy = meta;
  std::fill(legacy.begin() + Entry(a) + 28, legacy.begin() + Entry(a) + 32, '\0');
  EncodeFixed32(legacy.data() + Entry(a),
                Checksum(std::string_view(legacy).substr(Entry(a) + 4, 28)));
  SegmentTable old(kSeg);
  REQUIRE(old.Load(legacy).ok());
  CHECK(old.Fill(a) == 0);
  CHECK(old.AppendableRun(1, 10) == kNoGroup);
  // Only the newest run, and not once it is to be freed.
  const uint32_t b = FilledRun(t, 1, 10, &meta);
  CHECK(t.AppendableRun(1, 10) == b);
  t.RequestFree(b);
  CHECK(t.AppendableRun(1, 10) == kNoGroup);
}

TEST_CASE("a reopened run's entry goes out at SyncData still counting released bytes") {
  SegmentTable t(kSeg);
  std::string meta;
  const uint32_t a = FilledRun(t, 1, 100, &meta);
  // The next flush releases 60 bytes of the run, then appends 20 after its fill.
  t.ReleaseLive(a, 60);
  t.Reopen(a);
  t.AddLive(a, 20);
  t.SetFill(a, 120);
  CHECK(t.Candidates(1, 8).empty());  // reopened: fresh again
  std::string synced = meta;
  Apply(t.DirtyWrites(true), &synced);
  t.ClearDirty(true);
  // A crash now: the pages still point at all 100 old bytes, none at the 20 new ones.
  SegmentTable crashed(kSeg);
  REQUIRE(crashed.Load(synced).ok());
  CHECK(crashed.live_bytes() == 120);
  CHECK(crashed.Fill(a) == 120);
  // Commit writes the lower figure.
  CommitAll(t, &synced);
  SegmentTable committed(kSeg);
  REQUIRE(committed.Load(synced).ok());
  CHECK(committed.live_bytes() == 60);
  CHECK(committed.Fill(a) == 120);
}

}  // namespace
}  // namespace slotkv::chunk
