// Paged collections on a Store: where their pages live (internal keys of the owner slot), the
// count of internal keys that DBSIZE leaves out, and the background reclaim of the pages of
// dropped collections.
//
// Design. A collection above paged-collection-threshold members is a root under the user's
// key plus pages under internal keys (core/types/member_pages.h, zset_pages.h, list_pages.h,
// internal_keys.h). Every page written or deleted goes through StorePageIo, which keeps the
// slot's internal-key count (kInternalCountKey) in the same WAL unit as the pages, so
// Store::KeyCount stays exact after a crash. Whatever removes a root (DEL, an emptied
// collection, expiry, SET or any write of another collection over the key, also over an
// expired root nobody read) just writes the key: the slot notices that a root of a paged
// collection was replaced (SlotOptions::root_id; in the group map at the write, or against
// the bucket's cell at the flush) and hands it over. Each worker's expiry step queues the
// page ranges of those roots (id, base, pages) under kReclaimKey (DropPages); ReclaimStep,
// run between requests, deletes a bounded number of pages per call. A reader never sees the
// dropped pages (no root names that id any more) and a key re-created meanwhile gets a new id.
// After a crash the log's replay hands over the roots its writes replaced again; a root the
// flush handed over in the moments before the crash, before the worker queued it, stays
// unreclaimed (its pages are orphans that no count includes but the internal-key count).
//
// Thread rule: on the Store's slot owner, within one command or worker step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/no_wait_reads.h"
#include "core/base/status.h"
#include "core/command/keyspace.h"
#include "core/command/typed_read.h"
#include "core/types/member_pages.h"
#include "core/types/list_pages.h"
#include "core/types/list_value.h"
#include "core/types/set_value.h"
#include "core/types/stream_pages.h"
#include "core/types/zset_pages.h"

namespace slotkv::command {

// Pages of a Store; Close writes the change of the internal-key count (once per command).
// Pages written compress in the dictionary group of the collection's key (set_group).
class StorePageIo : public PageIo {
 public:
  StorePageIo(Store& store, ValueType type, std::string_view group = {})
      : store_(store), type_(type), group_(group) {}
  void set_group(std::string_view key) { group_.assign(key); }
  Result<std::optional<std::string>> GetPage(uint64_t id, uint64_t index) override;
  Status PutPage(uint64_t id, uint64_t index, std::string_view bytes, bool created,
                 std::unique_ptr<DecodedPage> decoded) override;
  Result<bool> PutDecoded(uint64_t id, uint64_t index,
                          std::unique_ptr<DecodedPage>* decoded) override;
  Status DeletePage(uint64_t id, uint64_t index) override;
  std::unique_ptr<DecodedPage> TakeDecoded(uint64_t id, uint64_t index) override;
  void KeepDecoded(uint64_t id, uint64_t index, std::unique_ptr<DecodedPage> page) override;
  // Adds the pages created and deleted so far to the slot's internal-key count.
  Status Close();

