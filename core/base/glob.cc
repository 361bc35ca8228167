#include "core/base/glob.h"

#include <cstddef>
#include <utility>

namespace slotkv {
namespace {

// Redis 7 (CVE-2024-31228 fix) gives up past this many nested star expansions.
constexpr int kMaxStarNesting = 1000;

// ASCII lowercase, like tolower() in the "C" locale Redis runs its ctype functions in.
int Lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

// Redis compares range bounds as plain char, which is signed on x86-64.
int SignedByte(char c) { return static_cast<signed char>(c); }

bool SameByte(char a, char b, bool nocase) {
  if (!nocase) return a == b;
  return Lower(static_cast<unsigned char>(a)) == Lower(static_cast<unsigned char>(b));
}

// Matches the set that opens at pattern[open] ('[') against byte c. Returns the index just
// past the set: past its ']', or pattern.size() when the set is unterminated.
size_t MatchSet(std::string_view pattern, size_t open, char c, bool nocase, bool* matched) {
  const size_t end = pattern.size();
  size_t i = open + 1;
  bool negate = i < end && pattern[i] == '^';
  if (negate) ++i;
  bool hit = false;
  size_t next = end;
  while (true) {
    // The order of these tests is Redis's: an escape wins over ']', and a range may take the
    // ']' as its upper bound.
    if (end - i >= 2 && pattern[i] == '\\') {
      ++i;
      if (pattern[i] == c) hit = true;  // exact even with nocase, as in Redis
    } else if (i < end && pattern[i] == ']') {
      next = i + 1;
      break;
    } else if (i == end) {
      next = end;
      break;
    } else if (end - i >= 3 && pattern[i + 1] == '-') {
      int lo = SignedByte(pattern[i]);
      int hi = SignedByte(pattern[i + 2]);
      int byte = SignedByte(c);
      if (lo > hi) std::swap(lo, hi);
      if (nocase) {
        lo = Lower(lo);
        hi = Lower(hi);
        byte = Lower(byte);
      }
      if (byte >= lo && byte <= hi) hit = true;
      i += 2;
    } else if (SameByte(pattern[i], c, nocase)) {
      hit = true;
    }
    ++i;
  }
  *matched = negate ? !hit : hit;
  return next;
}

// Matches the one-byte token at pattern[p] (anything but '*') against c. Returns the index
// just past the token.
size_t MatchToken(std::string_view pattern, size_t p, char c, bool nocase, bool* matched) {
  switch (pattern[p]) {
    case '?':
      *matched = true;
      return p + 1;
    case '[':
      return MatchSet(pattern, p, c, nocase, matched);
    case '\\':
      if (p + 1 < pattern.size()) {
        *matched = SameByte(pattern[p + 1], c, nocase);
        return p + 2;
      }
      break;  // a trailing '\' is itself
    default:
      break;
  }
  *matched = SameByte(pattern[p], c, nocase);
  return p + 1;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  // Redis's matcher never enters its loop for empty text, so only the empty pattern matches.
  if (text.empty()) return pattern.empty();

  // Every token but '*' consumes exactly one byte, so when a later token fails it is enough to
  // let the most recent star swallow one more byte and retry from just after it: an earlier
  // star taking more could only push the same suffix further right.
  constexpr size_t kNone = static_cast<size_t>(-1);
  const size_t m = pattern.size();
  const size_t n = text.size();
  size_t p = 0;
  size_t t = 0;
  size_t star_p = kNone;  // pattern index just after the latest star run
  size_t star_t = 0;      // text index that star run's match currently ends at
  int stars = 0;
  while (t < n) {
    if (p < m && pattern[p] == '*') {
      while (p < m && pattern[p] == '*') ++p;
      if (p == m) return true;  // a trailing star swallows the rest
      // Any match goes through every non-trailing star run in order, and Redis nests one
      // level per run, so more than the limit can never match there.
      if (++stars > kMaxStarNesting) return false;
      star_p = p;
      star_t = t;
      continue;
    }
    if (p < m) {
      bool matched;
      size_t next = MatchToken(pattern, p, text[t], nocase, &matched);
      if (matched) {
        p = next;
        ++t;
        continue;
      }
    }
    if (star_p == kNone) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < m && pattern[p] == '*') ++p;
  return p == m;
}

}  // namespace slotkv
