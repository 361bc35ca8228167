#include "net/remote_batch.h"

#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "core/command/errors.h"
#include "core/command/execute.h"
#include "net/connection.h"
#include "net/server.h"
#include "net/worker.h"

namespace slotkv::net {

using command::CommandSpec;

bool Parkable(const CommandSpec& spec) {
  return spec.run != nullptr && (spec.flags & command::kReadOnly) &&
         !(spec.flags & command::kWrite) && spec.first_key > 0;
}

void PrefetchItems(command::ServerState& state, uint32_t db, const RemoteItem* begin,
                   const RemoteItem* end) {
  std::vector<command::Keyspace::KeyRef> keys;
  keys.reserve(static_cast<size_t>(end - begin));
  for (const RemoteItem* item = begin; item != end; ++item) {
    if (item->done) continue;
    keys.push_back({item->slot, item->args[static_cast<size_t>(item->spec->first_key)],
                    (item->spec->flags & command::kWrite) != 0});
  }
  state.keyspace->Prefetch(db, keys);
}

bool RunRead(command::ServerState& state, const CommandSpec& spec, std::vector<std::string>& args,
             uint32_t slot, uint32_t db, int protocol, const std::string& addr,
             const std::string& name, int* tries, std::string* reply,
             std::vector<BlockedRead>* blocked) {
  if (*tries >= kNoWaitTries) {
    *reply = command::Execute(state, spec, args, slot, db, protocol, addr, name, nullptr);
    return true;
  }
  if (command::TryExecute(state, spec, args, slot, db, protocol, addr, name, reply, blocked)) {
    return true;
  }
  ++*tries;
  return false;
}

bool SendNow(int fd, std::string* bytes, command::WorkerStats& stats) {
  const ssize_t n = ::send(fd, bytes->data(), bytes->size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n > 0) {
    command::WorkerStats::Add(stats.net_output_bytes, static_cast<uint64_t>(n));
    command::WorkerStats::Add(stats.writes_processed);
    bytes->erase(0, static_cast<size_t>(n));
  }
  return bytes->empty();
}

namespace {

void DriveBatches(Server* server, uint64_t client);

// Drives the client's batches on worker w in a handler of their own, behind what is ready there.
void PostDrive(Server* server, int w, uint64_t client) {
  server->Post(w, [server, client] { DriveBatches(server, client); });
}

// Runs one item of a batch now, whatever holds its slot: it is its turn (SlotLocks::Defer).
void RunItemInTurn(Server* server, const std::shared_ptr<RemoteBatch>& batch, size_t i) {
  RemoteItem& item = batch->items[i];
  item.trace.mark = server->state().write_failures.Mark();
  item.trace.client = batch->conn->id();
  item.reply = command::Execute(server->state(), *item.spec, item.args, item.slot, batch->db,
                                batch->protocol, batch->conn->addr(), batch->client_name,
                                &item.trace);
  item.done = true;
  batch->unsent_bytes += item.reply.size();
  PostDrive(server, CurrentWorker(), batch->conn->id());
}

enum class Step { kDone, kFetch, kDeferred, kPart, kTurnOver };

// Items of a batch StepBatch prefetches before it runs them.
constexpr size_t kPrefetchItems = 32;

// Reply bytes a batch may hold on its owner before what it has goes home (kPart): a client that
// pipelines 1000 GETs of a 512 MB value to another worker's slot must not make the owner build
// 512 GB of replies. The connection pauses at the same size of unsent replies.
constexpr size_t kBatchReplyBytes = kPauseOutputBytes;

// Runs the batch's items from the first not yet run. A read that misses the page cache does
// not wait: the reads after it (up to the next command that is not a read) still run, and
// their missed regions join *blocked: kFetch then, and the batch resumes after the fetch. An
// item whose slot a transaction holds is deferred behind it (kDeferred): its turn runs it and
// resumes the batch. When the turn is over, the rest waits for the next (kTurnOver), and what
// ran goes home first.
Step StepBatch(Server* server, Worker& worker, const std::shared_ptr<RemoteBatch>& shared,
               Turn& turn, std::vector<BlockedRead>* blocked) {
  command::ServerState& state = server->state();
  txn::SlotLocks& locks = state.keyspace->locks();
  RemoteBatch& batch = *shared;
  bool waiting = false;
  const RemoteItem* unsent = batch.items.data() + batch.sent;
  PrefetchItems(state, batch.db, unsent,
                unsent + std::min(batch.items.size() - batch.sent, kPrefetchItems));
  for (size_t i = 0; i < batch.items.size(); ++i) {
    RemoteItem& item = batch.items[i];
    if (item.done) continue;
    if (batch.abandoned.load(std::memory_order_relaxed)) {
      item.done = true;  // its client is gone: dropped, as Redis drops a closed client's input
      continue;
    }
    if (!waiting && batch.unsent_bytes >= kBatchReplyBytes) return Step::kPart;
    if (!waiting && turn.over()) return Step::kTurnOver;
    const bool parkable = Parkable(*item.spec);
    if (waiting && !parkable) break;
    const std::string_view key = item.args[static_cast<size_t>(item.spec->first_key)];
    if (!locks.Free(item.slot, key)) {
      if (waiting) break;  // after the fetch
      locks.Defer(item.slot, &key, [server, shared, i] { RunItemInTurn(server, shared, i); });
      return Step::kDeferred;
    }
    if (parkable && worker.async_reads()) {
      if (!RunRead(state, *item.spec, item.args, item.slot, batch.db, batch.protocol,
                   batch.conn->addr(), batch.client_name, &item.tries, &item.reply, blocked)) {
        waiting = true;
        continue;
      }
    } else {
      item.trace.mark = state.write_failures.Mark();
      item.trace.client = batch.conn->id();
      item.reply = command::Execute(state, *item.spec, item.args, item.slot, batch.db,
                                    batch.protocol, batch.conn->addr(), batch.client_name,
                                    &item.trace);
    }
    item.done = true;
    batch.unsent_bytes += item.reply.size();
  }
  return waiting ? Step::kFetch : Step::kDone;
}

// Sends the reply of a batch of one request to its client from here, when its home armed that
// (DirectReply) and the reply is within the client's output limits; true when all of it went.
// What a short write sent is cut from the reply, whose rest goes home.
bool SendDirect(Server* server, RemoteBatch& batch) {
  std::string& reply = batch.items.front().reply;
  const auto size = static_cast<int64_t>(reply.size());
  const conf::OutputLimit limit = server->state().normal_output_limit.Get();
  if ((limit.hard > 0 && size > limit.hard) || (limit.soft > 0 && size > limit.soft)) return false;
  std::lock_guard<std::mutex> lock(batch.direct->mu);
  if (!batch.direct->armed) return false;
  command::WorkerStats& stats = *(*server->state().stats)[static_cast<size_t>(CurrentWorker())];
  if (!SendNow(batch.direct->fd, &reply, stats)) return false;
  command::WorkerStats::Add(stats.direct_replies);
  batch.direct->written = true;
  return true;
}

// The replies of the items run since the last part go home (all that are left when last):
// those of writes once the owner's group commit is done (a write whose slot failed replies
// the failure); those of reads at once, as a local read's reply is (waiting for the commit
// handler was a second trip through the owner's queue: at 50M keys, remote GETs that read no
// disk waited 0.9 ms (median) against 13 us for local ones). A part that is not the last is
// followed by the rest once the client has taken it (Connection::OnRemoteItems resumes it).
void SendItems(Server* server, const std::shared_ptr<RemoteBatch>& batch, bool last) {
  std::vector<RemoteItem>& items = batch->items;
  size_t end = batch->sent;
  while (end < items.size() && items[end].done) ++end;
  const size_t begin = std::exchange(batch->sent, end);
  batch->unsent_bytes = 0;
  auto deliver = [batch, begin, end, last] {
    batch->conn->OnRemoteItems(batch, begin, end, last);
  };
  const bool direct = last && batch->direct != nullptr;  // armed: the batch has one item
  const bool writes = std::any_of(items.begin() + static_cast<ptrdiff_t>(begin),
                                  items.begin() + static_cast<ptrdiff_t>(end),
                                  [](const RemoteItem& i) {
                                    return (i.spec->flags & command::kWrite) != 0;
                                  });
  if (!writes) {
    if (direct && SendDirect(server, *batch)) return;
    server->Post(batch->home, std::move(deliver));
    return;
  }
  server->worker(CurrentWorker()).AfterCommit([server, batch, begin, end, direct, deliver] {
    for (size_t i = begin; i < end; ++i) {
      RemoteItem& item = batch->items[i];
      Status st = server->state().write_failures.Outcome(item.trace);
      if (!st.ok()) item.reply = command::ErrorLine(command::StatusError(st));
    }
    if (direct && SendDirect(server, *batch)) return;
    server->Post(batch->home, deliver);
  });
}

// Runs the queued batches of one client on this owner, in order, until one waits for reads or
// the turn is over (kTurnUs: 1000 pipelined ZADDs to a 20k-member sorted set made another
// client's GET of that slot wait 0.43 s; the rest runs in a handler posted behind what is
// ready). A coroutine command of the client (DEL, MSET) hops here only once these batches
// are answered (Connection::MustWait): a pipelined SET must not run after the DEL that
// followed it (test_durability's gone:* keys).
void DriveBatches(Server* server, uint64_t client) {
  Worker& worker = server->worker(CurrentWorker());
  if (worker.CommitOverdue()) {
    // 100 HSETs of 1000 fields each, pipelined to another worker's key, came as 100 batches
    // ahead of the commit their first reply waited for: every reply went home after the last.
    PostDrive(server, CurrentWorker(), client);
    return;
  }
  auto& queues = worker.remote_queues();
  Turn turn;
  for (;;) {
    auto it = queues.find(client);  // found again each time: the map may change meanwhile
    if (it->second.empty()) {
      queues.erase(it);
      return;
    }
    std::shared_ptr<RemoteBatch> batch = it->second.front();
    std::vector<BlockedRead> blocked;
    const Step step = StepBatch(server, worker, batch, turn, &blocked);
    if (step == Step::kDeferred) return;  // RunItemInTurn comes back here
    if (step == Step::kTurnOver) {
      // What ran in the turn goes home now, so its client reads replies while the rest runs
      // (ResumeBatch comes back here): 200 pipelined BITCOUNTs of a 512 kB value, one batch,
      // were answered all at once.
      const size_t sent = batch->sent;
      if (sent < batch->items.size() && batch->items[sent].done) {
        SendItems(server, batch, /*last=*/false);
      } else {
        PostDrive(server, CurrentWorker(), client);
      }
      return;
    }
    if (step == Step::kFetch) {
      worker.Fetch(std::move(blocked), [server, client] { DriveBatches(server, client); });
      return;
    }
    if (step == Step::kPart) {
      SendItems(server, batch, /*last=*/false);  // ResumeBatch comes back here
      return;
    }
    SendItems(server, batch, /*last=*/true);
    queues.find(client)->second.pop_front();
  }
}

}  // namespace

void ResumeBatch(Server* server, const std::shared_ptr<RemoteBatch>& batch) {
  PostDrive(server, batch->owner, batch->conn->id());
}

void RunBatch(Server* server, const std::shared_ptr<RemoteBatch>& batch) {
  const uint64_t client = batch->conn->id();
  auto& queue = server->worker(CurrentWorker()).remote_queues()[client];
  queue.push_back(batch);
  if (queue.size() == 1) DriveBatches(server, client);
}

// ---- the home side: Connection's part ------------------------------------------------------

void Connection::QueueRemote(const CommandSpec& spec, uint32_t slot, int owner, uint64_t seq) {
  std::shared_ptr<RemoteBatch>& batch = batches_[static_cast<size_t>(owner)];
  if (batch && (batch->db != client_.db || batch->protocol != client_.protocol ||
                batch->client_name != client_.name)) {
    PostBatches();
  }
  if (!batch) {
    batch = std::make_shared<RemoteBatch>();
    batch->conn = shared_from_this();
    batch->home = worker_->index();
    batch->owner = owner;
    batch->db = client_.db;
    batch->protocol = client_.protocol;
    batch->client_name = client_.name;
  }
  batch->items.push_back({&spec, std::move(args_), slot, seq, {}, {}});
  args_ = {};
}

bool Connection::MayReplyDirect() const {
  // One request pending (the batch's only item), and nothing read that waits to be parsed: the
  // client's next bytes are what the home waits for.
  return pending_.size() == 1 && !pending_.front().quiet && in_.empty() &&
         remote_inflight_ == 0 && !writing_ &&
         out_next_.empty() && deferred_.empty() && local_writes_.empty() && async_ == nullptr &&
         !held_ && !pause_held_ && parked_.empty() && to_fetch_.empty() && !fetching_ &&
         !fetched_ && parts_taken_.empty() && !close_after_flush_ && !flush_posted_ && !closed_ &&
         !client_.subscribed() && !feed_unsent_;
}

void Connection::SettleDirect() {
  if (!direct_armed_) return;
  direct_armed_ = false;
  bool written = false;
  {
    std::lock_guard<std::mutex> lock(direct_->mu);
    direct_->armed = false;
    written = std::exchange(direct_->written, false);
  }
  if (!written) return;  // its reply comes home (OnRemoteItems)
  // Answered. Nothing joined it while armed (every handler settles first): it is the only
  // request pending.
  --remote_inflight_;
  pending_.pop_front();
  ++pending_base_;
}

void Connection::PostBatches() {
  const bool direct = MayReplyDirect();
  for (size_t w = 0; w < batches_.size(); ++w) {
    if (!batches_[w]) continue;
    std::shared_ptr<RemoteBatch> batch = std::move(batches_[w]);
    batches_[w] = nullptr;
    if (direct && static_cast<int>(w) != worker_->index()) {
      if (!direct_) direct_ = std::make_shared<DirectReply>(fd_);
      std::lock_guard<std::mutex> lock(direct_->mu);
      direct_->armed = true;
      direct_armed_ = true;
      batch->direct = direct_;
    }
    ++remote_inflight_;
    if (static_cast<int>(w) == worker_->index()) ++self_batches_;
    Server* server = server_;
    server_->Post(static_cast<int>(w), [server, batch] { RunBatch(server, batch); });
  }
}

void Connection::OnRemoteItems(const std::shared_ptr<RemoteBatch>& batch, size_t begin,
                               size_t end, bool last) {
  SettleDirect();
  if (last) {
    --remote_inflight_;
    if (batch->owner == worker_->index()) --self_batches_;
  } else {
    parts_taken_.push_back(batch);
  }
  if (closed_) {
    ResumeParts();
    return;
  }
  for (size_t i = begin; i < end; ++i) {
    Complete(batch->items[i].seq, std::move(batch->items[i].reply));
  }
  FlushReplies();
  Process();
}

void Connection::ResumeParts() {
  if (parts_taken_.empty()) return;
  // What can be sent: replies waiting behind a request still running (maybe the rest of one of
  // these batches) cannot, and waiting for them would wait forever.
  if (!closed_ && out_.size() + out_next_.size() >= kPauseOutputBytes) return;
  for (const auto& batch : parts_taken_) {
    if (closed_) batch->abandoned = true;
    ResumeBatch(server_, batch);
  }
  parts_taken_.clear();
}

}  // namespace slotkv::net
