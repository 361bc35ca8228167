#include <doctest/doctest.h>

#include <string>

#include "core/command/command_test_util.h"
#include "core/command/latency_events.h"
#include "core/command/latency_histogram.h"

namespace slotkv::command {
namespace {

TEST_CASE("LatencyHistogram indexes values as hdr_histogram with two significant digits") {
  CHECK(LatencyHistogram::IndexOf(1) == 1);
  CHECK(LatencyHistogram::IndexOf(255) == 255);
  CHECK(LatencyHistogram::ValueAt(LatencyHistogram::IndexOf(1000)) == 1000);
  CHECK(LatencyHistogram::HighestEquivalent(1000) == 1003);  // Redis prints p50=1.003
  CHECK(LatencyHistogram::HighestEquivalent(16000) == 16063);
  CHECK(LatencyHistogram::HighestEquivalent(78336) == 78335 + 512);
  CHECK(LatencyHistogram::IndexOf(LatencyHistogram::kMaxNs) < LatencyHistogram::kCounts);
}

// Bucket labels and counts as redis-server 7.0.15's LATENCY HISTOGRAM gives them.
TEST_CASE("LatencyHistogram's distribution reports power-of-two levels from 1024 ns") {
  LatencyHistogram h;
  for (int64_t us : {0, 0, 1, 3, 7, 15, 31, 60, 100, 250, 8000}) h.Record(us * 1000);
  const std::vector<std::pair<int64_t, uint64_t>> want = {
      {1, 3}, {2, 3}, {4, 4}, {8, 5}, {16, 6}, {33, 7}, {66, 8}, {132, 9}, {264, 10}, {8454, 11}};
  std::vector<std::pair<int64_t, uint64_t>> got = h.Distribution();
  // Levels whose count did not grow are left out (2 us here).
  CHECK(got.size() == want.size() - 1);
  for (const auto& [us, calls] : got) {
    bool found = false;
    for (const auto& w : want) found = found || (w.first == us && w.second == calls);
    CHECK_MESSAGE(found, us << " " << calls);
  }
  CHECK(h.total() == 11);
  CHECK(h.ValueAtPercentile(50) == LatencyHistogram::HighestEquivalent(15000));
  CHECK(h.ValueAtPercentile(100) == LatencyHistogram::HighestEquivalent(8000000));
  CHECK(h.ValueAtPercentile(0) == 1);
}

TEST_CASE("LatencyEvents keeps one sample per second, the worst, and the worst ever") {
  LatencyEvents e;
  e.Add("command", 100, 5);
  e.Add("command", 100, 9);
  e.Add("command", 100, 7);
  e.Add("command", 101, 3);
  std::map<std::string, LatencyEvents::Series> s = e.Snapshot();
  REQUIRE(s.count("command") == 1);
  const std::vector<LatencyEvents::Sample> in_order = s["command"].InOrder();
  REQUIRE(in_order.size() == 2);
  CHECK(in_order[0].time_s == 100);
  CHECK(in_order[0].ms == 9);
  CHECK(in_order[1].ms == 3);
  CHECK(s["command"].max_ms == 9);
  for (int64_t t = 0; t < 200; ++t) e.Add("command", 1000 + t, t);
  CHECK(e.Snapshot()["command"].InOrder().size() == LatencyEvents::kSamples);
  CHECK(e.Snapshot()["command"].InOrder().front().time_s == 1040);
  e.Add("fast-command", 5, 1);
  CHECK(e.Reset({"COMMAND", "nope"}) == 1);
  CHECK(e.Reset({}) == 1);
}

TEST_CASE("LATENCY LATEST, HISTORY, GRAPH, RESET, DOCTOR over recorded events") {
  CommandFixture f;
  CHECK(f.Run({"LATENCY", "LATEST"}) == "*0\r\n");
  CHECK(f.Run({"LATENCY", "GRAPH", "command"}) ==
        "-ERR No samples available for event 'command'\r\n");
  CHECK(f.Run({"LATENCY", "DOCTOR"}).find("I'm sorry, Dave") != std::string::npos);
  const int64_t now = f.clock().NowMs() / 1000;
  f.state().latency_events.Add("command", now - 2, 10);
  f.state().latency_events.Add("command", now - 1, 20);
  CHECK(f.Run({"LATENCY", "LATEST"}) ==
        "*1\r\n*4\r\n$7\r\ncommand\r\n:" + std::to_string(now - 1) + "\r\n:20\r\n:20\r\n");
  CHECK(f.Run({"LATENCY", "HISTORY", "command"}) ==
        "*2\r\n*2\r\n:" + std::to_string(now - 2) + "\r\n:10\r\n*2\r\n:" + std::to_string(now - 1) +
            "\r\n:20\r\n");
  CHECK(f.Run({"LATENCY", "HISTORY", "nope"}) == "*0\r\n");
  const std::string graph = "command - high 20 ms, low 10 ms (all time high 20 ms)\n" +
                            std::string(80, '-') + "\n #\n |\n |\n_|\n  \n21\nss\n";
  CHECK(f.Run({"LATENCY", "GRAPH", "command"}) ==
        "$" + std::to_string(graph.size()) + "\r\n" + graph + "\r\n");
  CHECK(f.Run({"LATENCY", "DOCTOR"})
            .find("1. command: 2 latency spikes (average 15ms, mean "
                  "deviation 5ms, period 1.00 sec). Worst all time "
                  "event 20ms.") != std::string::npos);
  CHECK(f.Run({"LATENCY", "RESET"}) == ":1\r\n");
  CHECK(f.Run({"LATENCY", "LATEST"}) == "*0\r\n");
}

// Errors as redis-server 7.0.15's.
TEST_CASE("LATENCY errors and HISTOGRAM of the commands called") {
  CommandFixture f;
  CHECK(f.Run({"LATENCY", "foo"}) == "-ERR unknown subcommand 'foo'. Try LATENCY HELP.\r\n");
  CHECK(f.Run({"LATENCY", "GRAPH"}) ==
        "-ERR wrong number of arguments for 'latency|graph' command\r\n");
  CHECK(f.Run({"LATENCY", "LATEST", "x"}) ==
        "-ERR wrong number of arguments for 'latency|latest' command\r\n");
  CHECK(f.Run({"LATENCY", "HISTOGRAM", "set"}) == "*0\r\n");
  CHECK(f.Run({"SET", "a", "b"}) == "+OK\r\n");
  const std::string h = f.Run({"LATENCY", "HISTOGRAM", "SET", "nosuch", "get"});
  CHECK(h.rfind("*2\r\n$3\r\nset\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:",
                0) == 0);
  CHECK(f.Run({"CONFIG", "SET", "latency-tracking-info-percentiles", "99.90 50.0 0"}) == "+OK\r\n");
  CHECK(f.Run({"CONFIG", "GET", "latency-tracking-info-percentiles"}) ==
        "*2\r\n$33\r\nlatency-tracking-info-percentiles\r\n$9\r\n99.9 50 0\r\n");
  CHECK(f.Run({"CONFIG", "SET", "latency-tracking-info-percentiles", "50 101"}) ==
        "-ERR CONFIG SET failed (possibly related to argument "
        "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters "
        "should sit between [0.0,100.0]\r\n");
  const std::string info = f.Run({"INFO", "latencystats"});
  CHECK(info.find("latency_percentiles_usec_set:p99.9=") != std::string::npos);
  CHECK(f.Run({"CONFIG", "RESETSTAT"}) == "+OK\r\n");
  CHECK(f.Run({"LATENCY", "HISTOGRAM", "set"}) == "*0\r\n");
}

TEST_CASE("INFO errorstats counts errors by code; CONFIG RESETSTAT clears them") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "x"}) == "+OK\r\n");
  f.Run({"INCR", "s"});
  f.Run({"LPUSH", "s", "x"});
  f.Run({"INCR", "s"});
  const std::string info = f.Run({"INFO", "errorstats"});
  CHECK(info.find("errorstat_ERR:count=2\r\nerrorstat_WRONGTYPE:count=1\r\n") != std::string::npos);
  CHECK(f.Run({"CONFIG", "RESETSTAT"}) == "+OK\r\n");
  CHECK(f.Run({"INFO", "errorstats"}).find("errorstat_") == std::string::npos);
}

}  // namespace
}  // namespace slotkv::command
