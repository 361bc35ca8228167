#include "net/worker.h"

#include <pthread.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "conf/config.h"
#include "core/command/client_pause.h"
#include "core/command/collection_pages.h"
#include "core/command/execute.h"
#include "core/command/notify.h"
#include "core/command/tracking.h"
#include "core/command/replication.h"
#include "net/connection.h"
#include "net/remote_batch.h"
#include "net/server.h"

namespace slotkv::net {
namespace {

thread_local int tl_worker = -1;

}  // namespace

int CurrentWorker() { return tl_worker; }

Worker::Worker(Server* server, int index, bool async_reads) : server_(server), index_(index) {
  if (!async_reads) return;
  std::string why;
  ring_ = IoRing::Create(256, &why);
  if (!ring_) {
    if (index == 0) std::fprintf(stderr, "io_uring unavailable (%s): reads wait for the disk\n",
                                 why.c_str());
    return;
  }
  ring_event_ = std::make_unique<boost::asio::posix::stream_descriptor>(
      io_, dup(ring_->event_fd()));
}

Worker::~Worker() {
  Join();
  ring_event_.reset();
  ring_.reset();  // waits for reads still in flight
}

void Worker::Start() {
  thread_ = std::thread([this] {
    tl_worker = index_;
    // Named for top -H, perf and /proc/<pid>/task/*/comm (15 characters at most).
    pthread_setname_np(pthread_self(), ("slotkv-w" + std::to_string(index_)).c_str());
    IoRing::SetCurrent(ring_.get());
    auto guard = boost::asio::make_work_guard(io_);
    ScheduleExpiry();
    ScheduleCommit();
    ScheduleLagProbe();
    PreopenSlots(static_cast<uint32_t>(index_));
    if (ring_) WatchRing();
    io_.run();
  });
}

void Worker::PreopenSlots(uint32_t s) {
  command::Keyspace& ks = *server_->state().keyspace;
  if (ks.memory() || s >= ks.slots()) return;
  // A slot that fails to open here is left to the first write, which reports it.
  ks.Preopen(s, 0).PermitUnchecked();
  const uint32_t next = s + static_cast<uint32_t>(server_->workers());
  boost::asio::post(io_, [this, next] { PreopenSlots(next); });
}

void Worker::Stop() { io_.stop(); }

void Worker::Join() {
  if (thread_.joinable()) thread_.join();
}

void Worker::Adopt(boost::asio::ip::tcp::socket socket, uint64_t id,
                   std::unique_ptr<MovedClient> moved) {
  auto conn = std::make_shared<Connection>(this, std::move(socket), id, std::move(moved));
  connections_.emplace(id, conn);
  conn->Start();
}

void Worker::Forget(uint64_t client_id) { connections_.erase(client_id); }

void Worker::AfterCommit(std::function<void()> fn) {
  after_commit_.push_back(std::move(fn));
  if (commit_posted_) return;
  commit_posted_ = true;
  commit_posted_us_ = command::NowUs();
  boost::asio::post(io_, [this] { CommitNow(); });
}

bool Worker::CommitOverdue() const {
  return commit_posted_ && command::NowUs() - commit_posted_us_ >= kTurnUs;
}

// The commit of one turn: its waiters run once every dirty slot's commit is durable, and
// those of every earlier round ran (rounds may complete out of order: a round whose slots a
// synchronous commit took meanwhile, or whose slots are not the earlier round's, is done at
// once, but its waiters were promised the writes made before them).
struct Worker::CommitRound {
  size_t left = 1;
  std::vector<std::function<void()>> waiting;
};

void Worker::CommitNow() {
  commit_posted_ = false;
  auto round = std::make_shared<CommitRound>();
  rounds_.push_back(round);
  round->waiting.swap(after_commit_);
  std::vector<slot::Slot*>& dirty = (*server_->state().dirty)[static_cast<size_t>(index_)];
  std::vector<slot::Slot*> slots = std::move(dirty);
  dirty.clear();
  round->left += slots.size();
  for (slot::Slot* s : slots) {
    // With appendfsync always the fsync goes through the ring: this loop goes on serving.
    s->CommitThen([this, round, s](const Status& st) {
      // Recorded before any waiter runs; the slot refuses writes from now on, until it recovers.
      if (!st.ok()) server_->state().write_failures.Record(s, st);
      EndCommit(round);
    });
    if (s->flush_due()) NoteFlushDue(s);
  }
  EndCommit(round);
}

void Worker::DropStaleFlushing() {
  const uint64_t closed = server_->state().keyspace->slots_closed();
  if (closed == flushing_closed_) return;
  // Some slot went since the list was made, maybe one it names: the others' due flushes are
  // noted again at their next commit.
  flushing_.clear();
  flushing_closed_ = closed;
}

void Worker::NoteFlushDue(slot::Slot* s) {
  DropStaleFlushing();
  if (std::find(flushing_.begin(), flushing_.end(), s) == flushing_.end()) flushing_.push_back(s);
  ScheduleFlushes();
}

void Worker::ScheduleFlushes() {
  if (flush_posted_ || flushing_.empty()) return;
  flush_posted_ = true;
  boost::asio::post(io_, [this] { FlushStep(); });
}

// One group flush per handler, slots in turn: what became ready meanwhile (another client's
// request, the ring's completion of the commit whose writes made the flush due) runs between
// two flushes. Run inside the commit handler, two flushes of ~2-6 ms each held the worker:
// PING p99 15 ms during a `redis-cli --pipe` load.
// A flush that can wait (slot::Slot::flush_deferrable) waits while this worker runs other
// requests: after a 10M-key load the flushes left were 19% of the workers' CPU during the
// GETs that followed. Tried again when no command came for kQuietMs.
void Worker::FlushStep() {
  constexpr auto kQuietMs = std::chrono::milliseconds(5);
  flush_posted_ = false;
  DropStaleFlushing();
  if (flushing_.empty()) return;
  const uint64_t served = command::WorkerStats::Get(
      (*server_->state().stats)[static_cast<size_t>(index_)]->commands_processed);
  const bool busy = served != served_at_flush_;
  served_at_flush_ = served;
  auto next = flushing_.begin();
  if (busy) {
    next = std::find_if(flushing_.begin(), flushing_.end(),
                        [](slot::Slot* s) { return !s->flush_deferrable(); });
  }
  if (next == flushing_.end()) {
    flush_quiet_timer_.expires_after(kQuietMs);
    flush_quiet_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) ScheduleFlushes();
    });
    return;
  }
  slot::Slot* s = *next;
  flushing_.erase(next);
  // A flush whose pages are not in memory is fetched through the ring, and comes back here.
  Status st = s->FlushStep(FlushOnceFetched(s));
  if (!st.ok()) server_->state().write_failures.Record(s, st);
  if (st.ok() && s->flush_due()) flushing_.push_back(s);  // behind the others: slots in turn
  ScheduleFlushes();
}

