// dir/slotkv.meta, version 1, written when the dir is created and at each SWAPDB
// (WriteFileAtomic):
//   meta := "slotkv-meta 1\n" "slots " <decimal> "\n" [ "dbmap" (" " <decimal>)* "\n" ]
//   example: "slotkv-meta 1\nslots 16\n", after SWAPDB 0 1 with 4 databases
//   "slotkv-meta 1\nslots 16\ndbmap 1 0 2 3\n"
// The dbmap line, present once a SWAPDB left the map other than the identity, lists the
// database slot (db-D) of each logical database; databases past it live in their own. A
// binary that knows no dbmap line refuses the dir (its meta differs from what it expects).
// Database d of slot s: dir/slot-SSSS/db-D/ (SSSS zero-padded to 4 digits), the engine's files.
// Drop renames it to dir/slot-SSSS/trash-N first, so a crash mid-delete leaves a trash dir
// (removed at the next Open), never a half-deleted database. A replica's full sync stages the
// new data in dir/slot-SSSS/sync-D/, renamed to db-D when complete (removed at Open if not).
#include "core/command/keyspace.h"

#include <algorithm>
#include <cstdio>

#include "core/base/hash.h"
#include "core/base/mem_fs.h"
#include "core/base/number.h"
#include "core/command/cache_shares.h"
#include "core/command/collection_pages.h"
#include "core/command/internal_keys.h"
#include "core/command/tracking.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kMetaHeader = "slotkv-meta 1\n";

std::string SlotDir(const std::string& dir, uint32_t s) {
  char name[32];
  std::snprintf(name, sizeof name, "/slot-%04u", s);
  return dir + name;
}

constexpr std::string_view kDbMapPrefix = "dbmap";

// The header and slot count line, which every meta starts with.
std::string MetaHead(uint32_t slots) {
  return std::string(kMetaHeader) + "slots " + std::to_string(slots) + "\n";
}

// Whether map holds each of 0 .. size - 1 once: a database map (SWAPDB) to follow.
bool IsPermutation(const std::vector<uint32_t>& map) {
  std::vector<bool> seen(map.size(), false);
  for (uint32_t db : map) {
    if (db >= map.size() || seen[db]) return false;
    seen[db] = true;
  }
  return true;
}

// Reads the map of a dbmap line's numbers into *map (identity past them); false when they are
// not a permutation or do not fit databases.
bool ParseDbMap(std::string_view line, uint32_t databases, std::vector<uint32_t>* map) {
  std::vector<uint32_t> listed;
  for (size_t at = kDbMapPrefix.size(); at < line.size();) {
    const size_t end = std::min(line.find(' ', at + 1), line.size());
    std::optional<uint64_t> n = ParseUint64(line.substr(at + 1, end - at - 1));
    if (line[at] != ' ' || !n || *n >= UINT32_MAX) return false;
    listed.push_back(static_cast<uint32_t>(*n));
    at = end;
  }
  if (!IsPermutation(listed)) return false;
  // The databases past databases must keep to themselves.
  for (size_t i = databases; i < listed.size(); ++i) {
    if (listed[i] != i) return false;
  }
  for (uint32_t db = 0; db < databases; ++db) {
    (*map)[db] = db < listed.size() ? listed[db] : db;
  }
  return true;
}

// Checks (or writes, for a new dir) slotkv.meta; *map gets its dbmap.
Status CheckMeta(Fs* fs, const std::string& dir, uint32_t slots, uint32_t databases,
                 std::vector<uint32_t>* map) {
  const std::string path = dir + "/slotkv.meta";
  const std::string wanted = MetaHead(slots);
  if (!fs->Exists(path)) return fs->WriteFileAtomic(path, wanted);
  SLOTKV_ASSIGN_OR_RETURN(std::string meta, fs->ReadFile(path));
  if (meta.rfind(kMetaHeader, 0) != 0) return Status::Corruption(path + ": bad header");
  if (meta.rfind(wanted, 0) != 0) {
    return Status::InvalidArgument(path + " says '" +
                                   meta.substr(kMetaHeader.size(), meta.size() -
                                                                       kMetaHeader.size() - 1) +
                                   "' but slots is " + std::to_string(slots) +
                                   ": the slot count of a data dir cannot change");
  }
  std::string_view rest = std::string_view(meta).substr(wanted.size());
  if (rest.empty()) return Status::OK();
  if (rest.rfind(kDbMapPrefix, 0) != 0 || rest.back() != '\n' ||
      rest.find('\n') != rest.size() - 1) {
    return Status::Corruption(path + ": bad line after the slot count");
  }
  if (!ParseDbMap(rest.substr(0, rest.size() - 1), databases, map)) {
    return Status::InvalidArgument(path + " maps databases (SWAPDB) as '" +
                                   std::string(rest.substr(0, rest.size() - 1)) +
                                   "', which databases " + std::to_string(databases) +
                                   " cannot hold: raise databases");
  }
  return Status::OK();
}

}  // namespace

