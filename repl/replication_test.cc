#include "repl/replication.h"

#include <doctest/doctest.h>

#include "repl/frames.h"

namespace slotkv::repl {
namespace {

TEST_CASE("the replication state file round-trips a replica's role and master id") {
  SavedRole role;
  role.host = "10.0.0.7";
  role.port = 7379;
  role.master_replid = std::string(40, 'a');
  const std::string text = FormatState(role);
  CHECK(text == "# slotkv replication state\nreplicaof 10.0.0.7 7379\nmaster-replid " +
                    std::string(40, 'a') + "\n");
  Result<SavedRole> back = ParseState(text);
  REQUIRE(back.ok());
  CHECK(back->host == "10.0.0.7");
  CHECK(back->port == 7379);
  CHECK(back->master_replid == role.master_replid);

  Result<SavedRole> master = ParseState(FormatState(SavedRole()));
  REQUIRE(master.ok());
  CHECK(master->host.empty());
}

TEST_CASE("a malformed replication state or replicaof option is refused") {
  CHECK_FALSE(ParseState("replicaof host\n").ok());
  CHECK_FALSE(ParseState("replicaof host 70000\n").ok());
  CHECK_FALSE(ParseState("something else\n").ok());
  CHECK_FALSE(ParseReplicaOf("host 1 2").ok());
  Result<SavedRole> none = ParseReplicaOf("");
  REQUIRE(none.ok());
  CHECK(none->host.empty());
  Result<SavedRole> r = ParseReplicaOf("127.0.0.1 6379");
  REQUIRE(r.ok());
  CHECK(r->port == 6379);
}

TEST_CASE("frames are RESP arrays of bulk strings") {
  CHECK(EncodeFrame({"PING"}) == "*1\r\n$4\r\nPING\r\n");
  CHECK(StreamFrame("CONT", 3, 0, 42) == "*4\r\n$4\r\nCONT\r\n$1\r\n3\r\n$1\r\n0\r\n$2\r\n42\r\n");
  CHECK(UnitFrame(1, 2, 9, std::string("a\0b", 3)) ==
        std::string("*5\r\n$4\r\nUNIT\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n9\r\n$3\r\na\0b\r\n", 44));
}

TEST_CASE("stream offsets round-trip; a malformed or out-of-range triple is refused") {
  std::string bulks;
  AppendOffset(&bulks, {3, 1, 42});
  CHECK(bulks == "$1\r\n3\r\n$1\r\n1\r\n$2\r\n42\r\n");
  std::vector<std::string> args = {"SLOTKV.ACK", "3", "1", "42", "0", "0", "7"};
  auto got = ParseOffsets(args, 1, 8, 16);
  REQUIRE(got.has_value());
  REQUIRE(got->size() == 2);
  CHECK((*got)[0].slot == 3);
  CHECK((*got)[0].db == 1);
  CHECK((*got)[0].offset == 42);
  CHECK((*got)[1].offset == 7);
  CHECK(ParseOffsets({"X"}, 1, 8, 16)->empty());
  CHECK(!ParseOffsets({"X", "1", "2"}, 1, 8, 16));        // not a whole triple
  CHECK(!ParseOffsets({"X", "8", "0", "1"}, 1, 8, 16));   // slot past slots
  CHECK(!ParseOffsets({"X", "0", "16", "1"}, 1, 8, 16));  // db past databases
  CHECK(!ParseOffsets({"X", "0", "0", "-1"}, 1, 8, 16));
}

}  // namespace
}  // namespace slotkv::repl
