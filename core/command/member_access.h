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

#include "core/command/collection_access.h"
#include "core/command/collection_pages.h"
#include "core/command/typed_read.h"
#include "core/types/hash_value.h"
#include "core/types/member_pages.h"
#include "core/types/set_value.h"

namespace slotkv::command {

template <class V>
class MemberAccess : public CollectionAccess<V, MemberPages, HashedRoot> {
  using Base = CollectionAccess<V, MemberPages, HashedRoot>;
  using Base::changed_;
  using Base::paged_;
  using Base::small_;

 public:
  MemberAccess(Store& store, ValueType type) : Base(store, type) {}

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
};

// HSCAN / SSCAN / ZSCAN of a paged collection (MemberPages or ZSetPages, whose pages are its
// member -> score index): calls fn(field, value) for the members of the pages
// from cursor (a page index) on, page by page, until count members were seen or, as Redis's
// SCAN bounds its empty buckets, 10 * count pages were visited. The next cursor, 0 once the
// last page was read. A member present for the whole scan is returned at least once (pages
// split only towards higher indexes).
template <class Pages, class Fn>
Result<uint64_t> ScanPages(Pages& pages, uint64_t cursor, uint64_t count, Fn&& fn) {
  uint64_t seen = 0;
  uint64_t visited = 0;
  SLOTKV_ASSIGN_OR_RETURN(
      uint64_t next, pages.ForEachPage(cursor, [&](uint64_t, const HashValue& page) {
        page.ForEach(fn);
        seen += page.size();
        return seen < count && ++visited < 10 * count;
      }));
  return next >= pages.page_count() ? 0 : next;
}

}  // namespace slotkv::command