Keyspace::Keyspace(const KeyspaceOptions& options)
    : options_(options),
      clock_(options.slot.clock ? options.slot.clock : SystemClock()),
      wal_pools_(new slot::WalPool[options.databases]),
      entries_(static_cast<size_t>(options.slots) * options.databases),
      physical_(new std::atomic<uint32_t>[entries_.size()]),
      logical_(new std::atomic<uint32_t>[entries_.size()]),
      db_map_(options.databases),
      drops_(options.slots, 0),
      fsync_(static_cast<int>(options.slot.fsync)),
      cache_budget_(options.cache_budget),
      demand_(new CacheDemand[entries_.size()]),
      locks_(options.slots, options.workers),
      watched_(options.slots),
      refusing_(new std::atomic<bool>[entries_.size()]()),
      refusal_text_(entries_.size()) {
  for (uint32_t db = 0; db < options.databases; ++db) {
    wal_pools_[db].max_bytes = options.slot.wal_max_bytes * options.slots;
    db_map_[db] = db;
  }
  FollowDbMap(db_map_);
}

void Keyspace::FollowDbMap(const std::vector<uint32_t>& map) {
  const uint32_t dbs = options_.databases;
  for (size_t s = 0; s < options_.slots; ++s) {
    for (uint32_t db = 0; db < dbs; ++db) {
      physical_[s * dbs + db].store(map[db], std::memory_order_relaxed);
      logical_[s * dbs + map[db]].store(db, std::memory_order_relaxed);
    }
  }
}

std::string Keyspace::MetaText(const std::vector<uint32_t>& map) const {
  std::string text = MetaHead(options_.slots);
  size_t listed = map.size();
  while (listed > 0 && map[listed - 1] == listed - 1) --listed;
  if (listed == 0) return text;
  text += kDbMapPrefix;
  for (size_t db = 0; db < listed; ++db) text += " " + std::to_string(map[db]);
  return text + "\n";
}

std::vector<uint32_t> Keyspace::db_map() const {
  std::lock_guard lock(db_map_mu_);
  return db_map_;
}

Status Keyspace::SetDbMap(std::vector<uint32_t> map) {
  if (map.size() != options_.databases || !IsPermutation(map)) {
    return Status::InvalidArgument("a database map must name each database once");
  }
  if (!options_.memory) {
    SLOTKV_RETURN_IF_ERROR(
        options_.fs->WriteFileAtomic(options_.dir + "/slotkv.meta", MetaText(map)));
  }
  std::lock_guard lock(db_map_mu_);
  db_map_ = std::move(map);
  return Status::OK();
}

void Keyspace::AdoptDbMap(uint32_t s) {
  const std::vector<uint32_t> map = db_map();
  const uint32_t dbs = options_.databases;
  std::vector<uint32_t> changed;
  for (uint32_t db = 0; db < dbs; ++db) {
    const uint32_t before = PhysicalDb(s, db);
    if (before == map[db]) continue;
    changed.push_back(db);
    // Redis's touchAllWatchedKeysInDb: a watched key there before or after the swap.
    slot::Slot* old_slot = entries_[size_t{s} * dbs + before].slot.get();
    slot::Slot* new_slot = entries_[size_t{s} * dbs + map[db]].slot.get();
    watched_.TouchFlushed(s, db, [&](std::string_view key) {
      for (slot::Slot* in : {old_slot, new_slot}) {
        if (in == nullptr) continue;
        Result<std::optional<slot::KeyMeta>> meta = in->GetMeta(StoredKey(key));
        if (!meta.ok() || meta->has_value()) return true;
      }
      return false;
    });
  }
  for (uint32_t db : changed) {
    physical_[size_t{s} * dbs + db].store(map[db], std::memory_order_relaxed);
    logical_[size_t{s} * dbs + map[db]].store(db, std::memory_order_relaxed);
  }
  // Clients blocked on a key that the other database holds are served.
  if (watcher_ != nullptr) {
    for (uint32_t db : changed) watcher_->OnClear(db, s);
  }
}

