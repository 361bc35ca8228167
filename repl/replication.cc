#include "repl/replication.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "core/base/hash.h"
#include "core/command/args.h"
#include "core/command/errors.h"
#include "core/pubsub/registry.h"
#include "repl/sentinel.h"

namespace slotkv::repl {
namespace {

constexpr std::string_view kStateHeader = "# slotkv replication state\n";
constexpr char kStateFile[] = "/replication.state";

std::optional<int> ParsePort(std::string_view s) {
  std::optional<int64_t> port = ParseInt64(s);
  if (!port || *port < 0 || *port > 65535) return std::nullopt;
  return static_cast<int>(*port);
}

void Field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out += ':';
  out.append(value);
  out += "\r\n";
}
void Field(std::string& out, std::string_view name, int64_t value) {
  Field(out, name, std::to_string(value));
}

constexpr std::string_view StateName(Link::State s) {
  switch (s) {
    case Link::State::kConnect: return "connect";
    case Link::State::kConnecting: return "connecting";
    case Link::State::kHandshake: return "handshake";
    case Link::State::kSync: return "sync";
    case Link::State::kConnected: return "connected";
  }
  return "connect";
}

}  // namespace

Result<SavedRole> ParseReplicaOf(std::string_view value) {
  SavedRole role;
  std::istringstream in{std::string(value)};
  std::string host;
  std::string port;
  std::string extra;
  in >> host >> port >> extra;
  if (host.empty()) return role;
  std::optional<int> p = ParsePort(port);
  if (!p || !extra.empty()) {
    return Status::InvalidArgument("replicaof '" + std::string(value) + "': want <host> <port>");
  }
  role.host = host;
  role.port = *p;
  return role;
}

Result<SavedRole> ParseState(std::string_view text) {
  SavedRole role;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    const std::string name = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (name == "replicaof") {
      SLOTKV_ASSIGN_OR_RETURN(SavedRole r, ParseReplicaOf(value));
      role.host = r.host;
      role.port = r.port;
    } else if (name == "master-replid" && value.size() == 40) {
      role.master_replid = value;
    } else {
      return Status::InvalidArgument("replication.state: bad line '" + line + "'");
    }
  }
  return role;
}

std::string FormatState(const SavedRole& role) {
  std::string out(kStateHeader);
  if (!role.host.empty()) out += "replicaof " + role.host + " " + std::to_string(role.port) + "\n";
  if (!role.master_replid.empty()) out += "master-replid " + role.master_replid + "\n";
  return out;
}

Replication::Replication(command::ServerState* state)
    : state_(state), master_(std::make_unique<Master>(state)) {}

Replication::~Replication() { Stop(); }

Result<std::unique_ptr<Replication>> Replication::Install(command::ServerState* state) {
  std::unique_ptr<Replication> r(new Replication(state));
  SLOTKV_ASSIGN_OR_RETURN(r->role_, ParseReplicaOf(state->config->Get("replicaof")));
  const std::string path = state->config->Get("dir") + kStateFile;
  if (state->fs != nullptr && state->fs->Exists(path)) {
    SLOTKV_ASSIGN_OR_RETURN(std::string text, state->fs->ReadFile(path));
    SLOTKV_ASSIGN_OR_RETURN(SavedRole saved, ParseState(text));
    if (r->role_.host.empty()) r->role_.host = saved.host, r->role_.port = saved.port;
    r->role_.master_replid = saved.master_replid;
  }
  // A replica's data continues its master's history: it keeps that id (a master's history
  // starts anew with each start, so its replicas sync in full).
  if (!r->role_.host.empty() && !r->role_.master_replid.empty()) {
    r->master_->Adopt(r->role_.master_replid);
  }
  r->replica_ = !r->role_.host.empty();
  r->Refresh();
  // ZooKeeper mode is decided here, before the workers run (they read coordinator_ at every
  // write); its thread starts with Start.
  conf::Config& config = *state->config;
  if (!config.Get("zookeeper-connect").empty()) {
    // Known in ZooKeeper by the address a replica announces, else the one bound.
    r->self_host_ = config.Get("replica-announce-ip");
    if (r->self_host_.empty()) r->self_host_ = config.Get("bind");
    if (r->self_host_ == "0.0.0.0" || r->self_host_ == "::") r->self_host_ = "127.0.0.1";
    r->self_port_ = static_cast<int>(config.GetInt("replica-announce-port"));
    Coordinator::Options options;
    options.hosts = config.Get("zookeeper-connect");
    options.root = config.Get("zookeeper-root");
    options.session_timeout_ms = static_cast<int>(config.GetInt("zookeeper-session-timeout-ms"));
    options.down_after_ms = config.GetInt("failover-down-after-ms");
    r->coordinator_ = std::make_unique<Coordinator>(std::move(options),
                                                    static_cast<Coordinator::Node*>(r.get()));
  }
  state->replication = r.get();
  state->keyspace->set_stream_listener(r->master_.get());
  return r;
}

