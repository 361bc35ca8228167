// What the stream command files (stream_commands.cc, stream_group_commands.cc,
// stream_read_commands.cc, stream_info_command.cc) share: one stream key whatever its
// representation (StreamAccess), the stream rules of Redis 7.0's t_stream.c that several
// commands apply (appending, trimming, the read counters of consumer groups), and the replies
// of entries.
//
// A stream whose entries and pending entries number up to paged-collection-threshold is one
// StreamValue (decoded and written whole); a larger one is paged (core/types/stream_pages.h):
// StreamAccess (a CollectionAccess) reaches its entries and its groups' pending entries in
// O(height) pages per entry, and its StreamMeta (IDs, counters, groups, consumers) is in the
// root. A stream becomes paged when a write takes it past the threshold and stays paged.
// Unlike the other collections a stream is not deleted when its last entry goes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/args.h"
#include "core/command/collection_access.h"
#include "core/command/collection_pages.h"
#include "core/command/task.h"
#include "core/command/typed_read.h"
#include "core/types/stream_pages.h"
#include "core/types/stream_value.h"

namespace slotkv::command {

// Redis's stream-node-max-entries default: approximate trimming (~) removes whole runs of this
// many entries, as Redis removes whole radix-tree nodes.
inline constexpr uint64_t kStreamNodeEntries = 100;

class StreamAccess : public CollectionAccess<StreamValue, StreamPages, StreamRoot> {
 public:
  explicit StreamAccess(Store& store) : CollectionAccess(store, ValueType::kStream) {}

  // Makes the missing key an empty stream (written by Write). REQUIRES: !exists().
  void Create();
  // The stream's state besides its entries; a caller that changes it calls MarkChanged.
  // REQUIRES: exists().
  StreamMeta& meta() { return paged_ ? paged_->meta() : small_->meta; }
  void MarkChanged() { changed_ = true; }
  int64_t NowMs() const { return store_.NowMs(); }

  // The entries themselves (the meta is the caller's: AddEntry, DeleteEntry, Trim keep it).
  Status Append(StreamId id, StreamFields fields);
  Result<bool> Erase(const StreamId& id);
  Result<StreamId> EraseFirst();
  Result<std::optional<StreamFields>> Get(const StreamId& id);
  using EntryFn = std::function<bool(const StreamId&, const StreamFields&)>;
  // Calls fn on the entries from the first with an ID >= from (reverse: the last <= from, going
  // down) until fn returns false or the entries end.
  Status Walk(const StreamId& from, bool reverse, const EntryFn& fn);
  // How many entries have an ID below id.
  Result<uint64_t> CountBelow(const StreamId& id);

  // Consumer groups, whatever the representation (a paged stream's PELs are in pages).
  // The group named name, or null.
  StreamGroup* FindGroup(const std::string& name);
  // A new group named name (null when there is one); the stream must exist.
  Result<StreamGroup*> CreateGroup(const std::string& name);
  // Removes group name; false when there is none. Its pages go to reclaim once Write wrote the
  // root that no longer names them.
  Result<bool> DestroyGroup(const std::string& name);
  // CollectionAccess::Write, then the pages of the groups destroyed are queued for reclaim.
  Status Write();
  // The pending entries of group g (one of meta().groups), and of consumer c of g.
  uint64_t PendingCount(const StreamGroup& g) const;
  uint64_t PendingCount(const StreamConsumer& c) const;
  // The pending entry id of g, or nullopt.
  Result<std::optional<StreamNack>> FindPending(StreamGroup& g, const StreamId& id);
  // Makes id pending for consumer (which exists) delivered at time, count times.
  Status SetPending(StreamGroup& g, const StreamId& id, const std::string& consumer,
                    int64_t time, uint64_t count);
  // Removes id from g's PEL; false when it was not pending.
  Result<bool> Ack(StreamGroup& g, const StreamId& id);
  // Removes consumer name and its pending entries: how many it had; nullopt when missing.
  Result<std::optional<uint64_t>> DeleteConsumer(StreamGroup& g, const std::string& name);
  using PendingFn = std::function<bool(const StreamId&, const StreamNack&)>;
  // Calls fn on g's pending entries from the first with an ID >= from (reverse: the last <=
  // from, going down) until fn returns false or they end; fn must not change the PEL.
  Status WalkPending(StreamGroup& g, const StreamId& from, bool reverse, const PendingFn& fn);
  // The same over consumer's own pending entries from `from` on, ascending.
  Status WalkOwned(StreamGroup& g, const std::string& consumer, const StreamId& from,
                   const PendingFn& fn);

