// IoRing: one worker's io_uring for the reads NoWaitReads turned away. Fetch reads the regions
// in the background so that the OS page cache holds them (the bytes are dropped: the retry reads
// them through the usual path, which then finds them in memory) and calls done once every one
// has completed, failed ones included (the retry meets the error itself). It also runs the
// worker's WAL writes (Write) and fsyncs: the WAL's (Sync) and a slot's data files when it
// publishes (SyncAll), and the removal of obsolete WAL files (Unlink).
// Completions are taken when event_fd() becomes readable: the worker's event loop watches it
// and calls Reap.
//
// Thread rule: one thread (the worker that made it) calls everything.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/no_wait_reads.h"

namespace slotkv {

// One answer for several ring operations: the parts callbacks returned, to give one to each
// operation; done(0 or the first errno) runs once all of them were called. REQUIRES: parts > 0.
std::vector<std::function<void(int error)>> JoinAnswers(size_t parts,
                                                        std::function<void(int error)> done);

class IoRing {
 public:
  // A ring of depth entries, or nullptr with the reason in *why when the kernel refuses
  // io_uring (old kernel, seccomp, io_uring_disabled).
  static std::unique_ptr<IoRing> Create(unsigned depth, std::string* why);
  // Waits for the reads still in flight (their buffers are freed here).
  ~IoRing();
  IoRing(const IoRing&) = delete;
  IoRing& operator=(const IoRing&) = delete;

  // Signalled when completions are ready: Reap then.
  int event_fd() const { return event_fd_; }
  // Starts reading reads and calls done after the last one completes, from a later Reap. Takes
  // the reads' descriptors and closes each once its read is done. REQUIRES: !reads.empty().
  void Fetch(std::vector<BlockedRead> reads, std::function<void()> done);
  // Starts fdatasync of fd (a duplicate is taken: fd may close afterwards) and calls done with
  // 0 or the errno, from a later Reap.
  void Sync(int fd, std::function<void(int error)> done);
  // Starts writing bytes at offset of fd (a duplicate is taken; bytes are kept alive until the
  // kernel is done with them) and calls done with 0 or the errno from a later Reap. A write
  // that stops short fails with ENOSPC (a regular file takes less only when the disk is full).
  void Write(int fd, uint64_t offset, std::shared_ptr<const std::string> bytes,
             std::function<void(int error)> done);
  // Starts removing the file `name` of the directory dir_fd (a duplicate is taken) and calls
  // done with 0 or the errno from a later Reap. The kernel does it off this thread (io-wq):
  // dropping the last name of a file frees its pages and blocks, which took up to 61 ms on a
  // worker for a 4 MiB WAL file. Relative to the directory, not a path: a directory renamed
  // meanwhile (FLUSHDB's trash) keeps its files apart from a new one of the same name.
  void Unlink(int dir_fd, std::string name, std::function<void(int error)> done);
  // Starts punching a hole of len bytes at offset of fd (fallocate PUNCH_HOLE | KEEP_SIZE; a
  // duplicate is taken) and calls done with 0 or the errno from a later Reap. The kernel does
  // it off this thread: a punch waiting for ext4's journal held a worker up to 52 ms.
  void PunchHole(int fd, uint64_t offset, uint64_t len, std::function<void(int error)> done);
  // Calls done(error) from a later Reap, as a failed operation would (no I/O): a fault
  // injected into ring I/O (FaultFs) is answered the way the kernel answers.
  void Fail(int error, std::function<void(int error)> done);
  // Where Write, Sync, Unlink and PunchHole cannot take a duplicate of the descriptor
  // (EMFILE), they do their work here, synchronously, and still answer from a later Reap.
  // Takes the completed operations, submits queued ones, then runs the callbacks of the fetches
  // and syncs now complete (they may submit again).
  void Reap();

  // The ring of the calling thread's event loop (set by the worker that owns it), or nullptr.
  static IoRing* Current();
  static void SetCurrent(IoRing* ring);

  // Waits (up to ~5 s) and reaps until nothing is queued or in flight.
  void DrainForTest();

  // Reads of fetches submitted so far (syncs not counted).
  uint64_t reads_submitted() const { return reads_submitted_; }
  size_t inflight() const { return inflight_; }

 private:
  struct Batch {
    size_t left = 0;
    std::function<void()> done;
  };
  // A read of a fetch (batch set), a write (bytes set; read.offset and read.n say where), a
  // punch (punch set; read.offset and read.n likewise) or a sync (none of them); on_done
  // answers all but reads; read.fd is owned.
  struct Op {
    Batch* batch = nullptr;
    BlockedRead read;
    std::unique_ptr<char[]> buf;
    std::shared_ptr<const std::string> bytes;
    std::string unlink_name;  // set for an unlink (read.fd is its directory)
    bool punch = false;
    std::function<void(int error)> on_done;
    int outcome = -1;  // >= 0: done already (Fail, or run here): a no-op answers it
  };

  IoRing() = default;
  // Moves queued ops into the submission queue while it has room, and submits.
  void SubmitQueued();
  // Queues op, answered op->outcome by a no-op (0 or an errno).
  void Answer(std::unique_ptr<Op> op);

  io_uring ring_{};
  int event_fd_ = -1;
  unsigned depth_ = 0;
  size_t inflight_ = 0;
  std::deque<std::unique_ptr<Op>> queued_;  // waiting for room in the ring
  uint64_t reads_submitted_ = 0;
};

}  // namespace slotkv
