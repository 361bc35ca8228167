// Worker: one thread running one io_context. It owns the connections handed to it and the slots
// s with s % workers == index, and runs their timers (active expiry, the once-a-second commit).
// With async reads on, it also owns an IoRing: read-only commands run with no-wait reads, and
// the regions they miss are fetched through the ring while the loop serves other requests.
//
// Thread rule: everything but the constructor, Start, Stop and Join runs on the worker's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/base/io_ring.h"
#include "core/base/status.h"

namespace slotkv::slot {
class Slot;
}

namespace slotkv::net {

class Server;
class Connection;
struct MovedClient;
struct RemoteBatch;

class Worker {
 public:
  // async_reads: set up an IoRing (when the kernel allows; else one log line).
  Worker(Server* server, int index, bool async_reads);
  ~Worker();

  int index() const { return index_; }
  boost::asio::io_context& io() { return io_; }
  Server* server() const { return server_; }

  // Starts the thread (and the timers).
  void Start();
  // Stops the io_context: the thread returns soon. Any thread.
  void Stop();
  void Join();

  // Takes a new client connection (id given in accept order), or one another worker moved
  // here with its client's state (Connection, "Placement"). REQUIRES: on this worker.
  void Adopt(boost::asio::ip::tcp::socket socket, uint64_t id,
             std::unique_ptr<MovedClient> moved = nullptr);
  void Forget(uint64_t client_id);

  // Group commit: runs fn() once this worker has committed its dirty slots (a writer then
  // asks ServerState::write_failures about the slots it wrote), after every fn given before
  // it.
  // The commit runs in a handler posted behind the work already queued, so the writes of every
  // request handled in this turn of the event loop share one WAL write (and fsync). With
  // appendfsync always and the ring up, the fsyncs go through the ring and fn runs from their
  // completion: the loop serves other requests meanwhile, and commits of later turns share the
  // next fsync of each log (wal::Log::CommitThen).
  // REQUIRES: on this worker.
  void AfterCommit(std::function<void()> fn);
  // Whether the commit AfterCommit posted has waited kTurnUs or more behind the handlers queued
  // before it: a client's batches posted here then go behind it (DriveBatches), so that a
  // flood of them does not hold every reply until the last has run.
  bool CommitOverdue() const;
  // Whether read-only commands here run with no-wait reads (the ring is up).
  bool async_reads() const { return ring_ != nullptr; }
  // Fetches reads through the ring, then runs done on this worker. REQUIRES: async_reads(); on
  // this worker.
  void Fetch(std::vector<BlockedRead> reads, std::function<void()> done);
  // Batches posted here by each client (by id), run in arrival order: while the front one
  // waits for its reads, the others wait behind it. Used by net/connection.cc.
  std::unordered_map<uint64_t, std::deque<std::shared_ptr<RemoteBatch>>>& remote_queues() {
    return remote_queues_;
  }

  // One-shot timers of this worker (Executor::RunAfter / CancelTimer). REQUIRES: on this worker.
  uint64_t RunAfter(int64_t delay_ms, std::function<void()> fn);
  void CancelTimer(uint64_t id);

  const std::unordered_map<uint64_t, std::shared_ptr<Connection>>& connections() const {
    return connections_;
  }

 private:
  void ScheduleExpiry();
  void ScheduleCommit();
  // Every kLagProbeMs, notes how late the timer fired (WorkerStats::loop_lag_max_us).
  void ScheduleLagProbe();
  // Opens database 0's slot s and, one per handler, the next ones this worker owns
  // (Keyspace::Preopen). Not in pure-memory mode, where opening a slot writes no file.
  void PreopenSlots(uint32_t s);
  // Whether active expiry and page reclaim must not write now: on a replica, or while
  // clients are paused.
  bool BackgroundWritesWait();
  void ExpireStep();
  void CommitBackgroundWrites();
  // Deletes a bounded number of pages of dropped paged collections in each owned slot
  // (command::ReclaimStep); runs again 1 ms later while any remain, or once the bucket pages
  // a step's deletes would have waited for are fetched.
  void ReclaimStep();
  void CommitOwned();
  // Reopens a failed slot (slot::Slot::Recover) when the fault is gone.
  void TryRecover(slot::Slot* slot);
  void CloseIdleClients();
  void CommitNow();
  // Lists s for FlushStep, which is posted while a listed slot has flushes due
  // (slot::Slot::FlushStep).
  void NoteFlushDue(slot::Slot* s);
  void ScheduleFlushes();
  void DropStaleFlushing();
  void FlushStep();
  // What a flush put off for its reads calls once they are fetched: lists s if still due.
  std::function<void()> FlushOnceFetched(slot::Slot* s);
  struct CommitRound;
  void EndCommit(const std::shared_ptr<CommitRound>& round);
  void WatchRing();
  bool reclaim_scheduled_ = false;  // a ReclaimStep is due on a timer or a fetch
  int reclaim_fetch_tries_ = 0;     // reclaim steps in a row that fetched and deleted nothing

  Server* server_;
  int index_;
  // Not hint 1: with it, what the thread posts to itself waits in a private queue until the
  // running handler ends, so a post another worker makes later, caused by what this handler
  // did after its post (a hop, a reply, the client's next request), can run first; Pub/Sub's
  // order per publisher needs every post in one FIFO.
  boost::asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_SAFE};
  boost::asio::steady_timer expiry_timer_{io_};
  boost::asio::steady_timer commit_timer_{io_};
  boost::asio::steady_timer lag_timer_{io_};
  std::thread thread_;
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> connections_;
  std::vector<std::function<void()>> after_commit_;
  // Commit rounds whose waiters have not run, oldest first: they run in this order.
  std::deque<std::shared_ptr<CommitRound>> rounds_;
  bool commit_posted_ = false;
  int64_t commit_posted_us_ = 0;  // when (command::NowUs)
  // Slots with flushes due, in turn; valid while Keyspace::slots_closed() is flushing_closed_.
  std::deque<slot::Slot*> flushing_;
  uint64_t flushing_closed_ = 0;
  bool flush_posted_ = false;
  // Commands this worker had run at the last FlushStep: more since then, and the flushes
  // that can wait wait (for flush_quiet_timer_).
  uint64_t served_at_flush_ = 0;
  boost::asio::steady_timer flush_quiet_timer_{io_};
  std::unordered_map<uint64_t, std::unique_ptr<boost::asio::steady_timer>> timers_;
  uint64_t next_timer_id_ = 0;
  std::unordered_map<uint64_t, std::deque<std::shared_ptr<RemoteBatch>>> remote_queues_;
  std::unique_ptr<IoRing> ring_;
  // A duplicate of the ring's eventfd, watched by the loop (asio closes its own descriptor).
  std::unique_ptr<boost::asio::posix::stream_descriptor> ring_event_;
};

// The worker index of the calling thread (-1 off workers).
int CurrentWorker();

}  // namespace slotkv::net
