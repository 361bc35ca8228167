// Held values: collection values kept in memory while their group map names them, their next
// versions logged as deltas ("held values" in slot.h). Checked against a std::map model across
// flushes, reopens (replay rebuilds them), replicas (Apply) and the held-bytes limit.
#include <doctest/doctest.h>
#include <malloc.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/base/temp_dir.h"
#include "slot/slot_test_util.h"
#include "wal/record.h"

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer's allocator (GCC ships the function, not its header).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace slotkv::slot {
namespace {

// A page-like value: a count byte up front, then numbered members.
std::string Page(std::mt19937_64& rng, size_t members) {
  std::string v(1, static_cast<char>(members));
  for (size_t i = 0; i < members; ++i) v += "member:" + std::to_string(rng() % 100000) + ";";
  return v;
}

// The next version of a page: a member inserted or removed, and the count byte changed.
std::string Edit(std::mt19937_64& rng, std::string v) {
  v[0] = static_cast<char>(v[0] + 1);
  const size_t at = 1 + rng() % (v.size() - 1);
  if (rng() % 3 == 0 && v.size() > 300) {
    v.erase(at, 12);
  } else {
    v.insert(at, "member:" + std::to_string(rng() % 100000) + ";");
  }
  return v;
}

struct Model {
  std::map<std::string, std::string> values;

  void CheckAll(Slot& slot) const {
    for (const auto& [key, value] : values) REQUIRE(GetOrDie(slot, key) == value);
  }
};

struct Records {
  std::vector<wal::Record> all;

  void Attach(SlotOptions* options) {
    options->on_commit = [this](std::string units, uint64_t) {
      std::string_view in(units);
      while (!in.empty()) {
        wal::Record record;
        size_t consumed = 0;
        REQUIRE(wal::DecodeRecord(in, &record, &consumed) == wal::DecodeResult::kOk);
        all.push_back(std::move(record));
        in.remove_prefix(consumed);
      }
    };
  }
};

TEST_CASE("held values: rewrites log deltas, read back across flushes and reopens") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.group_flush_bytes = 256 << 10;  // chains grow long between flushes
  auto slot = OpenOrDie(options);
  std::mt19937_64 rng(3);
  Model model;
  uint64_t deltas = 0;  // over the reopens
  for (int round = 0; round < 3000; ++round) {
    const std::string key = "page:" + std::to_string(rng() % 24);
    auto it = model.values.find(key);
    const uint64_t action = rng() % 100;
    if (it != model.values.end() && action < 3) {
      REQUIRE(slot->Delete(key).ok());
      model.values.erase(it);
    } else {
      std::string next = it == model.values.end() ? Page(rng, 40) : Edit(rng, it->second);
      REQUIRE(slot->Put(key, next, ValueType::kHash).ok());
      model.values[key] = std::move(next);
    }
    REQUIRE(slot->Commit().ok());
    if (round % 500 == 499) {  // a crash: the log replays, the held values are rebuilt
      deltas += slot->Stats().value_deltas;
      slot.reset();
      slot = OpenOrDie(options);
      model.CheckAll(*slot);
    } else if (round % 700 == 350) {
      REQUIRE(slot->Flush().ok());
      model.CheckAll(*slot);
    }
  }
  model.CheckAll(*slot);
  CHECK(deltas > 2000);
  auto stored = slot->ScanStored(0, 1 << 20);
  REQUIRE(stored.ok());
  size_t seen = 0;
  for (const StoredItem& item : stored->items) {
    if (!model.values.count(item.key)) continue;
    ++seen;
    CHECK(item.value == model.values[item.key]);
    CHECK(item.type_tag == static_cast<uint8_t>(ValueType::kHash));
  }
  CHECK(seen == model.values.size());
  slot.reset();
  slot = OpenOrDie(options);
  model.CheckAll(*slot);
}

