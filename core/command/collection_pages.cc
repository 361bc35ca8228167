#include "core/command/collection_pages.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "core/base/coding.h"
#include "core/base/number.h"
#include "core/command/internal_keys.h"

namespace slotkv::command {

PageKey::PageKey(uint64_t id, uint64_t index) {
  bytes_[0] = kEscapeByte;
  bytes_[1] = 'p';
  EncodeBigEndian64(bytes_ + 2, id);
  EncodeBigEndian64(bytes_ + 10, index);
}

Result<std::optional<std::string>> ReadCollection(Store& store, WorkerStats& stats, Lookup lookup,
                                                  std::string_view key, ValueType type,
                                                  bool* wrong_type, int64_t* expire_at_ms) {
  *wrong_type = false;
  slot::KeyMeta meta;
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> raw, store.Get(key, &meta));
  if (lookup == Lookup::kRead) CountLookup(store, stats, key, raw.has_value());
  if (raw && meta.type != type) {
    *wrong_type = true;
    raw.reset();
  }
  *expire_at_ms = raw ? meta.expire_at_ms : 0;
  return raw;
}

Result<std::optional<std::string>> StorePageIo::GetPage(uint64_t id, uint64_t index) {
  return store_.GetInternal(PageKey(id, index));
}

Status StorePageIo::PutPage(uint64_t id, uint64_t index, std::string_view bytes, bool created,
                            std::unique_ptr<DecodedPage> decoded) {
  SLOTKV_RETURN_IF_ERROR(
      store_.PutInternal(PageKey(id, index), bytes, type_, group_, std::move(decoded)));
  if (created) ++delta_;
  return Status::OK();
}

Result<bool> StorePageIo::PutDecoded(uint64_t id, uint64_t index,
                                     std::unique_ptr<DecodedPage>* decoded) {
  return store_.PutDecodedInternal(PageKey(id, index), type_, group_, decoded);
}

std::unique_ptr<DecodedPage> StorePageIo::TakeDecoded(uint64_t id, uint64_t index) {
  return store_.TakeDecoded(PageKey(id, index));
}

void StorePageIo::KeepDecoded(uint64_t id, uint64_t index, std::unique_ptr<DecodedPage> page) {
  store_.KeepDecoded(PageKey(id, index), std::move(page));
}

Status StorePageIo::DeletePage(uint64_t id, uint64_t index) {
  SLOTKV_ASSIGN_OR_RETURN(bool removed, store_.DeleteInternal(PageKey(id, index)));
  if (removed) --delta_;
  return Status::OK();
}

namespace {

// The internal keys of a slot, the count key itself included (0 when none).
Result<uint64_t> ParseCount(const std::optional<std::string>& v) {
  if (!v) return uint64_t{0};
  std::optional<uint64_t> n = ParseUint64(*v);
  if (!n) return Status::Corruption("internal key count: not a number");
  return *n;
}

}  // namespace

Result<uint64_t> UserKeyCount(Keyspace& keyspace, uint32_t s, uint32_t db, slot::Slot& slot) {
  SLOTKV_ASSIGN_OR_RETURN(uint64_t all, slot.KeyCount());
  std::optional<uint64_t>& internal = keyspace.internal_keys(s, db);
  if (!internal) {
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> v, slot.Get(kInternalCountKey));
    SLOTKV_ASSIGN_OR_RETURN(internal, ParseCount(v));
  }
  return all >= *internal ? all - *internal : 0;
}

