#include "repl/cluster.h"

#include <doctest/doctest.h>

namespace slotkv::repl {
namespace {

ClusterNode Node(std::string host, int port, std::string run_id, bool master, uint64_t offset,
                 int64_t priority = 100) {
  ClusterNode n;
  n.host = std::move(host);
  n.port = port;
  n.run_id = std::move(run_id);
  n.master = master;
  n.offset = offset;
  n.priority = priority;
  return n;
}

TEST_CASE("member znodes and master records round-trip; malformed ones are refused") {
  ClusterNode n = Node("10.0.0.2", 7379, "abc", false, 12345, 7);
  n.sentinel_port = 27379;
  n.link_up = true;
  n.partial = true;
  n.epoch = 4;
  std::optional<ClusterNode> back = ParseMember(FormatMember(n));
  REQUIRE(back);
  CHECK(back->host == "10.0.0.2");
  CHECK(back->port == 7379);
  CHECK(back->sentinel_port == 27379);
  CHECK(back->run_id == "abc");
  CHECK_FALSE(back->master);
  CHECK(back->link_up);
  CHECK(back->partial);
  CHECK(back->epoch == 4);
  CHECK(back->offset == 12345);
  CHECK(back->priority == 7);
  CHECK(ParseMember("host=a\nport=1\nrun_id=x\nfuture=1\n"));  // unknown keys ignored
  n.streams = {0, 7, 0, 9};  // only the streams that hold something are written
  CHECK(FormatMember(n).find("streams=1:7,3:9\n") != std::string::npos);
  CHECK(ParseMember(FormatMember(n))->streams == std::vector<uint64_t>{0, 7, 0, 9});
  CHECK_FALSE(ParseMember("host=a\nport=1\nrun_id=x\nstreams=1:x\n"));
  CHECK_FALSE(ParseMember("host=a\nport=1\nrun_id=x\nstreams=17\n"));
  CHECK_FALSE(ParseMember("host=a\nrun_id=x\n"));
  CHECK_FALSE(ParseMember("host=a\nport=99999\nrun_id=x\n"));
  CHECK_FALSE(ParseMember("host=a\nport=1\nrun_id=x\noffset=-3\n"));

  const MasterRecord r{9, "10.0.0.3", 7380, "def"};
  std::optional<MasterRecord> rb = ParseRecord(FormatRecord(r));
  REQUIRE(rb);
  CHECK(rb->epoch == 9);
  CHECK(rb->host == "10.0.0.3");
  CHECK(rb->port == 7380);
  CHECK(rb->run_id == "def");
  CHECK_FALSE(ParseRecord("host=a\nport=1\n"));
  CHECK_FALSE(ParseRecord("epoch=0\nhost=a\nport=1\n"));
  CHECK_FALSE(ParseRecord(""));
}

TEST_CASE("a failover promotes as Sentinel does: priority, then offset, then run id") {
  const MasterRecord failed{3, "m", 1, "mm"};
  std::vector<ClusterNode> members = {Node("m", 1, "mm", true, 999), Node("a", 2, "r2", false, 50),
                                      Node("b", 3, "r1", false, 50), Node("c", 4, "r0", false, 40)};
  // Equal priority and offset: the smaller run id; the failed master never.
  CHECK(ChooseReplica(members, failed)->host == "b");
  members[3].offset = 60;  // the most data wins
  CHECK(ChooseReplica(members, failed)->host == "c");
  members[1].priority = 10;  // a lower priority wins over more data
  CHECK(ChooseReplica(members, failed)->host == "a");
  members[1].priority = 0;  // 0: never
  CHECK(ChooseReplica(members, failed)->host == "c");
  members[3].partial = true;  // its full sync was cut off: never
  CHECK(ChooseReplica(members, failed)->host == "b");
  members[3].partial = false;
  for (ClusterNode& n : members) n.priority = 0;
  CHECK_FALSE(ChooseReplica(members, failed));
  CHECK_FALSE(ChooseReplica({Node("m", 1, "mm", true, 1)}, failed));
}

TEST_CASE("a failover prefers the replica that holds what every other one holds") {
  const MasterRecord failed{3, "m", 1, "mm"};
  // b has the larger sum, but a holds stream 0's last write, which b lacks: a write WAIT
  // counted on a would be lost with b. c holds everything a and b hold: c wins.
  ClusterNode a = Node("a", 2, "r0", false, 0);
  ClusterNode b = Node("b", 3, "r1", false, 0);
  ClusterNode c = Node("c", 4, "r2", false, 0);
  a.streams = {5, 1};
  b.streams = {4, 3};
  c.streams = {5, 3};
  for (ClusterNode* n : {&a, &b, &c}) n->offset = n->streams[0] + n->streams[1];
  CHECK(ChooseReplica({a, b, c}, failed)->host == "c");
  c.priority = 150;  // covering wins over a worse priority (Sentinel's first rule)
  CHECK(ChooseReplica({a, b, c}, failed)->host == "c");
  // No one covers the others: Sentinel's order (b: the highest sum).
  CHECK(ChooseReplica({a, b}, failed)->host == "b");
  // Unknown streams (an older node): the sums decide.
  b.streams.clear();
  CHECK(ChooseReplica({a, b}, failed)->host == "b");
}

TEST_CASE("the first master is a node that is one, else the best of the others") {
  std::vector<ClusterNode> members = {Node("a", 1, "r1", false, 90), Node("b", 2, "r2", true, 10)};
  CHECK(ChooseFirstMaster(members)->host == "b");
  members[1].master = false;
  CHECK(ChooseFirstMaster(members)->host == "a");
  members[0].partial = true;
  CHECK(ChooseFirstMaster(members)->host == "b");
  CHECK_FALSE(ChooseFirstMaster({}));
}

}  // namespace
}  // namespace slotkv::repl