 private:
  std::vector<PageRange> dropped_;  // the page ranges of the groups DestroyGroup removed
};

// ---- Redis's stream rules -------------------------------------------------------------------

// Appends entry id (above the last ID) and updates length, last ID, entries added and the
// recorded first ID, as streamAppendItem.
Status AddEntry(StreamAccess& s, const StreamId& id, StreamFields fields);
// Removes entry id as XDEL does (the maximal tombstone and the first ID follow); false when
// there was none.
Result<bool> DeleteEntry(StreamAccess& s, const StreamId& id);
// The first entry's ID after a change at the front (0-0 when empty), for the recorded first ID.
Status RefreshFirstId(StreamAccess& s);

struct TrimArgs {
  enum class Strategy { kNone, kMaxLen, kMinId } strategy = Strategy::kNone;
  uint64_t maxlen = 0;
  StreamId minid;
  bool approx = false;
  int64_t limit = 0;  // 0: none (exact trimming); with approx, at most this many entries
};
// Trims the oldest entries as streamTrim: MAXLEN keeps maxlen, MINID drops those below minid;
// approximately (~) only whole runs of kStreamNodeEntries, at most limit entries. Returns the
// count removed.
Result<uint64_t> Trim(StreamAccess& s, const TrimArgs& args);

// streamRangeHasTombstones: whether an XDEL'd ID may lie in [start, end] (end: the maximum
// when nullopt).
bool RangeHasTombstones(const StreamMeta& meta, uint64_t length, const StreamId& start,
                        const std::optional<StreamId>& end);
// streamEstimateDistanceFromFirstEverEntry: the read counter of id, or kUnknownRead.
int64_t EstimateRead(const StreamMeta& meta, uint64_t length, const StreamId& id);
// streamReplyWithCGLag's figure: the group's lag, or nullopt when it cannot be known.
std::optional<int64_t> GroupLag(const StreamMeta& meta, uint64_t length, const StreamGroup& g);
// Delivers entry id to a group reading with it (streamReplyWithRange with a group): the last
// delivered ID and the read counter move on.
void AdvanceGroup(const StreamMeta& meta, uint64_t length, StreamGroup& g, const StreamId& id);

// The containers XGROUP and XINFO: replies help to HELP, an error to an unknown subcommand, or
// runs fn as a one-key command on the owner of the subcommand row's key; ends home.
Task RunStreamContainer(AsyncContext& ctx, std::string_view name,
                        std::span<const std::string_view> help, void (*fn)(CommandContext&));
// Keyspace event `event` of the stream family about ctx.args[key_pos].
void NotifyStream(CommandContext& ctx, std::string_view event, size_t key_pos = 1);

// ---- replies --------------------------------------------------------------------------------

void ReplyStreamId(Reply& reply, const StreamId& id);
// [id, [field, value ...]].
void ReplyEntry(Reply& reply, const StreamId& id, const StreamFields& fields);

// Replies "ERR Invalid stream ID specified as stream command argument" unless arg parses.
std::optional<StreamId> ParseIdOrReply(std::string_view arg, StreamIdSyntax syntax, Reply& reply);
// A range bound of XRANGE / XPENDING / XAUTOCLAIM: "(" before an ID excludes it (strict form,
// then moved one ID in), else "-" "+" "ms" (missing_seq) "ms-seq". nullopt after replying.
std::optional<StreamId> ParseRangeStart(std::string_view arg, Reply& reply);
std::optional<StreamId> ParseRangeEnd(std::string_view arg, Reply& reply);

}  // namespace slotkv::command
