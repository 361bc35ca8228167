#include "slot/slot.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/base/coding.h"
#include "core/base/hash.h"
#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

TEST_CASE("put then get returns the value with its metadata") {
  Fixture f;
  f.Put("k", "short");
  f.Put("long", std::string(300, 'x'), 0, ValueType::kHash);
  KeyMeta meta;
  auto got = f.slot->Get("long", &meta);
  REQUIRE(got.ok());
  CHECK(**got == std::string(300, 'x'));
  CHECK(meta.type == ValueType::kHash);
  CHECK(GetOrDie(*f.slot, "k") == "short");
  CHECK(GetOrDie(*f.slot, "missing") == "<absent>");
}

TEST_CASE("values of every size read back before and after a flush and a reopen") {
  Fixture f;
  std::vector<size_t> sizes = {0, 1, 16, 17, 200, 511, 512, 513, 3000, 70000, 200000};
  for (size_t i = 0; i < sizes.size(); ++i) f.Put("k" + std::to_string(i), ValueFor(i, 0, sizes[i]));
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      CHECK(GetOrDie(*f.slot, "k" + std::to_string(i)) == ValueFor(i, 0, sizes[i]));
    }
    if (pass == 0) REQUIRE(f.slot->Flush().ok());
    if (pass == 1) f.Reopen();
  }
}

TEST_CASE("overwrite and delete win over older versions everywhere") {
  Fixture f;
  f.Put("a", "1");
  REQUIRE(f.slot->Flush().ok());
  f.Put("a", "2");
  CHECK(GetOrDie(*f.slot, "a") == "2");
  REQUIRE(f.slot->Flush().ok());
  CHECK(GetOrDie(*f.slot, "a") == "2");
  auto deleted = f.slot->Delete("a");
  REQUIRE(deleted.ok());
  CHECK(*deleted);
  CHECK(GetOrDie(*f.slot, "a") == "<absent>");
  REQUIRE(f.slot->Flush().ok());
  f.Reopen();
  CHECK(GetOrDie(*f.slot, "a") == "<absent>");
  CHECK_FALSE(*f.slot->Delete("a"));
}

TEST_CASE("metadata answers exists, type and ttl") {
  Fixture f;
  int64_t at = f.clock.NowMs() + 5000;
  f.Put("z", std::string(100, 'z'), at, ValueType::kZSet);
  REQUIRE(f.slot->Flush().ok());
  auto meta = f.slot->GetMeta("z");
  REQUIRE(meta.ok());
  REQUIRE(meta->has_value());
  CHECK((*meta)->type == ValueType::kZSet);
  CHECK((*meta)->expire_at_ms == at);
  CHECK_FALSE(f.slot->GetMeta("nope")->has_value());
}

TEST_CASE("expired keys read as absent and the expiry step reclaims them") {
  Fixture f;
  int64_t now = f.clock.NowMs();
  for (int i = 0; i < 50; ++i) f.Put("t" + std::to_string(i), "v", now + 1000);
  for (int i = 0; i < 50; ++i) f.Put("p" + std::to_string(i), "v");
  REQUIRE(f.slot->Flush().ok());
  for (int i = 0; i < 10; ++i) f.Put("w" + std::to_string(i), "v", now + 1000);  // still in the map
  CHECK(*f.slot->KeyCount() == 110);
  f.clock.AdvanceMs(1000);
  CHECK(GetOrDie(*f.slot, "t3") == "<absent>");
  CHECK(GetOrDie(*f.slot, "w3") == "<absent>");
  CHECK_FALSE(f.slot->GetMeta("t3")->has_value());
  auto expired = f.slot->ActiveExpireStep(1000);
  REQUIRE(expired.ok());
  CHECK(*expired == 60);
  REQUIRE(f.slot->Commit().ok());
  CHECK(*f.slot->KeyCount() == 50);
  REQUIRE(f.slot->Flush().ok());
  CHECK(*f.slot->KeyCount() == 50);
  CHECK(f.slot->Stats().expired_keys == 60);
}

TEST_CASE("a value read from storage is cached on its second miss, not its first") {
  Fixture f;
  for (int i = 0; i < 50; ++i) f.Put("k" + std::to_string(i), ValueFor(i, 0, 100));
  REQUIRE(f.slot->Flush().ok());
  f.Reopen();  // the writes were cached (the cache had room): start with none
  for (int i = 0; i < 50; ++i) GetOrDie(*f.slot, "k" + std::to_string(i));
  CHECK(f.slot->Stats().value_cache_hits == 0);
  const uint64_t cached_once = f.slot->Stats().value_cache_bytes;
  CHECK(cached_once < 50 * 100 / 5);  // a doorkeeper false positive or two at most
  for (int i = 0; i < 50; ++i) GetOrDie(*f.slot, "k" + std::to_string(i));
  CHECK(f.slot->Stats().value_cache_bytes >= 50 * 100);
  for (int i = 0; i < 50; ++i) GetOrDie(*f.slot, "k" + std::to_string(i));
  CHECK(f.slot->Stats().value_cache_hits >= 50);
}