// With everysec a flush persists only what the log has synced: the page written in the unit
// being closed stays in its map, logged whole again when its record is a delta, so that its
// chain starts after the flush (replay finds its base; its older records' file may go).
TEST_CASE("held values: everysec flushes keep a page written since the sync, chain and all") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.fsync = wal::FsyncPolicy::kEverySec;
  options.group_flush_bytes = 4 << 10;  // a flush every few writes of a group
  auto slot = OpenOrDie(options);
  std::mt19937_64 rng(9);
  Model model;
  uint64_t kept = 0;
  uint64_t deltas = 0;
  for (int round = 0; round < 6000; ++round) {
    // A few hot pages: most units rewrite one written a unit before.
    const std::string key = "page:" + std::to_string(rng() % (round % 1000 < 500 ? 3 : 40));
    auto it = model.values.find(key);
    std::string next = it == model.values.end() ? Page(rng, 40) : Edit(rng, it->second);
    REQUIRE(slot->Put(key, next, ValueType::kHash).ok());
    model.values[key] = std::move(next);
    REQUIRE(slot->Commit().ok());
    if (round % 1500 == 1499) {  // a crash
      kept += slot->Stats().flush_kept_entries;
      deltas += slot->Stats().value_deltas;
      slot.reset();
      slot = OpenOrDie(options);
      model.CheckAll(*slot);
    }
  }
  model.CheckAll(*slot);
  MESSAGE("kept ", kept, " deltas ", deltas, " wal ", slot->Stats().wal_bytes);
  CHECK(kept > 100);
  CHECK(deltas > 1000);
  // The log's files went as it passed its limit: no chain kept them.
  CHECK(slot->Stats().wal_bytes <= 2 * options.wal_max_bytes);
}

TEST_CASE("held values: a replica applies the deltas to its own versions") {
  MemFs fs;
  ManualClock clock;
  SlotOptions master_options = SmallOptions(&fs, &clock);
  Records records;
  records.Attach(&master_options);
  auto master = OpenOrDie(master_options);
  SlotOptions replica_options = SmallOptions(&fs, &clock);
  replica_options.dir = "/data/replica";
  auto replica = OpenOrDie(replica_options);
  std::mt19937_64 rng(5);
  Model model;
  size_t applied = 0;
  for (int round = 0; round < 1500; ++round) {
    const std::string key = "page:" + std::to_string(rng() % 10);
    auto it = model.values.find(key);
    std::string next = it == model.values.end() ? Page(rng, 30) : Edit(rng, it->second);
    REQUIRE(master->Put(key, next, ValueType::kZSet).ok());
    model.values[key] = std::move(next);
    REQUIRE(master->Commit().ok());
    for (; applied < records.all.size(); ++applied) {
      REQUIRE(replica->Apply(records.all[applied]).ok());
    }
    REQUIRE(replica->Commit().ok());
    // The replica flushes at other times than the master: its bases come from its pages too.
    if (round % 97 == 0) REQUIRE(replica->Flush().ok());
    if (round % 400 == 399) {
      replica.reset();
      replica = OpenOrDie(replica_options);
    }
  }
  CHECK(master->Stats().value_deltas > 500);
  model.CheckAll(*replica);

  // A delta whose base the replica does not have is refused, and changes nothing.
  wal::Record splice;
  for (auto r = records.all.rbegin(); r != records.all.rend(); ++r) {
    if (r->type_tag & kSpliceTag) {
      splice = *r;
      break;
    }
  }
  REQUIRE((splice.type_tag & kSpliceTag) != 0);
  REQUIRE(replica->Put(splice.key, std::string(400, 'x'), ValueType::kZSet).ok());
  REQUIRE(replica->Commit().ok());
  splice.seq = 1 << 30;
  CHECK(replica->Apply(splice).IsCorruption());
  CHECK(GetOrDie(*replica, splice.key) == std::string(400, 'x'));
}

