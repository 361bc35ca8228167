#include "repl/sentinel.h"

#include <doctest/doctest.h>

namespace slotkv::repl {
namespace {

command::ClusterStatus Cluster() {
  command::ClusterStatus st;
  st.enabled = true;
  st.name = "mymaster";
  st.epoch = 2;
  st.master_host = "127.0.0.1";
  st.master_port = 7001;
  for (int p : {7001, 7002, 7003}) {
    command::ClusterNode n;
    n.host = "127.0.0.1";
    n.port = p;
    n.sentinel_port = p + 20000;
    n.run_id = "id" + std::to_string(p);
    n.master = p == 7001;
    n.link_up = true;
    n.offset = 100;
    st.nodes.push_back(n);
  }
  return st;
}

std::string Run(const command::ClusterStatus& st, std::vector<std::string> args) {
  command::Reply reply;
  SentinelReply(st, SentinelSelf{"id7002", "127.0.0.1", 7002, 5000}, args, reply);
  return reply.buffer();
}

TEST_CASE("SENTINEL answers where the master is, in Sentinel's shapes") {
  const command::ClusterStatus st = Cluster();
  CHECK(Run(st, {"SENTINEL", "get-master-addr-by-name", "mymaster"}) ==
        "*2\r\n$9\r\n127.0.0.1\r\n$4\r\n7001\r\n");
  CHECK(Run(st, {"SENTINEL", "get-master-addr-by-name", "other"}) == "*-1\r\n");
  CHECK(Run(st, {"SENTINEL", "master", "other"}) == "-ERR No such master with that name\r\n");
  CHECK(Run(st, {"SENTINEL", "myid"}) == "$6\r\nid7002\r\n");
  const std::string masters = Run(st, {"SENTINEL", "masters"});
  CHECK(masters.rfind("*1\r\n*40\r\n$4\r\nname\r\n$8\r\nmymaster\r\n", 0) == 0);
  CHECK(masters.find("$5\r\nflags\r\n$6\r\nmaster\r\n") != std::string::npos);
  CHECK(masters.find("$19\r\nnum-other-sentinels\r\n$1\r\n2\r\n") != std::string::npos);
  CHECK(masters.find("$12\r\nconfig-epoch\r\n$1\r\n2\r\n") != std::string::npos);
  // Replicas: every node but the master; sentinels: every node but this one, at their
  // sentinel ports.
  const std::string replicas = Run(st, {"SENTINEL", "replicas", "mymaster"});
  CHECK(replicas.rfind("*2\r\n", 0) == 0);
  CHECK(replicas.find("127.0.0.1:7002") != std::string::npos);
  CHECK(replicas.find("127.0.0.1:7003") != std::string::npos);
  CHECK(Run(st, {"SENTINEL", "slaves", "mymaster"}) == replicas);
  const std::string sentinels = Run(st, {"SENTINEL", "sentinels", "mymaster"});
  CHECK(sentinels.rfind("*2\r\n", 0) == 0);
  CHECK(sentinels.find("$5\r\n27001\r\n") != std::string::npos);
  CHECK(sentinels.find("$5\r\n27003\r\n") != std::string::npos);
  CHECK(sentinels.find("27002") == std::string::npos);
  CHECK(Run(st, {"SENTINEL", "bogus"}).rfind("-ERR unknown subcommand or wrong number", 0) == 0);
  CHECK(Run(st, {"SENTINEL", "masters", "x"}).rfind("-ERR unknown subcommand", 0) == 0);
}

TEST_CASE("a master gone from ZooKeeper shows as down; no record yet, no master") {
  command::ClusterStatus st = Cluster();
  st.nodes.erase(st.nodes.begin());
  CHECK(Run(st, {"SENTINEL", "master", "mymaster"}).find("master,s_down,o_down") !=
        std::string::npos);
  st.master_host.clear();
  CHECK(Run(st, {"SENTINEL", "masters"}) == "*0\r\n");
  CHECK(Run(st, {"SENTINEL", "get-master-addr-by-name", "mymaster"}) == "*-1\r\n");
}

}  // namespace
}  // namespace slotkv::repl