TEST_CASE("a value read back from the log is cached for its version only") {
  Fixture f;
  f.Put("k", "first");
  CHECK(GetOrDie(*f.slot, "k") == "first");  // from the log; marked by the doorkeeper
  CHECK(GetOrDie(*f.slot, "k") == "first");  // from the log again, then cached
  uint64_t hits = f.slot->Stats().value_cache_hits;
  CHECK(GetOrDie(*f.slot, "k") == "first");
  CHECK(f.slot->Stats().value_cache_hits == hits + 1);
  f.Put("k", "second");  // a newer version: the cached one must not answer
  CHECK(GetOrDie(*f.slot, "k") == "second");
  CHECK(GetOrDie(*f.slot, "k") == "second");
  REQUIRE(f.slot->Flush().ok());
  CHECK(GetOrDie(*f.slot, "k") == "second");
  REQUIRE(f.slot->Delete("k").ok());
  CHECK(GetOrDie(*f.slot, "k") == "<absent>");
}

TEST_CASE("GetCached answers only from the value cache, with the newest live version") {
  Fixture f;
  const int64_t now = f.clock.NowMs();
  f.Put("k", "first", now + 1000);
  KeyMeta meta;
  uint64_t hits = f.slot->Stats().value_cache_hits;
  uint64_t misses = f.slot->Stats().value_cache_misses;
  const std::string* got = f.slot->GetCached("k", &meta);
  REQUIRE(got != nullptr);  // a write is cached while the cache has room
  CHECK(*got == "first");
  CHECK(meta.type == ValueType::kString);
  CHECK(meta.expire_at_ms == now + 1000);
  CHECK(f.slot->Stats().value_cache_hits == hits + 1);
  f.Put("k", "second", now + 1000);
  got = f.slot->GetCached("k", &meta);
  REQUIRE(got != nullptr);
  CHECK(*got == "second");
  // Absent, expired, or deleted: nullptr, and no miss counted (Get counts it).
  CHECK(f.slot->GetCached("absent", &meta) == nullptr);
  f.clock.AdvanceMs(1000);
  CHECK(f.slot->GetCached("k", &meta) == nullptr);
  f.Put("d", "v");
  REQUIRE(f.slot->Delete("d").ok());
  CHECK(f.slot->GetCached("d", &meta) == nullptr);
  CHECK(f.slot->Stats().value_cache_misses == misses);
}

TEST_CASE("writes are cached while the cache has room; then only those of keys read lately") {
  Fixture f;
  f.Put("room", "kept");
  CHECK(f.slot->Stats().value_cache_bytes > 0);  // the cache had room
  uint64_t hits = f.slot->Stats().value_cache_hits;
  CHECK(GetOrDie(*f.slot, "room") == "kept");
  CHECK(f.slot->Stats().value_cache_hits == hits + 1);
  // A bulk load fills the cache, never evicting for a write: the first values stay.
  const std::string big(4000, 'b');
  for (int i = 0; i < 400; ++i) f.Put("bulk" + std::to_string(i), big);
  CHECK(f.slot->Stats().value_cache_bytes <= f.options.value_cache_bytes);
  hits = f.slot->Stats().value_cache_hits;
  CHECK(GetOrDie(*f.slot, "room") == "kept");
  CHECK(GetOrDie(*f.slot, "bulk0") == big);
  CHECK(f.slot->Stats().value_cache_hits == hits + 2);
  const std::string first(4000, '1');
  const std::string second(4000, '2');
  f.Put("k", first);  // no room left for it: not kept
  CHECK(GetOrDie(*f.slot, "k") == first);  // from the log; marked by the doorkeeper
  CHECK(f.slot->Stats().value_cache_hits == hits + 2);
  f.Put("k", second);  // read lately: kept in the cache, evicting
  hits = f.slot->Stats().value_cache_hits;
  CHECK(GetOrDie(*f.slot, "k") == second);
  CHECK(f.slot->Stats().value_cache_hits == hits + 1);
  REQUIRE(f.slot->Flush().ok());
  CHECK(GetOrDie(*f.slot, "k") == second);  // still the newest after the flush
  CHECK(f.slot->Stats().value_cache_hits == hits + 2);
  REQUIRE(f.slot->Delete("k").ok());
  CHECK(GetOrDie(*f.slot, "k") == "<absent>");
}

// Roots as the tests write them: "root:<id>:<anything>" under a key not starting with '!'.
bool TestMayHoldRoot(std::string_view key) { return key.empty() || key[0] != '!'; }
uint64_t TestRootId(std::string_view value) {
  if (value.substr(0, 5) != "root:") return 0;
  uint64_t id = 0;
  for (size_t i = 5; i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i) {
    id = id * 10 + static_cast<uint64_t>(value[i] - '0');
  }
  return id;
}

