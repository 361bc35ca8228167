#include "core/types/stream_pages.h"

#include <utility>

#include "core/base/coding.h"

namespace slotkv {

std::string StreamRoot::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kPagedMarker));
  out.push_back(static_cast<char>(kStreamKind));
  PutFixed64(&out, id);
  PutVarint64(&out, count);
  EncodeFields(&out);
  meta.EncodeTo(&out);
  return out;
}

Result<StreamRoot> StreamRoot::Decode(std::string_view bytes) {
  StreamRoot r;
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kPagedMarker ||
      static_cast<uint8_t>(bytes[1]) != kStreamKind) {
    return Status::Corruption("stream root: bad header");
  }
  std::string_view in = bytes.substr(2);
  if (!GetFixed64(&in, &r.id) || !GetVarint64(&in, &r.count) ||
      !TreeRoot::DecodeFields(&in, &r) || !StreamMeta::DecodeFrom(&in, &r.meta) ||
      !in.empty() || (r.tree == 0) != (r.count == 0)) {
    return Status::Corruption("stream root: bad fields");
  }
  return r;
}

StreamPages::StreamPages(StreamRoot root, PageIo* io, uint32_t page_members)
    : id_(root.id),
      count_(root.count),
      meta_(std::move(root.meta)),
      tree_(root, io, root.id, page_members) {}

StreamPages StreamPages::Create(PageIo* io, uint32_t page_members) {
  StreamRoot root;
  root.id = NewCollectionId();
  return StreamPages(std::move(root), io, page_members);
}

StreamRoot StreamPages::root() const {
  StreamRoot r;
  static_cast<TreeRoot&>(r) = tree_.root();
  r.id = id_;
  r.count = count_;
  r.meta = meta_;
  return r;
}

Status StreamPages::Append(StreamId id, StreamFields fields) {
  SLOTKV_RETURN_IF_ERROR(tree_.InsertAt(count_, Entry{id, std::move(fields)}));
  ++count_;
  return Status::OK();
}

Result<bool> StreamPages::Erase(const StreamId& id) {
  SLOTKV_ASSIGN_OR_RETURN(bool erased, tree_.Erase(id));
  if (erased) --count_;
  return erased;
}

Result<StreamId> StreamPages::EraseFirst() {
  SLOTKV_ASSIGN_OR_RETURN(Entry e, tree_.EraseAt(0));
  --count_;
  return e.id;
}

Result<std::optional<StreamFields>> StreamPages::Get(const StreamId& id) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<uint64_t> rank, tree_.RankOf(id));
  std::optional<StreamFields> out;
  if (!rank) return out;
  SLOTKV_RETURN_IF_ERROR(tree_.Walk(*rank, false, [&](const Entry& e) {
    out = e.fields;
    return false;
  }));
  return out;
}

Result<uint64_t> StreamPages::CountBelow(const StreamId& id) {
  return tree_.CountBefore([&](const Entry& e) { return e.id >= id; });
}

Status StreamPages::Walk(const StreamId& from, bool reverse,
                         const std::function<bool(const Entry&)>& fn) {
  if (count_ == 0) return Status::OK();
  if (!reverse) {
    SLOTKV_ASSIGN_OR_RETURN(uint64_t rank, CountBelow(from));
    return tree_.Walk(rank, false, fn);
  }
  SLOTKV_ASSIGN_OR_RETURN(uint64_t above,
                          tree_.CountBefore([&](const Entry& e) { return e.id > from; }));
  if (above == 0) return Status::OK();
  return tree_.Walk(above - 1, true, fn);
}

Status StreamPages::Finish() {
  SLOTKV_RETURN_IF_ERROR(tree_.CheckSize(count_));
  return tree_.Finish();
}

}  // namespace slotkv
