// The page bookkeeping of paged collections on a Store (collection_pages.h): copies that a
// failure or a crash cut short are reclaimed, finished and running ones are not.
#include "core/command/collection_pages.h"

#include <doctest/doctest.h>

#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "core/base/fault_fs.h"
#include "core/base/mem_fs.h"
#include "core/base/no_wait_reads.h"
#include "core/command/internal_keys.h"
#include "core/command/keyspace.h"

namespace slotkv::command {
namespace {

KeyspaceOptions Options(Fs* fs) {
  KeyspaceOptions o;
  o.fs = fs;
  o.dir = "/data";
  o.slots = 2;
  o.databases = 1;
  o.slot.key_estimate = 1024;
  return o;
}

constexpr uint64_t kPages = 3;

// Writes pages 0 .. pages-1 of collection id, after BeginCopy.
void CopyPages(Store& store, uint64_t id, uint64_t pages = kPages) {
  REQUIRE(BeginCopy(store, id, {PageRange{.id = 99, .base = 0, .count = pages}}).ok());
  StorePageIo io(store, ValueType::kHash, "h");
  for (uint64_t i = 0; i < pages; ++i) {
    REQUIRE(io.PutPage(id, i, "page " + std::to_string(i), /*created=*/true, nullptr).ok());
  }
  REQUIRE(io.Close().ok());
}

// How many of collection id's pages 0 .. pages-1 the store holds.
uint64_t PagesOf(Store& store, uint64_t id, uint64_t pages = kPages) {
  uint64_t n = 0;
  for (uint64_t i = 0; i < pages; ++i) n += store.GetInternal(PageKey(id, i))->has_value();
  return n;
}

// Runs ReclaimStep until nothing is queued.
void Reclaim(Store& store) {
  for (int i = 0; i < 100; ++i) {
    Result<bool> more = ReclaimStep(store, 1000, INT64_MAX);
    REQUIRE(more.ok());
    if (!*more) return;
  }
  FAIL("the reclaim queue never emptied");
}

void Commit(std::vector<slot::Slot*>* dirty) {
  for (slot::Slot* s : *dirty) REQUIRE(s->Commit().ok());
  dirty->clear();
}

TEST_CASE("a running copy keeps its pages; a forgotten one is reclaimed; a finished one stays") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  Store store(ks->get(), 1, 0, &dirty);
  CopyPages(store, 7);
  CopyPages(store, 8);
  CopyPages(store, 9);
  Reclaim(store);
  CHECK(PagesOf(store, 7) == kPages);
  CHECK(PagesOf(store, 8) == kPages);
  CHECK(!store.cut_copies());  // the next steps need not read kCopyKey
  REQUIRE(EndCopy(store, 8).ok());
  ForgetCopy(store, 7);  // its command failed
  CHECK(store.cut_copies());
  CHECK((*ks)->reclaim_pending(1, 0));
  Reclaim(store);
  CHECK(PagesOf(store, 7) == 0);
  CHECK(PagesOf(store, 8) == kPages);
  CHECK(PagesOf(store, 9) == kPages);
  REQUIRE(EndCopy(store, 9).ok());
  Reclaim(store);
  CHECK(PagesOf(store, 9) == kPages);
  // Nothing is left of the copies' bookkeeping: the internal keys are the six pages and the
  // count key.
  CHECK(!store.GetInternal(kCopyKey)->has_value());
  CHECK(!store.GetInternal(kReclaimKey)->has_value());
  CHECK(**store.GetInternal(kInternalCountKey) == "7");
  Commit(&dirty);
}

TEST_CASE("the pages of a copy that a crash cut short are reclaimed after the reopen") {
  MemFs fs;
  std::vector<slot::Slot*> dirty;
  {
    auto ks = Keyspace::Open(Options(&fs));
    REQUIRE(ks.ok());
    Store store(ks->get(), 0, 0, &dirty);
    CopyPages(store, 5);
    CopyPages(store, 6);
    REQUIRE(EndCopy(store, 6).ok());
    Commit(&dirty);
  }  // copy 5 never ended
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  Store store(ks->get(), 0, 0, &dirty);
  CHECK(PagesOf(store, 5) == kPages);
  CHECK((*ks)->reclaim_pending(0, 0));  // set when a slot opens
  Reclaim(store);
  CHECK(PagesOf(store, 5) == 0);
  CHECK(PagesOf(store, 6) == kPages);
  CHECK(!store.GetInternal(kCopyKey)->has_value());
  CHECK(**store.GetInternal(kInternalCountKey) == "4");
  Commit(&dirty);
}

TEST_CASE("a no-wait reclaim step ends at a delete that would read, and the next goes on") {
  MemFs mem;
  FaultFs fs(&mem);
  std::vector<slot::Slot*> dirty;
  constexpr uint64_t kMany = 200;
  {
    auto ks = Keyspace::Open(Options(&fs));
    REQUIRE(ks.ok());
    Store store(ks->get(), 0, 0, &dirty);
    CopyPages(store, 5, kMany);  // never ended: reclaimed after the reopen
    Commit(&dirty);
    Result<slot::Slot*> slot = (*ks)->Get(0, 0, false);
    REQUIRE(slot.ok());
    REQUIRE((*slot)->Flush().ok());  // into bucket pages, which the reopen reads from files
  }
  auto ks = Keyspace::Open(Options(&fs));
  REQUIRE(ks.ok());
  Store cold(ks->get(), 0, 0, &dirty);
  fs.MissPageCache(1);
  NoWaitReclaim step;
  Result<bool> more = ReclaimStep(cold, 1000, INT64_MAX, &step);
  REQUIRE(more.ok());
  CHECK(*more);  // the page it met the disk for, and those after it, are still queued
  CHECK(step.blocked.size() == 1);
  CHECK(step.deleted < kMany);
  CloseBlocked(step.blocked);
  NoWaitReclaim next;
  more = ReclaimStep(cold, 1000, INT64_MAX, &next);
  REQUIRE(more.ok());
  CHECK_FALSE(*more);
  CHECK(next.blocked.empty());
  CHECK(step.deleted + next.deleted == kMany);
  CHECK(PagesOf(cold, 5, kMany) == 0);
  CHECK(!cold.GetInternal(kCopyKey)->has_value());
  CHECK(!cold.GetInternal(kInternalCountKey)->has_value());
  Commit(&dirty);
}

}  // namespace
}  // namespace slotkv::command
