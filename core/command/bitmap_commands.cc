// Bitmap family: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO over string values
// (type kString; another type gives WRONGTYPE). The bit work itself is in bitops.h; this file
// parses arguments in Redis 7.0's order (which decides which error a bad request gets), reads
// and writes the keys, and replies.
//
// Writes keep the key's TTL, except BITOP, whose destination is replaced like SET's.
#include <algorithm>

#include "core/command/args.h"
#include "core/command/bitops.h"
#include "core/command/command_table.h"
#include "core/command/typed_read.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

// Largest byte a bit offset may reach: below proto-max-bulk-len as Redis, and never past the
// 512 MB slotkv stores in one value.
uint64_t MaxBitmapBytes(const ServerState& server) {
  const int64_t limit = server.proto_max_bulk_len.load(std::memory_order_relaxed);
  return std::min(static_cast<uint64_t>(std::max<int64_t>(limit, 0)), kMaxBitmapBytes);
}

// Reads key as a string. False after replying an error (storage failure or WRONGTYPE);
// *value is nullopt when the key does not exist. A read for a write (for_write) does not
// count as a keyspace hit or miss, as Redis's lookupKeyWrite.
bool ReadString(CommandContext& ctx, std::string_view key, std::optional<std::string>* value,
                slot::KeyMeta* meta = nullptr, bool for_write = false) {
  slot::KeyMeta m;
  Result<std::optional<std::string>> r = ctx.store.Get(key, &m);
  if (Failed(r.status(), ctx.reply)) return false;
  if (r->has_value() && m.type != ValueType::kString) {
    ctx.reply.Error(kErrWrongType);
    return false;
  }
  if (!for_write) CountLookup(ctx.store, ctx.stats, key, r->has_value());
  *value = std::move(*r);
  if (meta) *meta = m;
  return true;
}

// "BIT" / "BYTE" (any case) into *unit; false after replying a syntax error.
bool ParseUnit(std::string_view arg, BitUnit* unit, Reply& reply) {
  if (Is(arg, "BIT")) {
    *unit = BitUnit::kBit;
  } else if (Is(arg, "BYTE")) {
    *unit = BitUnit::kByte;
  } else {
    reply.Error(kErrSyntax);
    return false;
  }
  return true;
}

// SETBIT key offset value: the bit's old value.
void SetBitCommand(CommandContext& ctx) {
  std::optional<uint64_t> offset = ParseBitOffset(ctx.args[2], MaxBitmapBytes(ctx.server));
  if (!offset) {
    ctx.reply.Error(kErrBitOffset);
    return;
  }
  std::optional<int64_t> on = ParseInt64(ctx.args[3]);
  if (!on || (*on & ~int64_t{1}) != 0) {
    ctx.reply.Error(kErrBitValue);
    return;
  }
  const std::string& key = ctx.args[1];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  if (!ReadString(ctx, key, &value, &meta, /*for_write=*/true)) return;
  const bool existed = value.has_value();
  std::string s = existed ? std::move(*value) : std::string();
  const size_t old_size = s.size();
  const bool old = SetBit(&s, *offset, *on == 1);
  // As Redis, nothing is written when the key exists and neither its length nor the bit
  // changes.
  if (!existed || s.size() != old_size || old != (*on == 1)) {
    if (Failed(ctx.store.Put(key, s, ValueType::kString, existed ? meta.expire_at_ms : 0),
               ctx.reply)) {
      return;
    }
  }
  ctx.reply.Integer(old ? 1 : 0);
}

// GETBIT key offset
void GetBitCommand(CommandContext& ctx) {
  std::optional<uint64_t> offset = ParseBitOffset(ctx.args[2], MaxBitmapBytes(ctx.server));
  if (!offset) {
    ctx.reply.Error(kErrBitOffset);
    return;
  }
  std::optional<std::string> value;
  if (!ReadString(ctx, ctx.args[1], &value)) return;
  ctx.reply.Integer(value && GetBit(*value, *offset) ? 1 : 0);
}

