// Crash and fault tests of a slot over MemFs (power cuts) and FaultFs (failed I/O).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>

#include "core/base/fault_fs.h"
#include "slot/slot.h"
#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

// Writes random puts and deletes; every op is committed (acknowledged) except the last
// `unacked` ones. Records the acknowledged state in *acked and, per key, the values the
// unacknowledged writes may have left in *maybe (any of them may survive a power cut, since a
// group flush commits the log).
void RandomLoad(Slot& slot, std::mt19937& rng, int ops, int unacked,
                std::map<std::string, std::string>* acked,
                std::map<std::string, std::vector<std::string>>* maybe) {
  for (int op = 0; op < ops; ++op) {
    std::string key = "k" + std::to_string(rng() % 400);
    bool ack = op < ops - unacked;
    if (rng() % 8 == 0) {
      REQUIRE(slot.Delete(key).ok());
      if (ack) acked->erase(key); else (*maybe)[key].push_back("<absent>");
    } else {
      std::string value = ValueFor(static_cast<int>(rng() % 100), op, rng() % 600);
      REQUIRE(slot.Put(key, value, ValueType::kString).ok());
      if (ack) (*acked)[key] = value; else (*maybe)[key].push_back(value);
    }
    if (ack) REQUIRE(slot.Commit().ok());
  }
}

TEST_CASE("power cut with appendfsync always loses no acknowledged write") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  std::mt19937 rng(2024);
  MESSAGE("seed 2024");
  std::map<std::string, std::string> acked;
  for (int round = 0; round < 25; ++round) {
    std::map<std::string, std::vector<std::string>> maybe;
    {
      auto slot = OpenOrDie(options);
      RandomLoad(*slot, rng, 300 + static_cast<int>(rng() % 300), static_cast<int>(rng() % 5),
                 &acked, &maybe);
      fs.SimulatePowerCutForTest();
    }
    auto slot = OpenOrDie(options);
    for (int i = 0; i < 400; ++i) {
      std::string key = "k" + std::to_string(i);
      std::string got = GetOrDie(*slot, key);
      auto a = acked.find(key);
      std::string want = a == acked.end() ? "<absent>" : a->second;
      auto m = maybe.find(key);
      if (m != maybe.end() && std::count(m->second.begin(), m->second.end(), got) > 0) {
        // An unacknowledged write may survive; from now on it is the state.
        if (got == "<absent>") acked.erase(key); else acked[key] = got;
        continue;
      }
      CHECK_MESSAGE(got == want, "round ", round, " key ", key);
    }
  }
}

// With everysec the log syncs at a commit a second after the last sync, and flushed data is
// published (synced, then its marks logged) on the same beat: a power cut right after such a
// commit loses nothing.
void EverysecPowerCut(bool overwrite) {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.fsync = wal::FsyncPolicy::kEverySec;
  std::map<std::string, std::string> model;
  std::mt19937 rng(99);
  MESSAGE("seed 99");
  {
    auto slot = OpenOrDie(options);
    for (int batch = 0; batch < 40; ++batch) {
      for (int i = 0; i < 100; ++i) {
        std::string key = "e" + std::to_string(overwrite ? rng() % 800 : batch * 100 + i);
        model[key] = ValueFor(static_cast<int>(rng() % 50), batch, 20 + rng() % 300);
        REQUIRE(slot->Put(key, model[key], ValueType::kString).ok());
      }
      clock.AdvanceMs(1500);
      REQUIRE(slot->Commit().ok());
    }
    CHECK(slot->Stats().flushes > 0);
    if (overwrite) CHECK(slot->Stats().compacted_segments > 0);
    fs.SimulatePowerCutForTest();
  }
  auto slot = OpenOrDie(options);
  for (const auto& [key, value] : model) CHECK_MESSAGE(GetOrDie(*slot, key) == value, key);
}

TEST_CASE("everysec: a power cut after a synced commit loses no new key") {
  EverysecPowerCut(/*overwrite=*/false);
}

TEST_CASE("everysec: a power cut after a synced commit loses no overwrite, compaction included") {
  EverysecPowerCut(/*overwrite=*/true);
}

// Everysec over 4 KiB segments, and a log that never fills: no log file removal publishes
// behind a power-cut test's back.
SlotOptions CutOptions(MemFs* fs, ManualClock* clock) {
  SlotOptions options = SmallOptions(fs, clock);
  options.fsync = wal::FsyncPolicy::kEverySec;
  options.segment_bytes = 4096;
  options.wal_file_bytes = 64 << 20;
  options.wal_max_bytes = 256 << 20;
  return options;
}

