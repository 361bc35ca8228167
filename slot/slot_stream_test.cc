// What replication needs of a slot: the commit tap (SlotOptions::on_commit), Apply with the
// master's seqs (the log's order decides, also across flushes and reopens), and stream_seq,
// exact across reopens, with slot.seq's floor and SlotOptions::seq_floor.
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/coding.h"
#include "core/base/fault_fs.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"
#include "core/base/temp_dir.h"
#include "slot/seq_file.h"
#include "slot/slot_test_util.h"
#include "wal/record.h"

namespace slotkv::slot {
namespace {

// What on_commit was told: one entry per call, its units decoded.
struct Tapped {
  struct Call {
    std::vector<wal::Record> records;
    uint64_t stream_seq = 0;
  };
  std::vector<Call> calls;

  void Attach(SlotOptions* options) {
    options->on_commit = [this](std::string units, uint64_t stream_seq) {
      Call call;
      call.stream_seq = stream_seq;
      std::string_view in(units);
      while (!in.empty()) {
        wal::Record record;
        size_t consumed = 0;
        REQUIRE(wal::DecodeRecord(in, &record, &consumed) == wal::DecodeResult::kOk);
        call.records.push_back(std::move(record));
        in.remove_prefix(consumed);
      }
      CHECK(!call.records.empty());
      CHECK(!call.records.back().more);  // whole units only
      calls.push_back(std::move(call));
    };
  }
  // Keys of every record told, in order, "-" before a Delete's.
  std::vector<std::string> Keys() const {
    std::vector<std::string> keys;
    for (const Call& call : calls) {
      for (const wal::Record& r : call.records) {
        keys.push_back((r.kind == wal::RecordKind::kDelete ? "-" : "") + r.key);
      }
    }
    return keys;
  }
};

using Keys = std::vector<std::string>;

// A tapped slot on a MemFs, as most cases here start.
struct TapFixture {
  TapFixture() : options(SmallOptions(&fs, &clock)) {
    tapped.Attach(&options);
    slot = OpenOrDie(options);
  }
  MemFs fs;
  ManualClock clock;
  SlotOptions options;
  Tapped tapped;
  std::unique_ptr<Slot> slot;
};

uint64_t SeqOf(Slot& slot, const std::string& key) {
  auto meta = slot.GetMeta(key);
  REQUIRE(meta.ok());
  REQUIRE(meta->has_value());
  return (*meta)->seq;
}

TEST_CASE_FIXTURE(TapFixture, "the tap tells each commit's records as whole units") {
  REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
  REQUIRE(slot->Put("b", "2", ValueType::kHash, 123).ok());
  REQUIRE(slot->Delete("a").ok());
  CHECK(tapped.calls.empty());  // buffered: nothing written yet
  REQUIRE(slot->Commit().ok());
  REQUIRE(tapped.calls.size() == 1);
  const auto& records = tapped.calls[0].records;
  REQUIRE(records.size() == 3);
  CHECK(records[0].kind == wal::RecordKind::kPut);
  CHECK(records[0].key == "a");
  CHECK(records[0].value == "1");
  CHECK(records[0].seq == 1);
  CHECK(records[0].more);
  CHECK(records[1].key == "b");
  CHECK(records[1].type_tag == static_cast<uint8_t>(ValueType::kHash));
  CHECK(records[1].expire_at_ms == 123);
  CHECK(records[1].seq == 2);
  CHECK(records[1].more);
  CHECK(records[2].kind == wal::RecordKind::kDelete);
  CHECK(records[2].key == "a");
  CHECK(records[2].seq == 3);
  CHECK(!records[2].more);
  CHECK(tapped.calls[0].stream_seq == 3);
  CHECK(slot->stream_seq() == 3);

  REQUIRE(slot->Commit().ok());  // nothing written: nothing told
  CHECK(tapped.calls.size() == 1);
  REQUIRE(slot->Put("c", "3", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  REQUIRE(tapped.calls.size() == 2);
  REQUIRE(tapped.calls[1].records.size() == 1);
  CHECK(tapped.calls[1].records[0].key == "c");
  CHECK(!tapped.calls[1].records[0].more);
  CHECK(tapped.calls[1].stream_seq == 4);
}

TEST_CASE_FIXTURE(TapFixture, "the tap leaves flush records out and tells a flush's commit once") {
  Keys want;
  for (int i = 0; i < 400; ++i) {
    const std::string key = "k" + std::to_string(i);
    REQUIRE(slot->Put(key, ValueFor(i, 0, 40), ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());
    want.push_back(key);
  }
  CHECK(slot->Stats().flushes > 0);
  REQUIRE(slot->Put("last", "v", ValueType::kString).ok());
  REQUIRE(slot->Flush().ok());  // commits the open unit too
  want.push_back("last");
  CHECK(tapped.Keys() == want);
  CHECK(tapped.calls.size() == 401);
  for (const auto& call : tapped.calls) {
    for (const auto& r : call.records) CHECK(r.kind == wal::RecordKind::kPut);
  }
  CHECK(tapped.calls.back().stream_seq == 401);
}

TEST_CASE_FIXTURE(TapFixture, "a held unit is told with the commit after Unhold, not before") {
  REQUIRE(slot->Put("before", "1", ValueType::kString).ok());
  slot->Hold();
  REQUIRE(slot->Put("h1", "1", ValueType::kString).ok());
  REQUIRE(slot->Put("h2", "1", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  REQUIRE(tapped.calls.size() == 1);
  CHECK(tapped.Keys() == Keys{"before"});
  CHECK(tapped.calls[0].stream_seq == 1);
  REQUIRE(slot->Commit().ok());
  CHECK(tapped.calls.size() == 1);
  slot->Unhold();
  REQUIRE(slot->Put("h3", "1", ValueType::kString).ok());  // joins the unit
  REQUIRE(slot->Commit().ok());
  REQUIRE(tapped.calls.size() == 2);
  const auto& unit = tapped.calls[1].records;
  REQUIRE(unit.size() == 3);
  CHECK(unit[0].key == "h1");
  CHECK(unit[0].more);
  CHECK(unit[1].more);
  CHECK(!unit[2].more);
  CHECK(tapped.calls[1].stream_seq == 4);
}

TEST_CASE_FIXTURE(TapFixture, "CommitThen without an io_uring tells the records before done runs") {
  REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
  bool answered = false;
  slot->CommitThen([&](const Status& st) {
    CHECK(st.ok());
    CHECK(tapped.Keys() == Keys{"a"});
    answered = true;
  });
  CHECK(answered);
}

TEST_CASE("a Commit finishing while an earlier CommitThen's ring write flies is told after it") {
  TempDir dir("slotkv-stream-test");
  std::unique_ptr<Fs> posix = NewPosixFs();
  ThreadRing ring;
  ManualClock clock;
  SlotOptions options = SmallOptions(posix.get(), &clock);
  options.dir = JoinPath(dir.path(), "slot-0000");
  options.fsync = wal::FsyncPolicy::kEverySec;
  options.wal_ring_writes = true;
  Tapped tapped;
  tapped.Attach(&options);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
    int answered = 0;
    slot->CommitThen([&](const Status& st) {
      CHECK(st.ok());
      CHECK(tapped.Keys() == Keys{"a", "b"});  // told before done, b behind it
      ++answered;
    });
    CHECK(answered == 0);  // in flight
    REQUIRE(slot->Put("b", "1", ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());  // writes a's bytes again itself, then b's
    CHECK(tapped.calls.empty());   // b waits for a
    ring->DrainForTest();
    CHECK(answered == 1);
    REQUIRE(tapped.calls.size() == 2);
    CHECK(tapped.calls[0].stream_seq == 1);
    CHECK(tapped.calls[1].stream_seq == 2);
    // Two CommitThens in flight at once: told in order.
    REQUIRE(slot->Put("c", "1", ValueType::kString).ok());
    slot->CommitThen([&](const Status& st) { CHECK(st.ok()); });
    REQUIRE(slot->Put("d", "1", ValueType::kString).ok());
    slot->CommitThen([&](const Status& st) { CHECK(st.ok()); });
    ring->DrainForTest();
    CHECK(tapped.Keys() == Keys{"a", "b", "c", "d"});
  }
}

TEST_CASE("a failed commit is never told; after Recover only new records are") {
  MemFs mem;
  FaultFs fault(&mem);
  ManualClock clock;
  SlotOptions options = SmallOptions(&fault, &clock);
  Tapped tapped;
  tapped.Attach(&options);
  auto slot = OpenOrDie(options);
  REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  REQUIRE(slot->Put("b", "1", ValueType::kString).ok());
  fault.FailNthWrite(1);
  CHECK(slot->Commit().IsIOError());
  CHECK(slot->Put("c", "1", ValueType::kString).IsUnavailable());
  bool answered = false;
  slot->CommitThen([&](const Status& st) {
    CHECK(st.IsUnavailable());
    answered = true;
  });
  CHECK(answered);
  fault.Clear();
  REQUIRE(slot->Recover().ok());
  CHECK(slot->stream_seq() == 1);  // b is gone
  REQUIRE(slot->Put("d", "1", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  CHECK(tapped.Keys() == Keys{"a", "d"});
  CHECK(tapped.calls.back().stream_seq == SeqOf(*slot, "d"));
  CHECK(GetOrDie(*slot, "b") == "<absent>");
}

TEST_CASE_FIXTURE(TapFixture, "active expiry's deletes are told with the commit after it") {
  REQUIRE(slot->Put("t", "1", ValueType::kString, clock.NowMs() + 1000).ok());
  REQUIRE(slot->Put("p", "1", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  clock.AdvanceMs(2000);
  auto expired = slot->ActiveExpireStep(1000);
  REQUIRE(expired.ok());
  CHECK(*expired == 1);
  REQUIRE(slot->Commit().ok());
  CHECK(tapped.Keys() == Keys{"t", "p", "-t"});
  CHECK(tapped.calls.back().stream_seq == 3);
}

TEST_CASE("a slot without on_commit writes as before") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
    REQUIRE(slot->Apply(PutRecord("b", "2", 7)).ok());
    bool answered = false;
    slot->CommitThen([&](const Status& st) { answered = st.ok(); });
    CHECK(answered);
    CHECK(slot->stream_seq() == 7);
  }
  auto slot = OpenOrDie(options);
  CHECK(GetOrDie(*slot, "a") == "1");
  CHECK(GetOrDie(*slot, "b") == "2");
}

TEST_CASE_FIXTURE(TapFixture, "Apply writes with the master's seq and later Puts number above it") {
  REQUIRE(slot->Apply(PutRecord("a", "1", 100)).ok());
  REQUIRE(slot->Apply(PutRecord("b", "1", 90)).ok());
  REQUIRE(slot->Apply(DeleteRecord("never-there", 95)).ok());  // logged all the same
  REQUIRE(slot->Commit().ok());
  CHECK(GetOrDie(*slot, "a") == "1");
  CHECK(SeqOf(*slot, "a") == 100);
  CHECK(SeqOf(*slot, "b") == 90);
  CHECK(slot->stream_seq() == 100);
  REQUIRE(tapped.calls.size() == 1);
  CHECK(tapped.Keys() == Keys{"a", "b", "-never-there"});
  CHECK(tapped.calls[0].records[1].seq == 90);
  CHECK(tapped.calls[0].stream_seq == 100);
  REQUIRE(slot->Put("c", "1", ValueType::kString).ok());
  CHECK(SeqOf(*slot, "c") == 101);

  wal::Record mark;
  mark.kind = wal::RecordKind::kGroupFlushed;
  CHECK(slot->Apply(mark).IsInvalidArgument());
  CHECK(slot->Apply(PutRecord(std::string(Slot::kMaxKeyBytes + 1, 'k'), "v", 200))
            .IsInvalidArgument());

  // A seq far above the reservation: a reopen still numbers above it.
  REQUIRE(slot->Apply(PutRecord("far", "1", 50'000'000)).ok());
  REQUIRE(slot->Commit().ok());
  REQUIRE(slot->Flush().ok());  // no log left to replay it from
  slot.reset();
  slot = OpenOrDie(options);
  CHECK(slot->stream_seq() == 50'000'000);
  REQUIRE(slot->Put("after", "1", ValueType::kString).ok());
  CHECK(SeqOf(*slot, "after") > 50'000'000);
}

// Writes key:i for i < n with seqs base + i, committed one unit each, then again in the other
// order of seqs (high first, each lower one after): the later write must win.
void ApplyTwice(Slot& slot, int n, uint64_t high_base, uint64_t low_base) {
  for (int i = 0; i < n; ++i) {
    REQUIRE(slot.Apply(PutRecord("key:" + std::to_string(i), ValueFor(i, 1, 30),
                                 high_base + static_cast<uint64_t>(i)))
                .ok());
    REQUIRE(slot.Commit().ok());
  }
  for (int i = 0; i < n; ++i) {
    const std::string key = "key:" + std::to_string(i);
    if (i % 5 == 0) {
      REQUIRE(slot.Apply(DeleteRecord(key, low_base + static_cast<uint64_t>(i))).ok());
    } else {
      REQUIRE(slot.Apply(PutRecord(key, ValueFor(i, 2, 30), low_base + static_cast<uint64_t>(i)))
                  .ok());
    }
    REQUIRE(slot.Commit().ok());
  }
}

void CheckSecondWins(Slot& slot, int n) {
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    const std::string want = i % 5 == 0 ? "<absent>" : ValueFor(i, 2, 30);
    REQUIRE(GetOrDie(slot, "key:" + std::to_string(i)) == want);
  }
}

TEST_CASE("a lower seq applied after a higher one wins, across group flushes and reopens") {
  for (auto fsync : {wal::FsyncPolicy::kAlways, wal::FsyncPolicy::kEverySec}) {
    CAPTURE(static_cast<int>(fsync));
    MemFs fs;
    ManualClock clock;
    SlotOptions options = SmallOptions(&fs, &clock);
    options.fsync = fsync;
    constexpr int kKeys = 600;  // far past the groups' thresholds: every group flushes
    auto slot = OpenOrDie(options);
    ApplyTwice(*slot, kKeys, 1'000'000, 1);
    CHECK(slot->Stats().flushes > 0);
    uint64_t stream_seq = 1'000'000 + kKeys - 1;
    CHECK(slot->stream_seq() == stream_seq);
    CheckSecondWins(*slot, kKeys);
    if (fsync == wal::FsyncPolicy::kEverySec) {
      // The marks of the flushes are logged late, after lower-seq writes of their groups.
      clock.AdvanceMs(1000);
      REQUIRE(slot->Put("tick", "1", ValueType::kString).ok());
      REQUIRE(slot->Commit().ok());
      CHECK(slot->Stats().publishes > 0);
      stream_seq = SeqOf(*slot, "tick");
    }
    slot.reset();
    slot = OpenOrDie(options);
    CheckSecondWins(*slot, kKeys);
    REQUIRE(slot->Flush().ok());  // the replayed entries merged over the newer-seq cells
    CheckSecondWins(*slot, kKeys);
    slot.reset();
    slot = OpenOrDie(options);
    CheckSecondWins(*slot, kKeys);
    CHECK(slot->stream_seq() == stream_seq);
  }
}

TEST_CASE("stream_seq is exact after a reopen, with log files removed or not") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.wal_file_bytes = 4 << 10;
  auto count_logs = [&] {
    auto names = fs.List(options.dir);
    REQUIRE(names.ok());
    int logs = 0;
    for (const std::string& name : *names) logs += name.starts_with("wal-") ? 1 : 0;
    return logs;
  };
  uint64_t n = 0;
  {
    auto slot = OpenOrDie(options);
    CHECK(slot->stream_seq() == 0);
    for (; n < 5; ++n) {
      REQUIRE(slot->Put("k" + std::to_string(n), "v", ValueType::kString).ok());
    }
    REQUIRE(slot->Commit().ok());
    CHECK(slot->stream_seq() == 5);
  }
  {
    auto slot = OpenOrDie(options);  // slot.seq reserved 2^20 seqs: not the stream's position
    CHECK(slot->stream_seq() == 5);
    // Enough to rotate the log and let group flushes remove its older files. Numbering goes
    // on above the reservation, so the stream jumps there.
    for (; n < 3000; ++n) {
      REQUIRE(slot->Put("k" + std::to_string(n % 700), ValueFor(static_cast<int>(n), 0, 40),
                        ValueType::kString)
                  .ok());
      REQUIRE(slot->Commit().ok());
    }
    CHECK(slot->Stats().flushes > 0);
    n = SeqOf(*slot, "k" + std::to_string(2999 % 700));
    CHECK(slot->stream_seq() == n);
  }
  auto files = fs.List(options.dir);
  REQUIRE(files.ok());
  bool first_removed = true;
  for (const std::string& name : *files) first_removed &= name != "wal-000001.log";
  CHECK(first_removed);
  {
    auto slot = OpenOrDie(options);
    CHECK(slot->stream_seq() == n);
    REQUIRE(slot->Delete("k1").ok());
    REQUIRE(slot->Flush().ok());  // removes every log file
    CHECK(count_logs() == 1);
    CHECK(slot->stream_seq() > n);
    n = slot->stream_seq();
  }
  auto slot = OpenOrDie(options);
  CHECK(slot->stream_seq() == n);
  REQUIRE(slot->Put("new", "v", ValueType::kString).ok());
  CHECK(slot->stream_seq() == SeqOf(*slot, "new"));
}

TEST_CASE("on a worker log files go once slot.seq is synced through the io_uring") {
  TempDir dir("slotkv-stream-test");
  std::unique_ptr<Fs> posix = NewPosixFs();
  FaultFs fault(posix.get());
  std::optional<ThreadRing> ring(std::in_place);
  ManualClock clock;
  SlotOptions options = SmallOptions(&fault, &clock);
  options.dir = JoinPath(dir.path(), "slot-0000");
  options.wal_file_bytes = 4 << 10;
  options.wal_max_bytes = 32 << 10;
  options.group_flush_bytes = 4 << 10;
  options.wal_ring_writes = true;
  auto oldest_log = [&] {
    auto names = posix->List(options.dir);
    REQUIRE(names.ok());
    std::string oldest = "~";
    for (const std::string& name : *names) {
      if (name.starts_with("wal-")) oldest = std::min(oldest, name);
    }
    return oldest;
  };
  auto write = [&](std::unique_ptr<Slot>& slot, int n) {
    for (int i = 0; i < n; ++i) {
      REQUIRE(slot->Put("k" + std::to_string(i % 300), ValueFor(i, 0, 40), ValueType::kString)
                  .ok());
      slot->CommitThen([](const Status&) {});
      while (slot->flush_due()) REQUIRE(slot->FlushStep().ok());
      (*ring)->DrainForTest();
    }
  };
  uint64_t n = 0;
  {
    auto slot = OpenOrDie(options);
    write(slot, 2000);
    CHECK(slot->Stats().flushes > 0);
    CHECK(oldest_log() != "wal-000001.log");
    n = slot->stream_seq();
    // A failed fsync of slot.seq keeps the files it would have let go, and fails the slot.
    fault.OnlyPaths("slot.seq");
    fault.FailNthSync(1);
    const std::string before = oldest_log();
    for (int i = 0; i < 2000 && slot->failure().ok(); ++i) {
      REQUIRE(slot->Put("x" + std::to_string(i % 300), ValueFor(i, 1, 40), ValueType::kString)
                  .ok());
      slot->CommitThen([](const Status&) {});
      while (slot->flush_due() && slot->FlushStep().ok()) {
      }
      (*ring)->DrainForTest();
      (void)slot->Commit();  // Refusal adopts what a completion reported
    }
    CHECK_FALSE(slot->failure().ok());
    CHECK(oldest_log() == before);
    fault.Clear();
    REQUIRE(slot->Recover().ok());
    n = slot->stream_seq();
    write(slot, 500);
    n = slot->stream_seq();
  }
  ring.reset();  // drained, and no longer this thread's
  auto slot = OpenOrDie(options);
  CHECK(slot->stream_seq() == n);
}

TEST_CASE("a 12-byte slot.seq of an older slot still opens, with a floor of 0") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
    REQUIRE(slot->Put("b", "1", ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());
  }
  std::string old;
  PutFixed64(&old, 5000);
  PutFixed32(&old, Checksum(old));
  REQUIRE(old.size() == 12);
  REQUIRE(fs.WriteFileAtomic(JoinPath(options.dir, "slot.seq"), old).ok());
  {
    auto slot = OpenOrDie(options);
    CHECK(slot->stream_seq() == 2);  // what the log holds
    CHECK(GetOrDie(*slot, "a") == "1");
    REQUIRE(slot->Put("c", "1", ValueType::kString).ok());
    CHECK(SeqOf(*slot, "c") == 5001);
    REQUIRE(slot->Flush().ok());
  }
  auto data = fs.ReadFile(JoinPath(options.dir, "slot.seq"));
  REQUIRE(data.ok());
  CHECK(data->size() == SeqFile::kFileBytes);  // the open rewrote it in the current format
  auto slot = OpenOrDie(options);
  CHECK(slot->stream_seq() == 5001);

  // A file with no valid copy stops the open.
  std::string bad = *data;
  bad[10] ^= 1;
  bad[SeqFile::kCopyOffset + 10] ^= 1;
  slot.reset();
  REQUIRE(fs.WriteFileAtomic(JoinPath(options.dir, "slot.seq"), bad).ok());
  CHECK(Slot::Open(options).status().IsCorruption());
}

TEST_CASE("seq_floor: a new slot numbers above it and reports at least it, also later") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.seq_floor = 7000;
  {
    auto slot = OpenOrDie(options);
    CHECK(slot->stream_seq() == 7000);
  }
  options.seq_floor = 0;
  {
    auto slot = OpenOrDie(options);  // recorded: the floor stays without the option
    CHECK(slot->stream_seq() == 7000);
    REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
    CHECK(SeqOf(*slot, "a") == 7001);
    CHECK(slot->stream_seq() == 7001);
    REQUIRE(slot->Commit().ok());
  }
  options.seq_floor = 10;  // lower than the slot's: no effect
  auto slot = OpenOrDie(options);
  CHECK(slot->stream_seq() == 7001);
}

}  // namespace
}  // namespace slotkv::slot
