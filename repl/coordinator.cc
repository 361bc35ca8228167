#include "repl/coordinator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/base/clock.h"
#include "repl/zk.h"

namespace slotkv::repl {
namespace {

constexpr int64_t kMs = 1000 * 1000;  // ns

}  // namespace

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Coordinator::Coordinator(Options options, Node* node)
    : options_(std::move(options)), node_(node) {
  while (options_.root.size() > 1 && options_.root.back() == '/') options_.root.pop_back();
  name_ = options_.root.substr(options_.root.rfind('/') + 1);
  status_.enabled = true;
  status_.name = name_;
  status_.session = "connecting";
}

Coordinator::~Coordinator() { Stop(); }

void Coordinator::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Coordinator::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Coordinator::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

command::ClusterStatus Coordinator::Status() const {
  std::lock_guard lock(mu_);
  return status_;
}

uint64_t Coordinator::RequestSwitch(const std::string& host, int port) {
  uint64_t ticket = 0;
  {
    std::lock_guard lock(mu_);
    ticket = switch_.ticket + 1;
    switch_ = SwitchRequest{ticket, host, port, std::nullopt};
  }
  Wake();
  return ticket;
}

std::optional<Status> Coordinator::SwitchResult(uint64_t ticket) const {
  std::lock_guard lock(mu_);
  if (switch_.ticket != ticket) return slotkv::Status::Busy("replaced by a later request");
  if (!switch_.result) return std::nullopt;
  if (*switch_.result == ZOK) return slotkv::Status::OK();
  if (*switch_.result == ZNONODE) return slotkv::Status::NotFound("the target is not a member");
  return slotkv::Status::Unavailable(std::string("ZooKeeper: ") + zerror(*switch_.result));
}

void Coordinator::RunSwitch() {
  SwitchRequest request;
  {
    std::lock_guard lock(mu_);
    if (switch_.ticket == 0 || switch_.result) return;
    request = switch_;
  }
  // The target's member znode as it is now (the members' list may be older than its link).
  int rc = ZNONODE;  // no record, or the target is no member
  std::string data;
  Stat stat{};
  if (have_record_ && !member_path_.empty()) {
    rc = zk_->Get(Path("members/" + Address(request.host, request.port)), false, &data, &stat);
  }
  if (rc == ZOK) {
    std::optional<ClusterNode> target = ParseMember(data);
    rc = target ? Commit(member_path_, "", *target) : ZNONODE;
  }
  std::lock_guard lock(mu_);
  if (switch_.ticket == request.ticket) switch_.result = rc;
}

int Coordinator::Commit(const std::string& guard, const std::string& absent,
                        const ClusterNode& next) {
  const MasterRecord record{record_.epoch + 1, next.host, next.port, next.run_id};
  const int rc =
      zk_->SetIf(guard, absent, Path("master"), FormatRecord(record), record_version_);
  std::fprintf(stderr, "zk: %s named the master in epoch %llu: %s\n",
               Address(next.host, next.port).c_str(),
               static_cast<unsigned long long>(record.epoch), zerror(rc));
  Wake();  // read it back now
  return rc;
}

void Coordinator::Log(const std::string& line) {
  if (line == logged_) return;
  logged_ = line;
  std::fprintf(stderr, "zk: %s\n", line.c_str());
}

void Coordinator::Run() {
  const ClusterNode self = node_->Self();
  self_addr_ = Address(self.host, self.port);
  // A tick of a sixth of the session timeout renews the lease (2/3 of it) several times over.
  const auto tick = std::chrono::milliseconds(
      std::clamp<int64_t>(options_.session_timeout_ms / 6, 50, 1000));
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    Step();
    lock.lock();
    cv_.wait_for(lock, tick, [this] { return stop_ || woken_; });
    woken_ = false;
  }
  lock.unlock();
  zk_.reset();  // closing the session deletes our znodes now, not after the timeout
  std::lock_guard relock(mu_);
  status_.session = "closed";
}