std::function<void()> Worker::FlushOnceFetched(slot::Slot* s) {
  return [this, s] {
    if (s->flush_due()) NoteFlushDue(s);
  };
}

void Worker::EndCommit(const std::shared_ptr<CommitRound>& round) {
  if (--round->left > 0 || rounds_.front() != round) return;
  while (!rounds_.empty() && rounds_.front()->left == 0) {
    std::shared_ptr<CommitRound> done = std::move(rounds_.front());
    rounds_.pop_front();
    for (auto& fn : done->waiting) fn();
  }
}

void Worker::Fetch(std::vector<BlockedRead> reads, std::function<void()> done) {
  command::WorkerStats& stats = *(*server_->state().stats)[static_cast<size_t>(index_)];
  command::WorkerStats::Add(stats.async_reads, reads.size());
  ring_->Fetch(std::move(reads), std::move(done));
}

void Worker::WatchRing() {
  ring_event_->async_wait(boost::asio::posix::descriptor_base::wait_read,
                          [this](const boost::system::error_code& ec) {
                            if (ec) return;
                            ring_->Reap();
                            WatchRing();
                          });
}

void Worker::ScheduleExpiry() {
  int64_t hz = std::max<int64_t>(1, server_->state().hz.load());
  expiry_timer_.expires_after(std::chrono::milliseconds(1000 / hz));
  expiry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    ExpireStep();
    ScheduleExpiry();
  });
}

