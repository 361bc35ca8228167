// What a command handler sees: its arguments, a Reply to write, the data of its slot(s), the
// calling client's state and the server-wide state.
//
// Two kinds of handler (see command_table.h):
// - Handler: a command with one key. It runs on the owner of the key's slot, with a Store of
//   the client's database in that slot. It must not touch ClientState (it may run on another
//   worker than the client's connection).
// - AsyncHandler: a coroutine (Task) for commands with several keys or none: it starts on the
//   client's worker ("home"), where it may read and change ClientState, and hops to the owner
//   of each slot it needs with `co_await ctx.ToSlot(s)`, which takes the slot there
//   (txn/slot_locks.h). Writes made on a worker are committed before the task leaves it,
//   except a holder's, which are committed when it ends. A task's reply is sent when it ends.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conf/config.h"
#include "core/command/executor.h"
#include "core/command/keyspace.h"
#include "core/command/latency_events.h"
#include "core/command/reply.h"
#include "core/command/slowlog.h"
#include "core/command/stats.h"
#include "core/command/task.h"
#include "core/command/tracking.h"
#include "core/txn/slot_locks.h"
#include "core/txn/watched_keys.h"

namespace slotkv::acl {
class Log;
struct User;
class Users;
}  // namespace slotkv::acl
namespace slotkv::pubsub {
class Registry;
}  // namespace slotkv::pubsub
namespace slotkv::script {
class Functions;
class Scripts;
}  // namespace slotkv::script

namespace slotkv::command {

class Blocking;
class CommandTable;
class ClientPause;
class Replication;
class Waiter;
struct CommandSpec;

// A command queued by MULTI, run by EXEC.
struct QueuedCommand {
  const CommandSpec* spec;
  std::vector<std::string> args;
};

// A key a client WATCHes, as it was when watched.
struct WatchedKey {
  uint32_t db;
  std::string key;
  uint32_t slot;
  // Its expiry time then (0: none, or it did not exist): EXEC fails once that has passed, as
  // Redis's isWatchedKeyExpired.
  int64_t expire_at_ms;
};

// One connection's state, owned by its worker.
struct ClientState {
  uint64_t id = 0;
  uint32_t db = 0;
  int protocol = 2;
  bool authenticated = false;
  // Its ACL user (the default one until AUTH), as of users->version() user_version.
  std::shared_ptr<const acl::User> user;
  uint64_t user_version = 0;
  bool close_after_reply = false;  // QUIT: close once this reply is written
  bool replica = false;  // a replica's link (SLOTKV.SYNC): carries the replication streams
  bool script = false;   // a script's own client (Redis's CLIENT_SCRIPT): SORT sorts sets
  bool monitor = false;  // gets MONITOR's feed (monitor.h)
  bool reply_off = false;   // CLIENT REPLY OFF: replies are dropped (Admission::quiet)
  bool reply_skip = false;  // CLIENT REPLY SKIP: the next request's reply is dropped
  bool no_evict = false;    // CLIENT NO-EVICT ON (flags=e; slotkv evicts no client anyway)
  std::string name;
  std::string addr;  // "ip:port" of the peer (fixed at accept)

