#include "metrics/metric_table.h"

#include <prometheus/text_serializer.h>

namespace slotkv::metrics {
namespace {

using prometheus::MetricType;

double U(uint64_t v) { return static_cast<double>(v); }

struct CacheFigures {
  uint64_t hits;
  uint64_t misses;
  uint64_t bytes;
};

CacheFigures Figures(const SlotSnapshot& s, Cache c) {
  const slot::SlotStats& t = s.stats;
  switch (c) {
    case Cache::kValue:
      return {t.value_cache_hits, t.value_cache_misses, t.value_cache_bytes};
    case Cache::kBucket:
      return {t.bucket_cache_hits, t.bucket_cache_misses, t.bucket_cache_bytes};
    case Cache::kChunk:
      return {t.chunk_cache_hits, t.chunk_cache_misses, t.chunk_cache_bytes};
  }
  return {0, 0, 0};
}

constexpr std::string_view CacheName(Cache c) {
  switch (c) {
    case Cache::kValue:
      return "value";
    case Cache::kBucket:
      return "bucket";
    case Cache::kChunk:
      return "chunk";
  }
  return "";
}

const MetricDef kMetrics[] = {
    // ---- per slot (summed over the slot's databases)
    {.name = "slotkv_slot_keys",
     .type = MetricType::Gauge,
     .help = "Keys in the slot (all databases)",
     .labels = Labels::kSlot,
     .slot = [](const SlotSnapshot& s) { return U(s.keys); }},
    {.name = "slotkv_slot_compression_ratio",
     .type = MetricType::Gauge,
     .help = "Raw / stored bytes of the values written compressed (1 when none)",
     .labels = Labels::kSlot,
     .slot = [](const SlotSnapshot& s) {
       return s.stats.compressed_stored_bytes == 0
                  ? 1.0
                  : U(s.stats.compressed_raw_bytes) / U(s.stats.compressed_stored_bytes);
     }},
    {.name = "slotkv_slot_cache_hits_total",
     .type = MetricType::Counter,
     .help = "Cache hits",
     .labels = Labels::kSlotCache,
     .cache = [](const SlotSnapshot& s, Cache c) { return U(Figures(s, c).hits); }},
    {.name = "slotkv_slot_cache_misses_total",
     .type = MetricType::Counter,
     .help = "Cache misses",
     .labels = Labels::kSlotCache,
     .cache = [](const SlotSnapshot& s, Cache c) { return U(Figures(s, c).misses); }},
    {.name = "slotkv_slot_cache_bytes",
     .type = MetricType::Gauge,
     .help = "Bytes held by the cache",
     .labels = Labels::kSlotCache,
     .cache = [](const SlotSnapshot& s, Cache c) { return U(Figures(s, c).bytes); }},
    // ---- per command
    {.name = "slotkv_commands_total",
     .type = MetricType::Counter,
     .help = "Calls of the command",
     .labels = Labels::kCommand,
     .command = [](const CommandSnapshot& c) { return U(c.calls); }},
    {.name = "slotkv_commands_duration_seconds_total",
     .type = MetricType::Counter,
     .help = "Time spent running the command",
     .labels = Labels::kCommand,
     .command = [](const CommandSnapshot& c) { return U(c.usec) / 1e6; }},
    {.name = "slotkv_commands_failed_total",
     .type = MetricType::Counter,
     .help = "Calls that replied an error or were refused",
     .labels = Labels::kCommand,
     .command = [](const CommandSnapshot& c) { return U(c.failed); }},
    // ---- server
    {.name = "slotkv_commands_processed_total",
     .type = MetricType::Counter,
     .help = "Commands run",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.commands_processed); }},
    {.name = "slotkv_connected_clients",
     .type = MetricType::Gauge,
     .help = "Client connections",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return static_cast<double>(s.connected_clients); }},
    {.name = "slotkv_blocked_clients",
     .type = MetricType::Gauge,
     .help = "Clients waiting in a blocking command",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return static_cast<double>(s.blocked_clients); }},
    {.name = "slotkv_net_input_bytes_total",
     .type = MetricType::Counter,
     .help = "Bytes read from clients",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.net_input_bytes); }},
    {.name = "slotkv_net_output_bytes_total",
     .type = MetricType::Counter,
     .help = "Bytes written to clients",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.net_output_bytes); }},
    {.name = "slotkv_keyspace_hits_total",
     .type = MetricType::Counter,
     .help = "Key lookups that found the key",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.keyspace_hits); }},
    {.name = "slotkv_keyspace_misses_total",
     .type = MetricType::Counter,
     .help = "Key lookups that found nothing",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.keyspace_misses); }},
    {.name = "slotkv_read_waits_total",
     .type = MetricType::Counter,
     .help = "Read-only commands that missed the OS page cache and waited for an io_uring fetch",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.read_waits); }},
    {.name = "slotkv_loop_lag_max_seconds",
     .type = MetricType::Gauge,
     .help = "Longest a worker's 10 ms probe timer fired late (since start or CONFIG RESETSTAT)",
     .labels = Labels::kNone,
     .server =
         [](const ServerSnapshot& s) { return static_cast<double>(s.loop_lag_max_us) / 1e6; }},
    {.name = "slotkv_async_reads_total",
     .type = MetricType::Counter,
     .help = "File regions read through the workers' io_uring for waiting commands",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.async_reads); }},
    {.name = "slotkv_client_moves_total",
     .type = MetricType::Counter,
     .help = "Connections handed to the worker owning the keys they use",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.client_moves); }},
    {.name = "slotkv_direct_replies_total",
     .type = MetricType::Counter,
     .help = "Replies the owner of a request's slot wrote to the client's socket itself",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.direct_replies); }},
    {.name = "slotkv_uptime_seconds",
     .type = MetricType::Gauge,
     .help = "Seconds since the server started",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return s.uptime_s; }},
    {.name = "slotkv_replication_is_replica",
     .type = MetricType::Gauge,
     .help = "1 while this node is a replica (REPLICAOF), 0 for a master",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return s.replication.replica ? 1.0 : 0.0; }},
    {.name = "slotkv_replication_master_link_up",
     .type = MetricType::Gauge,
     .help = "1 while a replica's link to its master is up (every stream synced), else 0",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return s.replication.link_up ? 1.0 : 0.0; }},
    {.name = "slotkv_replication_offset",
     .type = MetricType::Gauge,
     .help = "The replication offset: every stream's sequence number summed (INFO's "
             "master_repl_offset)",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.replication.offset); }},
    {.name = "slotkv_replication_connected_replicas",
     .type = MetricType::Gauge,
     .help = "Replicas linked to this node",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.replication.replicas.size()); }},
    {.name = "slotkv_cluster_epoch",
     .type = MetricType::Gauge,
     .help = "ZooKeeper mode: the epoch of the master record this node follows (0: none)",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.replication.cluster.epoch); }},
    {.name = "slotkv_cluster_zookeeper_connected",
     .type = MetricType::Gauge,
     .help = "ZooKeeper mode: 1 while the node's ZooKeeper session is connected",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) {
       return s.replication.cluster.session == "connected" ? 1.0 : 0.0;
     }},
    {.name = "slotkv_cluster_controller",
     .type = MetricType::Gauge,
     .help = "ZooKeeper mode: 1 while this node is the elected controller",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) {
       return s.replication.cluster.controller ? 1.0 : 0.0;
     }},
    {.name = "slotkv_cluster_master_lease",
     .type = MetricType::Gauge,
     .help = "ZooKeeper mode: 1 while this node is the master and its lease lets it take writes",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return s.replication.cluster.lease ? 1.0 : 0.0; }},
    {.name = "slotkv_cluster_failovers_total",
     .type = MetricType::Counter,
     .help = "ZooKeeper mode: master changes this node saw in the record since it started",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) { return U(s.replication.cluster.failovers); }},
    {.name = "slotkv_cluster_last_failover_timestamp_seconds",
     .type = MetricType::Gauge,
     .help = "ZooKeeper mode: when this node last saw the master change (Unix time; 0: never)",
     .labels = Labels::kNone,
     .server = [](const ServerSnapshot& s) {
       return static_cast<double>(s.replication.cluster.last_failover_ms) / 1000.0;
     }},
    {.name = "slotkv_slot_replication_offset",
     .type = MetricType::Gauge,
     .help = "The slot's replication streams' offsets summed over its databases",
     .labels = Labels::kSlot,
     .slot = [](const SlotSnapshot& s) { return U(s.repl_offset); }},
    {.name = "slotkv_replica_lag_seconds",
     .type = MetricType::Gauge,
     .help = "Seconds since the replica last acknowledged what it applied",
     .labels = Labels::kReplica,
     .replica = [](const ReplicaSnapshot& r) { return static_cast<double>(r.lag_s); }},
    {.name = "slotkv_replica_offset_lag",
     .type = MetricType::Gauge,
     .help = "Writes (sequence numbers) this node has and the replica has not acknowledged",
     .labels = Labels::kReplica,
     .replica = [](const ReplicaSnapshot& r) { return U(r.offset_lag); }},
    {.name = "slotkv_replica_online",
     .type = MetricType::Gauge,
     .help = "1 once every stream of the replica is continued or fully synced",
     .labels = Labels::kReplica,
     .replica = [](const ReplicaSnapshot& r) { return r.online ? 1.0 : 0.0; }},
    {.name = "slotkv_slot_replica_offset_lag",
     .type = MetricType::Gauge,
     .help = "Writes of the slot (all its databases) the replica has not acknowledged",
     .labels = Labels::kSlotReplica,
     .slot_replica = [](const ReplicaSnapshot& r, uint32_t s) { return U(r.slot_lag[s]); }},
};