namespace {

// Adds delta to the count of the store's internal keys (other than the count key itself).
Status AddInternalKeys(Store& store, int64_t delta) {
  if (delta == 0) return Status::OK();
  std::optional<uint64_t>& cached = store.internal_keys();
  if (!cached) {
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> v, store.GetInternal(kInternalCountKey));
    SLOTKV_ASSIGN_OR_RETURN(cached, ParseCount(v));
  }
  const uint64_t n = *cached;
  cached.reset();  // known again once the write below succeeded
  // The count includes its own key: 0 internal keys = no count key.
  const int64_t others = (n == 0 ? 0 : static_cast<int64_t>(n) - 1) + delta;
  if (others <= 0) {
    SLOTKV_RETURN_IF_ERROR(store.DeleteInternal(kInternalCountKey).status());
    cached = 0;
    return Status::OK();
  }
  SLOTKV_RETURN_IF_ERROR(
      store.PutInternal(kInternalCountKey, FormatInt64(others + 1), ValueType::kString));
  cached = static_cast<uint64_t>(others + 1);
  return Status::OK();
}

}  // namespace

Status StorePageIo::Close() {
  const int64_t delta = delta_;
  delta_ = 0;
  return AddInternalKeys(store_, delta);
}

namespace {

// kReclaimKey's and kCopyKey's value: (id:fixed64 base:varint64 pages:varint64)*, oldest first.
Result<std::vector<PageRange>> ReadRanges(Store& store, std::string_view key) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> v, store.GetInternal(key));
  std::vector<PageRange> ranges;
  if (!v) return ranges;
  std::string_view in = *v;
  while (!in.empty()) {
    PageRange r;
    if (!GetFixed64(&in, &r.id) || !GetVarint64(&in, &r.base) || !GetVarint64(&in, &r.count)) {
      return Status::Corruption("page ranges of an internal key: truncated entry");
    }
    ranges.push_back(r);
  }
  return ranges;
}

// Writes ranges under key; existed: key was there before (it counts as an internal key).
Status WriteRanges(Store& store, std::string_view key, const std::vector<PageRange>& ranges,
                   bool existed) {
  if (ranges.empty()) {
    if (!existed) return Status::OK();
    SLOTKV_RETURN_IF_ERROR(store.DeleteInternal(key).status());
    return AddInternalKeys(store, -1);
  }
  if (!existed) SLOTKV_RETURN_IF_ERROR(AddInternalKeys(store, 1));
  std::string v;
  for (const PageRange& r : ranges) {
    PutFixed64(&v, r.id);
    PutVarint64(&v, r.base);
    PutVarint64(&v, r.count);
  }
  return store.PutInternal(key, v, ValueType::kString);
}

// Queues the ranges under kCopyKey whose copy no command is running (BeginCopy): looked at
// only when one may have been cut short (Store::cut_copies), not at every reclaim step.
Status QueueCutCopies(Store& store) {
  if (!store.cut_copies()) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> copies, ReadRanges(store, kCopyKey));
  const std::vector<uint64_t>& running = store.copies();
  std::vector<PageRange> kept;
  for (const PageRange& r : copies) {
    if (std::find(running.begin(), running.end(), r.id) != running.end()) {
      kept.push_back(r);
    } else {
      SLOTKV_RETURN_IF_ERROR(QueueReclaim(store, r.id, r.base, r.count));
    }
  }
  if (kept.size() != copies.size()) {
    SLOTKV_RETURN_IF_ERROR(WriteRanges(store, kCopyKey, kept, true));
  }
  store.set_cut_copies(false);  // after a failure, the next step looks again
  return Status::OK();
}

}  // namespace

Status QueueReclaim(Store& store, uint64_t id, uint64_t base, uint64_t pages) {
  if (pages == 0) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> queue, ReadRanges(store, kReclaimKey));
  const bool existed = !queue.empty();
  // A root may be handed over twice (a group map's version at its write, the bucket's at the
  // flush; again at replay after a crash): a range queued already keeps its place.
  for (PageRange& q : queue) {
    if (q.id != id || q.base != base) continue;
    if (q.count >= pages) return Status::OK();
    q.count = pages;
    return WriteRanges(store, kReclaimKey, queue, existed);
  }
  queue.push_back({id, base, pages});
  SLOTKV_RETURN_IF_ERROR(WriteRanges(store, kReclaimKey, queue, existed));
  store.NoteReclaim();
  return Status::OK();
}

