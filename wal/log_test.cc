// Log on memory files: open, records and units, rotation, file removal, reads and stats.
#include "wal/log.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/base/clock.h"
#include "core/base/coding.h"
#include "core/base/fault_fs.h"
#include "core/base/fs.h"
#include "core/base/hash.h"
#include "core/base/mem_fs.h"
#include "wal/log_test_util.h"

namespace slotkv::wal {
namespace {

TEST_CASE("open on an empty dir creates wal-000001.log") {
  LogEnv env;
  auto log = env.Open();
  CHECK(env.Files() == std::vector<std::string>{"wal-000001.log"});
  CHECK(log->current_file_no() == 1);
  CHECK(log->oldest_file_no() == 1);
  CHECK(log->total_bytes() == 0);
  CHECK(log->truncated_tail_bytes() == 0);
  CHECK(log->failure().ok());
}

TEST_CASE("records of every kind replay in order with their positions") {
  LogEnv env;
  std::vector<Record> written = {Put(1, "a", "1"), Put(2, "b", std::string(1000, 'x'))};
  Record del;
  del.kind = RecordKind::kDelete;
  del.seq = 3;
  del.key = "a";
  Record flushed;
  flushed.kind = RecordKind::kGroupFlushed;
  flushed.seq = 4;
  flushed.group = 17;
  written.push_back(del);
  written.push_back(flushed);
  std::vector<LogPos> positions;
  {
    auto log = env.Open();
    for (const Record& r : written) positions.push_back(*log->Append(r));
    REQUIRE(log->Commit().ok());
  }
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(replayed.records == written);
  REQUIRE(replayed.positions.size() == positions.size());
  uint64_t offset = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    CHECK(replayed.positions[i].file_no == 1);
    CHECK(replayed.positions[i].offset == positions[i].offset);
    CHECK(replayed.positions[i].size == positions[i].size);
    CHECK(positions[i].offset == offset);
    offset += positions[i].size;
  }
  CHECK(log->truncated_tail_bytes() == 0);
}

TEST_CASE("Appended is the record's encoding, after a commit too") {
  LogEnv env;
  auto log = env.Open();
  for (const Record& r : {Put(1, "a", "1"), Put(2, "b", std::string(1000, 'x'))}) {
    const LogPos pos = *log->Append(r);
    std::string encoded;
    EncodeRecord(r, &encoded);
    CHECK(log->Appended(pos) == encoded);
    REQUIRE(log->Commit().ok());  // the next record starts an empty buffer
  }
}

TEST_CASE("files that are not wal files are ignored") {
  LogEnv env;
  { env.Write(*env.Open(), 1, 2); }
  auto other = env.mem.Open(JoinPath(kDir, "wal-1.log"));
  REQUIRE(other.ok());
  REQUIRE((*other)->Append("junk").ok());
  REQUIRE(env.mem.Open(JoinPath(kDir, "bucket-0001")).ok());
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 2));
  CHECK(log->current_file_no() == 1);
}

TEST_CASE("a visitor error stops open and is returned") {
  LogEnv env;
  { env.Write(*env.Open(), 1, 3); }
  int seen = 0;
  auto log = Log::Open(env.options, [&seen](const Record&, const LogPos&) {
    return ++seen == 2 ? Status::InvalidArgument("stop here") : Status::OK();
  });
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().IsInvalidArgument());
  CHECK(log.status().message() == "stop here");
  CHECK(seen == 2);
}

TEST_CASE("files rotate at file_bytes and replay across files in order") {
  LogEnv env;
  env.options.file_bytes = 200;
  std::vector<LogPos> pos;
  {
    auto log = env.Open();
    for (int i = 0; i < 20; ++i) {
      auto more = env.Write(*log, 1 + i, 1, 40);  // one commit per record
      pos.push_back(more[0]);
    }
    CHECK(log->current_file_no() > 3);
    CHECK(log->oldest_file_no() == 1);
  }
  // Each file holds records until it reaches 200 bytes, then the next one starts.
  for (size_t i = 1; i < pos.size(); ++i) {
    if (pos[i].file_no == pos[i - 1].file_no) {
      CHECK(pos[i].offset == pos[i - 1].offset + pos[i - 1].size);
    } else {
      CHECK(pos[i].file_no == pos[i - 1].file_no + 1);
      CHECK(pos[i].offset == 0);
      CHECK(pos[i - 1].offset + pos[i - 1].size >= 200);
      CHECK(pos[i - 1].offset < 200);
    }
  }
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 20));
  for (size_t i = 0; i < pos.size(); ++i) {
    CHECK(replayed.positions[i].file_no == pos[i].file_no);
    CHECK(replayed.positions[i].offset == pos[i].offset);
  }
  CHECK(log->current_file_no() == pos.back().file_no);
}

