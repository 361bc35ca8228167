#include "net/server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <latch>
#include <mutex>

#include "core/base/hash.h"
#include "core/command/acl_check.h"
#include "core/command/process_memory.h"
#include "net/connection.h"
#include "net/open_files.h"
#include "net/worker.h"

namespace slotkv::net {

using boost::asio::ip::tcp;

struct Server::Listener {
  explicit Listener(boost::asio::io_context& io)
      : acceptor(io), sentinel(io), signals(io, SIGINT, SIGTERM) {}
  tcp::acceptor acceptor;
  tcp::acceptor sentinel;  // ZooKeeper mode's sentinel-port (closed otherwise)
  boost::asio::signal_set signals;
  std::mutex mu;
  std::condition_variable cv;
  bool shutdown = false;
};

namespace {

wal::FsyncPolicy FsyncOf(const std::string& name) {
  if (name == "always") return wal::FsyncPolicy::kAlways;
  if (name == "no") return wal::FsyncPolicy::kNo;
  return wal::FsyncPolicy::kEverySec;
}

}  // namespace

Server::~Server() {
  for (auto& w : workers_) w->Stop();
  for (auto& w : workers_) w->Join();
  listener_.reset();
  workers_.clear();
}

int Server::current() const { return CurrentWorker(); }

void Server::Post(int w, std::function<void()> fn) {
  boost::asio::post(workers_[static_cast<size_t>(w)]->io(), std::move(fn));
}

uint64_t Server::RunAfter(int64_t delay_ms, std::function<void()> fn) {
  return worker(current()).RunAfter(delay_ms, std::move(fn));
}

void Server::CancelTimer(uint64_t id) { worker(current()).CancelTimer(id); }

bool Server::async_reads() const { return workers_[static_cast<size_t>(current())]->async_reads(); }

void Server::Fetch(std::vector<BlockedRead> reads, std::function<void()> done) {
  worker(current()).Fetch(std::move(reads), std::move(done));
}

void Server::AfterCommit(std::function<void()> done) {
  worker(current()).AfterCommit(std::move(done));
}

Result<std::unique_ptr<Server>> Server::Start(conf::Config* config, std::string executable,
                                              const Install& install) {
  std::unique_ptr<Server> server(new Server());
  Server& s = *server;
  s.config_ = config;
  int workers = static_cast<int>(config->GetInt("workers"));
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());

  command::KeyspaceOptions ko;
  ko.dir = config->Get("dir");
  ko.streams = static_cast<bool>(install);
  ko.memory = config->Get("storage") == "memory";
  if (!ko.memory) {
    s.fs_ = NewPosixFs();
    ko.fs = s.fs_.get();
  }
  ko.slots = static_cast<uint32_t>(config->GetInt("slots"));
  ko.databases = static_cast<uint32_t>(config->GetInt("databases"));
  ko.workers = workers;
  ko.cache_budget = static_cast<uint64_t>(config->GetInt("maxmemory-cache"));
  ko.compress_min_bytes = static_cast<size_t>(config->GetInt("compress-min-bytes"));
  ko.compress_max_bytes = static_cast<size_t>(config->GetInt("compress-max-bytes"));
  ko.compress_group_chars = static_cast<size_t>(config->GetInt("compress-group-chars"));
  ko.slot.fsync = FsyncOf(config->Get("appendfsync"));
  ko.slot.key_estimate =
      std::max<uint64_t>(1024, static_cast<uint64_t>(config->GetInt("key-estimate")) / ko.slots);
  // A slot can only drop whole log files older than its current one: files of a quarter of
  // its share let it keep the log near the share.
  ko.slot.wal_max_bytes = std::max<uint64_t>(
      4 << 20, static_cast<uint64_t>(config->GetInt("wal-max-bytes")) / ko.slots);
  ko.slot.wal_file_bytes = std::min<uint64_t>(16 << 20, ko.slot.wal_max_bytes / 4);
  ko.slot.wal_ring_writes = config->GetBool("wal-io-uring-writes");
  SLOTKV_ASSIGN_OR_RETURN(s.keyspace_, command::Keyspace::Open(ko));
  // Enough descriptors for maxclients besides the engine's files, or fewer clients.
  const OpenFiles files =
      AdjustOpenFiles(config->GetInt("maxclients"),
                      ReservedFiles(s.keyspace_->slots(), s.keyspace_->databases()));
  if (!files.warning.empty()) {
    std::fprintf(stderr, "slotkv-server: %s\n", files.warning.c_str());
    SLOTKV_RETURN_IF_ERROR(config->Set("maxclients", std::to_string(files.maxclients)));
  }
  // Nor may CONFIG SET raise it past what the descriptors allow: the engine's files come first.
  config->Cap("maxclients", files.fit);

