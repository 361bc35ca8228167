// Connection: one client. It reads requests, parses them (RespParser), and for each request
// either runs it at once (its slot is owned by this worker, or it has no key and needs no
// hop; such writes run together once the read is parsed, deferred_), posts it to the
// owning worker in a batch with its neighbours for that owner, or starts its coroutine
// (several keys, server-wide commands). Replies go out strictly in request order:
// each request takes a place in `pending_` and the finished prefix is written.
//
// Ordering promises: requests for one worker run in the order sent (posts are FIFO); while a
// coroutine command runs, later requests wait, so they see its effects.
//
// Reads that miss the OS page cache (with the worker's io_uring up): a read-only one-key
// command runs with no-wait reads (command::TryExecute); when a read would wait, the command is
// parked, the regions it missed are fetched through the ring, and it runs again once they are in
// memory (after three misses it waits for the disk). Later reads keep running meanwhile, and
// their misses join the same fetch (a pipeline of cold GETs is one batch of reads); any other
// request is held until the parked reads are done, so it cannot change what they return.
// Owners do the same for posted batches (net/remote_batch.h): a batch whose read waits stops
// there (the reads after it still try), and later batches of the same client queue behind it
// (Worker::remote_queues). Writes are committed by the worker that made them before their
// replies are released: the worker commits once per turn of its event loop for every
// connection (Worker::AfterCommit).
//
// Backpressure: a client with more than 1 MiB of unsent replies or 10k unfinished requests (or
// 1 MiB of requests held back behind a running coroutine command) is not read until it
// drains, so a client that does not read cannot make the server buffer more than one batch of
// its replies; past its class's client-output-buffer-limit (normal, or pubsub while it
// subscribes: the hard limit, or the soft one for its seconds) it is closed. Reading goes on
// while a coroutine command runs, so a blocked client leaving is seen.
//
// Placement: a client whose last kMoveAfter requests each had one key, all in slots of one
// other worker, moves to that worker when quiet (every reply written, nothing in flight, parked,
// held or half parsed; not blocked, subscribed, a replica's link, in MULTI or watching): its
// socket and state (MovedClient) go there with the bytes just read, so a client working on one
// key stops paying a hop per request. A client whose keys spread over workers stays (at two
// workers, 32 requests in a row to the other has odds 2^-32).
//
// Thread rule: runs on its worker; remote batches and coroutines reach it by posting back.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/base/no_wait_reads.h"
#include "core/command/blocking.h"
#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/pubsub/registry.h"
#include "net/resp_parser.h"
#include "net/short_read.h"

namespace slotkv::net {

class Server;
class Worker;
struct DirectReply;
struct RemoteBatch;
struct RemoteItem;
struct AsyncCall;

// What a connection takes to another worker besides its socket (Placement, above).
struct MovedClient {
  command::ClientState client;
  int64_t created_ms = 0;
  int64_t last_active_ms = 0;
  std::string last_command;
  std::string input;  // read, not parsed: starts at a request's start
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // moved: the state of a connection another worker handed over (its id is client.id).
  Connection(Worker* worker, boost::asio::ip::tcp::socket socket, uint64_t id,
             std::unique_ptr<MovedClient> moved = nullptr);
  ~Connection();

  void Start();
  // Closes now (pending replies are dropped).
  void Close();
  command::ClientInfo Info() const;
  const command::ClientState& client() const { return client_; }
  // Ends a blocking command's wait (CLIENT UNBLOCK): with its timeout reply, or the UNBLOCKED
  // error. False when no blocking command is waiting.
  bool Unblock(bool error);
  uint64_t id() const { return client_.id; }
  // Whether `timeout` closes it now: idle more than timeout_s seconds, and not a subscriber,
  // a blocked client or one with a command running.
  bool IdleTimedOut(int64_t now_ms, int64_t timeout_s) const;
  // "ip:port" of the peer; fixed at accept, so any thread may read it.
  const std::string& addr() const { return addr_; }

