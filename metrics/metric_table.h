// The metric table: every metric /metrics exports, one row each (name, type, help, labels, and
// how to read it from a ServerSnapshot); the per-slot engine stats' rows are made from
// slot::kSlotStatRows (slot/slot_stats.h). Collect turns a snapshot into prometheus-cpp metric
// families; RenderText gives the Prometheus text format (0.0.4) through prometheus-cpp's
// TextSerializer. docs/metrics.md lists the same metrics for users.
#pragma once

#include <prometheus/metric_family.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/snapshot.h"

namespace slotkv::metrics {

enum class Cache { kValue, kBucket, kChunk };

// Which labels a metric's samples carry.
enum class Labels {
  kNone,       // one sample
  kSlot,       // one per slot: slot="N"
  kSlotCache,  // one per slot and cache: slot="N", cache="value|bucket|chunk"
  kCommand,    // one per command called: cmd="get"
  kReplica,    // one per replica of this node: replica="ip:port"
  kSlotReplica,  // one per slot and replica: slot="N", replica="ip:port"
};

struct MetricDef {
  std::string_view name;
  prometheus::MetricType type;  // Counter or Gauge
  std::string_view help;
  Labels labels;
  // The reader for the label kind (exactly one is set).
  double (*server)(const ServerSnapshot&) = nullptr;
  double (*slot)(const SlotSnapshot&) = nullptr;
  double (*cache)(const SlotSnapshot&, Cache) = nullptr;
  double (*command)(const CommandSnapshot&) = nullptr;
  double (*replica)(const ReplicaSnapshot&) = nullptr;
  double (*slot_replica)(const ReplicaSnapshot&, uint32_t slot) = nullptr;
  const slot::SlotStatRow* stat = nullptr;  // a slot stat's row (labels kSlot)
};

// Every row, the slot stats' among the other per-slot ones.
std::span<const MetricDef> Metrics();

std::vector<prometheus::MetricFamily> Collect(const ServerSnapshot& snapshot);
std::string RenderText(const ServerSnapshot& snapshot);

}  // namespace slotkv::metrics
