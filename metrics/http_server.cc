#include "metrics/http_server.h"

#include <httplib.h>

#include <chrono>
#include <latch>
#include <thread>

#include "conf/config.h"
#include "core/acl/users.h"
#include "core/command/acl_check.h"
#include "core/command/command_table.h"
#include "core/command/errors.h"
#include "metrics/admin_api.h"
#include "metrics/json.h"

namespace slotkv::metrics {

std::string RunAdminCommand(command::ServerState& state, std::vector<std::string> args) {
  const command::CommandSpec* spec = state.table->Find(args[0]);
  if (!spec || !spec->run_async) return "-ERR not an admin command\r\n";
  command::ClientState client;
  client.authenticated = true;
  command::AsyncContext ctx(std::move(args), 2, &state, &client, 0);
  std::string reply;
  std::latch done(1);
  state.executor->Post(0, [&] {
    spec->run_async(ctx).Start([&] {
      ctx.CommitHere();
      reply = ctx.commit_status.ok() ? std::move(ctx.reply.buffer())
                                     : command::ErrorLine(command::StatusError(ctx.commit_status));
      done.count_down();
    });
  });
  done.wait();
  return reply;
}

namespace {

// The text of a RESP2 bulk-string reply ("$3\r\nabc\r\n"); "" for anything else.
std::string BulkText(const std::string& reply) {
  if (reply.empty() || reply[0] != '$') return "";
  const size_t start = reply.find("\r\n");
  if (start == std::string::npos || reply.size() < start + 4) return "";
  return reply.substr(start + 2, reply.size() - start - 4);
}

int64_t MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// The text of an error reply without '-' and CRLF; "" for a success.
std::string ErrorText(const std::string& reply) {
  if (reply.empty() || reply[0] != '-') return "";
  return reply.substr(1, reply.size() >= 3 ? reply.size() - 3 : 0);
}

}  // namespace

// The AdminBackend of a running server.
class ServerBackend : public AdminBackend {
 public:
  explicit ServerBackend(command::ServerState* state) : state_(*state) {}

  uint32_t slots() const override { return state_.keyspace->slots(); }
  ServerSnapshot Snapshot() override { return Gather(state_); }
  SlotSnapshot Slot(uint32_t s, Status* failure) override {
    return GatherSlot(state_, s, failure);
  }
  std::string Info(const std::optional<std::string>& section) override {
    std::vector<std::string> args = {"INFO"};
    args.push_back(section ? *section : "everything");
    return BulkText(RunAdminCommand(state_, std::move(args)));
  }
  std::optional<std::string> ConfigGet(const std::string& name) override {
    for (const conf::OptionDef& def : conf::Options()) {
      if (def.name == name) return state_.config->Get(name);
    }
    return std::nullopt;
  }
  std::string ConfigSet(const std::string& name, const std::string& value) override {
    return ErrorText(RunAdminCommand(state_, {"CONFIG", "SET", name, value}));
  }
  std::string Save() override { return ErrorText(RunAdminCommand(state_, {"SAVE"})); }
  Access Authorize(const std::optional<Credentials>& credentials,
                   const std::vector<std::string>& command) const override {
    const acl::Users& users = *state_.users;
    std::shared_ptr<const acl::User> user;
    if (credentials) {
      user = users.Get(credentials->user);
      if (!user || !acl::PasswordMatches(*user, credentials->password)) {
        return Access::kUnauthenticated;
      }
    } else if (users.auth_required()) {
      return Access::kUnauthenticated;
    } else {
      user = users.Default();
    }
    if (command.empty() || user->unrestricted) return Access::kAllowed;
    const command::CommandSpec* spec = state_.table->Find(command[0]);
    const acl::Verdict v = acl::Check(*user, users.catalog(), command::AclCall(*spec, command));
    return v.ok() ? Access::kAllowed : Access::kForbidden;
  }
  bool metrics_auth() const override { return state_.config->GetBool("metrics-auth"); }
  int64_t failed_slots() const override { return state_.keyspace->refusals(); }

