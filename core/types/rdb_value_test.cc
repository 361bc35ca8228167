#include "core/types/rdb_value.h"

#include <doctest/doctest.h>

#include <string>

#include "core/base/rdb.h"

namespace slotkv::rdb {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// The object of a payload DUMP made.
Object Restored(std::string_view hex) {
  const std::string payload = Unhex(hex);
  std::optional<std::string_view> body = RdbPayloadBody(payload);
  REQUIRE(body.has_value());
  Result<Object> o = Load(*body);
  REQUIRE(o.ok());
  return std::move(*o);
}

// The payloads are redis-server 7.0.15's DUMP replies.
TEST_CASE("rdb: RESTORE reads Redis 7.0's DUMPs of every type and encoding") {
  CHECK(Restored("000568656c6c6f0a006372df766534200a").str == "hello");
  CHECK(Restored("00c07b0a0048e253e1007a67b9").str == "123");           // 8-bit integer
  CHECK(Restored("00c290eefeff0a002875de7b13eb2800").str == "-70000");  // 32-bit integer
  // A quicklist of one listpack node: a, bb, 12, -5000.
  const Object l = Restored("12010214140000000400816102826262030c01f178ec03ff0a00871b3f57631c0145");
  REQUIRE(l.type == ValueType::kList);
  REQUIRE(l.list.size() == 4);
  CHECK(l.list.at(0) == "a");
  CHECK(l.list.at(1) == "bb");
  CHECK(l.list.at(2) == "12");
  CHECK(l.list.at(3) == "-5000");
  const Object si = Restored("0b0e0200000003000000010002002c010a00e510b28e7b9529aa");  // intset
  REQUIRE(si.type == ValueType::kSet);
  CHECK(si.set.size() == 3);
  CHECK(si.set.Contains("300"));
  const Object ss = Restored("0202017901780a000cdf6b3db330bcf0");  // a plain set
  CHECK(ss.set.size() == 2);
  CHECK(ss.set.Contains("x"));
  const Object h = Restored("1012120000000400816602817602816e020701ff0a00b82adea8407ffaa8");
  REQUIRE(h.type == ValueType::kHash);
  CHECK(h.hash.Get("f") == std::optional<std::string_view>("v"));
  CHECK(h.hash.Get("n") == std::optional<std::string_view>("7"));
  const Object z = Restored("111414000000040081610283312e35048162020201ff0a00fa02b425af188763");
  REQUIRE(z.type == ValueType::kZSet);
  CHECK(z.zset.Score("a") == std::optional<double>(1.5));
  CHECK(z.zset.Score("b") == std::optional<double>(2));
}

// Ziplists as Redis 6.2 wrote them (built by hand from ziplist.c's format: zlbytes, zltail,
// zllen, entries of prevlen, encoding, data, then 0xff).
TEST_CASE("rdb: RESTORE reads the ziplist forms of Redis 6.2") {
  // A hash ziplist: f=v, n=7 (7 as a 4-bit immediate).
  const std::string hash = "1600000013000000040000016603017603016e03f8ff";
  Result<Object> h = Load(Unhex("0d16" + hash));
  REQUIRE(h.ok());
  CHECK(h->hash.Get("n") == std::optional<std::string_view>("7"));
  CHECK(h->hash.Get("f") == std::optional<std::string_view>("v"));
  // A list ziplist: a, -5000 (an int16), alone and as a quicklist of one node.
  const std::string list = "120000000d000000020000016103c078ecff";
  Result<Object> l = Load(Unhex("0a12" + list));
  REQUIRE(l.ok());
  REQUIRE(l->list.size() == 2);
  CHECK(l->list.at(1) == "-5000");
  Result<Object> q = Load(Unhex("0e0112" + list));
  REQUIRE(q.ok());
  CHECK(q->list.at(0) == "a");
  // A zset ziplist: m with score 2.5 (as text).
  Result<Object> z = Load(Unhex("0c13130000000d000000020000016d0303322e35ff"));
  REQUIRE(z.ok());
  CHECK(z->zset.Score("m") == std::optional<double>(2.5));
  // The entry count disagrees.
  CHECK_FALSE(Load(Unhex("0d161600000013000000050000016603017603016e03f8ff")).ok());
}

TEST_CASE("rdb: what DUMP writes loads back") {
  ListValue list;
  list.PushBack("x");
  list.PushBack(std::string(300, 'y'));
  SetValue set;
  set.Add("m");
  HashValue hash;
  hash.Set("f", "v");
  ZSetValue zset;
  zset.Set("a", -0.5);
  zset.Set("b", 1e300);
  for (const std::string& object :
       {DumpString("s"), DumpList(list), DumpSet(set), DumpHash(hash), DumpZSet(zset)}) {
    std::string payload = object;
    PutRdbTrailer(&payload);
    std::optional<std::string_view> body = RdbPayloadBody(payload);
    REQUIRE(body.has_value());
    Result<Object> o = Load(*body);
    REQUIRE(o.ok());
    switch (o->type) {
      case ValueType::kString:
        CHECK(o->str == "s");
        break;
      case ValueType::kList:
        CHECK(o->list.at(1) == list.at(1));
        break;
      case ValueType::kSet:
        CHECK(o->set.Contains("m"));
        break;
      case ValueType::kHash:
        CHECK(o->hash.Get("f") == std::optional<std::string_view>("v"));
        break;
      case ValueType::kZSet:
        CHECK(o->zset.Score("b") == std::optional<double>(1e300));
        break;
      case ValueType::kStream:
        FAIL("no stream was dumped");
        break;
    }
  }
}

TEST_CASE("rdb: bad objects are refused") {
  CHECK_FALSE(Load("").ok());
  CHECK_FALSE(Load(std::string("\x02\x00", 2)).ok());            // an empty set
  CHECK_FALSE(Load(std::string("\x02\x02\x01x\x01x", 6)).ok());  // a duplicate member
  CHECK_FALSE(Load(std::string("\x00\x01xy", 4)).ok());          // bytes after the value
  CHECK_FALSE(Load(std::string("\x0a\x01x", 3)).ok());           // a ziplist that is not one
  CHECK_FALSE(Load(std::string("\x10\x07xxxxxxx", 9)).ok());     // a listpack that is not one
  CHECK_FALSE(Load(std::string("\x12\x01\x01\x00", 4)).ok());    // an empty PLAIN node
  std::string payload = DumpString("v");
  PutRdbTrailer(&payload);
  payload[1] ^= 1;
  CHECK_FALSE(RdbPayloadBody(payload).has_value());  // the CRC no longer checks
}

}  // namespace
}  // namespace slotkv::rdb