Keyspace::~Keyspace() = default;

Result<std::unique_ptr<Keyspace>> Keyspace::Open(const KeyspaceOptions& options) {
  if (options.slots == 0 || options.slots > kHashSlots || (options.slots & (options.slots - 1))) {
    return Status::InvalidArgument("slots must be a power of two from 1 to 16384");
  }
  std::unique_ptr<Keyspace> ks(new Keyspace(options));
  slot::DictionariesOptions dopts;
  dopts.min_bytes = options.compress_min_bytes;
  dopts.max_bytes = options.compress_max_bytes;
  dopts.group_chars = options.compress_group_chars;
  if (options.memory) {
    SLOTKV_ASSIGN_OR_RETURN(ks->dictionaries_, slot::Dictionaries::Open(dopts));
    return ks;
  }
  Fs* fs = options.fs;
  SLOTKV_RETURN_IF_ERROR(fs->CreateDirs(options.dir));
  std::vector<uint32_t> map = ks->db_map_;
  SLOTKV_RETURN_IF_ERROR(CheckMeta(fs, options.dir, options.slots, options.databases, &map));
  ks->FollowDbMap(map);
  ks->db_map_ = std::move(map);
  dopts.fs = fs;
  dopts.dir = options.dir + "/dicts";
  SLOTKV_ASSIGN_OR_RETURN(ks->dictionaries_, slot::Dictionaries::Open(dopts));
  for (uint32_t s = 0; s < options.slots; ++s) {
    const std::string sdir = SlotDir(options.dir, s);
    if (!fs->Exists(sdir)) continue;
    SLOTKV_ASSIGN_OR_RETURN(std::vector<std::string> names, fs->List(sdir));
    for (const std::string& name : names) {
      if (name.rfind("trash-", 0) == 0 || name.rfind("sync-", 0) == 0) {
        SLOTKV_RETURN_IF_ERROR(ks->RemoveTree(sdir + "/" + name));
        continue;
      }
      unsigned db = 0;
      char extra = 0;
      if (std::sscanf(name.c_str(), "db-%u%c", &db, &extra) != 1) continue;
      if (db >= options.databases) {
        return Status::InvalidArgument(sdir + "/" + name + " holds a database past databases " +
                                       std::to_string(options.databases));
      }
      Entry& e = ks->entries_[s * options.databases + db];
      SLOTKV_ASSIGN_OR_RETURN(e.slot, ks->OpenSlot(s, db));
      // An empty one (opened ahead of need, never written) takes its share at a first write.
      if (!e.slot->empty()) ks->AdoptCacheAt(s * options.databases + db, /*take=*/true);
    }
  }
  return ks;
}

uint32_t Keyspace::SlotOfKey(std::string_view key) const { return SlotOf(key, options_.slots); }

std::string Keyspace::DbDir(uint32_t s, uint32_t db) const {
  return SlotDir(options_.dir, s) + "/db-" + std::to_string(db);
}

std::string Keyspace::SyncDir(uint32_t s, uint32_t db) const {
  return SlotDir(options_.dir, s) + "/sync-" + std::to_string(db);
}

Result<std::unique_ptr<slot::Slot>> Keyspace::OpenSlot(uint32_t s, uint32_t db, bool staging) {
  slot::SlotOptions so = options_.slot;
  Entry& e = entries_[s * options_.databases + db];
  if (options_.memory) {
    std::unique_ptr<Fs>& mem = staging ? e.staging_fs : e.mem_fs;
    if (!mem) mem = std::make_unique<MemFs>();  // a finished staging's is kept
    so.fs = mem.get();
    so.dir = "/db";
    so.memory = true;
  } else {
    so.fs = options_.fs;
    so.dir = staging ? SyncDir(s, db) : DbDir(s, db);
  }
  so.clock = clock_;
  so.fsync = fsync();
  so.dictionaries = dictionaries_.get();
  so.may_hold_root = MayHoldRoot;
  so.root_id = PagedRootId;
  const size_t index = s * options_.databases + db;
  // A staging slot that fails fails its sync (the replica's link reconnects and starts over).
  if (!staging) so.on_failure = [this, index](const Status& st) { SetRefusal(index, st); };
  so.seq_floor = staging ? 0 : e.seq_floor;
  // A staging slot's log goes with its sync: it borrows nothing.
  so.wal_pool = staging ? nullptr : &wal_pools_[db];
  if (options_.streams) {
    so.on_commit = [this, s, db](std::string units, uint64_t seq) {
      if (stream_listener_ != nullptr) stream_listener_->OnUnits(s, db, std::move(units), seq);
    };
  }
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<slot::Slot> slot, slot::Slot::Open(so));
  if (staging) {  // a full sync fills it at once
    sharing_slots_.fetch_add(1);
    slot->SetCacheBudget(CacheShare());
  }
  return slot;
}

