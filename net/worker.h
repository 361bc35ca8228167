// Worker: one thread running one io_context. It owns the connections handed to it and the slots
// s with s % workers == index, and runs their timers (active expiry, the once-a-second commit).
//
// Thread rule: everything but the constructor, Start, Stop and Join runs on the worker's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"

namespace slotkv::net {

class Server;
class Connection;

class Worker {
 public:
  Worker(Server* server, int index);
  ~Worker();

  int index() const { return index_; }
  boost::asio::io_context& io() { return io_; }
  Server* server() const { return server_; }

  // Starts the thread (and the timers).
  void Start();
  // Stops the io_context: the thread returns soon. Any thread.
  void Stop();
  void Join();

  // Takes a new client connection (id given in accept order). REQUIRES: on this worker.
  void Adopt(boost::asio::ip::tcp::socket socket, uint64_t id);
  void Forget(uint64_t client_id);

  // Group commit: runs fn(status of the commit) once this worker has committed its dirty slots.
  // The commit runs in a handler posted behind the work already queued, so the writes of every
  // request handled in this turn of the event loop share one WAL write (and fsync).
  // REQUIRES: on this worker.
  void AfterCommit(std::function<void(const Status&)> fn);
  // One-shot timers of this worker (Executor::RunAfter / CancelTimer). REQUIRES: on this worker.
  uint64_t RunAfter(int64_t delay_ms, std::function<void()> fn);
  void CancelTimer(uint64_t id);

  const std::unordered_map<uint64_t, std::shared_ptr<Connection>>& connections() const {
    return connections_;
  }

 private:
  void ScheduleExpiry();
  void ScheduleCommit();
  void ExpireStep();
  void CommitOwned();
  void CommitNow();

  Server* server_;
  int index_;
  boost::asio::io_context io_{1};
  boost::asio::steady_timer expiry_timer_{io_};
  boost::asio::steady_timer commit_timer_{io_};
  std::thread thread_;
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> connections_;
  std::vector<std::function<void(const Status&)>> after_commit_;
  bool commit_posted_ = false;
  std::unordered_map<uint64_t, std::unique_ptr<boost::asio::steady_timer>> timers_;
  uint64_t next_timer_id_ = 0;
};

// The worker index of the calling thread (-1 off workers).
int CurrentWorker();

}  // namespace slotkv::net
