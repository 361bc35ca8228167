// Zk: one ZooKeeper session through the C client (libzookeeper-mt), with blocking calls for
// the coordinator's thread. The client's own threads keep the session alive and reconnect
// within it (its log is off: it prints a line per reconnection attempt, dozens a second while
// ZooKeeper is down; the coordinator logs state changes); watches and session events only
// wake the caller (on_event), which then reads again. A session that expired stays so: the
// caller opens a new Zk.
//
// Thread rule: the calls from one thread; on_event runs on the client's thread.
#pragma once

#include <zookeeper/zookeeper.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace slotkv::repl {

class Zk {
 public:
  // Opens a session with hosts ("host:port,..."), asking for timeout_ms. nullptr when the
  // client refuses the arguments (it connects in the background).
  static std::unique_ptr<Zk> Open(const std::string& hosts, int timeout_ms,
                                  std::function<void()> on_event);
  ~Zk();
  Zk(const Zk&) = delete;
  Zk& operator=(const Zk&) = delete;

  bool connected() const { return zoo_state(zh_) == ZOO_CONNECTED_STATE; }
  bool expired() const;
  // "connected", "connecting", "expired".
  const char* state_name() const;
  // The timeout the server granted (ms; 0 before the first connection).
  int session_timeout_ms() const { return zoo_recv_timeout(zh_); }
  int64_t session_id() const;

  // Each returns the ZooKeeper code (ZOK, ZNONODE, ZNODEEXISTS, ZBADVERSION, ZCONNECTIONLOSS..).
  // watch: the node's next change calls on_event. Get: stat is required.
  int Get(const std::string& path, bool watch, std::string* data, Stat* stat);
  int Children(const std::string& path, bool watch, std::vector<std::string>* names);
  int Exists(const std::string& path, bool watch, Stat* stat);
  // flags: 0, ZOO_EPHEMERAL, ZOO_EPHEMERAL_SEQUENTIAL; *created gets the path made.
  int Create(const std::string& path, const std::string& data, int flags,
             std::string* created = nullptr);
  int Set(const std::string& path, const std::string& data, int version = -1);
  int Delete(const std::string& path, int version = -1);
  // Creates path and its missing parents (persistent, empty); ZOK when it exists.
  int CreatePath(const std::string& path);
  // Sets (or, when version < 0, creates) path to data only while guard exists and absent
  // ("": no such condition) does not: one multi-op of a check of guard, a create and a delete
  // of absent (the create fails when it exists) and the change.
  int SetIf(const std::string& guard, const std::string& absent, const std::string& path,
            const std::string& data, int version);

 private:
  Zk() = default;
  static void Watcher(zhandle_t*, int type, int state, const char* path, void* ctx);
  zhandle_t* zh_ = nullptr;
  std::function<void()> on_event_;
};

}  // namespace slotkv::repl