void Keyspace::SetRefusal(size_t index, const Status& failure) {
  // A failed commit may not have stored the count the cache holds: read it again.
  entries_[index].internal_keys.reset();
  std::lock_guard lock(refusal_mu_);
  const bool refusing = !failure.ok();
  refusal_text_[index] = refusing ? failure.ToString() : std::string();
  if (refusing_[index].exchange(refusing) == refusing) return;
  refusing_count_ += refusing ? 1 : -1;
  const auto s = static_cast<uint32_t>(index / options_.databases);
  const auto db = LogicalDb(s, static_cast<uint32_t>(index % options_.databases));
  if (refusing) {
    std::fprintf(stderr, "slot %u db %u: writes refused until the disk recovers: %s\n", s, db,
                 refusal_text_[index].c_str());
  } else {
    std::fprintf(stderr, "slot %u db %u: takes writes again\n", s, db);
  }
}

std::optional<std::string> Keyspace::Refusal(uint32_t s, uint32_t db) const {
  const size_t index = At(s, db);
  if (!refusing_[index].load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(refusal_mu_);
  return refusal_text_[index];
}

Result<slot::Slot*> Keyspace::Get(uint32_t s, uint32_t db, bool create) {
  const size_t index = At(s, db);
  Entry& e = entries_[index];
  if (!e.slot && create) {
    SLOTKV_ASSIGN_OR_RETURN(e.slot, OpenSlot(s, PhysicalDb(s, db)));
    AdoptCacheAt(index, /*take=*/true);
  }
  return e.slot.get();
}

void Keyspace::Prefetch(uint32_t db, const std::vector<KeyRef>& keys) {
  if (keys.size() < 2) return;
  using Stage = slot::Slot::PrefetchStage;
  for (Stage stage : {Stage::kIndex, Stage::kEntries}) {
    for (const KeyRef& k : keys) {
      const slot::Slot* slot = entries_[At(k.slot, db)].slot.get();
      if (slot != nullptr) slot->Prefetch(k.key, k.write, stage);
    }
  }
}

Status Keyspace::Preopen(uint32_t s, uint32_t db) {
  Entry& e = entries_[At(s, db)];
  if (e.slot) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(e.slot, OpenSlot(s, PhysicalDb(s, db)));
  return Status::OK();
}

void Keyspace::AdoptCache(uint32_t s, uint32_t db, bool take) { AdoptCacheAt(At(s, db), take); }

void Keyspace::AdoptCacheAt(size_t index, bool take) {
  Entry& e = entries_[index];
  if (!e.slot) return;
  if (!e.shares_cache) {
    if (!take) return;
    e.shares_cache = true;
    sharing_slots_.fetch_add(1);
    demand_[index].sharing.store(true);
  }
  const uint64_t rebalanced = demand_[index].share.load(std::memory_order_relaxed);
  const size_t share = rebalanced != 0 ? static_cast<size_t>(rebalanced) : CacheShare();
  if (e.slot->cache_budget() != share) e.slot->SetCacheBudget(share);
}

void Keyspace::NoteCacheDemand(uint32_t s, uint32_t db) {
  const size_t index = At(s, db);
  Entry& e = entries_[index];
  if (!e.slot || !e.shares_cache) return;
  CacheDemand& d = demand_[index];
  const slot::Slot::CacheUse use = e.slot->cache_use();
  // A slot reopened after a failure counts from zero again.
  auto since = [](uint64_t now, uint64_t last) { return now >= last ? now - last : now; };
  const uint64_t lookups = since(use.lookups, d.last_lookups);
  const uint64_t reads = since(use.file_reads, d.last_file_reads);
  d.last_lookups = use.lookups;
  d.last_file_reads = use.file_reads;
  d.weight.store((d.weight.load(std::memory_order_relaxed) + lookups) / 2,
                 std::memory_order_relaxed);
  // Reading (almost) nothing from its files, it holds what it uses: more would sit idle. It
  // claims that, a quarter more to grow into, and a megabyte.
  constexpr uint64_t kRoom = 1 << 20;
  d.cap.store(reads <= lookups / 100 ? use.bytes + use.bytes / 4 + kRoom : UINT64_MAX,
              std::memory_order_relaxed);
}

void Keyspace::RebalanceCaches() {
  std::lock_guard lock(rebalance_mu_);
  const int64_t now = clock_->MonotonicUs();
  if (now - rebalanced_at_us_ < 900'000) return;
  rebalanced_at_us_ = now;
  std::vector<size_t> sharing;
  std::vector<CacheClaim> claims;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const CacheDemand& d = demand_[i];
    if (!d.sharing.load()) continue;
    sharing.push_back(i);
    claims.push_back({.weight = d.weight.load(std::memory_order_relaxed),
                      .cap = d.cap.load(std::memory_order_relaxed)});
  }
  if (sharing.empty()) return;
  // A replica's staging slots keep an equal share each, outside the division.
  const uint64_t budget = cache_budget_.load();
  const uint64_t sharers = std::max<uint64_t>(sharing.size(), sharing_slots_.load());
  const uint64_t equal = budget / sharers;
  const uint64_t live_budget = budget - equal * (sharers - sharing.size());
  const std::vector<uint64_t> target = ShareCache(live_budget, claims);
  std::vector<uint64_t> prev(sharing.size());
  uint64_t prev_sum = 0;
  for (size_t k = 0; k < sharing.size(); ++k) {
    prev[k] = demand_[sharing[k]].share.load(std::memory_order_relaxed);
    if (prev[k] == 0) prev[k] = equal;
    prev_sum += prev[k];
  }
  std::vector<uint64_t> next = target;
  if (prev_sum <= live_budget) {
    // Down by an eighth at most; up by what the budget then has room for, in proportion.
    uint64_t kept = 0;
    uint64_t rises = 0;
    for (size_t k = 0; k < sharing.size(); ++k) {
      if (target[k] < prev[k]) next[k] = std::max(target[k], prev[k] - prev[k] / 8);
      kept += std::min(next[k], prev[k]);
      if (next[k] > prev[k]) rises += next[k] - prev[k];
    }
    const uint64_t room = live_budget > kept ? live_budget - kept : 0;
    if (rises > room) {
      for (size_t k = 0; k < sharing.size(); ++k) {
        if (next[k] <= prev[k]) continue;
        const auto rise = static_cast<unsigned __int128>(next[k] - prev[k]) * room / rises;
        next[k] = prev[k] + static_cast<uint64_t>(rise);
      }
    }
  }
  for (size_t k = 0; k < sharing.size(); ++k) {
    demand_[sharing[k]].share.store(std::max<uint64_t>(1, next[k]), std::memory_order_relaxed);
  }
}

void Keyspace::ResetDemand(size_t index) {
  CacheDemand& d = demand_[index];
  d.sharing.store(false);
  d.share.store(0, std::memory_order_relaxed);
  d.weight.store(0, std::memory_order_relaxed);
  d.cap.store(UINT64_MAX, std::memory_order_relaxed);
  d.last_lookups = 0;
  d.last_file_reads = 0;
}

Status Keyspace::RemoveTree(const std::string& dir) {
  Fs* fs = options_.fs;
  SLOTKV_ASSIGN_OR_RETURN(std::vector<std::string> names, fs->List(dir));
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    Status st = fs->Remove(path);
    if (!st.ok()) SLOTKV_RETURN_IF_ERROR(RemoveTree(path));  // a directory that is not empty
  }
  return fs->Remove(dir);
}

