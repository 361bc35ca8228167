// CollectionAccess: what the access classes of the collection families (MemberAccess for
// hashes and sets, ZSetAccess, ListAccess) share: opening one key as a one-value collection
// (Small) or a paged one (Paged, whose root is Root), and writing back what changed.
//
// A one-value collection is written whole (paged when it outgrew paged-collection-threshold);
// a paged one writes its changed pages and its root, keeping the key's TTL; an emptied
// collection is deleted (the slot hands its root over for reclaim: SlotOptions::root_id), but a
// stream (Small::kKeptEmpty).
//
// Thread rule: on the Store's slot owner, within one command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/command/collection_pages.h"
#include "core/command/typed_read.h"

namespace slotkv::command {

template <class Small, class Paged, class Root>
class CollectionAccess {
 public:
  CollectionAccess(Store& store, ValueType type) : store_(store), type_(type), io_(store, type) {}
  CollectionAccess(const CollectionAccess&) = delete;
  CollectionAccess& operator=(const CollectionAccess&) = delete;

  // Reads key (a reader's lookup counts a hit or miss). The status of a storage failure or a
  // corrupt value; *wrong_type when the key holds another type.
  Status Open(std::string_view key, WorkerStats& stats, Lookup lookup, bool* wrong_type) {
    key_.assign(key);
    io_.set_group(key);
    SLOTKV_ASSIGN_OR_RETURN(
        std::optional<std::string> raw,
        ReadCollection(store_, stats, lookup, key, type_, wrong_type, &expire_at_ms_));
    if (!raw) return Status::OK();
    if (IsPagedRoot(*raw)) {
      SLOTKV_ASSIGN_OR_RETURN(Root root, Root::Decode(*raw));
      paged_.emplace(root, &io_, store_.page_members());
      return Status::OK();
    }
    SLOTKV_ASSIGN_OR_RETURN(Small value, Small::Decode(std::move(*raw)));
    small_.emplace(std::move(value));
    return Status::OK();
  }
  // Open, replying WRONGTYPE or the failure; false then.
  bool Open(std::string_view key, WorkerStats& stats, Lookup lookup, Reply& reply) {
    return OpenOrReply(*this, key, stats, lookup, reply);
  }

  // Whether the collection exists: it was read, or a write created it.
  bool exists() const { return small_ || paged_; }
  int64_t expire_at_ms() const { return expire_at_ms_; }
  uint64_t size() const { return paged_ ? paged_->size() : small_ ? small_->size() : 0; }

  // Writes what changed, keeping the key's TTL; an emptied collection is deleted (the slot
  // then hands its root over for reclaim: SlotOptions::root_id). Nothing when nothing changed.
  Status Write() {
    if (!changed_) return Status::OK();
    changed_ = false;
    if (!paged_) return StoreCollection(store_, key_, *small_, type_, expire_at_ms_);
    if (!cleared_) {
      SLOTKV_RETURN_IF_ERROR(paged_->Finish());
      SLOTKV_RETURN_IF_ERROR(io_.Close());
    }
    // A stream stays when its last entry goes (Small::kKeptEmpty).
    if (cleared_ || (paged_->size() == 0 && !KeptEmpty())) return store_.Delete(key_).status();
    return store_.Put(key_, paged_->root().Encode(), type_, expire_at_ms_);
  }

  // The one-value collection (nullptr when paged or missing).
  Small* small() { return small_ ? &*small_ : nullptr; }
  // The paged collection (nullptr when one value or missing).
  Paged* paged() { return paged_ ? &*paged_ : nullptr; }

 protected:
  static constexpr bool KeptEmpty() {
    if constexpr (requires { Small::kKeptEmpty; }) {
      return Small::kKeptEmpty;
    } else {
      return false;
    }
  }

  Store& store_;
  ValueType type_;
  StorePageIo io_;
  std::string key_;
  bool changed_ = false;
  bool cleared_ = false;  // a paged collection emptied whole: Write drops its pages unwritten
  int64_t expire_at_ms_ = 0;
  std::optional<Small> small_;
  std::optional<Paged> paged_;
};

}  // namespace slotkv::command
