#include "core/command/command_test_util.h"


#include "core/command/acl_check.h"
#include "core/command/dispatch.h"
#include "core/command/errors.h"
#include "core/command/execute.h"
#include "core/command/pubsub.h"

namespace slotkv::command {
namespace {

thread_local int tl_worker = -1;

// A reply handed from a worker to the test thread. Shared, so the worker may still be inside
// Set when the test thread has its reply and moves on.
struct ReplySlot {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  std::string reply;

  void Set(std::string r) {
    std::lock_guard lock(mu);
    reply = std::move(r);
    ready = true;
    cv.notify_all();
  }
  std::string Get() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return ready; });
    return std::move(reply);
  }
  bool WaitFor(int ms) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return ready; });
  }
};

}  // namespace

ThreadExecutor::ThreadExecutor(int workers) {
  for (int i = 0; i < workers; ++i) queues_.push_back(std::make_unique<Queue>());
  for (int i = 0; i < workers; ++i) {
    threads_.emplace_back([this, i] {
      tl_worker = i;
      Queue& q = *queues_[static_cast<size_t>(i)];
      while (std::function<void()> task = Next(q)) task();
    });
  }
}

ThreadExecutor::~ThreadExecutor() {
  for (auto& q : queues_) {
    std::lock_guard lock(q->mu);
    q->stop = true;
    q->cv.notify_all();
  }
  for (auto& t : threads_) t.join();
}

int ThreadExecutor::current() const { return tl_worker; }

std::function<void()> ThreadExecutor::Next(Queue& q) {
  std::unique_lock lock(q.mu);
  while (true) {
    if (!q.tasks.empty()) {
      std::function<void()> task = std::move(q.tasks.front());
      q.tasks.pop_front();
      return task;
    }
    if (q.stop) return nullptr;
    if (q.timers.empty()) {
      q.cv.wait(lock);
      continue;
    }
    auto first = q.timers.begin();
    if (first->first.first <= std::chrono::steady_clock::now()) {
      std::function<void()> fn = std::move(first->second);
      q.timer_due.erase(first->first.second);
      q.timers.erase(first);
      return fn;
    }
    q.cv.wait_until(lock, first->first.first);
  }
}

uint64_t ThreadExecutor::RunAfter(int64_t delay_ms, std::function<void()> fn) {
  Queue& q = *queues_[static_cast<size_t>(tl_worker)];
  std::lock_guard lock(q.mu);
  const uint64_t id = ++q.next_timer_id;
  const TimePoint due = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms);
  q.timers.emplace(std::make_pair(due, id), std::move(fn));
  q.timer_due.emplace(id, due);
  return id;
}

void ThreadExecutor::CancelTimer(uint64_t id) {
  Queue& q = *queues_[static_cast<size_t>(tl_worker)];
  std::lock_guard lock(q.mu);
  auto it = q.timer_due.find(id);
  if (it == q.timer_due.end()) return;
  q.timers.erase(std::make_pair(it->second, id));
  q.timer_due.erase(it);
}

void ThreadExecutor::Fetch(std::vector<BlockedRead> reads, std::function<void()> done) {
  regions_fetched_ += reads.size();
  CloseBlocked(reads);
  Post(current(), std::move(done));
}

void ThreadExecutor::AfterCommit(std::function<void()> done) {
  Post(current(), [this, done = std::move(done)] {
    if (commit_) commit_().PermitUnchecked();  // failures are recorded for each writer
    done();
  });
}

void ThreadExecutor::Post(int w, std::function<void()> fn) {
  Queue& q = *queues_[static_cast<size_t>(w)];
  std::lock_guard lock(q.mu);
  q.tasks.push_back(std::move(fn));
  q.cv.notify_one();
}