TEST_CASE("held values: past half the cache budget, values are logged whole") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.group_flush_bytes = 1 << 20;
  auto slot = OpenOrDie(options);
  slot->SetCacheBudget(64 << 10);  // 32 KiB of held values
  std::mt19937_64 rng(9);
  Model model;
  for (int round = 0; round < 2000; ++round) {
    const std::string key = "page:" + std::to_string(rng() % 200);
    auto it = model.values.find(key);
    std::string next = it == model.values.end() ? Page(rng, 60) : Edit(rng, it->second);
    REQUIRE(slot->Put(key, next, ValueType::kSet).ok());
    model.values[key] = std::move(next);
    REQUIRE(slot->Commit().ok());
  }
  // 200 values of about 800 bytes: a fraction is held, the rest logged whole.
  const SlotStats stats = slot->Stats();
  CHECK(stats.value_deltas > 0);
  CHECK(stats.value_deltas < 1800);
  model.CheckAll(*slot);
  slot.reset();
  slot = OpenOrDie(options);
  model.CheckAll(*slot);
}

TEST_CASE("held values: strings and small collections are logged whole") {
  MemFs fs;
  ManualClock clock;
  auto slot = OpenOrDie(SmallOptions(&fs, &clock));
  std::string big(1000, 'a');
  for (int i = 0; i < 10; ++i) {
    big[500] = static_cast<char>('a' + i);
    REQUIRE(slot->Put("s", big, ValueType::kString).ok());
    REQUIRE(slot->Put("h", std::string(100, static_cast<char>('a' + i)), ValueType::kHash).ok());
    REQUIRE(slot->Commit().ok());
  }
  CHECK(slot->Stats().value_deltas == 0);
  CHECK(GetOrDie(*slot, "s") == big);
}

// Internal keys start with '!' here: they never hold a root.
bool MayHoldRoot(std::string_view key) { return key.empty() || key[0] != '!'; }

TEST_CASE("held values: a small page is held, a small user value is not") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.may_hold_root = MayHoldRoot;
  auto slot = OpenOrDie(options);
  std::string page(100, 'p');
  for (int i = 0; i < 10; ++i) {
    page[50] = static_cast<char>('a' + i);
    REQUIRE(slot->Put("!page", page, ValueType::kList).ok());
    REQUIRE(slot->Put("root", std::string(100, static_cast<char>('a' + i)), ValueType::kList)
                .ok());
    REQUIRE(slot->Commit().ok());
  }
  // The first write (the first since the group's flush) is logged whole and not held, the
  // second whole and held; the next eight are deltas of the page. The root is never held.
  CHECK(slot->Stats().value_deltas == 8);
  CHECK(GetOrDie(*slot, "!page") == page);
  REQUIRE(slot->Flush().ok());
  CHECK(GetOrDie(*slot, "!page") == page);
  CHECK(GetOrDie(*slot, "root") == std::string(100, 'j'));
}

