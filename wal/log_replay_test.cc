// Log::Open over damaged files: which tails are cut as torn (the newest file, or the one
// before it while a rotation was pending) and which damage is Corruption.
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

TEST_CASE("torn tail of the newest file is truncated, counted and appended over") {
  LogEnv env;
  std::string torn;
  EncodeRecord(Put(4, "torn", "value"), &torn);
  torn.resize(torn.size() - 3);
  uint64_t good_end = 0;
  {
    auto log = env.Open();
    env.Write(*log, 1, 3);
    good_end = log->total_bytes();
  }
  env.AppendRaw(1, torn);
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 3));
  CHECK(log->truncated_tail_bytes() == torn.size());
  CHECK(env.Contents(1).size() == good_end);
  auto pos = env.Write(*log, 10, 1);
  CHECK(pos[0].offset == good_end);
  log.reset();
  Replayed again;
  log = env.Open(&again);
  CHECK(Seqs(again) == std::vector<uint64_t>{1, 2, 3, 10});
  CHECK(log->truncated_tail_bytes() == 0);
}

TEST_CASE("header cut short at the end of the newest file is truncated") {
  LogEnv env;
  { env.Write(*env.Open(), 1, 2); }
  env.AppendRaw(1, "\x01\x02\x03");
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 2));
  CHECK(log->truncated_tail_bytes() == 3);
}

TEST_CASE("zero-filled tail of the newest file is truncated") {
  LogEnv env;
  { env.Write(*env.Open(), 1, 2); }
  env.AppendRaw(1, std::string(4096, '\0'));
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 2));
  CHECK(log->truncated_tail_bytes() == 4096);
}

TEST_CASE("zero fill followed by data is corruption, not a tail") {
  LogEnv env;
  uint64_t end = 0;
  {
    auto log = env.Open();
    env.Write(*log, 1, 2);
    end = log->total_bytes();
  }
  env.AppendRaw(1, std::string(100, '\0') + "x");
  auto log = env.TryOpen();
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().IsCorruption());
  CHECK(log.status().message() ==
        "wal-000001.log at offset " + std::to_string(end) + ": zero-filled header before data");
}

TEST_CASE("bad last record ending exactly at end of file is truncated") {
  LogEnv env;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 3); }
  env.FlipByte(1, pos[2].offset + pos[2].size - 1);
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 2));
  CHECK(log->truncated_tail_bytes() == pos[2].size);
}

TEST_CASE("checksum mismatch in the middle names the file and offset") {
  LogEnv env;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 3); }
  env.FlipByte(1, pos[1].offset + 12);
  auto log = env.TryOpen();
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().IsCorruption());
  CHECK(log.status().message() ==
        "wal-000001.log at offset " + std::to_string(pos[1].offset) + ": checksum mismatch");
}

TEST_CASE("a damaged length in the middle of the newest file is corruption, not a tail") {
  // A length that runs past the end of the file looked like a torn tail: every record after
  // it was cut without a word. Whole records follow it, so it is damage.
  for (const uint32_t length : {0xffffffffu, 1u << 20}) {
    CAPTURE(length);
    LogEnv env;
    std::vector<LogPos> pos;
    { pos = env.Write(*env.Open(), 1, 5); }
    std::string header(4, '\0');
    EncodeFixed32(header.data(), length);
    env.WriteAt(1, pos[1].offset + 4, header);
    auto log = env.TryOpen();
    REQUIRE_FALSE(log.ok());
    CHECK(log.status().IsCorruption());
    const std::string message(log.status().message());
    CHECK(message.starts_with("wal-000001.log at offset " + std::to_string(pos[1].offset) + ": "));
    CHECK(message.ends_with("; whole records follow from offset " +
                            std::to_string(pos[2].offset)));
    CHECK(env.Contents(1).size() == pos[4].offset + pos[4].size);  // nothing cut
  }
}

TEST_CASE("garbage with no whole record after the last one is a torn tail") {
  LogEnv env;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 3); }
  const uint64_t end = pos[2].offset + pos[2].size;
  std::string garbage;
  for (int i = 0; i < 300; ++i) garbage.push_back(static_cast<char>((i * 37 + 11) % 251));
  env.WriteAt(1, end, garbage);
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 3));
  CHECK(log->truncated_tail_bytes() == garbage.size());
}

// Opens a log whose newest file ends in a Put of `size` random bytes torn in half, checks the
// tail is cut, and returns how long the open took.
double OpenWithTornRandomValue(size_t size) {
  LogEnv env;
  std::string value(size, '\0');
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (char& c : value) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x >> 56);
  }
  uint64_t good_end = 0;
  {
    auto log = env.Open();
    env.Write(*log, 1, 2);
    good_end = log->total_bytes();
    REQUIRE(log->Append(Put(3, "big", value)).ok());
    REQUIRE(log->Commit().ok());
  }
  const uint64_t torn_size = env.Contents(1).size() - size / 2;
  auto file = env.mem.Open(Path(1));
  REQUIRE(file.ok());
  REQUIRE((*file)->Truncate(torn_size).ok());
  const auto start = std::chrono::steady_clock::now();
  Replayed replayed;
  auto log = env.Open(&replayed);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(Seqs(replayed) == Range(1, 2));
  CHECK(log->truncated_tail_bytes() == torn_size - good_end);
  return seconds;
}

