// Helpers for reading command arguments as Redis does: case-insensitive keywords, and numbers
// parsed strictly (core/base/number.h) with Redis's error replies.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/number.h"
#include "core/base/ascii.h"
#include "core/command/errors.h"
#include "core/command/reply.h"

namespace slotkv::command {

// The most bytes a reply of random picks with repetition (HRANDFIELD, SRANDMEMBER with a
// negative count) may take: Redis streams any size until the client's output limit closes it;
// slotkv builds a reply in memory first, so it refuses larger ones with kErrReplyTooBig.
inline constexpr uint64_t kMaxRandomReplyBytes = uint64_t{1} << 30;

// ASCII case-insensitive equality, for option keywords ("ex", "EX").
inline bool Is(std::string_view arg, std::string_view keyword) {
  return EqualsIgnoreCase(arg, keyword);
}

// The integer in arg, or nullopt after replying "value is not an integer or out of range".
inline std::optional<int64_t> IntArg(std::string_view arg, Reply& reply) {
  std::optional<int64_t> v = ParseInt64(arg);
  if (!v) reply.Error(kErrNotInteger);
  return v;
}

// A timeout in milliseconds (WAIT, CLIENT PAUSE), as Redis's getTimeoutFromObjectOrReply
// reads one: an integer, not negative. nullopt after replying the error.
inline std::optional<int64_t> MsTimeoutArg(std::string_view arg, Reply& reply) {
  std::optional<int64_t> ms = ParseInt64(arg);
  if (!ms) {
    reply.Error(kErrTimeoutNotInteger);
  } else if (*ms < 0) {
    reply.Error(kErrTimeoutNegative);
    return std::nullopt;
  }
  return ms;
}

// The options of HSCAN/SSCAN over one collection value, from args[first]: COUNT n (n >= 1,
// else a syntax error) and MATCH pattern. False after replying the error; *pattern is unset
// for no MATCH or a lone "*" (Redis skips matching then, so "*" also matches ""); *count_out
// (when given) is COUNT, 10 without it.
inline bool ParseCollectionScanOptions(const std::vector<std::string>& args, size_t first,
                                       Reply& reply, std::optional<std::string_view>* pattern,
                                       int64_t* count_out = nullptr) {
  if (count_out) *count_out = 10;
  for (size_t i = first; i < args.size(); i += 2) {
    const bool has_value = i + 1 < args.size();
    if (Is(args[i], "COUNT") && has_value) {
      std::optional<int64_t> count = IntArg(args[i + 1], reply);
      if (!count) return false;
      if (*count < 1) {
        reply.Error(kErrSyntax);
        return false;
      }
      if (count_out) *count_out = *count;
    } else if (Is(args[i], "MATCH") && has_value) {
      *pattern = args[i + 1];
      if (**pattern == "*") pattern->reset();
    } else {
      reply.Error(kErrSyntax);
      return false;
    }
  }
  return true;
}

// The count and flag of HRANDFIELD key count [WITHVALUES] / ZRANDMEMBER key count
// [WITHSCORES] (args[2], args[3]), checked in Redis's order: the count is an integer other than
// INT64_MIN, the only extra argument is `keyword`, and with it |count| fits twice in an int64
// (a reply of pairs). nullopt after replying the error. REQUIRES: args.size() >= 3.
struct RandomCount {
  int64_t count = 0;
  bool with = false;  // WITHVALUES / WITHSCORES given
};
inline std::optional<RandomCount> ParseRandomCount(const std::vector<std::string>& args,
                                                   std::string_view keyword, Reply& reply) {
  std::optional<int64_t> count = IntArg(args[2], reply);
  if (!count) return std::nullopt;
  if (*count == INT64_MIN) {
    reply.Error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return std::nullopt;
  }
  if (args.size() > 4 || (args.size() == 4 && !Is(args[3], keyword))) {
    reply.Error(kErrSyntax);
    return std::nullopt;
  }
  const bool with = args.size() == 4;
  if (with && (*count < -(INT64_MAX / 2) || *count > INT64_MAX / 2)) {
    reply.Error("ERR value is out of range");
    return std::nullopt;
  }
  return RandomCount{*count, with};
}

// Replies the error of a failed storage call; true when st was a failure.
inline bool Failed(const Status& st, Reply& reply) {
  if (st.ok()) return false;
  reply.Error(StatusError(st));
  return true;
}

}  // namespace slotkv::command
