#include "core/types/member_pages.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv {

uint64_t MemberHash(std::string_view member) { return KeyHash(member); }

uint64_t HashedRoot::PageOf(uint64_t h) const {
  const uint64_t low = h & ((uint64_t{1} << level) - 1);
  return low < split ? h & ((uint64_t{2} << level) - 1) : low;
}

void HashedRoot::EncodeFields(std::string* out) const {
  PutFixed64(out, id);
  PutVarint64(out, count);
  out->push_back(static_cast<char>(level));
  PutVarint64(out, split);
}

bool HashedRoot::DecodeFields(std::string_view* in, HashedRoot* r) {
  if (!GetFixed64(in, &r->id) || !GetVarint64(in, &r->count) || in->empty()) return false;
  r->level = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return r->level <= 62 && GetVarint64(in, &r->split) && r->split < (uint64_t{1} << r->level);
}

std::string HashedRoot::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kPagedMarker));
  out.push_back(static_cast<char>(kHashedKind));
  EncodeFields(&out);
  return out;
}

Result<HashedRoot> HashedRoot::Decode(std::string_view bytes) {
  HashedRoot r;
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kPagedMarker ||
      static_cast<uint8_t>(bytes[1]) != kHashedKind) {
    return Status::Corruption("paged root: bad header");
  }
  std::string_view in = bytes.substr(2);
  if (!DecodeFields(&in, &r) || !in.empty()) return Status::Corruption("paged root: bad fields");
  return r;
}

MemberPages::MemberPages(HashedRoot root, PageIo* io, uint32_t page_members)
    : root_(root), io_(io), page_members_(page_members == 0 ? 1 : page_members) {}

uint64_t NewCollectionId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

MemberPages MemberPages::Create(PageIo* io, uint32_t page_members) {
  HashedRoot root;
  root.id = NewCollectionId();
  return MemberPages(root, io, page_members);
}

Result<MemberPages::Page*> MemberPages::Load(uint64_t index) {
  auto it = pages_.find(index);
  if (it != pages_.end()) return &it->second;
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes, io_->GetPage(root_.id, index));
  Page page;
  if (bytes) {
    SLOTKV_ASSIGN_OR_RETURN(page.value, HashValue::Decode(std::move(*bytes)));
    page.existed = true;
  }
  return &pages_.emplace(index, std::move(page)).first->second;
}

Result<std::optional<std::string>> MemberPages::Get(std::string_view field) {
  SLOTKV_ASSIGN_OR_RETURN(Page * page, Load(root_.PageOf(MemberHash(field))));
  std::optional<std::string_view> v = page->value.Get(field);
  if (!v) return std::optional<std::string>();
  return std::optional<std::string>(std::string(*v));
}

Result<bool> MemberPages::Contains(std::string_view field) {
  SLOTKV_ASSIGN_OR_RETURN(Page * page, Load(root_.PageOf(MemberHash(field))));
  return page->value.Contains(field);
}

Result<bool> MemberPages::Set(std::string_view field, std::string_view value) {
  SLOTKV_ASSIGN_OR_RETURN(Page * page, Load(root_.PageOf(MemberHash(field))));
  page->dirty = true;
  const bool created = page->value.Set(field, value);
  if (created) {
    ++root_.count;
    ++added_;
  }
  return created;
}

Result<bool> MemberPages::Delete(std::string_view field) {
  SLOTKV_ASSIGN_OR_RETURN(Page * page, Load(root_.PageOf(MemberHash(field))));
  if (!page->value.Delete(field)) return false;
  page->dirty = true;
  if (root_.count > 0) --root_.count;  // 0 only in a damaged root
  return true;
}