struct RootFixture : Fixture {
  RootFixture() {
    options.may_hold_root = TestMayHoldRoot;
    options.root_id = TestRootId;
    Reopen();
  }
  void Delete(const std::string& key) {
    REQUIRE(slot->Delete(key).ok());
    REQUIRE(slot->Commit().ok());
  }
  std::vector<std::string> Taken() { return slot->TakeDiscardedRoots(); }
};

using Roots = std::vector<std::string>;

TEST_CASE("a root replaced in the group map by a delete, another type or collection is handed over") {
  RootFixture f;
  f.Put("h", "root:1:a", 0, ValueType::kHash);
  f.Put("h", "root:1:b", 0, ValueType::kHash);  // the same collection, carried on
  CHECK(f.Taken().empty());
  f.Put("h", "str");
  f.Put("z", "root:2:a", 0, ValueType::kZSet);
  f.Delete("z");
  f.Put("s", "root:3:a", 0, ValueType::kSet);
  f.Put("s", "root:4:a", 0, ValueType::kSet);
  f.Put("!page", "root:5:a", 0, ValueType::kHash);  // an internal key holds no root
  f.Put("!page", "x");
  f.Put("l", "small", 0, ValueType::kList);  // a collection that is no root
  f.Put("l", "x");
  CHECK(f.Taken() == Roots{"root:1:b", "root:2:a", "root:3:a"});
  CHECK(f.Taken().empty());
  // An expired root written over (nobody read it: active expiry had not found it).
  f.Put("e", "root:6:a", f.clock.NowMs() + 10, ValueType::kHash);
  f.clock.AdvanceMs(10);
  f.Put("e", "root:7:a", 0, ValueType::kHash);
  CHECK(f.Taken() == Roots{"root:6:a"});
  // The replayed log hands over again what its writes replaced (a crash may have come first).
  f.Reopen();
  CHECK(f.Taken() == Roots{"root:1:b", "root:2:a", "root:3:a", "root:6:a"});
}

TEST_CASE("a long root written again is logged whole, so its replacement is handed over") {
  // A stream's root carries its consumer groups: past the held values' minimum size. Were it
  // held, its next version would be a delta, which NoteReplaced cannot see as a root.
  RootFixture f;
  const std::string v1 = "root:21:" + std::string(400, 'a');
  const std::string v2 = "root:21:" + std::string(400, 'b');
  f.Put("x", v1, 0, ValueType::kZSet);
  f.Put("x", v2, 0, ValueType::kZSet);  // the same root, grown
  CHECK(f.Taken().empty());
  f.Delete("x");
  CHECK(f.Taken() == Roots{v2});
  f.Reopen();
  CHECK(f.Taken() == Roots{v2});
}

TEST_CASE("a flush hands over the persisted roots that the group map replaced") {
  RootFixture f;
  const std::string long_root = "root:11:" + std::string(500, 'r');  // in a chunk
  f.Put("a", "root:10:x", 0, ValueType::kHash);
  f.Put("b", long_root, 0, ValueType::kZSet);
  f.Put("c", "root:12:x", 0, ValueType::kList);
  f.Put("e", "root:13:x", f.clock.NowMs() + 10, ValueType::kSet);
  REQUIRE(f.slot->Flush().ok());
  f.Put("a", "s");
  f.Delete("b");
  // A delete looks the bucket's version up anyway: it hands the root over at once (with no
  // write after it, no flush would find it).
  CHECK(f.Taken() == Roots{long_root});
  f.Put("c", "root:12:y", 0, ValueType::kList);
  f.clock.AdvanceMs(10);
  f.Put("e", "root:14:x", 0, ValueType::kSet);
  CHECK(f.Taken().empty());  // in the buckets: known at the flush
  REQUIRE(f.slot->Flush().ok());
  Roots taken = f.Taken();
  std::sort(taken.begin(), taken.end());
  CHECK(taken == Roots{"root:10:x", "root:13:x"});  // not the deleted one again
  REQUIRE(f.slot->Flush().ok());
  CHECK(f.Taken().empty());
}

