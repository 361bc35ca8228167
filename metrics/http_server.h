// HttpServer: the HTTP admin API and /metrics (admin_api.h) on `http-port`, bound on `bind`,
// served by cpp-httplib's own threads. Requests that read the keyspace or run a command post
// to the workers and wait (snapshot.h, RunAdminCommand), so the request path never shares
// state with them.
//
// Thread rule: Start and Stop from the main thread; handlers run on httplib's threads.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/base/status.h"
#include "core/command/context.h"

namespace httplib {
class Server;
}

namespace slotkv::metrics {

class AdminApi;
class ServerBackend;

class HttpServer {
 public:
  // Binds bind:port and starts serving. IOError naming the address when the port is taken.
  static Result<std::unique_ptr<HttpServer>> Start(command::ServerState* state,
                                                   const std::string& bind, int port);
  ~HttpServer();
  int port() const { return port_; }

 private:
  HttpServer() = default;
  std::unique_ptr<ServerBackend> backend_;
  std::unique_ptr<AdminApi> api_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

// Runs a command without keys (INFO, CONFIG, SAVE ...) as an authenticated RESP2 client on
// worker 0 and returns its raw reply. REQUIRES: not on a worker thread.
std::string RunAdminCommand(command::ServerState& state, std::vector<std::string> args);

}  // namespace slotkv::metrics