void Coordinator::Step() {
  if (!zk_ || zk_->expired()) {
    if (zk_) Log("session expired: opening a new one");
    zk_ = Zk::Open(options_.hosts, options_.session_timeout_ms, [this] { Wake(); });
    paths_ready_ = false;
    member_path_.clear();
    election_path_.clear();
    if (!zk_) {
      Log("cannot open a session with " + options_.hosts);
      return;
    }
  }
  const bool connected = zk_->connected();
  if (session_logged_ != zk_->state_name()) {
    session_logged_ = zk_->state_name();
    std::fprintf(stderr, "zk: session %s (%s)\n", session_logged_.c_str(),
                 options_.hosts.c_str());
  }
  {
    std::lock_guard lock(mu_);
    status_.session = zk_->state_name();
    if (!connected && status_.controller) {
      std::fprintf(stderr, "zk: no longer the controller (disconnected)\n");
      status_.controller = false;
    }
  }
  if (!connected) return;
  if (!paths_ready_) {
    const int a = zk_->CreatePath(Path("members"));
    const int b = a == ZOK ? zk_->CreatePath(Path("election")) : a;
    if (b != ZOK) {
      Log("cannot create " + options_.root + ": " + zerror(b));
      return;
    }
    paths_ready_ = true;
  }
  if (member_path_.empty()) WriteMember(node_->Self());  // before the lease (coordinator.h)
  // The record, with a watch (a change wakes us), and the lease when it names this node.
  const int64_t sent = SteadyNowNs();
  std::string data;
  Stat stat{};
  const int rc = zk_->Get(Path("master"), true, &data, &stat);
  if (rc != ZOK && rc != ZNONODE) {
    Log(std::string("reading the master record: ") + zerror(rc));
    return;
  }
  if (rc == ZOK) {
    std::optional<MasterRecord> record = ParseRecord(data);
    if (!record) {
      Log("the master record is malformed: '" + data + "'");
      return;
    }
    const bool changed = have_record_ && Address(record_.host, record_.port) !=
                                             Address(record->host, record->port);
    if (changed) {
      node_->Switched(record_, *record);
      std::lock_guard lock(mu_);
      ++status_.failovers;
      status_.last_failover_ms = SystemClock()->NowMs();
    }
    if (!have_record_ || changed || record->epoch != record_.epoch) {
      std::fprintf(stderr, "zk: the master is %s (epoch %llu)\n",
                   Address(record->host, record->port).c_str(),
                   static_cast<unsigned long long>(record->epoch));
    }
    have_record_ = true;
    record_ = *record;
    record_version_ = stat.version;
    node_->Follow(record_);
    if (Address(record_.host, record_.port) == self_addr_ && !member_path_.empty()) {
      node_->Renew(sent + int64_t{zk_->session_timeout_ms()} * 2 / 3 * kMs);
    }
  } else {
    have_record_ = false;
  }
  const int64_t now = SteadyNowNs();
  if (now - member_written_ns_ >= 1000 * kMs) {
    WriteMember(node_->Self());
  }
  Elect();
  if (now - members_read_ns_ >= 500 * kMs) ReadMembers();
  bool controller = false;
  {
    std::lock_guard lock(mu_);
    controller = status_.controller;
  }
  if (controller) Control();
  RunSwitch();
  std::lock_guard lock(mu_);
  status_.epoch = have_record_ ? record_.epoch : 0;
  status_.master_host = have_record_ ? record_.host : "";
  status_.master_port = have_record_ ? record_.port : 0;
}

void Coordinator::WriteMember(const ClusterNode& self) {
  const std::string data = FormatMember(self);
  if (!member_path_.empty()) {
    const int rc = zk_->Set(member_path_, data);
    if (rc == ZOK) {
      member_written_ns_ = SteadyNowNs();
      return;
    }
    if (rc != ZNONODE) return;
    member_path_.clear();
  }
  const std::string path = Path("members/" + self_addr_);
  int rc = zk_->Create(path, data, ZOO_EPHEMERAL);
  if (rc == ZNODEEXISTS) {
    // Ours from a session before a restart: it would vanish only at that session's expiry.
    Stat stat{};
    if (zk_->Exists(path, false, &stat) == ZOK && stat.ephemeralOwner != zk_->session_id()) {
      zk_->Delete(path);
      rc = zk_->Create(path, data, ZOO_EPHEMERAL);
    } else {
      rc = ZOK;
    }
  }
  if (rc != ZOK) {
    Log("cannot register " + path + ": " + zerror(rc));
    return;
  }
  member_path_ = path;
  member_written_ns_ = SteadyNowNs();
}