Status BeginCopy(Store& store, uint64_t id, const std::vector<PageRange>& ranges) {
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> copies, ReadRanges(store, kCopyKey));
  const bool existed = !copies.empty();
  for (const PageRange& r : ranges) copies.push_back({id, r.base, r.count});
  SLOTKV_RETURN_IF_ERROR(WriteRanges(store, kCopyKey, copies, existed));
  store.copies().push_back(id);
  return Status::OK();
}

Status EndCopy(Store& store, uint64_t id) {
  std::erase(store.copies(), id);
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> copies, ReadRanges(store, kCopyKey));
  const bool existed = !copies.empty();
  std::erase_if(copies, [id](const PageRange& r) { return r.id == id; });
  return WriteRanges(store, kCopyKey, copies, existed);
}

void ForgetCopy(Store& store, uint64_t id) {
  std::erase(store.copies(), id);
  store.set_cut_copies(true);
  store.NoteReclaim();
}

bool MayHoldRoot(std::string_view stored_key) { return !IsInternalKey(stored_key); }

uint64_t PagedRootId(std::string_view stored) {
  if (!IsPagedRoot(stored) || stored.size() < 2) return 0;
  const auto kind = static_cast<uint8_t>(stored[1]);
  if (kind == kListKind) {
    Result<ListRoot> root = ListRoot::Decode(stored);
    return root.ok() ? root->id : 0;
  }
  if (kind == kZSetKind) {
    Result<ZSetRoot> root = ZSetRoot::Decode(stored);
    return root.ok() ? root->index.id : 0;
  }
  if (kind == kStreamKind) {
    Result<StreamRoot> root = StreamRoot::Decode(stored);
    return root.ok() ? root->id : 0;
  }
  Result<HashedRoot> root = HashedRoot::Decode(stored);
  return root.ok() ? root->id : 0;
}

Result<std::vector<PageRange>> PageRanges(std::string_view stored) {
  std::vector<PageRange> ranges;
  if (!IsPagedRoot(stored)) return ranges;
  if (stored.size() >= 2 && static_cast<uint8_t>(stored[1]) == kListKind) {
    SLOTKV_ASSIGN_OR_RETURN(ListRoot root, ListRoot::Decode(stored));
    ranges.push_back({root.id, kTreePageBit, root.nodes});
  } else if (stored.size() >= 2 && static_cast<uint8_t>(stored[1]) == kZSetKind) {
    SLOTKV_ASSIGN_OR_RETURN(ZSetRoot root, ZSetRoot::Decode(stored));
    ranges.push_back({root.index.id, 0, root.index.pages()});
    ranges.push_back({root.index.id, kTreePageBit, root.nodes});
  } else if (stored.size() >= 2 && static_cast<uint8_t>(stored[1]) == kStreamKind) {
    SLOTKV_ASSIGN_OR_RETURN(StreamRoot root, StreamRoot::Decode(stored));
    ranges.push_back({root.id, kTreePageBit, root.nodes});
    for (const auto& [name, g] : root.meta.groups) {  // their pending entries
      for (const bool owned : {false, true}) {
        const uint64_t nodes = owned ? g.consumer_tree.nodes : g.pel_tree.nodes;
        if (nodes > 0) ranges.push_back({root.id, StreamPages::PelBase(g.number, owned), nodes});
      }
    }
  } else {
    SLOTKV_ASSIGN_OR_RETURN(HashedRoot root, HashedRoot::Decode(stored));
    // An emptied hash or set deleted its last pages itself (MemberPages::Finish).
    if (root.count != 0) ranges.push_back({root.id, 0, root.pages()});
  }
  return ranges;
}