  // MULTI: commands are queued until EXEC; a refused one makes EXEC fail (multi_error).
  bool in_multi = false;
  bool multi_error = false;
  std::vector<QueuedCommand> queued;
  // WATCH: the session every watched key's entry points at, and the keys.
  std::shared_ptr<txn::Watch> watch;
  std::vector<WatchedKey> watched;
  // Pub/Sub: what it subscribes to (in the server's registry too, pubsub/registry.h).
  std::set<std::string> channels;
  std::set<std::string> patterns;
  std::set<std::string> shard_channels;
  // CLIENT TRACKING (tracking.h): its settings while on; CLIENT CACHING YES|NO given for the
  // next command (or transaction); whether its REDIRECT client went away.
  std::optional<TrackingSettings> tracking;
  bool tracking_caching = false;
  bool tracking_broken = false;
  bool tracking_reads = false;  // the running command's reads are remembered (RememberReads)
  // Whether it subscribes to anything: a RESP2 client then only runs the Pub/Sub commands,
  // PING, QUIT and RESET.
  bool subscribed() const {
    return !channels.empty() || !patterns.empty() || !shard_channels.empty();
  }
};

// A client as CLIENT LIST shows it.
struct ClientInfo {
  uint64_t id = 0;
  std::string addr;
  std::string laddr;
  int fd = -1;
  std::string name;
  std::string user = "default";
  int64_t age_s = 0;
  int64_t idle_s = 0;
  uint32_t db = 0;
  int protocol = 2;
  uint64_t query_buffer = 0;
  uint64_t output_buffer = 0;
  std::string last_command;
  bool blocked = false;  // waiting in a blocking command (flags=b)
  size_t subs = 0;        // channels, patterns, shard channels subscribed to
  size_t psubs = 0;
  size_t ssubs = 0;
  int64_t multi = -1;     // commands queued in MULTI (-1: not in MULTI)
  bool watch_dirty = false;  // a watched key changed (flags=d)
  bool replica = false;   // a replica's link (flags=S): carries the replication streams
  bool monitor = false;   // gets MONITOR's feed (flags=O)
  bool no_evict = false;  // CLIENT NO-EVICT ON (flags=e)
  bool tracking = false;  // CLIENT TRACKING ON (flags=t; B in BCAST mode)
  bool tracking_bcast = false;
  bool tracking_broken = false;  // its REDIRECT client went away (flags=R)
  int64_t redirect = -1;  // its REDIRECT client (0: none; -1: not tracking)
  bool pubsub() const { return subs + psubs + ssubs > 0; }  // CLIENT KILL TYPE pubsub
};

// c as CLIENT LIST shows it (one line, newline included), CLIENT INFO and ACL LOG too.
std::string FormatClient(const ClientInfo& c);

// The connections of the calling worker, as the network layer keeps them.
class ClientRegistry {
 public:
  virtual ~ClientRegistry() = default;
  // Every connection of the calling worker.
  virtual std::vector<ClientInfo> ListLocal() = 0;
  // Closes the calling worker's connections for which match(info, state) is true (after their
  // pending replies); returns how many.
  virtual int KillLocal(
      const std::function<bool(const ClientInfo&, const ClientState&)>& match) = 0;
  // Ends the wait of client id if it is a connection of the calling worker blocked in a
  // blocking command: with the timeout reply, or with the UNBLOCKED error when error is set.
  // Whether it was.
  virtual bool UnblockLocal(uint64_t id, bool error) = 0;
  // Connections of all workers right now.
  virtual int64_t connected() const = 0;
  // Makes client id of the calling worker a replica's link: listed as one (flags=S, CLIENT
  // KILL TYPE replica), PushLocal writes to it, *unsent follows its unsent output bytes, and
  // on_close runs on this worker when it closes. False when it is gone.
  virtual bool MakeFeedLocal(uint64_t id, std::shared_ptr<std::atomic<int64_t>> unsent,
                             std::function<void()> on_close) = 0;
  // Appends bytes to the output of feed id of the calling worker (after the replies of the
  // requests read so far). False when it is gone.
  virtual bool PushLocal(uint64_t id, std::string bytes) = 0;
};

// Server-wide state shared by every worker. Members are set before the workers start.
// The background persist jobs (persist_commands.cc): slotkv runs one at a time, as Redis runs
// one child, and schedules the other kind for after it.
enum PersistJob : int { kNoPersistJob = 0, kBgSaveJob = 1, kAofRewriteJob = 2 };
struct PersistJobStats {
  std::atomic<bool> scheduled{false};
  std::atomic<bool> last_ok{true};
  std::atomic<int64_t> runs{0};              // finished, successful or not
  std::atomic<int64_t> failures_in_row{0};
  std::atomic<int64_t> started_ms{0};        // of the running one
  std::atomic<int64_t> last_time_s{-1};      // how long the last one took; -1: none yet
};

struct ServerState {
  conf::Config* config = nullptr;
  Keyspace* keyspace = nullptr;
  Executor* executor = nullptr;
  ClientRegistry* clients = nullptr;
  const CommandTable* table = nullptr;
  SlowLog* slowlog = nullptr;
  Blocking* blocking = nullptr;  // clients blocked on keys (blocking.h)
  Tracking* tracking = nullptr;  // client-side caching (tracking.h)
  acl::Users* users = nullptr;   // ACL users (core/acl)
  acl::Log* acl_log = nullptr;   // ACL LOG
  pubsub::Registry* pubsub = nullptr;  // every worker's subscriptions
  script::Scripts* scripts = nullptr;  // the script cache, each worker's interpreters
  script::Functions* functions = nullptr;  // FUNCTION's libraries
  Replication* replication = nullptr;  // role, streams, WAIT (replication.h); may be null
  ClientPause* pause = nullptr;  // CLIENT PAUSE, FAILOVER (client_pause.h); may be null
  Fs* fs = nullptr;  // the data dir's file system (nullptr in pure-memory mode)
  std::vector<std::unique_ptr<WorkerStats>>* stats = nullptr;  // [worker]
  // [worker]: slots written by that worker's commands and not yet committed.
  std::vector<std::vector<slot::Slot*>>* dirty = nullptr;
  int64_t start_ms = 0;
  uint64_t startup_allocated = 0;  // the allocator's bytes once started (MEMORY STATS)
  std::string run_id;
  std::string executable;
  int tcp_port = 0;
  int sentinel_port = 0;  // ZooKeeper mode's port for Sentinel clients (0: none)
  std::atomic<int64_t> last_save_s{0};
  // SAVE / BGSAVE / BGREWRITEAOF bookkeeping (persist_commands.cc), shown by INFO persistence.
  std::atomic<int> background_persist{0};  // the job running: 0 none, else a PersistJob
  PersistJobStats bgsave;
  PersistJobStats aof_rewrite;
  std::atomic<int64_t> saves{0};  // successful SAVE and BGSAVE runs since start
  // DEBUG SET-ACTIVE-EXPIRE: whether the workers' expiry steps delete expired keys.
  std::atomic<bool> active_expire{true};
  ErrorStats error_stats;         // INFO errorstats
  InstantaneousMetrics instantaneous;  // INFO instantaneous_*: SampleMetrics
  LatencyEvents latency_events;   // LATENCY LATEST, HISTORY ...
  // Asks the server to persist everything and exit (SHUTDOWN, SIGTERM).
  std::function<void()> shutdown;

