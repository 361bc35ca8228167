#include "repl/master.h"

#include <algorithm>
#include <coroutine>
#include <cstdio>
#include <utility>

#include "core/base/hash.h"
#include "core/command/args.h"
#include "repl/frames.h"
#include "slot/dictionaries.h"
#include "wal/record.h"

namespace slotkv::repl {

using command::AsyncContext;
using command::Waiter;

struct Master::Stream {
  Backlog backlog;
  bool recording = false;   // the backlog holds this stream's frames since it started
  std::vector<std::shared_ptr<Feed>> feeds;  // attached: they get every frame
  uint64_t generation = 0;  // emptied so many times (a full sync restarts its scan)
  bool suspended = false;   // this node's own full sync of the stream is running
};

struct Master::FullSync {
  std::shared_ptr<Feed> feed;
  uint32_t s = 0;
  uint32_t db = 0;
  uint64_t cursor = 0;
  uint64_t generation = 0;
};

struct Master::WaitCall {
  std::shared_ptr<Waiter> waiter;
  std::vector<uint64_t> target;
  int64_t replicas = 0;
  int home = 0;
};

Feed::Feed(uint64_t client, int worker, size_t streams, int workers)
    : client(client),
      worker(worker),
      unsent(std::make_shared<std::atomic<int64_t>>(0)),
      acked(new std::atomic<uint64_t>[streams]()),
      dicts_sent(new uint32_t[static_cast<size_t>(workers)]()) {}

Master::Master(command::ServerState* state)
    : state_(state),
      databases_(state->keyspace->databases()),
      offsets_(new std::atomic<uint64_t>[size_t{state->keyspace->slots()} *
                                          state->keyspace->databases()]()),
      outboxes_(static_cast<size_t>(state->executor->workers())),
      replid_(RandomHexId()) {
  command::Keyspace& ks = *state->keyspace;
  sync_limit_ = state->config->GetInt("repl-sync-max-bytes-per-sec");
  const auto capacity = static_cast<size_t>(state->config->GetInt("repl-backlog-size"));
  for (uint32_t s = 0; s < ks.slots(); ++s) {
    for (uint32_t db = 0; db < databases_; ++db) {
      const uint64_t offset = ks.StreamOffset(s, db);
      offsets_[Index(s, db)] = offset;
      streams_.push_back(std::make_unique<Stream>());
      streams_.back()->backlog = Backlog(offset, capacity);
    }
  }
}

Master::~Master() = default;

bool Master::Record(size_t i) {
  Stream& st = *streams_[i];
  if (st.recording) return true;
  if (!recording_.load(std::memory_order_relaxed)) return false;
  st.backlog.Reset(offsets_[i].load());  // history starts now: nothing before it is covered
  st.recording = true;
  return true;
}

void Master::OnUnits(uint32_t s, uint32_t db, std::string units, uint64_t seq) {
  const size_t i = Index(s, db);
  const bool record = Record(i);
  offsets_[i] = seq;
  Stream& st = *streams_[i];
  if (st.suspended || !record) return;
  std::string frame = UnitFrame(s, db, seq, units);
  std::erase_if(st.feeds, [](const auto& f) { return f->closed.load(); });
  for (const auto& feed : st.feeds) Send(feed, frame);
  const size_t before = st.backlog.bytes();
  st.backlog.Append(seq, std::move(frame));
  backlog_bytes_ += st.backlog.bytes() - before;
}

void Master::OnClear(uint32_t s, uint32_t db, uint64_t seq) {
  const size_t i = Index(s, db);
  const bool record = Record(i);
  offsets_[i] = seq;
  Stream& st = *streams_[i];
  ++st.generation;
  if (st.suspended || !record) return;
  std::string frame = StreamFrame("CLEAR", s, db, seq);
  std::erase_if(st.feeds, [](const auto& f) { return f->closed.load(); });
  for (const auto& feed : st.feeds) Send(feed, frame);
  const size_t before = st.backlog.bytes();
  st.backlog.Append(seq, std::move(frame));
  backlog_bytes_ += st.backlog.bytes() - before;
}

void Master::Sync(AsyncContext& ctx, uint64_t epoch) {
  command::ServerState& server = ctx.server;
  const std::vector<std::string>& a = ctx.args;
  std::optional<int64_t> port = ParseInt64(a[1]);
  std::optional<int64_t> slots = ParseInt64(a[3]);
  std::optional<int64_t> dbs = ParseInt64(a[4]);
  if (!port || !slots || !dbs) {
    ctx.reply.Error(command::kErrSyntax);
    return;
  }
  if (*slots != server.keyspace->slots() || *dbs != databases_) {
    ctx.reply.Error("ERR the replica has " + a[3] + " slots and " + a[4] +
                    " databases, this master " + std::to_string(server.keyspace->slots()) +
                    " and " + std::to_string(databases_) + ": they must be equal");
    return;
  }
  std::optional<std::vector<StreamOffset>> listed =
      ParseOffsets(a, 7, server.keyspace->slots(), databases_);
  if (!listed) {
    ctx.reply.Error(command::kErrSyntax);
    return;
  }
  // A stream the replica leaves out is in a full sync it did not finish: it syncs in full
  // again, whatever the backlog holds.
  std::vector<std::optional<uint64_t>> from(streams_.size());
  for (const StreamOffset& o : *listed) from[Index(o.slot, o.db)] = o.offset;
  const int home = ctx.home;
  auto feed = std::make_shared<Feed>(ctx.client->id, home, streams_.size(),
                                     server.executor->workers());
  const std::string& addr = ctx.client->addr;
  feed->ip = a[2] != "-" ? a[2] : addr.substr(0, addr.rfind(':'));
  feed->port = static_cast<int>(*port);
  feed->waiting = static_cast<int>(streams_.size());
  feed->last_ack_ms = server.keyspace->clock()->NowMs();
  for (size_t i = 0; i < streams_.size(); ++i) feed->acked[i] = from[i].value_or(0);
  const bool made = server.clients->MakeFeedLocal(ctx.client->id, feed->unsent, [this, feed] {
    feed->closed = true;
    Forget(feed.get());
  });
  if (!made) return;
  {
    std::lock_guard lock(mu_);
    feeds_.push_back(feed);
  }
  recording_ = true;
  const std::string replid = a[6];
  std::fprintf(stderr, "repl: replica %s:%d starts its link (replid %s)\n", feed->ip.c_str(),
               feed->port, replid.c_str());
  ctx.reply.buffer() =
      EncodeFrame({"HELLO", this->replid(), a[3], a[4], std::to_string(epoch)}) +
      DbMapFrame(server.keyspace->db_map());
  command::Executor& ex = *server.executor;
  for (int w = 0; w < ex.workers(); ++w) {
    ex.Post(w, [this, feed, w, replid, from] {
      command::Keyspace& ks = *state_->keyspace;
      const auto workers = static_cast<uint32_t>(state_->executor->workers());
      for (uint32_t s = static_cast<uint32_t>(w); s < ks.slots(); s += workers) {
        for (uint32_t db = 0; db < databases_; ++db) {
          Attach(feed, s, db, replid, from[Index(s, db)]);
        }
      }
    });
  }
}

void Master::Attach(const std::shared_ptr<Feed>& feed, uint32_t s, uint32_t db,
                    const std::string& replid, std::optional<uint64_t> offset) {
  if (feed->closed) return;
  const size_t i = Index(s, db);
  Record(i);
  Stream& st = *streams_[i];
  st.feeds.push_back(feed);
  if (offset && Continues(replid, i, *offset) && st.backlog.Covers(*offset)) {
    Send(feed, StreamFrame("CONT", s, db, *offset));
    st.backlog.ForEachAfter(*offset, [&](std::string_view f) { Send(feed, std::string(f)); });
    --feed->waiting;
    return;
  }
  Send(feed, StreamFrame("FULL", s, db));
  auto job = std::make_shared<FullSync>();
  job->feed = feed;
  job->s = s;
  job->db = db;
  job->generation = st.generation;
  QueueSync(job);
}

void Master::QueueSync(const std::shared_ptr<FullSync>& job) {
  const int w = state_->executor->current();
  Outbox& box = outboxes_[static_cast<size_t>(w)];
  box.syncs.push_back(job);
  if (box.sync_posted) return;
  box.sync_posted = true;
  state_->executor->Post(w, [this, w] { RunSyncs(w); });
}

void Master::RunSyncs(int w) {
  Outbox& box = outboxes_[static_cast<size_t>(w)];
  box.sync_posted = false;
  if (box.syncs.empty()) return;
  std::shared_ptr<FullSync> job = std::move(box.syncs.front());
  box.syncs.pop_front();
  const int64_t next = Step(job);
  if (next == 0) box.syncs.push_back(std::move(job));
  if (next > 0) state_->executor->RunAfter(next, [this, job] { QueueSync(job); });
  if (box.syncs.empty() || box.sync_posted) return;
  box.sync_posted = true;
  state_->executor->Post(w, [this, w] { RunSyncs(w); });
}

int64_t Master::Step(const std::shared_ptr<FullSync>& job) {
  constexpr size_t kKeysPerStep = 128;
  Feed& feed = *job->feed;
  if (feed.closed) return -1;
  command::Executor& ex = *state_->executor;
  const int64_t wait_ms = feed.Outstanding() > kFeedWindow
                              ? 2
                              : ThrottleMs(state_->keyspace->clock()->NowMs());
  if (wait_ms > 0) return wait_ms;
  const size_t i = Index(job->s, job->db);
  Stream& st = *streams_[i];
  if (job->generation != st.generation) {  // emptied meanwhile: CLEAR went out, start over
    job->generation = st.generation;
    job->cursor = 0;
  }
  command::Keyspace& ks = *state_->keyspace;
  Result<slot::Slot*> slot = ks.Get(job->s, ks.LogicalDb(job->s, job->db), false);
  Status status = slot.status();
  uint64_t next = 0;
  if (status.ok() && *slot != nullptr) {
    // Values as stored (compressed ones stay so: Send ships their dictionaries first).
    Result<slot::StoredScan> scan = (*slot)->ScanStored(job->cursor, kKeysPerStep);
    status = scan.status();
    if (status.ok()) {
      next = scan->next_cursor;
      std::string records;
      for (slot::StoredItem& item : scan->items) {
        wal::Record r;
        r.kind = wal::RecordKind::kPut;
        r.seq = item.seq;
        r.type_tag = item.type_tag;
        r.expire_at_ms = item.expire_at_ms;
        r.key = std::move(item.key);
        r.value = std::move(item.value);
        wal::EncodeRecord(r, &records);
      }
      outboxes_[static_cast<size_t>(ex.current())].sync_bytes +=
          static_cast<int64_t>(records.size());
      if (!records.empty()) Send(job->feed, DataFrame(job->s, job->db, records));
    }
  }
  if (!status.ok()) {
    std::fprintf(stderr, "repl: full sync of db %u slot %u to %s:%d failed: %s\n", job->db,
                 job->s, feed.ip.c_str(), feed.port, status.ToString().c_str());
    Close(feed);
    return -1;
  }
  if (next == 0) {
    Send(job->feed, StreamFrame("SYNCED", job->s, job->db, offsets_[i].load()));
    --feed.waiting;
    return -1;
  }
  job->cursor = next;
  return 0;
}

int64_t Master::ThrottleMs(int64_t now_ms) {
  const int64_t limit = sync_limit_.load();
  if (limit <= 0) return 0;
  Outbox& box = outboxes_[static_cast<size_t>(state_->executor->current())];
  if (now_ms - box.second_ms >= 1000) {
    box.second_ms = now_ms;
    box.sync_bytes = 0;
  }
  // Each worker takes its share of the limit.
  const int64_t share = std::max<int64_t>(1, limit / state_->executor->workers());
  return box.sync_bytes < share ? 0 : box.second_ms + 1000 - now_ms;
}

void Master::Send(const std::shared_ptr<Feed>& feed, std::string frame) {
  const int w = state_->executor->current();
  Outbox& box = outboxes_[static_cast<size_t>(w)];
  if (box.frames.empty() || box.frames.back().first != feed) box.frames.emplace_back(feed, "");
  std::string& out = box.frames.back().second;
  AppendDicts(*feed, w, &out);
  if (out.empty()) {
    out = std::move(frame);
  } else {
    out += frame;
  }
  if (box.posted) return;
  box.posted = true;
  state_->executor->Post(w, [this, w] { FlushOutbox(w); });
}

void Master::AppendDicts(Feed& feed, int w, std::string* out) {
  slot::Dictionaries* dicts = state_->keyspace->dictionaries();
  if (dicts == nullptr) return;
  uint32_t& sent = feed.dicts_sent[static_cast<size_t>(w)];
  for (const uint32_t published = dicts->published(); sent < published; ++sent) {
    const uint32_t id = dicts->PublishedId(sent);
    std::string_view group;
    std::string_view bytes;
    if (!dicts->Export(id, &group, &bytes).ok()) continue;  // published: never happens
    *out += EncodeFrame({"DICT", std::to_string(id), group, bytes});
  }
}

void Master::FlushOutbox(int w) {
  Outbox& box = outboxes_[static_cast<size_t>(w)];
  box.posted = false;
  auto frames = std::move(box.frames);
  box.frames.clear();
  for (auto& [feed, bytes] : frames) {
    if (feed->closed) continue;
    const auto n = static_cast<int64_t>(bytes.size());
    feed->queued += n;
    state_->executor->Post(feed->worker, [this, feed, n, bytes = std::move(bytes)]() mutable {
      feed->queued -= n;
      if (!feed->closed) state_->clients->PushLocal(feed->client, std::move(bytes));
    });
  }
}

void Master::Ack(AsyncContext& ctx) {
  std::shared_ptr<Feed> feed;
  {
    std::lock_guard lock(mu_);
    for (const auto& f : feeds_) {
      if (f->client == ctx.client->id) feed = f;
    }
  }
  if (!feed) return;  // not a replica's link: nothing to acknowledge
  std::optional<std::vector<StreamOffset>> acked =
      ParseOffsets(ctx.args, 1, state_->keyspace->slots(), databases_);
  if (!acked) return;  // malformed: not one of ours
  for (const StreamOffset& o : *acked) feed->acked[Index(o.slot, o.db)] = o.offset;
  feed->last_ack_ms = ctx.server.keyspace->clock()->NowMs();
  CheckWaits();
}

int Master::CountAcked(const std::vector<uint64_t>& target) const {
  int n = 0;
  for (const auto& f : feeds_) {
    if (f->closed || !f->online()) continue;
    bool all = true;
    for (size_t i = 0; i < target.size() && all; ++i) all = f->acked[i].load() >= target[i];
    n += all ? 1 : 0;
  }
  return n;
}

void Master::CheckWaits() {
  std::lock_guard lock(mu_);
  for (const auto& call : waits_) {
    if (CountAcked(call->target) < call->replicas) continue;
    std::shared_ptr<Waiter> waiter = call->waiter;
    if (waiter->RequestStop(Waiter::Stop::kTimeout)) {
      state_->executor->Post(call->home, [waiter] { waiter->handle().resume(); });
    }
  }
}

void Master::AskAcks() {
  const std::vector<std::shared_ptr<Feed>> feeds = LiveFeeds();
  command::Executor& ex = *state_->executor;
  // From every worker, behind the units it pushed for the writes made so far (a unit waits in
  // its worker's outbox until the end of the turn): a replica sees the GETACKs after them.
  for (int w = 0; w < ex.workers(); ++w) {
    ex.Post(w, [this, feeds] {
      for (const auto& f : feeds) Send(f, EncodeFrame({"GETACK"}));
    });
  }
}

namespace {

// co_await: resumes on the current worker after its next group commit.
struct AfterCommit {
  command::Executor* executor;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> task) {
    executor->AfterCommit([task] { task.resume(); });
  }
  void await_resume() const noexcept {}
};

}  // namespace

