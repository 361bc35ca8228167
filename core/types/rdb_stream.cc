// Streams in Redis's RDB object format: RDB_TYPE_STREAM_LISTPACKS_2 (19), what Redis 7.0 writes;
// read also the 5.0 form (15) and 7.2's (21, consumers with an active time).
//
//   stream := nodes:len (master_id:string[16 bytes, big-endian ms seq] listpack:string)*
//             length:len last_ms:len last_seq:len
//             [first_ms first_seq max_deleted_ms max_deleted_seq entries_added:len]   19, 21
//             ngroups:len group*
//   group  := name:string last_ms:len last_seq:len [entries_read:len]               19, 21
//             npel:len (id:raw16 delivery_time:i64le delivery_count:len)*
//             nconsumers:len (name:string seen_time:i64le [active_time:i64le]     active: 21
//                             npel:len id:raw16*)*
//   node listpack := count deleted nfields field*nfields 0        (the master entry)
//                    (flags ms_diff seq_diff [nfields field value]*  |  value*  lp_count)*
// An entry whose fields are the master's (flag 2) lists its values only; flag 1 marks an entry
// deleted. Written: nodes of at most 100 entries or about 4 KB (Redis's stream-node-max-*).
// entries_read -1 (unknown) is written as the 64-bit length 2^64-1, as Redis writes it.
#include <cstring>
#include <limits>

#include "core/base/coding.h"
#include "core/base/number.h"
#include "core/base/rdb.h"
#include "core/types/listpack.h"
#include "core/types/rdb_value.h"

