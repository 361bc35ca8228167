// Score and lexicographic ranges over a sorted set, as Redis 7.0's t_zset.c reads and applies
// them (ZRANGEBYSCORE, ZRANGEBYLEX, ZCOUNT, ZLEXCOUNT, ZREMRANGEBY*, ZRANGE BYSCORE|BYLEX).
//
// A score range is two bounds "1.5" (inclusive) or "(1.5" (exclusive), read as zslParseRange
// reads them: strtod over the bytes up to the first NUL, so "inf", "-inf", "+inf", "1e400"
// (infinity), "0x10", " 1" and even "" (0) are accepted; NaN and trailing bytes are not.
//
// A lex range is two bounds "[a" (inclusive), "(a" (exclusive), "-" (below every member) or
// "+" (above every member), read as zslParseLexRange. Members compare as memcmp, like the
// sorted set's own member order.
//
// Lex ranges only make sense when every score is equal; with mixed scores Redis still walks
// the (score, member) order comparing members, and so does FirstInRange / LastInRange here:
// the range is empty unless the last entry is above min and the first below max; the first
// entry in range is the first (in order) above min, provided it is also below max; the walk
// then goes on while entries stay below max (reverse: mirrored). This is Redis's listpack
// walk (sorted sets up to 128 entries), which is what clients see for small sets.
//
// All functions are pure; a range is plain data.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/types/zset_value.h"

namespace slotkv::command {

// Error texts of bad range bounds, as Redis replies them.
inline constexpr std::string_view kErrScoreRange = "ERR min or max is not a float";
inline constexpr std::string_view kErrLexRange = "ERR min or max not valid string range item";

// A score interval.
struct ScoreRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  bool max_exclusive = false;

  // Whether e's score is >= min (> min when exclusive).
  bool AboveMin(const ZSetValue::Entry& e) const {
    return min_exclusive ? e.score > min : e.score >= min;
  }
  // Whether e's score is <= max (< max when exclusive).
  bool BelowMax(const ZSetValue::Entry& e) const {
    return max_exclusive ? e.score < max : e.score <= max;
  }
  // Whether no score can be in the range: min > max, or min == max with an open end.
  bool AlwaysEmpty() const { return min > max || (min == max && (min_exclusive || max_exclusive)); }
};

// One end of a lex range.
struct LexBound {
  enum class Kind { kMinusInf, kPlusInf, kValue };  // "-", "+", "[x" / "(x"
  Kind kind = Kind::kValue;
  std::string value;       // kValue only
  bool exclusive = false;  // "(x"; "-" and "+" count as exclusive, as in Redis
};

// A member interval.
struct LexRange {
  LexBound min;
  LexBound max;

  // Whether e's member is past min (or equal, when min is inclusive).
  bool AboveMin(const ZSetValue::Entry& e) const;
  // Whether e's member is before max (or equal, when max is inclusive).
  bool BelowMax(const ZSetValue::Entry& e) const;
  // Whether no member can be in the range: min after max, or equal bounds with an open end
  // ("- -" and "+ +" included).
  bool AlwaysEmpty() const;
};

// The range of two bounds as ZRANGEBYSCORE takes them, or nullopt (reply kErrScoreRange).
std::optional<ScoreRange> ParseScoreRange(std::string_view min, std::string_view max);
// The range of two bounds as ZRANGEBYLEX takes them, or nullopt (reply kErrLexRange).
std::optional<LexRange> ParseLexRange(std::string_view min, std::string_view max);

// The first entry of zset in range (ascending order), or zset.end() when none is.
ZSetValue::const_iterator FirstInRange(const ZSetValue& zset, const ScoreRange& range);
ZSetValue::const_iterator FirstInRange(const ZSetValue& zset, const LexRange& range);
// The last entry of zset in range (ascending order), or zset.end() when none is.
ZSetValue::const_iterator LastInRange(const ZSetValue& zset, const ScoreRange& range);
ZSetValue::const_iterator LastInRange(const ZSetValue& zset, const LexRange& range);

}  // namespace slotkv::command