void Worker::ScheduleCommit() {
  commit_timer_.expires_after(std::chrono::seconds(1));
  commit_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    CommitOwned();
    CloseIdleClients();
    ScheduleCommit();
  });
}

void Worker::ScheduleLagProbe() {
  constexpr int kLagProbeMs = 10;
  lag_timer_.expires_after(std::chrono::milliseconds(kLagProbeMs));
  lag_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    const auto late = std::chrono::steady_clock::now() - lag_timer_.expiry();
    const auto us = static_cast<uint64_t>(
        std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(late).count()));
    std::atomic<uint64_t>& max = (*server_->state().stats)[static_cast<size_t>(index_)]
                                     ->loop_lag_max_us;
    if (us > command::WorkerStats::Get(max)) max.store(us, std::memory_order_relaxed);
    ScheduleLagProbe();
  });
}

// `timeout`, as Redis's clientsCronHandleTimeout: a client that sent nothing for that long is
// closed, unless it subscribes, waits in a blocking command or has a command running.
void Worker::CloseIdleClients() {
  const int64_t timeout_s = server_->state().idle_timeout_s.load();
  if (timeout_s <= 0) return;
  const int64_t now_ms = server_->state().keyspace->clock()->NowMs();
  std::vector<std::shared_ptr<Connection>> idle;
  for (const auto& [id, conn] : connections_) {
    if (conn->IdleTimedOut(now_ms, timeout_s)) idle.push_back(conn);
  }
  for (const auto& conn : idle) conn->Close();
}

bool Worker::BackgroundWritesWait() {
  command::ServerState& state = server_->state();
  // A replica's keys expire and its pages go by its master's deletes (reads already treat
  // them as missing).
  if (state.replication != nullptr && state.replication->is_replica()) return true;
  // Paused clients pause them too (as Redis): the dataset holds still, e.g. for FAILOVER.
  return state.pause != nullptr && state.pause->active() &&
         state.pause->Mode(state.keyspace->clock()->MonotonicUs() / 1000) !=
             command::PauseMode::kNone;
}

