// Number parsing and formatting with Redis's exact rules, so that what a command accepts and
// the text it replies match redis-server 7.0.15 byte for byte.
//
// Parsers take the whole argument: a string that is not entirely one number fails (nullopt),
// and the caller picks the Redis error text. All functions are pure and thread-safe. The float
// functions use strtod/strtold/snprintf and so assume the process runs in the "C" LC_NUMERIC
// locale (the default; slotkv, like Redis, never calls setlocale for it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slotkv {

// Parses a signed 64-bit integer as Redis string2ll does (INCRBY, EXPIRE, list indexes...):
// an optional '-' then decimal digits, the first nonzero unless the whole string is "0".
// Fails on: empty, 21 bytes or more, spaces anywhere, '+', leading zeros ("00", "01"), "-0",
// a lone "-", any other byte, and values outside [INT64_MIN, INT64_MAX].
std::optional<int64_t> ParseInt64(std::string_view s);

// Parses an unsigned 64-bit integer with ParseInt64's grammar minus the sign: decimal digits,
// no leading zeros except "0" itself, at most 20 bytes, up to UINT64_MAX. Any '-' fails.
// Note: stricter than Redis's string2ull, which falls back to strtoull and so also takes
// " 1", "+1" and "007"; use this where strict digits are wanted.
std::optional<uint64_t> ParseUint64(std::string_view s);

// The longest argument ParseLongDouble accepts is kMaxLongDoubleChars - 1 bytes (Redis's
// MAX_LONG_DOUBLE_CHARS).
constexpr size_t kMaxLongDoubleChars = 5 * 1024;

// Parses a long double as Redis string2ld does (INCRBYFLOAT, HINCRBYFLOAT): what strtold
// takes ("1.5", "+1", ".5", "5.", "1e3", "0x1p-2", "inf", "-Infinity"), using every byte.
// Fails on: empty, kMaxLongDoubleChars bytes or more, a leading space (isspace), trailing
// bytes (embedded NUL included), NaN, and overflow or underflow to zero ("1e5000",
// "1e-5000"). A subnormal result ("1e-4940") is accepted. Infinity is accepted here: the
// INCRBYFLOAT caller rejects an infinite result itself.
std::optional<long double> ParseLongDouble(std::string_view s);

// Parses a double as Redis string2d / getDoubleFromObject does (ZADD and ZINCRBY scores; not
// ZRANGEBYSCORE bounds, which Redis checks with laxer rules of their own): what strtod takes,
// using every byte. Accepts "inf", "+inf", "-inf", "Infinity" in any case. Fails on: empty,
// a leading space, trailing bytes (embedded NUL included), NaN, and overflow or underflow to
// zero ("1e400", "1e-400"); subnormals ("1e-310") are accepted. No length limit.
std::optional<double> ParseDouble(std::string_view s);

// Formats v as Redis ld2string in LD_STR_HUMAN mode, the text INCRBYFLOAT stores and replies:
// "%.17Lf" with trailing zeros and then a trailing '.' removed, and "-0" turned into "0".
// E.g. 10.5 -> "10.5", 3.0e3 -> "3000", 0.1L + 0.2L -> "0.3", 1e-20 -> "0",
// 2e-17 -> "0.00000000000000002". Infinities give "inf" and "-inf"; NaN gives what printf
// prints. Never fails: the longest output (LDBL_MAX) is under 5000 bytes.
std::string FormatLongDouble(long double v);

// Formats v as Redis 7.0 replies a double (ZSCORE, ZINCRBY, ZADD INCR) in RESP2: "%.17g", so
// 1.1 -> "1.1000000000000001", 3 -> "3", 1e17 -> "1e+17", -0.0 -> "-0"; infinities give
// "inf" and "-inf". This is 7.0's format: Redis 7.2 switched to the shortest round-trip text
// ("1.1"), so a reply change is needed if we ever target 7.2.
std::string FormatDouble(double v);

// Formats v in decimal, as Redis ll2string: "-9223372036854775808" .. "9223372036854775807".
std::string FormatInt64(int64_t v);

// A SCAN cursor as Redis 7.0's parseScanCursorOrReply reads it: strtoul(base 10) must use
// every byte up to the first NUL, with no leading space and no overflow. So "" is 0, "+5" is 5,
// "007" is 7 and "-1" wraps to 2^64-1 (a cursor past the end: the scan then just goes on).
std::optional<uint64_t> ParseScanCursor(std::string_view s);

}  // namespace slotkv