void Replication::Start() {
  {
    std::lock_guard change(change_mu_);
    if (replica_) StartLink();
  }
  if (coordinator_) coordinator_->Start();
  command::Executor& ex = *state_->executor;
  ex.Post(0, [this] { Tick(); });
}

void Replication::Tick() {
  if (stopped_) return;
  conf::Config& config = *state_->config;
  const int64_t now = state_->keyspace->clock()->NowMs();
  const bool ping = now - last_ping_ms_ >= config.GetInt("repl-ping-replica-period") * 1000;
  if (ping) last_ping_ms_ = now;
  master_->Tick(config.GetInt("repl-timeout"), ping);
  good_replicas_ = master_->GoodReplicas(config.GetInt("min-replicas-max-lag"));
  state_->executor->RunAfter(1000, [this] { Tick(); });
}

void Replication::Stop() {
  stopped_ = true;
  if (coordinator_) coordinator_->Stop();
  std::lock_guard change(change_mu_);
  Link* link = nullptr;
  {
    std::lock_guard lock(mu_);
    link = link_.get();
  }
  if (link != nullptr) link->Stop();  // kept in link_: jobs it posted may still run
}

void Replication::Refresh() {
  read_only_ = state_->config->GetBool("replica-read-only");
  serve_stale_ = state_->config->GetBool("replica-serve-stale-data");
  min_replicas_ = state_->config->GetInt("min-replicas-to-write");
}

bool Replication::DropMasterLink() {
  std::lock_guard lock(mu_);
  return link_ && link_->Drop();
}

std::string_view Replication::RefuseStale() const {
  if (!replica_.load() || serve_stale_.load()) return "";
  std::lock_guard lock(mu_);
  return link_ && link_->up() ? "" : command::kErrMasterDown;
}

std::string_view Replication::RefuseWrite() const {
  if (replica_.load()) return read_only_.load() ? command::kErrReadOnlyReplica : "";
  // The lease is read now, as the write executes: writes that waited on their sockets while
  // this process was stopped (SIGSTOP) are refused too.
  if (coordinator_ && SteadyNowNs() >= lease_until_ns_.load()) return command::kErrNoLease;
  if (min_replicas_.load() > 0 && good_replicas_.load() < min_replicas_.load()) {
    return command::kErrNoReplicas;
  }
  return "";
}

void Replication::StopLink() {
  std::unique_ptr<Link> old;
  {
    std::lock_guard lock(mu_);
    old = std::move(link_);
  }
  if (!old) return;
  old->Stop();  // without mu_: its thread may be waiting for it in a callback
  std::lock_guard lock(mu_);
  partial_ = old->Partial();
  retired_.push_back(std::move(old));
}

void Replication::StartLink() {
  StopLink();
  std::lock_guard lock(mu_);
  Link::Options options;
  options.host = role_.host;
  options.port = role_.port;
  options.replid = role_.master_replid.empty() ? master_->replid() : role_.master_replid;
  options.partial = partial_;
  options.on_master_id = [this](const std::string& id) {
    master_->Adopt(id);
    std::lock_guard lock(mu_);
    if (role_.master_replid == id) return;
    role_.master_replid = id;
    SaveOrLog();
  };
  options.epoch = [this] { return epoch_.load(); };
  options.on_epoch = [this](uint64_t) {
    if (coordinator_) coordinator_->Wake();
  };
  options.on_failover = [this] {
    state_->executor->Post(0, [this] { PromoteForFailover(); });
  };
  options.on_partial = [this](bool partial) {
    // Our replicas (chained) lose the history of the streams synced in full: they start
    // over, and link again once this node's link is up.
    if (partial) master_->CloseFeeds();
    std::lock_guard lock(mu_);
    if (partial_data_ == partial) return;
    partial_data_ = partial;
    SaveOrLog();
  };
  link_ = std::make_unique<Link>(state_, master_.get(), std::move(options));
  link_->Start();
}