command::Task Master::Wait(AsyncContext& ctx, int64_t replicas, int64_t timeout_ms) {
  if (!ctx.no_block) {
    // The caller's writes before WAIT may still be on their way (a pipelined SET posted to
    // its owner, or waiting for a group commit): each worker runs what this client posted
    // before (posts are FIFO) and commits it, so the target includes them.
    command::Executor& ex = *ctx.server.executor;
    for (int w = 0; w < ex.workers(); ++w) {
      co_await ctx.ToWorker(w);
      co_await AfterCommit{&ex};
    }
    co_await ctx.ToHome();
  }
  auto call = std::make_shared<WaitCall>();
  call->target.resize(streams_.size());
  for (size_t i = 0; i < streams_.size(); ++i) call->target[i] = offsets_[i].load();
  call->replicas = replicas;
  call->home = ctx.home;
  int acked = 0;
  {
    std::lock_guard lock(mu_);
    acked = CountAcked(call->target);
  }
  if (acked >= replicas || ctx.no_block) {
    ctx.reply.Integer(acked);
    co_return;
  }
  command::Executor& ex = *ctx.server.executor;
  AskAcks();
  call->waiter = std::make_shared<Waiter>(ValueType::kString, ctx.db);
  ctx.waiter = call->waiter;
  const uint32_t gen = call->waiter->NewRound();
  {
    std::lock_guard lock(mu_);
    waits_.push_back(call);
  }
  uint64_t timer = 0;
  if (timeout_ms > 0) {
    timer = ex.RunAfter(timeout_ms, [waiter = call->waiter] {
      if (waiter->RequestStop(Waiter::Stop::kTimeout)) waiter->handle().resume();
    });
  }
  call->waiter->set_blocked(true);
  CheckWaits();  // acknowledgements that came in between
  co_await command::ParkWaiter{call->waiter.get(), gen};
  call->waiter->set_blocked(false);
  if (timer != 0) ex.CancelTimer(timer);
  {
    std::lock_guard lock(mu_);
    std::erase(waits_, call);
    acked = CountAcked(call->target);
  }
  if (call->waiter->stop() != Waiter::Stop::kCancelled) ctx.reply.Integer(acked);
}