  s.table_ = command::BuildCommandTable();
  for (int i = 0; i < workers; ++i) {
    s.stats_.push_back(std::make_unique<command::WorkerStats>(s.table_->id_count()));
  }
  s.dirty_.resize(static_cast<size_t>(workers));
  command::ServerState& st = s.state_;
  st.config = config;
  st.keyspace = s.keyspace_.get();
  st.executor = &s;
  st.clients = &s;
  st.table = s.table_.get();
  st.slowlog = &s.slowlog_;
  s.blocking_ = std::make_unique<command::Blocking>(&st, workers);
  // A publish's messages for one worker go there in one post, to its connections.
  Server* self = &s;
  s.pubsub_ = std::make_unique<pubsub::Registry>([self](int w, pubsub::Batch batch) {
    self->Post(w, [self, w, batch = std::move(batch)] {
      const auto& conns = self->worker(w).connections();
      for (const auto& [client, message] : batch) {
        auto it = conns.find(client);
        if (it != conns.end()) it->second->Deliver(*message);
      }
    });
  });
  st.pubsub = s.pubsub_.get();
  // An invalidation whose REDIRECT client went away tells its tracking client so.
  s.tracking_ = std::make_unique<command::Tracking>(
      &s, workers, [self](int w, uint64_t client, std::shared_ptr<const pubsub::Message> m) {
        self->Post(w, [self, w, client, m = std::move(m)] {
          const auto& conns = self->worker(w).connections();
          if (auto it = conns.find(client); it != conns.end()) {
            it->second->Deliver(*m);
          } else if (m->origin != client) {
            self->Post(m->origin_worker, [self, m] {
              const auto& origin = self->worker(m->origin_worker).connections();
              if (auto it = origin.find(m->origin); it != origin.end()) {
                it->second->TrackingRedirectBroken();
              }
            });
          }
        });
      });
  st.tracking = s.tracking_.get();
  s.keyspace_->set_tracking(s.tracking_.get());
  SLOTKV_ASSIGN_OR_RETURN(s.users_, command::StartUsers(*s.table_, *config));
  st.users = s.users_.get();
  st.acl_log = &s.acl_log_;
  s.scripts_ = std::make_unique<script::Scripts>(workers);
  st.scripts = s.scripts_.get();
  // FUNCTION's libraries are kept in dir/functions.rdb (not with pure-memory storage).
  s.functions_ = std::make_unique<script::Functions>(ko.memory ? nullptr : s.fs_.get(),
                                                     ko.dir + "/functions.rdb");
  SLOTKV_RETURN_IF_ERROR(s.functions_->Open());
  st.functions = s.functions_.get();
  st.fs = ko.memory ? nullptr : s.fs_.get();
  st.blocking = s.blocking_.get();
  st.pause = &s.pause_;
  s.keyspace_->set_watcher(s.blocking_.get());
  st.stats = &s.stats_;
  st.dirty = &s.dirty_;
  st.start_ms = st.keyspace->clock()->NowMs();
  st.startup_allocated = command::ReadProcessMemory().used();
  st.last_save_s = st.start_ms / 1000;
  st.run_id = RandomHexId();
  st.executable = std::move(executable);
  st.shutdown = [&s] { s.RequestShutdown(); };
  st.RefreshLive();

  const bool async_reads = !ko.memory && config->GetBool("io-uring");
  for (int i = 0; i < workers; ++i) {
    s.workers_.push_back(std::make_unique<Worker>(&s, i, async_reads));
  }
  if (install) SLOTKV_RETURN_IF_ERROR(install(st));
  s.listener_ = std::make_unique<Listener>(s.workers_[0]->io());
  SLOTKV_RETURN_IF_ERROR(s.Listen(s.listener_->acceptor, config->GetInt("port"), &s.port_));
  st.tcp_port = s.port_;
  // ZooKeeper mode answers Sentinel's client commands, on a port of their own as Sentinel
  // does (the same commands as the main port: it is the same server).
  if (!config->Get("zookeeper-connect").empty()) {
    int64_t port = config->GetInt("sentinel-port");
    if (port == 0) port = s.port_ + 20000;
    SLOTKV_RETURN_IF_ERROR(s.Listen(s.listener_->sentinel, port, &st.sentinel_port));
  }
  s.listener_->signals.async_wait([&s](const boost::system::error_code& ec, int) {
    if (!ec) s.RequestShutdown();
  });
  s.Accept(&s.listener_->acceptor);
  if (s.listener_->sentinel.is_open()) s.Accept(&s.listener_->sentinel);
  for (auto& w : s.workers_) w->Start();
  return server;
}

Status Server::Listen(tcp::acceptor& a, int64_t port, int* bound) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(config_->Get("bind"), ec);
  if (ec) return Status::InvalidArgument("bind '" + config_->Get("bind") + "': " + ec.message());
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(511, ec);
  if (ec) {
    return Status::IOError("listen on " + config_->Get("bind") + ":" + std::to_string(port) +
                           ": " + ec.message());
  }
  *bound = a.local_endpoint().port();
  return Status::OK();
}