TEST_CASE("expired collections go through the expiry step, whose deletes hand their roots over") {
  RootFixture f;
  const int64_t at = f.clock.NowMs() + 10;
  const std::string long_root = "root:2:" + std::string(500, 'r');  // in a chunk, not inline
  f.Put("str", "v", at);
  f.Put("hash", "root:1:x", at, ValueType::kHash);
  f.Put("zset", long_root, at, ValueType::kZSet);
  f.Put("kept", "v");
  REQUIRE(f.slot->Flush().ok());
  f.Put("list", "root:3:x", at, ValueType::kList);
  f.clock.AdvanceMs(10);
  REQUIRE(f.slot->Flush().ok());  // may drop "str", never a collection
  f.Put("list", "root:3:y", at + 10, ValueType::kList);  // unflushed: in the group map
  f.clock.AdvanceMs(10);
  std::map<std::string, ValueType> told;
  Result<size_t> n = f.slot->ActiveExpireStep(
      1000, [&](std::string_view key, ValueType type) { told[std::string(key)] = type; });
  REQUIRE(n.ok());
  REQUIRE(f.slot->Commit().ok());
  CHECK(*n == told.size());
  CHECK(told == std::map<std::string, ValueType>{{"hash", ValueType::kHash},
                                                 {"list", ValueType::kList},
                                                 {"str", ValueType::kString},
                                                 {"zset", ValueType::kZSet}});
  CHECK(f.Taken() == Roots{"root:3:y"});  // the group map's, at the delete
  CHECK(f.slot->Stats().expired_keys == 4);
  CHECK(*f.slot->KeyCount() == 1);
  REQUIRE(f.slot->Flush().ok());
  CHECK(*f.slot->KeyCount() == 1);
  Roots taken = f.Taken();  // the buckets' (the list's older version too: queued once)
  std::sort(taken.begin(), taken.end());
  CHECK(taken == Roots{"root:1:x", long_root, "root:3:x"});
}

TEST_CASE("the expiry step passes buckets without an expiry time without reading them") {
  Fixture f;
  int64_t now = f.clock.NowMs();
  for (int i = 0; i < 200; ++i) f.Put("k" + std::to_string(i), "v");
  f.Put("lonely", "v", now + 10);
  REQUIRE(f.slot->Flush().ok());
  f.clock.AdvanceMs(10);
  // Of the 64 buckets, one may hold an expiry time: a step of one bucket finds it wherever it
  // is, reading that bucket only.
  uint64_t before = f.PageLooks();
  auto expired = f.slot->ActiveExpireStep(1);
  REQUIRE(expired.ok());
  CHECK(*expired == 1);
  CHECK(f.PageLooks() - before <= 2);  // the bucket's page(s)
  CHECK(*f.slot->KeyCount() == 200);
  // The tombstone sits in the map until its group is flushed, which rewrites the bucket
  // without an expiry time: then nothing is looked at.
  REQUIRE(f.slot->Flush().ok());
  before = f.PageLooks();
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 0);
  CHECK(f.PageLooks() == before);
}

TEST_CASE("ResolveKeyCount reads what KeyCount would, a group or more a call") {
  Fixture f;
  for (int i = 0; i < 1000; ++i) f.Put("k" + std::to_string(i), "v");
  REQUIRE(f.slot->Flush().ok());
  // Overwrites and new keys: whether the buckets hold them is not known until read.
  for (int i = 500; i < 1500; ++i) f.Put("k" + std::to_string(i), "w");
  int calls = 1;
  uint64_t before = f.PageLooks();
  while (!*f.slot->ResolveKeyCount(0)) ++calls;  // the fixture's clock stands still
  CHECK(calls > 10);
  CHECK(f.PageLooks() > before);
  before = f.PageLooks();
  CHECK(*f.slot->KeyCount() == 1500);
  CHECK(f.PageLooks() == before);
  CHECK(*f.slot->ResolveKeyCount(0));
}

TEST_CASE("expiry steps look at a bucket again once a write sets an expiry time there") {
  Fixture f;
  for (int i = 0; i < 200; ++i) f.Put("k" + std::to_string(i), "v");
  REQUIRE(f.slot->Flush().ok());
  uint64_t before = f.PageLooks();
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 0);
  CHECK(f.PageLooks() == before);
  // In the map: found there (no page read for it); after a flush: found in its bucket.
  f.Put("t", "v", f.clock.NowMs() + 10);
  f.Put("u", "v", f.clock.NowMs() + 10);
  f.clock.AdvanceMs(10);
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 2);
  CHECK(*f.slot->KeyCount() == 200);
  f.Put("t2", "v", f.clock.NowMs() + 10);
  REQUIRE(f.slot->Flush().ok());
  f.clock.AdvanceMs(10);
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 1);
  CHECK(*f.slot->KeyCount() == 200);
  // A TTL removed (PERSIST-like rewrite without one) clears the bucket's flag at the flush.
  f.Put("p", "v", f.clock.NowMs() + 100000);
  REQUIRE(f.slot->Flush().ok());
  f.Put("p", "v");
  REQUIRE(f.slot->Flush().ok());
  before = f.PageLooks();
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 0);
  CHECK(f.PageLooks() == before);
  CHECK(*f.slot->KeyCount() == 201);
}