// Each step looks at a few buckets of every slot this worker owns, in every database, and
// deletes the expired keys there, so expired keys are reclaimed without being read. It first
// queues the pages of the paged roots each slot discarded (deleted, overwritten, expired).
void Worker::ExpireStep() {
  constexpr size_t kBucketsPerStep = 16;
  command::ServerState& state = server_->state();
  if (index_ == 0) state.SampleMetrics();
  // A replica's pages go by its master's deletes: the roots its slots discard are dropped.
  const bool replica = state.replication != nullptr && state.replication->is_replica();
  if (!replica && BackgroundWritesWait()) return;
  command::Keyspace& ks = *state.keyspace;
  constexpr int64_t kTrimUs = 1000;
  const int64_t trim_until_us = ks.clock()->MonotonicUs() + 2 * kTrimUs;
  bool idle_flushed = false;
  for (uint32_t s = static_cast<uint32_t>(index_); s < ks.slots();
       s += static_cast<uint32_t>(server_->workers())) {
    for (uint32_t db = 0; db < ks.databases(); ++db) {
      Result<slot::Slot*> slot = ks.Get(s, db, false);
      if (!slot.ok() || *slot == nullptr) continue;
      // Disk space a large free left (not a write): a millisecond a slot, two a step at most.
      if ((*slot)->failure().ok() && ks.clock()->MonotonicUs() < trim_until_us) {
        if (Status st = (*slot)->TrimFreeSpace(kTrimUs); !st.ok()) {
          std::fprintf(stderr, "freeing disk space of slot %u db %u: %s\n", s, db,
                       st.ToString().c_str());
        }
      }
      std::vector<std::string> roots = (*slot)->TakeDiscardedRoots();
      if (replica) continue;
      // What only the log holds on a slot no write reached for a while: one group a step.
      if (!idle_flushed) {
        Result<bool> flushed = (*slot)->IdleFlushStep(FlushOnceFetched(*slot));
        if (!flushed.ok()) state.write_failures.Record(*slot, flushed.status());
        idle_flushed = flushed.ok() && *flushed;
      }
      command::Store store(&ks, s, db, &(*state.dirty)[static_cast<size_t>(index_)]);
      for (const std::string& root : roots) {
        Status st = command::DropPages(store, root);
        if (!st.ok()) {
          std::fprintf(stderr, "page reclaim of a discarded root in slot %u db %u: %s\n", s, db,
                       st.ToString().c_str());
        }
      }
      if (!state.active_expire.load(std::memory_order_relaxed)) continue;  // DEBUG's switch
      Result<size_t> expired = (*slot)->ActiveExpireStep(
          kBucketsPerStep, [&](std::string_view key, ValueType) {
            command::Notify(state, conf::kNotifyExpired, "expired", key, db);
            if (state.tracking->active()) state.tracking->Invalidate(key, 0);
          });
      if (!expired.ok()) {
        std::fprintf(stderr, "active expiry of slot %u db %u: %s\n", s, db,
                     expired.status().ToString().c_str());
        continue;
      }
      if (*expired > 0) {
        auto& dirty = (*state.dirty)[static_cast<size_t>(index_)];
        if (std::find(dirty.begin(), dirty.end(), *slot) == dirty.end()) dirty.push_back(*slot);
      }
    }
  }
  CommitBackgroundWrites();
  if (!reclaim_scheduled_) ReclaimStep();
}

// The deletes of a background step go with the group commit (a failure is recorded there);
// they acknowledge nobody. Committed at once (with every slot written in this turn, and the
// flushes those writes made due), an expiry step took 22-33 ms of the worker during a
// `redis-cli --pipe` load, and other clients waited as long.
void Worker::CommitBackgroundWrites() {
  if (!(*server_->state().dirty)[static_cast<size_t>(index_)].empty()) AfterCommit([] {});
}

void Worker::ReclaimStep() {
  // A step deletes pages for about a millisecond (every slot of the worker together), then
  // lets requests run for as long: PING's tail stays near a millisecond while a 10M-member
  // collection goes. Its deletes read no-wait: a delete whose bucket page is not in memory
  // ends the step, the page is fetched through the io_uring, and the next step starts once it
  // is in (a step that read waiting held the worker 55 ms, 20 reads, while a persisted 10M-
  // member zset was reclaimed).
  constexpr uint64_t kPagesPerStep = 256;
  constexpr int64_t kStepUs = 1000;
  reclaim_scheduled_ = false;
  command::ServerState& state = server_->state();
  if (BackgroundWritesWait()) return;
  command::Keyspace& ks = *state.keyspace;
  const int64_t deadline_us = ks.clock()->MonotonicUs() + kStepUs;
  auto& dirty = (*state.dirty)[static_cast<size_t>(index_)];
  // After kNoWaitTries steps in a row that met the disk before deleting anything (what they
  // fetched evicted again), a step reads waiting.
  const bool no_wait = ring_ != nullptr && reclaim_fetch_tries_ < kNoWaitTries;
  std::vector<BlockedRead> blocked;
  uint64_t deleted = 0;
  bool more = false;
  for (uint32_t s = static_cast<uint32_t>(index_); s < ks.slots();
       s += static_cast<uint32_t>(server_->workers())) {
    for (uint32_t db = 0; db < ks.databases(); ++db) {
      if (!ks.reclaim_pending(s, db)) continue;
      Result<slot::Slot*> slot = ks.Get(s, db, false);
      if (!slot.ok() || *slot == nullptr || (*slot)->held()) continue;
      command::Store store(&ks, s, db, &dirty);
      command::NoWaitReclaim step;
      Result<bool> left = command::ReclaimStep(store, kPagesPerStep, deadline_us,
                                               no_wait ? &step : nullptr);
      blocked.insert(blocked.end(), step.blocked.begin(), step.blocked.end());
      deleted += step.deleted;
      // The step's deletes flush after its commit: without compaction until the pages are
      // gone (Slot::DeferCompaction).
      (*slot)->DeferCompaction(left.ok() && *left);
      if (!left.ok()) {
        std::fprintf(stderr, "page reclaim of slot %u db %u: %s\n", s, db,
                     left.status().ToString().c_str());
        continue;
      }
      ks.set_reclaim_pending(s, db, *left);
      more = more || *left;
    }
  }
  CommitBackgroundWrites();
  if (!blocked.empty()) {
    reclaim_fetch_tries_ = deleted > 0 ? 0 : reclaim_fetch_tries_ + 1;
    reclaim_scheduled_ = true;
    Fetch(std::move(blocked), [this] { ReclaimStep(); });
    return;
  }
  reclaim_fetch_tries_ = 0;
  if (more) {
    reclaim_scheduled_ = true;
    RunAfter(1, [this] { ReclaimStep(); });
  }
}