// The kernel may write a page back at any time after it was written. A power cut that finds the
// log and the bucket pages written back, and the chunk files as last synced, loses nothing:
// the flushes the cut undid are redone from the log, and the pages' cells they wrote name
// places whose runs the segment table lost (free now, another group's, or a run of the group
// that never counted them). Before it recounted such a group at Open and released only places
// of its own runs, a redone flush released them and freed runs still in use. Compaction is
// deferred: its synchronous sync of the chunk files hid this.
TEST_CASE("everysec: a power cut keeping the log and bucket pages, not the chunks, loses nothing") {
  MemFs fs;
  ManualClock clock;
  const SlotOptions options = CutOptions(&fs, &clock);
  std::map<std::string, std::string> model;
  std::mt19937 rng(17);
  auto slot = OpenOrDie(options);
  slot->DeferCompaction(true);
  for (int round = 0; round < 24; ++round) {
    for (int i = 0; i < 2000; ++i) {
      const std::string key = "key:" + std::to_string(rng() % 2000);
      model[key] = ValueFor(i, round, 200);
      REQUIRE(slot->Put(key, model[key], ValueType::kString).ok());
      if (i % 100 == 99) REQUIRE(slot->Commit().ok());
    }
    REQUIRE(slot->Commit().ok());
    if (round % 2 == 0) {  // a publish
      clock.AdvanceMs(1000);
      REQUIRE(slot->Commit().ok());
    }
    if (round % 3 != 2) continue;
    fs.SimulatePowerCutForTest({"wal-", "buckets-"});
    slot = OpenOrDie(options);
    slot->DeferCompaction(true);
    for (const auto& [key, value] : model) REQUIRE_MESSAGE(GetOrDie(*slot, key) == value, key);
  }
}

// The kernel may also write a page back before the log's next sync: a power cut then loses
// the log's tail while a page names the value a lost record wrote, in chunk bytes the cut
// lost too. A flush persists only records the log has synced, so a key reads a value it was
// given since the last sync, or the one it had then, never a damaged one.
TEST_CASE("everysec: a power cut keeping only bucket pages loses no synced write") {
  MemFs fs;
  ManualClock clock;
  const SlotOptions options = CutOptions(&fs, &clock);
  std::map<std::string, std::string> synced;  // as of the log's last sync
  std::map<std::string, std::vector<std::string>> since;  // written after it
  std::mt19937 rng(23);
  auto slot = OpenOrDie(options);
  for (int round = 0; round < 24; ++round) {
    for (int i = 0; i < 2000; ++i) {
      const std::string key = "key:" + std::to_string(rng() % 2000);
      const std::string value = ValueFor(i, round, 200);
      REQUIRE(slot->Put(key, value, ValueType::kString).ok());
      since[key].push_back(value);
      if (i % 100 == 99) REQUIRE(slot->Commit().ok());
    }
    REQUIRE(slot->Commit().ok());
    if (round % 2 == 0) {  // the log syncs, and a publish
      clock.AdvanceMs(1000);
      REQUIRE(slot->Commit().ok());
      for (auto& [key, values] : since) synced[key] = values.back();
      since.clear();
    }
    if (round % 3 != 2) continue;
    fs.SimulatePowerCutForTest({"buckets-"});
    slot = OpenOrDie(options);
    for (const auto& [key, value] : synced) {
      Result<std::optional<std::string>> got = slot->Get(key);
      REQUIRE_MESSAGE(got.ok(), key, ": ", got.status().ToString());
      REQUIRE_MESSAGE(got->has_value(), key);
      const std::vector<std::string>& later = since[key];
      CHECK_MESSAGE((**got == value || std::count(later.begin(), later.end(), **got) > 0), key);
      synced[key] = **got;  // from now on the state
    }
    since.clear();
  }
}

