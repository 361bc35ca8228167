#include "core/command/stream_access.h"

#include <algorithm>
#include <utility>

#include "core/command/command_table.h"
#include "core/command/notify.h"

namespace slotkv::command {

void StreamAccess::Create() {
  small_.emplace();
  changed_ = true;
}

Status StreamAccess::Append(StreamId id, StreamFields fields) {
  changed_ = true;
  if (paged_) return paged_->Append(id, std::move(fields));
  small_->entries.emplace_hint(small_->entries.end(), id, std::move(fields));
  return Status::OK();
}

Result<bool> StreamAccess::Erase(const StreamId& id) {
  if (paged_) {
    SLOTKV_ASSIGN_OR_RETURN(bool erased, paged_->Erase(id));
    changed_ = changed_ || erased;
    return erased;
  }
  const bool erased = small_->entries.erase(id) > 0;
  changed_ = changed_ || erased;
  return erased;
}

Result<StreamId> StreamAccess::EraseFirst() {
  changed_ = true;
  if (paged_) return paged_->EraseFirst();
  const StreamId id = small_->entries.begin()->first;
  small_->entries.erase(small_->entries.begin());
  return id;
}

Result<std::optional<StreamFields>> StreamAccess::Get(const StreamId& id) {
  if (paged_) return paged_->Get(id);
  std::optional<StreamFields> out;
  if (small_) {
    auto it = small_->entries.find(id);
    if (it != small_->entries.end()) out = it->second;
  }
  return out;
}

Status StreamAccess::Walk(const StreamId& from, bool reverse, const EntryFn& fn) {
  if (paged_) {
    return paged_->Walk(from, reverse,
                        [&](const StreamTreeEntry& e) { return fn(e.id, e.fields); });
  }
  if (!small_) return Status::OK();
  const auto& entries = small_->entries;
  if (!reverse) {
    for (auto it = entries.lower_bound(from); it != entries.end(); ++it) {
      if (!fn(it->first, it->second)) break;
    }
    return Status::OK();
  }
  for (auto it = std::make_reverse_iterator(entries.upper_bound(from)); it != entries.rend();
       ++it) {
    if (!fn(it->first, it->second)) break;
  }
  return Status::OK();
}

Result<uint64_t> StreamAccess::CountBelow(const StreamId& id) {
  if (paged_) return paged_->CountBelow(id);
  if (!small_) return uint64_t{0};
  return static_cast<uint64_t>(
      std::distance(small_->entries.begin(), small_->entries.lower_bound(id)));
}

// ---- consumer groups ----------------------------------------------------------------------------

StreamGroup* StreamAccess::FindGroup(const std::string& name) {
  if (!exists()) return nullptr;
  auto it = meta().groups.find(name);
  return it == meta().groups.end() ? nullptr : &it->second;
}

Result<StreamGroup*> StreamAccess::CreateGroup(const std::string& name) {
  auto [it, added] = meta().groups.try_emplace(name);
  if (!added) return nullptr;
  if (paged_) {
    Status st = paged_->NumberGroup(&it->second);
    if (!st.ok()) {
      meta().groups.erase(it);
      return st;
    }
  }
  changed_ = true;
  return &it->second;
}

Result<bool> StreamAccess::DestroyGroup(const std::string& name) {
  StreamGroup* g = FindGroup(name);
  if (g == nullptr) return false;
  if (paged_) {
    for (const auto& [base, pages] : paged_->DropGroup(*g)) {
      dropped_.push_back({paged_->collection_id(), base, pages});
    }
  }
  meta().groups.erase(name);
  changed_ = true;
  return true;
}

Status StreamAccess::Write() {
  SLOTKV_RETURN_IF_ERROR(CollectionAccess::Write());
  // Only once no root names them: a failed write leaves the pages to the group still there.
  for (const PageRange& r : dropped_) {
    SLOTKV_RETURN_IF_ERROR(QueueReclaim(store_, r.id, r.base, r.count));
  }
  dropped_.clear();
  return Status::OK();
}

uint64_t StreamAccess::PendingCount(const StreamGroup& g) const {
  return paged_ ? g.PagedCount() : g.pel.size();
}

uint64_t StreamAccess::PendingCount(const StreamConsumer& c) const {
  return paged_ ? c.paged_pending : c.pel.size();
}

Result<std::optional<StreamNack>> StreamAccess::FindPending(StreamGroup& g, const StreamId& id) {
  if (paged_) return paged_->FindPending(g, id);
  std::optional<StreamNack> out;
  auto it = g.pel.find(id);
  if (it != g.pel.end()) out = it->second;
  return out;
}

Status StreamAccess::SetPending(StreamGroup& g, const StreamId& id, const std::string& consumer,
                                int64_t time, uint64_t count) {
  changed_ = true;
  if (paged_) return paged_->SetPending(g, id, consumer, time, count);
  g.SetPending(id, consumer, time, count);
  return Status::OK();
}

Result<bool> StreamAccess::Ack(StreamGroup& g, const StreamId& id) {
  bool acked = false;
  if (paged_) {
    SLOTKV_ASSIGN_OR_RETURN(acked, paged_->Ack(g, id));
  } else {
    acked = g.Ack(id);
  }
  changed_ = changed_ || acked;
  return acked;
}

Result<std::optional<uint64_t>> StreamAccess::DeleteConsumer(StreamGroup& g,
                                                             const std::string& name) {
  std::optional<uint64_t> pending;
  if (!g.consumers.contains(name)) return pending;
  changed_ = true;
  if (paged_) {
    SLOTKV_ASSIGN_OR_RETURN(pending, paged_->DeleteConsumer(g, name));
  } else {
    pending = g.DeleteConsumer(name);
  }
  return pending;
}

Status StreamAccess::WalkPending(StreamGroup& g, const StreamId& from, bool reverse,
                                 const PendingFn& fn) {
  if (paged_) return paged_->WalkPending(g, from, reverse, fn);
  if (!reverse) {
    for (auto it = g.pel.lower_bound(from); it != g.pel.end(); ++it) {
      if (!fn(it->first, it->second)) break;
    }
    return Status::OK();
  }
  for (auto it = std::make_reverse_iterator(g.pel.upper_bound(from)); it != g.pel.rend(); ++it) {
    if (!fn(it->first, it->second)) break;
  }
  return Status::OK();
}

Status StreamAccess::WalkOwned(StreamGroup& g, const std::string& consumer, const StreamId& from,
                               const PendingFn& fn) {
  if (paged_) {
    // The lookups read the PEL tree while the walk reads the consumers' one.
    Status st;
    SLOTKV_RETURN_IF_ERROR(paged_->WalkOwned(g, consumer, from, [&](const StreamId& id) {
      Result<std::optional<StreamNack>> nack = paged_->FindPending(g, id);
      if (nack.ok() && !*nack) nack = Status::Corruption("stream: an owned entry is not pending");
      st = nack.status();
      return st.ok() && fn(id, **nack);
    }));
    return st;
  }
  auto c = g.consumers.find(consumer);
  if (c == g.consumers.end()) return Status::OK();
  for (auto it = c->second.pel.lower_bound(from); it != c->second.pel.end(); ++it) {
    if (!fn(*it, g.pel.at(*it))) break;
  }
  return Status::OK();
}

// ---- Redis's stream rules -------------------------------------------------------------------

Status AddEntry(StreamAccess& s, const StreamId& id, StreamFields fields) {
  SLOTKV_RETURN_IF_ERROR(s.Append(id, std::move(fields)));
  StreamMeta& m = s.meta();
  m.last_id = id;
  ++m.entries_added;
  if (s.size() == 1) m.first_id = id;
  return Status::OK();
}

Status RefreshFirstId(StreamAccess& s) {
  StreamId first;
  SLOTKV_RETURN_IF_ERROR(s.Walk({}, false, [&](const StreamId& id, const StreamFields&) {
    first = id;
    return false;
  }));
  s.meta().first_id = first;
  s.MarkChanged();
  return Status::OK();
}

Result<bool> DeleteEntry(StreamAccess& s, const StreamId& id) {
  SLOTKV_ASSIGN_OR_RETURN(bool erased, s.Erase(id));
  if (!erased) return false;
  StreamMeta& m = s.meta();
  if (id > m.max_deleted) m.max_deleted = id;
  if (id == m.first_id || s.size() == 0) SLOTKV_RETURN_IF_ERROR(RefreshFirstId(s));
  return true;
}

Result<uint64_t> Trim(StreamAccess& s, const TrimArgs& a) {
  uint64_t n = 0;
  if (a.strategy == TrimArgs::Strategy::kMaxLen) {
    n = s.size() > a.maxlen ? s.size() - a.maxlen : 0;
  } else if (a.strategy == TrimArgs::Strategy::kMinId) {
    SLOTKV_ASSIGN_OR_RETURN(n, s.CountBelow(a.minid));
  }
  if (a.approx) {
    // Redis's nodes: full runs of kStreamNodeEntries from the oldest entry, the newest run
    // partial; only whole ones go, and no more than limit entries.
    if (n < s.size()) n -= n % kStreamNodeEntries;
    const auto limit = static_cast<uint64_t>(a.limit);
    if (a.limit > 0 && n > limit) n = limit - limit % kStreamNodeEntries;
  }
  for (uint64_t i = 0; i < n; ++i) SLOTKV_RETURN_IF_ERROR(s.EraseFirst().status());
  if (n > 0) SLOTKV_RETURN_IF_ERROR(RefreshFirstId(s));
  return n;
}

bool RangeHasTombstones(const StreamMeta& m, uint64_t length, const StreamId& start,
                        const std::optional<StreamId>& end) {
  if (length == 0 || m.max_deleted.zero()) return false;
  if (m.first_id > m.max_deleted) return false;
  return start <= m.max_deleted && m.max_deleted <= end.value_or(StreamId::Max());
}

int64_t EstimateRead(const StreamMeta& m, uint64_t length, const StreamId& id) {
  const auto added = static_cast<int64_t>(m.entries_added);
  if (m.entries_added == 0) return 0;
  if (length == 0 && id <= m.last_id) return added;
  if (id == m.last_id) return added;
  if (id > m.last_id) return StreamGroup::kUnknownRead;
  if (m.max_deleted.zero() || m.max_deleted < m.first_id) {
    if (id < m.first_id) return added - static_cast<int64_t>(length);
    if (id == m.first_id) return added - static_cast<int64_t>(length) + 1;
  }
  return StreamGroup::kUnknownRead;
}

namespace {

// a - b wrapping as Redis's long long arithmetic does in practice (ENTRIESREAD is trusted as
// given, up to INT64_MAX), without the overflow being undefined here.
int64_t WrappingSub(uint64_t a, int64_t b) {
  return static_cast<int64_t>(a - static_cast<uint64_t>(b));
}

}  // namespace

std::optional<int64_t> GroupLag(const StreamMeta& m, uint64_t length, const StreamGroup& g) {
  if (m.entries_added == 0) return 0;
  if (g.entries_read != StreamGroup::kUnknownRead &&
      !RangeHasTombstones(m, length, g.last_id, std::nullopt)) {
    return WrappingSub(m.entries_added, g.entries_read);
  }
  const int64_t read = EstimateRead(m, length, g.last_id);
  if (read == StreamGroup::kUnknownRead) return std::nullopt;
  return WrappingSub(m.entries_added, read);
}

void AdvanceGroup(const StreamMeta& m, uint64_t length, StreamGroup& g, const StreamId& id) {
  if (id <= g.last_id) return;
  if (g.entries_read != StreamGroup::kUnknownRead &&
      !RangeHasTombstones(m, length, id, std::nullopt)) {
    g.entries_read = static_cast<int64_t>(static_cast<uint64_t>(g.entries_read) + 1);
  } else if (m.entries_added != 0) {
    g.entries_read = EstimateRead(m, length, id);
  }
  g.last_id = id;
}

Task RunStreamContainer(AsyncContext& ctx, std::string_view name,
                        std::span<const std::string_view> help, void (*fn)(CommandContext&)) {
  // Admission checked the subcommand's arity (CommandTable::Resolve).
  const CommandSpec& row = *ctx.server.table->Find(name);
  const CommandSpec& call = CommandTable::Resolve(row, ctx.args);
  if (&call == &row) {
    ctx.reply.Error(UnknownSubcommand(name, ctx.args[1]));
    co_return;
  }
  if (call.first_key == 0) {  // HELP
    ctx.reply.Help(help);
    co_return;
  }
  const uint32_t s = ctx.server.keyspace->SlotOfKey(ctx.args[2]);
  co_await ctx.ToSlot(s);
  {
    Store store = ctx.StoreOf(s);
    CommandContext sub{ctx.args, ctx.reply, store, ctx.server, StatsHere(ctx.server)};
    fn(sub);
  }
  co_await ctx.ToHome();
}

void NotifyStream(CommandContext& ctx, std::string_view event, size_t key_pos) {
  Notify(ctx.server, conf::kNotifyStream, event, ctx.args[key_pos], ctx.store.db());
}

// ---- replies --------------------------------------------------------------------------------

void ReplyStreamId(Reply& reply, const StreamId& id) { reply.Bulk(id.ToString()); }

void ReplyEntry(Reply& reply, const StreamId& id, const StreamFields& fields) {
  reply.Array(2);
  ReplyStreamId(reply, id);
  reply.Array(fields.size());
  for (const std::string& f : fields) reply.Bulk(f);
}

std::optional<StreamId> ParseIdOrReply(std::string_view arg, StreamIdSyntax syntax,
                                       Reply& reply) {
  std::optional<StreamId> id = ParseStreamId(arg, syntax);
  if (!id) reply.Error("ERR Invalid stream ID specified as stream command argument");
  return id;
}

std::optional<StreamId> ParseRangeStart(std::string_view arg, Reply& reply) {
  const bool exclude = arg.size() > 1 && arg[0] == '(';
  std::optional<StreamId> id =
      ParseIdOrReply(exclude ? arg.substr(1) : arg, {.missing_seq = 0, .strict = exclude}, reply);
  if (id && exclude && !id->Incr()) {
    reply.Error("ERR invalid start ID for the interval");
    return std::nullopt;
  }
  return id;
}

std::optional<StreamId> ParseRangeEnd(std::string_view arg, Reply& reply) {
  const bool exclude = arg.size() > 1 && arg[0] == '(';
  std::optional<StreamId> id = ParseIdOrReply(
      exclude ? arg.substr(1) : arg, {.missing_seq = UINT64_MAX, .strict = exclude}, reply);
  if (id && exclude && !id->Decr()) {
    reply.Error("ERR invalid end ID for the interval");
    return std::nullopt;
  }
  return id;
}

}  // namespace slotkv::command
