// Link: a replica's connection to its master, on a thread of its own (never a worker: it may
// block on the socket). Each connection first takes the streams' offsets once the workers ran
// what was posted before (TakeOffsets), connects, authenticates (masterauth, masteruser),
// sends SLOTKV.SYNC with the replication id and those offsets (leaving out streams whose data
// is partial), then reads the master's frames (repl/frames.h) and hands each to the owner of
// its stream as a job (Post): the owner applies the records with the master's sequence numbers
// (command::Store::Apply), one frame as one unit, and after its group commit records the
// stream's new offset. A stream in full sync is staged beside the live data, which keeps
// serving reads, and swapped in at SYNCED (Keyspace::BeginStaging). Offsets are acknowledged
// (SLOTKV.ACK) once a second, when a stream comes online, and at GETACK (a master's WAIT) and
// then after each commit for a second, so the frames that came before the GETACK are
// acknowledged as soon as they are applied. When the link drops, or goes silent for
// repl-timeout, it reconnects after a second, continuing from the offsets committed by then.
//
// Applying is bounded: the thread stops reading while more than kApplyWindow bytes of frames
// wait for their owners.
//
// Thread rule: Start and Stop from any one thread; the streams' jobs run on their owners; the
// status getters from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/command/context.h"

namespace slotkv::repl {

class Master;

class Link {
 public:
  static constexpr int64_t kApplyWindow = 64 << 20;

  enum class State { kConnect, kConnecting, kHandshake, kSync, kConnected };

  struct Options {
    std::string host;
    int port = 0;
    // The replication id of this node's data ("?" for none): its master's at the last sync.
    std::string replid;
    // Told the master's replication id when it greets the link (HELLO), before any frame of
    // its streams is applied: the node adopts it and remembers it across restarts.
    std::function<void(const std::string&)> on_master_id;
    // Streams whose data is partial (a full sync cut off): synced again in full.
    std::vector<bool> partial;
    // Told true when a full sync starts (the data is partial until it ends: a restarted node
    // must sync everything again), false once no stream is in one. Any thread.
    std::function<void(bool)> on_partial;
    // The master sent FAILOVER (it handed over to this node): called on the link's thread.
    std::function<void()> on_failover;
    // The epoch of the master record this node follows (ZooKeeper mode; none: 0): a master
    // whose HELLO names a lower one is refused. on_epoch: its HELLO named a higher one.
    std::function<uint64_t()> epoch;
    std::function<void(uint64_t)> on_epoch;
  };

  Link(command::ServerState* state, Master* master, Options options);
  ~Link();  // Stop

  void Start();
  // Closes the connection and joins the thread; jobs already posted still run.
  void Stop();
  // Closes the connection (the thread reconnects a second later). False when none is open.
  bool Drop();

  const std::string& host() const { return options_.host; }
  int port() const { return options_.port; }
  State state() const { return link_state_.load(); }
  bool up() const { return link_state_.load() == State::kConnected; }
  // Streams still in their full sync.
  int syncing() const { return syncing_.load(); }
  // Since when the link is down (ms, wall clock), and when the master last sent anything.
  int64_t down_since_ms() const { return down_since_ms_.load(); }
  int64_t last_io_ms() const { return last_io_ms_.load(); }
  // The sum of the streams' applied offsets (slave_repl_offset), and each one.
  uint64_t offset() const;
  std::vector<uint64_t> offsets() const;
  // Streams left in their full sync. REQUIRES: stopped.
  std::vector<bool> Partial() const {
    return std::vector<bool>(in_sync_.get(), in_sync_.get() + streams_);
  }

 private:
  struct Conn;
  void Run();
  // One connection's life: false when the thread should stop.
  void Session();
  // Handles one frame; false when the link must drop.
  bool OnFrame(Conn& conn, std::vector<std::string>& args);
  // A stream of connection session is continued or synced: the link is up with the last one.
  void Online(uint64_t session);
  // Runs job on the owner of slot s, counting bytes against the apply window.
  void ToOwner(uint32_t s, size_t bytes, std::function<void()> job);
  // A connection's map from the master's dictionary ids to this node's (0: not sent yet),
  // filled by the link thread (DICT) before it posts the frames that need an entry.
  using DictIds = std::vector<std::atomic<uint32_t>>;
  // Applies the records (wal::Record encoding) to database db of slot s, their compressed
  // values renamed to this node's dictionaries by ids, then, after the owner's commit, sets
  // the stream's offset to offset (0: leaves it). On the owner.
  void Apply(uint32_t s, uint32_t db, const std::string& records, uint64_t offset,
             const DictIds& ids);
  // DICT <id> <group> <bytes>: adopts the master's dictionary. The link thread's.
  bool AdoptDict(const std::vector<std::string>& args);
  // DBMAP <physical>...: records the master's database map, then each worker's slots follow
  // it in order with the frames posted to them; it goes on to this node's replicas once all
  // have. The link thread's.
  bool AdoptDbMap(const std::vector<std::string>& args);
  void SendAcks(Conn& conn);
  // The "<slot> <db> <offset>" bulks of the streams whose data is whole (skip_zero: and which
  // hold something); *bulks grows by their count.
  std::string Offsets(bool skip_zero, size_t* bulks) const;
  // Runs step on a Store of database db of slot s (a full sync's staging, an emptying); a
  // failure drops the link (what names the step in the log). On the owner.
  void Staging(uint32_t s, uint32_t db, const char* what,
               const std::function<Status(command::Store&)>& step);
  // Waits until every worker ran what was posted to it so far and committed it (the jobs of
  // an earlier link or connection), then takes the streams' offsets from master_.
  void TakeOffsets();
  size_t Index(uint32_t s, uint32_t db) const { return size_t{s} * databases_ + db; }

  command::ServerState* state_;
  Master* master_;
  Options options_;
  uint32_t databases_;
  std::unique_ptr<std::atomic<uint64_t>[]> offsets_;  // [stream]: applied and committed
  // [stream]: in its full sync (its data partial). The link thread's.
  std::unique_ptr<bool[]> in_sync_;
  size_t streams_;
  std::atomic<State> link_state_{State::kConnect};
  // The connection's number: jobs of an older one do not count for this one.
  std::atomic<uint64_t> session_{0};
  std::atomic<int> pending_{0};  // streams neither continued nor synced (and committed) yet
  std::atomic<int> syncing_{0};  // streams in their full sync
  std::atomic<bool> broken_{false};  // applying failed: reconnect
  std::atomic<int64_t> down_since_ms_{0};
  std::atomic<int64_t> last_io_ms_{0};
  std::atomic<int64_t> inflight_{0};  // frame bytes posted to owners, not yet applied
  std::shared_ptr<DictIds> dict_ids_;  // the connection's; the link thread's pointer
  // A stream came online, a GETACK came or a commit followed it: acknowledge at once (AckNow
  // wakes the thread through wake_fd_, an eventfd).
  std::atomic<bool> ack_now_{false};
  std::atomic<int64_t> getack_ms_{0};  // the last GETACK: each commit acknowledges for a second
  int wake_fd_ = -1;
  void AckNow();
  std::atomic<bool> stop_{false};
  std::mutex fd_mu_;
  int fd_ = -1;  // guarded by fd_mu_: Stop shuts it down to wake the thread
  std::thread thread_;
};

}  // namespace slotkv::repl