void Master::Tick(int64_t timeout_s, bool ping) {
  const std::vector<std::shared_ptr<Feed>> feeds = LiveFeeds();
  const int64_t now = state_->keyspace->clock()->NowMs();
  for (const auto& f : feeds) {
    if (now - f->last_ack_ms.load() > timeout_s * 1000) {
      std::fprintf(stderr, "repl: replica %s:%d silent for %llds: closing its link\n",
                   f->ip.c_str(), f->port, static_cast<long long>(timeout_s));
      Close(*f);
    } else if (ping) {
      Send(f, EncodeFrame({"PING"}));
    }
  }
  sync_limit_ = state_->config->GetInt("repl-sync-max-bytes-per-sec");
  const auto capacity = static_cast<size_t>(state_->config->GetInt("repl-backlog-size"));
  command::Executor& ex = *state_->executor;
  for (int w = 0; w < ex.workers(); ++w) {
    ex.Post(w, [this, w, capacity] {
      const auto workers = static_cast<size_t>(state_->executor->workers());
      // Over the shared budget: every stream keeps its share of it, in proportion to what it
      // holds (a busy stream keeps the most).
      const uint64_t total = backlog_bytes_.load();
      const double keep = total > capacity ? static_cast<double>(capacity) / total : 1.0;
      for (size_t i = 0; i < streams_.size(); ++i) {
        if ((i / databases_) % workers != static_cast<size_t>(w)) continue;
        Backlog& backlog = streams_[i]->backlog;
        backlog.set_capacity(capacity);
        if (keep >= 1.0) continue;
        const size_t before = backlog.bytes();
        backlog.TrimTo(static_cast<size_t>(static_cast<double>(before) * keep));
        backlog_bytes_ -= before - backlog.bytes();
      }
    });
  }
}