TEST_CASE("switching everysec to always makes deferred flushes durable at once") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.fsync = wal::FsyncPolicy::kEverySec;
  std::map<std::string, std::string> model;
  {
    auto slot = OpenOrDie(options);
    // No clock advance: under everysec nothing here is synced yet.
    for (int i = 0; i < 2000; ++i) {
      std::string key = "s" + std::to_string(i % 700);
      model[key] = ValueFor(i, i, 20 + i % 200);
      REQUIRE(slot->Put(key, model[key], ValueType::kString).ok());
      REQUIRE(slot->Commit().ok());
    }
    CHECK(slot->Stats().flushes > 0);
    REQUIRE(slot->SetFsyncPolicy(wal::FsyncPolicy::kAlways).ok());
    CHECK(slot->fsync_policy() == wal::FsyncPolicy::kAlways);
    REQUIRE(slot->Put("last", "x", ValueType::kString).ok());
    model["last"] = "x";
    REQUIRE(slot->Commit().ok());
    fs.SimulatePowerCutForTest();
  }
  auto slot = OpenOrDie(options);
  for (const auto& [key, value] : model) CHECK_MESSAGE(GetOrDie(*slot, key) == value, key);
}

TEST_CASE("switching always to everysec keeps the everysec promise") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  std::map<std::string, std::string> model;
  {
    auto slot = OpenOrDie(options);
    for (int i = 0; i < 3000; ++i) {
      if (i == 1000) REQUIRE(slot->SetFsyncPolicy(wal::FsyncPolicy::kEverySec).ok());
      std::string key = "r" + std::to_string(i % 700);
      model[key] = ValueFor(i, i, 20 + i % 200);
      REQUIRE(slot->Put(key, model[key], ValueType::kString).ok());
      if (i % 100 == 99) clock.AdvanceMs(1500);
      REQUIRE(slot->Commit().ok());
    }
    fs.SimulatePowerCutForTest();
  }
  auto slot = OpenOrDie(options);
  for (const auto& [key, value] : model) CHECK_MESSAGE(GetOrDie(*slot, key) == value, key);
}

TEST_CASE("power cut without a commit keeps the state of the last commit") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());
    REQUIRE(slot->Put("a", "2", ValueType::kString).ok());
    REQUIRE(slot->Put("b", "2", ValueType::kString).ok());
    fs.SimulatePowerCutForTest();
  }
  auto slot = OpenOrDie(options);
  CHECK(GetOrDie(*slot, "a") == "1");
  CHECK(GetOrDie(*slot, "b") == "<absent>");
}

// Writes a -> 1 in a fresh slot, then commits it, or persists it when flush.
void WriteOneKey(const SlotOptions& options, bool flush) {
  auto slot = OpenOrDie(options);
  REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
  REQUIRE((flush ? slot->Flush() : slot->Commit()).ok());
}

// The slot's files whose names start with prefix, sorted.
std::vector<std::string> FilesWithPrefix(MemFs& fs, const std::string& dir,
                                         std::string_view prefix) {
  auto names = fs.List(dir);
  REQUIRE(names.ok());
  std::vector<std::string> matching;
  for (const std::string& n : *names) {
    if (n.rfind(prefix, 0) == 0) matching.push_back(n);
  }
  std::sort(matching.begin(), matching.end());
  return matching;
}

TEST_CASE("garbage after the last log record is truncated as a torn tail") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  WriteOneKey(options, /*flush=*/false);
  std::vector<std::string> logs = FilesWithPrefix(fs, options.dir, "wal-");
  REQUIRE(!logs.empty());
  auto file = fs.Open(JoinPath(options.dir, logs.back()));
  REQUIRE(file.ok());
  REQUIRE((*file)->Append(std::string("\x13\x00\x00\x00\x40\x00", 6)).ok());
  auto slot = OpenOrDie(options);
  CHECK(GetOrDie(*slot, "a") == "1");
}

TEST_CASE("a damaged bucket page reads as Corruption, never as wrong data") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  WriteOneKey(options, /*flush=*/true);
  for (const std::string& n : FilesWithPrefix(fs, options.dir, "buckets-")) {
    auto file = fs.Open(JoinPath(options.dir, n));
    REQUIRE(file.ok());
    std::string data((*file)->Size(), '\0');
    REQUIRE((*file)->Read(0, data.size(), data.data()).ok());
    for (size_t i = 0; i < data.size(); i += 4096) {
      if (data.find_first_not_of('\0', i) < i + 4096) {
        std::string flipped(1, static_cast<char>(data[i + 100] ^ 0x5a));
        REQUIRE((*file)->Write(i + 100, flipped).ok());
      }
    }
  }
  auto slot = OpenOrDie(options);
  auto got = slot->Get("a");
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().IsCorruption());
}

