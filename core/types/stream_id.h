// StreamId: the ID of a stream entry (ms-seq, two unsigned 64-bit numbers), ordered by ms then
// seq, parsed and printed as Redis 7.0's t_stream.c does.
//
// Thread rule: plain data.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace slotkv {

struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;

  auto operator<=>(const StreamId&) const = default;
  bool zero() const { return ms == 0 && seq == 0; }
  static constexpr StreamId Max() {
    return {std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max()};
  }
  // "ms-seq".
  std::string ToString() const;
  // The next (previous) ID, as streamIncrID (streamDecrID): false, wrapping to 0-0 (the
  // maximum), when there is none.
  bool Incr();
  bool Decr();
};

// How ParseStreamId reads an argument (Redis's streamGenericParseIDOrReply).
struct StreamIdSyntax {
  uint64_t missing_seq = 0;  // the seq of an ID given as "ms" alone
  bool strict = false;       // "-" and "+" are refused
  bool seq_star = false;     // "ms-*" is taken (XADD): seq 0 and *seq_given false
};

// "-" (0-0), "+" (the maximum), "ms" or "ms-seq" with unsigned decimal parts as strtoull takes
// them; nullopt for anything else (Redis: "ERR Invalid stream ID specified as stream command
// argument"). *seq_given, when not null, tells whether the seq was given (false for "ms-*").
std::optional<StreamId> ParseStreamId(std::string_view arg, StreamIdSyntax syntax,
                                      bool* seq_given = nullptr);

}  // namespace slotkv
