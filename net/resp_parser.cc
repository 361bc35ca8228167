#include "net/resp_parser.h"

#include <algorithm>

namespace slotkv::net {
namespace {

// Redis's string2ll (util.c): strict decimal, so "+1", "01", "-0", " 1" and "" are not numbers.
bool ParseLongLong(std::string_view s, int64_t* value) {
  if (s.empty() || s.size() >= 21) return false;
  if (s.size() == 1 && s[0] == '0') {
    *value = 0;
    return true;
  }
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative && ++i == s.size()) return false;
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > UINT64_MAX / 10 || v * 10 > UINT64_MAX - digit) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *value = static_cast<int64_t>(~v + 1);  // modular, so -2^63 works too
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *value = static_cast<int64_t>(v);
  }
  return true;
}

// isspace() in the C locale, which Redis runs in for this.
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// The byte "\<c>" stands for inside double quotes: \n \r \t \b \a, else c itself.
char Unescape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

// sdssplitargs (sds.c), step for step: appends the arguments of `line` to *out; false on
// unbalanced quotes. The C original reads a NUL-terminated string; a line here holds no NUL
// (FindLineEnd stops at one), so "past the end" reads as the terminator. Note what it implies:
// \v and \f are skipped between arguments but do not end one; quotes may open mid-argument
// (a"b c" is `ab c`); an escape at the end of a quoted argument leaves it unterminated.
bool SplitInlineArgs(std::string_view line, std::vector<std::string>* out) {
  const size_t n = line.size();
  auto at = [&](size_t i) { return i < n ? line[i] : '\0'; };
  size_t i = 0;
  while (true) {
    while (i < n && IsBlank(line[i])) ++i;
    if (i == n) return true;
    std::string& arg = out->emplace_back();
    bool in_double = false;
    bool in_single = false;
    bool done = false;
    while (!done) {
      const char c = at(i);
      if (in_double) {
        if (c == '\\' && at(i + 1) == 'x' && IsHexDigit(at(i + 2)) && IsHexDigit(at(i + 3))) {
          arg.push_back(static_cast<char>(HexValue(at(i + 2)) * 16 + HexValue(at(i + 3))));
          i += 3;
        } else if (c == '\\' && at(i + 1) != '\0') {
          ++i;
          arg.push_back(Unescape(line[i]));
        } else if (c == '"') {
          if (at(i + 1) != '\0' && !IsBlank(at(i + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          arg.push_back(c);
        }
      } else if (in_single) {
        if (c == '\\' && at(i + 1) == '\'') {
          ++i;
          arg.push_back('\'');
        } else if (c == '\'') {
          if (at(i + 1) != '\0' && !IsBlank(at(i + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          arg.push_back(c);
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_double = true;
            break;
          case '\'':
            in_single = true;
            break;
          default:
            arg.push_back(c);
            break;
        }
      }
      if (i < n) ++i;
    }
  }
}

}  // namespace

std::string ExpectedDollarError(char got) {
  // addReplyErrorFormat maps CR and LF to spaces so the reply stays one line.
  if (got == '\r' || got == '\n') got = ' ';
  std::string text = "ERR Protocol error: expected '$', got '";
  text.push_back(got);
  text.push_back('\'');
  return text;
}

RespParser::RespParser(RespLimits limits) : limits_(limits) {}

void RespParser::Reset() {
  stage_ = Stage::kRequestStart;
  error_.clear();
  pending_.clear();
  finished_bytes_ = 0;
  bulks_left_ = 0;
  bulk_left_ = 0;
  tail_left_ = 0;
  scanned_ = 0;
}

bool RespParser::OverQueryLimit(size_t buffered) const {
  uint64_t held = finished_bytes_;
  if (stage_ == Stage::kBulkData) held += pending_.back().size();
  if (stage_ == Stage::kBulkTail) held += pending_.back().size() + 2 - tail_left_;
  return buffered + held > limits_.max_query_buffer;
}

RespParser::LineEnd RespParser::FindLineEnd(std::string_view rest, char terminator, size_t* index) {
  // The end may sit at index 0..max_inline_len (that many bytes before it); past that the line
  // is too long wherever it ends, which keeps the outcome independent of how input is split.
  const size_t window =
      limits_.max_inline_len < rest.size() ? limits_.max_inline_len + 1 : rest.size();
  size_t i = scanned_;
  while (i < window && rest[i] != terminator && rest[i] != '\0') ++i;
  if (i > scanned_) examined_ += i - scanned_;
  scanned_ = i;
  if (i < window && rest[i] == terminator) {
    *index = i;
    return LineEnd::kFound;
  }
  // Not in the window, or a NUL at i hides it for good (Redis's strchr stops at a NUL): Redis
  // fails once it holds more than max_inline_len bytes of the line.
  return rest.size() > limits_.max_inline_len ? LineEnd::kTooBig : LineEnd::kNeedMore;
}

bool RespParser::StartMultibulk(std::string_view line) {
  int64_t count = 0;
  if (!ParseLongLong(line.substr(1), &count) || count > limits_.max_multibulk_len) {
    error_ = kErrInvalidMultibulkLength;
    return false;
  }
  if (count > kUnauthMaxMultibulkLen && !authenticated_) {
    error_ = kErrUnauthMultibulkLength;
    return false;
  }
  if (count <= 0) {
    stage_ = Stage::kRequestStart;  // an empty request
    return true;
  }
  // Room for the declared count would let a 12-byte header reserve gigabytes; grow past 1024.
  pending_.reserve(static_cast<size_t>(std::min<int64_t>(count, 1024)));
  bulks_left_ = count;
  stage_ = Stage::kLenLine;
  return true;
}

bool RespParser::StartBulk(std::string_view line) {
  // An empty line means the CR came first, and that is the byte Redis reports.
  const char first = line.empty() ? '\r' : line[0];
  if (first != '$') {
    error_ = ExpectedDollarError(first);
    return false;
  }
  int64_t len = 0;
  if (!ParseLongLong(line.substr(1), &len) || len < 0 ||
      static_cast<uint64_t>(len) > limits_.max_bulk_len) {
    error_ = kErrInvalidBulkLength;
    return false;
  }
  if (len > kUnauthMaxBulkLen && !authenticated_) {
    error_ = kErrUnauthBulkLength;
    return false;
  }
  // Reserved once, so a bulk arriving in pieces is copied once.
  pending_.emplace_back().reserve(static_cast<size_t>(len));
  bulk_left_ = static_cast<uint64_t>(len);
  stage_ = Stage::kBulkData;
  return true;
}

RespParser::State RespParser::Fail(size_t pos, size_t* consumed) {
  stage_ = Stage::kError;
  std::vector<std::string>().swap(pending_);  // a partial bulk may be large
  finished_bytes_ = 0;
  *consumed = pos;
  return State::kError;
}

RespParser::State RespParser::Parse(std::string_view input, std::vector<std::string>* args,
                                    size_t* consumed) {
  *consumed = 0;
  size_t pos = 0;  // bytes of input used so far
  while (true) {
    const std::string_view rest = input.substr(pos);
    switch (stage_) {
      case Stage::kError:
        return State::kError;

      case Stage::kRequestStart:
        if (rest.empty()) {
          *consumed = pos;
          return State::kNeedMore;
        }
        stage_ = rest[0] == '*' ? Stage::kCountLine : Stage::kInlineLine;
        break;

      case Stage::kInlineLine: {
        size_t end = 0;
        const LineEnd found = FindLineEnd(rest, '\n', &end);
        if (found == LineEnd::kTooBig) {
          error_ = kErrTooBigInline;
          return Fail(pos, consumed);
        }
        if (found == LineEnd::kNeedMore) {
          *consumed = pos;
          return State::kNeedMore;
        }
        std::string_view line = rest.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!SplitInlineArgs(line, &pending_)) {
          error_ = kErrUnbalancedQuotes;
          return Fail(pos, consumed);
        }
        pos += end + 1;
        scanned_ = 0;
        stage_ = Stage::kRequestStart;
        if (pending_.empty()) break;  // a blank line is no request
        return Complete(pos, args, consumed);
      }

      case Stage::kCountLine:
      case Stage::kLenLine: {
        const bool count_line = stage_ == Stage::kCountLine;
        size_t end = 0;
        const LineEnd found = FindLineEnd(rest, '\r', &end);
        if (found == LineEnd::kTooBig) {
          error_ = count_line ? kErrTooBigMultibulkCount : kErrTooBigBulkCount;
          return Fail(pos, consumed);
        }
        // Redis waits for the byte after the CR, then skips it unexamined.
        if (found == LineEnd::kNeedMore || end + 2 > rest.size()) {
          *consumed = pos;
          return State::kNeedMore;
        }
        const std::string_view line = rest.substr(0, end);
        if (!(count_line ? StartMultibulk(line) : StartBulk(line))) return Fail(pos, consumed);
        pos += end + 2;
        scanned_ = 0;
        break;
      }

      case Stage::kBulkData: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(bulk_left_, rest.size()));
        pending_.back().append(rest.data(), take);
        examined_ += take;
        pos += take;
        bulk_left_ -= take;
        if (bulk_left_ > 0) {
          *consumed = pos;
          return State::kNeedMore;
        }
        tail_left_ = 2;
        stage_ = Stage::kBulkTail;
        break;
      }

      case Stage::kBulkTail: {
        // Redis skips these two bytes without looking: "$4\r\nPINGXY" is PING.
        const size_t skip = std::min<size_t>(tail_left_, rest.size());
        pos += skip;
        tail_left_ -= static_cast<uint8_t>(skip);
        if (tail_left_ > 0) {
          *consumed = pos;
          return State::kNeedMore;
        }
        finished_bytes_ += pending_.back().size() + kArgOverheadBytes;
        if (--bulks_left_ > 0) {
          stage_ = Stage::kLenLine;
          break;
        }
        stage_ = Stage::kRequestStart;
        return Complete(pos, args, consumed);
      }
    }
  }
}

RespParser::State RespParser::Complete(size_t pos, std::vector<std::string>* args,
                                       size_t* consumed) {
  // Swapping hands over the arguments without copying a bulk; the caller's old vector comes
  // back as pending_, so both vectors keep their capacity.
  args->swap(pending_);
  pending_.clear();
  finished_bytes_ = 0;
  *consumed = pos;
  return State::kCommand;
}

}  // namespace slotkv::net