uint64_t Worker::RunAfter(int64_t delay_ms, std::function<void()> fn) {
  const uint64_t id = ++next_timer_id_;
  auto timer = std::make_unique<boost::asio::steady_timer>(io_);
  timer->expires_after(std::chrono::milliseconds(delay_ms));
  timer->async_wait([this, id, fn = std::move(fn)](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: CancelTimer already forgot it
    timers_.erase(id);
    fn();
  });
  timers_.emplace(id, std::move(timer));
  return id;
}

void Worker::CancelTimer(uint64_t id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  it->second->cancel();
  timers_.erase(it);
}

// Commit makes everysec's fsync happen even when no request arrives. A failed slot is tried
// again instead.
void Worker::CommitOwned() {
  command::ServerState& state = server_->state();
  command::Keyspace& ks = *state.keyspace;
  // The cache shares follow use (Keyspace::RebalanceCaches): whichever worker comes first in
  // the second divides the budget by what the slots noted (below, a second ago), and each
  // worker's slots adopt the same division in the loop (or at a write), so that shares taken
  // from one worker's slots are not given to the other's a second before they are let go.
  ks.RebalanceCaches();
  for (uint32_t s = static_cast<uint32_t>(index_); s < ks.slots();
       s += static_cast<uint32_t>(server_->workers())) {
    for (uint32_t db = 0; db < ks.databases(); ++db) {
      Result<slot::Slot*> slot = ks.Get(s, db, false);
      if (!slot.ok() || *slot == nullptr) continue;
      if (!(*slot)->failure().ok()) {
        TryRecover(*slot);
        continue;
      }
      ks.NoteCacheDemand(s, db);
      ks.AdoptCache(s, db, /*take=*/false);
      if (Status st = ks.AdoptFsync(*slot); !st.ok()) {
        state.write_failures.Record(*slot, st);
        continue;
      }
      // Through the ring: a synchronous commit waits for the log's write in flight and does a
      // rotation's syncs in place.
      (*slot)->CommitThen([this, committed = *slot](const Status& st) {
        if (!st.ok()) server_->state().write_failures.Record(committed, st);
      });
      if ((*slot)->flush_due()) NoteFlushDue(*slot);
    }
  }
}

void Worker::TryRecover(slot::Slot* slot) {
  const Status failure = slot->failure();
  if (!slot->Recover().ok()) return;  // the fault lasts (or I/O is in flight): next second
  // What the slot took and did not acknowledge went with its old state: each writer still
  // waiting learns it from this record (before it runs), whichever commit it waits for.
  server_->state().write_failures.Record(slot, failure);
}

}  // namespace slotkv::net
