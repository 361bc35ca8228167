// SlotStats: a slot's counters and levels, and the table that names each one once for every
// place that shows it: the admin API's /slots objects (key), /metrics (metric, help, kind)
// and INFO persistence (info). metrics/metric_table.cc, metrics/admin_api.cc and
// core/command/info_command.cc generate their slot fields from kSlotStatRows; a new stat is a
// field here and a row below. The cache figures go to /metrics as the labelled families
// slotkv_slot_cache_{hits_total,misses_total,bytes}{cache=...} (metric_table's Figures), so
// their rows name no metric.
//
// Thread rule: a Slot fills one in Stats() on its owner; copies go anywhere.
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>

namespace slotkv::slot {

struct SlotStats {
  uint64_t user_bytes_written = 0;  // key + value bytes of every Put
  uint64_t disk_bytes_written = 0;  // log + bucket pages + chunks
  uint64_t disk_bytes = 0;          // on disk now: log files + pages + chunks
  uint64_t wal_entries = 0;         // in group maps, not yet persisted
  uint64_t wal_map_bytes = 0;       // memory of those group maps
  uint64_t wal_bytes = 0;
  uint64_t wal_truncated_bytes = 0;  // torn tails cut from the newest log file at open
  uint64_t failed = 0;          // 1 while writes are refused after an I/O failure (failure())
  uint64_t write_failures = 0;  // commits, flushes and syncs that failed
  uint64_t recoveries = 0;      // reopens after a failure (Recover)
  uint64_t flushes = 0;
  uint64_t flush_usec = 0;          // time spent in group flushes
  uint64_t flush_fetches = 0;       // flush steps put off while their reads were fetched
  uint64_t flush_kept_entries = 0;  // entries flushes left in their maps for the log's sync
  uint64_t publishes = 0;           // flush marks published after a sync of the data files
  uint64_t publish_wait_usec = 0;   // time spent waiting for those syncs (not io_uring ones)
  uint64_t expired_keys = 0;        // reclaimed by ActiveExpireStep or a flush
  uint64_t bucket_splits = 0;
  uint64_t chunk_segments_used = 0;
  uint64_t chunk_segments_free = 0;
  uint64_t compacted_segments = 0;
  uint64_t compacted_bytes = 0;     // segment bytes freed by compaction
  uint64_t value_cache_hits = 0;
  uint64_t value_cache_misses = 0;
  uint64_t value_cache_bytes = 0;
  uint64_t bucket_cache_hits = 0;
  uint64_t bucket_cache_misses = 0;  // pages read from the file
  uint64_t bucket_cache_bytes = 0;
  uint64_t chunk_cache_hits = 0;
  uint64_t chunk_cache_misses = 0;
  uint64_t chunk_cache_bytes = 0;
  uint64_t cache_budget_bytes = 0;  // its share of maxmemory-cache (Slot::SetCacheBudget)
  uint64_t compressed_raw_bytes = 0;     // values written compressed: bytes before
  uint64_t compressed_stored_bytes = 0;  // and after
  uint64_t value_deltas = 0;  // writes logged as a delta against a held value

