#include "core/command/context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/acl/users.h"
#include "core/command/acl_check.h"
#include "core/command/blocking.h"
#include "core/command/replication.h"

namespace slotkv::command {

Status ServerState::CommitDirty() {
  std::vector<slot::Slot*>& slots = (*dirty)[static_cast<size_t>(executor->current())];
  Status first;
  for (slot::Slot* s : std::exchange(slots, {})) {
    Status st = s->Commit();
    if (st.ok()) continue;
    write_failures.Record(s, st);  // the slot refuses writes from now on, until it recovers
    if (first.ok()) first = std::move(st);
  }
  return first;
}

void ServerState::SampleMetrics() {
  uint64_t totals[InstantaneousMetrics::kMetrics] = {};
  for (const auto& w : *stats) {
    totals[InstantaneousMetrics::kOps] += WorkerStats::Get(w->commands_processed);
    totals[InstantaneousMetrics::kNetInput] += WorkerStats::Get(w->net_input_bytes);
    totals[InstantaneousMetrics::kNetOutput] += WorkerStats::Get(w->net_output_bytes);
  }
  instantaneous.Sample(keyspace->clock()->MonotonicUs() / 1000, totals);
}

bool ServerState::auth_required() const { return users->auth_required(); }

void ServerState::RefreshLive() {
  if (replication != nullptr) replication->Refresh();
  protected_mode = config->GetBool("protected-mode");
  idle_timeout_s = config->GetInt("timeout");
  maxclients = config->GetInt("maxclients");
  proto_max_bulk_len = config->GetInt("proto-max-bulk-len");
  hll_sparse_max_bytes = config->GetInt("hll-sparse-max-bytes");
  latency_tracking = config->GetBool("latency-tracking");
  latency_monitor_threshold_ms = config->GetInt("latency-monitor-threshold");
  query_buffer_limit = config->GetInt("client-query-buffer-limit");
  const std::string limits = config->Get("client-output-buffer-limit");
  normal_output_limit.Set(conf::ClientOutputLimit(limits, "normal"));
  pubsub_output_limit.Set(conf::ClientOutputLimit(limits, "pubsub"));
  replica_output_limit.Set(conf::ClientOutputLimit(limits, "slave"));
  acllog_max_len = config->GetInt("acllog-max-len");
  RefreshUserOptions(*users, *config);
  slowlog_slower_than = config->GetInt("slowlog-log-slower-than");
  slowlog_max_len = config->GetInt("slowlog-max-len");
  hz = config->GetInt("hz");
  if (tracking != nullptr) tracking->set_max_keys(config->GetInt("tracking-table-max-keys"));
  busy_reply_threshold = config->GetInt("busy-reply-threshold");
  // The value was checked when set.
  Result<uint32_t> notify = conf::ParseNotifyClasses(config->Get("notify-keyspace-events"));
  notify_flags = notify.ok() ? *notify : 0;
  keyspace->SetCacheBudget(static_cast<uint64_t>(config->GetInt("maxmemory-cache")));
  keyspace->SetPaging(static_cast<uint32_t>(config->GetInt("paged-collection-threshold")),
                      static_cast<uint32_t>(config->GetInt("paged-page-members")),
                      static_cast<size_t>(config->GetInt("paged-copy-batch-bytes")));
  slot::Dictionaries& dicts = *keyspace->dictionaries();
  dicts.set_min_bytes(static_cast<size_t>(config->GetInt("compress-min-bytes")));
  dicts.set_max_bytes(static_cast<size_t>(config->GetInt("compress-max-bytes")));
  const std::string fsync = config->Get("appendfsync");
  keyspace->SetFsync(fsync == "always" ? wal::FsyncPolicy::kAlways
                     : fsync == "no"   ? wal::FsyncPolicy::kNo
                                       : wal::FsyncPolicy::kEverySec);
}

bool AsyncContext::WroteHere() const {
  // A task that wrote nothing here (PING, INFO, a read) leaves the worker's other writes to
  // its group commit: committed here, their due flushes ran inside a PING (27 ms of CPU at
  // worst during a `redis-cli --pipe` load).
  const std::vector<slot::Slot*>& dirty =
      (*server.dirty)[static_cast<size_t>(server.executor->current())];
  return std::any_of(dirty.begin(), dirty.end(), [this](slot::Slot* s) {
    return std::find(trace.slots.begin(), trace.slots.end(), s) != trace.slots.end();
  });
}

void AsyncContext::CommitHere() {
  if (server.blocking) server.blocking->ServeReady();
  // Each writer learns its own slots' outcome (this task: NoteOutcome).
  if (WroteHere()) server.CommitDirty().PermitUnchecked();
  NoteOutcome();
}

bool AsyncContext::Settle(const std::function<void()>& then) {
  if (server.blocking) server.blocking->ServeReady();
  if (holder) {
    // The worker's next group commit writes them (with what other tasks wrote meanwhile) and
    // runs before whatever this task posts here next; Finish waits for it.
    if (NoteHeldWrites()) server.executor->AfterCommit([] {});
    return false;
  }
  if (!WroteHere()) {
    NoteOutcome();
    return false;
  }
  server.executor->AfterCommit([this, then] {
    NoteOutcome();
    then();
  });
  return true;
}

bool AsyncContext::NoteHeldWrites() {
  if (trace.writes == noted_writes_) return false;
  noted_writes_ = trace.writes;
  holder->wrote[static_cast<size_t>(server.executor->current())] = 1;
  return true;
}

void AsyncContext::Absorb(const AsyncContext& sub) {
  for (const slot::Slot* s : sub.trace.slots) trace.Add(s);
  if (!sub.commit_status.ok() && commit_status.ok()) commit_status = sub.commit_status;
}

void AsyncContext::NoteOutcome() {
  Status st = server.write_failures.Outcome(trace);
  if (!st.ok() && commit_status.ok()) commit_status = std::move(st);
}

// ---- slots ----------------------------------------------------------------------------------

void AsyncContext::Hold(bool units) {
  holder = std::make_shared<txn::Holder>(server.executor->workers(), units);
}

void AsyncContext::HoldKeys(const std::vector<size_t>& positions) {
  holder = std::make_shared<txn::Holder>(server.executor->workers(), /*hold_units=*/false);
  for (size_t p : positions) {
    const uint32_t s = server.keyspace->SlotOfKey(args[p]);
    auto it = std::find_if(holder->keys.begin(), holder->keys.end(),
                           [s](const auto& e) { return e.first == s; });
    if (it == holder->keys.end()) {
      holder->keys.push_back({s, {}});
      it = holder->keys.end() - 1;
    }
    if (std::find(it->second.begin(), it->second.end(), args[p]) == it->second.end()) {
      it->second.push_back(args[p]);
    }
  }
}

void AsyncContext::ReleaseSlot(ServerState& server, uint32_t s, txn::Holder* h) {
  for (std::function<void()>& next : server.keyspace->locks().Release(s, h)) {
    server.executor->Post(server.executor->current(), std::move(next));
  }
  // Clients blocked on keys of s may have waited for it (Blocking::ServeReady).
  if (server.blocking) server.blocking->ServeReady();
}

txn::Holder* AsyncContext::Taker() {
  if (holder) return holder.get();
  if (!visitor_) {
    visitor_ = std::make_shared<txn::Holder>(server.executor->workers(), /*hold_units=*/false);
  }
  return visitor_.get();
}

void AsyncContext::CheckOrder(uint32_t s) const {
  // Taking a slot before one already held could wait in a cycle with another holder: a
  // command that reaches its slots out of order must LockSlots them first.
  if (holder && server.keyspace->locks().Order(s) < holder->last_order) {
    std::fprintf(stderr, "slotkv: %s took slot %u out of the global order\n",
                 args.empty() ? "?" : args[0].c_str(), s);
    std::abort();
  }
}

bool AsyncContext::TryTake(uint32_t s) {
  txn::Holder* taker = Taker();
  if (!server.keyspace->locks().TryAcquire(s, taker, taker->KeysOf(s))) return false;
  CheckOrder(s);
  Took(s);
  return true;
}

bool AsyncContext::TakeNow(uint32_t s) {
  if (holder->Holds(s)) return true;
  if (!server.keyspace->locks().TryAcquire(s, holder.get(), holder->KeysOf(s))) return false;
  Took(s);
  return true;
}

void AsyncContext::Queue(uint32_t s, std::coroutine_handle<> h) {
  CheckOrder(s);
  txn::Holder* taker = Taker();
  if (server.keyspace->locks().Acquire(s, taker, taker->KeysOf(s), [this, s, h] {
        Took(s);
        h.resume();
      })) {
    Took(s);  // freed meanwhile (not expected: the caller found it taken)
    h.resume();
  }
}

void AsyncContext::Took(uint32_t s) {
  if (holder) {
    holder->slots.push_back(s);
    holder->last_order = std::max(holder->last_order, server.keyspace->locks().Order(s));
  } else {
    visiting_ = s;
  }
}

bool AsyncContext::EnterHere(uint32_t s) {
  Executor& ex = *server.executor;
  if (ex.current() != ex.OwnerOf(s)) return false;
  if (Holds(s)) return true;
  if (visiting_ != kNoSlot) LeaveVisit();
  return TryTake(s);
}

bool AsyncContext::EnterLater(uint32_t s, std::coroutine_handle<> h) {
  Executor& ex = *server.executor;
  const int owner = ex.OwnerOf(s);
  if (ex.current() == owner) {
    Queue(s, h);  // EnterHere found it taken
    return true;
  }
  std::function<void()> go = [this, s, h, owner, executor = &ex] {
    executor->Post(owner, [this, s, h] {
      if (Holds(s) || TryTake(s)) {
        h.resume();
      } else {
        Queue(s, h);
      }
    });
  };
  if (!Depart(go)) go();
  return true;
}

void AsyncContext::LeaveVisit() {
  const uint32_t s = std::exchange(visiting_, kNoSlot);
  if (s != kNoSlot) ReleaseSlot(server, s, visitor_.get());
}

bool AsyncContext::Depart(const std::function<void()>& go) {
  LeaveVisit();
  return Settle(go);
}

std::vector<uint32_t> AsyncContext::InLockOrder(std::vector<uint32_t> slots) const {
  const txn::SlotLocks& locks = server.keyspace->locks();
  std::sort(slots.begin(), slots.end(),
            [&](uint32_t a, uint32_t b) { return locks.Order(a) < locks.Order(b); });
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  return slots;
}

Task AsyncContext::LockSlots(std::vector<uint32_t> slots) {
  const std::vector<uint32_t> ordered = InLockOrder(std::move(slots));
  for (uint32_t s : ordered) co_await ToSlot(s);
}

void AsyncContext::ReleaseHere(std::function<void()> done) {
  Executor& ex = *server.executor;
  const int w = ex.current();
  // The units close: the worker's next group commit writes each as one unit (with what others
  // write there once the slots are back: none of it is acknowledged before that commit).
  holder->wrote[static_cast<size_t>(w)] = 0;
  std::vector<slot::Slot*>& dirty = (*server.dirty)[static_cast<size_t>(w)];
  for (slot::Slot* unit : std::exchange(holder->units[static_cast<size_t>(w)], {})) {
    unit->Unhold();
    if (std::find(dirty.begin(), dirty.end(), unit) == dirty.end()) dirty.push_back(unit);
  }
  for (uint32_t s : holder->slots) {
    if (ex.OwnerOf(s) == w) ReleaseSlot(server, s, holder.get());
  }
  ex.AfterCommit(std::move(done));
}

// A holder's slots being given back on several workers at once; the last one resumes the task.
struct AsyncContext::ReleaseRound {
  std::atomic<int> left{0};
  std::coroutine_handle<> task;
  void Done() {
    if (left.fetch_sub(1) == 1) task.resume();
  }
};

namespace {

// Finish's awaiter for a holder.
struct ReleaseHeldAwait {
  AsyncContext* ctx;
  bool await_ready() const { return false; }
  bool await_suspend(std::coroutine_handle<> h) { return ctx->ReleaseHeld(h); }
  void await_resume() const {}
};

}  // namespace

bool AsyncContext::ReleaseHeld(std::coroutine_handle<> h) {
  Executor& ex = *server.executor;
  const int workers = ex.workers();
  std::vector<bool> involved(static_cast<size_t>(workers), false);
  for (uint32_t s : holder->slots) involved[static_cast<size_t>(ex.OwnerOf(s))] = true;
  for (int w = 0; w < workers; ++w) {
    if (holder->WroteOn(w)) involved[static_cast<size_t>(w)] = true;
  }
  auto round = std::make_shared<ReleaseRound>();
  round->task = h;
  round_ = round;
  // One count for this call, so the task cannot resume before every part is under way.
  round->left = static_cast<int>(std::count(involved.begin(), involved.end(), true)) + 1;
  const int here = ex.current();
  for (int w = 0; w < workers; ++w) {
    if (!involved[static_cast<size_t>(w)]) continue;
    auto part = [this, round, w] {
      ReleaseHere([round] { round->Done(); });
    };
    if (w == here) {
      part();
    } else {
      ex.Post(w, std::move(part));
    }
  }
  // The last part resumes the task (this call, when it is last: then it does not suspend).
  return round->left.fetch_sub(1) != 1;
}

Task AsyncContext::Finish() {
  LeaveVisit();
  if (holder) NoteHeldWrites();  // the release's commits below write them
  if (holder && holder->WroteAny()) {
    // Writes to commit first, on every worker involved at once; the reply waits for them.
    co_await ReleaseHeldAwait{this};
    NoteOutcome();
    round_.reset();
  } else if (holder) {
    // Nothing to commit: the slots go back on their owners, behind nothing the reply waits for.
    NoteOutcome();
    Executor& ex = *server.executor;
    for (uint32_t s : holder->slots) {
      if (ex.OwnerOf(s) == ex.current()) {
        ReleaseSlot(server, s, holder.get());
      } else {
        ex.Post(ex.OwnerOf(s),
                [&server = server, s, h = holder] { ReleaseSlot(server, s, h.get()); });
      }
    }
  }
  if (holder) holder->slots.clear();
  co_await ToHome();
}

}  // namespace slotkv::command
