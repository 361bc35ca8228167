#include "core/types/zset_pages.h"

#include <bit>
#include <cmath>
#include <utility>

#include "core/base/coding.h"
#include "core/types/list_pages.h"
#include "core/types/stream_pages.h"

namespace slotkv {

std::string ZSetRoot::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kPagedMarker));
  out.push_back(static_cast<char>(kZSetKind));
  index.EncodeFields(&out);
  EncodeFields(&out);
  return out;
}

Result<ZSetRoot> ZSetRoot::Decode(std::string_view bytes) {
  ZSetRoot r;
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kPagedMarker ||
      static_cast<uint8_t>(bytes[1]) != kZSetKind) {
    return Status::Corruption("sorted set root: bad header");
  }
  std::string_view in = bytes.substr(2);
  if (!HashedRoot::DecodeFields(&in, &r.index) || !TreeRoot::DecodeFields(&in, &r) ||
      !in.empty() || (r.tree == 0) != (r.index.count == 0)) {
    return Status::Corruption("sorted set root: bad fields");
  }
  return r;
}

Result<uint64_t> PagedRootCount(std::string_view bytes) {
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[1]) == kZSetKind) {
    SLOTKV_ASSIGN_OR_RETURN(ZSetRoot root, ZSetRoot::Decode(bytes));
    return root.index.count;
  }
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[1]) == kListKind) {
    SLOTKV_ASSIGN_OR_RETURN(ListRoot root, ListRoot::Decode(bytes));
    return root.count;
  }
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[1]) == kStreamKind) {
    SLOTKV_ASSIGN_OR_RETURN(StreamRoot root, StreamRoot::Decode(bytes));
    return root.count;
  }
  SLOTKV_ASSIGN_OR_RETURN(HashedRoot root, HashedRoot::Decode(bytes));
  return root.count;
}

std::string ZSetPages::EncodeScore(double score) {
  std::string out;
  PutFixed64(&out, std::bit_cast<uint64_t>(score));
  return out;
}

Result<double> ZSetPages::DecodeScore(std::string_view bytes) {
  uint64_t bits = 0;
  if (bytes.size() != 8 || !GetFixed64(&bytes, &bits)) {
    return Status::Corruption("sorted set index: bad score");
  }
  const double score = std::bit_cast<double>(bits);
  if (std::isnan(score)) return Status::Corruption("sorted set index: NaN score");
  return score;
}

ZSetPages::ZSetPages(ZSetRoot root, PageIo* io, uint32_t page_members)
    : index_(root.index, io, page_members), tree_(root, io, root.index.id, page_members) {}

ZSetPages ZSetPages::Create(PageIo* io, uint32_t page_members) {
  ZSetRoot root;
  root.index = MemberPages::Create(io, page_members).root();
  return ZSetPages(root, io, page_members);
}

ZSetRoot ZSetPages::root() const {
  ZSetRoot r;
  static_cast<TreeRoot&>(r) = tree_.root();
  r.index = index_.root();
  return r;
}

namespace {

Status NotInTree() {
  return Status::Corruption("sorted set: member in the index, not in the tree");
}

}  // namespace

Result<std::optional<double>> ZSetPages::Score(std::string_view member) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes, index_.Get(member));
  if (!bytes) return std::optional<double>();
  SLOTKV_ASSIGN_OR_RETURN(double score, DecodeScore(*bytes));
  return std::optional<double>(score);
}

Result<ZSetValue::Change> ZSetPages::Set(std::string_view member, double score) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> old, Score(member));
  if (old && *old == score) return ZSetValue::Change::kUnchanged;
  if (old) {
    SLOTKV_ASSIGN_OR_RETURN(bool erased, tree_.Erase({*old, member}));
    if (!erased) return NotInTree();
  }
  SLOTKV_RETURN_IF_ERROR(tree_.Insert(Entry{score, std::string(member)}));
  SLOTKV_RETURN_IF_ERROR(index_.Set(member, EncodeScore(score)).status());
  return old ? ZSetValue::Change::kUpdated : ZSetValue::Change::kAdded;
}

Result<bool> ZSetPages::Remove(std::string_view member) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> old, Score(member));
  if (!old) return false;
  SLOTKV_ASSIGN_OR_RETURN(bool erased, tree_.Erase({*old, member}));
  if (!erased) return NotInTree();
  SLOTKV_RETURN_IF_ERROR(index_.Delete(member).status());
  return true;
}

Result<std::optional<uint64_t>> ZSetPages::Rank(std::string_view member) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> score, Score(member));
  if (!score) return std::optional<uint64_t>();
  SLOTKV_ASSIGN_OR_RETURN(std::optional<uint64_t> rank, tree_.RankOf({*score, member}));
  if (!rank) return NotInTree();
  return rank;
}

Result<uint64_t> ZSetPages::CountBefore(const Pred& pred) { return tree_.CountBefore(pred); }

Status ZSetPages::Walk(uint64_t rank, bool reverse, const std::function<bool(const Entry&)>& fn) {
  return tree_.Walk(rank, reverse, fn);
}

Status ZSetPages::Finish() {
  SLOTKV_RETURN_IF_ERROR(tree_.CheckSize(index_.size()));
  SLOTKV_RETURN_IF_ERROR(index_.Finish());
  return tree_.Finish();
}

}  // namespace slotkv