void Coordinator::Elect() {
  if (election_path_.empty()) {
    const int rc = zk_->Create(Path("election/n_"), self_addr_, ZOO_EPHEMERAL_SEQUENTIAL,
                               &election_path_);
    if (rc != ZOK) {
      Log(std::string("cannot join the election: ") + zerror(rc));
      return;
    }
  }
  std::vector<std::string> names;
  if (zk_->Children(Path("election"), false, &names) != ZOK) return;
  std::sort(names.begin(), names.end());
  const std::string mine = election_path_.substr(election_path_.rfind('/') + 1);
  auto it = std::find(names.begin(), names.end(), mine);
  if (it == names.end()) {
    election_path_.clear();  // gone with an old session: join again next step
    return;
  }
  bool controller = it == names.begin();
  // The recipe: watch the predecessor only, so one node wakes when it goes. Gone already: we
  // may be first now.
  if (!controller && zk_->Exists(Path("election/" + *(it - 1)), true, nullptr) == ZNONODE) {
    Wake();
  }
  std::lock_guard lock(mu_);
  if (controller != status_.controller) {
    std::fprintf(stderr, "zk: %s the controller\n", controller ? "this node is" : "no longer");
  }
  status_.controller = controller;
}

void Coordinator::ReadMembers() {
  std::vector<std::string> names;
  if (zk_->Children(Path("members"), true, &names) != ZOK) return;
  std::vector<ClusterNode> nodes;
  for (const std::string& name : names) {
    std::string data;
    Stat stat{};
    if (zk_->Get(Path("members/" + name), false, &data, &stat) != ZOK) continue;
    if (std::optional<ClusterNode> n = ParseMember(data)) nodes.push_back(std::move(*n));
  }
  std::sort(nodes.begin(), nodes.end(), [](const ClusterNode& a, const ClusterNode& b) {
    return Address(a.host, a.port) < Address(b.host, b.port);
  });
  members_read_ns_ = SteadyNowNs();
  std::lock_guard lock(mu_);
  status_.nodes = std::move(nodes);
}

void Coordinator::Control() {
  std::vector<ClusterNode> members;
  {
    std::lock_guard lock(mu_);
    members = status_.nodes;
  }
  if (!have_record_) {
    std::optional<ClusterNode> first = ChooseFirstMaster(members);
    if (!first) return;
    const MasterRecord record{1, first->host, first->port, first->run_id};
    const int rc = zk_->SetIf(election_path_, "", Path("master"), FormatRecord(record), -1);
    std::fprintf(stderr, "zk: controller names %s the first master (epoch 1): %s\n",
                 Address(first->host, first->port).c_str(), zerror(rc));
    Wake();
    return;
  }
  const int64_t now = SteadyNowNs();
  if (command::FindNode(members, record_.host, record_.port) != nullptr) {
    master_missing_ns_ = 0;
    return;
  }
  if (master_missing_ns_ == 0) {
    master_missing_ns_ = now;
    std::fprintf(stderr, "zk: the master %s is gone from ZooKeeper; failover after %lld ms\n",
                 Address(record_.host, record_.port).c_str(),
                 static_cast<long long>(options_.down_after_ms));
  }
  if (now - master_missing_ns_ < options_.down_after_ms * kMs) return;
  std::optional<ClusterNode> next = ChooseReplica(members, record_);
  if (!next) {
    Log("no replica can be promoted (none registered with priority > 0 and whole data)");
    return;
  }
  std::fprintf(stderr, "zk: failover: the controller promotes a replica\n");
  // Only while the master's member znode is still gone (coordinator.h: the lease).
  Commit(election_path_, Path("members/" + Address(record_.host, record_.port)), *next);
  master_missing_ns_ = 0;
}

}  // namespace slotkv::repl