TEST_CASE("buckets of a store made before expiry flags are read once each, then passed") {
  Fixture f;
  for (int i = 0; i < 200; ++i) f.Put("k" + std::to_string(i), "v");
  REQUIRE(f.slot->Flush().ok());
  f.slot.reset();
  // Version 1 of buckets.meta: the count words carry no expiry flag, so every bucket with
  // cells is taken to hold one.
  std::string meta("SKVB", 4);
  PutFixed32(&meta, 1);
  PutFixed32(&meta, 64);
  PutFixed32(&meta, Checksum(meta));
  REQUIRE(f.fs.WriteFileAtomic(f.options.dir + "/buckets.meta", meta).ok());
  f.Reopen();
  uint64_t before = f.PageLooks();
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 0);
  CHECK(f.PageLooks() > before);
  before = f.PageLooks();
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 0);  // the flags went with the first look
  CHECK(f.PageLooks() == before);
  REQUIRE(f.slot->Flush().ok());  // and stay gone
  f.Reopen();
  before = f.PageLooks();
  CHECK(*f.slot->ActiveExpireStep(1 << 20) == 0);
  CHECK(f.PageLooks() == before);
  CHECK(*f.slot->KeyCount() == 200);
}

TEST_CASE("key count tracks inserts, overwrites and deletes across flushes") {
  Fixture f;
  for (int i = 0; i < 300; ++i) f.Put("k" + std::to_string(i), "v");
  for (int i = 0; i < 100; ++i) f.Put("k" + std::to_string(i), "w");
  for (int i = 100; i < 150; ++i) REQUIRE(*f.slot->Delete("k" + std::to_string(i)));
  CHECK(*f.slot->KeyCount() == 250);
  REQUIRE(f.slot->Flush().ok());
  CHECK(*f.slot->KeyCount() == 250);
  f.Reopen();
  CHECK(*f.slot->KeyCount() == 250);
}

TEST_CASE("key count stays right as resolved entries change, and looks each key up once") {
  Fixture f;
  for (int i = 0; i < 300; ++i) f.Put("k" + std::to_string(i), "v");
  REQUIRE(f.slot->Flush().ok());
  for (int i = 0; i < 200; ++i) f.Put("k" + std::to_string(i), "w");  // 200 unflushed overwrites
  uint64_t before = f.PageLooks();
  CHECK(*f.slot->KeyCount() == 300);
  CHECK(f.PageLooks() > before);  // the overwrites' keys (those not flushed since) looked up
  before = f.PageLooks();
  CHECK(*f.slot->KeyCount() == 300);
  CHECK(f.PageLooks() == before);
  REQUIRE(*f.slot->Delete("k1"));  // a resolved entry changes: its share is updated
  f.Put("new", "v");               // a new key: looked up by the next count
  CHECK(*f.slot->KeyCount() == 300);
  CHECK(f.PageLooks() - before < 10);  // Delete's own lookup and the new key's, not 200
}

TEST_CASE("Flush leaves an empty log: every record lives in bucket and chunk files") {
  Fixture f;
  for (int i = 0; i < 300; ++i) f.Put("k" + std::to_string(i), ValueFor(i, 0, 100));
  CHECK(f.slot->Stats().wal_bytes > 300 * 100);
  REQUIRE(f.slot->Flush().ok());
  CHECK(f.slot->Stats().wal_bytes == 0);
  f.Reopen();
  CHECK(*f.slot->KeyCount() == 300);
  for (int i = 0; i < 300; i += 13) CHECK(GetOrDie(*f.slot, "k" + std::to_string(i)) == ValueFor(i, 0, 100));
  f.Put("after", "v");
  CHECK(GetOrDie(*f.slot, "after") == "v");
}

TEST_CASE("CommitThen leaves due flushes to FlushStep, one group per step") {
  Fixture f;
  auto put = [&](int i) {
    REQUIRE(f.slot->Put("k" + std::to_string(i), ValueFor(i, 0, 40), ValueType::kString, 0).ok());
  };
  auto commit_then = [&] {
    bool called = false;
    f.slot->CommitThen([&](const Status& st) {
      CHECK(st.ok());
      called = true;
    });
    CHECK(called);  // no io_uring here: done runs before CommitThen returns
  };
  // Enough writes to make several groups due (4 entries a page, 4 pages a group).
  for (int i = 0; i < 400; ++i) put(i);
  commit_then();
  CHECK(f.slot->Stats().flushes == 0);
  REQUIRE(f.slot->flush_due());
  // An open unit: the step waits for the commit that closes it.
  put(1000);
  REQUIRE(f.slot->FlushStep().ok());
  CHECK(f.slot->Stats().flushes == 0);
  commit_then();
  uint64_t steps = 0;
  while (f.slot->flush_due()) {
    const uint64_t before = f.slot->Stats().flushes;
    REQUIRE(f.slot->FlushStep().ok());
    CHECK(f.slot->Stats().flushes - before <= 1);
    REQUIRE(++steps < 1000);
  }
  CHECK(f.slot->Stats().flushes >= 2);
  f.Reopen();
  for (int i = 0; i < 400; i += 7) {
    CHECK(GetOrDie(*f.slot, "k" + std::to_string(i)) == ValueFor(i, 0, 40));
  }
}