  // Samples instantaneous's rates from every worker's totals (worker 0's expiry step).
  void SampleMetrics();

  // Whether a connection must authenticate (the default user has a password or is off).
  bool auth_required() const;

  // Hot copies of options read on every request, refreshed from config by RefreshLive (at
  // start and after each CONFIG SET).
  std::atomic<bool> protected_mode{true};  // protected-mode yes
  std::atomic<int64_t> idle_timeout_s{0};  // timeout: idle clients closed after it (0 never)
  std::atomic<int64_t> maxclients{0};
  std::atomic<int64_t> proto_max_bulk_len{0};
  std::atomic<int64_t> hll_sparse_max_bytes{0};
  std::atomic<bool> latency_tracking{true};
  std::atomic<int64_t> latency_monitor_threshold_ms{0};
  std::atomic<int64_t> query_buffer_limit{0};
  // client-output-buffer-limit of the normal, pubsub and replica classes.
  struct LiveOutputLimit {
    std::atomic<int64_t> hard{0};
    std::atomic<int64_t> soft{0};
    std::atomic<int64_t> soft_seconds{0};
    void Set(const conf::OutputLimit& l) {
      hard = l.hard;
      soft = l.soft;
      soft_seconds = l.soft_seconds;
    }
    conf::OutputLimit Get() const { return {hard.load(), soft.load(), soft_seconds.load()}; }
  };
  LiveOutputLimit normal_output_limit;
  LiveOutputLimit pubsub_output_limit;
  LiveOutputLimit replica_output_limit;
  std::atomic<int64_t> acllog_max_len{128};
  std::atomic<int64_t> slowlog_slower_than{0};
  std::atomic<int64_t> slowlog_max_len{0};
  std::atomic<int64_t> hz{10};
  std::atomic<int64_t> busy_reply_threshold{5000};  // ms; 0 = never
  std::atomic<uint32_t> notify_flags{0};  // notify-keyspace-events (conf::NotifyClass bits)
  void RefreshLive();