Result<std::string> WithCollectionId(std::string_view stored, uint64_t id) {
  if (stored.size() >= 2 && static_cast<uint8_t>(stored[1]) == kListKind) {
    SLOTKV_ASSIGN_OR_RETURN(ListRoot root, ListRoot::Decode(stored));
    root.id = id;
    return root.Encode();
  }
  if (stored.size() >= 2 && static_cast<uint8_t>(stored[1]) == kZSetKind) {
    SLOTKV_ASSIGN_OR_RETURN(ZSetRoot root, ZSetRoot::Decode(stored));
    root.index.id = id;
    return root.Encode();
  }
  if (stored.size() >= 2 && static_cast<uint8_t>(stored[1]) == kStreamKind) {
    SLOTKV_ASSIGN_OR_RETURN(StreamRoot root, StreamRoot::Decode(stored));
    root.id = id;
    return root.Encode();
  }
  SLOTKV_ASSIGN_OR_RETURN(HashedRoot root, HashedRoot::Decode(stored));
  root.id = id;
  return root.Encode();
}

Status ReadPages(Store& store, ValueType type, const PageRange& range, uint64_t* next,
                 PageBatch* batch) {
  StorePageIo io(store, type);
  const size_t limit = store.copy_batch_bytes();
  size_t bytes = 0;
  for (; *next < range.count && bytes < limit; ++*next) {
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> page,
                            io.GetPage(range.id, range.base + *next));
    if (!page) continue;
    bytes += page->size();
    batch->emplace_back(*next, std::move(*page));
  }
  return Status::OK();
}

Status WritePages(Store& store, ValueType type, std::string_view key, uint64_t id,
                  const PageRange& range, const PageBatch& batch) {
  StorePageIo io(store, type, key);
  for (const auto& [index, page] : batch) {
    SLOTKV_RETURN_IF_ERROR(
        io.PutPage(id, range.base + index, page, /*created=*/true, /*decoded=*/nullptr));
  }
  return io.Close();
}

Status DropPages(Store& store, std::string_view stored) {
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> ranges, PageRanges(stored));
  for (const PageRange& r : ranges) {
    SLOTKV_RETURN_IF_ERROR(QueueReclaim(store, r.id, r.base, r.count));
  }
  return Status::OK();
}

namespace {

// Calls fn(member, value) for each member of a one-value collection.
template <class Fn>
void ForEachMember(const HashValue& h, Fn&& fn) {
  h.ForEach(fn);
}
template <class Fn>
void ForEachMember(const SetValue& s, Fn&& fn) {
  for (const std::string& m : s.members()) fn(m, std::string_view());
}

// Writes a new paged collection (a fresh Pages) under key, filled by fill(pages).
template <class Pages, class Fill>
Status WriteNewPaged(Store& store, std::string_view key, ValueType type, int64_t expire_at_ms,
                     Fill&& fill) {
  StorePageIo io(store, type, key);
  Pages pages = Pages::Create(&io, store.page_members());
  SLOTKV_RETURN_IF_ERROR(fill(pages));
  SLOTKV_RETURN_IF_ERROR(pages.Finish());
  SLOTKV_RETURN_IF_ERROR(io.Close());
  return store.Put(key, pages.root().Encode(), type, expire_at_ms);
}

// Writes value as a new paged collection under key.
template <class V>
Status WritePaged(Store& store, std::string_view key, const V& value, ValueType type,
                  int64_t expire_at_ms) {
  return WriteNewPaged<MemberPages>(store, key, type, expire_at_ms, [&](MemberPages& pages) {
    Status st;
    ForEachMember(value, [&](std::string_view f, std::string_view v) {
      if (st.ok()) st = pages.Set(f, v).status();
    });
    return st;
  });
}
Status WritePaged(Store& store, std::string_view key, const ZSetValue& zset, ValueType type,
                  int64_t expire_at_ms) {
  return WriteNewPaged<ZSetPages>(store, key, type, expire_at_ms, [&](ZSetPages& pages) {
    for (const ZSetValue::Entry& e : zset) {
      SLOTKV_RETURN_IF_ERROR(pages.Set(e.member, e.score).status());
    }
    return Status::OK();
  });
}
Status WritePaged(Store& store, std::string_view key, const ListValue& list, ValueType type,
                  int64_t expire_at_ms) {
  return WriteNewPaged<ListPages>(store, key, type, expire_at_ms, [&](ListPages& pages) {
    for (size_t i = 0; i < list.size(); ++i) {
      SLOTKV_RETURN_IF_ERROR(pages.InsertAt(i, list.at(i)));
    }
    return Status::OK();
  });
}

Status WritePaged(Store& store, std::string_view key, const StreamValue& stream, ValueType type,
                  int64_t expire_at_ms) {
  return WriteNewPaged<StreamPages>(store, key, type, expire_at_ms, [&](StreamPages& pages) {
    SLOTKV_RETURN_IF_ERROR(pages.AdoptMeta(stream.meta));
    for (const auto& [id, fields] : stream.entries) {
      SLOTKV_RETURN_IF_ERROR(pages.Append(id, fields));
    }
    return Status::OK();
  });
}

}  // namespace

