// Master: the master side of replication. Every database of every slot is a stream; its owner
// worker keeps the stream's backlog and its replicas' links (feeds), and pushes each committed
// batch to them right after the local commit (command::StreamListener, told by the slots).
//
// A replica's SLOTKV.SYNC (repl/frames.h) makes its connection a feed; then each worker, for
// each stream it owns, continues the stream from the replica's offset when the replication id
// matches and the backlog covers it (CONT, then the backlog's frames), or starts a full sync of
// that stream alone (FULL, then the stream's keys in DATA frames, a bounded step per turn of
// the worker's loop, interleaved with the live UNITs, then SYNCED). A full sync waits while
// the feed has more than kFeedWindow bytes unsent, so a slow replica costs bounded memory, and
// while its worker sent its share of repl-sync-max-bytes-per-sec in the current second.
//
// Frames for one feed made in one turn of a worker go in one post to the feed's worker (the
// outbox); posts are FIFO per pair of workers, so each stream's frames keep their order. A
// worker's full syncs take turns, one step per handler, so a client's request waits behind one
// step at most.
//
// Backlogs start with the first replica (SLOTKV.SYNC) or when this node follows a master
// (Adopt, Suspend), as Redis creates its backlog then: until that, a commit only moves the
// stream's offset (encoding every unit into a backlog nobody reads cost 0.5 us of a 14 us
// SET). A stream's backlog then starts empty at its offset. Each stream keeps at most
// repl-backlog-size bytes of its latest frames, and all of them together about that much:
// once a second (Tick), when they hold more, each keeps its share in proportion to what it
// holds, so a busy stream keeps the most (Redis has one backlog of repl-backlog-size).
//
// Replication ids (as Redis's): `replid` names the history this node's streams continue;
// after a promotion the old one is `replid2`, accepted up to the offsets the streams had then
// (second offsets), so the other replicas of the old master continue here.
//
// Thread rule: a stream's state belongs to its owner worker; feeds, ids and WAIT calls are
// shared (atomics, a mutex).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/command/blocking.h"
#include "core/command/context.h"
#include "repl/backlog.h"

namespace slotkv::repl {

// A replica's link as the master sees it.
struct Feed {
  Feed(uint64_t client, int worker, size_t streams, int workers);
  uint64_t client;  // the connection's id
  int worker;       // the connection's worker
  std::string ip;   // as INFO replication lists it
  int port = 0;
  // Unsent output bytes of the connection (kept by it) and bytes posted to it, not yet there.
  std::shared_ptr<std::atomic<int64_t>> unsent;
  std::atomic<int64_t> queued{0};
  std::unique_ptr<std::atomic<uint64_t>[]> acked;  // [stream]: offset the replica applied
  std::atomic<int> waiting{0};  // streams not attached yet or in full sync
  std::atomic<int64_t> last_ack_ms{0};
  std::atomic<bool> closed{false};
  // [worker]: how many of the published dictionaries that worker sent (DICT frames); each
  // worker's own, since only its own frames keep their order on the link.
  std::unique_ptr<uint32_t[]> dicts_sent;
  int64_t Outstanding() const { return queued.load() + unsent->load(); }
  bool online() const { return waiting.load() == 0; }
};

// What INFO replication and ROLE show of a replica.
struct FeedInfo {
  std::string ip;
  int port = 0;
  bool online = false;
  uint64_t offset = 0;  // sum of its acknowledged offsets
  int64_t lag_s = 0;    // since its last acknowledgement
  std::vector<uint64_t> acked;  // [stream]
};

class Master : public command::StreamListener {
 public:
  static constexpr int64_t kFeedWindow = 16 << 20;

  // Offsets and backlogs start from the keyspace's streams. REQUIRES: before the workers start.
  explicit Master(command::ServerState* state);
  ~Master() override;

  // command::StreamListener (on the owner).
  void OnUnits(uint32_t s, uint32_t db, std::string units, uint64_t seq) override;
  void OnClear(uint32_t s, uint32_t db, uint64_t seq) override;

  // SLOTKV.SYNC (on the client's worker): replies HELLO (naming epoch, the master record's
  // this node follows in ZooKeeper mode, else 0) and attaches every stream.
  void Sync(command::AsyncContext& ctx, uint64_t epoch);
  // SLOTKV.ACK (on the client's worker).
  void Ack(command::AsyncContext& ctx);
  // WAIT numreplicas timeout.
  command::Task Wait(command::AsyncContext& ctx, int64_t replicas, int64_t timeout_ms);
  // Asks every replica to acknowledge what it applied now (GETACK, after the frames of the
  // writes made so far). Any worker.
  void AskAcks();
  // Asks every feed to acknowledge now (GETACK), and pings them; closes those silent for more
  // than timeout_s. Called once a second.
  void Tick(int64_t timeout_s, bool ping);
  // Sends a PUBLISH (shard: SPUBLISH) to every replica (PUB frame). Any worker.
  void Publish(bool shard, std::string_view channel, std::string_view payload);
  // Sends the node's database map (SWAPDB) to every replica (DBMAP frame). Any worker; a
  // SWAPDB sends it while it holds every slot.
  void SendDbMap(const std::vector<uint32_t>& map);
  // Closes every feed (a role change: their replicas start over); except, when given.
  void CloseFeeds(const Feed* except = nullptr);
  // The feed of the replica at ip:port, or null.
  std::shared_ptr<Feed> FindFeed(const std::string& ip, int port) const;
  // An online feed that acknowledged every stream's offset now: target, or with none the
  // first such; null when none did.
  std::shared_ptr<Feed> CaughtUp(const std::shared_ptr<Feed>& target) const;
  // Queues frame for feed from the calling worker.
  void SendFrame(const std::shared_ptr<Feed>& feed, std::string frame) {
    Send(feed, std::move(frame));
  }

