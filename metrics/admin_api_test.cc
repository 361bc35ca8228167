#include "metrics/admin_api.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

namespace slotkv::metrics {
namespace {

class FakeBackend : public AdminBackend {
 public:
  uint32_t slots() const override { return 4; }
  ServerSnapshot Snapshot() override {
    ServerSnapshot s;
    s.workers = 2;
    s.databases = 16;
    for (uint32_t i = 0; i < 4; ++i) s.slots.push_back(Slot(i, nullptr));
    s.replication.cluster = cluster;
    return s;
  }
  SlotSnapshot Slot(uint32_t s, Status*) override {
    SlotSnapshot out;
    out.slot = s;
    out.worker = static_cast<int>(s % 2);
    out.keys = 10 + s;
    return out;
  }
  std::string Info(const std::optional<std::string>& section) override {
    last_section = section.value_or("");
    return "# Server\r\nredis_version:7.0.15\r\ntcp_port:7379\r\n\r\n# Clients\r\n"
           "connected_clients:1\r\nratio:0.25\r\nkeys:keys=1,expires=0\r\n";
  }
  std::optional<std::string> ConfigGet(const std::string& name) override {
    auto it = config.find(name);
    if (it == config.end()) return std::nullopt;
    return it->second;
  }
  int64_t failed_slots() const override { return failed; }
  std::string ConfigSet(const std::string& name, const std::string& value) override {
    if (value == "bad") return "ERR CONFIG SET failed";
    config[name] = value;
    return "";
  }
  std::string Save() override {
    ++saves;
    return "";
  }
  ClusterChange Failover(const std::string& host, int port, int64_t timeout_ms) override {
    calls.push_back("failover " + host + " " + std::to_string(port) + " " +
                    std::to_string(timeout_ms));
    return change;
  }
  ClusterChange NameMaster(const std::string& host, int port) override {
    calls.push_back("master " + host + " " + std::to_string(port));
    return change;
  }
  // The only user is "default", with password pass ("" : none), allowed every command but
  // those in denied.
  Access Authorize(const std::optional<Credentials>& credentials,
                   const std::vector<std::string>& command) const override {
    if (credentials ? credentials->user != "default" ||
                          (!pass.empty() && credentials->password != pass)
                    : !pass.empty()) {
      return Access::kUnauthenticated;
    }
    const bool deny = !command.empty() && denied.count(command[0]);
    return deny ? Access::kForbidden : Access::kAllowed;
  }
  bool metrics_auth() const override { return metrics_auth_on; }