uint64_t Keyspace::StreamOffset(uint32_t s, uint32_t stream) const {
  const Entry& e = entries_[size_t{s} * options_.databases + stream];
  return e.slot ? std::max(e.slot->stream_seq(), e.seq_floor) : e.seq_floor;
}

void Keyspace::SlotClosed(bool shared) {
  if (shared) sharing_slots_.fetch_sub(1);
  slots_closed_.fetch_add(1, std::memory_order_release);
}

Status Keyspace::Drop(uint32_t s, uint32_t db, std::optional<uint64_t> floor) {
  const size_t index = At(s, db);
  const uint32_t stream = PhysicalDb(s, db);
  Entry& e = entries_[index];
  e.seq_floor = floor ? *floor : StreamOffset(s, stream) + 1;
  if (stream_listener_ != nullptr && options_.streams) {
    stream_listener_->OnClear(s, stream, e.seq_floor);
  }
  e.internal_keys.reset();
  e.reclaim_pending = true;
  e.cut_copies = true;
  if (!e.slot) return Status::OK();
  e.slot.reset();
  SetRefusal(index, Status::OK());  // a new slot starts healthy
  SlotClosed(std::exchange(e.shares_cache, false));
  ResetDemand(index);
  if (options_.memory) {
    e.mem_fs.reset();
    return Status::OK();
  }
  const std::string sdir = SlotDir(options_.dir, s);
  std::string trash;
  do {
    trash = sdir + "/trash-" + std::to_string(++drops_[s]);
  } while (options_.fs->Exists(trash));
  SLOTKV_RETURN_IF_ERROR(options_.fs->Rename(DbDir(s, stream), trash));
  SLOTKV_RETURN_IF_ERROR(options_.fs->SyncDir(sdir));
  return RemoveTree(trash);
}

