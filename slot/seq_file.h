// SeqFile: slot.seq, a slot's sequence-number limit and stream floor (slot.cc says what they
// promise), rewritten in place: recording them costs the write and fdatasync of one block, on a
// worker through its io_uring, instead of a new file, a rename and a directory fsync. Those,
// done before every WAL file removal, were the last synchronous syncs on the workers during a
// bulk load (~490 in a 10M-key load, up to 15 ms each).
//
// Format, version 3, kFileBytes = 1024 bytes: two copies, at offsets 0 and 512.
//   copy := magic:"SKQ3" gen:fixed64 limit:fixed64 floor:fixed64 crc32:fixed32
//   crc32 = Checksum(the 28 bytes before it); the rest of the file is zeros.
// The valid copy with the higher gen holds the values. A write goes to the copy that does not
// hold the last durable values, and never while a sync of it is in flight, so a power cut can
// spoil (fail the checksum of) only a copy whose values were not durable yet. Versions 1 and 2
// (`limit:fixed64 [floor:fixed64] crc32:fixed32`, 12 or 20 bytes) are read, and Open rewrites
// such a file (or creates a missing one) as version 3, atomically.
// Example: limit 1048577, floor 5000 at gen 7 in copy 0 is "SKQ3" 07 00 00 00 00 00 00 00
// 01 00 10 00 00 00 00 00 88 13 00 00 00 00 00 00, then the checksum of those 28 bytes.
//
// Thread rule: one thread (the slot's owner) calls everything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/fs.h"
#include "core/base/status.h"

namespace slotkv::slot {

class SeqFile {
 public:
  struct Values {
    uint64_t limit = 0;
    uint64_t floor = 0;
    bool operator==(const Values&) const = default;
  };
  static constexpr size_t kFileBytes = 1024;
  static constexpr size_t kCopyOffset = 512;  // of copy 1 (copy 0 is at 0)

  // Opens path, creating it (values 0) when it does not exist; Corruption when no copy holds.
  static Result<std::unique_ptr<SeqFile>> Open(Fs* fs, const std::string& path);
  // A WriteThen still waiting is never answered.
  ~SeqFile();
  SeqFile(const SeqFile&) = delete;
  SeqFile& operator=(const SeqFile&) = delete;

  // The values asked for (each the highest Raise gave), and those known to be durable.
  const Values& wanted() const { return wanted_; }
  const Values& durable() const { return durable_; }
  // Whether writes go through the calling thread's io_uring (WriteThen answers later).
  bool async() const;
  // Whether a write's fsync through the io_uring is in flight.
  bool busy() const { return static_cast<bool>(round_); }

  // Raises each wanted value to at least v's (in memory: Write makes them durable).
  void Raise(const Values& v);
  // Makes the wanted values durable before returning.
  Status Write();
  // done(status) once the wanted values are durable: from a later IoRing::Reap when async(),
  // else before this returns.
  void WriteThen(std::function<void(const Status&)> done);

  // A copy's bytes (32): what Open reads back.
  static std::string EncodeCopy(uint64_t gen, const Values& v);

 private:
  using Done = std::function<void(const Status&)>;
  // One write of a copy and its fsync through the io_uring.
  struct Round {
    std::shared_ptr<SeqFile*> owner;  // *owner is nullptr once the SeqFile is gone
    Values values;
    uint64_t gen = 0;
    int copy = 0;
    bool landed = false;  // made durable by a synchronous Write while in flight
    std::vector<Done> waiting;
  };

  SeqFile(std::unique_ptr<File> file, Values values, uint64_t gen, int copy);
  // Writes wanted_ into the free copy and starts its fsync; waiting hears of it.
  void StartRound(std::vector<Done> waiting);
  static void OnSynced(const std::shared_ptr<Round>& r, int error);
  void Landed(const Round& r);

  std::unique_ptr<File> file_;
  Values durable_;
  Values wanted_;
  uint64_t gen_;        // of the copy holding durable_
  int durable_copy_;    // 0 or 1
  std::shared_ptr<SeqFile*> self_;
  std::shared_ptr<Round> round_;  // the round in flight, if any
  std::vector<Done> next_;        // wait for values beyond round_'s
};

}  // namespace slotkv::slot
