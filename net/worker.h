// Worker: one thread running one io_context. It owns the connections handed to it and the slots
// s with s % workers == index, and runs their timers (active expiry, the once-a-second commit).
//
// Thread rule: everything but the constructor, Start, Stop and Join runs on the worker's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <thread>
#include <unordered_map>

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
  const std::unordered_map<uint64_t, std::shared_ptr<Connection>>& connections() const {
    return connections_;
  }

 private:
  void ScheduleExpiry();
  void ScheduleCommit();
  void ExpireStep();
  void CommitOwned();

  Server* server_;
  int index_;
  boost::asio::io_context io_{1};
  boost::asio::steady_timer expiry_timer_{io_};
  boost::asio::steady_timer commit_timer_{io_};
  std::thread thread_;
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> connections_;
};

// The worker index of the calling thread (-1 off workers).
int CurrentWorker();

}  // namespace slotkv::net