void Replication::SaveOrLog() {
  Status st = Save();
  if (!st.ok()) {
    std::fprintf(stderr, "repl: cannot save the replication state: %s\n", st.ToString().c_str());
  }
}

Status Replication::SetRole() {
  const std::string value =
      role_.host.empty() ? "" : role_.host + " " + std::to_string(role_.port);
  SLOTKV_RETURN_IF_ERROR(state_->config->Set("replicaof", value));
  return Save();
}

Status Replication::Save() {
  if (state_->fs == nullptr) return Status::OK();
  SavedRole saved = role_;
  if (partial_data_) saved.master_replid.clear();  // restarted, it syncs everything again
  return state_->fs->WriteFileAtomic(state_->config->Get("dir") + kStateFile,
                                     FormatState(saved));
}

Status Replication::BecomeMaster(const char* why) {
  Status st;
  {
    std::lock_guard lock(mu_);
    if (!replica_) return st;
    role_ = SavedRole();
    replica_ = false;
    st = SetRole();
  }
  StopLink();
  master_->Promote(RandomHexId());
  master_->ResumeSuspended();
  std::fprintf(stderr, "repl: MASTER MODE enabled (%s)\n", why);
  return st;
}

Status Replication::BecomeReplica(const std::string& host, int port) {
  {
    std::lock_guard lock(mu_);
    if (!replica_) role_.master_replid = master_->replid();  // our own history continues
    role_.host = host;
    role_.port = port;
    SLOTKV_RETURN_IF_ERROR(SetRole());
    replica_ = true;
  }
  std::fprintf(stderr, "repl: REPLICAOF %s:%d enabled\n", host.c_str(), port);
  StartLink();
  return Status::OK();
}

void Replication::ReplicaOf(command::AsyncContext& ctx) {
  if (coordinator_) {
    ctx.reply.Error(command::kErrZkManaged);
    return;
  }
  const std::string& host = ctx.args[1];
  std::lock_guard change(change_mu_);
  if (failover_stage_.load() != kNoFailover) {
    ctx.reply.Error("ERR REPLICAOF not allowed while failing over.");
    return;
  }
  Status st;
  if (command::Is(host, "no") && command::Is(ctx.args[2], "one")) {
    st = BecomeMaster("REPLICAOF NO ONE");
  } else if (ctx.client != nullptr && ctx.client->replica) {
    ctx.reply.Error("ERR Command is not valid when client is a replica.");
    return;
  } else {
    std::optional<int> port = ParsePort(ctx.args[2]);
    if (!port) {
      ctx.reply.Error("ERR Invalid master port");
      return;
    }
    {
      std::lock_guard lock(mu_);
      if (replica_ && role_.host == host && role_.port == *port) {
        ctx.reply.SimpleString("OK Already connected to specified master");
        return;
      }
    }
    master_->CloseFeeds();  // another master, another history: ours start over
    st = BecomeReplica(host, *port);
  }
  if (!st.ok()) {
    ctx.reply.Error("ERR " + st.ToString());
    return;
  }
  ctx.reply.Ok();
}

void Replication::Role(command::Reply& reply) {
  std::lock_guard lock(mu_);
  if (replica_ && link_) {
    reply.Array(5);
    reply.Bulk("slave");
    reply.Bulk(role_.host);
    reply.Integer(role_.port);
    reply.Bulk(StateName(link_->state()));
    reply.Integer(link_->up() ? static_cast<int64_t>(link_->offset()) : -1);
    return;
  }
  const std::vector<FeedInfo> feeds = master_->Feeds();
  reply.Array(3);
  reply.Bulk("master");
  reply.Integer(static_cast<int64_t>(master_->offset()));
  reply.Array(feeds.size());
  for (const FeedInfo& f : feeds) {
    reply.Array(3);
    reply.Bulk(f.ip);
    reply.Bulk(std::to_string(f.port));
    reply.Bulk(std::to_string(f.offset));
  }
}

