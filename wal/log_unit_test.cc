// Units: runs of records that replay applies whole or not at all.
#include <doctest/doctest.h>

#include "core/base/fault_fs.h"
#include "wal/log.h"
#include "wal/log_test_util.h"
#include "wal/record.h"

namespace slotkv::wal {
namespace {

// Appends records seq first..first+n-1 as one unit and commits it.
std::vector<LogPos> WriteUnit(Log& log, uint64_t first, int n) {
  log.BeginUnit();
  std::vector<LogPos> positions;
  for (int i = 0; i < n; ++i) {
    const uint64_t seq = first + static_cast<uint64_t>(i);
    auto pos = log.Append(Put(seq, "k" + std::to_string(seq), std::string(20, 'v')));
    REQUIRE(pos.ok());
    positions.push_back(*pos);
  }
  REQUIRE(log.Commit().ok());
  return positions;
}

TEST_CASE("record: the more bit round-trips and keeps the record valid") {
  Record r = Put(7, "k", "v");
  std::string bytes;
  EncodeRecord(r, &bytes);
  SetMore(bytes.data());
  Record back;
  size_t used = 0;
  REQUIRE(DecodeRecord(bytes, &back, &used) == DecodeResult::kOk);
  CHECK(back.more);
  CHECK(back.kind == RecordKind::kPut);
  r.more = true;
  CHECK(back == r);
  std::string direct;
  EncodeRecord(r, &direct);
  CHECK(direct == bytes);
}

TEST_CASE("a unit's records replay together, each with its position") {
  LogEnv env;
  std::vector<LogPos> pos;
  {
    auto log = env.Open();
    env.Write(*log, 1, 2);
    pos = WriteUnit(*log, 3, 3);
    env.Write(*log, 6, 1);
  }
  Replayed replayed;
  env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 6));
  CHECK(replayed.positions[2].offset == pos[0].offset);
  CHECK(replayed.positions[4].offset == pos[2].offset);
  CHECK(replayed.records[2].more);
  CHECK_FALSE(replayed.records[4].more);
}

TEST_CASE("a unit torn at any byte replays whole or not at all") {
  std::vector<LogPos> pos;
  std::string full;
  {
    LogEnv env;
    auto log = env.Open();
    env.Write(*log, 1, 1);
    pos = WriteUnit(*log, 2, 3);
    full = env.Contents(1);
  }
  const uint64_t unit_start = pos[0].offset;
  for (uint64_t cut = unit_start; cut <= full.size(); ++cut) {
    CAPTURE(cut);
    LogEnv env;
    REQUIRE(env.mem.WriteFileAtomic(Path(1), full.substr(0, cut)).ok());
    Replayed replayed;
    auto log = env.Open(&replayed);
    if (cut == full.size()) {
      CHECK(Seqs(replayed) == Range(1, 4));
      CHECK(log->truncated_tail_bytes() == 0);
    } else {
      CHECK(Seqs(replayed) == Range(1, 1));
      CHECK(log->truncated_tail_bytes() == cut - unit_start);
      CHECK(env.Contents(1).size() == unit_start);  // cut back to the unit's start
    }
  }
}

TEST_CASE("a unit cut short in an older file is corruption") {
  LogEnv env;
  std::vector<LogPos> pos;
  {
    auto log = env.Open();
    pos = WriteUnit(*log, 1, 3);
    REQUIRE(log->StartNewFile().ok());
    env.Write(*log, 4, 1);
    REQUIRE(log->StartNewFile().ok());  // file 1 older than the newest two
    env.Write(*log, 5, 1);
  }
  const std::string first = env.Contents(1);
  REQUIRE(env.mem.WriteFileAtomic(Path(1), first.substr(0, pos[2].offset)).ok());
  auto log = env.TryOpen();
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().message() == "wal-000001.log at offset 0: unit cut short");
}

TEST_CASE("a held log writes only what comes before its open unit") {
  LogEnv env;
  auto log = env.Open();
  env.Write(*log, 1, 1);
  const uint64_t before = env.Contents(1).size();
  log->Hold();
  log->BeginUnit();
  REQUIRE(log->Append(Put(2, "a", "1")).ok());
  REQUIRE(log->Commit().ok());
  REQUIRE(log->Append(Put(3, "b", "2")).ok());
  REQUIRE(log->Sync().ok());
  CHECK(env.Contents(1).size() == before);  // nothing of the unit reached the file
  CHECK(log->StartNewFile().IsBusy());
  auto read = log->ReadAt(LogPos{.offset = before, .file_no = 1, .size = 0});
  CHECK_FALSE(read.ok());
  log->Unhold();
  REQUIRE(log->Commit().ok());
  log.reset();
  Replayed replayed;
  env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 3));
  CHECK(replayed.records[1].more);
}