void Master::Publish(bool shard, std::string_view channel, std::string_view payload) {
  SendToAll([&] { return EncodeFrame({shard ? "SPUB" : "PUB", channel, payload}); });
}

void Master::SendDbMap(const std::vector<uint32_t>& map) {
  SendToAll([&] { return DbMapFrame(map); });
}

void Master::SendToAll(const std::function<std::string()>& frame) {
  const std::vector<std::shared_ptr<Feed>> feeds = LiveFeeds();
  if (feeds.empty()) return;
  const std::string encoded = frame();
  for (const auto& f : feeds) Send(f, encoded);
}

std::shared_ptr<Feed> Master::FindFeed(const std::string& ip, int port) const {
  std::lock_guard lock(mu_);
  for (const auto& f : feeds_) {
    if (!f->closed && f->ip == ip && f->port == port) return f;
  }
  return nullptr;
}

std::shared_ptr<Feed> Master::CaughtUp(const std::shared_ptr<Feed>& target) const {
  std::vector<uint64_t> now(streams_.size());
  for (size_t i = 0; i < now.size(); ++i) now[i] = offsets_[i].load();
  std::lock_guard lock(mu_);
  for (const auto& f : feeds_) {
    if (f->closed || !f->online() || (target && f != target)) continue;
    bool all = true;
    for (size_t i = 0; i < now.size() && all; ++i) all = f->acked[i].load() >= now[i];
    if (all) return f;
  }
  return nullptr;
}

