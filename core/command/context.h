// What a command handler sees: its arguments, a Reply to write, the data of its slot(s), the
// calling client's state and the server-wide state.
//
// Two kinds of handler (see command_table.h):
// - Handler: a command with one key. It runs on the owner of the key's slot, with a Store of
//   the client's database in that slot. It must not touch ClientState (it may run on another
//   worker than the client's connection).
// - AsyncHandler: a coroutine (Task) for commands with several keys or none: it starts on the
//   client's worker ("home"), where it may read and change ClientState, and hops to the owner
//   of each slot it needs with `co_await ctx.ToSlot(s)`. Writes made on a worker are committed
//   before the task leaves it. A task's reply is sent when it ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "conf/config.h"
#include "core/command/executor.h"
#include "core/command/keyspace.h"
#include "core/command/reply.h"
#include "core/command/slowlog.h"
#include "core/command/stats.h"
#include "core/command/task.h"

namespace slotkv::command {

class Blocking;
class CommandTable;
class Waiter;

// One connection's state, owned by its worker.
struct ClientState {
  uint64_t id = 0;
  uint32_t db = 0;
  int protocol = 2;
  bool authenticated = false;
  bool close_after_reply = false;  // QUIT: close once this reply is written
  std::string name;
  std::string lib_name;
  std::string lib_ver;
};

// A client as CLIENT LIST shows it.
struct ClientInfo {
  uint64_t id = 0;
  std::string addr;
  std::string laddr;
  int fd = -1;
  std::string name;
  int64_t age_s = 0;
  int64_t idle_s = 0;
  uint32_t db = 0;
  int protocol = 2;
  uint64_t query_buffer = 0;
  uint64_t output_buffer = 0;
  std::string last_command;
  std::string lib_name;
  std::string lib_ver;
  bool blocked = false;  // waiting in a blocking command (flags=b)
};

// The connections of the calling worker, as the network layer keeps them.
class ClientRegistry {
 public:
  virtual ~ClientRegistry() = default;
  // Every connection of the calling worker.
  virtual std::vector<ClientInfo> ListLocal() = 0;
  // Closes the calling worker's connections for which match(info) is true (after their pending
  // replies); returns how many.
  virtual int KillLocal(const std::function<bool(const ClientInfo&)>& match) = 0;
  // Ends the wait of client id if it is a connection of the calling worker blocked in a
  // blocking command: with the timeout reply, or with the UNBLOCKED error when error is set.
  // Whether it was.
  virtual bool UnblockLocal(uint64_t id, bool error) = 0;
  // Connections of all workers right now.
  virtual int64_t connected() const = 0;
};

// Server-wide state shared by every worker. Members are set before the workers start.
struct ServerState {
  conf::Config* config = nullptr;
  Keyspace* keyspace = nullptr;
  Executor* executor = nullptr;
  ClientRegistry* clients = nullptr;
  const CommandTable* table = nullptr;
  SlowLog* slowlog = nullptr;
  Blocking* blocking = nullptr;  // clients blocked on keys (blocking.h)
  std::vector<std::unique_ptr<WorkerStats>>* stats = nullptr;  // [worker]
  // [worker]: slots written by that worker's commands and not yet committed.
  std::vector<std::vector<slot::Slot*>>* dirty = nullptr;
  int64_t start_ms = 0;
  std::string run_id;
  std::string executable;
  int tcp_port = 0;
  std::atomic<int64_t> last_save_s{0};
  // SAVE / BGSAVE bookkeeping (server_commands.cc), shown by INFO persistence.
  std::atomic<bool> bgsave_in_progress{false};
  std::atomic<bool> last_bgsave_ok{true};
  std::atomic<int64_t> saves{0};  // successful SAVE and BGSAVE runs since start
  // Asks the server to persist everything and exit (SHUTDOWN, SIGTERM).
  std::function<void()> shutdown;

  // Hot copies of options read on every request, refreshed from config by RefreshLive (at
  // start and after each CONFIG SET).
  std::atomic<bool> auth_required{false};
  std::atomic<int64_t> maxclients{0};
  std::atomic<int64_t> proto_max_bulk_len{0};
  std::atomic<int64_t> query_buffer_limit{0};
  std::atomic<int64_t> output_buffer_limit{0};
  std::atomic<int64_t> slowlog_slower_than{0};
  std::atomic<int64_t> slowlog_max_len{0};
  std::atomic<int64_t> hz{10};
  void RefreshLive();

  // Commits the calling worker's dirty slots. The first failure is returned; a slot that failed
  // stays in the list (its log refuses writes until restart), so later commits fail too.
  Status CommitDirty();
};

// A one-key command, run on the key's owner.
struct CommandContext {
  std::vector<std::string>& args;
  Reply& reply;
  Store& store;
  ServerState& server;
  WorkerStats& stats;  // the running worker's
};

// A command that visits several slots or workers, or the client's own state.
class AsyncContext {
 public:
  AsyncContext(std::vector<std::string> args, int protocol, ServerState* server,
               ClientState* client, int home)
      : args(std::move(args)), reply(protocol), server(*server), client(client), home(home),
        db(client ? client->db : 0) {}

  std::vector<std::string> args;
  Reply reply;
  ServerState& server;
  ClientState* client;  // valid on the home worker only
  int home;
  uint32_t db;
  Status commit_status;  // first failed commit: the reply becomes an error
  // A blocking command's wait (blocking.h): set on the home worker before the task first
  // leaves it, so the connection can stop the wait when it closes.
  std::shared_ptr<Waiter> waiter;

  // co_await these to move the task (committing what it wrote where it was).
  Hop ToSlot(uint32_t slot) { return ToWorker(server.executor->OwnerOf(slot)); }
  Hop ToWorker(int w) {
    return Hop{server.executor, w, [this] { CommitHere(); }};
  }
  Hop ToHome() { return ToWorker(home); }
  // The client's database in slot s. REQUIRES: running on s's owner.
  Store StoreOf(uint32_t s, uint32_t database) {
    return Store(server.keyspace, s, database,
                 &(*server.dirty)[static_cast<size_t>(server.executor->current())]);
  }
  Store StoreOf(uint32_t s) { return StoreOf(s, db); }
  // Serves the clients blocked on keys this worker's writes readied, then commits the current
  // worker's writes; remembers the first failure.
  void CommitHere();
};

}  // namespace slotkv::command
