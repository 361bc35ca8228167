// CommandFixture: the command layer without sockets, for unit tests of command families.
// It starts `workers` worker threads (more than one, so routing to slot owners runs), a
// pure-memory keyspace on a ManualClock, and one client whose home is worker 0. Run() routes a
// request as a connection does and returns the exact RESP bytes of the reply:
//   CHECK(f.Run({"SET", "k", "v"}) == "+OK\r\n");
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "conf/config.h"
#include "core/acl/users.h"
#include "core/base/clock.h"
#include "core/command/blocking.h"
#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/command/keyspace.h"
#include "core/pubsub/registry.h"
#include "core/script/functions.h"
#include "core/script/scripts.h"

namespace slotkv::command {

// Worker threads with FIFO queues: an Executor for tests.
class ThreadExecutor : public Executor {
 public:
  explicit ThreadExecutor(int workers);
  ~ThreadExecutor() override;
  int workers() const override { return static_cast<int>(threads_.size()); }
  int current() const override;
  void Post(int w, std::function<void()> fn) override;
  uint64_t RunAfter(int64_t delay_ms, std::function<void()> fn) override;
  void CancelTimer(uint64_t id) override;
  // Off unless set_async_reads(true). Fetch reads nothing: it counts the regions, closes their
  // descriptors and posts done to the calling worker.
  bool async_reads() const override { return async_reads_; }
  void Fetch(std::vector<BlockedRead> reads, std::function<void()> done) override;
  void set_async_reads(bool on) { async_reads_ = on; }
  // Posts done to the calling worker, which runs the commit set by set_commit first.
  void AfterCommit(std::function<void()> done) override;
  void set_commit(std::function<Status()> commit) { commit_ = std::move(commit); }
  size_t regions_fetched() const { return regions_fetched_.load(); }

 private:
  using TimePoint = std::chrono::steady_clock::time_point;
  struct Queue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::function<void()>> tasks;
    std::map<std::pair<TimePoint, uint64_t>, std::function<void()>> timers;  // by due time
    std::map<uint64_t, TimePoint> timer_due;                                 // by id
    uint64_t next_timer_id = 0;
    bool stop = false;
  };
  // The next thing worker q should run: a task, else a due timer; empty when stopping.
  std::function<void()> Next(Queue& q);
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<std::thread> threads_;
  std::atomic<bool> async_reads_{false};
  std::atomic<size_t> regions_fetched_{0};
  std::function<Status()> commit_;  // set before the workers run commands
};

class CommandFixture : public ClientRegistry {
 public:
  // fs: the data's file system (dir /data, appendfsync always); nullptr: pure-memory mode.
  explicit CommandFixture(int workers = 2, uint32_t slots = 8, Fs* fs = nullptr);
  ~CommandFixture() override;

  // Runs one request for the fixture's client and returns its raw reply.
  std::string Run(std::vector<std::string> args);

  // A request of another client, running in the background.
  class PendingReply {
   public:
    PendingReply(std::function<std::string()> get, std::function<bool(int)> wait)
        : get_(std::move(get)), wait_(std::move(wait)) {}
    // Waits for the reply and returns it.
    std::string Get() { return get_(); }
    // Whether the reply came within ms milliseconds.
    bool WaitFor(int ms) { return wait_(ms); }

   private:
    std::function<std::string()> get_;
    std::function<bool(int)> wait_;
  };
  // Starts args for a new client (its own state, home on the last worker) and returns at once:
  // for blocking commands, woken by Run()s of the fixture's client.
  PendingReply Start(std::vector<std::string> args);

  ManualClock& clock() { return clock_; }
  // The Pub/Sub messages delivered so far: (client id, RESP2 bytes), in delivery order.
  std::vector<std::pair<uint64_t, std::string>> Delivered();
  ThreadExecutor& executor() { return *executor_; }
  ServerState& state() { return state_; }
  conf::Config& config() { return config_; }
  // REQUIRES: no Run in progress (the client lives on worker 0).
  ClientState& client() { return client_; }

  // ClientRegistry: the fixture's one client, on worker 0.
  std::vector<ClientInfo> ListLocal() override;
  int KillLocal(
      const std::function<bool(const ClientInfo&, const ClientState&)>& match) override;
  // The fixture's one client is never blocked while another request runs.
  bool UnblockLocal(uint64_t, bool) override { return false; }
  int64_t connected() const override { return 1; }
  // The fixture has no replica links.
  bool MakeFeedLocal(uint64_t, std::shared_ptr<std::atomic<int64_t>>,
                     std::function<void()>) override {
    return false;
  }
  bool PushLocal(uint64_t, std::string) override { return false; }

 private:
  PendingReply Submit(std::vector<std::string> args, ClientState& client, int home);

  ManualClock clock_{1'700'000'000'000};
  conf::Config config_;
  std::unique_ptr<Keyspace> keyspace_;
  std::unique_ptr<CommandTable> table_;
  SlowLog slowlog_;
  std::unique_ptr<Blocking> blocking_;
  std::unique_ptr<Tracking> tracking_;
  std::unique_ptr<acl::Users> users_;
  acl::Log acl_log_;
  std::mutex delivered_mu_;
  std::vector<std::pair<uint64_t, std::string>> delivered_;  // guarded by delivered_mu_
  std::unique_ptr<pubsub::Registry> pubsub_;
  std::unique_ptr<script::Scripts> scripts_;
  std::unique_ptr<script::Functions> functions_;
  std::vector<std::unique_ptr<WorkerStats>> stats_;
  std::vector<std::vector<slot::Slot*>> dirty_;
  ServerState state_;
  ClientState client_;
  std::vector<std::unique_ptr<ClientState>> other_clients_;
  std::unique_ptr<ThreadExecutor> executor_;  // last member: its threads stop first
};

// Expected RESP bytes for the family tests' CHECKs (a test file may shadow one with its own).
inline const std::string kNull = "$-1\r\n";
inline const std::string kOk = "+OK\r\n";
inline const std::string kEmptyArray = "*0\r\n";
inline const std::string kSyntax = "-ERR syntax error\r\n";
inline const std::string kNotInt = "-ERR value is not an integer or out of range\r\n";
inline const std::string kNotFloat = "-ERR value is not a valid float\r\n";
inline const std::string kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
inline std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}
inline std::string Int(int64_t v) { return ":" + std::to_string(v) + "\r\n"; }
inline std::string Err(const std::string& text) { return "-" + text + "\r\n"; }
// An array reply of bulk strings.
inline std::string Arr(const std::vector<std::string>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& s : items) out += Bulk(s);
  return out;
}
inline std::string Arity(const std::string& cmd) {
  return "-ERR wrong number of arguments for '" + cmd + "' command\r\n";
}

}  // namespace slotkv::command