// Found reviewing what test/fuzz/wal_log_fuzz covers (its inputs are too small to show it):
// the search for whole records past a torn record hashed, at every offset whose length field
// fit the rest of the file, that many bytes: cubic in the tail's size for random bytes, 6 s for
// a 12 MB tail and days for a 256 MB one. Checking a body's layout before its checksum makes it
// about linear. Timed on two sizes, so that a loaded machine slows both.
TEST_CASE("a torn random value is cut in about linear time, not cubic") {
  const double small = OpenWithTornRandomValue(8 << 20);
  const double large = OpenWithTornRandomValue(32 << 20);  // 64 times the work if cubic
  CHECK_MESSAGE(large < 16 * small + 0.5, "8 MB: " << small << " s, 32 MB: " << large << " s");
}

TEST_CASE("malformed body with a valid checksum in the middle is corruption") {
  LogEnv env;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 2); }
  // Turn the first record's kind into an unknown one and reseal its checksum.
  std::string rec = env.Contents(1).substr(pos[0].offset, pos[0].size);
  rec[8] = 9;
  EncodeFixed32(rec.data(), Checksum(std::string_view(rec).substr(4)));
  env.WriteAt(1, pos[0].offset, rec);
  auto log = env.TryOpen();
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().message() == "wal-000001.log at offset 0: malformed record");
}

TEST_CASE("a torn tail in an older file is corruption, not truncated") {
  LogEnv env;
  env.options.file_bytes = 100;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 3, 120); }
  REQUIRE(pos[2].file_no == 3);
  const uint64_t end_of_1 = env.Contents(1).size();
  env.AppendRaw(1, "\x07\x07\x07");
  auto log = env.TryOpen();
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().IsCorruption());
  CHECK(log.status().message() ==
        "wal-000001.log at offset " + std::to_string(end_of_1) + ": incomplete record");
  CHECK(env.Contents(1).size() == end_of_1 + 3);  // left as found
}

TEST_CASE("a bad last record of an older file is corruption") {
  LogEnv env;
  env.options.file_bytes = 100;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 3, 120); }
  env.FlipByte(1, pos[0].offset + pos[0].size - 1);  // older than the newest two
  auto log = env.TryOpen();
  REQUIRE_FALSE(log.ok());
  CHECK(log.status().message() == "wal-000001.log at offset 0: checksum mismatch");
}

// File 3 as a worker's rotation writes it: kRotationPending first (it took writes before the
// syncs of file 2 completed), then its records, then kRotationSynced once they completed.
void MarkRotationPending(LogEnv& env, bool synced = false) {
  Record mark;
  mark.kind = RecordKind::kRotationPending;
  std::string pending;
  EncodeRecord(mark, &pending);
  mark.kind = RecordKind::kRotationSynced;
  std::string completed;
  if (synced) EncodeRecord(mark, &completed);
  REQUIRE(env.mem.WriteFileAtomic(Path(3), pending + env.Contents(3) + completed).ok());
}

TEST_CASE("a torn tail of the file before the newest ends the log there") {
  // Its rotation's syncs never completed (a power cut), so nothing of the newest file was
  // durable: it is emptied, and the log goes on from there.
  LogEnv env;
  env.options.file_bytes = 100;
  std::vector<LogPos> pos;
  { pos = env.Write(*env.Open(), 1, 3, 120); }
  REQUIRE(pos[2].file_no == 3);
  MarkRotationPending(env);
  const uint64_t end_of_2 = env.Contents(2).size();
  const uint64_t size_of_3 = env.Contents(3).size();
  env.AppendRaw(2, "\x07\x07\x07");
  Replayed replayed;
  auto log = env.Open(&replayed);
  CHECK(Seqs(replayed) == Range(1, 2));
  CHECK(log->truncated_tail_bytes() == 3 + size_of_3);
  CHECK(env.Contents(2).size() == end_of_2);
  CHECK(env.Contents(3).empty());
  CHECK(log->current_file_no() == 3);
  const LogPos ten = env.Write(*log, 10, 1)[0];
  CHECK(ten.file_no == 3);
  CHECK(ten.offset == 0);
  log.reset();
  Replayed again;
  log = env.Open(&again);
  CHECK(Seqs(again) == std::vector<uint64_t>{1, 2, 10});
}

TEST_CASE("a torn tail of the file before the newest is damage when the newest came after") {
  // A newest file that does not start with kRotationPending was created once the file before
  // it was synced, and one that says kRotationSynced further on took records after those
  // syncs: that file cannot have been torn by a power cut.
  for (int marks = 0; marks < 3; ++marks) {
    CAPTURE(marks);
    LogEnv env;
    env.options.file_bytes = 100;
    { env.Write(*env.Open(), 1, 3, 120); }
    if (marks > 0) MarkRotationPending(env, /*synced=*/marks == 2);
    const uint64_t end_of_2 = env.Contents(2).size();
    env.AppendRaw(2, "\x07\x07\x07");
    auto log = env.TryOpen();
    const bool marked = marks == 1;
    CHECK(log.ok() == marked);
    if (!marked) {
      CHECK(log.status().message() ==
            "wal-000002.log at offset " + std::to_string(end_of_2) + ": incomplete record");
    }
  }
}

}  // namespace
}  // namespace slotkv::wal
