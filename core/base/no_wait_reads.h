// NoWaitReads: reads that do not wait for the disk. While a NoWaitReads is alive on a thread,
// File reads there (PosixFs) take only what the OS page cache already holds: a read that would
// wait fails with Status::Busy and its file region is noted here. The caller drops what it was
// doing, has the regions fetched in the background (IoRing) and tries again, so a worker keeps
// serving other requests while the disk works. Files without a page cache to miss (MemFs) never
// fail this way.
//
// Thread rule: a scope belongs to the thread that made it; scopes do not nest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/status.h"

namespace slotkv {

// A file region a no-wait read could not take from the page cache. fd is a duplicate of the
// reading file's descriptor, owned by whoever holds the BlockedRead (the file itself may close
// meanwhile): IoRing::Fetch closes it once read, CloseBlocked when not fetched. -1 when it
// could not be duplicated (the fetch then fails and the retry reads again).
struct BlockedRead {
  int fd = -1;
  uint64_t offset = 0;
  size_t n = 0;
};

// A read-only command runs with no-wait reads this many times (each miss fetched before the next
// try) before it reads waiting for the disk.
inline constexpr int kNoWaitTries = 3;

// Closes the descriptors of reads that will not be fetched, and clears reads.
void CloseBlocked(std::vector<BlockedRead>& reads);

// Lets a batch of reads go on past those that would wait, so that one fetch brings them all.
// Take(st): a Busy met in a NoWaitReads scope is taken (st becomes OK, true is returned); any
// other status stays in st. status(): OK, or the Busy of the reads taken.
class ReadMisses {
 public:
  bool Take(Status& st);
  Status status() const { return busy_; }

 private:
  Status busy_;
};

class NoWaitReads {
 public:
  // Makes this thread's reads no-wait until destroyed. REQUIRES: no other scope is alive here.
  NoWaitReads();
  // Closes the descriptors of the regions not taken.
  ~NoWaitReads();
  NoWaitReads(const NoWaitReads&) = delete;
  NoWaitReads& operator=(const NoWaitReads&) = delete;

  // The calling thread's scope, or nullptr when its reads may wait.
  static NoWaitReads* Current();
  // Notes a region that would wait and returns the Busy status the read fails with.
  Status Blocked(int fd, uint64_t offset, size_t n);

  // Regions noted so far, in the order met; empty when every read was served from memory.
  const std::vector<BlockedRead>& blocked() const { return blocked_; }
  // Hands the regions (and their descriptors) to the caller.
  std::vector<BlockedRead> Take() { return std::move(blocked_); }

 private:
  std::vector<BlockedRead> blocked_;
};

}  // namespace slotkv
