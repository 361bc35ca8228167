#include "repl/zk.h"

#include <cstdio>
#include <memory>

namespace slotkv::repl {

std::unique_ptr<Zk> Zk::Open(const std::string& hosts, int timeout_ms,
                             std::function<void()> on_event) {
  static const bool quiet = [] {
    zoo_set_debug_level(static_cast<ZooLogLevel>(0));  // 0: off
    return true;
  }();
  (void)quiet;
  std::unique_ptr<Zk> zk(new Zk());
  zk->on_event_ = std::move(on_event);
  zk->zh_ = zookeeper_init(hosts.c_str(), &Zk::Watcher, timeout_ms, nullptr, zk.get(), 0);
  if (zk->zh_ == nullptr) return nullptr;
  return zk;
}

Zk::~Zk() {
  if (zh_ != nullptr) zookeeper_close(zh_);  // deletes our ephemeral znodes at once
}

void Zk::Watcher(zhandle_t*, int, int, const char*, void* ctx) {
  auto* zk = static_cast<Zk*>(ctx);
  if (zk->on_event_) zk->on_event_();
}

bool Zk::expired() const {
  const int s = zoo_state(zh_);
  return s == ZOO_EXPIRED_SESSION_STATE || s == ZOO_AUTH_FAILED_STATE;
}

const char* Zk::state_name() const {
  if (connected()) return "connected";
  return expired() ? "expired" : "connecting";
}

int64_t Zk::session_id() const {
  const clientid_t* id = zoo_client_id(zh_);
  return id == nullptr ? 0 : id->client_id;
}

int Zk::Get(const std::string& path, bool watch, std::string* data, Stat* stat) {
  // A buffer of the usual size (a member znode takes a few hundred bytes), and once more of
  // the node's size when it holds more (the client truncates silently).
  size_t size = 4096;
  for (;;) {
    data->resize(size);
    int len = static_cast<int>(size);
    const int rc = zoo_wget(zh_, path.c_str(), watch ? &Zk::Watcher : nullptr,
                            watch ? this : nullptr, data->data(), &len, stat);
    if (rc == ZOK && static_cast<size_t>(stat->dataLength) > size) {
      size = static_cast<size_t>(stat->dataLength);
      continue;
    }
    data->resize(rc == ZOK && len > 0 ? static_cast<size_t>(len) : 0);
    return rc;
  }
}

int Zk::Children(const std::string& path, bool watch, std::vector<std::string>* names) {
  String_vector v{};
  const int rc = zoo_wget_children(zh_, path.c_str(), watch ? &Zk::Watcher : nullptr,
                                   watch ? this : nullptr, &v);
  names->clear();
  if (rc == ZOK) {
    for (int i = 0; i < v.count; ++i) names->emplace_back(v.data[i]);
    deallocate_String_vector(&v);
  }
  return rc;
}

int Zk::Exists(const std::string& path, bool watch, Stat* stat) {
  return zoo_wexists(zh_, path.c_str(), watch ? &Zk::Watcher : nullptr, watch ? this : nullptr,
                     stat);
}

int Zk::Create(const std::string& path, const std::string& data, int flags,
               std::string* created) {
  char buf[512];
  const int rc = zoo_create(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                            &ZOO_OPEN_ACL_UNSAFE, flags, buf, sizeof buf);
  if (rc == ZOK && created != nullptr) *created = buf;
  return rc;
}

int Zk::Set(const std::string& path, const std::string& data, int version) {
  return zoo_set(zh_, path.c_str(), data.data(), static_cast<int>(data.size()), version);
}

int Zk::Delete(const std::string& path, int version) {
  return zoo_delete(zh_, path.c_str(), version);
}

int Zk::CreatePath(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    const int rc = Create(prefix, "", 0);
    if (rc != ZOK && rc != ZNODEEXISTS) return rc;
    if (slash == std::string::npos) return ZOK;
  }
}

int Zk::SetIf(const std::string& guard, const std::string& absent, const std::string& path,
              const std::string& data, int version) {
  zoo_op_t ops[4];
  zoo_op_result_t results[4];
  int n = 0;
  zoo_check_op_init(&ops[n++], guard.c_str(), -1);
  if (!absent.empty()) {
    zoo_create_op_init(&ops[n++], absent.c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL,
                       nullptr, 0);
    zoo_delete_op_init(&ops[n++], absent.c_str(), -1);
  }
  if (version < 0) {
    zoo_create_op_init(&ops[n++], path.c_str(), data.data(), static_cast<int>(data.size()),
                       &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
  } else {
    zoo_set_op_init(&ops[n++], path.c_str(), data.data(), static_cast<int>(data.size()),
                    version, nullptr);
  }
  return zoo_multi(zh_, n, ops, results);
}

}  // namespace slotkv::repl