template <>
Result<StreamValue> LoadWhole(Store& store, ValueType type, std::string stored) {
  if (!IsPagedRoot(stored)) return StreamValue::Decode(std::move(stored));
  SLOTKV_ASSIGN_OR_RETURN(StreamRoot root, StreamRoot::Decode(stored));
  StorePageIo io(store, type);
  StreamValue out;
  StreamPages pages(std::move(root), &io, store.page_members());
  SLOTKV_ASSIGN_OR_RETURN(out.meta, pages.OneValueMeta());
  SLOTKV_RETURN_IF_ERROR(pages.Walk({}, false, [&](const StreamTreeEntry& e) {
    out.entries.emplace_hint(out.entries.end(), e.id, e.fields);
    return true;
  }));
  return out;
}

template <>
Result<ZSetValue> LoadWhole(Store& store, ValueType type, std::string stored) {
  if (!IsPagedRoot(stored)) return ZSetValue::Decode(std::move(stored));
  SLOTKV_ASSIGN_OR_RETURN(ZSetRoot root, ZSetRoot::Decode(stored));
  StorePageIo io(store, type);
  ZSetPages pages(root, &io, store.page_members());
  ZSetValue out;
  Status st;
  SLOTKV_RETURN_IF_ERROR(pages.ForEachPage(0, [&](uint64_t, const HashValue& page) {
                                  page.ForEach([&](std::string_view f, std::string_view v) {
                                    Result<double> score = ZSetPages::DecodeScore(v);
                                    if (!score.ok()) {
                                      st = score.status();
                                    } else {
                                      out.Set(f, *score);
                                    }
                                  });
                                  return st.ok();
                                })
                             .status());
  SLOTKV_RETURN_IF_ERROR(st);
  return out;
}

template <>
Result<ListValue> LoadWhole(Store& store, ValueType type, std::string stored) {
  if (!IsPagedRoot(stored)) return ListValue::Decode(std::move(stored));
  SLOTKV_ASSIGN_OR_RETURN(ListRoot root, ListRoot::Decode(stored));
  StorePageIo io(store, type);
  ListPages pages(root, &io, store.page_members());
  ListValue out;
  SLOTKV_RETURN_IF_ERROR(pages.Walk(0, false, [&](const std::string& v) {
    out.PushBack(v);
    return true;
  }));
  return out;
}

template <class V>
Result<V> LoadWhole(Store& store, ValueType type, std::string stored) {
  if (!IsPagedRoot(stored)) return V::Decode(std::move(stored));
  SLOTKV_ASSIGN_OR_RETURN(HashedRoot root, HashedRoot::Decode(stored));
  StorePageIo io(store, type);
  MemberPages pages(root, &io, store.page_members());
  V out;
  SLOTKV_RETURN_IF_ERROR(pages.ForEachPage(0, [&](uint64_t, const HashValue& page) {
                                  page.ForEach([&](std::string_view f, std::string_view v) {
                                    SmallSet(out, f, v);
                                  });
                                  return true;
                                })
                             .status());
  return out;
}

