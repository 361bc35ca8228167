#include "core/command/keyspace.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <future>
#include <random>

#include "core/base/fault_fs.h"
#include "core/base/hash.h"
#include "core/base/mem_fs.h"
#include "core/command/command_test_util.h"
#include "core/command/context.h"
#include "slot/slot_test_util.h"

namespace slotkv::command {
namespace {

using slot::PutRecord;

KeyspaceOptions Options(Fs* fs, uint32_t slots = 4) {
  KeyspaceOptions o;
  o.fs = fs;
  o.dir = "/data";
  o.slots = slots;
  o.databases = 4;
  o.slot.key_estimate = 1024;
  return o;
}

TEST_CASE("databases are apart and survive a reopen") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  {
    auto ks = Keyspace::Open(Options(&fs));
    REQUIRE(ks.ok());
    uint32_t s = (*ks)->SlotOfKey("k");
    Store db0(ks->get(), s, 0, &dirty);
    Store db1 = db0.InDb(1);
    REQUIRE(db0.Put("k", "zero", ValueType::kString, 0).ok());
    REQUIRE(db1.Put("k", "one", ValueType::kString, 0).ok());
    CHECK(dirty.size() == 2);
    for (slot::Slot* slot : dirty) REQUIRE(slot->Commit().ok());
    dirty.clear();
  }
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  uint32_t s = (*ks)->SlotOfKey("k");
  Store db0(ks->get(), s, 0, &dirty);
  CHECK(**db0.Get("k") == "zero");
  CHECK(**db0.InDb(1).Get("k") == "one");
  CHECK(!db0.InDb(2).Get("k")->has_value());
  CHECK(*db0.InDb(2).KeyCount() == 0);
}

TEST_CASE("prefetching keys changes nothing, in opened and never written slots") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  std::vector<std::string> keys;
  for (int i = 0; i < 64; ++i) keys.push_back("key:" + std::to_string(i));
  // Half of them written: their slots open, their entries in group maps and the value cache.
  for (int i = 0; i < 32; ++i) {
    Store store(ks->get(), (*ks)->SlotOfKey(keys[i]), 0, &dirty);
    REQUIRE(store.Put(keys[i], "v" + std::to_string(i), ValueType::kString, 0).ok());
  }
  std::vector<Keyspace::KeyRef> refs;
  for (size_t i = 0; i < keys.size(); ++i) {
    refs.push_back({(*ks)->SlotOfKey(keys[i]), keys[i], i % 2 == 0});
  }
  (*ks)->Prefetch(0, refs);
  (*ks)->Prefetch(2, refs);  // a database never written: no slot at all
  for (int i = 0; i < 64; ++i) {
    Store store(ks->get(), (*ks)->SlotOfKey(keys[i]), 0, &dirty);
    auto got = store.Get(keys[i]);
    REQUIRE(got.ok());
    if (i < 32) {
      CHECK(**got == "v" + std::to_string(i));
    } else {
      CHECK(!got->has_value());
    }
  }
  CHECK(!fs.Exists("/data/slot-0000/db-2"));
}

TEST_CASE("a never written database reads empty and creates nothing") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  Store store(ks->get(), 0, 3, &dirty);
  CHECK(!store.Get("x")->has_value());
  CHECK(!*store.Delete("x"));
  CHECK(store.Scan(0, 10)->items.empty());
  CHECK(!fs.Exists("/data/slot-0000/db-3"));
}

TEST_CASE("clear drops one database of one slot") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  uint32_t s = (*ks)->SlotOfKey("k");
  Store db0(ks->get(), s, 0, &dirty);
  REQUIRE(db0.Put("k", "v", ValueType::kString, 0).ok());
  REQUIRE(db0.InDb(1).Put("k", "v1", ValueType::kString, 0).ok());
  REQUIRE(db0.Clear().ok());
  CHECK(dirty.size() == 1);  // the dropped slot left the dirty list
  CHECK(!db0.Get("k")->has_value());
  CHECK(**db0.InDb(1).Get("k") == "v1");
  CHECK(!fs.Exists("/data/slot-" + std::string(4 - std::to_string(s).size(), '0') +
                   std::to_string(s) + "/db-0"));
}

