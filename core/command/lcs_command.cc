// String family: LCS, the longest common subsequence of two strings (its own file: the
// algorithm and its reply forms are most of it). The rest of the family is string_commands.cc.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/typed_read.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrLcsNotString = "ERR The specified keys must contain string values";
constexpr std::string_view kErrLcsLenAndIdx =
    "ERR If you want both the length and indexes, please just use IDX.";
constexpr std::string_view kErrLcsTooLong = "ERR String too long for LCS";
constexpr std::string_view kErrLcsOverLimit =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
constexpr std::string_view kErrLcsNoMemory =
    "ERR Insufficient memory, failed allocating transient memory for LCS";

// ---- LCS ----------------------------------------------------------------------------------

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

// Replies the longest common subsequence of a and b as Redis 7.0's lcsCommand does, with its
// dynamic-programming table (4 bytes per cell, refused past max_table_bytes) and its walk back
// from the end that emits matched ranges, last first.
void ReplyLcs(std::string_view a, std::string_view b, const LcsOptions& o, int64_t max_table_bytes,
              Reply& reply) {
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    reply.Error(kErrLcsTooLong);
    return;
  }
  const uint32_t alen = static_cast<uint32_t>(a.size());
  const uint32_t blen = static_cast<uint32_t>(b.size());
  const uint64_t cells = uint64_t{alen + 1} * (blen + 1);
  if (cells * sizeof(uint32_t) > static_cast<uint64_t>(max_table_bytes)) {
    reply.Error(kErrLcsOverLimit);
    return;
  }
  std::unique_ptr<uint32_t[]> table(new (std::nothrow) uint32_t[cells]);
  if (!table) {
    reply.Error(kErrLcsNoMemory);
    return;
  }
  // LCS(i, j): the LCS length of a[0..i) and b[0..j).
  auto lcs = [&](uint32_t i, uint32_t j) -> uint32_t& {
    return table[j + uint64_t{i} * (blen + 1)];
  };
  for (uint32_t i = 0; i <= alen; ++i) {
    for (uint32_t j = 0; j <= blen; ++j) {
      if (i == 0 || j == 0) {
        lcs(i, j) = 0;
      } else if (a[i - 1] == b[j - 1]) {
        lcs(i, j) = lcs(i - 1, j - 1) + 1;
      } else {
        lcs(i, j) = std::max(lcs(i - 1, j), lcs(i, j - 1));
      }
    }
  }
  const uint32_t total = lcs(alen, blen);
  if (o.len) {
    reply.Integer(total);
    return;
  }

  struct Range {
    uint32_t a_start, a_end, b_start, b_end;
  };
  std::string result(total, '\0');
  std::vector<Range> ranges;
  uint32_t idx = total;
  uint32_t a_start = alen, a_end = 0, b_start = 0, b_end = 0;  // a_start == alen: no range
  uint32_t i = alen, j = blen;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (a_start == alen) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;  // contiguous: extend the range backward
        --b_start;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      --idx;
      --i;
      --j;
    } else {
      if (lcs(i - 1, j) > lcs(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      if (a_start != alen) emit = true;
    }
    if (emit) {
      const uint32_t match_len = a_end - a_start + 1;
      if (o.min_match_len == 0 || match_len >= o.min_match_len) {
        ranges.push_back({a_start, a_end, b_start, b_end});
      }
      a_start = alen;
    }
  }
  if (!o.idx) {
    reply.Bulk(result);
    return;
  }
  reply.Map(2);
  reply.Bulk("matches");
  reply.Array(ranges.size());
  for (const Range& r : ranges) {
    reply.Array(o.with_match_len ? 3 : 2);
    reply.Array(2);
    reply.Integer(r.a_start);
    reply.Integer(r.a_end);
    reply.Array(2);
    reply.Integer(r.b_start);
    reply.Integer(r.b_end);
    if (o.with_match_len) reply.Integer(r.a_end - r.a_start + 1);
  }
  reply.Bulk("len");
  reply.Integer(total);
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]
// Order as Redis: both keys are read first (a missing key is an empty string; another type is
// an error before any option is looked at), then the options.
Task Lcs(AsyncContext& ctx) {
  std::array<std::optional<std::string>, 2> values;
  bool strings = true;
  Status failure;
  const std::vector<size_t> positions = {1, 2};
  co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
    WorkerStats& stats = StatsHere(ctx.server);
    for (size_t p : ps) {
      slot::KeyMeta meta;
      Result<std::optional<std::string>> r = store.Get(ctx.args[p], &meta);
      if (!r.ok()) {
        failure = r.status();
        return;
      }
      CountLookup(store, stats, ctx.args[p], r->has_value());
      if (r->has_value() && meta.type != ValueType::kString) strings = false;
      values[p - 1] = std::move(*r);
    }
  });
  if (Failed(failure, ctx.reply)) co_return;
  if (!strings) {
    ctx.reply.Error(kErrLcsNotString);
    co_return;
  }
  LcsOptions o;
  const std::vector<std::string>& a = ctx.args;
  for (size_t i = 3; i < a.size(); ++i) {
    if (Is(a[i], "IDX")) {
      o.idx = true;
    } else if (Is(a[i], "LEN")) {
      o.len = true;
    } else if (Is(a[i], "WITHMATCHLEN")) {
      o.with_match_len = true;
    } else if (Is(a[i], "MINMATCHLEN") && i + 1 < a.size()) {
      std::optional<int64_t> n = IntArg(a[i + 1], ctx.reply);
      if (!n) co_return;
      o.min_match_len = std::max<int64_t>(*n, 0);
      ++i;
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  if (o.len && o.idx) {
    ctx.reply.Error(kErrLcsLenAndIdx);
    co_return;
  }
  ReplyLcs(values[0] ? std::string_view(*values[0]) : std::string_view(),
           values[1] ? std::string_view(*values[1]) : std::string_view(), o,
           ctx.server.proto_max_bulk_len.load(std::memory_order_relaxed), ctx.reply);
}

}  // namespace

void RegisterLcsCommand(CommandTable& t) {
  // clang-format off
  t.Add({.name = "lcs", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 2, .step = 1,
         .run_async = Lcs, .group = "string", .summary = "Find longest common substring",
         .since = "7.0.0", .acl = "read string slow", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
