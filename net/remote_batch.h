// Requests of one connection run on another worker: the connection (net/connection.cc) puts
// the requests for one owner's slots into a RemoteBatch and posts it there (RunBatch); the owner
// runs each client's batches in order (reads that miss the page cache wait for a fetch, items
// whose slot a transaction holds wait for their turn) and sends the replies home, writes after
// their group commit. A batch holding more than kPauseOutputBytes of replies, or whose turn on
// the owner is over (kTurnUs), sends what it ran home as a part and runs the rest only once the
// client has taken them (ResumeBatch), so a client that pipelines big reads to another worker's
// keys and reads nothing holds about one reply there, and one that pipelines slow commands
// reads replies while the rest runs.
//
// Thread rule: a batch is filled and answered on its home worker, run on its owner; the two never
// touch it at once (each hands it over with a post).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/no_wait_reads.h"
#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/command/execute.h"

namespace slotkv::net {

class Connection;
class Server;

// Unsent reply bytes at which a connection stops reading its client, and the replies a batch
// may hold on its owner before they go home as a part.
inline constexpr size_t kPauseOutputBytes = 1 << 20;
// How long one client's pipelined requests run on its connection's worker before what else is
// ready there (another client's request, a timer) gets its turn, at most (plus the request
// that started the turn and the one that ended it). Batches posted to an owner run in turns
// too (DriveBatches).
inline constexpr int64_t kTurnUs = 1000;
// One turn of a client's requests on a worker. It starts at its first over() (false), which
// reads the clock; later calls take the time a command run since read (LastNowUs: Run reads it
// after every command), and read the clock themselves only every kClockEvery calls without one
// (requests queued for another worker run nothing here). Clock reads were 5.5% of the server's
// CPU under GET -P 16: three per request.
class Turn {
 public:
  bool over() {
    if (end_us_ == 0) {
      seen_us_ = command::NowUs();
      end_us_ = seen_us_ + kTurnUs;
      return false;
    }
    int64_t now = command::LastNowUs();
    if (now == seen_us_) {  // no command read the clock since the last call
      if (++unclocked_ % kClockEvery != 0) return false;
      now = command::NowUs();
    }
    seen_us_ = now;
    return now >= end_us_;
  }

 private:
  static constexpr uint32_t kClockEvery = 8;
  int64_t end_us_ = 0;
  int64_t seen_us_ = 0;  // the last time over() took
  uint32_t unclocked_ = 0;
};

// One request posted to its slot's owner, with its reply on the way back.
struct RemoteItem {
  const command::CommandSpec* spec;
  std::vector<std::string> args;
  uint32_t slot;
  uint64_t seq;
  std::string reply;
  command::WriteTrace trace;  // what it wrote: its reply waits for their commit
  bool done = false;  // run (reply set)
  int tries = 0;      // no-wait runs that missed
};

// The reply of a connection's one request in flight, which its owner may write to the socket
// itself rather than post it home: the home worker then runs no handler for it. The home arms
// it when it posts a batch of one request while nothing else of the client is pending, being
// written or read and not parsed (Connection::MayReplyDirect), and settles it before it next
// touches the client's replies or socket: it disarms it, and learns whether the owner wrote the
// reply (the request is done) or will post it home as usual. While armed, the home writes
// nothing and keeps the socket open (Close settles first), so the owner's write cannot land out
// of order or on a reused descriptor.
struct DirectReply {
  explicit DirectReply(int fd) : fd(fd) {}
  const int fd;  // the connection's socket
  std::mutex mu;
  bool armed = false;
  bool written = false;  // the owner sent the whole reply
};

// Sends what socket fd takes of *bytes now, without waiting, counts it in stats'
// net_output_bytes and cuts it from *bytes; true when all of it went. On an error nothing is
// sent: the asynchronous write that follows meets it. Connection::Write and the owner's direct
// reply.
bool SendNow(int fd, std::string* bytes, command::WorkerStats& stats);

// Requests of one connection for one owner, run there in order and committed once.
struct RemoteBatch {
  std::shared_ptr<Connection> conn;
  int home = 0;
  int owner = 0;
  uint32_t db = 0;
  int protocol = 2;
  std::string client_name;  // for SLOWLOG entries
  std::vector<RemoteItem> items;
  // Parts (SendPart): the items before `sent` went home; `unsent_bytes` are the replies of
  // those run since. Owner's.
  size_t sent = 0;
  size_t unsent_bytes = 0;
  // The connection closed while a part was on its way: what was not run is dropped.
  std::atomic<bool> abandoned{false};
  // Set when the home armed it for this batch (one item): the owner may send its reply.
  std::shared_ptr<DirectReply> direct;
};

// Whether spec may run with no-wait reads and wait for a fetch (it changes no data).
bool Parkable(const command::CommandSpec& spec);

// Prefetches the keys of the items [begin, end) not yet run, of database db, for the owner
// about to run them (command::Keyspace::Prefetch): a remote batch's on its owner, a read's
// local writes on the connection's worker (Connection::RunDeferred).
void PrefetchItems(command::ServerState& state, uint32_t db, const RemoteItem* begin,
                   const RemoteItem* end);

// Runs a parkable command: with no-wait reads while *tries < kNoWaitTries (a miss counts a try,
// adds its regions to *blocked and returns false), then waiting for the disk.
bool RunRead(command::ServerState& state, const command::CommandSpec& spec,
             std::vector<std::string>& args, uint32_t slot, uint32_t db, int protocol,
             const std::string& addr, const std::string& name, int* tries, std::string* reply,
             std::vector<BlockedRead>* blocked);

// Runs a batch on its owner, behind the batches of the same client still waiting there.
// REQUIRES: on batch->owner.
void RunBatch(Server* server, const std::shared_ptr<RemoteBatch>& batch);

// The client took a part of batch: the rest runs on (posted to the batch's owner).
void ResumeBatch(Server* server, const std::shared_ptr<RemoteBatch>& batch);

}  // namespace slotkv::net
