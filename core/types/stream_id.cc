#include "core/types/stream_id.h"

#include <cerrno>
#include <cstdlib>

#include "core/base/number.h"

namespace slotkv {
namespace {

// Redis's string2ull: a strict int64 that is not negative, else what strtoull takes whole
// (leading blanks and a sign included, as C does).
std::optional<uint64_t> ParseULL(const std::string& s) {
  if (std::optional<int64_t> v = ParseInt64(s)) {
    if (*v < 0) return std::nullopt;
    return static_cast<uint64_t>(*v);
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno == EINVAL || errno == ERANGE || s.empty() || *end != '\0') return std::nullopt;
  return static_cast<uint64_t>(v);
}

}  // namespace

std::string StreamId::ToString() const { return std::to_string(ms) + "-" + std::to_string(seq); }

bool StreamId::Incr() {
  if (seq != std::numeric_limits<uint64_t>::max()) {
    ++seq;
    return true;
  }
  if (ms == std::numeric_limits<uint64_t>::max()) {
    *this = {};
    return false;
  }
  ++ms;
  seq = 0;
  return true;
}

bool StreamId::Decr() {
  if (seq != 0) {
    --seq;
    return true;
  }
  if (ms == 0) {
    *this = Max();
    return false;
  }
  --ms;
  seq = std::numeric_limits<uint64_t>::max();
  return true;
}

std::optional<StreamId> ParseStreamId(std::string_view arg, StreamIdSyntax syntax,
                                      bool* seq_given) {
  // Redis copies the argument into a 128-byte buffer: longer ones are invalid, and the C
  // string ends at the first NUL.
  if (arg.size() > 127) return std::nullopt;
  std::string buf(arg.substr(0, arg.find('\0')));
  if (syntax.strict && (buf == "-" || buf == "+")) return std::nullopt;
  if (seq_given != nullptr) *seq_given = true;
  if (buf == "-") return StreamId{};
  if (buf == "+") return StreamId::Max();
  const size_t dash = buf.find('-');
  std::optional<uint64_t> ms = ParseULL(buf.substr(0, dash));
  if (!ms) return std::nullopt;
  if (dash == std::string::npos) return StreamId{*ms, syntax.missing_seq};
  const std::string rest = buf.substr(dash + 1);
  if (syntax.seq_star && seq_given != nullptr && rest == "*") {
    *seq_given = false;
    return StreamId{*ms, 0};
  }
  std::optional<uint64_t> seq = ParseULL(rest);
  if (!seq) return std::nullopt;
  return StreamId{*ms, *seq};
}

}  // namespace slotkv
