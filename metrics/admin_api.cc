#include "metrics/admin_api.h"

#include <cctype>

#include "core/base/number.h"
#include "metrics/json.h"
#include "metrics/metric_table.h"

namespace slotkv::metrics {
namespace {

HttpResponse JsonReply(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse Error(int status, std::string_view message) {
  Json j;
  j.BeginObject().Key("error").String(message).EndObject();
  return JsonReply(status, j.str());
}

HttpResponse Ok() { return JsonReply(200, R"({"status":"ok"})"); }

// Standard base64 (RFC 4648, padding optional); nullopt on a bad character.
std::optional<std::string> Base64Decode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : in) {
    int v;
    if (ch >= 'A' && ch <= 'Z') {
      v = ch - 'A';
    } else if (ch >= 'a' && ch <= 'z') {
      v = ch - 'a' + 26;
    } else if (ch >= '0' && ch <= '9') {
      v = ch - '0' + 52;
    } else if (ch == '+') {
      v = 62;
    } else if (ch == '/') {
      v = 63;
    } else if (ch == '=') {
      break;
    } else {
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

// The slot number of /slots/N: a decimal integer below slots.
std::optional<uint32_t> SlotNumber(std::string_view text, uint32_t slots) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  const uint64_t n = std::stoull(std::string(text));
  if (n >= slots) return std::nullopt;
  return static_cast<uint32_t>(n);
}

// The body of PUT /config/NAME without one trailing newline.
std::string ConfigValue(std::string body) {
  if (!body.empty() && body.back() == '\n') body.pop_back();
  if (!body.empty() && body.back() == '\r') body.pop_back();
  return body;
}

HttpResponse ConfigReply(const std::string& name, const std::string& value) {
  Json j;
  j.BeginObject().Key("name").String(name).Key("value").String(value).EndObject();
  return JsonReply(200, j.str());
}

}  // namespace

void SlotJson(const SlotSnapshot& s, Json& j) {
  j.BeginObject();
  j.Key("slot").Uint(s.slot).Key("worker").Int(s.worker).Key("keys").Uint(s.keys);
  for (const slot::SlotStatRow& r : slot::kSlotStatRows) j.Key(r.key).Uint(s.stats.*r.field);
  j.EndObject();
}

std::string InfoToJson(const std::string& info) {
  Json j;
  j.BeginObject();
  bool in_section = false;
  size_t pos = 0;
  while (pos < info.size()) {
    size_t eol = info.find('\n', pos);
    if (eol == std::string::npos) eol = info.size();
    std::string_view line(info.data() + pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string name(line.substr(1));
      while (!name.empty() && name.front() == ' ') name.erase(0, 1);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (in_section) j.EndObject();
      j.Key(name).BeginObject();
      in_section = true;
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !in_section) continue;
    std::string_view value = line.substr(colon + 1);
    j.Key(line.substr(0, colon));
    if (IsJsonNumber(value)) {
      j.Number(value);
    } else {
      j.String(value);
    }
  }
  if (in_section) j.EndObject();
  j.EndObject();
  return j.str();
}

Access AdminApi::Authorize(const HttpRequest& request,
                          const std::vector<std::string>& command) const {
  if (request.authorization.empty()) return backend_->Authorize(std::nullopt, command);
  constexpr std::string_view kBasic = "Basic ";
  std::string_view auth = request.authorization;
  if (auth.size() <= kBasic.size() || auth.substr(0, kBasic.size()) != kBasic) {
    return Access::kUnauthenticated;
  }
  std::optional<std::string> decoded = Base64Decode(auth.substr(kBasic.size()));
  const size_t colon = decoded ? decoded->find(':') : std::string::npos;
  if (colon == std::string::npos) return Access::kUnauthenticated;
  return backend_->Authorize(Credentials{decoded->substr(0, colon), decoded->substr(colon + 1)},
                             command);
}

namespace {

// Whether a request that changes something may come with this Host header: an IP address or
// localhost, with or without a port. A web page cannot make a browser send those to a name
// that resolves to 127.0.0.1 (DNS rebinding): it sends its own name.
bool HostAllowed(std::string_view host) {
  if (host.starts_with('[')) {  // [IPv6]:port
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    host = host.substr(1, close - 1);
    return !host.empty() && host.find_first_not_of("0123456789abcdefABCDEF:.") ==
                                std::string_view::npos;
  }
  if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host == "localhost") return true;
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

}  // namespace

// 200 {"status":"ok"}; 503 {"status":"failing","failed_slots":N} while slots refuse writes
// after an I/O failure (reads still work: the process is up, the data is not writable).
std::string ReplicationJson(const ServerSnapshot& snap) {
  const ReplicationSnapshot& r = snap.replication;
  Json j;
  j.BeginObject().Key("role").String(r.replica ? "replica" : "master");
  if (r.replica) {
    j.Key("master").String(r.master).Key("master_link_status").String(r.link_up ? "up" : "down");
    if (!r.link_up) j.Key("master_link_down_since_seconds").Int(r.link_down_s);
  }
  j.Key("replid").String(r.replid).Key("offset").Uint(r.offset);
  j.Key("replicas").BeginArray();
  for (const ReplicaSnapshot& rs : r.replicas) {
    j.BeginObject().Key("replica").String(rs.name);
    j.Key("state").String(rs.online ? "online" : "sync");
    j.Key("lag_seconds").Int(rs.lag_s).Key("offset_lag").Uint(rs.offset_lag).EndObject();
  }
  j.EndArray().Key("slot_list").BeginArray();
  for (const SlotSnapshot& s : snap.slots) {
    j.BeginObject().Key("slot").Uint(s.slot).Key("offset").Uint(s.repl_offset);
    j.Key("replica_offset_lag").BeginObject();
    for (const ReplicaSnapshot& rs : r.replicas) j.Key(rs.name).Uint(rs.slot_lag[s.slot]);
    j.EndObject().EndObject();
  }
  j.EndArray().EndObject();
  return j.str();
}

std::string ClusterJson(const ServerSnapshot& snap) {
  const command::ClusterStatus& c = snap.replication.cluster;
  Json j;
  j.BeginObject().Key("enabled").Bool(c.enabled);
  if (!c.enabled) return j.EndObject().str();
  j.Key("name").String(c.name).Key("zookeeper_session").String(c.session);
  j.Key("controller").Bool(c.controller).Key("epoch").Uint(c.epoch);
  j.Key("master").String(c.master_host.empty() ? ""
                                                : c.master_host + ":" +
                                                      std::to_string(c.master_port));
  const command::ClusterNode* master = c.master();
  j.Key("master_alive").Bool(master != nullptr).Key("lease").Bool(c.lease);
  j.Key("failovers").Uint(c.failovers).Key("last_failover_ms").Int(c.last_failover_ms);
  const uint64_t master_offset = master != nullptr ? master->offset : 0;
  j.Key("nodes").BeginArray();
  for (const command::ClusterNode& n : c.nodes) {
    const bool is_master = &n == master;
    j.BeginObject().Key("address").String(n.host + ":" + std::to_string(n.port));
    j.Key("role").String(is_master ? "master" : n.master ? "master (stale)" : "replica");
    j.Key("run_id").String(n.run_id).Key("epoch").Uint(n.epoch).Key("offset").Uint(n.offset);
    if (!is_master) {
      j.Key("link_up").Bool(n.link_up);
      j.Key("lag").Uint(master_offset > n.offset ? master_offset - n.offset : 0);
    }
    j.Key("priority").Int(n.priority).Key("sentinel_port").Int(n.sentinel_port).EndObject();
  }
  j.EndArray().EndObject();
  return j.str();
}

namespace {

// "host:port" → its parts; nullopt when malformed.
std::optional<std::pair<std::string, int>> HostPort(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  std::optional<int64_t> port = ParseInt64(std::string_view(text).substr(colon + 1));
  if (!port || *port <= 0 || *port > 65535) return std::nullopt;
  return std::make_pair(text.substr(0, colon), static_cast<int>(*port));
}

HttpResponse ChangeReply(const ClusterChange& c) {
  if (!c.error.empty()) return Error(c.status, c.error);
  Json j;
  j.BeginObject().Key("status").String("ok").Key("master").String(c.master);
  j.Key("epoch").Uint(c.epoch).Key("took_ms").Int(c.took_ms).EndObject();
  return JsonReply(200, j.str());
}

// POST /cluster/failover[?to=host:port][&timeout_ms=N], POST /cluster/replicaof?master=h:p.
HttpResponse ClusterPost(AdminBackend& backend, const HttpRequest& req, bool failover) {
  const auto param = [&](const char* name) -> std::string {
    auto it = req.params.find(name);
    return it == req.params.end() ? "" : it->second;
  };
  const std::string target = param(failover ? "to" : "master");
  std::optional<std::pair<std::string, int>> addr = HostPort(target);
  if (!addr && (!failover || !target.empty())) {
    return Error(400, failover ? "to: want host:port" : "master: want host:port");
  }
  if (!failover) return ChangeReply(backend.NameMaster(addr->first, addr->second));
  int64_t timeout_ms = 10000;
  if (const std::string t = param("timeout_ms"); !t.empty()) {
    std::optional<int64_t> v = ParseInt64(t);
    if (!v || *v <= 0) return Error(400, "timeout_ms: want a positive integer");
    timeout_ms = *v;
  }
  return ChangeReply(addr ? backend.Failover(addr->first, addr->second, timeout_ms)
                          : backend.Failover("", 0, timeout_ms));
}

}  // namespace

HttpResponse AdminApi::Health() const {
  const int64_t failed = backend_->failed_slots();
  if (failed == 0) return Ok();
  Json j;
  j.BeginObject().Key("status").String("failing").Key("failed_slots").Int(failed).EndObject();
  return JsonReply(503, j.str());
}

HttpResponse AdminApi::Handle(const HttpRequest& req) {
  const std::string& path = req.path;
  const std::string& m = req.method;
  const auto only = [&](std::string_view method) { return m == method; };
  // Which route the path names; methods are checked after auth.
  enum class Route {
    kHealth, kMetrics, kInfo, kSlots, kSlot, kReplication, kConfig, kSave, kCluster,
    kClusterFailover, kClusterReplicaOf, kNone
  };
  static constexpr std::pair<std::string_view, Route> kPaths[] = {
      {"/health", Route::kHealth},
      {"/metrics", Route::kMetrics},
      {"/info", Route::kInfo},
      {"/slots", Route::kSlots},
      {"/save", Route::kSave},
      {"/replication", Route::kReplication},
      {"/cluster", Route::kCluster},
      {"/cluster/failover", Route::kClusterFailover},
      {"/cluster/replicaof", Route::kClusterReplicaOf},
  };
  Route route = Route::kNone;
  std::string arg;
  for (const auto& [p, r] : kPaths) {
    if (path == p) route = r;
  }
  if (path.starts_with("/slots/")) {
    route = Route::kSlot;
    arg = path.substr(7);
  } else if (path.starts_with("/config/") && path.size() > 8) {
    route = Route::kConfig;
    arg = path.substr(8);
  }
  // Every request but GET /health acts as an ACL user (unknown paths and wrong methods too, so
  // nothing is learnt without one), which must be allowed the Redis command the route stands
  // for; /metrics only with metrics-auth.
  const bool open = (route == Route::kHealth && only("GET")) ||
                    (route == Route::kMetrics && !backend_->metrics_auth());
  std::vector<std::string> command;
  switch (route) {
    case Route::kMetrics: case Route::kInfo: case Route::kSlots: case Route::kSlot:
    case Route::kReplication: case Route::kCluster:
      command = {"INFO"};
      break;
    case Route::kConfig:
      command = only("GET") ? std::vector<std::string>{"CONFIG", "GET", arg}
                            : std::vector<std::string>{"CONFIG", "SET", arg, ""};
      break;
    case Route::kSave:
      command = {"SAVE"};
      break;
    case Route::kClusterFailover:
      command = {"FAILOVER"};
      break;
    case Route::kClusterReplicaOf:
      command = {"REPLICAOF", "NO", "ONE"};
      break;
    default:
      break;
  }
  const Access access = open ? Access::kAllowed : Authorize(req, command);
  if (access == Access::kUnauthenticated) {
    HttpResponse r = Error(401, "unauthorized");
    r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"slotkv\"");
    return r;
  }
  if (access == Access::kForbidden) return Error(403, "forbidden");
  if (route == Route::kNone) return Error(404, "not found");
  const bool host_ok = HostAllowed(req.host);  // checked by the routes that change something
  if (route == Route::kHealth) return only("GET") ? Health() : Error(405, "method not allowed");
  switch (route) {
    case Route::kMetrics: {
      if (!only("GET")) break;
      HttpResponse r;
      r.content_type = "text/plain; version=0.0.4";
      r.body = RenderText(backend_->Snapshot());
      return r;
    }
    case Route::kInfo:
      if (!only("GET")) break;
      return JsonReply(200, InfoToJson(backend_->Info(req.section)));
    case Route::kSlots: {
      if (!only("GET")) break;
      ServerSnapshot snap = backend_->Snapshot();
      Json j;
      j.BeginObject();
      j.Key("slots").Uint(snap.slots.size()).Key("workers").Int(snap.workers);
      j.Key("databases").Uint(snap.databases).Key("slot_list").BeginArray();
      for (const SlotSnapshot& s : snap.slots) SlotJson(s, j);
      j.EndArray().EndObject();
      return JsonReply(200, j.str());
    }
    case Route::kSlot: {
      std::optional<uint32_t> n = SlotNumber(arg, backend_->slots());
      if (!n) return Error(404, "no such slot");
      if (!only("GET")) break;
      Status failure;
      SlotSnapshot s = backend_->Slot(*n, &failure);
      if (!failure.ok()) return Error(500, failure.ToString());
      Json j;
      SlotJson(s, j);
      return JsonReply(200, j.str());
    }
    case Route::kConfig: {
      std::optional<std::string> value = backend_->ConfigGet(arg);
      if (!value) return Error(404, "no such option");
      if (only("GET")) return ConfigReply(arg, *value);
      if (!only("PUT")) break;
      if (!host_ok) return Error(403, "forbidden Host header");
      std::string error = backend_->ConfigSet(arg, ConfigValue(req.body));
      if (!error.empty()) return Error(400, error);
      return ConfigReply(arg, backend_->ConfigGet(arg).value_or(""));
    }
    case Route::kReplication:
      if (!only("GET")) break;
      return JsonReply(200, ReplicationJson(backend_->Snapshot()));
    case Route::kCluster:
      if (!only("GET")) break;
      return JsonReply(200, ClusterJson(backend_->Snapshot()));
    case Route::kClusterFailover:
    case Route::kClusterReplicaOf:
      if (!only("POST")) break;
      if (!host_ok) return Error(403, "forbidden Host header");
      return ClusterPost(*backend_, req, route == Route::kClusterFailover);
    case Route::kSave: {
      if (!only("POST")) break;
      if (!host_ok) return Error(403, "forbidden Host header");
      std::string error = backend_->Save();
      return error.empty() ? Ok() : Error(500, error);
    }
    case Route::kHealth:
    case Route::kNone:
      break;
  }
  return Error(405, "method not allowed");
}

}  // namespace slotkv::metrics