// A replica's full sync: the new data is staged while the old keeps serving reads.
void CheckStaging(KeyspaceOptions options, MemFs* fs) {
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(options);
  REQUIRE(ks.ok());
  const uint32_t s = (*ks)->SlotOfKey("k");
  Store store(ks->get(), s, 0, &dirty);
  REQUIRE(store.Put("k", "old", ValueType::kString, 0).ok());
  REQUIRE(store.Put("gone", "old", ValueType::kString, 0).ok());
  REQUIRE(store.BeginStaging().ok());
  REQUIRE(store.Apply(PutRecord("k", "new", 7)).ok());
  REQUIRE(store.Apply(PutRecord("added", "new", 5)).ok());
  CHECK(**store.Get("k") == "old");  // stale reads until the swap
  CHECK(!store.Get("added")->has_value());
  REQUIRE(store.FinishStaging(9).ok());
  CHECK(dirty.empty());
  CHECK(**store.Get("k") == "new");
  CHECK(**store.Get("added") == "new");
  CHECK(!store.Get("gone")->has_value());
  CHECK((*ks)->StreamOffset(s, 0) == 9);
  char sync_dir[64];
  std::snprintf(sync_dir, sizeof sync_dir, "/data/slot-%04u/sync-0", s);
  if (fs != nullptr) CHECK(!fs->Exists(sync_dir));
  // A sync of an empty stream empties the live database.
  REQUIRE(store.BeginStaging().ok());
  REQUIRE(store.FinishStaging(12).ok());
  CHECK(!store.Get("k")->has_value());
  CHECK((*ks)->StreamOffset(s, 0) == 12);
  // A second BeginStaging drops what the first staged.
  REQUIRE(store.BeginStaging().ok());
  REQUIRE(store.Apply(PutRecord("first", "x", 13)).ok());
  REQUIRE(store.BeginStaging().ok());
  REQUIRE(store.Apply(PutRecord("second", "y", 14)).ok());
  REQUIRE(store.FinishStaging(14).ok());
  CHECK(!store.Get("first")->has_value());
  CHECK(**store.Get("second") == "y");
}

TEST_CASE("a replica's full sync is staged beside the live data and swapped in") {
  MemFs fs;
  CheckStaging(Options(&fs), &fs);
  KeyspaceOptions memory = Options(nullptr);
  memory.memory = true;
  CheckStaging(memory, nullptr);
}

TEST_CASE("a staging dir a cut-off sync left is removed at open") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  {
    auto ks = Keyspace::Open(Options(&fs));
    REQUIRE(ks.ok());
    Store store(ks->get(), 1, 0, &dirty);
    REQUIRE(store.BeginStaging().ok());
    REQUIRE(store.Apply(PutRecord("partial", "x", 3)).ok());
    for (slot::Slot* slot : dirty) REQUIRE(slot->Commit().ok());
    dirty.clear();
    CHECK(fs.Exists("/data/slot-0001/sync-0"));
  }
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  CHECK(!fs.Exists("/data/slot-0001/sync-0"));
  Store store(ks->get(), 1, 0, &dirty);
  CHECK(!store.Get("partial")->has_value());
}

TEST_CASE("the slot count of a data dir cannot change") {
  MemFs fs;
  REQUIRE(Keyspace::Open(Options(&fs, 4)).ok());
  auto again = Keyspace::Open(Options(&fs, 8));
  CHECK(again.status().IsInvalidArgument());
  CHECK(Keyspace::Open(Options(&fs, 3)).status().IsInvalidArgument());
}

// Watches key in database db of slot s for a client; returns its watch.
std::shared_ptr<txn::Watch> WatchKey(Keyspace& ks, uint32_t db, std::string_view key) {
  auto watch = std::make_shared<txn::Watch>();
  ks.watched().Add(ks.SlotOfKey(key), db, key, watch);
  return watch;
}