  ClusterChange Failover(const std::string& host, int port, int64_t timeout_ms) override {
    ClusterChange change;
    std::vector<std::string> args = {"FAILOVER"};
    if (!host.empty()) args.insert(args.end(), {"TO", host, std::to_string(port)});
    args.insert(args.end(), {"TIMEOUT", std::to_string(timeout_ms)});
    const auto start = std::chrono::steady_clock::now();
    change.error = ErrorText(RunAdminCommand(state_, std::move(args)));
    if (!change.error.empty()) {
      change.status = 409;
      return change;
    }
    // FAILOVER answers at once; it ends when this node is the new master's replica, or
    // aborts at the timeout. With ZooKeeper the reply gives the new record's epoch, which
    // this node may read a moment after it follows the new master (its watch fires later).
    command::ReplicationStatus st;
    const auto done = [&st] {
      if (st.failover_state != "no-failover") return false;
      return !st.cluster.enabled || !st.replica ||
             (st.cluster.master_host == st.master_host && st.cluster.master_port == st.master_port);
    };
    const auto give_up = start + std::chrono::milliseconds(timeout_ms + 5000);
    do {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      st = state_.replication->GetStatus();
    } while (!done() && std::chrono::steady_clock::now() < give_up);
    change.took_ms = MsSince(start);
    if (!st.replica) {
      change.status = 409;
      change.error = "the failover was aborted (the server log says why)";
      return change;
    }
    change.master = st.master_host + ":" + std::to_string(st.master_port);
    change.epoch = st.cluster.epoch;
    return change;
  }

  ClusterChange NameMaster(const std::string& host, int port) override {
    ClusterChange change;
    const auto start = std::chrono::steady_clock::now();
    Status st = state_.replication->NameMaster(host, port);
    if (!st.ok()) {
      change.status = st.IsNotFound() ? 404 : 409;
      change.error = st.ToString();
      return change;
    }
    // Committed: this node reads the record back at once (bounded wait for its epoch).
    change.master = host + ":" + std::to_string(port);
    command::ClusterStatus c;
    for (int i = 0; i < 500; ++i) {
      c = state_.replication->GetStatus().cluster;
      if (c.master_host == host && c.master_port == port) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    change.epoch = c.epoch;
    change.took_ms = MsSince(start);
    return change;
  }

 private:
  command::ServerState& state_;
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(command::ServerState* state,
                                                      const std::string& bind, int port) {
  std::unique_ptr<HttpServer> server(new HttpServer());
  server->backend_ = std::make_unique<ServerBackend>(state);
  server->api_ = std::make_unique<AdminApi>(server->backend_.get());
  server->http_ = std::make_unique<httplib::Server>();
  AdminApi* api = server->api_.get();
  auto handler = [api](const httplib::Request& req, httplib::Response& res) {
    HttpRequest r;
    r.method = req.method;
    r.path = req.path;
    if (req.has_param("section")) r.section = req.get_param_value("section");
    r.authorization = req.get_header_value("Authorization");
    r.host = req.get_header_value("Host");
    r.body = req.body;
    for (const auto& [name, value] : req.params) r.params.emplace(name, value);
    HttpResponse out = api->Handle(r);
    res.status = out.status;
    for (const auto& [name, value] : out.headers) res.set_header(name, value);
    res.set_content(out.body, out.content_type);
  };
  httplib::Server& http = *server->http_;
  const std::string any = ".*";
  http.Get(any, handler);
  http.Post(any, handler);
  http.Put(any, handler);
  http.Delete(any, handler);
  http.Patch(any, handler);
  http.Options(any, handler);
  http.set_payload_max_length(1 << 20);
  // Errors httplib replies by itself (a request it cannot read, a body over the limit) get a
  // JSON body like ours.
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string reason = res.status == 413 ? "payload too large" : "bad request";
    res.set_content("{\"error\":" + JsonQuote(reason) + "}", "application/json");
  });
  if (!http.bind_to_port(bind, port)) {
    return Status::IOError("cannot listen on " + bind + ":" + std::to_string(port) +
                           " (http-port)");
  }
  server->port_ = port;
  server->thread_ = std::thread([&http] { http.listen_after_bind(); });
  return server;
}

HttpServer::~HttpServer() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace slotkv::metrics
