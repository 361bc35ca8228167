#include "core/types/list_pages.h"

#include <utility>

#include "core/base/coding.h"

namespace slotkv {

std::string ListRoot::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kPagedMarker));
  out.push_back(static_cast<char>(kListKind));
  PutFixed64(&out, id);
  PutVarint64(&out, count);
  EncodeFields(&out);
  return out;
}

Result<ListRoot> ListRoot::Decode(std::string_view bytes) {
  ListRoot r;
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kPagedMarker ||
      static_cast<uint8_t>(bytes[1]) != kListKind) {
    return Status::Corruption("list root: bad header");
  }
  std::string_view in = bytes.substr(2);
  if (!GetFixed64(&in, &r.id) || !GetVarint64(&in, &r.count) ||
      !TreeRoot::DecodeFields(&in, &r) || !in.empty() || (r.tree == 0) != (r.count == 0)) {
    return Status::Corruption("list root: bad fields");
  }
  return r;
}

ListPages::ListPages(ListRoot root, PageIo* io, uint32_t page_members)
    : id_(root.id), count_(root.count), tree_(root, io, root.id, page_members) {}

ListPages ListPages::Create(PageIo* io, uint32_t page_members) {
  ListRoot root;
  root.id = NewCollectionId();
  return ListPages(root, io, page_members);
}

ListRoot ListPages::root() const {
  ListRoot r;
  static_cast<TreeRoot&>(r) = tree_.root();
  r.id = id_;
  r.count = count_;
  return r;
}

Result<std::string> ListPages::At(uint64_t pos) {
  std::string out;
  bool found = false;
  SLOTKV_RETURN_IF_ERROR(tree_.Walk(pos, false, [&](const std::string& v) {
    out = v;
    found = true;
    return false;
  }));
  if (!found) return Status::Corruption("paged list: position past the end");
  return out;
}

Status ListPages::InsertAt(uint64_t pos, std::string v) {
  SLOTKV_RETURN_IF_ERROR(tree_.InsertAt(pos, std::move(v)));
  ++count_;
  return Status::OK();
}

Result<std::string> ListPages::EraseAt(uint64_t pos) {
  SLOTKV_ASSIGN_OR_RETURN(std::string v, tree_.EraseAt(pos));
  --count_;
  return v;
}

Status ListPages::ReplaceAt(uint64_t pos, std::string v) {
  return tree_.ReplaceAt(pos, std::move(v));
}

Status ListPages::Walk(uint64_t pos, bool reverse,
                       const std::function<bool(const std::string&)>& fn) {
  return tree_.Walk(pos, reverse, fn);
}

Status ListPages::Finish() {
  SLOTKV_RETURN_IF_ERROR(tree_.CheckSize(count_));
  return tree_.Finish();
}

}  // namespace slotkv