namespace slotkv::rdb {
namespace {

constexpr uint8_t kTypeStream = 15;
constexpr uint8_t kTypeStream2 = 19;
constexpr uint8_t kTypeStream3 = 21;
constexpr int64_t kFlagDeleted = 1;
constexpr int64_t kFlagSameFields = 2;
constexpr size_t kNodeEntries = 100;
constexpr size_t kNodeBytes = 4096;

std::string RawId(const StreamId& id) {
  std::string out(16, '\0');
  EncodeBigEndian64(out.data(), id.ms);
  EncodeBigEndian64(out.data() + 8, id.seq);
  return out;
}

uint64_t BigEndian64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | static_cast<uint8_t>(p[i]);
  return v;
}

bool GetRawId(std::string_view* in, StreamId* id) {
  if (in->size() < 16) return false;
  id->ms = BigEndian64(in->data());
  id->seq = BigEndian64(in->data() + 8);
  in->remove_prefix(16);
  return true;
}

void PutMs(std::string* out, int64_t ms) { PutFixed64(out, static_cast<uint64_t>(ms)); }

bool GetMs(std::string_view* in, int64_t* ms) {
  uint64_t v = 0;
  if (!GetFixed64(in, &v)) return false;
  *ms = static_cast<int64_t>(v);
  return true;
}

bool GetId(std::string_view* in, StreamId* id) {
  return GetRdbLength(in, &id->ms) && GetRdbLength(in, &id->seq);
}

void PutId(std::string* out, const StreamId& id) {
  PutRdbLength(out, id.ms);
  PutRdbLength(out, id.seq);
}

// One node's listpack for entries [begin, end).
using EntryIt = std::map<StreamId, StreamFields>::const_iterator;
std::string NodeListpack(EntryIt begin, EntryIt end) {
  const StreamId master = begin->first;
  const StreamFields& master_fields = begin->second;
  const size_t nfields = master_fields.size() / 2;
  ListpackWriter lp;
  lp.AddInteger(static_cast<int64_t>(std::distance(begin, end)));
  lp.AddInteger(0);
  lp.AddInteger(static_cast<int64_t>(nfields));
  for (size_t i = 0; i < master_fields.size(); i += 2) lp.Add(master_fields[i]);
  lp.AddInteger(0);
  for (EntryIt it = begin; it != end; ++it) {
    const StreamFields& f = it->second;
    bool same = f.size() == master_fields.size();
    for (size_t i = 0; same && i < f.size(); i += 2) same = f[i] == master_fields[i];
    lp.AddInteger(same ? kFlagSameFields : 0);
    lp.AddInteger(static_cast<int64_t>(it->first.ms - master.ms));
    lp.AddInteger(static_cast<int64_t>(it->first.seq - master.seq));
    if (!same) lp.AddInteger(static_cast<int64_t>(f.size() / 2));
    for (size_t i = 0; i < f.size(); i += 2) {
      if (!same) lp.Add(f[i]);
      lp.Add(f[i + 1]);
    }
    const auto pairs = static_cast<int64_t>(f.size() / 2);
    lp.AddInteger(same ? pairs + 3 : 2 * pairs + 4);
  }
  return lp.Finish();
}

std::optional<int64_t> Int(const std::vector<std::string>& e, size_t i) {
  if (i >= e.size()) return std::nullopt;
  return ParseInt64(e[i]);
}

// Adds the live entries of one node (master ID master) to out; false when it does not parse.
bool LoadNode(const StreamId& master, std::string_view blob, StreamValue* out) {
  std::optional<std::vector<std::string>> e = ListpackElements(blob);
  if (!e) return false;
  std::optional<int64_t> count = Int(*e, 0), deleted = Int(*e, 1), nfields = Int(*e, 2);
  if (!count || !deleted || !nfields || *count < 0 || *deleted < 0 || *nfields < 0 ||
      static_cast<uint64_t>(*nfields) > e->size()) {
    return false;
  }
  const auto nf = static_cast<size_t>(*nfields);
  size_t p = 3 + nf;
  if (Int(*e, p) != 0) return false;
  ++p;
  const uint64_t items = static_cast<uint64_t>(*count) + static_cast<uint64_t>(*deleted);
  for (uint64_t k = 0; k < items; ++k) {
    std::optional<int64_t> flags = Int(*e, p), msd = Int(*e, p + 1), seqd = Int(*e, p + 2);
    if (!flags || !msd || !seqd) return false;
    p += 3;
    StreamFields fields;
    if (*flags & kFlagSameFields) {
      if (p + nf > e->size()) return false;
      for (size_t i = 0; i < nf; ++i) {
        fields.push_back((*e)[3 + i]);
        fields.push_back((*e)[p + i]);
      }
      p += nf;
    } else {
      std::optional<int64_t> n = Int(*e, p);
      if (!n || *n < 0 || static_cast<uint64_t>(*n) > e->size()) return false;
      ++p;
      const auto pairs = static_cast<size_t>(*n);
      if (p + 2 * pairs > e->size()) return false;
      fields.assign(e->begin() + static_cast<std::ptrdiff_t>(p),
                    e->begin() + static_cast<std::ptrdiff_t>(p + 2 * pairs));
      p += 2 * pairs;
    }
    if (!Int(*e, p)) return false;  // lp_count
    ++p;
    if (*flags & kFlagDeleted) continue;
    if (fields.empty()) return false;
    const StreamId id{master.ms + static_cast<uint64_t>(*msd),
                      master.seq + static_cast<uint64_t>(*seqd)};
    if (!out->entries.empty() && id <= out->entries.rbegin()->first) return false;
    out->entries.emplace_hint(out->entries.end(), id, std::move(fields));
  }
  return p == e->size();
}

}  // namespace

std::string DumpStream(const StreamValue& stream) {
  std::string out(1, static_cast<char>(kTypeStream2));
  std::vector<std::pair<StreamId, std::string>> nodes;
  for (EntryIt it = stream.entries.begin(); it != stream.entries.end();) {
    EntryIt end = it;
    size_t bytes = 0, n = 0;
    while (end != stream.entries.end() && n < kNodeEntries && bytes <= kNodeBytes) {
      for (const std::string& f : end->second) bytes += f.size() + 2;
      ++end;
      ++n;
    }
    nodes.emplace_back(it->first, NodeListpack(it, end));
    it = end;
  }
  PutRdbLength(&out, nodes.size());
  for (const auto& [master, lp] : nodes) {
    PutRdbString(&out, RawId(master));
    PutRdbString(&out, lp);
  }
  const StreamMeta& m = stream.meta;
  PutRdbLength(&out, stream.entries.size());
  PutId(&out, m.last_id);
  PutId(&out, m.first_id);
  PutId(&out, m.max_deleted);
  PutRdbLength(&out, m.entries_added);
  PutRdbLength(&out, m.groups.size());
  for (const auto& [name, g] : m.groups) {
    PutRdbString(&out, name);
    PutId(&out, g.last_id);
    PutRdbLength(&out, static_cast<uint64_t>(g.entries_read));
    PutRdbLength(&out, g.pel.size());
    for (const auto& [id, nack] : g.pel) {
      out += RawId(id);
      PutMs(&out, nack.delivery_time);
      PutRdbLength(&out, nack.delivery_count);
    }
    PutRdbLength(&out, g.consumers.size());
    for (const auto& [cname, c] : g.consumers) {
      PutRdbString(&out, cname);
      PutMs(&out, c.seen_time);
      PutRdbLength(&out, c.pel.size());
      for (const StreamId& id : c.pel) out += RawId(id);
    }
  }
  return out;
}