TEST_CASE("due flushes can wait once no write came for kWriteQuietUs, unless past the limit") {
  Fixture f;
  f.options.wal_max_bytes = 256 << 10;  // 4 files of 64 KiB
  f.Reopen();
  int i = 0;
  auto write = [&](int n) {
    for (int end = i + n; i < end; ++i) {
      REQUIRE(
          f.slot->Put("k" + std::to_string(i), ValueFor(i, 0, 100), ValueType::kString, 0).ok());
    }
    f.slot->CommitThen([](const Status& st) { CHECK(st.ok()); });
  };
  write(400);
  REQUIRE(f.slot->flush_due());
  CHECK_FALSE(f.slot->flush_deferrable());  // just written
  f.clock.AdvanceMs(Slot::kWriteQuietUs / 1000 - 1);
  CHECK_FALSE(f.slot->flush_deferrable());
  f.clock.AdvanceMs(1);
  CHECK(f.slot->flush_deferrable());
  write(1);
  CHECK_FALSE(f.slot->flush_deferrable());
  // A quarter past its limit (no step ran), the log's flushes cannot wait, written or not.
  for (int k = 0; k < 1000 && f.slot->Stats().wal_bytes <= (256 << 10) * 5 / 4; ++k) write(100);
  REQUIRE(f.slot->Stats().wal_bytes > (256 << 10) * 5 / 4);
  f.clock.AdvanceMs(Slot::kWriteQuietUs / 1000);
  CHECK_FALSE(f.slot->flush_deferrable());
}

TEST_CASE("a CommitThen past the log's limit flushes until it is back within it") {
  Fixture f;
  f.options.wal_max_bytes = 256 << 10;  // 4 files of 64 KiB
  f.Reopen();
  for (int i = 0; i < 20000; ++i) {
    REQUIRE(f.slot->Put("k" + std::to_string(i), ValueFor(i, 0, 100), ValueType::kString, 0).ok());
    if (i % 100 == 99) f.slot->CommitThen([](const Status& st) { CHECK(st.ok()); });
  }
  // No FlushStep ran: only the commits kept the log near its limit (a file of slack).
  CHECK(f.slot->Stats().wal_bytes < (256 << 10) + (2 * 64 << 10));
  CHECK(f.slot->Stats().flushes > 0);
}

TEST_CASE("full buckets split without a cap: 20k keys in a slot sized for 2.5k") {
  Fixture f;
  const int n = 20000;
  for (int i = 0; i < n; ++i) REQUIRE(f.slot->Put("key:" + std::to_string(i), ValueFor(i, 0, 24),
                                                 ValueType::kString).ok());
  REQUIRE(f.slot->Commit().ok());
  REQUIRE(f.slot->Flush().ok());
  CHECK(f.slot->Stats().bucket_splits > 64);
  f.Reopen();
  for (int i = 0; i < n; i += 7) CHECK(GetOrDie(*f.slot, "key:" + std::to_string(i)) == ValueFor(i, 0, 24));
  CHECK(*f.slot->KeyCount() == n);
}

TEST_CASE("steady overwrites keep disk use within twice the live data") {
  Fixture f(4096);  // ~19 values a segment: segments die only partly
  const int keys = 2000;
  const size_t value_size = 200;
  uint64_t live = 0;
  for (int i = 0; i < keys; ++i) live += 4 + std::to_string(i).size() + value_size;
  std::mt19937 rng(7);
  for (int round = 0; round < 15; ++round) {
    for (int i = 0; i < keys; ++i) {
      int k = static_cast<int>(rng() % keys);
      REQUIRE(f.slot->Put("key:" + std::to_string(k), ValueFor(k, round, value_size),
                          ValueType::kString).ok());
    }
    REQUIRE(f.slot->Commit().ok());
  }
  REQUIRE(f.slot->Flush().ok());
  SlotStats stats = f.slot->Stats();
  CHECK(stats.compacted_segments > 0);
  MESSAGE("disk ", stats.disk_bytes, " live ", live, " wal ", stats.wal_bytes, " splits ",
          stats.bucket_splits);
  CHECK(stats.disk_bytes <= 2 * live + 64 * 4096);  // plus the bucket pages themselves
}