  // Writes a Pub/Sub message (after the replies of the requests read so far).
  // REQUIRES: on this worker.
  void Deliver(const pubsub::Message& message);
  // An invalidation found its CLIENT TRACKING REDIRECT client gone: flagged, and told (in
  // RESP3, a push ["tracking-redir-broken", id] for each such invalidation, as Redis).
  void TrackingRedirectBroken();
  // Makes it a replica's link (command::ClientRegistry::MakeFeedLocal); Push writes the
  // streams' bytes (after the replies of the requests read so far). REQUIRES: on this worker.
  void MakeFeed(std::shared_ptr<std::atomic<int64_t>> unsent, std::function<void()> on_close);
  void Push(std::string bytes);
  // Items [begin, end) of a remote batch came back: all it had left when last, else a part
  // (the owner holds the rest until this client has taken it: ResumeParts). A coroutine
  // ended. REQUIRES: on this worker.
  void OnRemoteItems(const std::shared_ptr<RemoteBatch>& batch, size_t begin, size_t end,
                     bool last);
  void OnAsyncDone(AsyncCall* call);

 private:
  struct Pending {
    bool done = false;
    bool quiet = false;  // CLIENT REPLY OFF / SKIP: its reply is dropped
    bool close_after = false;
    std::string data;
    int64_t read_us = 0;  // when its turn of Process began (command::LastNowUs)
  };

  // Stops the running blocking command's wait (blocking.h). REQUIRES: async_->ctx.waiter.
  void StopWait(command::Waiter::Stop reason);
  void Read();
  // Placement: notes the owner of a request's one key (-1: the request had none, or several).
  void NotePlacement(int owner);
  // Whether it moves now, before taking what it just read (Placement, above).
  bool Movable() const;
  // Hands the socket, the client's state and input (what it just read) to worker w.
  void MoveTo(int w, std::string input);
  void Process();
  // Paused: no request is dispatched. ReadPaused: the socket is not read either.
  bool Paused() const;
  bool ReadPaused() const;
  void Dispatch();
  // Closes the connection when the request is an HTTP one (POST, Host:); true then.
  bool CrossProtocolAttack();
  // Runs an admitted request (args_): here, on its owner, or as a coroutine.
  void Run(const command::CommandSpec& spec);
  void Reject(const command::CommandSpec* spec, std::string reply);
  // A place for a reply; a request's (not a push's) is quiet when its admission said so.
  uint64_t AddPending(bool request = true);
  void Complete(uint64_t seq, std::string data);
  // Sets a pending reply's bytes, keeping pending_bytes_ right.
  void SetReply(Pending& p, std::string data);
  // Runs a request for this worker's slots here (args: its arguments, taken when it parks).
  void RunLocal(const command::CommandSpec& spec, std::vector<std::string>& args, uint32_t slot,
                uint64_t seq);
  // Writes to this worker's slots parsed in one turn of Process wait in deferred_ and run
  // together (RunDeferred), their keys prefetched first (PrefetchItems), as a remote batch's
  // are on its owner. Any other request runs them first, so each request still sees what the
  // ones before it did; so does the end of the turn.
  std::vector<RemoteItem> deferred_;
  bool deferring_ = false;  // in Process's loop: Run may defer a write
  static constexpr size_t kDeferMax = 32;
  void RunDeferred();
  void QueueRemote(const command::CommandSpec& spec, uint32_t slot, int owner, uint64_t seq);
  void PostBatches();
  // The owner of the client's one request in flight may write its reply (DirectReply, in
  // net/remote_batch.h): armed by PostBatches when MayReplyDirect; settled (disarmed, and the
  // request done if the owner wrote its reply) first by every handler that touches the
  // replies or the socket.
  bool MayReplyDirect() const;
  void SettleDirect();
  std::shared_ptr<DirectReply> direct_;
  bool direct_armed_ = false;
  void CommitLocal();
  void FetchParked();
  void OnFetched();
  void StartAsync(const command::CommandSpec& spec, uint64_t seq);
  void FinishAsync(AsyncCall* call);
  void FlushReplies();
  bool HoldReplies() const;
  bool OverOutputLimit();
  void Write();

  Worker* worker_;
  Server* server_;
  ShortReadSocket socket_;
  std::string peer_ip_;
  std::string addr_;
  std::string laddr_;
  int fd_ = -1;
  command::ClientState client_;
  int64_t created_ms_ = 0;
  int64_t last_active_ms_ = 0;
  std::string last_command_;

  bool moved_in_ = false;  // came from another worker (Placement)
  int move_to_ = -1;       // the other worker its last requests each went to
  uint32_t move_streak_ = 0;
  static constexpr uint32_t kMoveAfter = 32;

