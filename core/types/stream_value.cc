#include "core/types/stream_value.h"

#include <utility>

#include "core/base/coding.h"

namespace slotkv {
namespace {

constexpr uint8_t kVersion = 1;

bool GetString(std::string_view* in, std::string* out) {
  std::string_view v;
  if (!GetLengthPrefixed(in, &v)) return false;
  out->assign(v);
  return true;
}

// One group, in the one-value form or (paged) the root's: the consumers with their pending
// counts, then the PEL's number and trees instead of its entries.
void PutGroup(std::string* out, const std::string& name, const StreamGroup& g, bool paged) {
  PutLengthPrefixed(out, name);
  PutStreamId(out, g.last_id);
  PutVarint64(out, static_cast<uint64_t>(g.entries_read) + 1);
  PutVarint64(out, g.consumers.size());
  std::map<std::string_view, uint64_t> index;
  for (const auto& [cname, c] : g.consumers) {
    index.emplace(cname, index.size());
    PutLengthPrefixed(out, cname);
    PutVarint64(out, static_cast<uint64_t>(c.seen_time));
    if (paged) PutVarint64(out, c.paged_pending);
  }
  if (paged) {
    PutVarint64(out, g.number);
    g.pel_tree.EncodeFields(out);
    g.consumer_tree.EncodeFields(out);
    return;
  }
  PutVarint64(out, g.pel.size());
  for (const auto& [id, nack] : g.pel) {
    PutStreamId(out, id);
    PutVarint64(out, index.at(nack.consumer));
    PutVarint64(out, static_cast<uint64_t>(nack.delivery_time));
    PutVarint64(out, nack.delivery_count);
  }
}

// PutGroup's reverse; next_group (paged form only) bounds the group's number.
bool GetGroup(std::string_view* in, std::string* name, StreamGroup* g,
              const uint64_t* next_group) {
  const bool paged = next_group != nullptr;
  uint64_t read_plus_one = 0, nconsumers = 0, npel = 0;
  if (!GetString(in, name) || !GetStreamId(in, &g->last_id) ||
      !GetVarint64(in, &read_plus_one) ||
      !GetVarint64(in, &nconsumers) || nconsumers > in->size()) {
    return false;
  }
  g->entries_read = static_cast<int64_t>(read_plus_one - 1);  // a counter past INT64_MAX wraps
  std::vector<std::map<std::string, StreamConsumer>::iterator> by_index;
  by_index.reserve(nconsumers);
  for (uint64_t i = 0; i < nconsumers; ++i) {
    std::string cname;
    uint64_t seen = 0;
    if (!GetString(in, &cname) || !GetVarint64(in, &seen) || seen > uint64_t{INT64_MAX}) {
      return false;
    }
    auto [it, added] = g->consumers.try_emplace(std::move(cname));
    if (!added) return false;
    it->second.seen_time = static_cast<int64_t>(seen);
    if (paged && !GetVarint64(in, &it->second.paged_pending)) return false;
    by_index.push_back(it);
  }
  if (paged) {
    const bool empty = g->PagedCount() == 0;
    return GetVarint64(in, &g->number) && g->number < *next_group &&
           TreeRoot::DecodeFields(in, &g->pel_tree) &&
           TreeRoot::DecodeFields(in, &g->consumer_tree) &&
           (g->pel_tree.tree == 0) == empty && (g->consumer_tree.tree == 0) == empty;
  }
  if (!GetVarint64(in, &npel) || npel > in->size()) return false;
  for (uint64_t i = 0; i < npel; ++i) {
    StreamId id;
    uint64_t consumer = 0, time = 0, count = 0;
    if (!GetStreamId(in, &id) || !GetVarint64(in, &consumer) || consumer >= by_index.size() ||
        !GetVarint64(in, &time) || time > uint64_t{INT64_MAX} || !GetVarint64(in, &count)) {
      return false;
    }
    auto it = by_index[consumer];
    StreamNack nack{it->first, static_cast<int64_t>(time), count};
    if (!g->pel.emplace(id, std::move(nack)).second) return false;
    it->second.pel.insert(id);
  }
  return true;
}

}  // namespace

void PutStreamId(std::string* out, const StreamId& id) {
  PutVarint64(out, id.ms);
  PutVarint64(out, id.seq);
}

bool GetStreamId(std::string_view* in, StreamId* id) {
  return GetVarint64(in, &id->ms) && GetVarint64(in, &id->seq);
}

void PutStreamFields(std::string* out, const StreamFields& fields) {
  PutVarint64(out, fields.size());
  for (const std::string& f : fields) PutLengthPrefixed(out, f);
}

bool GetStreamFields(std::string_view* in, StreamFields* fields) {
  uint64_t n = 0;
  if (!GetVarint64(in, &n) || n > in->size() || n % 2 != 0 || n == 0) return false;
  fields->clear();
  fields->reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view f;
    if (!GetLengthPrefixed(in, &f)) return false;
    fields->emplace_back(f);
  }
  return true;
}

uint64_t StreamGroup::PagedCount() const {
  uint64_t n = 0;
  for (const auto& [name, c] : consumers) n += c.paged_pending;
  return n;
}

