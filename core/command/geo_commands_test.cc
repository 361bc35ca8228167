#include <doctest/doctest.h>

#include <string>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// Expected replies are redis-server 7.0.15's.
TEST_CASE("GEOADD stores geohash scores; GEOPOS, GEODIST, GEOHASH read them") {
  CommandFixture f;
  CHECK(f.Run({"GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
               "Catania"}) == ":2\r\n");
  CHECK(f.Run({"ZSCORE", "Sicily", "Palermo"}) == "$16\r\n3479099956230698\r\n");
  CHECK(f.Run({"GEOPOS", "Sicily", "Palermo", "nope"}) ==
        "*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*-1\r\n");
  CHECK(f.Run({"GEODIST", "Sicily", "Palermo", "Catania", "km"}) == "$8\r\n166.2742\r\n");
  CHECK(f.Run({"GEODIST", "Sicily", "Palermo", "nope"}) == "$-1\r\n");
  CHECK(f.Run({"GEOHASH", "Sicily", "Catania"}) == "*1\r\n$11\r\nsqdtr74hyu0\r\n");
  CHECK(f.Run({"GEORADIUS", "Sicily", "15", "37", "200", "km", "ASC"}) ==
        "*2\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n");
  CHECK(f.Run({"GEOSEARCHSTORE", "near", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "10",
               "km"}) == ":1\r\n");
  CHECK(f.Run({"ZRANGE", "near", "0", "-1"}) == "*1\r\n$7\r\nPalermo\r\n");
}

TEST_CASE("GEO errors") {
  CommandFixture f;
  CHECK(f.Run({"GEOADD", "k", "200", "100", "x"}) ==
        "-ERR invalid longitude,latitude pair 200.000000,100.000000\r\n");
  CHECK(f.Run({"GEOADD", "k", "NX", "XX", "1", "1", "x"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"GEODIST", "k", "a", "b", "yd"}) ==
        "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n");
  CHECK(f.Run({"GEOSEARCH", "k", "BYRADIUS", "1", "km", "WITHDIST", "ASC"}) ==
        "-ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH\r\n");
  CHECK(f.Run({"GEORADIUS", "k", "1", "1", "1", "km", "ANY"}) ==
        "-ERR the ANY argument requires COUNT argument\r\n");
}

TEST_CASE("Geo rows of the command table") {
  CommandFixture f;
  const CommandTable& t = *f.state().table;
  struct Row {
    const char* name;
    int arity;
    uint32_t flags;
    int last;
  };
  for (const Row& r :
       {Row{"geoadd", -5, kWrite | kDenyOom, 1}, Row{"geodist", -4, kReadOnly, 1},
        Row{"geohash", -2, kReadOnly, 1}, Row{"geopos", -2, kReadOnly, 1},
        Row{"georadius", -6, kWrite | kDenyOom, 1}, Row{"georadius_ro", -6, kReadOnly, 1},
        Row{"georadiusbymember", -5, kWrite | kDenyOom, 1},
        Row{"georadiusbymember_ro", -5, kReadOnly, 1}, Row{"geosearch", -7, kReadOnly, 1},
        Row{"geosearchstore", -8, kWrite | kDenyOom, 2}}) {
    const CommandSpec* spec = t.Find(r.name);
    REQUIRE(spec != nullptr);
    CHECK(spec->arity == r.arity);
    CHECK(spec->flags == r.flags);
    CHECK(spec->first_key == 1);
    CHECK(spec->last_key == r.last);
    CHECK(spec->group == "geo");
  }
  CHECK(CommandTable::Keys(*t.Find("georadius"), {"georadius", "src", "0", "0", "1", "km", "STORE",
                                                  "a", "STOREDIST", "b"}) ==
        std::vector<size_t>{1, 9});
}

}  // namespace
}  // namespace slotkv::command