void Server::Accept(tcp::acceptor* acceptor) {
  Worker* target = workers_[next_worker_].get();
  next_worker_ = (next_worker_ + 1) % workers_.size();
  acceptor->async_accept(
      target->io(),
      [this, target, acceptor](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == boost::asio::error::operation_aborted) return;
        if (ec) {
          // Out of descriptors (EMFILE, ENFILE) or memory: the connection stays in the backlog
          // and accepting again at once would spin. Try again in a moment.
          static std::atomic<int64_t> last_logged_s{0};
          const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count();
          if (last_logged_s.exchange(now_s) != now_s) {
            std::fprintf(stderr, "slotkv-server: accept: %s (retrying every 100 ms)\n",
                         ec.message().c_str());
          }
          // On the acceptor's own worker, as every Accept (asio objects are not thread-safe).
          auto timer = std::make_shared<boost::asio::steady_timer>(
              acceptor->get_executor(), std::chrono::milliseconds(100));
          timer->async_wait([this, timer, acceptor](const boost::system::error_code& wait) {
            if (!wait) Accept(acceptor);
          });
          return;
        }
        {
          command::WorkerStats::Add(stats_[0]->connections_received);
          if (connected_.load() >= state_.maxclients.load()) {
            static constexpr char kFull[] = "-ERR max number of clients reached\r\n";
            boost::system::error_code ignored;
            socket.write_some(boost::asio::buffer(kFull, sizeof kFull - 1), ignored);
            socket.close(ignored);
            command::WorkerStats::Add(stats_[0]->rejected_connections);
          } else {
            connected_.fetch_add(1, std::memory_order_relaxed);
            const uint64_t id = NextClientId();  // in accept order, as Redis numbers clients
            boost::asio::post(target->io(), [target, id, sock = std::move(socket)]() mutable {
              target->Adopt(std::move(sock), id);
            });
          }
        }
        Accept(acceptor);
      });
}

void Server::RequestShutdown() {
  std::lock_guard lock(listener_->mu);
  listener_->shutdown = true;
  listener_->cv.notify_all();
}

Status Server::PersistAll() {
  std::latch done(static_cast<std::ptrdiff_t>(workers_.size()));
  std::mutex mu;
  Status first;
  for (int w = 0; w < workers(); ++w) {
    Post(w, [this, w, &done, &mu, &first] {
      command::Keyspace& ks = *keyspace_;
      for (uint32_t s = static_cast<uint32_t>(w); s < ks.slots();
           s += static_cast<uint32_t>(workers())) {
        for (uint32_t db = 0; db < ks.databases(); ++db) {
          Result<slot::Slot*> slot = ks.Get(s, db, false);
          Status st = slot.ok() ? (*slot ? (*slot)->Flush() : Status::OK()) : slot.status();
          if (!st.ok()) {
            std::lock_guard lock(mu);
            if (first.ok()) first = std::move(st);
          }
        }
      }
      done.count_down();
    });
  }
  done.wait();
  return first;
}

Status Server::Wait() {
  {
    std::unique_lock lock(listener_->mu);
    listener_->cv.wait(lock, [this] { return listener_->shutdown; });
  }
  std::latch closed(1);
  Post(0, [this, &closed] {
    boost::system::error_code ec;
    listener_->acceptor.close(ec);
    listener_->sentinel.close(ec);
    listener_->signals.cancel(ec);
    closed.count_down();
  });
  closed.wait();
  Status st = PersistAll();
  for (auto& w : workers_) w->Stop();
  for (auto& w : workers_) w->Join();
  return st;
}

std::vector<command::ClientInfo> Server::ListLocal() {
  std::vector<command::ClientInfo> out;
  for (const auto& [id, conn] : workers_[static_cast<size_t>(current())]->connections()) {
    out.push_back(conn->Info());
  }
  return out;
}

int Server::KillLocal(
    const std::function<bool(const command::ClientInfo&, const command::ClientState&)>& match) {
  std::vector<std::shared_ptr<Connection>> victims;
  for (const auto& [id, conn] : workers_[static_cast<size_t>(current())]->connections()) {
    if (match(conn->Info(), conn->client())) victims.push_back(conn);
  }
  for (auto& conn : victims) conn->Close();
  return static_cast<int>(victims.size());
}

bool Server::MakeFeedLocal(uint64_t id, std::shared_ptr<std::atomic<int64_t>> unsent,
                           std::function<void()> on_close) {
  const auto& conns = workers_[static_cast<size_t>(current())]->connections();
  auto it = conns.find(id);
  if (it == conns.end()) return false;
  it->second->MakeFeed(std::move(unsent), std::move(on_close));
  return true;
}

bool Server::PushLocal(uint64_t id, std::string bytes) {
  const auto& conns = workers_[static_cast<size_t>(current())]->connections();
  auto it = conns.find(id);
  if (it == conns.end()) return false;
  it->second->Push(std::move(bytes));
  return true;
}

bool Server::UnblockLocal(uint64_t id, bool error) {
  const auto& conns = workers_[static_cast<size_t>(current())]->connections();
  auto it = conns.find(id);
  return it != conns.end() && it->second->Unblock(error);
}

}  // namespace slotkv::net
