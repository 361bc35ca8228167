// StreamValue: the in-memory form of a Redis stream (a key of type ValueType::kStream) and its
// codec: the entries by ID, and the stream's state besides them (StreamMeta: the ID counters
// and the consumer groups with their pending entries and consumers).
//
// A stream whose entries and pending entries together number up to paged-collection-threshold
// is one encoded StreamValue; a larger one keeps its StreamMeta in its root and its entries and
// pending entries in pages (stream_pages.h). The meta's form differs: a one-value stream's
// groups hold their pending entries (StreamGroup::pel, StreamConsumer::pel), a paged one's hold
// counts and the roots of the trees that have them.
//
// Groups are ordered by name and consumers by name (bytes, as Redis's radix trees); a group's
// pending entries (PEL) by ID, each naming its consumer; a consumer's own PEL is the group's
// entries that name it (kept as a set of IDs for its reads and counts).
//
// Thread rule: plain data, used by one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/types/stream_id.h"
#include "core/types/tree_root.h"

namespace slotkv {

// An entry's field-value pairs, flat: field, value, field, value ...
using StreamFields = std::vector<std::string>;

// A pending entry: delivered to a consumer of the group, not acknowledged yet.
struct StreamNack {
  std::string consumer;
  int64_t delivery_time = 0;  // ms, wall clock
  uint64_t delivery_count = 0;
};

struct StreamConsumer {
  int64_t seen_time = 0;  // ms, wall clock: its last read or claim
  std::set<StreamId> pel;      // one-value stream: its pending entries
  uint64_t paged_pending = 0;  // paged stream: how many it has (they are in pages)
};

struct StreamGroup {
  // Redis's SCG_INVALID_ENTRIES_READ: the read counter is not known.
  static constexpr int64_t kUnknownRead = -1;

  StreamId last_id;  // last delivered
  int64_t entries_read = kUnknownRead;
  std::map<StreamId, StreamNack> pel;  // one-value stream
  std::map<std::string, StreamConsumer> consumers;
  // A paged stream's: pel and the consumers' pel stay empty; the PEL is two trees of pages
  // (by ID; by consumer, then ID) at page bases that number gives (StreamPages::PelBase), and
  // its size the sum of the consumers' paged_pending (PagedCount).
  uint64_t number = 0;
  TreeRoot pel_tree;
  TreeRoot consumer_tree;

  uint64_t PagedCount() const;

  // The consumer name, created with seen_time now when missing; *created tells which.
  StreamConsumer& Consumer(const std::string& name, int64_t now, bool* created = nullptr);

  // The one-value stream's PEL (a paged one's is StreamPages's).
  // Makes id pending for consumer (which must exist), delivered at time with count
  // deliveries: a new entry, or one moved over from another consumer.
  void SetPending(const StreamId& id, const std::string& consumer, int64_t time,
                  uint64_t count);
  // Removes id from the PEL (and its consumer's); false when it was not pending.
  bool Ack(const StreamId& id);
  // Removes consumer name and its pending entries; returns how many it had (0 when missing).
  uint64_t DeleteConsumer(const std::string& name);
};

struct StreamMeta {
  StreamId last_id;       // last generated
  StreamId first_id;      // recorded first entry (0-0 when empty)
  StreamId max_deleted;   // highest ID XDEL removed
  uint64_t entries_added = 0;
  uint64_t next_group = 0;  // paged: the number of the next group created
  std::map<std::string, StreamGroup> groups;

  // One-value form:
  //   meta := last first max_deleted entries_added:varint64 ngroups:varint64 group*
  //   id := ms:varint64 seq:varint64
  //   group := name:lp last_id entries_read+1:varint64 nconsumers:varint64
  //            (name:lp seen_time:varint64)* npel:varint64
  //            (id consumer:varint64 delivery_time:varint64 delivery_count:varint64)*
  //   (a PEL entry names its consumer by index; times are >= 0).
  // Paged form (in the root):
  //   meta := last first max_deleted entries_added:varint64 next_group:varint64
  //           ngroups:varint64 group*
  //   group := name:lp last_id entries_read+1:varint64 nconsumers:varint64
  //            (name:lp seen_time:varint64 pending:varint64)* number:varint64
  //            pel_tree consumer_tree
  //   (trees as TreeRoot::EncodeFields).
  void EncodeTo(std::string* out, bool paged = false) const;
  // false on anything EncodeTo could not have made.
  static bool DecodeFrom(std::string_view* in, StreamMeta* meta, bool paged = false);
  // The pending entries of every group (whichever form).
  uint64_t PendingCount() const;
};

class StreamValue {
 public:
  StreamMeta meta;
  std::map<StreamId, StreamFields> entries;

  // A stream is stored even when it has no entries (its IDs and groups remain).
  static constexpr bool kKeptEmpty = true;
  size_t size() const { return entries.size(); }
  bool empty() const { return false; }
  // What paged-collection-threshold is compared with: entries and pending entries.
  uint64_t weight() const { return entries.size() + meta.PendingCount(); }

  // value := version:u8(1) meta nentries:varint64 (id nfields:varint64 field:lp*)*
  std::string Encode() const;
  // Corruption (never a crash) on anything Encode could not have made.
  static Result<StreamValue> Decode(std::string_view encoded);
  // The entry count without decoding the entries (XLEN).
  static Result<uint64_t> DecodeSize(std::string_view encoded);
};

// Helpers of the codecs (the paged root and pages use them too).
void PutStreamId(std::string* out, const StreamId& id);
bool GetStreamId(std::string_view* in, StreamId* id);
void PutStreamFields(std::string* out, const StreamFields& fields);
bool GetStreamFields(std::string_view* in, StreamFields* fields);

}  // namespace slotkv