  std::map<std::string, std::string> config = {{"maxclients", "10000"}};
  std::string pass;
  std::set<std::string> denied;
  bool metrics_auth_on = true;
  std::string last_section;
  int64_t failed = 0;
  int saves = 0;
  command::ClusterStatus cluster;
  ClusterChange change;
  std::vector<std::string> calls;
};

HttpRequest Req(std::string method, std::string path, std::string body = "",
                std::string host = "127.0.0.1:7380") {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = std::move(body);
  r.host = std::move(host);
  return r;
}

TEST_CASE("admin api: changes need an IP or localhost in the Host header") {
  FakeBackend b;
  AdminApi api(&b);
  for (const char* host : {"evil.example", "evil.example:7380", "", "127.0.0.1.evil:80",
                           "[::1", "[]:7380"}) {
    CAPTURE(host);
    const HttpResponse put = api.Handle(Req("PUT", "/config/maxclients", "50", host));
    CHECK(put.status == 403);
    CHECK(put.body == R"({"error":"forbidden Host header"})");
    CHECK(api.Handle(Req("POST", "/save", "", host)).status == 403);
    CHECK(api.Handle(Req("GET", "/config/maxclients", "", host)).status == 200);  // a read
  }
  CHECK(b.saves == 0);
  for (const char* host : {"127.0.0.1", "127.0.0.1:7380", "localhost:7380", "[::1]:7380",
                           "10.1.2.3:80", "localhost"}) {
    CAPTURE(host);
    CHECK(api.Handle(Req("PUT", "/config/maxclients", "50", host)).status == 200);
  }
}

TEST_CASE("admin api: routes, methods and JSON replies") {
  FakeBackend b;
  AdminApi api(&b);
  CHECK(api.Handle(Req("GET", "/health")).body == R"({"status":"ok"})");
  CHECK(api.Handle(Req("POST", "/health")).status == 405);
  b.failed = 3;
  HttpResponse failing = api.Handle(Req("GET", "/health"));
  CHECK(failing.status == 503);
  CHECK(failing.body == R"({"status":"failing","failed_slots":3})");
  b.failed = 0;
  CHECK(api.Handle(Req("GET", "/nope")).status == 404);
  CHECK(api.Handle(Req("GET", "/nope")).body == R"({"error":"not found"})");
  HttpResponse slots = api.Handle(Req("GET", "/slots"));
  CHECK(slots.status == 200);
  CHECK(slots.body.starts_with(R"({"slots":4,"workers":2,"databases":16,"slot_list":[{"slot":0,)"));
  HttpResponse one = api.Handle(Req("GET", "/slots/3"));
  CHECK(one.body.starts_with(R"({"slot":3,"worker":1,"keys":13,)"));
  for (const char* bad : {"/slots/4", "/slots/-1", "/slots/x", "/slots/", "/slots/01x"}) {
    CHECK_MESSAGE(api.Handle(Req("GET", bad)).status == 404, bad);
  }
  HttpResponse metrics = api.Handle(Req("GET", "/metrics"));
  CHECK(metrics.content_type == "text/plain; version=0.0.4");
  CHECK(metrics.body.find("slotkv_slot_keys{slot=\"2\"} 12") != std::string::npos);
  CHECK(api.Handle(Req("DELETE", "/metrics")).status == 405);
}

TEST_CASE("admin api: /cluster shows ZooKeeper mode; POST /cluster/... switch the master") {
  FakeBackend b;
  AdminApi api(&b);
  CHECK(api.Handle(Req("GET", "/cluster")).body == R"({"enabled":false})");
  b.cluster.enabled = true;
  b.cluster.name = "mymaster";
  b.cluster.session = "connected";
  b.cluster.epoch = 3;
  b.cluster.master_host = "10.0.0.1";
  b.cluster.master_port = 7379;
  b.cluster.lease = true;
  command::ClusterNode m{.host = "10.0.0.1", .port = 7379, .sentinel_port = 27379,
                         .run_id = "m1", .master = true, .epoch = 3, .offset = 500};
  command::ClusterNode r{.host = "10.0.0.2", .port = 7379, .sentinel_port = 27379,
                         .run_id = "r1", .link_up = true, .epoch = 3, .offset = 420};
  b.cluster.nodes = {m, r};
  CHECK(api.Handle(Req("GET", "/cluster")).body ==
        R"({"enabled":true,"name":"mymaster","zookeeper_session":"connected",)"
        R"("controller":false,"epoch":3,"master":"10.0.0.1:7379","master_alive":true,)"
        R"("lease":true,"failovers":0,"last_failover_ms":0,"nodes":[)"
        R"({"address":"10.0.0.1:7379","role":"master","run_id":"m1","epoch":3,"offset":500,)"
        R"("priority":100,"sentinel_port":27379},)"
        R"({"address":"10.0.0.2:7379","role":"replica","run_id":"r1","epoch":3,"offset":420,)"
        R"("link_up":true,"lag":80,"priority":100,"sentinel_port":27379}]})");
  CHECK(api.Handle(Req("POST", "/cluster")).status == 405);

  HttpRequest f = Req("POST", "/cluster/failover");
  b.change.master = "10.0.0.2:7379";
  b.change.epoch = 4;
  b.change.took_ms = 12;
  CHECK(api.Handle(f).body == R"({"status":"ok","master":"10.0.0.2:7379","epoch":4,"took_ms":12})");
  f.params = {{"to", "10.0.0.2:7379"}, {"timeout_ms", "2500"}};
  CHECK(api.Handle(f).status == 200);
  f.params = {{"to", "10.0.0.2"}};
  CHECK(api.Handle(f).status == 400);
  f.params = {{"timeout_ms", "0"}};
  CHECK(api.Handle(f).status == 400);
  CHECK(api.Handle(Req("GET", "/cluster/failover")).status == 405);
  CHECK(api.Handle(Req("POST", "/cluster/failover", "", "evil.example")).status == 403);

  HttpRequest n = Req("POST", "/cluster/replicaof");
  CHECK(api.Handle(n).status == 400);  // master=host:port is required
  n.params = {{"master", "10.0.0.2:7379"}};
  b.change.error = "NotFound: the target is not a member";
  b.change.status = 404;
  HttpResponse refused = api.Handle(n);
  CHECK(refused.status == 404);
  CHECK(refused.body == R"({"error":"NotFound: the target is not a member"})");
  CHECK(b.calls == std::vector<std::string>{"failover  0 10000", "failover 10.0.0.2 7379 2500",
                                            "master 10.0.0.2 7379"});
}

TEST_CASE("admin api: info as JSON, with a section") {
  FakeBackend b;
  AdminApi api(&b);
  HttpRequest r = Req("GET", "/info");
  r.section = "clients";
  HttpResponse info = api.Handle(r);
  CHECK(b.last_section == "clients");
  CHECK(info.body ==
        R"({"server":{"redis_version":"7.0.15","tcp_port":7379},)"
        R"("clients":{"connected_clients":1,"ratio":0.25,"keys":"keys=1,expires=0"}})");
  CHECK(InfoToJson("") == "{}");
}

TEST_CASE("admin api: config get and put, save") {
  FakeBackend b;
  AdminApi api(&b);
  CHECK(api.Handle(Req("GET", "/config/maxclients")).body ==
        R"({"name":"maxclients","value":"10000"})");
  CHECK(api.Handle(Req("GET", "/config/nope")).status == 404);
  CHECK(api.Handle(Req("PUT", "/config/nope", "1")).status == 404);
  HttpResponse put = api.Handle(Req("PUT", "/config/maxclients", "50\r\n"));
  CHECK(put.status == 200);
  CHECK(put.body == R"({"name":"maxclients","value":"50"})");
  HttpResponse bad = api.Handle(Req("PUT", "/config/maxclients", "bad"));
  CHECK(bad.status == 400);
  CHECK(bad.body == R"({"error":"ERR CONFIG SET failed"})");
  CHECK(api.Handle(Req("DELETE", "/config/maxclients")).status == 405);
  CHECK(api.Handle(Req("GET", "/save")).status == 405);
  CHECK(api.Handle(Req("POST", "/save")).body == R"({"status":"ok"})");
  CHECK(b.saves == 1);
}

TEST_CASE("admin api: basic auth with requirepass, /health always open") {
  FakeBackend b;
  b.pass = "secret";
  AdminApi api(&b);
  CHECK(api.Handle(Req("GET", "/health")).status == 200);
  HttpResponse denied = api.Handle(Req("GET", "/info"));
  CHECK(denied.status == 401);
  REQUIRE(denied.headers.size() == 1);
  CHECK(denied.headers[0].first == "WWW-Authenticate");
  HttpRequest r = Req("GET", "/slots");
  r.authorization = "Basic ZGVmYXVsdDpzZWNyZXQ=";  // default:secret
  CHECK(api.Handle(r).status == 200);
  r.authorization = "Basic dXNlcjpzZWNyZXQ=";  // user:secret (no such user)
  CHECK(api.Handle(r).status == 401);
  r.authorization = "Basic ZGVmYXVsdDpzZWNyZXU=";  // default:secreu
  CHECK(api.Handle(r).status == 401);
  r.authorization = "Basic ZGVmYXVsdA==";  // default, no colon
  CHECK(api.Handle(r).status == 401);
  r.authorization = "Basic !!!";
  CHECK(api.Handle(r).status == 401);
  r.authorization = "Bearer dXNlcjpzZWNyZXQ=";
  CHECK(api.Handle(r).status == 401);
  CHECK(api.Handle(Req("GET", "/metrics")).status == 401);
  // Unknown paths and wrong methods need the password too.
  CHECK(api.Handle(Req("GET", "/nope")).status == 401);
  CHECK(api.Handle(Req("POST", "/health")).status == 401);
  HttpRequest nope = Req("GET", "/nope");
  nope.authorization = "Basic ZGVmYXVsdDpzZWNyZXQ=";
  CHECK(api.Handle(nope).status == 404);
  b.metrics_auth_on = false;
  CHECK(api.Handle(Req("GET", "/metrics")).status == 200);
}

TEST_CASE("admin api: a user denied the route's command gets 403") {
  FakeBackend b;
  b.denied = {"SAVE", "CONFIG"};
  AdminApi api(&b);
  CHECK(api.Handle(Req("GET", "/info")).status == 200);
  CHECK(api.Handle(Req("POST", "/save")).status == 403);
  CHECK(api.Handle(Req("GET", "/config/maxclients")).status == 403);
  CHECK(b.saves == 0);
  b.denied = {"INFO"};
  CHECK(api.Handle(Req("GET", "/slots")).status == 403);
  CHECK(api.Handle(Req("GET", "/health")).status == 200);
}

}  // namespace
}  // namespace slotkv::metrics