 private:
  Store& store_;
  ValueType type_;
  std::string group_;
  int64_t delta_ = 0;
};

// The keys of database db of slot s (its open slot) minus its internal ones (DBSIZE, INFO
// keyspace, metrics). Reads the internal count once per slot, then keeps it in keyspace.
Result<uint64_t> UserKeyCount(Keyspace& keyspace, uint32_t s, uint32_t db, slot::Slot& slot);

// Queues pages [base, base + pages) of a dropped collection (its root already deleted) for
// ReclaimStep; a range of id and base queued already grows to pages instead.
Status QueueReclaim(Store& store, uint64_t id, uint64_t base, uint64_t pages);

// Pages [base, base + count) of collection id.
struct PageRange {
  uint64_t id = 0;
  uint64_t base = 0;
  uint64_t count = 0;
};
// Where the pages of the paged root stored are (nothing for another value, nor for an emptied
// hash or set); Corruption for a root that does not decode.
Result<std::vector<PageRange>> PageRanges(std::string_view stored);
// The paged root stored, naming collection id instead of its own (a copy of its pages).
Result<std::string> WithCollectionId(std::string_view stored, uint64_t id);

// Pages of a collection on their way to another store (RENAME, COPY and MOVE of a paged
// collection go page by page, never as one value): (index, bytes) each.
using PageBatch = std::vector<std::pair<uint64_t, std::string>>;
// Reads the pages of range from index *next on (relative to range.base) into batch, until
// the range ends or the batch holds store.copy_batch_bytes() (paged-copy-batch-bytes); *next
// moves past them. A missing page (emptied) is left out.
Status ReadPages(Store& store, ValueType type, const PageRange& range, uint64_t* next,
                 PageBatch* batch);
// Writes batch as new pages of collection id (at range.base + index), compressed in the
// dictionary group of key.
Status WritePages(Store& store, ValueType type, std::string_view key, uint64_t id,
                  const PageRange& range, const PageBatch& batch);

// A copy of a paged collection written into store's slot under collection id, over several
// steps (RENAME and COPY across owners) or one (MOVE). BeginCopy notes the copy's page ranges
// under kCopyKey, and the id as running (Store::copies), before any page is written; EndCopy
// drops both in the unit that writes the copy's root. A copy that fails (ForgetCopy: no longer
// running) or that a crash cut short leaves its ranges there, and ReclaimStep queues the pages
// of every copy no command is running: a half-made copy never stays as orphan pages.
Status BeginCopy(Store& store, uint64_t id, const std::vector<PageRange>& ranges);
Status EndCopy(Store& store, uint64_t id);
void ForgetCopy(Store& store, uint64_t id);

// If stored is a paged root, queues its pages for reclaim: the slot discarded it (a delete or
// an overwrite of the key that held it: Slot::TakeDiscardedRoots).
Status DropPages(Store& store, std::string_view stored);
// SlotOptions::may_hold_root and root_id (slot.h), which the keyspace gives its slots: a user
// key may hold a root; the id of the paged collection whose root stored is, 0 for none (nor
// for a root that does not decode: its pages cannot be named).
bool MayHoldRoot(std::string_view stored_key);
uint64_t PagedRootId(std::string_view stored);

// The member operations of the one-value codecs a paged collection stands in for: a hash's
// fields with their values, a set's members (whose values are empty in pages).
inline bool SmallContains(const HashValue& h, std::string_view f) { return h.Contains(f); }
inline bool SmallContains(const SetValue& s, std::string_view f) { return s.Contains(f); }
inline bool SmallSet(HashValue& h, std::string_view f, std::string_view v) { return h.Set(f, v); }
inline bool SmallSet(SetValue& s, std::string_view f, std::string_view) { return s.Add(f); }
inline bool SmallDelete(HashValue& h, std::string_view f) { return h.Delete(f); }
inline bool SmallDelete(SetValue& s, std::string_view f) { return s.Remove(f); }

// Whole-collection access, for the commands that work on every member (HGETALL, SMEMBERS,
// SINTER, ZUNION ...): O(members) as a one-value collection is. V is HashValue, SetValue,
// ZSetValue, ListValue or StreamValue.
// stored (the value of a key of type `type`) as a V: decoded, or read from every page of a
// paged collection.
template <class V>
Result<V> LoadWhole(Store& store, ValueType type, std::string stored);
// Reads key for a collection access class (MemberAccess, ZSetAccess, ListAccess): its stored
// value when it holds `type` (nullopt when missing, or when *wrong_type is set because it
// holds another type), and its expiry in *expire_at_ms. A reader's lookup counts a hit or miss.
Result<std::optional<std::string>> ReadCollection(Store& store, WorkerStats& stats, Lookup lookup,
                                                  std::string_view key, ValueType type,
                                                  bool* wrong_type, int64_t* expire_at_ms);

// Reads key whole as a V of `type` (a paged collection from all its pages; a reader's lookup
// counts a hit or miss): the value, WRONGTYPE or the failure (typed_read.h's TypedRead).
template <class V>
TypedRead<V> ReadWhole(Store& store, WorkerStats& stats, Lookup lookup, std::string_view key,
                       ValueType type) {
  TypedRead<V> out;
  Result<std::optional<std::string>> raw = ReadCollection(
      store, stats, lookup, key, type, &out.wrong_type, &out.meta.expire_at_ms);
  if (!raw.ok()) {
    out.status = raw.status();
  } else if (*raw) {
    Result<V> value = LoadWhole<V>(store, type, std::move(**raw));
    if (value.ok()) {
      out.value = std::move(value).value();
      out.meta.type = type;
    } else {
      out.status = value.status();
    }
  }
  return out;
}
// Stores value under key (expiry expire_at_ms): one value up to paged-collection-threshold
// members, a paged collection above; deletes the key when value is empty. (A paged collection
// the key held before is the slot's to hand over for reclaim: SlotOptions::root_id.)
template <class V>
Status StoreCollection(Store& store, std::string_view key, const V& value, ValueType type,
                       int64_t expire_at_ms);

// Keys as a whole (DEL, UNLINK, RENAME, COPY, MOVE): Store::Delete deletes any key (a paged
// collection's pages go through SlotOptions::root_id); a paged collection moves by copying
// its pages (ReadPages, WritePages) under a new id (WithCollectionId).
// Writes value, read under another key and not a paged root, under key: a collection above
// the threshold as a paged one.
Status PutWhole(Store& store, std::string_view key, std::string_view value, ValueType type,
                int64_t expire_at_ms);

// A reclaim step on a worker: its page deletes read no-wait (no_wait_reads.h), and the first
// that would wait for the disk (its bucket page is not in memory) ends the step there.
struct NoWaitReclaim {
  std::vector<BlockedRead> blocked;  // out: the regions to fetch before the next step
  uint64_t deleted = 0;              // out: pages the step deleted
};

// Queues the pages of the copies that no command is running any more (BeginCopy), then
// deletes pages of the collections queued in the store's slot, a batch at a time, until
// max_pages are gone or the keyspace clock's MonotonicUs passes deadline_us (checked after each
// batch: a page deleted from a cold bucket costs a read), or, with no_wait, a delete would
// wait for a read. Returns whether pages remain queued.
Result<bool> ReclaimStep(Store& store, uint64_t max_pages, int64_t deadline_us,
                         NoWaitReclaim* no_wait = nullptr);

}  // namespace slotkv::command