void Master::Close(Feed& feed) {
  feed.closed = true;
  const uint64_t id = feed.client;
  state_->executor->Post(feed.worker, [this, id] {
    state_->clients->KillLocal(
        [id](const command::ClientInfo& c, const command::ClientState&) { return c.id == id; });
  });
}

std::vector<std::shared_ptr<Feed>> Master::LiveFeeds() const {
  std::lock_guard lock(mu_);
  return feeds_;
}

void Master::CloseFeeds(const Feed* except) {
  const std::vector<std::shared_ptr<Feed>> feeds = LiveFeeds();
  for (const auto& f : feeds) {
    if (f.get() == except) continue;
    Close(*f);
  }
}

void Master::Forget(const Feed* feed) {
  std::lock_guard lock(mu_);
  std::erase_if(feeds_, [feed](const auto& f) { return f.get() == feed; });
  std::fprintf(stderr, "repl: replica %s:%d link closed\n", feed->ip.c_str(), feed->port);
}

std::string Master::replid() const {
  std::lock_guard lock(mu_);
  return replid_;
}

std::string Master::replid2() const {
  std::lock_guard lock(mu_);
  return replid2_.empty() ? std::string(40, '0') : replid2_;
}

void Master::Promote(const std::string& new_id) {
  recording_ = true;
  std::lock_guard lock(mu_);
  replid2_ = replid_;
  second_offsets_.resize(streams_.size());
  for (size_t i = 0; i < streams_.size(); ++i) second_offsets_[i] = offsets_[i].load();
  replid_ = new_id;
}

