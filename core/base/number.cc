#include "core/base/number.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace slotkv {
namespace {

// Redis's LONG_STR_SIZE: its integer parser rejects 21 bytes or more.
constexpr size_t kMaxIntegerChars = 20;

// isspace() in the "C" locale, which is what Redis checks the first byte with.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Parses the strict decimal grammar shared by both integer parsers: "0", or a nonzero digit
// then digits, into a magnitude. Fails on anything else or past UINT64_MAX.
std::optional<uint64_t> ParseMagnitude(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  if (digits == "0") return 0;
  if (digits[0] < '1' || digits[0] > '9') return std::nullopt;
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// Runs strtod or strtold on s with Redis's acceptance rules (see the header). `buf` must hold
// s.size() + 1 bytes; strto* needs a NUL-terminated copy.
template <typename T, typename Convert>
std::optional<T> ParseFloat(std::string_view s, char* buf, Convert convert) {
  if (s.empty() || IsSpace(s[0])) return std::nullopt;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  T value = convert(buf, &end);
  // An embedded NUL stops the conversion early, so it fails the whole-string test too.
  if (static_cast<size_t>(end - buf) != s.size()) return std::nullopt;
  // ERANGE alone is not a failure: glibc also sets it for subnormal results, which Redis keeps.
  if (errno == ERANGE && (std::isinf(value) || value == 0)) return std::nullopt;
  if (errno == EINVAL || std::isnan(value)) return std::nullopt;
  return value;
}

// snprintf into a std::string, growing once if the first guess is short.
template <typename T>
std::string Printf(const char* format, T value) {
  char small[64];
  int n = std::snprintf(small, sizeof(small), format, value);
  if (n < 0) return std::string();  // cannot happen for the formats used here
  if (static_cast<size_t>(n) < sizeof(small)) return std::string(small, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n), '\0');
  std::snprintf(out.data(), out.size() + 1, format, value);
  return out;
}

}  // namespace

std::optional<int64_t> ParseInt64(std::string_view s) {
  if (s.size() > kMaxIntegerChars) return std::nullopt;
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  std::optional<uint64_t> magnitude = ParseMagnitude(s);
  if (!magnitude) return std::nullopt;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (*magnitude == 0) return std::nullopt;  // "-0"
    if (*magnitude > kMaxPositive + 1) return std::nullopt;
    // Negate in unsigned arithmetic so INT64_MIN's magnitude does not overflow.
    return static_cast<int64_t>(0 - *magnitude);
  }
  if (*magnitude > kMaxPositive) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

std::optional<uint64_t> ParseUint64(std::string_view s) {
  if (s.size() > kMaxIntegerChars) return std::nullopt;
  return ParseMagnitude(s);
}

std::optional<long double> ParseLongDouble(std::string_view s) {
  if (s.size() >= kMaxLongDoubleChars) return std::nullopt;
  char buf[kMaxLongDoubleChars];
  return ParseFloat<long double>(s, buf,
                                 [](const char* p, char** end) { return std::strtold(p, end); });
}

std::optional<double> ParseDouble(std::string_view s) {
  auto convert = [](const char* p, char** end) { return std::strtod(p, end); };
  char small[128];
  if (s.size() < sizeof(small)) return ParseFloat<double>(s, small, convert);
  std::string big(s.size(), '\0');  // its data() has room for the terminator
  return ParseFloat<double>(s, big.data(), convert);
}

std::string FormatLongDouble(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string out = Printf("%.17Lf", v);
  if (out.find('.') != std::string::npos) {
    size_t keep = out.find_last_not_of('0') + 1;
    if (out[keep - 1] == '.') --keep;
    out.resize(keep);
  }
  if (out == "-0") out = "0";
  return out;
}

std::string FormatDouble(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return Printf("%.17g", v);
}

std::string FormatInt64(int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;  // 24 bytes always fit an int64
  return std::string(buf, end);
}

std::optional<uint64_t> ParseScanCursor(std::string_view s) {
  if (!s.empty() && (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r'))) return std::nullopt;
  s = s.substr(0, s.find('\0'));
  if (s.empty()) return 0;
  size_t i = 0;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    ++i;
  }
  if (i == s.size()) return std::nullopt;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return negative ? 0 - v : v;
}

}  // namespace slotkv
