// Server: the RESP front end. N worker threads, each running one Boost.Asio io_context; the
// listening socket hands connections to workers in turn, and slot s belongs to worker
// s % workers (see core/command/keyspace.h). A worker runs a request itself when it owns the
// request's slot, else posts it to the owner and gets the reply posted back; a connection sends
// replies in request order whatever worker produced them (net/connection.h).
//
// Each worker also runs timers for the slots it owns: active expiry (hz times a second) and a
// commit each second (the everysec fsync and the publishing of persisted groups).
//
// Thread rule: Start and Wait are called by the main thread; everything else runs on workers.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "conf/config.h"
#include "core/acl/users.h"
#include "core/base/fs.h"
#include "core/command/blocking.h"
#include "core/command/client_pause.h"
#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/command/keyspace.h"
#include "core/pubsub/registry.h"
#include "core/script/functions.h"
#include "core/script/scripts.h"

namespace slotkv::net {

class Worker;

class Server : public command::Executor, public command::ClientRegistry {
 public:
  // What runs once the server state is complete, before the workers start: the layers above
  // (repl/) install themselves there. With one, the slots report their commits (streams).
  using Install = std::function<Status(command::ServerState&)>;
  // Opens the keyspace of config's dir, binds the port and starts the workers.
  // InvalidArgument / IOError naming what failed (a bad option, a port in use, a damaged file).
  static Result<std::unique_ptr<Server>> Start(conf::Config* config, std::string executable,
                                               const Install& install = {});
  ~Server() override;

  // Blocks until SHUTDOWN or SIGTERM/SIGINT, then persists every slot and stops the workers.
  // The first persist failure, if any.
  Status Wait();
  // The port bound (useful with port 0).
  int port() const { return port_; }

  // command::Executor
  int workers() const override { return static_cast<int>(workers_.size()); }
  int current() const override;
  void Post(int w, std::function<void()> fn) override;
  uint64_t RunAfter(int64_t delay_ms, std::function<void()> fn) override;
  void CancelTimer(uint64_t id) override;
  bool async_reads() const override;
  void Fetch(std::vector<BlockedRead> reads, std::function<void()> done) override;
  void AfterCommit(std::function<void()> done) override;

  // command::ClientRegistry
  std::vector<command::ClientInfo> ListLocal() override;
  int KillLocal(const std::function<bool(const command::ClientInfo&,
                                         const command::ClientState&)>& match) override;
  bool UnblockLocal(uint64_t id, bool error) override;
  int64_t connected() const override { return connected_.load(std::memory_order_relaxed); }
  bool MakeFeedLocal(uint64_t id, std::shared_ptr<std::atomic<int64_t>> unsent,
                     std::function<void()> on_close) override;
  bool PushLocal(uint64_t id, std::string bytes) override;

  // Called by connections.
  command::ServerState& state() { return state_; }
  Worker& worker(int w) { return *workers_[static_cast<size_t>(w)]; }
  std::atomic<int64_t>& connected_counter() { return connected_; }
  uint64_t NextClientId() { return next_client_id_.fetch_add(1) + 1; }
  void RequestShutdown();

 private:
  Server() = default;
  // Binds a to bind:port (the port bound goes to *bound).
  Status Listen(boost::asio::ip::tcp::acceptor& a, int64_t port, int* bound);
  void Accept(boost::asio::ip::tcp::acceptor* acceptor);
  Status PersistAll();

  conf::Config* config_ = nullptr;
  std::unique_ptr<Fs> fs_;
  std::unique_ptr<command::Keyspace> keyspace_;
  std::unique_ptr<command::CommandTable> table_;
  command::SlowLog slowlog_;
  command::ClientPause pause_;
  std::unique_ptr<command::Blocking> blocking_;
  std::unique_ptr<pubsub::Registry> pubsub_;
  std::unique_ptr<command::Tracking> tracking_;
  std::unique_ptr<acl::Users> users_;
  acl::Log acl_log_;
  std::unique_ptr<script::Scripts> scripts_;
  std::unique_ptr<script::Functions> functions_;
  std::vector<std::unique_ptr<command::WorkerStats>> stats_;
  std::vector<std::vector<slot::Slot*>> dirty_;
  command::ServerState state_;
  std::vector<std::unique_ptr<Worker>> workers_;
  struct Listener;
  std::unique_ptr<Listener> listener_;
  int port_ = 0;
  size_t next_worker_ = 0;
  std::atomic<int64_t> connected_{0};
  std::atomic<uint64_t> next_client_id_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace slotkv::net