  // Failed commits, so each waiter learns its own slots' outcome (write_failures.h).
  WriteFailures write_failures;
  // Commits the calling worker's dirty slots and empties the list. A failure is recorded in
  // write_failures (the slot refuses writes from now on, until it recovers); the first one is
  // returned.
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

class AsyncContext;

// `co_await ctx.ToSlot(s)`: moves the task to s's owner and takes s there (AsyncContext).
// Plain pointers only: GCC 12 may destroy a co_await operand's temporaries twice.
struct SlotHop {
  AsyncContext* ctx;
  uint32_t slot;
  bool await_ready();
  bool await_suspend(std::coroutine_handle<> h);
  void await_resume() {}
};

// A command that visits several slots or workers, or the client's own state.
//
// Slots (txn/slot_locks.h). `co_await ctx.ToSlot(s)` takes slot s on its owner (or the keys
// of it the task needs), the task suspended while another transaction holds them, so a task
// never sees another's transaction half done. A holder task (Hold, HoldKeys: EXEC, multi-key
// commands; RunTask decides) keeps what it takes until Finish, so nobody sees its own writes
// half done either: it must take its slots in the global order (SlotLocks::Order), as
// ForEachKeySlot and ForEachSlot visit them, or take them all first with LockSlots. Any other
// task visits: the slot it took (whole) is given back when it leaves it (a hop, LeaveVisit
// before parking, Finish), so it holds one at most.
class AsyncContext {
 public:
  AsyncContext(std::vector<std::string> args, int protocol, ServerState* server,
               ClientState* client, int home)
      : args(std::move(args)), reply(protocol), server(*server), client(client), home(home),
        db(client ? client->db : 0) {
    trace.mark = server->write_failures.Mark();
    trace.client = client ? client->id : 0;
  }

  std::vector<std::string> args;
  Reply reply;
  ServerState& server;
  ClientState* client;  // valid on the home worker only
  int home;
  uint32_t db;
  Status commit_status;  // a commit of a slot it wrote failed: the reply becomes an error
  // Where it started and the engine slots it wrote (every Store it makes notes them).
  WriteTrace trace;
  // A blocking command's wait (blocking.h): set on the home worker before the task first
  // leaves it, so the connection can stop the wait when it closes.
  std::shared_ptr<Waiter> waiter;
  // The transaction this task belongs to, when it holds its slots to the end (shared with
  // the commands an EXEC runs).
  std::shared_ptr<txn::Holder> holder;
  // Inside EXEC (or a script): blocking commands answer at once instead of waiting.
  bool no_block = false;
  // Told of every write made through StoreOf (keyspace notifications; RunAsync sets it).
  KeyObserver* observer = nullptr;

  // co_await these to move the task (committing what it wrote where it was).
  SlotHop ToSlot(uint32_t slot) { return SlotHop{this, slot}; }
  Hop ToWorker(int w) {
    return Hop{server.executor, w, [this](const std::function<void()>& go) { return Depart(go); }};
  }
  Hop ToHome() { return ToWorker(home); }
  // Commits what the task wrote here and lets the worker serve what waits before the task goes
  // on (the slots it holds stay held; a visit must take its slot again): between the batches
  // of a long task on one worker.
  Hop Requeue() {
    return Hop{server.executor, server.executor->current(),
               [this](const std::function<void()>& go) { return Depart(go); }, true};
  }
  // The client's database in slot s. REQUIRES: running on s's owner.
  Store StoreOf(uint32_t s, uint32_t database) {
    Store store(server.keyspace, s, database,
                &(*server.dirty)[static_cast<size_t>(server.executor->current())], &trace);
    store.set_observer(observer);
    return store;
  }
  Store StoreOf(uint32_t s) { return StoreOf(s, db); }
  // Serves the clients blocked on keys this worker's writes readied, then commits the current
  // worker's writes; NoteOutcome.
  void CommitHere();
  // Leaving a worker: a task that wrote here and holds no slots waits for the worker's group
  // commit instead of committing every dirty slot at once: returns true when then runs later
  // (after NoteOutcome, on this worker), false when the caller goes on now (a holder:
  // NoteHeldWrites). Committed at once, an MSET of 10 keys paid a log write per slot it wrote
  // and the group flushes those made due (15 of its 79 us of CPU at -P 1).
  bool Settle(const std::function<void()>& then);
  // Sets commit_status when a slot the task wrote failed since it started.
  void NoteOutcome();
  // A holder leaving a worker where it wrote since the last call: notes the worker in
  // Holder::wrote and returns true. What it wrote stays dirty for the worker's group commit
  // (one log write per slot for every task of the turn; committed at once, an MSET of 10 keys
  // paid one per slot it wrote), which Finish waits for.
  bool NoteHeldWrites();
  // Takes in what a sub-task (a command EXEC or a script ran) wrote and its failed commit.
  void Absorb(const AsyncContext& sub);