TEST_CASE("a failed fsync fails the commit and every later write until recovered") {
  MemFs base;
  FaultFs fs(&base);
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());
    fs.FailNthSync(1);
    REQUIRE(slot->Put("a", "2", ValueType::kString).ok());
    Status s = slot->Commit();
    CHECK(s.IsIOError());
    CHECK(slot->failure().IsIOError());
    Status again = slot->Put("b", "1", ValueType::kString);
    CHECK(again.IsUnavailable());
    CHECK(again.message().find(s.ToString()) != std::string_view::npos);
    CHECK(slot->Commit().IsUnavailable());
    CHECK(slot->Flush().IsUnavailable());
    CHECK(slot->Stats().failed == 1);
  }
  fs.Clear();
  auto slot = OpenOrDie(options);
  std::string a = GetOrDie(*slot, "a");
  CHECK((a == "1" || a == "2"));  // "2" reached the OS, only its fsync failed
}

TEST_CASE("a full disk fails the write with the device's message") {
  MemFs base;
  FaultFs fs(&base);
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  auto slot = OpenOrDie(options);
  fs.SetSpaceLimit(1000);
  Status s;
  for (int i = 0; i < 100 && s.ok(); ++i) {
    s = slot->Put("k" + std::to_string(i), std::string(100, 'x'), ValueType::kString);
    if (s.ok()) s = slot->Commit();
  }
  REQUIRE(s.IsIOError());
  CHECK(s.message().find("No space left on device") != std::string_view::npos);
}

// The whole course of a full disk: the failing write's commit fails, later writes are refused
// up front, reads go on, Recover fails or refails while the disk is full and takes writes again
// once there is room; every acknowledged write is there, after a restart too.
TEST_CASE("a slot on a full disk refuses writes, keeps reads and recovers when there is room") {
  MemFs base;
  FaultFs fs(&base);
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  std::map<std::string, std::string> acked;
  auto slot = OpenOrDie(options);
  auto write = [&](const std::string& key, const std::string& value) {
    Status st = slot->Put(key, value, ValueType::kString);
    if (st.ok()) st = slot->Commit();
    if (st.ok()) acked[key] = value;
    return st;
  };
  for (int i = 0; i < 50; ++i) REQUIRE(write("k" + std::to_string(i), ValueFor(i, 0, 60)).ok());
  fs.SetSpaceLimit(3000);
  Status st;
  std::string failed_key, failed_value;  // its commit failed: it may read either value
  for (int i = 0; i < 1000 && st.ok(); ++i) {
    failed_key = "k" + std::to_string(i % 200);
    failed_value = ValueFor(i, 1, 60);
    st = write(failed_key, failed_value);
  }
  REQUIRE(st.IsIOError());
  auto check = [&] {
    for (const auto& [key, value] : acked) {
      const std::string got = GetOrDie(*slot, key);
      if (key == failed_key && got == failed_value) continue;
      CHECK(got == value);
    }
  };
  CHECK(slot->Stats().failed == 1);
  CHECK(slot->Stats().write_failures == 1);
  Status refused = write("other", "x");
  CHECK(refused.IsUnavailable());
  CHECK(refused.message().find("No space left on device") != std::string_view::npos);
  check();
  // Still full: Recover refuses (its probe write fails), and writes stay refused.
  for (int tries = 0; tries < 3; ++tries) {
    CHECK(slot->Recover().IsIOError());
    CHECK(write("again", "x").IsUnavailable());
  }
  check();
  fs.Clear();
  REQUIRE(slot->Recover().ok());
  CHECK(slot->failure().ok());
  CHECK(slot->Stats().failed == 0);
  CHECK(slot->Stats().recoveries >= 1);
  for (int j = 0; j < 300; ++j) {
    REQUIRE(write("k" + std::to_string(j % 200), ValueFor(j, 2, 60)).ok());
  }
  for (const auto& [key, value] : acked) CHECK(GetOrDie(*slot, key) == value);
  slot.reset();
  slot = OpenOrDie(options);
  for (const auto& [key, value] : acked) CHECK(GetOrDie(*slot, key) == value);
}

TEST_CASE("Recover is Busy while a unit is held and a no-op on a healthy slot") {
  MemFs base;
  FaultFs fs(&base);
  ManualClock clock;
  auto slot = OpenOrDie(SmallOptions(&fs, &clock));
  CHECK(slot->Recover().ok());
  REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  fs.FailNthSync(1);
  REQUIRE(slot->Put("a", "2", ValueType::kString).ok());
  REQUIRE_FALSE(slot->Commit().ok());
  fs.Clear();
  slot->Hold();
  CHECK(slot->Recover().IsBusy());
  slot->Unhold();
  CHECK(slot->Recover().ok());
  REQUIRE(slot->Put("b", "1", ValueType::kString).ok());
  CHECK(slot->Commit().ok());
}