TEST_CASE("a database map swaps what two databases hold, on disk and in every slot") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  const uint32_t s = 1;
  {
    auto ks = Keyspace::Open(Options(&fs));
    REQUIRE(ks.ok());
    Store db0(ks->get(), s, 0, &dirty);
    REQUIRE(db0.Put("a", "zero", ValueType::kString, 0).ok());
    REQUIRE(db0.InDb(1).Put("b", "one", ValueType::kString, 0).ok());
    for (slot::Slot* slot : dirty) REQUIRE(slot->Commit().ok());
    dirty.clear();
    REQUIRE((*ks)->SetDbMap({1, 0, 2, 3}).ok());
    // Recorded, not followed yet: a slot changes its map only when its owner adopts it.
    CHECK(**Store(ks->get(), s, 0, &dirty).Get("a") == "zero");
    for (uint32_t slot = 0; slot < (*ks)->slots(); ++slot) (*ks)->AdoptDbMap(slot);
    Store after(ks->get(), s, 0, &dirty);
    CHECK(**after.Get("b") == "one");
    CHECK(!after.Get("a")->has_value());
    CHECK(**after.InDb(1).Get("a") == "zero");
    CHECK((*ks)->PhysicalDb(s, 0) == 1);
    CHECK((*ks)->LogicalDb(s, 1) == 0);
    CHECK((*ks)->PhysicalDb(s, 2) == 2);
    // A write lands where the map says: db-1 now holds logical database 0.
    REQUIRE(after.Put("c", "new", ValueType::kString, 0).ok());
    for (slot::Slot* slot : dirty) REQUIRE(slot->Commit().ok());
    dirty.clear();
    CHECK(*fs.ReadFile("/data/slotkv.meta") == "slotkv-meta 1\nslots 4\ndbmap 1 0\n");
  }
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  Store db0(ks->get(), s, 0, &dirty);
  CHECK(**db0.Get("b") == "one");
  CHECK(**db0.Get("c") == "new");
  CHECK(**db0.InDb(1).Get("a") == "zero");
  CHECK((*ks)->db_map() == std::vector<uint32_t>{1, 0, 2, 3});
  // Swapped back to the identity, the meta names no map.
  REQUIRE((*ks)->SetDbMap({0, 1, 2, 3}).ok());
  CHECK(*fs.ReadFile("/data/slotkv.meta") == "slotkv-meta 1\nslots 4\n");
}

TEST_CASE("following a database map touches watches of keys in either database") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  Keyspace& k = **ks;
  REQUIRE(Store(&k, k.SlotOfKey("in0"), 0, &dirty).Put("in0", "v", ValueType::kString, 0).ok());
  REQUIRE(Store(&k, k.SlotOfKey("in1"), 1, &dirty).Put("in1", "v", ValueType::kString, 0).ok());
  auto w_in0 = WatchKey(k, 0, "in0");      // there before
  auto w_in1 = WatchKey(k, 0, "in1");      // there after
  auto w_none = WatchKey(k, 0, "absent");  // in neither: untouched, as Redis
  auto w_other = WatchKey(k, 2, "in0");    // a database the swap leaves alone
  REQUIRE(k.SetDbMap({1, 0, 2, 3}).ok());
  for (uint32_t slot = 0; slot < k.slots(); ++slot) k.AdoptDbMap(slot);
  CHECK(w_in0->dirty.load());
  CHECK(w_in1->dirty.load());
  CHECK(!w_none->dirty.load());
  CHECK(!w_other->dirty.load());
}