  // Makes this task a holder of whole slots (EXEC, FLUSHALL); with units, its writes to each
  // engine slot stay one open WAL unit until Finish. REQUIRES: it holds nothing yet.
  void Hold(bool units);
  // Makes this task a holder of the keys at positions of args in their slots (a multi-key
  // command: its writes to a slot are made and committed in one step, so other keys of the slot
  // stay free). REQUIRES: it holds nothing yet.
  void HoldKeys(const std::vector<size_t>& positions);
  // Takes the slots (any order, repeats allowed) in the global order, on their owners; ends on
  // the last one's owner. REQUIRES: holder.
  Task LockSlots(std::vector<uint32_t> slots);
  // slots without repeats, in the global order (SlotLocks::Order: one owner's together).
  std::vector<uint32_t> InLockOrder(std::vector<uint32_t> slots) const;
  // Takes slot s for the holder now if nothing holds it, whatever the global order: it never
  // waits, so it cannot close a cycle (a script reaching a key it did not declare).
  // REQUIRES: holder; on s's owner.
  bool TakeNow(uint32_t s);
  // Whether the holder holds s, or may wait for it (it comes after every slot held).
  bool HoldsSlot(uint32_t s) const { return holder && holder->Holds(s); }
  bool MayWaitFor(uint32_t s) const {
    return holder && server.keyspace->locks().Order(s) > holder->last_order;
  }
  // Gives back the slot a visiting task took (a blocking command before it parks).
  // REQUIRES: on that slot's owner.
  void LeaveVisit();
  // The end of a task (RunTask): gives back a visited slot; a holder commits the units of
  // the slots it wrote (one WAL unit per slot) and gives its slots back, on every worker
  // involved at once; then it moves home.
  Task Finish();

  // SlotHop's steps: whether s is this task's now, taken here on its owner; else queue for
  // it (on its owner, after leaving this worker) and resume h once it is.
  bool EnterHere(uint32_t s);
  bool EnterLater(uint32_t s, std::coroutine_handle<> h);
  // Finish's step for a holder with units: suspends until every worker's part is committed.
  bool ReleaseHeld(std::coroutine_handle<> h);

 private:
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  bool Holds(uint32_t s) const { return visiting_ == s || (holder && holder->Holds(s)); }
  txn::Holder* Taker();
  void CheckOrder(uint32_t s) const;
  bool TryTake(uint32_t s);
  void Queue(uint32_t s, std::coroutine_handle<> h);
  void Took(uint32_t s);
  // Leaving the current worker: gives back a visited slot, then Settle(go).
  bool Depart(const std::function<void()>& go);
  // Whether the task wrote a slot of the calling worker that its group commit has not taken.
  bool WroteHere() const;
  // Closes the units held on the calling worker, gives back its slots, and calls done with
  // the status of the worker's group commit that writes the units. REQUIRES: holder.
  void ReleaseHere(std::function<void()> done);
  // Gives back what holder h holds of s (on s's owner) and posts what that hands over.
  static void ReleaseSlot(ServerState& server, uint32_t s, txn::Holder* h);

  uint32_t visiting_ = kNoSlot;
  uint64_t noted_writes_ = 0;  // trace.writes at the last NoteHeldWrites
  std::shared_ptr<txn::Holder> visitor_;  // what a visit takes slots as
  struct ReleaseRound;
  std::shared_ptr<ReleaseRound> round_;  // Finish's release in progress
};

inline bool SlotHop::await_ready() { return ctx->EnterHere(slot); }
inline bool SlotHop::await_suspend(std::coroutine_handle<> h) { return ctx->EnterLater(slot, h); }

}  // namespace slotkv::command
