#include "repl/link.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "core/base/number.h"
#include "core/command/blocking.h"
#include "core/command/keyspace.h"
#include "core/command/tracking.h"
#include "core/pubsub/registry.h"
#include "net/resp_parser.h"
#include "repl/frames.h"
#include "repl/master.h"
#include "slot/dictionaries.h"
#include "wal/record.h"

namespace slotkv::repl {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A connected TCP socket to host:port within timeout_ms, or -1 with *error set.
int Connect(const std::string& host, int port, int timeout_ms, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    *error = gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      *error = std::strerror(errno);
      close(fd);
      fd = -1;
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ||
        err != 0) {
      *error = err != 0 ? std::strerror(err) : "connect timed out";
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd >= 0) {
    const int one = 1;  // acknowledgements are small: no Nagle delay behind frames in flight
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

std::optional<uint64_t> Number(const std::string& s) {
  std::optional<int64_t> v = ParseInt64(s);
  if (!v || *v < 0) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

}  // namespace

// One connection to the master.
struct Link::Conn {
  int fd = -1;
  std::string in;
  net::RespParser parser;
  int64_t last_ack_ms = 0;
  bool hello = false;

  // Writes all of data (the socket is non-blocking: waits for room). False on error.
  bool Send(const std::string& data) const {
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n > 0) {
        done += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        pollfd p{fd, POLLOUT, 0};
        if (poll(&p, 1, 1000) < 0 && errno != EINTR) return false;
        continue;
      }
      return false;
    }
    return true;
  }
};