Result<std::optional<std::pair<std::string, std::string>>> MemberPages::Random(
    std::mt19937_64& rng) {
  using Pick = std::optional<std::pair<std::string, std::string>>;
  if (root_.count == 0) return Pick();
  const uint64_t pages = root_.pages();
  // Page i's members, into *scratch when not loaded; nullptr when it holds none.
  auto members = [&](uint64_t i, HashValue* scratch) -> Result<const HashValue*> {
    auto it = pages_.find(i);
    if (it != pages_.end()) return it->second.value.empty() ? nullptr : &it->second.value;
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes, io_->GetPage(root_.id, i));
    if (!bytes) return nullptr;
    SLOTKV_ASSIGN_OR_RETURN(*scratch, HashValue::Decode(std::move(*bytes)));
    return scratch->empty() ? nullptr : scratch;
  };
  auto pick = [&](const HashValue& page) {
    const auto [f, v] = page.At(static_cast<size_t>(rng() % page.size()));
    return Pick(std::in_place, std::string(f), std::string(v));
  };
  HashValue scratch;
  // Random pages first; then, for a collection with many emptied pages, the first page from a
  // random one on that holds members.
  constexpr int kTries = 16;
  for (int t = 0; t < kTries; ++t) {
    SLOTKV_ASSIGN_OR_RETURN(const HashValue* page, members(rng() % pages, &scratch));
    if (page != nullptr) return pick(*page);
  }
  constexpr uint64_t kMaxScan = uint64_t{1} << 22;  // a damaged root's 2^62 pages end too
  const uint64_t start = rng() % pages;
  for (uint64_t n = 0; n < std::min(pages, kMaxScan); ++n) {
    SLOTKV_ASSIGN_OR_RETURN(const HashValue* page, members((start + n) % pages, &scratch));
    if (page != nullptr) return pick(*page);
  }
  return Status::Corruption("paged collection: a count of " + std::to_string(root_.count) +
                            " but no page holds a member");
}

Status MemberPages::SplitOne() {
  const uint64_t from = root_.split;
  const uint64_t to = from + (uint64_t{1} << root_.level);
  SLOTKV_ASSIGN_OR_RETURN(Page * old_page, Load(from));
  SLOTKV_ASSIGN_OR_RETURN(Page * new_page, Load(to));
  // Advance first: PageOf then places each member by the finer mask.
  if (++root_.split == (uint64_t{1} << root_.level)) {
    ++root_.level;
    root_.split = 0;
  }
  HashValue stay;
  old_page->value.ForEach([&](std::string_view f, std::string_view v) {
    if (root_.PageOf(MemberHash(f)) == to) {
      new_page->value.Set(f, v);
    } else {
      stay.Set(f, v);
    }
  });
  old_page->value = std::move(stay);
  old_page->dirty = new_page->dirty = true;
  return Status::OK();
}

uint64_t MemberPages::TargetMembers() const {
  uint64_t members = 0;
  uint64_t bytes = 0;
  for (const auto& [index, page] : pages_) {
    if (!page.dirty || page.value.empty()) continue;
    page.value.ForEach([&](std::string_view f, std::string_view v) {
      ++members;
      bytes += f.size() + v.size() + 2;  // and their lengths, a byte each mostly
    });
    break;  // one changed page is the sample
  }
  if (members == 0) return page_members_;
  return std::min<uint64_t>(page_members_,
                            std::max<uint64_t>(kMinPageMembers, kPageBytes * members / bytes));
}

Status MemberPages::Finish() {
  const uint64_t target = TargetMembers();
  for (; added_ > 0 && root_.count > root_.pages() * target; --added_) {
    SLOTKV_RETURN_IF_ERROR(SplitOne());
  }
  added_ = 0;
  for (auto& [index, page] : pages_) {
    if (!page.dirty) continue;
    if (page.value.empty()) {
      if (page.existed) SLOTKV_RETURN_IF_ERROR(io_->DeletePage(root_.id, index));
      page.existed = false;
    } else {
      SLOTKV_RETURN_IF_ERROR(
          io_->PutPage(root_.id, index, page.value.Encode(), !page.existed, nullptr));
      page.existed = true;
    }
    page.dirty = false;
  }
  return Status::OK();
}

Result<uint64_t> MemberPages::ForEachPage(
    uint64_t from, const std::function<bool(uint64_t, const HashValue&)>& fn) {
  const uint64_t end = root_.pages();
  for (uint64_t i = from; i < end; ++i) {
    auto it = pages_.find(i);
    if (it != pages_.end()) {
      if (!fn(i, it->second.value)) return i + 1;
      continue;
    }
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes, io_->GetPage(root_.id, i));
    if (!bytes) {  // emptied (or never written): fn sees it, so fn bounds the walk
      if (!fn(i, HashValue())) return i + 1;
      continue;
    }
    SLOTKV_ASSIGN_OR_RETURN(HashValue page, HashValue::Decode(std::move(*bytes)));
    if (!fn(i, page)) return i + 1;
  }
  return end;
}

Status ReclaimPages(PageIo* io, uint64_t id, uint64_t base, uint64_t* pages, uint64_t max) {
  for (uint64_t n = 0; n < max && *pages > 0; ++n) {
    SLOTKV_RETURN_IF_ERROR(io->DeletePage(id, base + *pages - 1));
    --*pages;
  }
  return Status::OK();
}

}  // namespace slotkv