// Overwrites that make flushes compact, with the n-th write to the files whose path contains
// part failing once; after more writes, a Flush and a reopen every key reads what was written
// last (a write whose commit failed may or may not be there). Returns whether the fault fired.
bool FailOneFlushWrite(const std::string& part, int n) {
  MemFs base;
  FaultFs fs(&base);
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  std::map<std::string, std::vector<std::string>> allowed;  // per key, what it may read
  bool fired = false;
  auto check = [&](Slot& slot) {
    for (const auto& [key, values] : allowed) {
      auto got = slot.Get(key);
      REQUIRE_MESSAGE(got.ok(), key, ": ", got.status().ToString());
      const std::string value = got->has_value() ? **got : "<absent>";
      CHECK_MESSAGE(std::find(values.begin(), values.end(), value) != values.end(), key);
    }
  };
  {
    auto slot = OpenOrDie(options);
    for (int version = 0; version < 6; ++version) {
      if (version == 2) {
        fs.OnlyPaths(part);
        fs.FailNthWrite(n);
      }
      for (int i = 0; i < 400; ++i) {
        const std::string key = "k" + std::to_string(i);
        const std::string value = ValueFor(i, version, 24 + static_cast<size_t>(i * 7) % 90);
        Status put = slot->Put(key, value, ValueType::kString);
        if (put.IsUnavailable()) {  // the failure before: the slot reopens (the fault fired once)
          REQUIRE(slot->Recover().ok());
          put = slot->Put(key, value, ValueType::kString);
        }
        REQUIRE(put.ok());
        Status st = slot->Commit();
        if (st.ok()) {
          allowed[key] = {value};
        } else {
          fired = true;  // its record may have reached the file, or not
          allowed[key].push_back(value);
        }
      }
    }
    fs.Clear();
    REQUIRE(slot->Recover().ok());
    Status flushed = slot->Flush();
    REQUIRE_MESSAGE(flushed.ok(), flushed.ToString());
    check(*slot);
  }
  auto slot = OpenOrDie(options);
  check(*slot);
  return fired;
}

TEST_CASE("a flush whose chunk or bucket write fails leaves every value readable") {
  for (const std::string part : {"chunks.dat", "buckets-"}) {
    int fired = 0;
    for (int n = 1; n <= 400; n += (n < 40 ? 1 : 17)) {
      CAPTURE(part);
      CAPTURE(n);
      if (FailOneFlushWrite(part, n)) ++fired;
    }
    CHECK(fired > 10);
  }
}

// A crash after a flush synced its bucket pages but before it wrote their counts (the count
// write fails, then the power goes): at open the key count must still match the keys there.
TEST_CASE("a crash between a flush's page sync and its count write keeps the key count") {
  int crashes = 0;
  for (int n = 1; n <= 30; ++n) {
    CAPTURE(n);
    MemFs base;
    FaultFs fs(&base);
    ManualClock clock;
    SlotOptions options = SmallOptions(&fs, &clock);
    int written = 0;
    {
      auto slot = OpenOrDie(options);
      fs.OnlyPaths("buckets.count");
      fs.FailNthWrite(n);
      for (; written < 800; ++written) {
        const std::string key = "k" + std::to_string(written);
        REQUIRE(slot->Put(key, ValueFor(written, 0, 8), ValueType::kString).ok());
        if (!slot->Commit().ok()) break;
      }
      base.SimulatePowerCutForTest();
    }
    if (written == 800) continue;  // the fault never fired
    ++crashes;
    fs.Clear();
    auto slot = OpenOrDie(options);
    uint64_t present = 0;
    for (int i = 0; i <= written; ++i) {
      if (GetOrDie(*slot, "k" + std::to_string(i)) != "<absent>") ++present;
    }
    auto count = slot->KeyCount();
    REQUIRE(count.ok());
    CHECK(*count == present);
    // And it stays right once the recounted groups flush again.
    REQUIRE(slot->Flush().ok());
    CHECK(*slot->KeyCount() == present);
  }
  CHECK(crashes > 10);
}

}  // namespace
}  // namespace slotkv::slot