bool IsStreamType(uint8_t type) {
  return type == kTypeStream || type == kTypeStream2 || type == kTypeStream3;
}

Status LoadStream(uint8_t type, std::string_view* in, StreamValue* out) {
  const Status bad = Status::InvalidArgument("bad RDB stream");
  uint64_t nodes = 0, length = 0, ngroups = 0;
  if (!GetRdbLength(in, &nodes)) return bad;
  for (uint64_t i = 0; i < nodes; ++i) {
    std::string key, lp;
    if (!GetRdbString(in, &key) || key.size() != 16 || !GetRdbString(in, &lp)) return bad;
    std::string_view k = key;
    StreamId master;
    GetRawId(&k, &master);
    if (!LoadNode(master, lp, out)) return bad;
  }
  StreamMeta& m = out->meta;
  if (!GetRdbLength(in, &length) || length != out->entries.size() || !GetId(in, &m.last_id)) {
    return bad;
  }
  if (type == kTypeStream) {
    m.first_id = out->entries.empty() ? StreamId{} : out->entries.begin()->first;
    m.entries_added = length;
  } else if (!GetId(in, &m.first_id) || !GetId(in, &m.max_deleted) ||
             !GetRdbLength(in, &m.entries_added)) {
    return bad;
  }
  if (!out->entries.empty() && out->entries.rbegin()->first > m.last_id) return bad;
  if (!GetRdbLength(in, &ngroups)) return bad;
  for (uint64_t i = 0; i < ngroups; ++i) {
    std::string name;
    StreamGroup g;
    uint64_t read = 0, npel = 0, nconsumers = 0;
    if (!GetRdbString(in, &name) || !GetId(in, &g.last_id)) return bad;
    if (type != kTypeStream) {
      if (!GetRdbLength(in, &read)) return bad;
      g.entries_read = static_cast<int64_t>(read);
      if (g.entries_read < 0) g.entries_read = StreamGroup::kUnknownRead;
    }
    if (!GetRdbLength(in, &npel)) return bad;
    std::map<StreamId, StreamNack> pel;
    for (uint64_t k = 0; k < npel; ++k) {
      StreamId id;
      StreamNack nack;
      if (!GetRawId(in, &id) || !GetMs(in, &nack.delivery_time) ||
          !GetRdbLength(in, &nack.delivery_count) || !pel.emplace(id, nack).second) {
        return bad;
      }
    }
    if (!GetRdbLength(in, &nconsumers)) return bad;
    for (uint64_t c = 0; c < nconsumers; ++c) {
      std::string cname;
      int64_t seen = 0, active = 0;
      uint64_t owned = 0;
      if (!GetRdbString(in, &cname) || !GetMs(in, &seen) ||
          (type == kTypeStream3 && !GetMs(in, &active)) || !GetRdbLength(in, &owned)) {
        return bad;
      }
      bool created = false;
      g.Consumer(cname, seen, &created);
      if (!created) return bad;
      for (uint64_t k = 0; k < owned; ++k) {
        StreamId id;
        if (!GetRawId(in, &id)) return bad;
        auto it = pel.find(id);
        if (it == pel.end() || !it->second.consumer.empty()) return bad;
        it->second.consumer = cname;
        g.SetPending(id, cname, it->second.delivery_time, it->second.delivery_count);
      }
    }
    // A pending entry no consumer owns cannot be kept (Redis refuses it too).
    for (const auto& [id, nack] : pel) {
      if (nack.consumer.empty()) return bad;
    }
    if (!m.groups.emplace(std::move(name), std::move(g)).second) return bad;
  }
  return Status::OK();
}

}  // namespace slotkv::rdb