namespace slotkv::rdb {
namespace {

TEST_CASE("rdb: a stream DUMPed by Redis 7.0.15 loads, and ours loads back the same") {
  // XADD s 1-1 f v; XADD s 2-1 f w g x; XADD s 3-1 f 12; XDEL s 2-1; XGROUP CREATE s g 0;
  // XREADGROUP GROUP g c COUNT 1 STREAMS s >  (its listpack LZF-compressed).
  const std::string hex =
      "13011000000000000000010000000000000001c3383d073d00000018000201400007816602000102"
      "0100200103817602044012200a000240170981770281670281780208200f4022040c010401ff0203"
      "010101020103010167010181ffffffffffffffff01000000000000000100000000000000018f1d92"
      "50a2010000010101638f1d9250a20100000100000000000000010000000000000001";
  std::string body;
  for (size_t i = 0; i < hex.size(); i += 2) {
    body.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  Result<Object> o = Load(body);
  REQUIRE(o.ok());
  REQUIRE(o->type == ValueType::kStream);
  const StreamValue& s = o->stream;
  REQUIRE(s.entries.size() == 2);
  CHECK(s.entries.at({1, 1}) == StreamFields{"f", "v"});
  CHECK(s.entries.at({3, 1}) == StreamFields{"f", "12"});
  CHECK(s.meta.last_id == StreamId{3, 1});
  CHECK(s.meta.max_deleted == StreamId{2, 1});
  CHECK(s.meta.entries_added == 3);
  const StreamGroup& g = s.meta.groups.at("g");
  CHECK(g.last_id == StreamId{1, 1});
  CHECK(g.entries_read == StreamGroup::kUnknownRead);  // read past a tombstone
  CHECK(g.pel.at({1, 1}).consumer == "c");
  CHECK(g.pel.at({1, 1}).delivery_count == 1);
  CHECK(g.consumers.at("c").pel.size() == 1);

  // Ours: several nodes (more than 100 entries, mixed field sets, integers), back the same.
  StreamValue big = s;
  for (uint64_t i = 10; i < 400; ++i) {
    big.entries[{i, i % 3}] = i % 7 ? StreamFields{"f", std::to_string(i * 1000 - 5000)}
                                     : StreamFields{"x", std::string(i, 'y'), "f", "-0"};
  }
  big.meta.last_id = {500, 0};
  big.meta.groups["h"].entries_read = StreamGroup::kUnknownRead;
  Result<Object> back = Load(DumpStream(big));
  REQUIRE(back.ok());
  CHECK(back->stream.entries == big.entries);
  CHECK(back->stream.Encode() == big.Encode());
  for (size_t n = 1; n < 60; ++n) {
    std::string cut = DumpStream(big);
    cut.resize(cut.size() - n);
    CHECK(!Load(cut).ok());
  }
}

}  // namespace
}  // namespace slotkv::rdb
