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
  meta.EncodeTo(&out, /*paged=*/true);
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
      !TreeRoot::DecodeFields(&in, &r) || !StreamMeta::DecodeFrom(&in, &r.meta, true) ||
      !in.empty() || (r.tree == 0) != (r.count == 0) ||
      r.meta.next_group > StreamPages::kMaxGroups) {
    return Status::Corruption("stream root: bad fields");
  }
  for (const auto& [name, g] : r.meta.groups) {
    if (g.pel_tree.nodes >= StreamPages::kPelNodes ||
        g.consumer_tree.nodes >= StreamPages::kPelNodes) {
      return Status::Corruption("stream root: bad group trees");
    }
  }
  return r;
}

StreamPages::StreamPages(StreamRoot root, PageIo* io, uint32_t page_members)
    : io_(io),
      page_members_(page_members),
      id_(root.id),
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
  for (auto& [name, g] : r.meta.groups) {
    auto it = groups_.find(g.number);
    if (it == groups_.end()) continue;
    g.pel_tree = it->second.pel.root();
    g.consumer_tree = it->second.owned.root();
  }
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
  SLOTKV_ASSIGN_OR_RETURN(auto found, tree_.Find(id));
  std::optional<StreamFields> out;
  if (found) out = std::move(found->second.fields);
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

// ---- the PELs ---------------------------------------------------------------------------------

StreamPages::GroupTrees& StreamPages::Trees(const StreamGroup& g) {
  auto it = groups_.find(g.number);
  if (it == groups_.end()) {
    GroupTrees trees{
        CountedTree<StreamPelTraits>(g.pel_tree, io_, id_, page_members_,
                                     PelBase(g.number, false)),
        CountedTree<StreamOwnedTraits>(g.consumer_tree, io_, id_, page_members_,
                                       PelBase(g.number, true))};
    it = groups_.emplace(g.number, std::move(trees)).first;
  }
  return it->second;
}

Status StreamPages::NumberGroup(StreamGroup* g) {
  if (meta_.next_group >= kMaxGroups) {
    return Status::Corruption("stream: no consumer group numbers left");
  }
  g->number = meta_.next_group++;
  return Status::OK();
}

namespace {

StreamNack NackOf(const StreamPelEntry& e) {
  return {e.consumer, e.delivery_time, e.delivery_count};
}

Status LostOwned() {
  return Status::Corruption("stream: a pending entry is missing from its consumer's");
}

}  // namespace

Result<std::optional<StreamNack>> StreamPages::FindPending(StreamGroup& g, const StreamId& id) {
  SLOTKV_ASSIGN_OR_RETURN(auto found, Trees(g).pel.Find(id));
  std::optional<StreamNack> out;
  if (found) out = NackOf(found->second);
  return out;
}

Status StreamPages::SetPending(StreamGroup& g, const StreamId& id, const std::string& consumer,
                               int64_t time, uint64_t count) {
  auto to_it = g.consumers.find(consumer);
  if (to_it == g.consumers.end()) return Status::Corruption("stream: pending for no consumer");
  StreamConsumer& to = to_it->second;
  GroupTrees& t = Trees(g);
  SLOTKV_ASSIGN_OR_RETURN(auto found, t.pel.Find(id));
  if (!found) {
    SLOTKV_RETURN_IF_ERROR(t.pel.Insert({id, consumer, time, count}));
    SLOTKV_RETURN_IF_ERROR(t.owned.Insert({consumer, id}));
    ++to.paged_pending;
    return Status::OK();
  }
  const std::string old = std::move(found->second.consumer);
  SLOTKV_RETURN_IF_ERROR(t.pel.ReplaceAt(found->first, {id, consumer, time, count}));
  if (old == consumer) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(bool erased, t.owned.Erase({old, id}));
  if (!erased) return LostOwned();
  SLOTKV_RETURN_IF_ERROR(t.owned.Insert({consumer, id}));
  auto from = g.consumers.find(old);
  if (from != g.consumers.end() && from->second.paged_pending > 0) --from->second.paged_pending;
  ++to.paged_pending;
  return Status::OK();
}

Result<bool> StreamPages::Ack(StreamGroup& g, const StreamId& id) {
  GroupTrees& t = Trees(g);
  SLOTKV_ASSIGN_OR_RETURN(std::optional<uint64_t> rank, t.pel.RankOf(id));
  if (!rank) return false;
  SLOTKV_ASSIGN_OR_RETURN(StreamPelEntry e, t.pel.EraseAt(*rank));
  SLOTKV_ASSIGN_OR_RETURN(bool erased, t.owned.Erase({e.consumer, id}));
  if (!erased) return LostOwned();
  auto c = g.consumers.find(e.consumer);
  if (c != g.consumers.end() && c->second.paged_pending > 0) --c->second.paged_pending;
  return true;
}

