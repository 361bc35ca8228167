// Helpers of the log tests: an in-memory slot directory and what each case needs.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/base/clock.h"
#include "core/base/fault_fs.h"
#include "core/base/fs.h"
#include "core/base/mem_fs.h"
#include "wal/log.h"

namespace slotkv::wal {

inline constexpr const char* kDir = "/data/slot-0000";

inline Record Put(uint64_t seq, std::string key, std::string value) {
  Record r;
  r.seq = seq;
  r.key = std::move(key);
  r.value = std::move(value);
  return r;
}

inline std::string Path(uint32_t file_no) {
  char name[32];
  std::snprintf(name, sizeof(name), "wal-%06u.log", file_no);
  return JoinPath(kDir, name);
}

struct Replayed {
  std::vector<Record> records;
  std::vector<LogPos> positions;
};

// An in-memory slot directory and the helpers each case needs.
struct LogEnv {
  MemFs mem;
  Fs* fs = &mem;
  ManualClock clock;
  Log::Options options;

  LogEnv() {
    REQUIRE(mem.CreateDirs(kDir).ok());
    options.fs = fs;
    options.dir = kDir;
    options.fsync = FsyncPolicy::kAlways;
    options.clock = &clock;
  }

  Result<std::unique_ptr<Log>> TryOpen(Replayed* out = nullptr) {
    return Log::Open(options, [out](const Record& r, const LogPos& pos) {
      if (out != nullptr) {
        out->records.push_back(r);
        out->positions.push_back(pos);
      }
      return Status::OK();
    });
  }

  std::unique_ptr<Log> Open(Replayed* out = nullptr) {
    auto log = TryOpen(out);
    REQUIRE_MESSAGE(log.ok(), log.status().ToString());
    return std::move(log).value();
  }

  // Appends records seq first..first+n-1 ("k<seq>" -> value) and commits them.
  std::vector<LogPos> Write(Log& log, uint64_t first, int n, size_t value_size = 10) {
    std::vector<LogPos> positions;
    for (int i = 0; i < n; ++i) {
      uint64_t seq = first + static_cast<uint64_t>(i);
      auto pos = log.Append(Put(seq, "k" + std::to_string(seq), std::string(value_size, 'v')));
      REQUIRE(pos.ok());
      positions.push_back(*pos);
    }
    REQUIRE(log.Commit().ok());
    return positions;
  }

  std::string Contents(uint32_t file_no) {
    auto data = mem.ReadFile(Path(file_no));
    REQUIRE(data.ok());
    return *data;
  }

  void WriteAt(uint32_t file_no, uint64_t offset, std::string_view bytes) {
    auto file = mem.Open(Path(file_no));
    REQUIRE(file.ok());
    REQUIRE((*file)->Write(offset, bytes).ok());
  }

  void FlipByte(uint32_t file_no, uint64_t offset) {
    std::string byte(1, static_cast<char>(Contents(file_no)[offset] ^ 0x40));
    WriteAt(file_no, offset, byte);
  }

  void AppendRaw(uint32_t file_no, std::string_view bytes) {
    WriteAt(file_no, Contents(file_no).size(), bytes);
  }

  std::vector<std::string> Files() {
    auto names = mem.List(kDir);
    REQUIRE(names.ok());
    std::sort(names->begin(), names->end());
    return *names;
  }
};

// A LogEnv whose log goes through a FaultFs over its MemFs (failures, counts of syncs).
struct FaultLogEnv : LogEnv {
  FaultFs fault{&mem};
  FaultLogEnv() { options.fs = &fault; }
};

inline std::vector<uint64_t> Seqs(const Replayed& r) {
  std::vector<uint64_t> seqs;
  for (const Record& rec : r.records) seqs.push_back(rec.seq);
  return seqs;
}

inline std::vector<uint64_t> Range(uint64_t first, uint64_t last) {
  std::vector<uint64_t> v;
  for (uint64_t s = first; s <= last; ++s) v.push_back(s);
  return v;
}

}  // namespace slotkv::wal
