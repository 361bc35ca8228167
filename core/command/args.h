// Helpers for reading command arguments as Redis does: case-insensitive keywords, and numbers
// parsed strictly (core/base/number.h) with Redis's error replies.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/base/number.h"
#include "core/command/errors.h"
#include "core/command/reply.h"

namespace slotkv::command {

// The most bytes a reply of random picks with repetition (HRANDFIELD, SRANDMEMBER with a
// negative count) may take: Redis streams any size until the client's output limit closes it;
// slotkv builds a reply in memory first, so it refuses larger ones with kErrReplyTooBig.
inline constexpr uint64_t kMaxRandomReplyBytes = uint64_t{1} << 30;

// ASCII case-insensitive equality, for option keywords ("ex", "EX").
inline bool Is(std::string_view arg, std::string_view keyword) {
  if (arg.size() != keyword.size()) return false;
  for (size_t i = 0; i < arg.size(); ++i) {
    char a = arg[i];
    char b = keyword[i];
    if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 'a' + 'A');
    if (b >= 'a' && b <= 'z') b = static_cast<char>(b - 'a' + 'A');
    if (a != b) return false;
  }
  return true;
}

// The integer in arg, or nullopt after replying "value is not an integer or out of range".
inline std::optional<int64_t> IntArg(std::string_view arg, Reply& reply) {
  std::optional<int64_t> v = ParseInt64(arg);
  if (!v) reply.Error(kErrNotInteger);
  return v;
}

// Replies the error of a failed storage call; true when st was a failure.
inline bool Failed(const Status& st, Reply& reply) {
  if (st.ok()) return false;
  reply.Error(StatusError(st));
  return true;
}

}  // namespace slotkv::command