TEST_CASE("a data dir's database map is checked at open") {
  MemFs fs;
  REQUIRE(Keyspace::Open(Options(&fs)).ok());
  const std::string meta = "/data/slotkv.meta";
  auto open_with = [&](const std::string& text, uint32_t databases = 4) {
    REQUIRE(fs.WriteFileAtomic(meta, text).ok());
    KeyspaceOptions o = Options(&fs);
    o.databases = databases;
    return Keyspace::Open(o).status();
  };
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap 2 1 0\n").ok());
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap 0 0\n").IsInvalidArgument());
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap 0 2\n").IsInvalidArgument());
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap x\n").IsInvalidArgument());
  CHECK(open_with("slotkv-meta 1\nslots 4\nother\n").IsCorruption());
  // Fewer databases than the map reaches across: refused; more: the rest keep to themselves.
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap 0 3 2 1\n", 2).IsInvalidArgument());
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap 1 0 2 3\n", 2).ok());
  CHECK(open_with("slotkv-meta 1\nslots 4\ndbmap 1 0\n", 8).ok());
}

TEST_CASE("a database map that cannot be written changes nothing") {
  MemFs mem;
  FaultFs fs(&mem);
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  CHECK((*ks)->SetDbMap({1, 1, 2, 3}).IsInvalidArgument());  // not a permutation
  CHECK((*ks)->SetDbMap({1, 0}).IsInvalidArgument());        // not every database
  fs.FailNthWrite(1);
  CHECK(!(*ks)->SetDbMap({1, 0, 2, 3}).ok());
  fs.Clear();
  CHECK((*ks)->db_map() == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(*mem.ReadFile("/data/slotkv.meta") == "slotkv-meta 1\nslots 4\n");
}

TEST_CASE("keys map to slots by hash slot, hash tags together") {
  MemFs fs;
  auto ks = Keyspace::Open(Options(&fs, 16));
  REQUIRE(ks.ok());
  CHECK((*ks)->SlotOfKey("foo") == 12182u * 16 / kHashSlots);
  CHECK((*ks)->SlotOfKey("{user1000}.following") == (*ks)->SlotOfKey("{user1000}.followers"));
}

TEST_CASE("pure-memory mode keeps data per database and frees it on clear") {
  KeyspaceOptions o = Options(nullptr);
  o.memory = true;
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(o);
  REQUIRE(ks.ok());
  Store store(ks->get(), 1, 0, &dirty);
  REQUIRE(store.Put("a", "b", ValueType::kString, 0).ok());
  CHECK(**store.Get("a") == "b");
  REQUIRE(store.Clear().ok());
  CHECK(!store.Get("a")->has_value());
}

}  // namespace
}  // namespace slotkv::command