template <class V>
Status StoreCollection(Store& store, std::string_view key, const V& value, ValueType type,
                       int64_t expire_at_ms) {
  if (value.empty()) return store.Delete(key).status();
  uint64_t weight = value.size();
  if constexpr (requires { value.weight(); }) weight = value.weight();  // a stream's PEL counts
  if (weight > store.paged_threshold()) {
    return WritePaged(store, key, value, type, expire_at_ms);
  }
  return store.Put(key, value.Encode(), type, expire_at_ms);
}

template Result<HashValue> LoadWhole(Store&, ValueType, std::string);
template Result<SetValue> LoadWhole(Store&, ValueType, std::string);
template Status StoreCollection(Store&, std::string_view, const HashValue&, ValueType, int64_t);
template Status StoreCollection(Store&, std::string_view, const SetValue&, ValueType, int64_t);
template Status StoreCollection(Store&, std::string_view, const ZSetValue&, ValueType, int64_t);
template Status StoreCollection(Store&, std::string_view, const ListValue&, ValueType, int64_t);
template Status StoreCollection(Store&, std::string_view, const StreamValue&, ValueType, int64_t);

Status PutWhole(Store& store, std::string_view key, std::string_view value, ValueType type,
                int64_t expire_at_ms) {
  // A value that does not decode moves as it is (its readers report the corruption).
  if (type == ValueType::kHash) {
    Result<HashValue> h = HashValue::Decode(value);
    if (h.ok()) return StoreCollection(store, key, *h, type, expire_at_ms);
  } else if (type == ValueType::kSet) {
    Result<SetValue> set = SetValue::Decode(value);
    if (set.ok()) return StoreCollection(store, key, *set, type, expire_at_ms);
  } else if (type == ValueType::kZSet) {
    Result<ZSetValue> z = ZSetValue::Decode(value);
    if (z.ok()) return StoreCollection(store, key, *z, type, expire_at_ms);
  } else if (type == ValueType::kList) {
    Result<ListValue> l = ListValue::Decode(value);
    if (l.ok()) return StoreCollection(store, key, *l, type, expire_at_ms);
  } else if (type == ValueType::kStream) {
    Result<StreamValue> st = StreamValue::Decode(value);
    if (st.ok()) return StoreCollection(store, key, *st, type, expire_at_ms);
  }
  return store.Put(key, value, type, expire_at_ms);
}

Result<bool> ReclaimStep(Store& store, uint64_t max_pages, int64_t deadline_us,
                         NoWaitReclaim* no_wait) {
  constexpr uint64_t kBatch = 16;
  SLOTKV_RETURN_IF_ERROR(QueueCutCopies(store));
  SLOTKV_ASSIGN_OR_RETURN(std::vector<PageRange> queue, ReadRanges(store, kReclaimKey));
  if (queue.empty()) return false;
  StorePageIo io(store, ValueType::kString);
  uint64_t budget = max_pages;
  while (!queue.empty() && budget > 0) {
    PageRange& q = queue.front();
    const uint64_t before = q.count;
    Status st;
    {
      // Only the deletes: the queue's own reads and writes around them may wait.
      std::optional<NoWaitReads> scope;
      if (no_wait != nullptr) scope.emplace();
      st = ReclaimPages(&io, q.id, q.base, &q.count, std::min(budget, kBatch));
      // The page whose delete met the disk is still counted in q: the next step deletes it.
      if (scope && st.IsBusy() && !scope->blocked().empty()) {
        no_wait->blocked = scope->Take();
        st = Status::OK();
      }
    }
    SLOTKV_RETURN_IF_ERROR(st);
    budget -= before - q.count;
    if (no_wait != nullptr) no_wait->deleted += before - q.count;
    if (q.count == 0) queue.erase(queue.begin());
    if ((no_wait != nullptr && !no_wait->blocked.empty()) || store.MonotonicUs() >= deadline_us) {
      break;
    }
  }
  SLOTKV_RETURN_IF_ERROR(WriteRanges(store, kReclaimKey, queue, true));
  SLOTKV_RETURN_IF_ERROR(io.Close());
  return !queue.empty();
}

}  // namespace slotkv::command