  RespParser parser_;
  std::vector<std::string> args_;
  std::string in_;
  size_t in_pos_ = 0;
  std::array<char, 16 * 1024> read_buf_;
  bool reading_ = false;
  bool turn_posted_ = false;  // Process ran out of its turn (kTurnUs): it comes back

  std::deque<Pending> pending_;
  // Reply bytes in pending_ not moved to out_next_ yet (done, or a write waiting for its
  // commit): they count as unsent, for pausing the client and its output limit.
  size_t pending_bytes_ = 0;
  uint64_t pending_base_ = 0;  // seq of pending_.front()
  uint64_t next_seq_ = 0;
  int remote_inflight_ = 0;
  AsyncCall* async_ = nullptr;  // the running coroutine command, if any
  bool async_sync_done_ = false;
  bool starting_ = false;  // inside StartAsync: a task ending now ends synchronously
  std::vector<std::shared_ptr<RemoteBatch>> batches_;  // [worker], being filled
  // Writes run here, waiting for the group commit: their places and what they wrote.
  std::vector<std::pair<uint64_t, command::WriteTrace>> local_writes_;
  // Read-only commands run here whose reads missed the page cache, waiting for a fetch; while
  // any waits, requests that are not such reads are held (held_: the one parsed into args_).
  struct ParkedRead {
    const command::CommandSpec* spec;
    std::vector<std::string> args;
    uint32_t slot;
    uint64_t seq;
    int tries;
  };
  std::vector<ParkedRead> parked_;
  std::vector<BlockedRead> to_fetch_;  // regions the parked commands missed, not yet fetched
  bool fetching_ = false;
  // The fetch of the parked reads completed and some still wait to run (RunParked stopped
  // at the output budget).
  bool fetched_ = false;
  // Runs the parked reads in order once fetched, while the replies they make and the client's
  // sendable output stay under the pause size (at least one runs); the rest run from Process
  // once the client took its replies.
  void RunParked();
  // Whether spec waits for the requests before it: behind parked reads, any request but such
  // a read (it could change what they return); behind batches on their owners (in flight or
  // being filled), a coroutine command, whose hops must find them run (an owner runs a batch
  // in turns, and a batch waits there for fetches and transactions).
  bool MustWait(const command::CommandSpec& spec) const;
  // Runs the held request once it need not wait any longer (Process: every event that can end
  // a wait, a fetch or a batch's replies, ends in Process).
  void RunHeld();
  bool held_ = false;
  const command::CommandSpec* held_spec_ = nullptr;  // the held request's row
  bool quiet_next_ = false;  // the admitted request's reply is dropped (Admission::quiet)
  // A pause holds the request parsed into args_ (command/client_pause.h): it is admitted
  // again every kPauseRecheckMs (RecheckPause) until it runs.
  static constexpr int64_t kPauseRecheckMs = 10;
  bool pause_held_ = false;
  void RecheckPause();
  int self_batches_ = 0;  // batches posted to this worker's own slots, not yet answered
  // Remote batches whose owners wait until this client's sendable replies fall below the
  // pause size before they run the rest (kBatchReplyBytes).
  std::vector<std::shared_ptr<RemoteBatch>> parts_taken_;
  // Lets those batches go on when the client's sendable replies allow (all of them,
  // abandoned, once it is closed).
  void ResumeParts();

  std::string out_;       // being written
  std::string out_next_;  // queued while a write is in flight
  bool writing_ = false;
  bool flush_posted_ = false;  // Deliver posted a FlushReplies not run yet
  bool close_after_flush_ = false;
  bool closed_ = false;
  int64_t over_soft_since_ms_ = 0;  // past the soft output limit since then (0: not past it)
  // A replica's link: its unsent output bytes, kept for the streams' producers, and what runs
  // when it closes.
  std::shared_ptr<std::atomic<int64_t>> feed_unsent_;
  std::function<void()> on_feed_close_;
  size_t Unsent() const { return out_.size() + out_next_.size() + pending_bytes_; }
  void NoteUnsent() {
    if (feed_unsent_) feed_unsent_->store(static_cast<int64_t>(Unsent()));
  }
};

}  // namespace slotkv::net