TEST_CASE("a held unit never written is gone after a crash") {
  LogEnv env;
  {
    auto log = env.Open();
    env.Write(*log, 1, 1);
    log->Hold();
    log->BeginUnit();
    REQUIRE(log->Append(Put(2, "a", "1")).ok());
    REQUIRE(log->Commit().ok());
  }  // destroyed held: nobody was told the unit is stored
  Replayed replayed;
  env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 1));
}

TEST_CASE("a unit does not start a new file half-way") {
  LogEnv env;
  env.options.file_bytes = 100;
  auto log = env.Open();
  std::vector<LogPos> pos = WriteUnit(*log, 1, 5);  // ~230 bytes: past file_bytes
  for (const LogPos& p : pos) CHECK(p.file_no == 1);
  env.Write(*log, 6, 1);
  CHECK(log->current_file_no() == 2);
}

TEST_CASE("a write the file system cuts inside a unit loses the unit only") {
  for (size_t written : {size_t{1}, size_t{40}, size_t{80}}) {
    CAPTURE(written);
    FaultLogEnv env;
    {
      auto log = env.Open();
      env.Write(*log, 1, 1);
      env.fault.ShortNthWrite(1, written);
      log->BeginUnit();
      for (uint64_t seq = 2; seq <= 4; ++seq) REQUIRE(log->Append(Put(seq, "k", "v")).ok());
      CHECK(log->Commit().IsIOError());
    }
    env.fault.Clear();
    Replayed replayed;
    auto log = env.Open(&replayed);
    CHECK(Seqs(replayed) == Range(1, 1));
    CHECK(log->truncated_tail_bytes() == written);
  }
}

TEST_CASE("durable_end: records are durable once synced, not once written") {
  LogEnv env;
  env.options.fsync = FsyncPolicy::kEverySec;
  env.options.file_bytes = 1 << 20;
  auto log = env.Open();
  std::vector<LogPos> first = env.Write(*log, 1, 3);  // the first commit is within the second
  CHECK_FALSE(EndsBy(first[0], log->durable_end()));
  env.clock.AdvanceMs(1000);
  std::vector<LogPos> second = env.Write(*log, 4, 2);  // written, then synced: a second passed
  CHECK(EndsBy(first[2], log->durable_end()));
  CHECK(EndsBy(second[1], log->durable_end()));
  CHECK(log->durable_end().offset == second[1].offset + second[1].size);
  std::vector<LogPos> third = env.Write(*log, 6, 1);
  CHECK_FALSE(EndsBy(third[0], log->durable_end()));
  const uint64_t syncs = log->stats().syncs;
  REQUIRE(log->SyncSoon().ok());  // no io_uring here: in place
  CHECK(EndsBy(third[0], log->durable_end()));
  REQUIRE(log->SyncSoon().ok());  // nothing new: no sync
  CHECK(log->stats().syncs == syncs + 1);
  // A new file: the old one is synced whole, nothing of the new one is durable.
  REQUIRE(log->Append(Put(7, "k7", "v")).ok());
  REQUIRE(log->StartNewFile().ok());
  auto next = log->Append(Put(8, "k8", "v"));
  REQUIRE(next.ok());
  REQUIRE(log->Commit().ok());
  CHECK(next->file_no == third[0].file_no + 1);
  CHECK(log->durable_end().file_no == next->file_no - 1);
  CHECK_FALSE(EndsBy(*next, log->durable_end()));
}

TEST_CASE("durable_end: open syncs what it replayed, so all of it is durable") {
  LogEnv env;
  env.options.fsync = FsyncPolicy::kNo;
  std::vector<LogPos> written;
  {
    auto log = env.Open();
    written = env.Write(*log, 1, 4);
    CHECK_FALSE(EndsBy(written[3], log->durable_end()));
  }
  auto log = env.Open();
  CHECK(EndsBy(written[3], log->durable_end()));
  CHECK(log->durable_end().offset == written[3].offset + written[3].size);
  env.mem.SimulatePowerCutForTest();  // the replayed records survive it
  Replayed replayed;
  env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 4));
}

}  // namespace
}  // namespace slotkv::wal
