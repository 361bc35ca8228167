// CommandFixture: the command layer without sockets, for unit tests of command families.
// It starts `workers` worker threads (more than one, so routing to slot owners runs), a
// pure-memory keyspace on a ManualClock, and one client whose home is worker 0. Run() routes a
// request as a connection does and returns the exact RESP bytes of the reply:
//   CHECK(f.Run({"SET", "k", "v"}) == "+OK\r\n");
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "conf/config.h"
#include "core/base/clock.h"
#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/command/keyspace.h"

namespace slotkv::command {

// Worker threads with FIFO queues: an Executor for tests.
class ThreadExecutor : public Executor {
 public:
  explicit ThreadExecutor(int workers);
  ~ThreadExecutor() override;
  int workers() const override { return static_cast<int>(threads_.size()); }
  int current() const override;
  void Post(int w, std::function<void()> fn) override;

 private:
  struct Queue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::function<void()>> tasks;
    bool stop = false;
  };
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<std::thread> threads_;
};

class CommandFixture : public ClientRegistry {
 public:
  explicit CommandFixture(int workers = 2, uint32_t slots = 8);
  ~CommandFixture() override;

  // Runs one request for the fixture's client and returns its raw reply.
  std::string Run(std::vector<std::string> args);

  ManualClock& clock() { return clock_; }
  ServerState& state() { return state_; }
  conf::Config& config() { return config_; }
  // REQUIRES: no Run in progress (the client lives on worker 0).
  ClientState& client() { return client_; }

  // ClientRegistry: the fixture's one client, on worker 0.
  std::vector<ClientInfo> ListLocal() override;
  int KillLocal(const std::function<bool(const ClientInfo&)>& match) override;
  int64_t connected() const override { return 1; }

 private:
  ManualClock clock_{1'700'000'000'000};
  conf::Config config_;
  std::unique_ptr<Keyspace> keyspace_;
  std::unique_ptr<CommandTable> table_;
  SlowLog slowlog_;
  std::vector<std::unique_ptr<WorkerStats>> stats_;
  std::vector<std::vector<slot::Slot*>> dirty_;
  ServerState state_;
  ClientState client_;
  std::unique_ptr<ThreadExecutor> executor_;  // last member: its threads stop first
};

}  // namespace slotkv::command