TEST_CASE("a file exactly at file_bytes starts a new file on the next append") {
  LogEnv env;
  std::string one;
  EncodeRecord(Put(1, "k1", std::string(10, 'v')), &one);
  env.options.file_bytes = one.size() + 1;
  auto log = env.Open();
  auto pos = env.Write(*log, 1, 3);
  CHECK(pos[0].file_no == 1);
  CHECK(pos[1].file_no == 1);  // file 1 held one byte less than file_bytes
  CHECK(pos[2].file_no == 2);  // file 1 held 2 * one.size() >= file_bytes
  env.options.file_bytes = one.size();
  log.reset();
  log = env.Open();
  CHECK(env.Write(*log, 4, 1)[0].file_no == 3);  // file 2 holds exactly file_bytes
}

TEST_CASE("full() says when the next append starts a new file, never inside a unit") {
  LogEnv env;
  std::string one;
  EncodeRecord(Put(1, "k1", std::string(10, 'v')), &one);
  env.options.file_bytes = 2 * one.size();
  auto log = env.Open();
  CHECK_FALSE(log->full());  // empty
  env.Write(*log, 1, 1);
  CHECK_FALSE(log->full());
  log->BeginUnit();
  REQUIRE(log->Append(Put(2, "k2", std::string(10, 'v'))).ok());
  CHECK_FALSE(log->full());  // at file_bytes, but a unit is open: its records stay together
  log->EndUnit();
  CHECK(log->full());
  CHECK(log->current_file_no() == 1);
  REQUIRE(log->Append(Put(3, "k3", std::string(10, 'v'))).ok());
  CHECK(log->current_file_no() == 2);
  CHECK_FALSE(log->full());
  REQUIRE(log->Commit().ok());
  // What buffered records count as well as written ones.
  REQUIRE(log->Append(Put(4, "k4", std::string(10, 'v'))).ok());
  CHECK(log->full());
  REQUIRE(log->StartNewFile().ok());
  CHECK(log->current_file_no() == 3);
  CHECK_FALSE(log->full());
}

TEST_CASE("rotation writes out the buffer and syncs the old file whatever the policy") {
  for (FsyncPolicy policy : {FsyncPolicy::kAlways, FsyncPolicy::kEverySec, FsyncPolicy::kNo}) {
    FaultLogEnv env;
    env.options.fsync = policy;
    env.options.file_bytes = 100;
    auto log = env.Open();
    // Uncommitted records fill file 1; the next append starts file 2.
    REQUIRE(log->Append(Put(1, "a", std::string(120, 'x'))).ok());
    REQUIRE(log->Append(Put(2, "b", "y")).ok());
    CHECK(log->current_file_no() == 2);
    CHECK(env.Contents(1).size() > 100);
    CHECK(env.fault.syncs() == 1);
    CHECK(env.Files() == std::vector<std::string>{"wal-000001.log", "wal-000002.log"});
  }
}

TEST_CASE("a rotated file written with always survives a power cut") {
  LogEnv env;
  env.options.file_bytes = 100;
  {
    auto log = env.Open();
    for (int i = 0; i < 10; ++i) env.Write(*log, 1 + i, 1, 50);
    REQUIRE(log->Append(Put(11, "lost", "never committed")).ok());
  }
  env.mem.SimulatePowerCutForTest();
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 10));
}