StreamConsumer& StreamGroup::Consumer(const std::string& name, int64_t now, bool* created) {
  auto [it, added] = consumers.try_emplace(name);
  if (added) it->second.seen_time = now;
  if (created != nullptr) *created = added;
  return it->second;
}

void StreamGroup::SetPending(const StreamId& id, const std::string& consumer, int64_t time,
                             uint64_t count) {
  auto [it, added] = pel.try_emplace(id);
  if (!added && it->second.consumer != consumer) {
    auto old = consumers.find(it->second.consumer);
    if (old != consumers.end()) old->second.pel.erase(id);
  }
  it->second = StreamNack{consumer, time, count};
  consumers.at(consumer).pel.insert(id);
}

bool StreamGroup::Ack(const StreamId& id) {
  auto it = pel.find(id);
  if (it == pel.end()) return false;
  auto c = consumers.find(it->second.consumer);
  if (c != consumers.end()) c->second.pel.erase(id);
  pel.erase(it);
  return true;
}

uint64_t StreamGroup::DeleteConsumer(const std::string& name) {
  auto it = consumers.find(name);
  if (it == consumers.end()) return 0;
  const uint64_t pending = it->second.pel.size();
  for (const StreamId& id : it->second.pel) pel.erase(id);
  consumers.erase(it);
  return pending;
}

void StreamMeta::EncodeTo(std::string* out, bool paged) const {
  PutStreamId(out, last_id);
  PutStreamId(out, first_id);
  PutStreamId(out, max_deleted);
  PutVarint64(out, entries_added);
  if (paged) PutVarint64(out, next_group);
  PutVarint64(out, groups.size());
  for (const auto& [name, g] : groups) PutGroup(out, name, g, paged);
}

bool StreamMeta::DecodeFrom(std::string_view* in, StreamMeta* meta, bool paged) {
  uint64_t ngroups = 0;
  if (!GetStreamId(in, &meta->last_id) || !GetStreamId(in, &meta->first_id) ||
      !GetStreamId(in, &meta->max_deleted) || !GetVarint64(in, &meta->entries_added) ||
      (paged && !GetVarint64(in, &meta->next_group)) || !GetVarint64(in, &ngroups) ||
      ngroups > in->size()) {
    return false;
  }
  meta->groups.clear();
  std::string last_name;
  std::set<uint64_t> numbers;  // a paged root's groups own distinct page ranges
  for (uint64_t i = 0; i < ngroups; ++i) {
    std::string name;
    StreamGroup g;
    if (!GetGroup(in, &name, &g, paged ? &meta->next_group : nullptr) ||
        (paged && !numbers.insert(g.number).second)) {
      return false;
    }
    if (i > 0 && name <= last_name) return false;  // sorted, unique
    last_name = name;
    meta->groups.emplace(std::move(name), std::move(g));
  }
  return true;
}

uint64_t StreamMeta::PendingCount() const {
  uint64_t n = 0;
  for (const auto& [name, g] : groups) n += g.pel.size() + g.PagedCount();
  return n;
}

std::string StreamValue::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  meta.EncodeTo(&out);
  PutVarint64(&out, entries.size());
  for (const auto& [id, fields] : entries) {
    PutStreamId(&out, id);
    PutStreamFields(&out, fields);
  }
  return out;
}

namespace {

// The version, the meta and the entry count at the front of in (moved past them).
Status DecodeHeader(std::string_view* in, StreamMeta* meta, uint64_t* n) {
  if (in->empty() || static_cast<uint8_t>((*in)[0]) != kVersion) {
    return Status::Corruption("stream: bad version");
  }
  in->remove_prefix(1);
  if (!StreamMeta::DecodeFrom(in, meta) || !GetVarint64(in, n) || *n > in->size()) {
    return Status::Corruption("stream: bad header");
  }
  return Status::OK();
}

}  // namespace

Result<StreamValue> StreamValue::Decode(std::string_view in) {
  StreamValue v;
  uint64_t n = 0;
  SLOTKV_RETURN_IF_ERROR(DecodeHeader(&in, &v.meta, &n));
  for (uint64_t i = 0; i < n; ++i) {
    StreamId id;
    StreamFields fields;
    if (!GetStreamId(&in, &id) || !GetStreamFields(&in, &fields)) {
      return Status::Corruption("stream: bad entry");
    }
    if (!v.entries.empty() && id <= v.entries.rbegin()->first) {
      return Status::Corruption("stream: entries out of order");
    }
    if (id > v.meta.last_id) return Status::Corruption("stream: entry past the last ID");
    v.entries.emplace_hint(v.entries.end(), id, std::move(fields));
  }
  if (!in.empty()) return Status::Corruption("stream: trailing bytes");
  return v;
}

Result<uint64_t> StreamValue::DecodeSize(std::string_view in) {
  StreamMeta meta;
  uint64_t n = 0;
  SLOTKV_RETURN_IF_ERROR(DecodeHeader(&in, &meta, &n));
  return n;
}

}  // namespace slotkv