TEST_CASE("held values: a page written again in a unit is logged once, as the unit closes") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.may_hold_root = MayHoldRoot;
  options.group_flush_bytes = 256 << 10;
  Records records;
  records.Attach(&options);
  auto slot = OpenOrDie(options);
  SlotOptions replica_options = SmallOptions(&fs, &clock);
  replica_options.dir = "/data/replica";
  replica_options.may_hold_root = MayHoldRoot;
  auto replica = OpenOrDie(replica_options);
  std::mt19937_64 rng(11);
  Model model;      // what the slot holds
  Model committed;  // what its last commit made durable
  size_t applied = 0;
  uint64_t deltas = 0;     // over the reopens
  uint64_t writes = 0;     // puts of a page that was written before
  uint64_t unit_keys = 0;  // (unit, page) pairs among them
  for (int unit = 0; unit < 600; ++unit) {
    const bool hold = unit % 7 == 3;  // a transaction's unit: its writes after Hold
    std::set<std::string> written;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int w = 0; w < n; ++w) {
      if (hold && w == n / 2) slot->Hold();
      const std::string key = "!page:" + std::to_string(rng() % 6);
      auto it = model.values.find(key);
      if (it != model.values.end() && rng() % 100 < 4) {
        REQUIRE(slot->Delete(key).ok());
        model.values.erase(it);
      } else {
        std::string next = it == model.values.end() ? Page(rng, 40) : Edit(rng, it->second);
        REQUIRE(slot->Put(key, next, ValueType::kList).ok());
        if (it != model.values.end()) {
          ++writes;
          unit_keys += written.insert(key + (hold && w >= n / 2 ? "+" : "")).second ? 1 : 0;
        }
        model.values[key] = std::move(next);
      }
      // Reads see the version not logged yet.
      auto now = model.values.find(key);
      if (now != model.values.end() && rng() % 3 == 0) CHECK(GetOrDie(*slot, key) == now->second);
    }
    if (hold) slot->Unhold();
    if (unit % 50 == 25) {  // a full sync reads mid-unit: the pending versions are logged first
      auto stored = slot->ScanStored(0, 1 << 20);
      REQUIRE(stored.ok());
      size_t seen = 0;
      for (const StoredItem& item : stored->items) {
        REQUIRE(model.values.count(item.key) == 1);
        CHECK(item.value == model.values[item.key]);
        ++seen;
      }
      CHECK(seen == model.values.size());
    }
    if (unit % 100 == 99) {  // a crash before the unit's commit: it is gone whole
      deltas += slot->Stats().value_deltas;
      slot.reset();
      slot = OpenOrDie(options);
      model = committed;
      model.CheckAll(*slot);
      continue;
    }
    REQUIRE(slot->Commit().ok());
    committed = model;
    for (; applied < records.all.size(); ++applied) {
      REQUIRE(replica->Apply(records.all[applied]).ok());
    }
    REQUIRE(replica->Commit().ok());
    if (unit % 130 == 60) REQUIRE(slot->Flush().ok());
  }
  deltas += slot->Stats().value_deltas;
  model.CheckAll(*slot);
  model.CheckAll(*replica);
  // One delta per page per unit at most (a hold's two units count apart), well under one per
  // write.
  CHECK(deltas <= unit_keys);
  CHECK(deltas * 2 > unit_keys);
  CHECK(unit_keys * 3 < writes * 2);
  slot.reset();
  slot = OpenOrDie(options);
  model.CheckAll(*slot);
}

// Bytes the allocator has handed out and not had back (the unit tests run on glibc's malloc).
size_t HeapInUse() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