TEST_CASE("RemoveFilesBefore removes older files but never the current one") {
  LogEnv env;
  env.options.file_bytes = 100;
  auto log = env.Open();
  std::vector<LogPos> pos;
  for (int i = 0; i < 4; ++i) pos.push_back(env.Write(*log, 1 + i, 1, 120)[0]);
  REQUIRE(log->current_file_no() == 4);
  const uint64_t before = log->total_bytes();
  REQUIRE(log->RemoveFilesBefore(3).ok());
  CHECK(log->oldest_file_no() == 3);
  CHECK(log->stats().files_removed == 2);
  CHECK(env.Files() == std::vector<std::string>{"wal-000003.log", "wal-000004.log"});
  CHECK(log->total_bytes() == before - pos[0].size - pos[1].size);
  CHECK(log->ReadAt(pos[0]).status().IsNotFound());
  CHECK(log->ReadAt(pos[2])->seq == 3);

  REQUIRE(log->RemoveFilesBefore(100).ok());
  CHECK(log->oldest_file_no() == 4);
  CHECK(log->current_file_no() == 4);
  CHECK(log->stats().files_removed == 3);
  CHECK(env.Files() == std::vector<std::string>{"wal-000004.log"});
  log.reset();
  Replayed replayed;
  log = env.Open(&replayed);
  CHECK(Seqs(replayed) == std::vector<uint64_t>{4});
}

TEST_CASE("StartNewFile moves on to an empty file so every older record can be removed") {
  LogEnv env;
  auto log = env.Open();
  REQUIRE(log->StartNewFile().ok());  // nothing written: stays on file 1
  CHECK(log->current_file_no() == 1);
  env.Write(*log, 1, 3);
  REQUIRE(log->Append(Put(4, "buffered", "v")).ok());
  REQUIRE(log->StartNewFile().ok());
  CHECK(log->current_file_no() == 2);
  REQUIRE(log->RemoveFilesBefore(log->current_file_no()).ok());
  CHECK(env.Files() == std::vector<std::string>{"wal-000002.log"});
  CHECK(log->total_bytes() == 0);
  log.reset();
  Replayed replayed;
  log = env.Open(&replayed);
  CHECK(replayed.records.empty());
}

TEST_CASE("ReadAt reads a record still in the buffer") {
  LogEnv env;
  auto log = env.Open();
  env.Write(*log, 1, 2);
  auto pos = log->Append(Put(3, "buffered", "value"));
  REQUIRE(pos.ok());
  CHECK(env.Contents(1).size() == pos->offset);  // nothing of it in the file yet
  auto rec = log->ReadAt(*pos);
  REQUIRE(rec.ok());
  CHECK(*rec == Put(3, "buffered", "value"));
}

TEST_CASE("ReadAt reads committed records from the file, also of older files") {
  LogEnv env;
  env.options.file_bytes = 100;
  auto log = env.Open();
  auto pos = env.Write(*log, 1, 3, 120);
  CHECK(pos[0].file_no == 1);
  CHECK(pos[2].file_no == 3);
  for (int i = 0; i < 3; ++i) {
    auto rec = log->ReadAt(pos[i]);
    REQUIRE(rec.ok());
    CHECK(rec->seq == static_cast<uint64_t>(i + 1));
  }
  // Also after reopening, with positions from replay.
  log.reset();
  Replayed replayed;
  log = env.Open(&replayed);
  for (size_t i = 0; i < replayed.positions.size(); ++i) {
    CHECK(*log->ReadAt(replayed.positions[i]) == replayed.records[i]);
  }
}

TEST_CASE("ReadAt of a position past the written data is invalid") {
  LogEnv env;
  auto log = env.Open();
  auto pos = env.Write(*log, 1, 1)[0];
  auto buffered = *log->Append(Put(2, "k", "v"));
  LogPos past = buffered;
  past.offset += 1;
  CHECK(log->ReadAt(past).status().IsInvalidArgument());
  LogPos tiny = pos;
  tiny.size = 4;
  CHECK(log->ReadAt(tiny).status().IsInvalidArgument());
  LogPos off_by_one = pos;
  off_by_one.size -= 1;  // names a record in the file with the wrong size
  CHECK(log->ReadAt(off_by_one).status().IsCorruption());
}

TEST_CASE("ReadAt of a damaged record in the file is corruption") {
  LogEnv env;
  auto log = env.Open();
  auto pos = env.Write(*log, 1, 2);
  env.FlipByte(1, pos[1].offset + 20);
  auto rec = log->ReadAt(pos[1]);
  REQUIRE_FALSE(rec.ok());
  CHECK(rec.status().IsCorruption());
  CHECK(rec.status().message() ==
        "wal-000001.log at offset " + std::to_string(pos[1].offset) + ": checksum mismatch");
  CHECK(log->ReadAt(pos[0]).ok());
}