  // Adds every field of o (totals over slots or databases).
  void Add(const SlotStats& o);
};

// A counter only grows (its metric ends in _total); a gauge is a level.
enum class StatKind { kCounter, kGauge };

struct SlotStatRow {
  uint64_t SlotStats::*field;
  std::string_view key;     // in the admin API's slot objects
  StatKind kind;
  std::string_view metric;  // per slot in /metrics ("": not there, or labelled elsewhere)
  std::string_view help;
  double metric_scale = 1;  // the metric is field * metric_scale (microseconds to seconds)
  std::string_view info = {};  // summed over the slots in INFO persistence ("": not there)
};

inline constexpr double kUsecToSeconds = 1e-6;

// INFO shows the rows with an info name in this order.
inline constexpr SlotStatRow kSlotStatRows[] = {
    {&SlotStats::recoveries, "recoveries", StatKind::kCounter, "slotkv_slot_recoveries_total",
     "Reopens of the slot after a failure, taking writes again", 1, "slotkv_slot_recoveries"},
    {&SlotStats::wal_entries, "wal_entries", StatKind::kGauge, "slotkv_slot_wal_entries",
     "Writes in the WAL not yet persisted to buckets", 1, "slotkv_wal_entries"},
    {&SlotStats::wal_bytes, "wal_bytes", StatKind::kGauge, "slotkv_slot_wal_bytes",
     "Bytes of WAL files on disk", 1, "slotkv_wal_bytes"},
    {&SlotStats::wal_truncated_bytes, "wal_truncated_bytes", StatKind::kCounter,
     "slotkv_slot_wal_truncated_bytes_total",
     "Bytes of torn tails cut from the newest WAL file when the slot opened", 1,
     "slotkv_wal_truncated_bytes"},
    {&SlotStats::disk_bytes, "disk_bytes", StatKind::kGauge, "slotkv_slot_disk_bytes",
     "Bytes on disk: WAL, bucket pages, chunks", 1, "slotkv_disk_bytes"},
    {&SlotStats::disk_bytes_written, "disk_bytes_written", StatKind::kCounter,
     "slotkv_slot_disk_bytes_written_total", "Bytes written to files (WAL, pages, chunks)", 1,
     "slotkv_disk_bytes_written"},
    {&SlotStats::user_bytes_written, "user_bytes_written", StatKind::kCounter,
     "slotkv_slot_user_bytes_written_total", "Key and value bytes of every write", 1,
     "slotkv_user_bytes_written"},
    {&SlotStats::flushes, "flushes", StatKind::kCounter, "slotkv_slot_flushes_total",
     "WAL groups persisted into buckets", 1, "slotkv_group_flushes"},
    {&SlotStats::flush_fetches, "flush_fetches", StatKind::kCounter,
     "slotkv_slot_flush_fetches_total",
     "Flush steps put off while their reads were fetched from the disk", 1,
     "slotkv_flush_fetches"},
    {&SlotStats::flush_kept_entries, "flush_kept_entries", StatKind::kCounter,
     "slotkv_slot_flush_kept_entries_total",
     "Unpersisted entries flushes left in their group maps until the WAL synced them", 1,
     "slotkv_flush_kept_entries"},
    {&SlotStats::value_deltas, "value_deltas", StatKind::kCounter, "slotkv_slot_value_deltas_total",
     "Collection writes logged as a delta against the version held in memory", 1,
     "slotkv_value_deltas"},
    {&SlotStats::publishes, "publishes", StatKind::kCounter, "slotkv_slot_publishes_total",
     "Flush marks published after a sync of the data files", 1, "slotkv_publishes"},
    {&SlotStats::publish_wait_usec, "publish_wait_usec", StatKind::kCounter,
     "slotkv_slot_publish_wait_seconds_total",
     "Time a worker waited for the data-file syncs of publishes (not io_uring ones)",
     kUsecToSeconds, "slotkv_publish_wait_usec"},
    {&SlotStats::bucket_splits, "bucket_splits", StatKind::kCounter,
     "slotkv_slot_bucket_splits_total", "Key bucket splits", 1, "slotkv_bucket_splits"},
    {&SlotStats::compacted_segments, "compacted_segments", StatKind::kCounter, "",
     "Segments compaction emptied", 1, "slotkv_compacted_segments"},
    {&SlotStats::failed, "failed", StatKind::kGauge, "slotkv_slot_failed",
     "1 while the slot refuses writes after an I/O failure (it retries every second)"},
    {&SlotStats::write_failures, "write_failures", StatKind::kCounter,
     "slotkv_slot_write_failures_total", "Commits, flushes and syncs of the slot that failed"},
    {&SlotStats::flush_usec, "flush_usec", StatKind::kCounter, "slotkv_slot_flush_seconds_total",
     "Time spent persisting WAL groups", kUsecToSeconds},
    {&SlotStats::wal_map_bytes, "wal_map_bytes", StatKind::kGauge, "",
     "Memory of the maps of unpersisted writes"},
    {&SlotStats::chunk_segments_used, "chunk_segments_used", StatKind::kGauge,
     "slotkv_slot_chunk_segments_used", "Value chunk segments holding values"},
    {&SlotStats::chunk_segments_free, "chunk_segments_free", StatKind::kGauge,
     "slotkv_slot_chunk_segments_free", "Value chunk segments free for reuse"},
    {&SlotStats::compacted_bytes, "compacted_bytes", StatKind::kCounter,
     "slotkv_slot_compaction_reclaimed_bytes_total", "Segment bytes freed by compaction"},
    {&SlotStats::expired_keys, "expired_keys", StatKind::kCounter,
     "slotkv_slot_expired_keys_total", "Expired keys reclaimed"},
    {&SlotStats::compressed_raw_bytes, "compressed_raw_bytes", StatKind::kCounter,
     "slotkv_slot_compressed_raw_bytes_total",
     "Bytes of the values written compressed, before compression"},
    {&SlotStats::compressed_stored_bytes, "compressed_stored_bytes", StatKind::kCounter,
     "slotkv_slot_compressed_stored_bytes_total",
     "Bytes of the values written compressed, as stored"},
    {&SlotStats::value_cache_hits, "value_cache_hits", StatKind::kCounter, "", "Cache hits"},
    {&SlotStats::value_cache_misses, "value_cache_misses", StatKind::kCounter, "",
     "Cache misses"},
    {&SlotStats::value_cache_bytes, "value_cache_bytes", StatKind::kGauge, "",
     "Bytes held by the cache"},
    {&SlotStats::bucket_cache_hits, "bucket_cache_hits", StatKind::kCounter, "", "Cache hits"},
    {&SlotStats::bucket_cache_misses, "bucket_cache_misses", StatKind::kCounter, "",
     "Cache misses"},
    {&SlotStats::bucket_cache_bytes, "bucket_cache_bytes", StatKind::kGauge, "",
     "Bytes held by the cache"},
    {&SlotStats::chunk_cache_hits, "chunk_cache_hits", StatKind::kCounter, "", "Cache hits"},
    {&SlotStats::chunk_cache_misses, "chunk_cache_misses", StatKind::kCounter, "",
     "Cache misses"},
    {&SlotStats::chunk_cache_bytes, "chunk_cache_bytes", StatKind::kGauge, "",
     "Bytes held by the cache"},
    {&SlotStats::cache_budget_bytes, "cache_budget_bytes", StatKind::kGauge,
     "slotkv_slot_cache_budget_bytes",
     "The slot's share of maxmemory-cache, divided among the slots by their use"},
};

// Every field has its row (Add and the outputs go through the rows).
static_assert(std::size(kSlotStatRows) * sizeof(uint64_t) == sizeof(SlotStats));

inline void SlotStats::Add(const SlotStats& o) {
  for (const SlotStatRow& r : kSlotStatRows) this->*r.field += o.*r.field;
}

}  // namespace slotkv::slot
