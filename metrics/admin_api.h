// AdminApi: the HTTP admin API's routes (GET /health /metrics /info /slots /slots/N
// /replication /cluster /config/NAME, PUT /config/NAME, POST /save /cluster/failover
// /cluster/replicaof), auth and JSON replies, independent of the HTTP library: http_server.cc
// hands it requests and sends back what it returns. What it reads and changes goes through
// AdminBackend, so tests can run it without a server.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "metrics/snapshot.h"

namespace slotkv::metrics {

struct HttpRequest {
  std::string method;  // "GET", "PUT" ...
  std::string path;    // without the query
  std::optional<std::string> section;  // ?section=NAME
  std::string authorization;           // the Authorization header, "" when absent
  std::string host;                    // the Host header, "" when absent
  std::string body;
  std::map<std::string, std::string> params;  // the query's (POST /cluster/...)
};

// What a POST /cluster/... did: error (its text) or the master after it.
struct ClusterChange {
  std::string error;
  int status = 200;  // the HTTP status of an error
  std::string master;  // "host:port"
  uint64_t epoch = 0;
  int64_t took_ms = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Basic auth's user and password.
struct Credentials {
  std::string user;
  std::string password;
};

// What a request may do: the ACL user it acts as may run its command, it names no user that
// its password opens, or the user may not run the command.
enum class Access { kAllowed, kUnauthenticated, kForbidden };

class AdminBackend {
 public:
  virtual ~AdminBackend() = default;
  virtual uint32_t slots() const = 0;
  virtual ServerSnapshot Snapshot() = 0;
  virtual SlotSnapshot Slot(uint32_t s, Status* failure) = 0;
  // INFO's text (all sections, or one).
  virtual std::string Info(const std::optional<std::string>& section) = 0;
  // The option's current value as CONFIG GET shows it; nullopt for an unknown option.
  virtual std::optional<std::string> ConfigGet(const std::string& name) = 0;
  // CONFIG SET name value: "" on success, else CONFIG SET's error text ("ERR ...").
  virtual std::string ConfigSet(const std::string& name, const std::string& value) = 0;
  // SAVE: "" on success, else its error text.
  virtual std::string Save() = 0;
  // Whether a request with credentials (nullopt: none sent; then the default user when it
  // needs no password) may run command, as the ACL users say (empty: authenticated at all).
  virtual Access Authorize(const std::optional<Credentials>& credentials,
                           const std::vector<std::string>& command) const = 0;
  virtual bool metrics_auth() const = 0;
  // Engine slots refusing writes after an I/O failure (Keyspace::refusals).
  virtual int64_t failed_slots() const = 0;
  // FAILOVER [TO host port] TIMEOUT timeout_ms on this node (its master), and the wait for
  // its end (target "" : any replica that caught up).
  virtual ClusterChange Failover(const std::string& host, int port, int64_t timeout_ms) = 0;
  // ZooKeeper mode: names host:port the master now (command::Replication::NameMaster).
  virtual ClusterChange NameMaster(const std::string& host, int port) = 0;
};

// GET /replication's body: the role, the master link, each replica's lag, and per slot the
// streams' offset and each replica's lag in writes.
std::string ReplicationJson(const ServerSnapshot& snapshot);
// GET /cluster's body: ZooKeeper mode as this node sees it (nodes, roles, epoch, offsets, lag,
// the session's state).
std::string ClusterJson(const ServerSnapshot& snapshot);

class AdminApi {
 public:
  explicit AdminApi(AdminBackend* backend) : backend_(backend) {}
  HttpResponse Handle(const HttpRequest& request);

 private:
  // The request's Authorization header checked for command (AdminBackend::Authorize); a
  // malformed header is unauthenticated.
  Access Authorize(const HttpRequest& request, const std::vector<std::string>& command) const;
  HttpResponse Health() const;
  AdminBackend* backend_;
};

// INFO's text as JSON: {"server": {"redis_version": "7.0.15", ...}, ...}; numbers as JSON
// numbers, other values as strings.
std::string InfoToJson(const std::string& info);
// A slot as the /slots JSON shows it.
void SlotJson(const SlotSnapshot& s, class Json& json);

}  // namespace slotkv::metrics
