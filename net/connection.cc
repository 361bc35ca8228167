#include "net/connection.h"

#include "core/command/blocking.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <unistd.h>

#include "core/acl/users.h"
#include "core/base/buffer.h"
#include "core/command/args.h"
#include "core/command/dispatch.h"
#include "core/command/monitor.h"
#include "core/command/tracking.h"
#include "core/command/errors.h"
#include "core/command/execute.h"
#include "core/command/pubsub.h"
#include "net/remote_batch.h"
#include "net/server.h"
#include "net/worker.h"

namespace slotkv::net {

using command::CommandSpec;
using command::WorkerStats;

// A running coroutine command and its context.
struct AsyncCall {
  AsyncCall(std::vector<std::string> args, int protocol, command::ServerState* state,
            command::ClientState* client, int home)
      : ctx(std::move(args), protocol, state, client, home) {}
  command::AsyncContext ctx;
  command::Task task;
  const CommandSpec* spec = nullptr;
  uint64_t seq = 0;
  int64_t start_us = 0;
};

namespace {

// Requests of one client in flight (read, not yet answered) before it is read no more. Its
// requests for other workers' slots queue there ahead of everyone else's: during a
// `redis-cli --pipe` load of 10M keys, other clients' PINGs waited up to 390 ms with 10000 and
// 126 ms with 1000, at the same load rate (scripts/bench-scale.sh shows it: "PING during load").
// 300 cut the wait to ~20 ms at 3M keys but loaded 15% slower.
constexpr size_t kPauseRequests = 1000;
// Replies held back for a request in flight behind them (HoldReplies), at most, and how long.
constexpr size_t kHoldReplyBytes = 64 << 10;
constexpr int64_t kHoldReplyUs = kTurnUs;
constexpr size_t kPauseInputBytes = 1 << 20;

}  // namespace

Connection::Connection(Worker* worker, boost::asio::ip::tcp::socket socket, uint64_t id,
                       std::unique_ptr<MovedClient> moved)
    : worker_(worker), server_(worker->server()), socket_(std::move(socket)) {
  client_.id = id;
  // As Redis: a client that connected while no password was required stays authenticated
  // when CONFIG SET requirepass adds one.
  client_.authenticated = !server_->state().auth_required();
  client_.user = server_->state().users->Default();
  boost::system::error_code ec;
  auto remote = socket_.remote_endpoint(ec);
  if (!ec) {
    peer_ip_ = remote.address().to_string();
    addr_ = peer_ip_ + ":" + std::to_string(remote.port());
  }
  client_.addr = addr_;
  auto local = socket_.local_endpoint(ec);
  if (!ec) laddr_ = local.address().to_string() + ":" + std::to_string(local.port());
  fd_ = socket_.native_handle();
  socket_.set_option(boost::asio::ip::tcp::no_delay(true), ec);
  created_ms_ = server_->state().keyspace->clock()->NowMs();
  last_active_ms_ = created_ms_;
  batches_.resize(static_cast<size_t>(server_->workers()));
  if (moved) {
    moved_in_ = true;
    client_ = std::move(moved->client);
    created_ms_ = moved->created_ms;
    last_active_ms_ = moved->last_active_ms;
    last_command_ = std::move(moved->last_command);
    in_ = std::move(moved->input);
  }
}

Connection::~Connection() { CloseBlocked(to_fetch_); }

void Connection::Start() {
  // Protected mode (Redis's clientAcceptHandler): with no password, only 127.0.0.1 and ::1.
  command::ServerState& state = server_->state();
  if (!moved_in_ && state.protected_mode && !state.auth_required() && peer_ip_ != "127.0.0.1" &&
      peer_ip_ != "::1") {
    const uint64_t seq = AddPending();
    pending_.back().close_after = true;
    Complete(seq, command::ErrorLine(command::kErrProtectedMode));
    FlushReplies();
    return;
  }
  Process();
}

bool Connection::Paused() const {
  return async_ != nullptr || held_ || pause_held_ || ReadPaused();
}

// While a coroutine command runs (a blocking one may wait long) or a request is held behind
// parked reads, reading goes on so that a client leaving is noticed, up to kPauseInputBytes of
// requests held back.
bool Connection::ReadPaused() const {
  return pending_.size() >= kPauseRequests ||
         out_.size() + out_next_.size() + pending_bytes_ >= kPauseOutputBytes ||
         ((async_ != nullptr || held_ || pause_held_) &&
          in_.size() - in_pos_ >= kPauseInputBytes);
}

void Connection::Read() {
  reading_ = true;
  socket_.AsyncRead(
      read_buf_.data(), read_buf_.size(),
      [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
        self->reading_ = false;
        if (self->closed_) return;
        self->SettleDirect();
        if (ec || n == 0) {  // 0: the client left
          self->Close();
          return;
        }
        command::ServerState& state = self->server_->state();
        WorkerStats& stats = *(*state.stats)[self->worker_->index()];
        WorkerStats::Add(stats.net_input_bytes, n);
        WorkerStats::Add(stats.reads_processed);
        self->last_active_ms_ = state.keyspace->clock()->NowMs();
        if (self->Movable()) {
          self->MoveTo(self->move_to_, std::string(self->read_buf_.data(), n));
          return;
        }
        self->in_.append(self->read_buf_.data(), n);
        if (self->parser_.OverQueryLimit(self->in_.size() - self->in_pos_)) {
          self->Close();  // as Redis: a client past client-query-buffer-limit is closed
          return;
        }
        self->Process();
      });
}

void Connection::NotePlacement(int owner) {
  if (owner < 0 || owner == worker_->index()) {
    move_to_ = -1;
    move_streak_ = 0;
  } else if (owner == move_to_) {
    ++move_streak_;
  } else {
    move_to_ = owner;
    move_streak_ = 1;
  }
}

bool Connection::Movable() const {
  return move_streak_ >= kMoveAfter && !closed_ && pending_.empty() && !writing_ &&
         out_next_.empty() && in_.empty() && parser_.AtRequestStart() && remote_inflight_ == 0 &&
         parts_taken_.empty() && parked_.empty() && !fetching_ && !fetched_ &&
         to_fetch_.empty() && async_ == nullptr && !held_ && !pause_held_ && !turn_posted_ &&
         !flush_posted_ && !close_after_flush_ && local_writes_.empty() &&
         std::all_of(batches_.begin(), batches_.end(), [](const auto& b) { return !b; }) &&
         !client_.in_multi && !client_.watch && client_.watched.empty() &&
         !client_.subscribed() && !client_.replica && !feed_unsent_;
}

void Connection::MoveTo(int w, std::string input) {
  move_streak_ = 0;
  boost::system::error_code ec;
  const auto protocol = socket_.local_endpoint(ec).protocol();
  int fd = -1;
  if (!ec) fd = socket_.release(ec);
  if (ec) {
    Close();
    return;
  }
  Worker* target = &server_->worker(w);
  // Registered with the target's reactor here (as an accepted socket is); should the target
  // stop before it runs the post, the socket's destructor closes the descriptor.
  boost::asio::ip::tcp::socket socket(target->io());
  socket.assign(protocol, fd, ec);
  if (ec) {
    ::close(fd);
    Close();
    return;
  }
  auto moved = std::make_unique<MovedClient>();
  moved->client = std::move(client_);
  moved->created_ms = created_ms_;
  moved->last_active_ms = last_active_ms_;
  moved->last_command = std::move(last_command_);
  moved->input = std::move(input);
  const uint64_t id = moved->client.id;
  WorkerStats::Add((*server_->state().stats)[worker_->index()]->client_moves);
  closed_ = true;  // what still holds this object returns at once
  worker_->Forget(id);
  boost::asio::post(target->io(), [target, id, socket = std::move(socket),
                                   moved = std::move(moved)]() mutable {
    target->Adopt(std::move(socket), id, std::move(moved));
  });
}

void Connection::Process() {
  if (closed_) return;
  SettleDirect();
  RunParked();
  RunHeld();
  command::ServerState& state = server_->state();
  RespLimits limits = parser_.limits();
  limits.max_bulk_len = static_cast<uint64_t>(state.proto_max_bulk_len.load());
  limits.max_query_buffer = static_cast<uint64_t>(state.query_buffer_limit.load());
  parser_.set_limits(limits);
  parser_.set_authenticated(!state.auth_required() || client_.authenticated);
  Turn turn;
  turn.over();  // starts the turn: its clock read dates the requests read (Pending::read_us)
  bool turn_over = false;
  bool paused = false;
  deferring_ = true;
  while (!closed_ && !close_after_flush_) {
    if (Paused()) {
      paused = true;
      break;
    }
    size_t consumed = 0;
    RespParser::State st =
        parser_.Parse(std::string_view(in_).substr(in_pos_), &args_, &consumed);
    in_pos_ += consumed;
    if (st == RespParser::State::kNeedMore) break;
    if (st == RespParser::State::kError) {
      uint64_t seq = AddPending();
      pending_.back().close_after = true;
      Complete(seq, command::ErrorLine(parser_.error()));
      close_after_flush_ = true;
      break;
    }
    Dispatch();
    parser_.set_authenticated(!state.auth_required() || client_.authenticated);
    turn_over = turn.over();
    if (turn_over) break;
  }
  deferring_ = false;
  RunDeferred();
  if (in_pos_ == in_.size()) {
    in_.clear();
    in_pos_ = 0;
  } else if (in_pos_ > 0) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  ReleaseLargeBuffer(&in_);  // after a large request
  ResumeParts();
  PostBatches();
  CommitLocal();
  FetchParked();
  FlushReplies();
  // A pause on unsent replies that this write lifted (it sent them at once): what was read
  // goes on in a handler of its own, as after a write that completes later.
  const bool unpaused = paused && !in_.empty() && !closed_ && !Paused();
  if ((turn_over || unpaused) && !turn_posted_) {
    // The rest of what was read runs after what is ready meanwhile (kTurnUs); reading waits.
    turn_posted_ = true;
    worker_->server()->Post(worker_->index(), [self = shared_from_this()] {
      self->turn_posted_ = false;
      self->Process();
    });
  }
  if (!closed_ && !reading_ && !ReadPaused() && !close_after_flush_ && !turn_posted_) Read();
}

void Connection::FetchParked() {
  if (fetching_ || to_fetch_.empty()) return;
  fetching_ = true;
  worker_->Fetch(std::move(to_fetch_), [self = shared_from_this()] { self->OnFetched(); });
  to_fetch_.clear();
}

// The reads of the parked commands are in the page cache now (mostly): run them again, in
// order; those that miss again wait for another fetch, and after kNoWaitTries they wait for
// the disk.
void Connection::OnFetched() {
  fetching_ = false;
  if (closed_) return;
  fetched_ = true;
  Process();  // runs the parked reads first
}

void Connection::RunParked() {
  if (!fetched_ || closed_) return;
  command::ServerState& state = server_->state();
  std::vector<ParkedRead> still;
  txn::SlotLocks& locks = state.keyspace->locks();
  size_t made = 0;  // reply bytes made here
  size_t i = 0;
  for (; i < parked_.size(); ++i) {
    // 100 pipelined GETs of an 8 MB value that missed the page cache all ran here at once.
    if (i > 0 && out_.size() + out_next_.size() + made >= kPauseOutputBytes) break;
    ParkedRead& p = parked_[i];
    if (!locks.Free(p.slot, p.args[static_cast<size_t>(p.spec->first_key)])) {
      // A transaction took its slot meanwhile: it waits for its turn on the owner's path.
      args_ = std::move(p.args);
      QueueRemote(*p.spec, p.slot, worker_->index(), p.seq);
      continue;
    }
    std::string reply;
    if (!RunRead(state, *p.spec, p.args, p.slot, client_.db, client_.protocol, addr_,
                 client_.name, &p.tries, &reply, &to_fetch_)) {
      still.push_back(std::move(p));
      continue;
    }
    made += reply.size();
    Complete(p.seq, std::move(reply));
  }
  // What missed again waits for the next fetch; what was not run yet for the client's output.
  fetched_ = i < parked_.size();
  for (; i < parked_.size(); ++i) still.push_back(std::move(parked_[i]));
  parked_ = std::move(still);
}

bool Connection::MustWait(const CommandSpec& spec) const {
  if (!parked_.empty() && !Parkable(spec)) return true;
  if (spec.run != nullptr) return false;
  if (remote_inflight_ > 0) return true;
  return std::any_of(batches_.begin(), batches_.end(), [](const auto& b) { return b != nullptr; });
}

void Connection::RunHeld() {
  if (!held_ || MustWait(*held_spec_)) return;
  held_ = false;
  Run(*held_spec_);  // admitted already; its arguments are in args_
}

uint64_t Connection::AddPending(bool request) {
  pending_.emplace_back();
  pending_.back().read_us = command::LastNowUs();
  if (request) pending_.back().quiet = std::exchange(quiet_next_, false);
  return next_seq_++;
}

void Connection::Complete(uint64_t seq, std::string data) {
  Pending& p = pending_[seq - pending_base_];
  SetReply(p, std::move(data));
  p.done = true;
}

void Connection::SetReply(Pending& p, std::string data) {
  if (p.quiet) data.clear();  // CLIENT REPLY OFF / SKIP
  pending_bytes_ = pending_bytes_ - p.data.size() + data.size();
  p.data = std::move(data);
}

void Connection::Reject(const CommandSpec* spec, std::string reply) {
  command::ServerState& state = server_->state();
  WorkerStats& stats = *(*state.stats)[worker_->index()];
  if (spec) WorkerStats::Add(stats.per_command[spec->id].rejected_calls);
  WorkerStats::Add(stats.error_replies);
  const std::string_view line(reply);  // "-CODE message\r\n"
  state.error_stats.Add(command::ErrorCode(line.substr(1, line.size() - 3)));
  uint64_t seq = AddPending();
  Complete(seq, std::move(reply));
}

// A request named POST or Host: is an HTTP request, which a web page can make a browser send
// to 127.0.0.1:7379 (cross-protocol scripting): as Redis does, the connection is closed at
// once, its pending replies dropped, and it is logged (once a minute at most).
bool Connection::CrossProtocolAttack() {
  if (!command::Is(args_[0], "post") && !command::Is(args_[0], "host:")) return false;
  static std::atomic<int64_t> last_logged_ms{INT64_MIN / 2};
  const int64_t now = server_->state().keyspace->clock()->MonotonicUs() / 1000;
  int64_t last = last_logged_ms.load();
  if (now - last >= 60'000 && last_logged_ms.compare_exchange_strong(last, now)) {
    std::fprintf(stderr,
                 "slotkv: Possible SECURITY ATTACK detected. It looks like somebody is sending "
                 "POST or Host: commands to slotkv (from %s). This is likely due to an attacker "
                 "attempting to use Cross Protocol Scripting to compromise your server. "
                 "Connection aborted.\n",
                 addr_.c_str());
  }
  Close();
  return true;
}

void Connection::Dispatch() {
  command::ServerState& state = server_->state();
  command::Admission a = command::Admit(state, client_, args_);
  // Neither is a command: looked at only on the unknown-command path, not for every request.
  if (a.spec == nullptr && CrossProtocolAttack()) return;
  last_command_ = a.spec ? std::move(a.full_name) : "NULL";
  quiet_next_ = a.quiet;
  if (a.paused) {
    pause_held_ = true;
    worker_->RunAfter(kPauseRecheckMs, [self = shared_from_this()] { self->RecheckPause(); });
    return;
  }
  if (!a.run) {
    if (a.refused) {
      Reject(a.call, std::move(a.reply));
    } else {
      Complete(AddPending(), std::move(a.reply));  // +QUEUED
    }
    return;
  }
  const CommandSpec* spec = a.spec;
  if (MustWait(*spec)) {
    held_ = true;  // parsed, in args_
    held_spec_ = spec;
    return;
  }
  Run(*spec);
}

void Connection::RecheckPause() {
  if (closed_ || !pause_held_) return;
  SettleDirect();
  pause_held_ = false;
  Dispatch();  // held again while the pause lasts
  Process();   // the requests after it
}

void Connection::Run(const CommandSpec& spec) {
  command::ServerState& state = server_->state();
  // A tracking client's reads are remembered on their owners before they run.
  if (client_.tracking) command::RememberReads(state, client_, spec, args_);
  uint64_t seq = AddPending();
  // A one-key request's line goes now, in the connection's order (monitor.h); RunAsync feeds
  // the others.
  if (spec.run != nullptr) command::FeedMonitors(state, spec, args_, client_.db, addr_);
  if (spec.run == nullptr) {
    // Keys spread over workers, or none: only the former tells where the client belongs.
    if (spec.first_key > 0 || spec.keys != nullptr) NotePlacement(-1);
    RunDeferred();
    StartAsync(spec, seq);
    return;
  }
  const std::string& key = args_[static_cast<size_t>(spec.first_key)];
  uint32_t slot = state.keyspace->SlotOfKey(key);
  int owner = server_->OwnerOf(slot);
  NotePlacement(owner);
  // A request for this worker's slots goes the owner's way (a batch posted here) while its
  // key is taken or an earlier request of this client still waits on that way, so requests
  // keep their order.
  if (owner == worker_->index() && state.keyspace->locks().Free(slot, key) &&
      !batches_[static_cast<size_t>(owner)] && self_batches_ == 0) {
    if (deferring_ && (spec.flags & command::kWrite) && !Parkable(spec)) {
      deferred_.push_back({&spec, std::move(args_), slot, seq, {}, {}});
      args_ = {};
      if (deferred_.size() >= kDeferMax) RunDeferred();
      return;
    }
    RunDeferred();
    RunLocal(spec, args_, slot, seq);
  } else {
    if (owner == worker_->index()) RunDeferred();
    QueueRemote(spec, slot, owner, seq);
  }
}

void Connection::RunDeferred() {
  if (deferred_.empty()) return;
  PrefetchItems(server_->state(), client_.db, deferred_.data(),
                deferred_.data() + deferred_.size());
  for (RemoteItem& d : deferred_) RunLocal(*d.spec, d.args, d.slot, d.seq);
  deferred_.clear();
}

void Connection::RunLocal(const CommandSpec& spec, std::vector<std::string>& args,
                          uint32_t slot, uint64_t seq) {
  if (Parkable(spec) && worker_->async_reads()) {
    std::string reply;
    int tries = 0;
    if (RunRead(server_->state(), spec, args, slot, client_.db, client_.protocol, addr_,
                client_.name, &tries, &reply, &to_fetch_)) {
      Complete(seq, std::move(reply));
    } else {
      parked_.push_back({&spec, std::move(args), slot, seq, tries});
      args = {};
    }
    return;
  }
  command::WriteTrace trace;
  trace.mark = server_->state().write_failures.Mark();
  trace.client = client_.id;
  std::string reply = command::Execute(server_->state(), spec, args, slot, client_.db,
                                       client_.protocol, addr_, client_.name, &trace);
  if (spec.flags & command::kWrite) {
    // Held until the worker's group commit: pending_ keeps later replies behind it.
    SetReply(pending_[seq - pending_base_], std::move(reply));
    local_writes_.emplace_back(seq, std::move(trace));
  } else {
    Complete(seq, std::move(reply));
  }
}

void Connection::CommitLocal() {
  if (local_writes_.empty()) return;
  worker_->AfterCommit([self = shared_from_this(), writes = std::move(local_writes_)] {
    if (self->closed_) return;
    for (const auto& [seq, trace] : writes) {
      Pending& p = self->pending_[seq - self->pending_base_];
      Status st = self->server_->state().write_failures.Outcome(trace);
      if (!st.ok()) self->SetReply(p, command::ErrorLine(command::StatusError(st)));
      p.done = true;
    }
    // A turn of the requests read and not run is posted: the replies leave now, and it runs
    // them. Running them here, ahead of it, held these replies for that turn and the commit
    // of the next behind it (100 SETRANGEs of a 1 MB value pipelined: replies came 32, then
    // 64 at once).
    if (self->turn_posted_) {
      self->FlushReplies();
      return;
    }
    self->Process();  // writes the released replies; resumes a client paused on them
  });
  local_writes_.clear();
}

void Connection::StartAsync(const CommandSpec& spec, uint64_t seq) {
  // Earlier requests reach their owners before any hop of this command (posts are FIFO); the
  // writes made here are committed with this worker's group commit (or by the task's first
  // hop), and their replies still leave first.
  PostBatches();
  CommitLocal();
  command::ServerState& state = server_->state();
  auto* call = new AsyncCall(std::move(args_), client_.protocol, &state, &client_,
                             worker_->index());
  args_ = {};
  call->spec = &spec;
  call->seq = seq;
  call->start_us = command::NowUs();
  call->task = command::RunTask(spec, call->ctx);
  async_ = call;
  async_sync_done_ = false;
  starting_ = true;
  const int home = worker_->index();
  call->task.Start([self = shared_from_this(), call, home] {
    auto finish = [self, call, home] {
      if (CurrentWorker() == home && self->starting_) {
        self->async_sync_done_ = true;
        return;
      }
      self->server_->Post(home, [self, call] {
        self->FinishAsync(call);
        self->Process();
      });
    };
    if (!call->ctx.Settle(finish)) finish();
  });
  starting_ = false;
  if (async_sync_done_) FinishAsync(call);
}

void Connection::FinishAsync(AsyncCall* call) {
  async_ = nullptr;
  std::unique_ptr<AsyncCall> owned(call);
  if (closed_) return;
  command::ServerState& state = server_->state();
  std::string error_code = call->ctx.reply.error_code();
  std::string reply = std::move(call->ctx.reply.buffer());
  if (!call->ctx.commit_status.ok()) {
    const std::string message = command::StatusError(call->ctx.commit_status);
    error_code = command::ErrorCode(message);
    reply = command::ErrorLine(message);
  }
  command::RecordCall(state, *call->spec, call->ctx.args, command::NowUs() - call->start_us,
                      error_code, addr_, client_.name);
  if (client_.close_after_reply) {
    pending_[call->seq - pending_base_].close_after = true;
    client_.close_after_reply = false;
  }
  Complete(call->seq, std::move(reply));
}

// Replies done ahead of a request still in flight for a short while (a hop to its owner, a
// group commit) wait for it, up to kHoldReplyBytes, so that the replies to one read leave in
// one write as Redis's do: MULTI ... EXEC sent at once costs one send, not two. Never behind
// a blocking command or a disk read, which may take long, nor behind a request read
// kHoldReplyUs ago or more: 100 slow HSETs (1000 fields each) sent at once were all
// answered after the last, 23 s later under ASan.
bool Connection::HoldReplies() const {
  if ((async_ && async_->ctx.waiter) || !parked_.empty() || held_) return false;
  size_t bytes = out_next_.size();
  for (const Pending& p : pending_) {
    if (!p.done) {  // the first request in flight: nothing is done ahead of it, or it is recent
      return &p == &pending_.front() || command::NowUs() - p.read_us < kHoldReplyUs;
    }
    bytes += p.data.size();
    if (bytes > kHoldReplyBytes || p.close_after) return false;
  }
  return false;
}

void Connection::FlushReplies() {
  if (HoldReplies()) return;
  while (!pending_.empty() && pending_.front().done) {
    Pending& p = pending_.front();
    pending_bytes_ -= p.data.size();
    if (out_next_.empty()) {
      out_next_.swap(p.data);
    } else {
      out_next_.append(p.data);
    }
    bool close = p.close_after;
    pending_.pop_front();
    ++pending_base_;
    if (close) {
      close_after_flush_ = true;
      break;
    }
  }
  if (OverOutputLimit()) {
    Close();
    return;
  }
  Write();
}

// client-output-buffer-limit of the client's class (pubsub while it subscribes to anything):
// past the hard limit, or past the soft one for soft_seconds in a row, the client goes.
bool Connection::OverOutputLimit() {
  command::ServerState& state = server_->state();
  const conf::OutputLimit limit = client_.replica      ? state.replica_output_limit.Get()
                                  : client_.subscribed() ? state.pubsub_output_limit.Get()
                                                         : state.normal_output_limit.Get();
  const int64_t unsent = static_cast<int64_t>(Unsent());
  if (limit.hard > 0 && unsent > limit.hard) return true;
  if (limit.soft <= 0 || unsent <= limit.soft) {
    over_soft_since_ms_ = 0;
    return false;
  }
  const int64_t now = state.keyspace->clock()->NowMs();
  if (over_soft_since_ms_ == 0) over_soft_since_ms_ = now;
  return now - over_soft_since_ms_ >= limit.soft_seconds * 1000;
}

void Connection::Deliver(const pubsub::Message& message) {
  // A RESP2 connection gets an invalidation as a Pub/Sub message only as a REDIRECT target.
  const bool subscribed = client_.subscribed() && message.origin != client_.id;
  std::string bytes = command::EncodeMessage(message, client_.protocol, subscribed);
  if (!bytes.empty()) Push(std::move(bytes));
}

void Connection::TrackingRedirectBroken() {
  if (!client_.tracking) return;
  client_.tracking_broken = true;
  if (client_.protocol < 3) return;
  command::Reply reply(3);
  reply.Push(2);
  reply.Bulk("tracking-redir-broken");
  reply.Integer(static_cast<int64_t>(client_.tracking->redirect));
  Push(std::move(reply.buffer()));
}

void Connection::MakeFeed(std::shared_ptr<std::atomic<int64_t>> unsent,
                          std::function<void()> on_close) {
  client_.replica = true;
  feed_unsent_ = std::move(unsent);
  on_feed_close_ = std::move(on_close);
  NoteUnsent();
}

void Connection::Push(std::string bytes) {
  if (closed_) return;  // CLIENT REPLY OFF keeps pushes, as Redis 7.0 (CLIENT_PUSHING)
  SettleDirect();
  Complete(AddPending(/*request=*/false), std::move(bytes));
  NoteUnsent();
  // The messages that reach this worker meanwhile go out in the same write (Redis writes a
  // subscriber's buffer once per event loop turn): one send for many publishes.
  if (flush_posted_) return;
  flush_posted_ = true;
  server_->Post(worker_->index(), [self = shared_from_this()] {
    self->flush_posted_ = false;
    self->Process();  // writes what was pushed
  });
}

void Connection::Write() {
  if (closed_) return;
  if (writing_) return;
  if (out_next_.empty()) {
    if (close_after_flush_) Close();
    return;
  }
  out_.swap(out_next_);
  out_next_.clear();
  // Most replies fit in the socket's buffer: sent now, with no completion handler to run (and
  // writing_ stays false, so the next request's reply may go straight from its owner:
  // DirectReply). The rest of a short write goes the asynchronous way.
  if (SendNow(fd_, &out_, *(*server_->state().stats)[worker_->index()])) {
    ReleaseLargeBuffer(&out_);
    NoteUnsent();
    if (close_after_flush_) Close();
    return;  // callers outside Process run it next, resuming a client paused on its output
  }
  writing_ = true;
  boost::asio::async_write(
      socket_, boost::asio::buffer(out_),
      [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
        self->writing_ = false;
        self->out_.clear();
        ReleaseLargeBuffer(&self->out_);  // after a large reply
        if (self->closed_) return;
        if (ec) {
          self->Close();
          return;
        }
        WorkerStats& stats = *(*self->server_->state().stats)[self->worker_->index()];
        WorkerStats::Add(stats.net_output_bytes, n);
        WorkerStats::Add(stats.writes_processed);
        self->NoteUnsent();
        if (!self->out_next_.empty()) {
          self->Write();
          if (self->writing_ || self->closed_) return;
        }
        if (self->close_after_flush_) {
          self->Close();
        } else {
          self->Process();  // resumes a client paused by its unsent replies
        }
      });
}

void Connection::Close() {
  if (closed_) return;
  SettleDirect();  // before the descriptor can be reused
  closed_ = true;
  // A blocking command waiting for a key is stopped; its task ends and its reply is dropped.
  if (async_ && async_->ctx.waiter) StopWait(command::Waiter::Stop::kCancelled);
  boost::system::error_code ec;
  socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  server_->connected_counter().fetch_sub(1, std::memory_order_relaxed);
  command::DiscardTransaction(server_->state(), client_);
  command::UnsubscribeAll(server_->state(), client_, worker_->index());
  if (client_.tracking) server_->state().tracking->Disable(client_.id);
  ResumeParts();  // abandoned: their owners drop what they did not run
  if (on_feed_close_) std::exchange(on_feed_close_, nullptr)();
  worker_->Forget(client_.id);  // `this` lives on in the handlers that hold it
}

void Connection::StopWait(command::Waiter::Stop reason) {
  std::shared_ptr<command::Waiter> waiter = async_->ctx.waiter;
  // A parked task is resumed here, on its home worker, to reply (or just end) as stopped.
  if (waiter->RequestStop(reason)) {
    server_->Post(worker_->index(), [waiter] { waiter->handle().resume(); });
  }
}

bool Connection::Unblock(bool error) {
  if (!async_ || !async_->ctx.waiter || !async_->ctx.waiter->blocked()) return false;
  StopWait(error ? command::Waiter::Stop::kError : command::Waiter::Stop::kTimeout);
  return true;
}

bool Connection::IdleTimedOut(int64_t now_ms, int64_t timeout_s) const {
  if (closed_ || client_.subscribed() || client_.replica || async_ != nullptr) return false;
  return now_ms - last_active_ms_ > timeout_s * 1000;
}

command::ClientInfo Connection::Info() const {
  command::ClientInfo info;
  int64_t now = server_->state().keyspace->clock()->NowMs();
  info.id = client_.id;
  info.addr = addr_;
  info.laddr = laddr_;
  info.fd = fd_;
  info.name = client_.name;
  info.age_s = (now - created_ms_) / 1000;
  info.idle_s = (now - last_active_ms_) / 1000;
  info.db = client_.db;
  info.protocol = client_.protocol;
  info.query_buffer = in_.size() - in_pos_;
  info.output_buffer = out_.size() + out_next_.size() + pending_bytes_;
  info.last_command = last_command_;
  info.blocked = async_ && async_->ctx.waiter && async_->ctx.waiter->blocked();
  info.subs = client_.channels.size();
  info.psubs = client_.patterns.size();
  info.ssubs = client_.shard_channels.size();
  info.multi = client_.in_multi ? static_cast<int64_t>(client_.queued.size()) : -1;
  info.watch_dirty = client_.watch && client_.watch->dirty.load();
  info.replica = client_.replica;
  info.monitor = client_.monitor;
  info.no_evict = client_.no_evict;
  info.tracking = client_.tracking.has_value();
  info.tracking_bcast = client_.tracking && client_.tracking->bcast;
  info.tracking_broken = client_.tracking_broken;
  info.redirect = client_.tracking ? static_cast<int64_t>(client_.tracking->redirect) : -1;
  if (client_.user) info.user = client_.user->name;
  return info;
}

}  // namespace slotkv::net