Status Keyspace::BeginStaging(uint32_t s, uint32_t db) {
  SLOTKV_RETURN_IF_ERROR(DropStaging(s, db));
  entries_[At(s, db)].staging_active = true;
  return Status::OK();
}

Result<slot::Slot*> Keyspace::StagingSlot(uint32_t s, uint32_t db, bool create) {
  Entry& e = entries_[At(s, db)];
  if (!e.staging_active) return nullptr;
  if (!e.staging && create) {
    SLOTKV_ASSIGN_OR_RETURN(e.staging, OpenSlot(s, PhysicalDb(s, db), true));
  }
  return e.staging.get();
}

Status Keyspace::DropStaging(uint32_t s, uint32_t db) {
  Entry& e = entries_[At(s, db)];
  e.staging_active = false;
  if (e.staging) {
    e.staging.reset();
    SlotClosed(/*shared=*/true);
  }
  e.staging_fs.reset();
  const std::string sync_dir = SyncDir(s, PhysicalDb(s, db));
  if (options_.memory || !options_.fs->Exists(sync_dir)) return Status::OK();
  return RemoveTree(sync_dir);
}

Status Keyspace::FinishStaging(uint32_t s, uint32_t db, uint64_t floor) {
  const uint32_t stream = PhysicalDb(s, db);
  Entry& e = entries_[At(s, db)];
  if (!e.staging_active) return Status::InvalidArgument("no full sync is staged here");
  e.staging_active = false;
  const bool staged = e.staging != nullptr;
  if (staged) {
    e.staging.reset();
    SlotClosed(/*shared=*/true);
  }
  SLOTKV_RETURN_IF_ERROR(Drop(s, db, floor));  // the old data, as FLUSHDB's
  if (!staged) return Status::OK();            // the master's stream was empty
  if (options_.memory) {
    e.mem_fs = std::move(e.staging_fs);
  } else {
    SLOTKV_RETURN_IF_ERROR(options_.fs->Rename(SyncDir(s, stream), DbDir(s, stream)));
    SLOTKV_RETURN_IF_ERROR(options_.fs->SyncDir(SlotDir(options_.dir, s)));
  }
  SLOTKV_ASSIGN_OR_RETURN(e.slot, OpenSlot(s, stream));
  AdoptCache(s, db);
  return Status::OK();
}

Result<slot::Slot*> Store::Open(bool create) { return keyspace_->Get(slot_, db_, create); }

Result<std::optional<std::string>> Store::Get(std::string_view key, slot::KeyMeta* meta) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return std::optional<std::string>();
  return s->Get(StoredKey(key), meta);
}

const std::string* Store::GetCached(std::string_view key, slot::KeyMeta* meta) {
  Result<slot::Slot*> s = Open(false);
  if (!s.ok() || *s == nullptr) return nullptr;
  return (*s)->GetCached(StoredKey(key), meta);
}

Result<std::optional<slot::KeyMeta>> Store::GetMeta(std::string_view key) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return std::optional<slot::KeyMeta>();
  return s->GetMeta(StoredKey(key));
}

Status Store::MultiGet(const std::vector<std::string_view>& keys,
                       std::vector<std::optional<std::string>>* values,
                       std::vector<slot::KeyMeta>* metas) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) {
    values->assign(keys.size(), std::nullopt);
    if (metas) metas->assign(keys.size(), slot::KeyMeta());
    return Status::OK();
  }
  if (std::none_of(keys.begin(), keys.end(),
                   [](std::string_view k) { return !k.empty() && k[0] == kEscapeByte; })) {
    return s->MultiGet(keys, values, metas);
  }
  std::vector<std::string> escaped;
  escaped.reserve(keys.size());
  for (std::string_view k : keys) escaped.emplace_back(StoredKey(k).view());
  return s->MultiGet(std::vector<std::string_view>(escaped.begin(), escaped.end()), values, metas);
}

