#include "metrics/metric_table.h"

#include <doctest/doctest.h>

#include <set>

#include "core/command/command_test_util.h"
#include "metrics/admin_api.h"

namespace slotkv::metrics {
namespace {

// The value of the sample `line_start value` in text, or -1.
double SampleValue(const std::string& text, const std::string& line_start) {
  const size_t at = text.find("\n" + line_start + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + line_start.size() + 2));
}

TEST_CASE("metrics: every row is well formed and names are unique") {
  std::set<std::string_view> names;
  for (const MetricDef& def : Metrics()) {
    CHECK_MESSAGE(names.insert(def.name).second, def.name);
    CHECK(def.name.starts_with("slotkv_"));
    CHECK(!def.help.empty());
    // Counters end in _total, gauges do not (Prometheus naming).
    CHECK_MESSAGE(def.name.ends_with("_total") == (def.type == prometheus::MetricType::Counter),
                  def.name);
    const int readers = (def.server != nullptr) + (def.slot != nullptr) +
                        (def.cache != nullptr) + (def.command != nullptr) +
                        (def.replica != nullptr) + (def.slot_replica != nullptr) +
                        (def.stat != nullptr);
    CHECK(readers == 1);
    switch (def.labels) {
      case Labels::kNone: CHECK((def.server != nullptr)); break;
      case Labels::kSlot: CHECK((def.slot != nullptr || def.stat != nullptr)); break;
      case Labels::kSlotCache: CHECK((def.cache != nullptr)); break;
      case Labels::kCommand: CHECK((def.command != nullptr)); break;
      case Labels::kReplica: CHECK((def.replica != nullptr)); break;
      case Labels::kSlotReplica: CHECK((def.slot_replica != nullptr)); break;
    }
  }
}

TEST_CASE("metrics: a snapshot renders as Prometheus text") {
  ServerSnapshot snap;
  snap.slots.resize(2);
  snap.slots[0].slot = 0;
  snap.slots[0].keys = 7;
  snap.slots[1].slot = 1;
  snap.slots[1].keys = 3;
  snap.slots[1].stats.flush_usec = 2'500'000;
  snap.slots[1].stats.bucket_cache_hits = 9;
  snap.commands.push_back({"get", 4, 1000, 1});
  snap.connected_clients = 2;
  const std::string text = RenderText(snap);
  CHECK(text.find("# TYPE slotkv_slot_keys gauge") != std::string::npos);
  CHECK(text.find("# TYPE slotkv_commands_total counter") != std::string::npos);
  CHECK(SampleValue(text, "slotkv_slot_keys{slot=\"0\"}") == 7);
  CHECK(SampleValue(text, "slotkv_slot_keys{slot=\"1\"}") == 3);
  CHECK(SampleValue(text, "slotkv_slot_flush_seconds_total{slot=\"1\"}") == 2.5);
  CHECK(SampleValue(text, "slotkv_slot_cache_hits_total{cache=\"bucket\",slot=\"1\"}") == 9);
  CHECK(SampleValue(text, "slotkv_commands_total{cmd=\"get\"}") == 4);
  CHECK(SampleValue(text, "slotkv_commands_duration_seconds_total{cmd=\"get\"}") == 0.001);
  CHECK(SampleValue(text, "slotkv_commands_failed_total{cmd=\"get\"}") == 1);
  CHECK(SampleValue(text, "slotkv_connected_clients") == 2);
}

TEST_CASE("metrics: a master shows each replica's lag, in all and per slot") {
  ServerSnapshot snap;
  snap.slots.resize(2);
  snap.slots[1].slot = 1;
  snap.slots[1].repl_offset = 40;
  snap.replication.offset = 55;
  ReplicaSnapshot r;
  r.name = "127.0.0.1:7380";
  r.online = true;
  r.lag_s = 1;
  r.offset_lag = 5;
  r.slot_lag = {0, 5};
  snap.replication.replicas.push_back(r);
  const std::string text = RenderText(snap);
  CHECK(SampleValue(text, "slotkv_replication_is_replica") == 0);
  CHECK(SampleValue(text, "slotkv_replication_offset") == 55);
  CHECK(SampleValue(text, "slotkv_replication_connected_replicas") == 1);
  CHECK(SampleValue(text, "slotkv_slot_replication_offset{slot=\"1\"}") == 40);
  CHECK(SampleValue(text, "slotkv_replica_lag_seconds{replica=\"127.0.0.1:7380\"}") == 1);
  CHECK(SampleValue(text, "slotkv_replica_offset_lag{replica=\"127.0.0.1:7380\"}") == 5);
  CHECK(SampleValue(text, "slotkv_replica_online{replica=\"127.0.0.1:7380\"}") == 1);
  CHECK(SampleValue(text,
                    "slotkv_slot_replica_offset_lag{replica=\"127.0.0.1:7380\",slot=\"1\"}") == 5);
  const std::string json = ReplicationJson(snap);
  CHECK(json.find(R"("role":"master")") != std::string::npos);
  CHECK(json.find(R"("replica":"127.0.0.1:7380","state":"online","lag_seconds":1,)"
                  R"("offset_lag":5)") != std::string::npos);
  CHECK(json.find(R"({"slot":1,"offset":40,"replica_offset_lag":{"127.0.0.1:7380":5}})") !=
        std::string::npos);
}

TEST_CASE("metrics: Gather reads every slot on its owner and sums the workers") {
  command::CommandFixture f(2, 8);
  for (int i = 0; i < 100; ++i) f.Run({"SET", "k" + std::to_string(i), "v"});
  f.Run({"GET", "k1"});
  f.Run({"GET", "nokey"});
  ServerSnapshot snap = Gather(f.state());
  CHECK(snap.failure.ok());
  REQUIRE(snap.slots.size() == 8);
  uint64_t keys = 0;
  for (const SlotSnapshot& s : snap.slots) {
    CHECK(s.worker == static_cast<int>(s.slot % 2));
    keys += s.keys;
  }
  CHECK(keys == 100);
  CHECK(snap.keyspace_hits == 1);
  CHECK(snap.keyspace_misses == 1);
  bool saw_set = false;
  for (const CommandSnapshot& c : snap.commands) {
    if (c.name == "set") {
      saw_set = true;
      CHECK(c.calls == 100);
    }
    CHECK(c.calls + c.failed > 0);
  }
  CHECK(saw_set);
  Status failure;
  SlotSnapshot one = GatherSlot(f.state(), 3, &failure);
  CHECK(failure.ok());
  CHECK(one.keys == snap.slots[3].keys);
  CHECK(one.worker == 1);
}

}  // namespace
}  // namespace slotkv::metrics