namespace slotkv::command {
namespace {

TEST_CASE("a failed commit reaches the writers of its slot; later writes there are refused") {
  MemFs mem;
  FaultFs fs(&mem);
  KeyspaceOptions o = Options(&fs);
  o.slot.fsync = wal::FsyncPolicy::kAlways;
  auto ks = Keyspace::Open(o);
  REQUIRE(ks.ok());
  ThreadExecutor executor(1);
  std::vector<std::vector<slot::Slot*>> dirty(1);
  ServerState state;
  state.keyspace = ks->get();
  state.executor = &executor;
  state.dirty = &dirty;
  auto on_worker = [&](auto fn) {
    std::promise<void> done;
    executor.Post(0, [&] {
      fn();
      done.set_value();
    });
    done.get_future().wait();
  };
  const uint32_t s = (*ks)->SlotOfKey("k");
  on_worker([&] {
    WriteTrace trace{state.write_failures.Mark(), {}};
    Store store(ks->get(), s, 0, &dirty[0], &trace);
    REQUIRE(store.Put("k", "v", ValueType::kString, 0).ok());
    REQUIRE(state.CommitDirty().ok());
    CHECK(state.write_failures.Outcome(trace).ok());
    REQUIRE(store.Put("k", "v2", ValueType::kString, 0).ok());
    fs.FailNthSync(1);
    CHECK(state.CommitDirty().IsIOError());
    CHECK(dirty[0].empty());
    CHECK(state.write_failures.Outcome(trace).IsUnavailable());
    // No later commit can acknowledge the lost write: the slot takes nothing more.
    CHECK(store.Put("k", "v3", ValueType::kString, 0).IsUnavailable());
    CHECK(state.CommitDirty().ok());
    CHECK(state.write_failures.Outcome(trace).IsUnavailable());
  });
}

// A keyspace over memory with a 12 MB cache budget; slot 0 holds "x" (written, uncommitted).
struct Budgeted {
  Budgeted() {
    o.cache_budget = 12 << 20;
    ks = Keyspace::Open(o).value();
    REQUIRE(Store(ks.get(), 0, 0, &dirty).Put("x", "1", ValueType::kString, 0).ok());
  }
  MemFs fs;
  KeyspaceOptions o = Options(&fs);
  std::unique_ptr<Keyspace> ks;
  std::vector<slot::Slot*> dirty;
};

TEST_CASE("the cache budget is shared equally by the open database slots") {
  Budgeted env;
  Keyspace& k = *env.ks;
  std::vector<slot::Slot*>& dirty = env.dirty;
  Store a(&k, 0, 0, &dirty);
  slot::Slot* first = k.Get(0, 0, false).value();
  CHECK(first->cache_budget() == 12 << 20);
  Store b(&k, 1, 2, &dirty);
  REQUIRE(b.Put("y", "2", ValueType::kString, 0).ok());
  slot::Slot* second = k.Get(1, 2, false).value();
  CHECK(k.CacheShare() == 6 << 20);
  CHECK(second->cache_budget() == 6 << 20);
  // The first adopts its smaller share with its next write (or the periodic commit).
  CHECK(first->cache_budget() == 12 << 20);
  REQUIRE(a.Put("x", "3", ValueType::kString, 0).ok());
  CHECK(first->cache_budget() == 6 << 20);
  k.SetCacheBudget(2 << 20);
  k.AdoptCache(0, 0);
  k.AdoptCache(1, 2);
  CHECK(first->cache_budget() == 1 << 20);
  CHECK(second->cache_budget() == 1 << 20);
  REQUIRE(k.Drop(1, 2).ok());
  CHECK(k.CacheShare() == 2 << 20);
  for (slot::Slot* s : dirty) {
    if (s == first) REQUIRE(s->Commit().ok());
  }
}

TEST_CASE("a slot opened ahead of need takes no cache share until its first write") {
  Budgeted env;
  Keyspace& k = *env.ks;
  std::vector<slot::Slot*>& dirty = env.dirty;
  REQUIRE(k.Preopen(1, 0).ok());
  REQUIRE(k.Preopen(1, 0).ok());  // already open: nothing
  slot::Slot* preopened = k.Get(1, 0, false).value();
  REQUIRE(preopened != nullptr);
  CHECK(k.CacheShare() == 12 << 20);
  k.AdoptCache(1, 0, /*take=*/false);  // the periodic commit's: still no share
  CHECK(k.CacheShare() == 12 << 20);
  Store b(&k, 1, 0, &dirty);
  REQUIRE(b.Put("y", "2", ValueType::kString, 0).ok());
  CHECK(k.CacheShare() == 6 << 20);
  CHECK(preopened->cache_budget() == 6 << 20);
  for (slot::Slot* s : dirty) REQUIRE(s->Commit().ok());
  dirty.clear();
  REQUIRE(k.Preopen(2, 0).ok());
  REQUIRE(k.Drop(2, 0).ok());  // never shared: the count stays
  CHECK(k.CacheShare() == 6 << 20);
  REQUIRE(k.Drop(1, 0).ok());
  CHECK(k.CacheShare() == 12 << 20);
  // Opened again at start, a slot holding keys takes its share at once.
  REQUIRE(k.Preopen(3, 0).ok());
  env.ks.reset();
  auto again = Keyspace::Open(env.o);
  REQUIRE(again.ok());
  // The empty one opened ahead of need does not, at start either.
  CHECK((*again)->Get(0, 0, false).value()->cache_budget() == 12 << 20);
  CHECK((*again)->Get(3, 0, false).value()->cache_budget() == 0);
  CHECK((*again)->CacheShare() == 12 << 20);
}

// A key of slot s (of 4).
std::string KeyOfSlot(uint32_t s, int i) {
  for (int n = 0;; ++n) {
    std::string key = "k" + std::to_string(i) + ":" + std::to_string(n);
    if (SlotOf(key, 4) == s) return key;
  }
}

TEST_CASE("the cache budget follows use: a slot reading from its files takes what it needs") {
  ManualClock clock;
  MemFs fs;
  KeyspaceOptions o = Options(&fs);
  o.cache_budget = 4 << 20;
  o.slot.clock = &clock;
  auto ks = Keyspace::Open(o).value();
  std::vector<slot::Slot*> dirty;
  // 3 MB in slot 0 (random bytes: compression keeps them 3 MB), persisted: reads then come
  // from the files. A key in each other slot.
  Store busy(ks.get(), 0, 0, &dirty);
  std::mt19937_64 rng(1);
  std::vector<std::string> values(3000, std::string(1000, '\0'));
  for (int i = 0; i < 3000; ++i) {
    for (char& c : values[i]) c = static_cast<char>(rng());
    REQUIRE(busy.Put(KeyOfSlot(0, i), values[i], ValueType::kString, 0).ok());
  }
  for (uint32_t s = 1; s < 4; ++s) {
    REQUIRE(Store(ks.get(), s, 0, &dirty).Put(KeyOfSlot(s, 0), "1", ValueType::kString, 0).ok());
  }
  std::vector<slot::Slot*> slots;
  for (uint32_t s = 0; s < 4; ++s) {
    slots.push_back(ks->Get(s, 0, false).value());
    REQUIRE(slots.back()->Flush().ok());
    ks->AdoptCache(s, 0, /*take=*/false);
    CHECK(slots.back()->cache_budget() == 1 << 20);  // equal before any rebalance
  }
  // Each second: slot 0 reads its keys (more than its share holds), the others nothing.
  for (int second = 0; second < 30; ++second) {
    for (int i = 0; i < 3000; i += 3) {
      REQUIRE(busy.Get(KeyOfSlot(0, i)).value() == values[i]);
    }
    for (uint32_t s = 0; s < 4; ++s) ks->NoteCacheDemand(s, 0);
    ks->RebalanceCaches();
    ks->RebalanceCaches();  // within 900 ms: nothing
    for (uint32_t s = 0; s < 4; ++s) ks->AdoptCache(s, 0, /*take=*/false);
    uint64_t sum = 0;
    for (slot::Slot* slot : slots) sum += slot->cache_budget();
    CHECK(sum <= 4 << 20);
    if (second == 0) {
      // The others give an eighth each at most; slot 0 takes what they gave.
      CHECK(slots[1]->cache_budget() == (1 << 20) - (1 << 17));
      CHECK(slots[0]->cache_budget() == (1 << 20) + 3 * (1 << 17));
    }
    clock.AdvanceMs(1000);
  }
  // Converged: slot 0 holds the keys it reads (a third of them) and reads no file for them;
  // then it claims what it holds and a quarter more, the idle ones keep their floors (a
  // quarter of an equal share) and share what is left.
  const uint64_t reads = slots[0]->cache_use().file_reads;
  for (int i = 0; i < 3000; i += 3) {
    REQUIRE(busy.Get(KeyOfSlot(0, i)).value() == values[i]);
  }
  CHECK(slots[0]->cache_use().file_reads == reads);
  CHECK(slots[0]->cache_budget() > 2 << 20);
  for (uint32_t s = 1; s < 4; ++s) {
    CAPTURE(s);
    CHECK(slots[s]->cache_budget() >= 1 << 18);
  }
  // Dropped, a slot leaves the division; reopened by a write it starts from an equal share.
  REQUIRE(ks->Drop(1, 0).ok());
  REQUIRE(Store(ks.get(), 1, 0, &dirty).Put("again", "1", ValueType::kString, 0).ok());
  CHECK(ks->Get(1, 0, false).value()->cache_budget() == 1 << 20);
}

}  // namespace
}  // namespace slotkv::command