void Store::JoinUnit(slot::Slot* s) {
  txn::Holder* holder = keyspace_->locks().holder(slot_);
  if (holder == nullptr || !holder->hold_units || s->held()) return;
  s->Hold();
  holder->units[slot_ % static_cast<uint32_t>(keyspace_->workers())].push_back(s);
}

Status Store::Put(std::string_view key, std::string_view value, ValueType type,
                  int64_t expire_at_ms) {
  if (key.size() > kMaxKeyBytes) return Status::InvalidArgument("key too long");
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(true));
  SLOTKV_RETURN_IF_ERROR(BeforeWrite(s));
  const StoredKey stored(key);
  const bool observed = observer_ && observer_->active();
  bool created = false;
  if (observed && observer_->wants_created()) {
    SLOTKV_ASSIGN_OR_RETURN(std::optional<slot::KeyMeta> before, s->GetMeta(stored));
    created = !before.has_value();
  }
  SLOTKV_RETURN_IF_ERROR(s->Put(stored, value, type, expire_at_ms));
  AfterPut(s, key, type);
  if (observed) observer_->OnPut(db_, key, created);
  return Status::OK();
}

Result<bool> Store::Delete(std::string_view key) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return false;
  SLOTKV_RETURN_IF_ERROR(BeforeWrite(s));
  SLOTKV_ASSIGN_OR_RETURN(bool removed, s->Delete(StoredKey(key)));
  NoteWrite(s);
  // As Redis's DEL: only a key that was there touches its watchers.
  if (removed) {
    keyspace_->watched().Touch(slot_, db_, key);
    TellTracking(key);
    if (observer_ && observer_->active()) observer_->OnDelete(db_, key);
    SignalKey(key);
  }
  return removed;
}

Status Store::Apply(const wal::Record& record) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, keyspace_->StagingSlot(slot_, db_, true));
  if (s == nullptr) {
    SLOTKV_ASSIGN_OR_RETURN(s, Open(true));
  }
  SLOTKV_RETURN_IF_ERROR(BeforeWrite(s));
  SLOTKV_RETURN_IF_ERROR(s->Apply(record));
  if (IsInternalKey(record.key)) {
    NoteWrite(s);
    if (record.key == kReclaimKey) NoteReclaim();
    if (record.key == kInternalCountKey) internal_keys().reset();
    return Status::OK();
  }
  const bool put = record.kind == wal::RecordKind::kPut;
  AfterPut(s, *UserKeyOf(record.key),
           put ? slot::TypeOf(static_cast<ValueType>(record.type_tag)) : ValueType::kString);
  return Status::OK();
}

Result<std::optional<std::string>> Store::GetInternal(std::string_view key) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return std::optional<std::string>();
  return s->Get(key);
}

Status Store::PutInternal(std::string_view key, std::string_view value, ValueType type,
                          std::string_view group_key, std::unique_ptr<DecodedPage> decoded) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(true));
  SLOTKV_RETURN_IF_ERROR(BeforeWrite(s));
  SLOTKV_RETURN_IF_ERROR(s->Put(key, value, type, 0, group_key, std::move(decoded)));
  NoteWrite(s);
  return Status::OK();
}

Result<bool> Store::PutDecodedInternal(std::string_view key, ValueType type,
                                       std::string_view group_key,
                                       std::unique_ptr<DecodedPage>* decoded) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(true));
  SLOTKV_RETURN_IF_ERROR(BeforeWrite(s));
  SLOTKV_ASSIGN_OR_RETURN(bool taken, s->PutDecoded(key, type, group_key, decoded));
  if (taken) NoteWrite(s);
  return taken;
}

std::unique_ptr<DecodedPage> Store::TakeDecoded(std::string_view key) {
  Result<slot::Slot*> s = Open(false);
  return s.ok() && *s != nullptr ? (*s)->TakeDecoded(key) : nullptr;
}

void Store::KeepDecoded(std::string_view key, std::unique_ptr<DecodedPage> decoded) {
  Result<slot::Slot*> s = Open(false);
  if (s.ok() && *s != nullptr) (*s)->KeepDecoded(key, std::move(decoded));
}