TEST_CASE("ReadMany reads records of several files and the buffer like ReadAt") {
  LogEnv env;
  env.options.file_bytes = 300;
  auto log = env.Open();
  std::vector<LogPos> pos = env.Write(*log, 1, 9, 120);  // three files
  pos.push_back(*log->Append(Put(10, "k10", "buffered")));
  std::vector<LogPos> shuffled = {pos[9], pos[0], pos[5], pos[2], pos[8], pos[1]};
  std::vector<Record> records;
  REQUIRE(log->ReadMany(shuffled, &records).ok());
  REQUIRE(records.size() == shuffled.size());
  for (size_t i = 0; i < shuffled.size(); ++i) CHECK(records[i] == *log->ReadAt(shuffled[i]));
  CHECK(records[0].value == "buffered");
}

TEST_CASE("ReadMany reports a damaged record and a removed file") {
  LogEnv env;
  env.options.file_bytes = 300;
  auto log = env.Open();
  std::vector<LogPos> pos = env.Write(*log, 1, 6, 120);
  std::vector<Record> records;
  env.FlipByte(pos[3].file_no, pos[3].offset + 20);
  Status damaged = log->ReadMany({pos[0], pos[3]}, &records);
  CHECK(damaged.IsCorruption());
  CHECK(damaged.message().find("checksum mismatch") != std::string_view::npos);
  REQUIRE(log->RemoveFilesBefore(pos[5].file_no).ok());
  CHECK(log->ReadMany({pos[5], pos[0]}, &records).IsNotFound());
}

TEST_CASE("total_bytes counts files and the buffer") {
  LogEnv env;
  env.options.file_bytes = 100;
  auto log = env.Open();
  auto pos = env.Write(*log, 1, 2, 120);
  auto buffered = log->Append(Put(3, "k", "v"));
  REQUIRE(buffered.ok());
  CHECK(log->total_bytes() == pos[0].size + pos[1].size + buffered->size);
  CHECK(env.mem.TotalBytes() == pos[0].size + pos[1].size);
  // The older files' sum is kept between calls: it follows a new file and a removal.
  REQUIRE(log->Commit().ok());
  auto more = env.Write(*log, 4, 2, 120);
  CHECK(more[1].file_no > buffered->file_no);
  const uint64_t before = log->total_bytes();
  CHECK(before == env.mem.TotalBytes());
  REQUIRE(log->RemoveFilesBefore(more[0].file_no).ok());
  CHECK(log->total_bytes() < before);
  CHECK(log->oldest_file_no() == more[0].file_no);
  CHECK(log->total_bytes() == env.mem.TotalBytes());
}

TEST_CASE("stats count records, bytes written and syncs") {
  LogEnv env;
  auto log = env.Open();
  env.Write(*log, 1, 3);
  env.Write(*log, 4, 2);
  const LogStats& s = log->stats();
  CHECK(s.records_appended == 5);
  CHECK(s.bytes_written == log->total_bytes());
  CHECK(s.syncs == 2);  // kAlways: one per commit
  CHECK(log->Commit().ok());
  CHECK(s.syncs == 2);  // nothing new to sync
  CHECK(log->Sync().ok());
  CHECK(s.syncs == 3);  // Sync() always syncs
}

TEST_CASE("a 5 MB record round trips through buffer, file and replay") {
  LogEnv env;
  std::string big(5 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 23);
  LogPos pos;
  {
    auto log = env.Open();
    env.Write(*log, 1, 1);
    pos = *log->Append(Put(2, "big", big));
    CHECK(log->ReadAt(pos)->value == big);
    REQUIRE(log->Commit().ok());
    CHECK(log->ReadAt(pos)->value == big);
    env.Write(*log, 3, 1);
  }
  Replayed replayed;
  auto log = env.Open(&replayed);
  REQUIRE(Seqs(replayed) == Range(1, 3));
  CHECK(replayed.records[1].value == big);
  CHECK(replayed.positions[1].offset == pos.offset);
  CHECK(replayed.positions[1].size == pos.size);
}

TEST_CASE("replay reads files in big chunks, not once per record") {
  LogEnv env;
  env.options.fsync = FsyncPolicy::kNo;
  { env.Write(*env.Open(), 1, 20000); }
  FaultFs counting(&env.mem);
  env.options.fs = &counting;
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(replayed.records.size() == 20000);
  CHECK(log->total_bytes() > 500'000);
  CHECK(counting.reads() <= 2);
}

}  // namespace
}  // namespace slotkv::wal