TEST_CASE("held values: their memory is given back when a unit is logged and on release") {
  TempDir dir("slotkv-held-test");
  std::unique_ptr<Fs> posix = NewPosixFs();  // the log on disk: the heap's growth is the slot's
  ManualClock clock;
  SlotOptions options = SmallOptions(posix.get(), &clock);
  options.dir = JoinPath(dir.path(), "slot-0000");
  options.fsync = wal::FsyncPolicy::kNo;
  options.may_hold_root = MayHoldRoot;
  options.flush_entries_per_page = 1 << 20;  // no flush
  options.group_flush_bytes = 1 << 30;
  options.wal_file_bytes = 64 << 20;
  options.wal_max_bytes = 1 << 30;
  auto slot = OpenOrDie(options);
  slot->SetCacheBudget(64 << 20);
  constexpr int kPages = 1000;
  constexpr size_t kBytes = 4000;  // 4 MB of pages
  const auto key = [](int i) { return "!page:" + std::to_string(i); };
  const size_t start = HeapInUse();
  std::string page(kBytes, 'p');
  for (int version = 0; version < 2; ++version) {  // the second write holds
    page[0] = static_cast<char>('a' + version);
    for (int i = 0; i < kPages; ++i) REQUIRE(slot->Put(key(i), page, ValueType::kList).ok());
    REQUIRE(slot->Commit().ok());
  }
  // Written twice in one unit: the log's version is kept as the base of the unit's delta until
  // the unit's close logs it, and given back then (kept, it took as much as the held pages).
  for (int version = 2; version < 4; ++version) {
    page[0] = static_cast<char>('a' + version);
    for (int i = 0; i < kPages; ++i) REQUIRE(slot->Put(key(i), page, ValueType::kList).ok());
  }
  REQUIRE(slot->Commit().ok());
  CHECK(slot->Stats().value_deltas == kPages);
  CHECK(HeapInUse() - start < kPages * kBytes * 3 / 2);
  // Written over by strings: the holds end and their pages' memory goes.
  for (int i = 0; i < kPages; ++i) REQUIRE(slot->Put(key(i), "short", ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  CHECK(HeapInUse() - start < kPages * kBytes / 4);
  CHECK(GetOrDie(*slot, key(7)) == "short");
}

struct Probe : DecodedPage {
  explicit Probe(int n) : n(n) {}
  size_t memory_bytes() const override { return 64; }
  void Encode(std::string* out) const override { *out = "probe " + std::to_string(n); }
  int n;
};

int TakenProbe(Slot& slot, std::string_view key) {
  std::unique_ptr<DecodedPage> d = slot.TakeDecoded(key);
  return d ? static_cast<Probe&>(*d).n : 0;
}

TEST_CASE("held values: a decoded form goes with its page, any other write drops it") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.may_hold_root = MayHoldRoot;
  auto slot = OpenOrDie(options);
  const std::string page(100, 'p');
  auto put = [&](int probe) {
    std::unique_ptr<DecodedPage> d;
    if (probe != 0) d = std::make_unique<Probe>(probe);
    REQUIRE(slot->Put("!page", page, ValueType::kList, 0, {}, std::move(d)).ok());
    REQUIRE(slot->Commit().ok());
  };
  put(1);  // the first write since the group's flush is not held: nothing kept
  CHECK(TakenProbe(*slot, "!page") == 0);
  put(2);
  CHECK(TakenProbe(*slot, "!page") == 2);
  CHECK(TakenProbe(*slot, "!page") == 0);  // taken: none left
  put(3);
  std::unique_ptr<DecodedPage> taken = slot->TakeDecoded("!page");
  REQUIRE(taken != nullptr);
  slot->KeepDecoded("!page", std::move(taken));  // unchanged: kept again
  taken = slot->TakeDecoded("!page");
  REQUIRE(taken != nullptr);
  put(0);  // a write that hands over none
  slot->KeepDecoded("!page", std::move(taken));  // stale: refused
  CHECK(TakenProbe(*slot, "!page") == 0);
  put(4);
  REQUIRE(slot->Delete("!page").ok());
  REQUIRE(slot->Commit().ok());
  CHECK(TakenProbe(*slot, "!page") == 0);
  put(5);
  put(6);
  REQUIRE(slot->Flush().ok());  // the flush releases held values
  CHECK(TakenProbe(*slot, "!page") == 0);
  CHECK(GetOrDie(*slot, "!page") == page);
}

// A page whose bytes are its text.
struct Text : DecodedPage {
  explicit Text(std::string text) : text(std::move(text)) {}
  size_t memory_bytes() const override { return sizeof(*this) + text.capacity(); }
  void Encode(std::string* out) const override { *out = text; }
  std::string text;
};

std::unique_ptr<DecodedPage> TextPage(const std::string& text) {
  return std::make_unique<Text>(text);
}

TEST_CASE("held values: a page written as its decoded form is encoded when needed") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.may_hold_root = MayHoldRoot;
  Records records;
  records.Attach(&options);
  auto slot = OpenOrDie(options);
  std::mt19937_64 rng(13);
  std::string page = Page(rng, 30);
  std::unique_ptr<DecodedPage> text = TextPage(page);
  // Not held yet (the first write since the group's flush): Put the bytes.
  CHECK_FALSE(*slot->PutDecoded("!p", ValueType::kList, {}, &text));
  CHECK(text != nullptr);
  CHECK_FALSE(*slot->PutDecoded("root", ValueType::kList, {}, &text));  // a user key: never
  for (int i = 0; i < 2; ++i) {
    REQUIRE(slot->Put("!p", page, ValueType::kList).ok());
    REQUIRE(slot->Commit().ok());
  }
  const uint64_t deltas = slot->Stats().value_deltas;
  for (int unit = 0; unit < 20; ++unit) {
    for (int w = 0; w < 5; ++w) {
      page.insert(1, "member:" + std::to_string(rng() % 100000) + ";");  // pushed at the head
      std::unique_ptr<DecodedPage> next = TextPage(page);
      REQUIRE(*slot->PutDecoded("!p", ValueType::kList, {}, &next));
      CHECK(next == nullptr);
      if (w == 2) CHECK(GetOrDie(*slot, "!p") == page);  // encoded for the read
      if (w == 3) {  // lent to a command that gives it back unchanged
        std::unique_ptr<DecodedPage> taken = slot->TakeDecoded("!p");
        REQUIRE(taken != nullptr);
        CHECK(static_cast<Text&>(*taken).text == page);
        slot->KeepDecoded("!p", std::move(taken));
      }
    }
    REQUIRE(slot->Commit().ok());
  }
  CHECK(slot->Stats().value_deltas - deltas == 20);  // one per unit
  CHECK(GetOrDie(*slot, "!p") == page);
  // The replica's records make the same page.
  SlotOptions replica_options = SmallOptions(&fs, &clock);
  replica_options.dir = "/data/replica";
  auto replica = OpenOrDie(replica_options);
  for (const wal::Record& r : records.all) REQUIRE(replica->Apply(r).ok());
  REQUIRE(replica->Commit().ok());
  CHECK(GetOrDie(*replica, "!p") == page);
  slot.reset();
  slot = OpenOrDie(options);
  CHECK(GetOrDie(*slot, "!p") == page);

  SUBCASE("past their limit the pending pages are logged early, but for those lent out") {
    slot->SetCacheBudget(64 << 10);  // pending bases past 8 KiB are logged at once
    std::map<std::string, std::string> pages;
    for (int p = 0; p < 40; ++p) {
      const std::string key = "!q" + std::to_string(p);
      pages[key] = Page(rng, 30);
      for (int i = 0; i < 2; ++i) REQUIRE(slot->Put(key, pages[key], ValueType::kList).ok());
    }
    REQUIRE(slot->Commit().ok());
    const uint64_t before = slot->Stats().value_deltas;
    // A command takes !q0 (lent: it is stale), then writes the others.
    pages["!q0"] += "!";
    std::unique_ptr<DecodedPage> first = TextPage(pages["!q0"]);
    REQUIRE(*slot->PutDecoded("!q0", ValueType::kList, {}, &first));
    std::unique_ptr<DecodedPage> lent = slot->TakeDecoded("!q0");
    REQUIRE(lent != nullptr);
    for (int p = 1; p < 40; ++p) {
      const std::string key = "!q" + std::to_string(p);
      pages[key] += "!";
      std::unique_ptr<DecodedPage> next = TextPage(pages[key]);
      REQUIRE(*slot->PutDecoded(key, ValueType::kList, {}, &next));
    }
    CHECK(slot->Stats().value_deltas > before);  // logged early, !q0 left pending
    slot->KeepDecoded("!q0", std::move(lent));
    REQUIRE(slot->Commit().ok());
    CHECK(slot->failure().ok());
    slot.reset();
    slot = OpenOrDie(options);
    for (const auto& [key, value] : pages) CHECK(GetOrDie(*slot, key) == value);
  }

  SUBCASE("a form lent and dropped fails the slot, and its unit goes") {
    REQUIRE(slot->Put("!p", page, ValueType::kList).ok());
    REQUIRE(slot->Commit().ok());
    std::unique_ptr<DecodedPage> next = TextPage(page + "!");
    REQUIRE(*slot->PutDecoded("!p", ValueType::kList, {}, &next));
    slot->TakeDecoded("!p").reset();  // a command failed after changing it
    CHECK(slot->Get("!p").status().IsCorruption());
    CHECK_FALSE(slot->Commit().ok());
    CHECK_FALSE(slot->failure().ok());
    REQUIRE(slot->Recover().ok());
    CHECK(GetOrDie(*slot, "!p") == page);
  }
}

}  // namespace
}  // namespace slotkv::slot
