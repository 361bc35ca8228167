// MemberPages: a large hash or set stored as a small root plus pages of members, so that a
// change reads and writes one page (and the root) whatever the collection's size.
//
// Design. Members are partitioned by a 64-bit hash of the member (MemberHash) with linear
// hashing: the root holds the page count as (level, split), page p holds the members whose
// hash h has p = h mod 2^level, or h mod 2^(level+1) when that is below split. When the
// collection outgrows its target per page, page `split` is split in two (its members move to
// itself or to split + 2^level), split advances, and once it reaches 2^level the level goes up.
// The target is page_members, or fewer when members are long: pages aim at kPageBytes, since
// every change reads, encodes, diffs, checksums and copies its whole page (64 fields of 200
// bytes made 14 kB pages; HSET of such fields cost 8.9 us of user CPU with 4 kB pages, 7.4 us
// with 1 kB ones).
// The root needs no directory (it stays a few bytes), and a split moves members only from a
// page to a higher one, which keeps a scan by page index valid across splits: a member present
// for the whole scan is returned at least once. Pages are never merged; a page left empty is
// deleted and reads as empty.
//
// A page is a HashValue (field -> value); a set's members are fields with empty values. Pages
// are read and written through PageIo, which names them by (collection id, page index): the
// command layer maps that to internal keys of the owner slot, tests to a std::map. The id is
// random per collection, so a key re-created (or renamed) never meets another collection's pages.
//
// Root grammar (the value of the user's key; first byte kPagedMarker, which no one-value
// encoding starts with):
//   root := kPagedMarker kind:u8 id:fixed64 count:varint64 level:u8 split:varint64
// kind is kHashedKind here (lists and sorted sets will have their own).
//
// Thread rule: none inside; used by the slot's owner for the duration of one command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/types/decoded_page.h"
#include "core/types/hash_value.h"

namespace slotkv {

// The first byte of every paged root.
inline constexpr uint8_t kPagedMarker = 0xF1;
inline constexpr uint8_t kHashedKind = 1;

// Whether bytes (a stored hash, set, list or sorted set value) is a paged root.
inline bool IsPagedRoot(std::string_view bytes) {
  return !bytes.empty() && static_cast<uint8_t>(bytes[0]) == kPagedMarker;
}

// The hash that places a member in a page (part of the on-disk format: never change it).
uint64_t MemberHash(std::string_view member);

// A fresh random collection id: its pages' keys never meet another collection's.
uint64_t NewCollectionId();

struct HashedRoot {
  uint64_t id = 0;
  uint64_t count = 0;  // members
  uint8_t level = 0;
  uint64_t split = 0;  // pages = 2^level + split

  uint64_t pages() const { return (uint64_t{1} << level) + split; }
  // The page of a member with hash h.
  uint64_t PageOf(uint64_t h) const;
  std::string Encode() const;
  // Corruption on anything Encode could not have made.
  static Result<HashedRoot> Decode(std::string_view bytes);
  // The fields after the marker and kind, shared with the sorted set's root (zset_pages.h).
  void EncodeFields(std::string* out) const;
  static bool DecodeFields(std::string_view* in, HashedRoot* r);
};

// Where pages live. Page (id, index) is absent until first written.
class PageIo {
 public:
  virtual ~PageIo() = default;
  virtual Result<std::optional<std::string>> GetPage(uint64_t id, uint64_t index) = 0;
  // created: the page did not exist before (the caller knows). decoded, when given, is the
  // decoded form of bytes, which the PageIo may keep for TakeDecoded (decoded_page.h).
  virtual Status PutPage(uint64_t id, uint64_t index, std::string_view bytes, bool created,
                         std::unique_ptr<DecodedPage> decoded) = 0;
  // Writes page (id, index), which exists, as its decoded form only, when the PageIo can keep
  // it so (decoded_page.h): true, *decoded taken. false: nothing done, *decoded left (PutPage).
  virtual Result<bool> PutDecoded(uint64_t, uint64_t, std::unique_ptr<DecodedPage>*) {
    return false;
  }
  virtual Status DeletePage(uint64_t id, uint64_t index) = 0;
  // The kept decoded form of page (id, index), or null; taking it leaves none kept.
  virtual std::unique_ptr<DecodedPage> TakeDecoded(uint64_t, uint64_t) { return nullptr; }
  // Gives back a form TakeDecoded gave, unchanged: kept again unless the page changed since.
  virtual void KeepDecoded(uint64_t, uint64_t, std::unique_ptr<DecodedPage>) {}
};

class MemberPages {
 public:
  // A collection whose root is root; page_members is the most members per page (>= 1).
  MemberPages(HashedRoot root, PageIo* io, uint32_t page_members);
  // A new empty collection with a fresh random id.
  static MemberPages Create(PageIo* io, uint32_t page_members);

  const HashedRoot& root() const { return root_; }
  uint64_t size() const { return root_.count; }
  uint64_t page_count() const { return root_.pages(); }

  // Point operations: each loads the member's page once (kept until Finish).
  Result<std::optional<std::string>> Get(std::string_view field);
  Result<bool> Contains(std::string_view field);
  // true when field is new.
  Result<bool> Set(std::string_view field, std::string_view value);
  // true when field was there.
  Result<bool> Delete(std::string_view field);

  // A random member (field, value): a random page that holds members, then a random member
  // of it; nullopt when the collection is empty. Not uniform: a member of a page with fewer
  // members comes up more often (pages differ by a few times in fill), as with Redis's own
  // picks (a random dict bucket, then a random entry of its chain). Pages are read without
  // being kept (those loaded are used as they are).
  Result<std::optional<std::pair<std::string, std::string>>> Random(std::mt19937_64& rng);

  // Runs the splits the count asks for, at most one per member this MemberPages added (so a
  // damaged count cannot make it split without end), and writes every changed page (an
  // emptied page is deleted). The caller then stores root() under the key (or deletes the key when empty).
  Status Finish();

  // Calls fn(index, page) for each page from index `from` until fn returns false or the pages
  // end; pages not loaded are read without being kept, a page not stored (emptied) is an empty
  // one: fn's budget bounds the walk even over a damaged root's 2^62 pages. Returns the index
  // after the last page visited (pages() when all were).
  Result<uint64_t> ForEachPage(uint64_t from,
                               const std::function<bool(uint64_t, const HashValue&)>& fn);

 private:
  struct Page {
    HashValue value;
    bool existed = false;  // in storage before this MemberPages changed it
    bool dirty = false;
  };
  // A page's bytes (of its members) that Finish's splits aim at, and the fewest members a
  // page is split down to for it.
  static constexpr uint64_t kPageBytes = 1024;
  static constexpr uint64_t kMinPageMembers = 4;

  Result<Page*> Load(uint64_t index);
  Status SplitOne();
  // Members per page the splits aim at: page_members_, or fewer so that a page holds about
  // kPageBytes (the members of a page this MemberPages changed are the sample), not under
  // kMinPageMembers.
  uint64_t TargetMembers() const;

  HashedRoot root_;
  PageIo* io_;
  uint32_t page_members_;
  std::map<uint64_t, Page> pages_;  // loaded
  uint64_t added_ = 0;  // members Set created: bounds Finish's splits
};

// Deletes up to max pages of collection id, from index base + *pages - 1 down to base; *pages
// becomes the count still to delete. For background reclaim of a dropped collection.
Status ReclaimPages(PageIo* io, uint64_t id, uint64_t base, uint64_t* pages, uint64_t max);

}  // namespace slotkv