void Master::Adopt(const std::string& id) {
  recording_ = true;  // a replica's history: its own replicas continue it after a promotion
  std::lock_guard lock(mu_);
  if (id == replid_) return;
  replid_ = id;
  replid2_.clear();
  second_offsets_.clear();
}

bool Master::Continues(const std::string& id, size_t stream, uint64_t offset) const {
  std::lock_guard lock(mu_);
  if (id == replid_) return true;
  return !replid2_.empty() && id == replid2_ && offset <= second_offsets_[stream];
}

void Master::Suspend(uint32_t s, uint32_t db) {
  recording_ = true;
  streams_[Index(s, db)]->suspended = true;
}

void Master::Resume(uint32_t s, uint32_t db, uint64_t offset) {
  Stream& st = *streams_[Index(s, db)];
  st.suspended = false;
  st.recording = true;
  const size_t before = st.backlog.bytes();
  st.backlog.Reset(offset);
  backlog_bytes_ -= before;
  offsets_[Index(s, db)] = offset;
}

void Master::ResumeSuspended() {
  command::Executor& ex = *state_->executor;
  for (int w = 0; w < ex.workers(); ++w) {
    ex.Post(w, [this, w] {
      command::Keyspace& ks = *state_->keyspace;
      const auto workers = static_cast<uint32_t>(state_->executor->workers());
      for (uint32_t s = static_cast<uint32_t>(w); s < ks.slots(); s += workers) {
        for (uint32_t db = 0; db < databases_; ++db) {
          const size_t i = Index(s, db);
          if (!streams_[i]->suspended) continue;
          std::vector<slot::Slot*>& dirty = (*state_->dirty)[static_cast<size_t>(w)];
          Status st = command::Store::OfStream(&ks, s, db, &dirty).AbortStaging();
          if (!st.ok()) {
            std::fprintf(stderr, "repl: db %u slot %u: dropping the cut-off sync: %s\n", db, s,
                         st.ToString().c_str());
          }
          Resume(s, db, offsets_[i].load());
        }
      }
    });
  }
}

uint64_t Master::offset() const {
  uint64_t sum = 0;
  for (size_t i = 0; i < streams_.size(); ++i) sum += offsets_[i].load();
  return sum;
}

bool Master::has_second() const {
  std::lock_guard lock(mu_);
  return !replid2_.empty();
}

uint64_t Master::second_offset() const {
  std::lock_guard lock(mu_);
  uint64_t sum = 0;
  for (uint64_t o : second_offsets_) sum += o;
  return sum + 1;
}

std::vector<FeedInfo> Master::Feeds() const {
  std::lock_guard lock(mu_);
  const int64_t now = state_->keyspace->clock()->NowMs();
  std::vector<FeedInfo> out;
  for (const auto& f : feeds_) {
    if (f->closed) continue;
    FeedInfo info;
    info.ip = f->ip;
    info.port = f->port;
    info.online = f->online();
    info.acked.resize(streams_.size());
    for (size_t i = 0; i < streams_.size(); ++i) {
      info.acked[i] = f->acked[i].load();
      info.offset += info.acked[i];
    }
    info.lag_s = std::max<int64_t>(0, (now - f->last_ack_ms.load()) / 1000);
    out.push_back(std::move(info));
  }
  return out;
}

int Master::GoodReplicas(int64_t max_lag_s) const {
  int n = 0;
  for (const FeedInfo& f : Feeds()) n += f.online && f.lag_s <= max_lag_s ? 1 : 0;
  return n;
}

}  // namespace slotkv::repl