CommandFixture::CommandFixture(int workers, uint32_t slots, Fs* fs) {
  KeyspaceOptions ko;
  ko.memory = fs == nullptr;
  ko.fs = fs;
  ko.dir = "/data";
  ko.slot.fsync = wal::FsyncPolicy::kAlways;
  ko.slots = slots;
  ko.databases = static_cast<uint32_t>(config_.GetInt("databases"));
  ko.slot.clock = &clock_;
  ko.slot.key_estimate = 4096;
  ko.workers = workers;
  keyspace_ = Keyspace::Open(ko).value();
  table_ = BuildCommandTable();
  for (int i = 0; i < workers; ++i) stats_.push_back(std::make_unique<WorkerStats>(table_->id_count()));
  dirty_.resize(static_cast<size_t>(workers));
  executor_ = std::make_unique<ThreadExecutor>(workers);
  executor_->set_commit([this] { return state_.CommitDirty(); });
  state_.config = &config_;
  state_.keyspace = keyspace_.get();
  state_.executor = executor_.get();
  state_.clients = this;
  state_.table = table_.get();
  state_.slowlog = &slowlog_;
  blocking_ = std::make_unique<Blocking>(&state_, workers);
  pubsub_ = std::make_unique<pubsub::Registry>([this](int, pubsub::Batch batch) {
    std::lock_guard lock(delivered_mu_);
    for (auto& [client, message] : batch) {
      delivered_.emplace_back(client, EncodeMessage(*message, 2));
    }
  });
  state_.pubsub = pubsub_.get();
  // Invalidations are kept as RESP3 pushes, by the client they go to.
  tracking_ = std::make_unique<Tracking>(
      executor_.get(), workers,
      [this](int, uint64_t client, std::shared_ptr<const pubsub::Message> m) {
        std::lock_guard lock(delivered_mu_);
        delivered_.emplace_back(client, EncodeMessage(*m, 3));
      });
  state_.tracking = tracking_.get();
  keyspace_->set_tracking(tracking_.get());
  users_ = std::move(StartUsers(*table_, config_).value());
  state_.users = users_.get();
  state_.acl_log = &acl_log_;
  scripts_ = std::make_unique<script::Scripts>(workers);
  state_.scripts = scripts_.get();
  functions_ = std::make_unique<script::Functions>(nullptr, "");
  state_.functions = functions_.get();
  state_.blocking = blocking_.get();
  keyspace_->set_watcher(blocking_.get());
  state_.stats = &stats_;
  state_.dirty = &dirty_;
  state_.start_ms = clock_.NowMs();
  state_.run_id = std::string(40, 'a');
  state_.RefreshLive();
  client_.id = 1;
  client_.authenticated = true;
}

CommandFixture::~CommandFixture() { executor_.reset(); }

std::vector<std::pair<uint64_t, std::string>> CommandFixture::Delivered() {
  std::lock_guard lock(delivered_mu_);
  return delivered_;
}

std::vector<ClientInfo> CommandFixture::ListLocal() {
  if (executor_->current() != 0) return {};
  ClientInfo info;
  info.id = client_.id;
  info.addr = "127.0.0.1:1";
  info.db = client_.db;
  info.name = client_.name;
  return {info};
}

int CommandFixture::KillLocal(
    const std::function<bool(const ClientInfo&, const ClientState&)>& match) {
  return 0;
}

std::string CommandFixture::Run(std::vector<std::string> args) {
  return Submit(std::move(args), client_, 0).Get();
}

CommandFixture::PendingReply CommandFixture::Start(std::vector<std::string> args) {
  other_clients_.push_back(std::make_unique<ClientState>());
  other_clients_.back()->id = other_clients_.size() + 1;
  const int home = executor_->workers() - 1;
  return Submit(std::move(args), *other_clients_.back(), home);
}

CommandFixture::PendingReply CommandFixture::Submit(std::vector<std::string> args,
                                                    ClientState& client, int home) {
  auto done = std::make_shared<ReplySlot>();
  PendingReply pending([done] { return done->Get(); },
                       [done](int ms) { return done->WaitFor(ms); });
  // As the network layer does: admitted on the client's worker, then run (one-key commands on
  // their owner, in turn behind a transaction holding the slot; the others as tasks).
  auto shared_args = std::make_shared<std::vector<std::string>>(std::move(args));
  executor_->Post(home, [this, shared_args, &client, done, home] {
    Admission a = Admit(state_, client, *shared_args);
    if (!a.run) {
      done->Set(a.reply);
      return;
    }
    const CommandSpec* spec = a.spec;
    if (client.tracking) RememberReads(state_, client, *spec, *shared_args);
    if (spec->run) {
      uint32_t slot = keyspace_->SlotOfKey((*shared_args)[static_cast<size_t>(spec->first_key)]);
      uint32_t db = client.db;
      int protocol = client.protocol;
      std::string name = client.name;
      const uint64_t id = client.id;
      executor_->Post(executor_->OwnerOf(slot), [this, spec, shared_args, done, slot, db,
                                                 protocol, name, id] {
        auto run = [this, spec, shared_args, done, slot, db, protocol, name, id] {
          WriteTrace trace;
          trace.mark = state_.write_failures.Mark();
          trace.client = id;
          std::string reply = Execute(state_, *spec, *shared_args, slot, db, protocol,
                                      "127.0.0.1:1", name, &trace);
          state_.CommitDirty().PermitUnchecked();  // recorded in write_failures
          Status st = state_.write_failures.Outcome(trace);
          done->Set(st.ok() ? reply : "-" + StatusError(st) + "\r\n");
        };
        txn::SlotLocks& locks = keyspace_->locks();
        const std::string_view key = (*shared_args)[static_cast<size_t>(spec->first_key)];
        if (locks.Free(slot, key)) {
          run();
        } else {
          locks.Defer(slot, &key, run);
        }
      });
      return;
    }
    auto ctx = std::make_shared<AsyncContext>(std::move(*shared_args), client.protocol, &state_,
                                              &client, home);
    Task task = RunTask(*spec, *ctx);
    task.Start([ctx, done] {
      ctx->CommitHere();
      done->Set(ctx->commit_status.ok() ? ctx->reply.buffer()
                                        : "-" + StatusError(ctx->commit_status) + "\r\n");
    });
  });
  return pending;
}

}  // namespace slotkv::command