prometheus::ClientMetric Sample(MetricType type, double value,
                                std::vector<prometheus::ClientMetric::Label> labels) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  if (type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  return m;
}

std::vector<MetricDef> AllMetrics() {
  std::vector<MetricDef> all(std::begin(kMetrics), std::end(kMetrics));
  // After slotkv_slot_keys, the first row.
  auto at = all.begin() + 1;
  for (const slot::SlotStatRow& r : slot::kSlotStatRows) {
    if (r.metric.empty()) continue;
    at = all.insert(at, MetricDef{.name = r.metric,
                                  .type = r.kind == slot::StatKind::kCounter ? MetricType::Counter
                                                                             : MetricType::Gauge,
                                  .help = r.help,
                                  .labels = Labels::kSlot,
                                  .stat = &r}) +
         1;
  }
  return all;
}

double SlotValue(const MetricDef& def, const SlotSnapshot& s) {
  return def.stat != nullptr ? U(s.stats.*def.stat->field) * def.stat->metric_scale : def.slot(s);
}

}  // namespace

std::span<const MetricDef> Metrics() {
  static const std::vector<MetricDef> all = AllMetrics();
  return all;
}

std::vector<prometheus::MetricFamily> Collect(const ServerSnapshot& snapshot) {
  std::vector<prometheus::MetricFamily> families;
  for (const MetricDef& def : Metrics()) {
    prometheus::MetricFamily f;
    f.name = std::string(def.name);
    f.help = std::string(def.help);
    f.type = def.type;
    switch (def.labels) {
      case Labels::kNone:
        f.metric.push_back(Sample(def.type, def.server(snapshot), {}));
        break;
      case Labels::kSlot:
        for (const SlotSnapshot& s : snapshot.slots) {
          f.metric.push_back(
              Sample(def.type, SlotValue(def, s), {{"slot", std::to_string(s.slot)}}));
        }
        break;
      case Labels::kSlotCache:
        for (const SlotSnapshot& s : snapshot.slots) {
          for (Cache c : {Cache::kValue, Cache::kBucket, Cache::kChunk}) {
            f.metric.push_back(
                Sample(def.type, def.cache(s, c),
                       {{"cache", std::string(CacheName(c))}, {"slot", std::to_string(s.slot)}}));
          }
        }
        break;
      case Labels::kCommand:
        for (const CommandSnapshot& c : snapshot.commands) {
          f.metric.push_back(Sample(def.type, def.command(c), {{"cmd", c.name}}));
        }
        break;
      case Labels::kReplica:
        for (const ReplicaSnapshot& r : snapshot.replication.replicas) {
          f.metric.push_back(Sample(def.type, def.replica(r), {{"replica", r.name}}));
        }
        break;
      case Labels::kSlotReplica:
        for (const ReplicaSnapshot& r : snapshot.replication.replicas) {
          for (uint32_t s = 0; s < r.slot_lag.size(); ++s) {
            f.metric.push_back(Sample(def.type, def.slot_replica(r, s),
                                      {{"replica", r.name}, {"slot", std::to_string(s)}}));
          }
        }
        break;
    }
    families.push_back(std::move(f));
  }
  return families;
}

std::string RenderText(const ServerSnapshot& snapshot) {
  return prometheus::TextSerializer().Serialize(Collect(snapshot));
}

}  // namespace slotkv::metrics