TEST_CASE("an idle slot flushes its groups one a step, and its log files go") {
  Fixture f;
  f.options.flush_entries_per_page = 1 << 20;  // no flush of its own
  f.options.group_flush_bytes = 1 << 30;
  f.Reopen();
  for (int i = 0; i < 1000; ++i) f.Put("key:" + std::to_string(i), ValueFor(i, 0, 100));
  REQUIRE(f.slot->Delete("key:7").ok());
  REQUIRE(f.slot->Commit().ok());
  const SlotStats before = f.slot->Stats();
  REQUIRE(before.wal_entries == 1000);
  REQUIRE(before.wal_bytes > 2 * f.options.wal_file_bytes);  // files the flushes free
  CHECK(before.flushes == 0);
  // Not idle yet.
  f.clock.AdvanceMs(Slot::kIdleFlushUs / 1000 - 1);
  CHECK_FALSE(*f.slot->IdleFlushStep());
  f.clock.AdvanceMs(1);
  uint64_t steps = 0;
  for (;;) {
    Result<bool> flushed = f.slot->IdleFlushStep();
    REQUIRE(flushed.ok());
    if (!*flushed) break;
    ++steps;
    REQUIRE(f.slot->Stats().flushes == steps);  // one group a step
    REQUIRE(f.slot->Commit().ok());  // the owner's commit publishes the marks
  }
  CHECK(steps > 1);
  CHECK(steps <= 16);  // the groups that held writes, each once
  const SlotStats after = f.slot->Stats();
  CHECK(after.wal_entries == 0);
  CHECK(after.wal_bytes < before.wal_bytes);
  // A write makes it busy again.
  f.Put("key:1", "new");
  CHECK_FALSE(*f.slot->IdleFlushStep());
  f.Reopen();
  CHECK(GetOrDie(*f.slot, "key:1") == "new");
  CHECK(GetOrDie(*f.slot, "key:999") == ValueFor(999, 0, 100));
  CHECK_FALSE(f.slot->Get("key:7")->has_value());
  CHECK(*f.slot->KeyCount() == 999);
}

TEST_CASE("deferred compaction: flushes compact nothing until it resumes") {
  Fixture f(4096);  // ~19 values a segment: segments die only partly
  const int keys = 2000;
  std::vector<int> last(keys, -1);
  std::mt19937 rng(11);
  auto overwrite = [&](int first_round, int rounds) {
    for (int round = first_round; round < first_round + rounds; ++round) {
      for (int i = 0; i < keys; ++i) {
        const int k = static_cast<int>(rng() % keys);
        REQUIRE(f.slot->Put("key:" + std::to_string(k), ValueFor(k, round, 200),
                            ValueType::kString).ok());
        last[static_cast<size_t>(k)] = round;
      }
      REQUIRE(f.slot->Commit().ok());
    }
    REQUIRE(f.slot->Flush().ok());
  };
  f.slot->DeferCompaction(true);
  overwrite(0, 10);
  CHECK(f.slot->Stats().compacted_segments == 0);
  f.slot->DeferCompaction(false);
  overwrite(10, 5);
  CHECK(f.slot->Stats().compacted_segments > 0);
  for (int k = 0; k < keys; ++k) {
    if (last[static_cast<size_t>(k)] < 0) continue;
    CHECK(GetOrDie(*f.slot, "key:" + std::to_string(k)) ==
          ValueFor(k, last[static_cast<size_t>(k)], 200));
  }
}

TEST_CASE("scan returns every key present for the whole scan despite concurrent writes") {
  Fixture f;
  std::set<std::string> stable;
  for (int i = 0; i < 1000; ++i) {
    f.Put("s" + std::to_string(i), "v");
    stable.insert("s" + std::to_string(i));
  }
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int step = 0;
  do {
    auto page = f.slot->Scan(cursor, 10);
    REQUIRE(page.ok());
    for (auto& item : page->items) seen.insert(item.key);
    cursor = page->next_cursor;
    // Meanwhile: new keys (splitting buckets), overwrites, deletes of other keys, flushes.
    for (int j = 0; j < 40; ++j) f.Put("n" + std::to_string(step * 40 + j), std::string(30, 'n'));
    f.Put("s" + std::to_string(step % 1000), "changed");
    if (step % 5 == 0) REQUIRE(f.slot->Flush().ok());
    ++step;
  } while (cursor != 0);
  for (const std::string& key : stable) CHECK_MESSAGE(seen.count(key), key);
}

TEST_CASE("scan skips deleted and expired keys and reports types") {
  Fixture f;
  f.Put("a", "1");
  f.Put("b", "1", f.clock.NowMs() + 10);
  f.Put("c", "1", 0, ValueType::kList);
  REQUIRE(*f.slot->Delete("a"));
  f.clock.AdvanceMs(10);
  std::map<std::string, ValueType> seen;
  uint64_t cursor = 0;
  do {
    auto page = f.slot->Scan(cursor, 100);
    REQUIRE(page.ok());
    for (auto& item : page->items) seen[item.key] = item.type;
    cursor = page->next_cursor;
  } while (cursor != 0);
  CHECK(seen == std::map<std::string, ValueType>{{"c", ValueType::kList}});
}

