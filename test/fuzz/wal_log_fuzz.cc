// Fuzz target: wal/record (DecodeRecord) and opening a slot's log over MemFs (wal::Log::Open:
// replay, units, torn-tail cutting, corruption reports).
//
// Input:  flags:u8 file { "\n==wal-file==\n" file }   (fuzz_util.h; up to 4 files, which become
//         wal-000001.log, wal-000002.log, ...)
//   flags bit 0: recompute every record's crc first, so that mutations reach the body parser
//   and replay's unit and tail logic instead of stopping at a checksum mismatch.
//
// Checks: each record DecodeRecord accepts re-encodes to at most its size and decodes back to
// itself, and any cut of it reads as incomplete; Open either fails with Corruption or replays
// units whole (a unit's last record has no more bit) at positions ReadAt and ReadMany read back;
// opening again replays the same records and cuts nothing (recovery is idempotent); and a
// record appended after recovery replays after them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/base/clock.h"
#include "core/base/fs.h"
#include "core/base/mem_fs.h"
#include "test/fuzz/fuzz_util.h"
#include "wal/log.h"
#include "wal/record.h"

namespace slotkv::wal {
namespace {

constexpr const char* kDir = "/slot-0000/db-0";

std::string FilePath(uint32_t file_no) {
  char name[32];
  std::snprintf(name, sizeof(name), "wal-%06u.log", file_no);
  return JoinPath(kDir, name);
}

// The records of one file in order, up to the first that does not decode.
void CheckRecords(std::string_view file) {
  while (!file.empty()) {
    Record record;
    size_t consumed = 0;
    const DecodeResult result = DecodeRecord(file, &record, &consumed);
    if (result != DecodeResult::kOk) return;
    FUZZ_CHECK(consumed >= kRecordHeaderSize + 9 && consumed <= file.size());
    std::string encoded;
    EncodeRecord(record, &encoded);
    FUZZ_CHECK(encoded.size() <= consumed);  // varints may be written longer than needed
    Record again;
    size_t again_consumed = 0;
    FUZZ_CHECK(DecodeRecord(encoded, &again, &again_consumed) == DecodeResult::kOk);
    FUZZ_CHECK(again_consumed == encoded.size() && again == record);
    // A record cut anywhere is a possible torn tail, never corruption.
    for (size_t cut : {consumed - 1, consumed / 2, size_t{3}}) {
      Record partial;
      size_t unused = 0;
      FUZZ_CHECK(DecodeRecord(file.substr(0, cut), &partial, &unused) == DecodeResult::kIncomplete);
    }
    file.remove_prefix(consumed);
  }
}

struct Replay {
  std::vector<Record> records;
  std::vector<LogPos> positions;
};

Result<std::unique_ptr<Log>> Open(MemFs& fs, ManualClock& clock, Replay* out) {
  Log::Options options;
  options.fs = &fs;
  options.dir = kDir;
  options.fsync = FsyncPolicy::kAlways;
  options.file_bytes = 1 << 20;
  options.clock = &clock;
  return Log::Open(options, [out](const Record& r, const LogPos& pos) {
    out->records.push_back(r);
    out->positions.push_back(pos);
    return Status::OK();
  });
}

}  // namespace
}  // namespace slotkv::wal

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv;
  using namespace slotkv::wal;
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  std::vector<std::string> files =
      fuzz::SplitWalFiles(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  for (std::string& file : files) {
    if (flags & fuzz::kRepairChecksums) fuzz::RepairWalChecksums(&file);
    CheckRecords(file);
  }

  MemFs fs;
  FUZZ_CHECK(fs.CreateDirs(kDir).ok());
  for (uint32_t i = 0; i < files.size(); ++i) {
    auto file = fs.Open(FilePath(i + 1));
    FUZZ_CHECK(file.ok());
    FUZZ_CHECK((*file)->Append(files[i]).ok());
  }
  ManualClock clock;
  Replay first;
  Result<std::unique_ptr<Log>> log = Open(fs, clock, &first);
  if (!log.ok()) {
    FUZZ_CHECK_MSG(log.status().IsCorruption(), log.status().ToString());
    return 0;
  }
  // Units are replayed whole: the last record of the replay closes its unit.
  FUZZ_CHECK(first.records.empty() || !first.records.back().more);
  for (size_t i = 0; i < first.records.size(); ++i) {
    Result<Record> read = (*log)->ReadAt(first.positions[i]);
    FUZZ_CHECK_MSG(read.ok(), read.status().ToString());
    FUZZ_CHECK(*read == first.records[i]);
  }
  std::vector<Record> many;
  FUZZ_CHECK((*log)->ReadMany(first.positions, &many).ok());
  FUZZ_CHECK(many == first.records);
  log->reset();

  // Recovery is idempotent: the second open replays the same and cuts nothing.
  Replay second;
  log = Open(fs, clock, &second);
  FUZZ_CHECK_MSG(log.ok(), log.status().ToString());
  FUZZ_CHECK((*log)->truncated_tail_bytes() == 0);
  FUZZ_CHECK(second.records == first.records);

  // A write after recovery lands after what was recovered and replays.
  Record put;
  put.seq = 1u << 30;
  put.key = "fuzz-key";
  put.value = "fuzz-value";
  FUZZ_CHECK((*log)->Append(put).ok());
  FUZZ_CHECK((*log)->Commit().ok());
  log->reset();
  Replay third;
  log = Open(fs, clock, &third);
  FUZZ_CHECK_MSG(log.ok(), log.status().ToString());
  FUZZ_CHECK((*log)->truncated_tail_bytes() == 0);
  FUZZ_CHECK(third.records.size() == first.records.size() + 1);
  FUZZ_CHECK(third.records.back() == put);
  third.records.pop_back();
  FUZZ_CHECK(third.records == first.records);
  return 0;
}