Link::Link(command::ServerState* state, Master* master, Options options)
    : state_(state),
      master_(master),
      options_(std::move(options)),
      databases_(state->keyspace->databases()),
      offsets_(new std::atomic<uint64_t>[master->streams()]()),
      in_sync_(new bool[master->streams()]()),
      streams_(master->streams()) {
  for (size_t i = 0; i < streams_; ++i) {
    in_sync_[i] = i < options_.partial.size() && options_.partial[i];
  }
  down_since_ms_ = NowMs();
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

Link::~Link() {
  Stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void Link::AckNow() {
  ack_now_ = true;
  const uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof one);
}

void Link::Start() { thread_ = std::thread([this] { Run(); }); }

void Link::Stop() {
  stop_ = true;
  {
    std::lock_guard lock(fd_mu_);
    if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
  }
  if (thread_.joinable()) thread_.join();
}

bool Link::Drop() {
  std::lock_guard lock(fd_mu_);
  if (fd_ < 0) return false;
  shutdown(fd_, SHUT_RDWR);
  return true;
}

uint64_t Link::offset() const {
  uint64_t sum = 0;
  for (size_t i = 0; i < streams_; ++i) sum += offsets_[i].load();
  return sum;
}

std::vector<uint64_t> Link::offsets() const {
  std::vector<uint64_t> out(streams_);
  for (size_t i = 0; i < streams_; ++i) out[i] = offsets_[i].load();
  return out;
}

void Link::Run() {
  while (!stop_) {
    Session();
    link_state_ = State::kConnect;
    for (int i = 0; i < 10 && !stop_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

void Link::TakeOffsets() {
  command::Executor& ex = *state_->executor;
  auto pending = std::make_shared<std::atomic<int>>(ex.workers());
  for (int w = 0; w < ex.workers(); ++w) {
    ex.Post(w, [this, pending] { state_->executor->AfterCommit([pending] { --*pending; }); });
  }
  while (pending->load() > 0 && !stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (size_t i = 0; i < streams_; ++i) offsets_[i] = master_->stream_offset(i);
}

void Link::Session() {
  TakeOffsets();
  link_state_ = State::kConnecting;
  std::string error;
  const int fd = Connect(options_.host, options_.port, 2000, &error);
  if (fd < 0) {
    std::fprintf(stderr, "repl: cannot connect to master %s:%d: %s\n", options_.host.c_str(),
                 options_.port, error.c_str());
    return;
  }
  {
    std::lock_guard lock(fd_mu_);
    fd_ = fd;
  }
  Conn conn;
  conn.fd = fd;
  link_state_ = State::kHandshake;
  conf::Config& config = *state_->config;
  std::string hello;
  const std::string auth = config.Get("masterauth");
  if (!auth.empty()) {
    const std::string user = config.Get("masteruser");
    hello += user.empty() ? EncodeFrame({"AUTH", auth}) : EncodeFrame({"AUTH", user, auth});
  }
  // The streams whose data is whole: a stream cut off in its full sync is left out, so the
  // master syncs it again.
  const std::string announce_ip = config.Get("replica-announce-ip");
  int64_t port = config.GetInt("replica-announce-port");
  if (port == 0) port = state_->tcp_port;
  size_t n = 0;
  const std::string tail = Offsets(false, &n);
  std::string sync = "*" + std::to_string(7 + n) + "\r\n";
  AppendBulk(&sync, "SLOTKV.SYNC");
  AppendBulk(&sync, std::to_string(port));
  AppendBulk(&sync, announce_ip.empty() ? "-" : announce_ip);
  AppendBulk(&sync, std::to_string(state_->keyspace->slots()));
  AppendBulk(&sync, std::to_string(databases_));
  AppendBulk(&sync, std::to_string(options_.epoch ? options_.epoch() : 0));
  AppendBulk(&sync, options_.replid);
  sync += tail;
  bool ok = conn.Send(hello + sync);
  int64_t last_io = NowMs();
  last_io_ms_ = last_io;
  const int64_t timeout_ms = config.GetInt("repl-timeout") * 1000;
  std::vector<std::string> args;
  char buf[64 * 1024];
  while (ok && !stop_) {
    pollfd p[2] = {{fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const int ready = poll(p, wake_fd_ >= 0 ? 2 : 1, 100);
    const int64_t now = NowMs();
    if (ready > 0 && (p[1].revents & POLLIN)) {
      uint64_t drained = 0;
      (void)!read(wake_fd_, &drained, sizeof drained);
    }
    if (ready > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      const ssize_t got = recv(fd, buf, sizeof buf, 0);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        error = got == 0 ? "closed by the master" : std::strerror(errno);
        break;
      }
      if (got > 0) {
        conn.in.append(buf, static_cast<size_t>(got));
        last_io = now;
        last_io_ms_ = now;
      }
      size_t pos = 0;
      while (ok) {
        size_t used = 0;
        const auto st = conn.parser.Parse(std::string_view(conn.in).substr(pos), &args, &used);
        pos += used;
        if (st == net::RespParser::State::kNeedMore) break;
        if (st == net::RespParser::State::kError) {
          error = "bad frame: " + conn.parser.error();
          ok = false;
          break;
        }
        ok = OnFrame(conn, args);
        if (!ok) error = "bad frame " + args[0] + " of " + std::to_string(args.size());
      }
      conn.in.erase(0, pos);
      while (ok && !stop_ && inflight_.load() > kApplyWindow) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } else if (ready < 0 && errno != EINTR) {
      error = std::strerror(errno);
      break;
    }
    if (broken_.exchange(false)) {
      error = "applying the master's writes failed";
      break;
    }
    if (conn.hello && (now - conn.last_ack_ms >= 1000 || ack_now_.exchange(false))) {
      SendAcks(conn);
    }
    if (now - last_io > timeout_ms) {
      error = "no data from the master for " + std::to_string(timeout_ms / 1000) + "s";
      break;
    }
  }
  {
    std::lock_guard lock(fd_mu_);
    fd_ = -1;
  }
  close(fd);
  if (link_state_.load() == State::kConnected || conn.hello) {
    std::fprintf(stderr, "repl: link to master %s:%d down: %s\n", options_.host.c_str(),
                 options_.port, stop_ ? "stopped" : error.c_str());
  } else if (!stop_) {
    std::fprintf(stderr, "repl: sync with master %s:%d failed: %s\n", options_.host.c_str(),
                 options_.port, error.c_str());
  }
  down_since_ms_ = NowMs();
}

bool Link::OnFrame(Conn& conn, std::vector<std::string>& args) {
  const std::string& name = args[0];
  if (!conn.hello) {
    if (name != "HELLO" || args.size() != 5) {
      std::string reply;
      for (const std::string& a : args) reply += (reply.empty() ? "" : " ") + a;
      if (name == "+OK") return true;  // AUTH's reply
      std::fprintf(stderr, "repl: master %s:%d refused the link: %s\n", options_.host.c_str(),
                   options_.port, reply.c_str());
      return false;
    }
    if (args[2] != std::to_string(state_->keyspace->slots()) ||
        args[3] != std::to_string(databases_)) {
      return false;
    }
    const std::optional<uint64_t> epoch = Number(args[4]);
    const uint64_t ours = options_.epoch ? options_.epoch() : 0;
    if (!epoch || *epoch < ours) {
      std::fprintf(stderr, "repl: master %s:%d is at epoch %s, before this node's %llu: refused\n",
                   options_.host.c_str(), options_.port, args[4].c_str(),
                   static_cast<unsigned long long>(ours));
      return false;
    }
    if (*epoch > ours && options_.on_epoch) options_.on_epoch(*epoch);
    conn.hello = true;
    dict_ids_ = std::make_shared<DictIds>(slot::Dictionaries::kMaxDicts);
    options_.replid = args[1];
    if (options_.on_master_id) options_.on_master_id(args[1]);
    ++session_;
    pending_ = static_cast<int>(streams_);
    syncing_ = 0;
    link_state_ = State::kSync;
    std::fprintf(stderr, "repl: linked to master %s:%d (replid %s)\n", options_.host.c_str(),
                 options_.port, args[1].c_str());
    return true;
  }
  if (!name.empty() && name[0] == '-') {
    std::string reply;
    for (const std::string& a : args) reply += (reply.empty() ? "" : " ") + a;
    std::fprintf(stderr, "repl: master %s:%d replied %s\n", options_.host.c_str(),
                 options_.port, reply.c_str());
    return false;
  }
  if (name == "PING") return true;
  if ((name == "PUB" || name == "SPUB") && args.size() == 3) {
    state_->pubsub->Publish(name == "PUB" ? pubsub::Kind::kChannel : pubsub::Kind::kShard,
                            args[1], args[2]);
    return true;
  }
  if (name == "FAILOVER") {
    std::fprintf(stderr, "repl: master %s:%d hands over (FAILOVER)\n", options_.host.c_str(),
                 options_.port);
    if (options_.on_failover) options_.on_failover();
    return true;
  }
  if (name == "DICT") return AdoptDict(args);
  if (name == "DBMAP") return AdoptDbMap(args);
  if (name == "GETACK") {
    // Acknowledge now, and again as each frame before it commits (a master's WAIT needs them).
    getack_ms_ = NowMs();
    AckNow();
    return true;
  }
  if (args.size() < 3) return false;
  std::optional<uint64_t> s64 = Number(args[1]);
  std::optional<uint64_t> db64 = Number(args[2]);
  if (!s64 || !db64 || *s64 >= state_->keyspace->slots() || *db64 >= databases_) return false;
  const auto s = static_cast<uint32_t>(*s64);
  const auto db = static_cast<uint32_t>(*db64);
  const size_t i = Index(s, db);
  const std::optional<uint64_t> parsed = args.size() > 3 ? Number(args[3]) : std::nullopt;
  const bool has_offset = parsed.has_value();
  const uint64_t offset_value = parsed.value_or(0);
  const uint64_t* offset = has_offset ? &offset_value : nullptr;
  const uint64_t session = session_.load();
  if (name == "CONT" && offset) {
    if (in_sync_[i]) {  // its copy is unfinished: only a full sync makes it whole
      std::fprintf(stderr, "repl: db %u slot %u: the master continues a stream this node "
                   "did not list\n", db, s);
      return false;
    }
    if (*offset > 0) {
      std::fprintf(stderr, "repl: db %u slot %u: CONTINUE from %llu\n", db, s,
                   static_cast<unsigned long long>(*offset));
    }
    Online(session);
    return true;
  }
  if (name == "FULL") {
    std::fprintf(stderr, "repl: db %u slot %u: FULL sync\n", db, s);
    in_sync_[i] = true;
    if (syncing_++ == 0 && options_.on_partial) options_.on_partial(true);
    ToOwner(s, 0, [this, s, db] {
      master_->Suspend(s, db);
      Staging(s, db, "starting", [](command::Store& store) { return store.BeginStaging(); });
    });
    return true;
  }
  if (name == "DATA" && args.size() == 4) {
    const size_t bytes = args[3].size();
    ToOwner(s, bytes, [this, s, db, ids = dict_ids_, records = std::move(args[3])] {
      Apply(s, db, records, 0, *ids);
    });
    return true;
  }
  if (name == "UNIT" && args.size() == 5 && offset) {
    const size_t bytes = args[4].size();
    const uint64_t off = in_sync_[i] ? 0 : *offset;
    ToOwner(s, bytes, [this, s, db, off, ids = dict_ids_, records = std::move(args[4])] {
      Apply(s, db, records, off, *ids);
    });
    return true;
  }
  if (name == "SYNCED" && offset) {
    in_sync_[i] = false;
    const uint64_t off = *offset;
    ToOwner(s, 0, [this, s, db, i, off, session] {
      Staging(s, db, "swapping in",
              [off](command::Store& store) { return store.FinishStaging(off); });
      master_->Resume(s, db, off);
      state_->executor->AfterCommit([this, i, off, session] {
        offsets_[i] = off;
        if (session != session_.load() || stop_) return;
        if (--syncing_ == 0 && options_.on_partial) options_.on_partial(false);
        AckNow();
        Online(session);
      });
    });
    return true;
  }
  if (name == "CLEAR" && offset && in_sync_[i]) {  // the master's copy starts over
    ToOwner(s, 0, [this, s, db] {
      Staging(s, db, "restarting", [](command::Store& store) { return store.BeginStaging(); });
    });
    return true;
  }
  if (name == "CLEAR" && offset) {
    const uint64_t off = *offset;
    ToOwner(s, 0, [this, s, db, i, off] {
      Staging(s, db, "emptying", [off](command::Store& store) { return store.Clear(off); });
      state_->executor->AfterCommit([this, i, off] { offsets_[i] = off; });
    });
    return true;
  }
  std::fprintf(stderr, "repl: unknown frame %s from the master\n", name.c_str());
  return false;
}

void Link::Online(uint64_t session) {
  if (session != session_.load() || --pending_ != 0) return;
  State expected = State::kSync;  // not when the link dropped meanwhile
  link_state_.compare_exchange_strong(expected, State::kConnected);
}

void Link::Staging(uint32_t s, uint32_t db, const char* what,
                   const std::function<Status(command::Store&)>& step) {
  std::vector<slot::Slot*>& dirty = (*state_->dirty)[state_->executor->current()];
  command::Store store = command::Store::OfStream(state_->keyspace, s, db, &dirty);
  Status st = step(store);
  if (st.ok()) return;
  std::fprintf(stderr, "repl: db %u slot %u: %s failed: %s\n", db, s, what,
               st.ToString().c_str());
  broken_ = true;
}

void Link::ToOwner(uint32_t s, size_t bytes, std::function<void()> job) {
  inflight_ += static_cast<int64_t>(bytes);
  command::Executor& ex = *state_->executor;
  ex.Post(ex.OwnerOf(s), [this, bytes, job = std::move(job)] {
    job();
    inflight_ -= static_cast<int64_t>(bytes);
  });
}

bool Link::AdoptDict(const std::vector<std::string>& args) {
  std::optional<uint64_t> id = args.size() == 4 ? Number(args[1]) : std::nullopt;
  if (!id || *id == 0 || *id >= dict_ids_->size()) return false;
  std::atomic<uint32_t>& local = (*dict_ids_)[*id];
  if (local.load() != 0) return true;  // another worker of the master sent it too
  Result<uint32_t> adopted = state_->keyspace->dictionaries()->Adopt(args[2], args[3]);
  if (!adopted.ok()) {
    std::fprintf(stderr, "repl: the master's dictionary %llu (group %s) could not be kept: %s\n",
                 static_cast<unsigned long long>(*id), args[2].c_str(),
                 adopted.status().ToString().c_str());
    return false;
  }
  local = *adopted;
  return true;
}

bool Link::AdoptDbMap(const std::vector<std::string>& args) {
  std::optional<std::vector<uint32_t>> map = ParseDbMap(args, databases_);
  if (!map) return false;
  command::Keyspace& ks = *state_->keyspace;
  if (*map == ks.db_map()) return true;
  if (Status st = ks.SetDbMap(*map); !st.ok()) {
    std::fprintf(stderr, "repl: the master's database map (SWAPDB) could not be kept: %s\n",
                 st.ToString().c_str());
    return false;
  }
  std::fprintf(stderr, "repl: databases mapped as the master's (SWAPDB)\n");
  command::Executor& ex = *state_->executor;
  const int owners = static_cast<int>(std::min<uint32_t>(ex.workers(), ks.slots()));
  auto left = std::make_shared<std::atomic<int>>(owners);
  for (int w = 0; w < owners; ++w) {
    ToOwner(static_cast<uint32_t>(w), 0, [this, w, left, map = *map] {
      command::Keyspace& keyspace = *state_->keyspace;
      for (uint32_t s = static_cast<uint32_t>(w); s < keyspace.slots();
           s += static_cast<uint32_t>(state_->executor->workers())) {
        keyspace.AdoptDbMap(s);
      }
      if (state_->blocking != nullptr) state_->blocking->ServeReady();
      if (left->fetch_sub(1) != 1) return;
      if (state_->tracking != nullptr) state_->tracking->InvalidateEverything();
      master_->SendDbMap(map);
    });
  }
  return true;
}

void Link::Apply(uint32_t s, uint32_t db, const std::string& records, uint64_t offset,
                 const DictIds& ids) {
  command::WriteTrace trace;
  trace.mark = state_->write_failures.Mark();
  std::vector<slot::Slot*>& dirty = (*state_->dirty)[state_->executor->current()];
  command::Store store = command::Store::OfStream(state_->keyspace, s, db, &dirty, &trace);
  std::string_view in = records;
  Status st;
  wal::Record record;
  while (st.ok() && !in.empty()) {
    size_t used = 0;
    if (wal::DecodeRecord(in, &record, &used) != wal::DecodeResult::kOk) {
      st = Status::Corruption("a record the master sent does not decode");
      break;
    }
    in.remove_prefix(used);
    uint32_t id = 0;
    if (record.kind == wal::RecordKind::kPut && (record.type_tag & slot::kCompressedTag) &&
        (!slot::StoredDictId(record.value, &id) || id >= ids.size())) {
      st = Status::Corruption("a compressed value the master sent has a bad header");
      break;
    }
    if (id != 0) {
      const uint32_t local = ids[id].load();
      if (local == 0) {
        st = Status::Corruption("the master sent a value of its dictionary " +
                                std::to_string(id) + " before the dictionary");
        break;
      }
      if (local != id) record.value = slot::WithDictId(record.value, local);
    }
    st = store.Apply(record);
  }
  if (state_->blocking != nullptr) state_->blocking->ServeReady();
  if (!st.ok()) {
    std::fprintf(stderr, "repl: db %u slot %u: applying failed: %s\n", db, s,
                 st.ToString().c_str());
    broken_ = true;
    return;
  }
  const size_t i = Index(s, db);
  state_->executor->AfterCommit([this, i, offset, trace = std::move(trace)] {
    if (!state_->write_failures.Outcome(trace).ok()) {
      broken_ = true;
      return;
    }
    if (offset == 0) return;
    offsets_[i] = offset;
    if (NowMs() - getack_ms_.load() < 1000) AckNow();
  });
}

std::string Link::Offsets(bool skip_zero, size_t* bulks) const {
  std::string out;
  for (size_t i = 0; i < streams_; ++i) {
    const uint64_t off = offsets_[i].load();
    if (in_sync_[i] || (skip_zero && off == 0)) continue;
    AppendOffset(&out, {static_cast<uint32_t>(i / databases_),
                        static_cast<uint32_t>(i % databases_), off});
    *bulks += 3;
  }
  return out;
}

void Link::SendAcks(Conn& conn) {
  conn.last_ack_ms = NowMs();
  size_t n = 0;
  const std::string tail = Offsets(true, &n);
  std::string cmd = "*" + std::to_string(1 + n) + "\r\n";
  AppendBulk(&cmd, "SLOTKV.ACK");
  cmd += tail;
  if (!conn.Send(cmd)) broken_ = true;
}

}  // namespace slotkv::repl