TEST_CASE("key longer than the limit is refused") {
  Fixture f;
  Status s = f.slot->Put(std::string(Slot::kMaxKeyBytes + 1, 'k'), "v", ValueType::kString);
  CHECK(s.IsInvalidArgument());
  CHECK(f.slot->Put(std::string(Slot::kMaxKeyBytes, 'k'), "v", ValueType::kString).ok());
}

TEST_CASE("pure-memory mode runs the same engine without syncing") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  options.memory = true;
  auto slot = OpenOrDie(options);
  for (int i = 0; i < 3000; ++i) REQUIRE(slot->Put("m" + std::to_string(i), ValueFor(i, 0, 100),
                                                   ValueType::kString).ok());
  REQUIRE(slot->Commit().ok());
  for (int i = 0; i < 3000; i += 13) CHECK(GetOrDie(*slot, "m" + std::to_string(i)) == ValueFor(i, 0, 100));
  CHECK(*slot->KeyCount() == 3000);
}

TEST_CASE("random operations match a reference map across flushes and reopens") {
  Fixture f;
  std::map<std::string, std::string> model;
  std::mt19937 rng(12345);
  MESSAGE("seed 12345");
  for (int op = 0; op < 20000; ++op) {
    std::string key = "r" + std::to_string(rng() % 500);
    switch (rng() % 10) {
      case 0:
      case 1: {
        bool had = model.erase(key) > 0;
        auto removed = f.slot->Delete(key);
        REQUIRE(removed.ok());
        CHECK(*removed == had);
        break;
      }
      default: {
        std::string value = ValueFor(static_cast<int>(rng() % 1000), op, rng() % 700);
        REQUIRE(f.slot->Put(key, value, ValueType::kString).ok());
        model[key] = value;
      }
    }
    if (op % 250 == 0) CHECK(*f.slot->KeyCount() == model.size());  // resolved, then written
    if (op % 3000 == 2999) {
      REQUIRE(f.slot->Commit().ok());
      f.Reopen();
    }
  }
  REQUIRE(f.slot->Commit().ok());
  for (int i = 0; i < 500; ++i) {
    std::string key = "r" + std::to_string(i);
    auto it = model.find(key);
    CHECK(GetOrDie(*f.slot, key) == (it == model.end() ? "<absent>" : it->second));
  }
  CHECK(*f.slot->KeyCount() == model.size());
}

TEST_CASE("an existing slot keeps its grouping whatever the options say") {
  Fixture f;
  for (int i = 0; i < 200; ++i) f.Put("g" + std::to_string(i), "v");  // some groups flushed
  f.options.buckets_per_group = 8;
  f.Reopen();
  for (int i = 0; i < 200; ++i) CHECK(GetOrDie(*f.slot, "g" + std::to_string(i)) == "v");
  for (int i = 0; i < 200; ++i) f.Put("g" + std::to_string(i), "w");
  f.Reopen();
  for (int i = 0; i < 200; ++i) CHECK(GetOrDie(*f.slot, "g" + std::to_string(i)) == "w");
}

TEST_CASE("multiget reads keys from the log, the caches and the disk in one call") {
  Fixture f;
  std::map<std::string, std::string> model;
  for (int i = 0; i < 600; ++i) {
    std::string key = "mg" + std::to_string(i);
    model[key] = ValueFor(i, 0, i % 3 == 0 ? 8 : 300);  // inline and chunk values
    f.Put(key, model[key], i % 5 == 0 ? f.clock.NowMs() + 1000 : 0);
  }
  REQUIRE(f.slot->Flush().ok());
  for (int i = 0; i < 600; i += 4) {  // newer writes still in group maps
    std::string key = "mg" + std::to_string(i);
    model[key] = ValueFor(i, 1, 50);
    f.Put(key, model[key]);
  }
  REQUIRE(*f.slot->Delete("mg7"));
  REQUIRE(f.slot->Commit().ok());
  model.erase("mg7");
  f.clock.AdvanceMs(1000);  // keys i % 5 == 0 not rewritten since expire
  for (int i = 0; i < 600; i += 5) {
    if (i % 4 != 0) model.erase("mg" + std::to_string(i));
  }
  f.Reopen();
  std::vector<std::string> keys;
  for (int i = 0; i < 610; ++i) keys.push_back("mg" + std::to_string(i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::optional<std::string>> values;
  std::vector<KeyMeta> metas;
  REQUIRE(f.slot->MultiGet(views, &values, &metas).ok());
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = model.find(keys[i]);
    if (it == model.end()) {
      CHECK_MESSAGE(!values[i].has_value(), keys[i]);
    } else {
      CHECK_MESSAGE(values[i] == it->second, keys[i]);
      CHECK(metas[i].type == ValueType::kString);
      CHECK(metas[i].seq > 0);
    }
  }
  // A second call is served from the value cache and agrees.
  std::vector<std::optional<std::string>> again;
  REQUIRE(f.slot->MultiGet(views, &again).ok());
  CHECK(again == values);
}

}  // namespace
}  // namespace slotkv::slot