std::string Replication::Info() {
  std::string out;
  std::lock_guard lock(mu_);
  const int64_t now = state_->keyspace->clock()->NowMs();
  if (replica_ && link_) {
    const bool up = link_->up();
    Field(out, "role", "slave");
    Field(out, "master_host", role_.host);
    Field(out, "master_port", role_.port);
    Field(out, "master_link_status", up ? "up" : "down");
    Field(out, "master_last_io_seconds_ago",
          up ? (now - link_->last_io_ms()) / 1000 : int64_t{-1});
    Field(out, "master_sync_in_progress", link_->syncing() > 0 ? 1 : 0);
    Field(out, "slave_read_repl_offset", static_cast<int64_t>(link_->offset()));
    Field(out, "slave_repl_offset", static_cast<int64_t>(link_->offset()));
    if (!up) Field(out, "master_link_down_since_seconds", (now - link_->down_since_ms()) / 1000);
    Field(out, "slave_priority", state_->config->GetInt("replica-priority"));
    Field(out, "slave_read_only", read_only_.load() ? 1 : 0);
    Field(out, "replica_announced", 1);
  } else {
    Field(out, "role", "master");
  }
  const std::vector<FeedInfo> feeds = master_->Feeds();
  Field(out, "connected_slaves", static_cast<int64_t>(feeds.size()));
  for (size_t i = 0; i < feeds.size(); ++i) {
    const FeedInfo& f = feeds[i];
    Field(out, "slave" + std::to_string(i),
          "ip=" + f.ip + ",port=" + std::to_string(f.port) +
              ",state=" + (f.online ? "online" : "wait_bgsave") +
              ",offset=" + std::to_string(f.offset) + ",lag=" + std::to_string(f.lag_s));
  }
  if (!replica_ && min_replicas_.load() > 0) {
    Field(out, "min_slaves_good_slaves", good_replicas_.load());
  }
  Field(out, "master_failover_state", FailoverStateName());
  Field(out, "master_replid", master_->replid());
  Field(out, "master_replid2", master_->replid2());
  Field(out, "master_repl_offset", static_cast<int64_t>(master_->offset()));
  Field(out, "second_repl_offset",
        master_->has_second() ? static_cast<int64_t>(master_->second_offset()) : -1);
  Field(out, "repl_backlog_active", master_->backlog_active() ? 1 : 0);
  Field(out, "repl_backlog_size", state_->config->GetInt("repl-backlog-size"));
  // Each slot stream has its own backlog and offsets: no one first byte exists (0, Redis's
  // value without a backlog).
  Field(out, "repl_backlog_first_byte_offset", 0);
  Field(out, "repl_backlog_histlen", static_cast<int64_t>(master_->backlog_bytes()));
  return out;
}

command::ReplicationStatus Replication::GetStatus() {
  command::ReplicationStatus st;
  std::lock_guard lock(mu_);
  st.replica = replica_;
  if (replica_ && link_) {
    st.master_host = role_.host;
    st.master_port = role_.port;
    st.link_up = link_->up();
    if (!st.link_up) {
      st.link_down_s = (state_->keyspace->clock()->NowMs() - link_->down_since_ms()) / 1000;
    }
  }
  st.replid = master_->replid();
  st.offsets.resize(master_->streams());
  for (size_t i = 0; i < st.offsets.size(); ++i) st.offsets[i] = master_->stream_offset(i);
  for (FeedInfo& f : master_->Feeds()) {
    st.replicas.push_back({f.ip, f.port, f.online, f.lag_s, std::move(f.acked)});
  }
  st.failover_state = FailoverStateName();
  if (coordinator_) {
    st.cluster = coordinator_->Status();
    st.cluster.lease = !replica_ && SteadyNowNs() < lease_until_ns_.load();
  }
  return st;
}

command::Task Replication::Wait(command::AsyncContext& ctx, int64_t replicas,
                                int64_t timeout_ms) {
  if (replica_) {
    ctx.reply.Error(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
        "if a replica is configured to be writable (which is not the default) writes to "
        "replicas are just local and are not propagated.");
    co_return;
  }
  co_await master_->Wait(ctx, replicas, timeout_ms);
}