  // The replication ids. Promote: the current id becomes the second one, valid up to the
  // streams' offsets now, and new_id the current one. Adopt: a replica takes its master's id.
  std::string replid() const;
  std::string replid2() const;
  void Promote(const std::string& new_id);
  void Adopt(const std::string& id);
  // Whether a replica whose data came from history id at offset of stream i may continue.
  bool Continues(const std::string& id, size_t stream, uint64_t offset) const;

  // A stream being full-synced on this node (a replica's): its units are not history a
  // replica of ours could continue from until Resume, which restarts its backlog at offset.
  // On the owner.
  void Suspend(uint32_t s, uint32_t db);
  void Resume(uint32_t s, uint32_t db, uint64_t offset);
  // This node was promoted: every stream still suspended (its full sync cut off) drops what
  // it staged and resumes at its live offset, so client writes there stream to replicas (its
  // data is the old one: why the controller never promotes a node with partial data). On
  // every worker, posted.
  void ResumeSuspended();

  // The sum of the streams' offsets: INFO's master_repl_offset (monotonic).
  uint64_t offset() const;
  uint64_t second_offset() const;  // the sum at the last promotion (-1 in INFO when none)
  bool has_second() const;
  uint64_t stream_offset(size_t stream) const { return offsets_[stream].load(); }
  size_t streams() const { return streams_.size(); }
  std::vector<FeedInfo> Feeds() const;
  // Replicas that acknowledged within max_lag_s seconds (min-replicas-to-write).
  int GoodReplicas(int64_t max_lag_s) const;
  // Backlog bytes over all streams (INFO repl_backlog_histlen). Racy reads; display only.
  uint64_t backlog_bytes() const { return backlog_bytes_.load(); }
  // Whether backlogs are kept (INFO repl_backlog_active).
  bool backlog_active() const { return recording_.load(); }

 private:
  struct Stream;
  struct FullSync;
  struct WaitCall;
  size_t Index(uint32_t s, uint32_t db) const { return size_t{s} * databases_ + db; }
  // On the owner of stream i: whether its backlog records, starting it (empty, at the
  // stream's offset) the first time once recording_ is on.
  bool Record(size_t i);
  // On the owner of (s, db): continue the stream for feed from offset, or sync it in full
  // (always when the replica did not list it: no offset).
  void Attach(const std::shared_ptr<Feed>& feed, uint32_t s, uint32_t db,
              const std::string& replid, std::optional<uint64_t> offset);
  // Full syncs take turns, one step per handler on each worker (RunSyncs), so a request
  // arriving meanwhile waits for one step at most, not one per stream in full sync.
  void QueueSync(const std::shared_ptr<FullSync>& job);
  void RunSyncs(int w);
  // One step of job: 0 when more follow, the ms to wait before the next one (the feed's
  // window is full, or the bandwidth limit), -1 when the stream's sync is done or failed.
  int64_t Step(const std::shared_ptr<FullSync>& job);
  // Queues frame for feed from the calling worker (sent at the end of its turn), after the
  // dictionaries this worker did not send it yet.
  void Send(const std::shared_ptr<Feed>& feed, std::string frame);
  // Sends frame() to every live feed (made only when there is one).
  void SendToAll(const std::function<std::string()>& frame);
  void AppendDicts(Feed& feed, int w, std::string* out);
  void FlushOutbox(int w);
  // Replicas whose acknowledged offsets reach target in every stream.
  int CountAcked(const std::vector<uint64_t>& target) const;
  void CheckWaits();
  void Forget(const Feed* feed);
  // Closes feed's connection (on its worker).
  void Close(Feed& feed);
  // The feeds now (a copy, taken under mu_).
  std::vector<std::shared_ptr<Feed>> LiveFeeds() const;

  command::ServerState* state_;
  uint32_t databases_;
  std::vector<std::unique_ptr<Stream>> streams_;  // [s * databases + db], owner only
  std::unique_ptr<std::atomic<uint64_t>[]> offsets_;  // [stream], written by the owner
  std::atomic<uint64_t> backlog_bytes_{0};
  std::atomic<bool> recording_{false};  // backlogs are kept: see "Backlogs" above

  struct Outbox {
    std::vector<std::pair<std::shared_ptr<Feed>, std::string>> frames;
    bool posted = false;
    // Full-sync bytes sent in the current second (repl-sync-max-bytes-per-sec).
    int64_t second_ms = 0;
    int64_t sync_bytes = 0;
    // The full syncs of this worker's streams that take turns (RunSyncs).
    std::deque<std::shared_ptr<FullSync>> syncs;
    bool sync_posted = false;
  };
  std::vector<Outbox> outboxes_;  // [worker], that worker only
  std::atomic<int64_t> sync_limit_{0};  // repl-sync-max-bytes-per-sec, refreshed by Tick
  // How long the calling worker's full syncs must wait for the bandwidth limit (0: none).
  int64_t ThrottleMs(int64_t now_ms);

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Feed>> feeds_;         // guarded by mu_
  std::vector<std::shared_ptr<WaitCall>> waits_;     // guarded by mu_
  std::string replid_;                               // guarded by mu_
  std::string replid2_;                              // guarded by mu_
  std::vector<uint64_t> second_offsets_;             // guarded by mu_; empty: no replid2
};

}  // namespace slotkv::repl