// BITCOUNT key [start end [BYTE | BIT]]. As Redis 7.0 the key is read first: a missing key
// counts 0 whatever the other arguments are.
void BitCountCommand(CommandContext& ctx) {
  const auto& a = ctx.args;
  std::optional<std::string> value;
  if (!ReadString(ctx, a[1], &value)) return;
  if (!value) {
    ctx.reply.Integer(0);
    return;
  }
  if (a.size() == 2) {
    ctx.reply.Integer(static_cast<int64_t>(CountBits(*value)));
    return;
  }
  if (a.size() > 5 || a.size() == 3) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  std::optional<int64_t> start = IntArg(a[2], ctx.reply);
  if (!start) return;
  std::optional<int64_t> end = IntArg(a[3], ctx.reply);
  if (!end) return;
  // Redis answers 0 for this empty range before it looks at the unit.
  if (*start < 0 && *end < 0 && *start > *end) {
    ctx.reply.Integer(0);
    return;
  }
  BitUnit unit = BitUnit::kByte;
  if (a.size() == 5 && !ParseUnit(a[4], &unit, ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(CountBits(*value, *start, *end, unit)));
}

// BITPOS key bit [start [end [BYTE | BIT]]]. A missing key is an endless run of zeros: 0 for a
// clear bit, -1 for a set one, whatever the range.
void BitPosCommand(CommandContext& ctx) {
  const auto& a = ctx.args;
  std::optional<int64_t> bit = IntArg(a[2], ctx.reply);
  if (!bit) return;
  if (*bit != 0 && *bit != 1) {
    ctx.reply.Error(kErrBitArg);
    return;
  }
  std::optional<std::string> value;
  if (!ReadString(ctx, a[1], &value)) return;
  if (!value) {
    ctx.reply.Integer(*bit == 1 ? -1 : 0);
    return;
  }
  if (a.size() == 3) {
    ctx.reply.Integer(FindBit(*value, *bit == 1));
    return;
  }
  if (a.size() > 6) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  std::optional<int64_t> start = IntArg(a[3], ctx.reply);
  if (!start) return;
  BitUnit unit = BitUnit::kByte;
  if (a.size() == 6 && !ParseUnit(a[5], &unit, ctx.reply)) return;
  std::optional<int64_t> end;
  if (a.size() >= 5) {
    end = IntArg(a[4], ctx.reply);
    if (!end) return;
  }
  ctx.reply.Integer(FindBit(*value, *bit == 1, *start, end, unit));
}

// Parses BITFIELD's subcommands (args[2..]) into *ops, all of them before anything runs, so a
// bad one leaves the key untouched. False after replying the first error.
bool ParseBitfield(const std::vector<std::string>& a, uint64_t max_bytes,
                   std::vector<BitfieldOp>* ops, Reply& reply) {
  BitfieldOverflow overflow = BitfieldOverflow::kWrap;
  for (size_t j = 2; j < a.size(); ++j) {
    const size_t rest = a.size() - j - 1;
    BitfieldOp op;
    if (Is(a[j], "GET") && rest >= 2) {
      op.kind = BitfieldOp::Kind::kGet;
    } else if (Is(a[j], "SET") && rest >= 3) {
      op.kind = BitfieldOp::Kind::kSet;
    } else if (Is(a[j], "INCRBY") && rest >= 3) {
      op.kind = BitfieldOp::Kind::kIncrBy;
    } else if (Is(a[j], "OVERFLOW") && rest >= 1) {
      ++j;
      if (Is(a[j], "WRAP")) {
        overflow = BitfieldOverflow::kWrap;
      } else if (Is(a[j], "SAT")) {
        overflow = BitfieldOverflow::kSat;
      } else if (Is(a[j], "FAIL")) {
        overflow = BitfieldOverflow::kFail;
      } else {
        reply.Error(kErrBitfieldOverflow);
        return false;
      }
      continue;
    } else {
      reply.Error(kErrSyntax);
      return false;
    }
    std::optional<BitfieldType> type = ParseBitfieldType(a[j + 1]);
    if (!type) {
      reply.Error(kErrBitfieldType);
      return false;
    }
    std::optional<uint64_t> offset = ParseBitOffset(a[j + 2], max_bytes, type->bits);
    if (!offset) {
      reply.Error(kErrBitOffset);
      return false;
    }
    op.type = *type;
    op.offset = *offset;
    op.overflow = overflow;
    if (op.kind != BitfieldOp::Kind::kGet) {
      std::optional<int64_t> v = IntArg(a[j + 3], reply);
      if (!v) return false;
      op.value = *v;
    }
    ops->push_back(op);
    j += op.kind == BitfieldOp::Kind::kGet ? 2 : 3;
  }
  return true;
}

void ReplyFields(const std::vector<std::optional<int64_t>>& fields, Reply& reply) {
  reply.Array(fields.size());
  for (const std::optional<int64_t>& f : fields) {
    if (f) {
      reply.Integer(*f);
    } else {
      reply.Null();
    }
  }
}

void Bitfield(CommandContext& ctx, bool read_only_command) {
  std::vector<BitfieldOp> ops;
  if (!ParseBitfield(ctx.args, MaxBitmapBytes(ctx.server), &ops, ctx.reply)) return;
  const std::string& key = ctx.args[1];
  std::optional<std::string> value;
  if (!BitfieldWrites(ops)) {
    if (!ReadString(ctx, key, &value)) return;
    std::string empty;
    ReplyFields(ApplyBitfield(value ? &*value : &empty, ops), ctx.reply);
    return;
  }
  if (read_only_command) {
    ctx.reply.Error(kErrBitfieldRo);
    return;
  }
  slot::KeyMeta meta;
  if (!ReadString(ctx, key, &value, &meta, /*for_write=*/true)) return;
  const bool existed = value.has_value();
  std::string s = existed ? std::move(*value) : std::string();
  // As Redis, the key is created or grown to cover every written field even when an op fails.
  std::vector<std::optional<int64_t>> fields = ApplyBitfield(&s, ops);
  if (Failed(ctx.store.Put(key, s, ValueType::kString, existed ? meta.expire_at_ms : 0),
             ctx.reply)) {
    return;
  }
  ReplyFields(fields, ctx.reply);
}

// BITFIELD key [GET type offset | [OVERFLOW WRAP|SAT|FAIL] SET type offset value |
//               [OVERFLOW ...] INCRBY type offset increment ...]
void BitfieldCommand(CommandContext& ctx) { Bitfield(ctx, false); }

// BITFIELD_RO key [GET type offset ...]
void BitfieldRoCommand(CommandContext& ctx) { Bitfield(ctx, true); }

// BITOP AND|OR|XOR|NOT destkey key [key ...]: the length of the result, stored in destkey
// (without TTL); an empty result deletes destkey. Sources are folded into one accumulator as
// their slots are visited, so at most one source and the result are held at a time.
Task BitOpCommand(AsyncContext& ctx) {
  const auto& a = ctx.args;
  BitOpKind op;
  if (Is(a[1], "AND")) {
    op = BitOpKind::kAnd;
  } else if (Is(a[1], "OR")) {
    op = BitOpKind::kOr;
  } else if (Is(a[1], "XOR")) {
    op = BitOpKind::kXor;
  } else if (Is(a[1], "NOT")) {
    op = BitOpKind::kNot;
  } else {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  if (op == BitOpKind::kNot && a.size() != 4) {
    ctx.reply.Error(kErrBitOpNot);
    co_return;
  }
  std::vector<size_t> sources;
  for (size_t i = 3; i < a.size(); ++i) sources.push_back(i);
  std::string acc;
  bool first = true;
  bool wrong_type = false;
  Status failure;
  co_await ForEachKeySlot(ctx, sources, [&](Store& store, const std::vector<size_t>& ps) {
    WorkerStats& stats = *(*ctx.server.stats)[static_cast<size_t>(ctx.server.executor->current())];
    for (size_t p : ps) {
      if (!failure.ok() || wrong_type) return;
      slot::KeyMeta meta;
      Result<std::optional<std::string>> r = store.Get(a[p], &meta);
      if (!r.ok()) {
        failure = r.status();
        return;
      }
      if (r->has_value() && meta.type != ValueType::kString) {
        wrong_type = true;
        return;
      }
      CountLookup(store, stats, a[p], r->has_value());
      std::string src = r->has_value() ? std::move(**r) : std::string();
      if (first) {
        acc = std::move(src);
        first = false;
      } else {
        BitOpFold(op, &acc, src);
      }
    }
  });
  if (Failed(failure, ctx.reply)) co_return;
  if (wrong_type) {
    ctx.reply.Error(kErrWrongType);
    co_return;
  }
  if (op == BitOpKind::kNot) BitNot(&acc);

  const std::string& dest = a[2];
  const uint32_t dest_slot = ctx.server.keyspace->SlotOfKey(dest);
  co_await ctx.ToSlot(dest_slot);
  Store store = ctx.StoreOf(dest_slot);
  Status st = acc.empty() ? store.Delete(dest).status()
                          : store.Put(dest, acc, ValueType::kString, 0);
  if (Failed(st, ctx.reply)) co_return;
  ctx.reply.Integer(static_cast<int64_t>(acc.size()));
}

}  // namespace

void RegisterBitmapCommands(CommandTable& t) {
  t.Add({.name = "setbit", .arity = 4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run = SetBitCommand, .group = "bitmap",
         .summary = "Sets or clears the bit at offset in the string value stored at key",
         .since = "2.2.0", .acl = "write bitmap slow", .key_specs = "RW access update"});
  t.Add({.name = "getbit", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = GetBitCommand, .group = "bitmap",
         .summary = "Returns the bit value at offset in the string value stored at key",
         .since = "2.2.0", .acl = "read bitmap fast", .key_specs = "RO access"});
  t.Add({.name = "bitcount", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = BitCountCommand, .group = "bitmap",
         .summary = "Count set bits in a string", .since = "2.6.0",
         .acl = "read bitmap slow", .key_specs = "RO access"});
  t.Add({.name = "bitpos", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = BitPosCommand, .group = "bitmap",
         .summary = "Find first bit set or clear in a string", .since = "2.8.7",
         .acl = "read bitmap slow", .key_specs = "RO access"});
  t.Add({.name = "bitop", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 2,
         .last_key = -1, .step = 1, .run_async = BitOpCommand, .group = "bitmap",
         .summary = "Perform bitwise operations between strings", .since = "2.6.0",
         .acl = "write bitmap slow", .key_specs = "OW update|RO access"});
  t.Add({.name = "bitfield", .arity = -2, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run = BitfieldCommand, .group = "bitmap",
         .summary = "Perform arbitrary bitfield integer operations on strings", .since = "3.2.0",
         .acl = "write bitmap slow", .key_specs = "RW access update variable_flags"});
  t.Add({.name = "bitfield_ro", .arity = -2, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = BitfieldRoCommand, .group = "bitmap",
         .summary = "Perform arbitrary bitfield integer operations on strings. Read-only variant "
                    "of BITFIELD",
         .since = "6.0.0", .acl = "read bitmap fast", .key_specs = "RO access"});
}

}  // namespace slotkv::command
