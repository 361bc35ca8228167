#include "core/command/command_test_util.h"


#include "core/command/errors.h"
#include "core/command/execute.h"

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
};

}  // namespace

ThreadExecutor::ThreadExecutor(int workers) {
  for (int i = 0; i < workers; ++i) queues_.push_back(std::make_unique<Queue>());
  for (int i = 0; i < workers; ++i) {
    threads_.emplace_back([this, i] {
      tl_worker = i;
      Queue& q = *queues_[static_cast<size_t>(i)];
      while (true) {
        std::function<void()> task;
        {
          std::unique_lock lock(q.mu);
          q.cv.wait(lock, [&] { return q.stop || !q.tasks.empty(); });
          if (q.tasks.empty()) return;
          task = std::move(q.tasks.front());
          q.tasks.pop_front();
        }
        task();
      }
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

void ThreadExecutor::Post(int w, std::function<void()> fn) {
  Queue& q = *queues_[static_cast<size_t>(w)];
  std::lock_guard lock(q.mu);
  q.tasks.push_back(std::move(fn));
  q.cv.notify_one();
}

CommandFixture::CommandFixture(int workers, uint32_t slots) {
  KeyspaceOptions ko;
  ko.memory = true;
  ko.slots = slots;
  ko.databases = static_cast<uint32_t>(config_.GetInt("databases"));
  ko.slot.clock = &clock_;
  ko.slot.key_estimate = 4096;
  keyspace_ = Keyspace::Open(ko).value();
  table_ = BuildCommandTable();
  for (int i = 0; i < workers; ++i) stats_.push_back(std::make_unique<WorkerStats>(table_->size()));
  dirty_.resize(static_cast<size_t>(workers));
  executor_ = std::make_unique<ThreadExecutor>(workers);
  state_.config = &config_;
  state_.keyspace = keyspace_.get();
  state_.executor = executor_.get();
  state_.clients = this;
  state_.table = table_.get();
  state_.slowlog = &slowlog_;
  state_.stats = &stats_;
  state_.dirty = &dirty_;
  state_.start_ms = clock_.NowMs();
  state_.run_id = std::string(40, 'a');
  state_.RefreshLive();
  client_.id = 1;
  client_.authenticated = true;
}

CommandFixture::~CommandFixture() { executor_.reset(); }

std::vector<ClientInfo> CommandFixture::ListLocal() {
  if (executor_->current() != 0) return {};
  ClientInfo info;
  info.id = client_.id;
  info.addr = "127.0.0.1:1";
  info.db = client_.db;
  info.name = client_.name;
  return {info};
}

int CommandFixture::KillLocal(const std::function<bool(const ClientInfo&)>& match) {
  return 0;
}

std::string CommandFixture::Run(std::vector<std::string> args) {
  const CommandSpec* spec = table_->Find(args[0]);
  if (!spec) return "-" + UnknownCommand(args[0], args.data() + 1, args.size() - 1) + "\r\n";
  if (!CommandTable::ArityOk(*spec, args.size())) return "-" + WrongArgs(spec->name) + "\r\n";
  if (state_.auth_required && !client_.authenticated && !(spec->flags & kNoAuth)) {
    return "-" + std::string(kErrNoAuth) + "\r\n";
  }
  auto done = std::make_shared<ReplySlot>();
  if (spec->run) {
    uint32_t slot = keyspace_->SlotOfKey(args[static_cast<size_t>(spec->first_key)]);
    uint32_t db = client_.db;
    int protocol = client_.protocol;
    executor_->Post(executor_->OwnerOf(slot), [&, done, slot, db, protocol] {
      std::string reply = Execute(state_, *spec, args, slot, db, protocol, "127.0.0.1:1",
                                  client_.name);
      Status st = state_.CommitDirty();
      done->Set(st.ok() ? reply : "-" + StatusError(st) + "\r\n");
    });
    return done->Get();
  } else {
    AsyncContext ctx(std::move(args), client_.protocol, &state_, &client_, 0);
    executor_->Post(0, [&, done] {
      Task task = spec->run_async(ctx);
      task.Start([&ctx, done] {
        ctx.CommitHere();
        done->Set(ctx.commit_status.ok() ? ctx.reply.buffer()
                                         : "-" + StatusError(ctx.commit_status) + "\r\n");
      });
    });
    return done->Get();
  }
}

}  // namespace slotkv::command