Result<bool> Store::DeleteInternal(std::string_view key) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return false;
  SLOTKV_RETURN_IF_ERROR(BeforeWrite(s));
  SLOTKV_ASSIGN_OR_RETURN(bool removed, s->Delete(key));
  NoteWrite(s);
  return removed;
}

Status Store::BeforeWrite(slot::Slot* s) {
  SLOTKV_RETURN_IF_ERROR(keyspace_->AdoptFsync(s));
  keyspace_->AdoptCache(slot_, db_);
  JoinUnit(s);
  return Status::OK();
}

void Store::AfterPut(slot::Slot* s, std::string_view key, ValueType type) {
  NoteWrite(s);
  keyspace_->watched().Touch(slot_, db_, key);
  TellTracking(key);
  // A stream tells its waiters itself (SignalKey), as Redis only for XADD and a destroyed
  // group; a write of any other type reaches them too (XREADGROUP's stream was replaced).
  if (type != ValueType::kStream) SignalKey(key);
}

void Store::SignalKey(std::string_view key) {
  if (KeyWatcher* watcher = keyspace_->watcher()) watcher->OnKeyChange(db_, key);
}

void Store::TellTracking(std::string_view key) {
  Tracking* tracking = keyspace_->tracking();
  if (tracking != nullptr && tracking->active()) {
    tracking->Invalidate(key, trace_ != nullptr ? trace_->client : 0);
  }
}

void Store::NoteWrite(slot::Slot* s) {
  if (std::find(dirty_->begin(), dirty_->end(), s) == dirty_->end()) dirty_->push_back(s);
  if (trace_ == nullptr) return;
  trace_->Add(s);
  ++trace_->writes;
}

Result<slot::ScanResult> Store::Scan(uint64_t cursor, size_t count) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return slot::ScanResult();
  SLOTKV_ASSIGN_OR_RETURN(slot::ScanResult r, s->Scan(cursor, count));
  size_t kept = 0;
  for (size_t i = 0; i < r.items.size(); ++i) {
    if (!ToUserKey(&r.items[i].key)) continue;
    if (kept != i) r.items[kept] = std::move(r.items[i]);
    ++kept;
  }
  r.items.resize(kept);
  return r;
}

Result<uint64_t> Store::KeyCount() {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return uint64_t{0};
  return UserKeyCount(*keyspace_, slot_, db_, *s);
}

Status Store::BeginStaging() {
  SLOTKV_RETURN_IF_ERROR(AbortStaging());
  return keyspace_->BeginStaging(slot_, db_);
}

Status Store::AbortStaging() {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * staged, keyspace_->StagingSlot(slot_, db_, false));
  if (staged != nullptr) std::erase(*dirty_, staged);
  return keyspace_->AbortStaging(slot_, db_);
}

Status Store::FinishStaging(uint64_t floor) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * staged, keyspace_->StagingSlot(slot_, db_, false));
  if (staged != nullptr) {
    SLOTKV_RETURN_IF_ERROR(staged->Commit());
    std::erase(*dirty_, staged);
  }
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * live, Open(false));
  if (live != nullptr) std::erase(*dirty_, live);
  // Every watched key of the old data may have changed.
  keyspace_->watched().TouchFlushed(slot_, db_, [](std::string_view) { return true; });
  return keyspace_->FinishStaging(slot_, db_, floor);
}

Status Store::Clear(std::optional<uint64_t> floor) {
  SLOTKV_ASSIGN_OR_RETURN(slot::Slot * s, Open(false));
  if (!s) return floor ? keyspace_->Drop(slot_, db_, floor) : Status::OK();
  keyspace_->watched().TouchFlushed(slot_, db_, [s](std::string_view key) {
    Result<std::optional<slot::KeyMeta>> meta = s->GetMeta(StoredKey(key));
    return !meta.ok() || meta->has_value();
  });
  dirty_->erase(std::remove(dirty_->begin(), dirty_->end(), s), dirty_->end());
  // A transaction that wrote here before flushing: its unit goes with the files.
  if (txn::Holder* holder = keyspace_->locks().holder(slot_)) {
    auto& units = holder->units[slot_ % static_cast<uint32_t>(keyspace_->workers())];
    units.erase(std::remove(units.begin(), units.end(), s), units.end());
  }
  SLOTKV_RETURN_IF_ERROR(keyspace_->Drop(slot_, db_, floor));
  if (KeyWatcher* watcher = keyspace_->watcher()) watcher->OnClear(db_, slot_);
  return Status::OK();
}

}  // namespace slotkv::command
