// slotkv-server: loads the configuration (file, then --name value overrides), serves until
// SHUTDOWN or SIGTERM/SIGINT, persists every slot and exits 0.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "conf/config.h"
#include "metrics/http_server.h"
#include "net/server.h"
#include "repl/replication.h"

namespace {

void PrintHelp() {
  std::printf("Usage: slotkv-server [/path/to/slotkv.conf] [--option value ...]\n\nOptions:\n");
  for (const slotkv::conf::OptionDef& def : slotkv::conf::Options()) {
    std::printf("  --%-35s %s (default \"%.*s\")\n", std::string(def.name).c_str(),
                std::string(def.doc).c_str(), static_cast<int>(def.default_value.size()),
                def.default_value.data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      PrintHelp();
      return 0;
    }
    if (arg == "--version" || arg == "-v") {
      std::printf("slotkv-server v=%s\n", SLOTKV_VERSION);
      return 0;
    }
  }
  slotkv::conf::Config config;
  slotkv::Status st = config.LoadArgs(argc, argv);
  if (!st.ok()) {
    std::fprintf(stderr, "slotkv-server: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::unique_ptr<slotkv::repl::Replication> replication;
  auto server = slotkv::net::Server::Start(
      &config, argv[0], [&replication](slotkv::command::ServerState& state) {
        auto installed = slotkv::repl::Replication::Install(&state);
        if (!installed.ok()) return installed.status();
        replication = std::move(installed).value();
        return slotkv::Status::OK();
      });
  if (!server.ok()) {
    std::fprintf(stderr, "slotkv-server: cannot start: %s\n", server.status().ToString().c_str());
    return 1;
  }
  replication->Start();
  std::unique_ptr<slotkv::metrics::HttpServer> http;
  if (const int http_port = static_cast<int>(config.GetInt("http-port")); http_port > 0) {
    auto started =
        slotkv::metrics::HttpServer::Start(&(*server)->state(), config.Get("http-bind"), http_port);
    if (!started.ok()) {
      std::fprintf(stderr, "slotkv-server: cannot start: %s\n",
                   started.status().ToString().c_str());
      return 1;
    }
    http = std::move(started).value();
  }
  std::fprintf(stderr, "slotkv-server %s ready: %s:%d, %s storage in %s, %d workers\n",
               SLOTKV_VERSION, config.Get("bind").c_str(), (*server)->port(),
               config.Get("storage").c_str(), config.Get("dir").c_str(), (*server)->workers());
  if (http) {
    std::fprintf(stderr, "slotkv-server: HTTP admin API and /metrics on %s:%d\n",
                 config.Get("http-bind").c_str(), http->port());
  }
  st = (*server)->Wait();
  if (!st.ok()) {
    std::fprintf(stderr, "slotkv-server: persisting at shutdown failed: %s\n",
                 st.ToString().c_str());
  } else {
    std::fprintf(stderr, "slotkv-server: persisted, bye\n");
  }
  std::fflush(stderr);
  // Everything is on disk and the workers are stopped: exit without tearing down connections
  // whose pending cross-worker handlers would outlive the io_contexts they belong to.
  std::_Exit(st.ok() ? 0 : 1);
}