Result<uint64_t> StreamPages::DeleteConsumer(StreamGroup& g, const std::string& name) {
  std::vector<StreamId> ids;
  SLOTKV_RETURN_IF_ERROR(WalkOwned(g, name, {}, [&](const StreamId& id) {
    ids.push_back(id);
    return true;
  }));
  GroupTrees& t = Trees(g);
  for (const StreamId& id : ids) {
    SLOTKV_ASSIGN_OR_RETURN(bool erased, t.pel.Erase(id));
    if (!erased) return LostOwned();
    SLOTKV_ASSIGN_OR_RETURN(erased, t.owned.Erase({name, id}));
    if (!erased) return LostOwned();
  }
  g.consumers.erase(name);
  return static_cast<uint64_t>(ids.size());
}

Status StreamPages::WalkPending(StreamGroup& g, const StreamId& from, bool reverse,
                                const PendingFn& fn) {
  GroupTrees& t = Trees(g);
  const auto visit = [&](const StreamPelEntry& e) { return fn(e.id, NackOf(e)); };
  if (!reverse) {
    SLOTKV_ASSIGN_OR_RETURN(uint64_t rank, t.pel.CountBefore([&](const StreamPelEntry& e) {
      return e.id >= from;
    }));
    return t.pel.Walk(rank, false, visit);
  }
  SLOTKV_ASSIGN_OR_RETURN(uint64_t above, t.pel.CountBefore([&](const StreamPelEntry& e) {
    return e.id > from;
  }));
  if (above == 0) return Status::OK();
  return t.pel.Walk(above - 1, true, visit);
}

Status StreamPages::WalkOwned(StreamGroup& g, const std::string& consumer, const StreamId& from,
                              const std::function<bool(const StreamId&)>& fn) {
  GroupTrees& t = Trees(g);
  SLOTKV_ASSIGN_OR_RETURN(uint64_t rank, t.owned.CountBefore([&](const StreamOwnedEntry& e) {
    return !StreamOwnedTraits::Before(e.consumer, e.id, consumer, from);
  }));
  return t.owned.Walk(rank, false, [&](const StreamOwnedEntry& e) {
    return e.consumer == consumer && fn(e.id);
  });
}

std::vector<std::pair<uint64_t, uint64_t>> StreamPages::DropGroup(StreamGroup& g) {
  TreeRoot pel = g.pel_tree, owned = g.consumer_tree;
  auto it = groups_.find(g.number);
  if (it != groups_.end()) {
    pel = it->second.pel.root();
    owned = it->second.owned.root();
    groups_.erase(it);
  }
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  if (pel.nodes > 0) ranges.emplace_back(PelBase(g.number, false), pel.nodes);
  if (owned.nodes > 0) ranges.emplace_back(PelBase(g.number, true), owned.nodes);
  return ranges;
}

Result<StreamMeta> StreamPages::OneValueMeta() {
  StreamMeta out = meta_;
  out.next_group = 0;
  for (auto& [name, group] : out.groups) {
    StreamGroup& g = group;  // named: clang does not capture structured bindings
    StreamGroup& paged = meta_.groups.at(name);
    SLOTKV_RETURN_IF_ERROR(WalkPending(paged, {}, false, [&](const StreamId& id,
                                                             const StreamNack& nack) {
      g.pel.emplace_hint(g.pel.end(), id, nack);
      g.consumers[nack.consumer].pel.insert(id);
      return true;
    }));
    g.number = 0;
    g.pel_tree = {};
    g.consumer_tree = {};
    for (auto& [cname, c] : g.consumers) c.paged_pending = 0;
  }
  return out;
}

Status StreamPages::AdoptMeta(const StreamMeta& one_value) {
  meta_ = one_value;
  for (auto& [name, g] : meta_.groups) {
    SLOTKV_RETURN_IF_ERROR(NumberGroup(&g));
    const std::map<StreamId, StreamNack> pel = std::move(g.pel);
    g.pel.clear();
    for (auto& [cname, c] : g.consumers) c.pel.clear();
    for (const auto& [id, nack] : pel) {
      SLOTKV_RETURN_IF_ERROR(
          SetPending(g, id, nack.consumer, nack.delivery_time, nack.delivery_count));
    }
  }
  return Status::OK();
}

Status StreamPages::Finish() {
  SLOTKV_RETURN_IF_ERROR(tree_.CheckSize(count_));
  for (auto& [name, g] : meta_.groups) {
    auto it = groups_.find(g.number);
    if (it == groups_.end()) continue;
    // (Damaged pages may name a consumer the root does not have: its count then disagrees.)
    const uint64_t count = g.PagedCount();
    SLOTKV_RETURN_IF_ERROR(it->second.pel.CheckSize(count));
    SLOTKV_RETURN_IF_ERROR(it->second.owned.CheckSize(count));
  }
  for (auto& [number, trees] : groups_) {
    SLOTKV_RETURN_IF_ERROR(trees.pel.Finish());
    SLOTKV_RETURN_IF_ERROR(trees.owned.Finish());
  }
  return tree_.Finish();
}

}  // namespace slotkv