void Replication::Sync(command::AsyncContext& ctx) {
  const std::optional<uint64_t> epoch = ParseUint64(ctx.args[5]);
  if (!epoch) {
    ctx.reply.Error(command::kErrSyntax);
    return;
  }
  if (*epoch > epoch_.load()) {
    // The replica follows a newer master record: this node was replaced. It takes no more
    // writes and reads the record now (it will follow it).
    lease_until_ns_ = 0;
    if (coordinator_) coordinator_->Wake();
    ctx.reply.Error("ERR this node is at epoch " + std::to_string(epoch_.load()) +
                    ", the replica at " + ctx.args[5] + ": it follows a newer master");
    return;
  }
  {
    // A replica serves replicas of its own (chained) with what it applies, once its link is
    // up; until then, Redis's refusal (their links retry every second).
    std::lock_guard lock(mu_);
    if (replica_ && !(link_ && link_->up())) {
      ctx.reply.Error("NOMASTERLINK Can't SYNC while not connected with my master");
      return;
    }
  }
  master_->Sync(ctx, epoch_.load());
}

void Replication::Ack(command::AsyncContext& ctx) { master_->Ack(ctx); }


ClusterNode Replication::Self() {
  ClusterNode n;
  n.host = self_host_;
  n.port = self_port();
  n.sentinel_port = state_->sentinel_port;
  n.run_id = state_->run_id;
  n.epoch = epoch_.load();
  n.priority = state_->config->GetInt("replica-priority");
  std::lock_guard lock(mu_);
  n.master = !replica_;
  n.link_up = replica_ && link_ && link_->up();
  n.partial = partial_data_;
  if (replica_ && link_) {
    n.streams = link_->offsets();
  } else {
    n.streams.resize(master_->streams());
    for (size_t i = 0; i < n.streams.size(); ++i) n.streams[i] = master_->stream_offset(i);
  }
  for (uint64_t o : n.streams) n.offset += o;
  return n;
}

void Replication::Follow(const MasterRecord& record) {
  std::lock_guard change(change_mu_);
  epoch_ = record.epoch;
  const std::string why = "ZooKeeper's master record, epoch " + std::to_string(record.epoch);
  Status st;
  if (record.host == self_host_ && record.port == self_port()) {
    if (replica_) st = BecomeMaster(why.c_str());
  } else {
    lease_until_ns_ = 0;
    {
      std::lock_guard lock(mu_);
      if (replica_ && role_.host == record.host && role_.port == record.port) return;
    }
    // Another master, another history: our replicas start over (with it).
    master_->CloseFeeds();
    st = BecomeReplica(record.host, record.port);
  }
  if (!st.ok()) {
    std::fprintf(stderr, "repl: following %s: %s\n", why.c_str(), st.ToString().c_str());
  }
}

void Replication::Switched(const MasterRecord& old, const MasterRecord& now) {
  // As each Sentinel does, on this node's own Pub/Sub.
  const std::string message = coordinator_->name() + " " + old.host + " " +
                              std::to_string(old.port) + " " + now.host + " " +
                              std::to_string(now.port);
  state_->pubsub->Publish(pubsub::Kind::kChannel, "+switch-master", message);
}

Status Replication::NameMaster(const std::string& host, int port) {
  if (!coordinator_) return Status::NotSupported("ZooKeeper mode is off (zookeeper-connect)");
  const uint64_t ticket = coordinator_->RequestSwitch(host, port);
  for (int i = 0; i < 1000; ++i) {  // 10 s
    if (std::optional<Status> done = coordinator_->SwitchResult(ticket)) return *done;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Status::Unavailable("ZooKeeper did not answer within 10 s");
}

bool Replication::Sentinel(command::AsyncContext& ctx) {
  if (!coordinator_) return false;
  SentinelSelf self{state_->run_id, self_host_, self_port(),
                    state_->config->GetInt("failover-down-after-ms")};
  SentinelReply(coordinator_->Status(), self, ctx.args, ctx.reply);
  return true;
}
}  // namespace slotkv::repl
