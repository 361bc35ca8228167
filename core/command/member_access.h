// MemberAccess: point operations on one hash or set key, whatever its representation (one
// value, or a paged collection: collection_pages.h), for the commands that touch a few members
// (HSET HGET HDEL ... SADD SREM SISMEMBER ...). A paged collection costs one page (and the
// root) per member touched; a one-value collection is decoded whole as before and becomes
// paged when a write takes it past paged-collection-threshold.
//
// V is HashValue (kHash) or SetValue (kSet); a set's members have empty values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/command/collection_pages.h"
#include "core/command/typed_read.h"
#include "core/types/hash_value.h"
#include "core/types/member_pages.h"
#include "core/types/set_value.h"

namespace slotkv::command {

template <class V>
class MemberAccess {
 public:
  MemberAccess(Store& store, ValueType type) : store_(store), type_(type), io_(store, type) {}
  MemberAccess(const MemberAccess&) = delete;
  MemberAccess& operator=(const MemberAccess&) = delete;

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
      SLOTKV_ASSIGN_OR_RETURN(HashedRoot root, HashedRoot::Decode(*raw));
      paged_.emplace(root, &io_, store_.page_members());
      return Status::OK();
    }
    SLOTKV_ASSIGN_OR_RETURN(V value, V::Decode(std::move(*raw)));
    small_.emplace(std::move(value));
    return Status::OK();
  }

  // Whether the collection exists: it was read, or a Set created it.
  bool exists() const { return small_ || paged_; }
  int64_t expire_at_ms() const { return expire_at_ms_; }
  uint64_t size() const { return paged_ ? paged_->size() : small_ ? small_->size() : 0; }

  // The value of field (hashes).
  Result<std::optional<std::string>> Get(std::string_view field) {
    if (paged_) return paged_->Get(field);
    if (!small_) return std::optional<std::string>();
    std::optional<std::string_view> v = small_->Get(field);
    return v ? std::optional<std::string>(std::string(*v)) : std::optional<std::string>();
  }
  Result<bool> Contains(std::string_view field) {
    if (paged_) return paged_->Contains(field);
    return small_ && SmallContains(*small_, field);
  }
  // true when field is new. Creates the collection when the key was missing.
  Result<bool> Set(std::string_view field, std::string_view value) {
    changed_ = true;
    if (paged_) return paged_->Set(field, value);
    if (!small_) small_.emplace();
    return SmallSet(*small_, field, value);
  }
  // true when field was there.
  Result<bool> Delete(std::string_view field) {
    if (paged_) {
      SLOTKV_ASSIGN_OR_RETURN(bool removed, paged_->Delete(field));
      changed_ = changed_ || removed;
      return removed;
    }
    if (!small_ || !SmallDelete(*small_, field)) return false;
    changed_ = true;
    return true;
  }

  // Writes what Set and Delete changed, keeping the key's TTL; an emptied collection is
  // deleted. Nothing when nothing changed.
  Status Write() {
    if (!changed_) return Status::OK();
    changed_ = false;
    if (!paged_) return StoreCollection(store_, key_, *small_, type_, expire_at_ms_);
    SLOTKV_RETURN_IF_ERROR(paged_->Finish());  // an emptied page is deleted
    SLOTKV_RETURN_IF_ERROR(io_.Close());
    if (paged_->size() == 0) return store_.Delete(key_).status();
    return store_.Put(key_, paged_->root().Encode(), type_, expire_at_ms_);
  }

  // The one-value collection (nullptr when paged or missing).
  V* small() { return small_ ? &*small_ : nullptr; }
  // The paged collection (nullptr when one value or missing).
  MemberPages* paged() { return paged_ ? &*paged_ : nullptr; }

 private:
  Store& store_;
  ValueType type_;
  StorePageIo io_;
  std::string key_;
  bool changed_ = false;
  int64_t expire_at_ms_ = 0;
  std::optional<V> small_;
  std::optional<MemberPages> paged_;
};

// HSCAN / SSCAN / ZSCAN of a paged collection (MemberPages or ZSetPages, whose pages are its
// member -> score index): calls fn(field, value) for the members of the pages
// from cursor (a page index) on, page by page, until count members were seen. The next cursor,
// 0 once the last page was read. A member present for the whole scan is returned at least once
// (pages split only towards higher indexes).
template <class Pages, class Fn>
Result<uint64_t> ScanPages(Pages& pages, uint64_t cursor, uint64_t count, Fn&& fn) {
  uint64_t seen = 0;
  SLOTKV_ASSIGN_OR_RETURN(
      uint64_t next, pages.ForEachPage(cursor, [&](uint64_t, const HashValue& page) {
        page.ForEach(fn);
        seen += page.size();
        return seen < count;
      }));
  return next >= pages.page_count() ? 0 : next;
}

}  // namespace slotkv::command
