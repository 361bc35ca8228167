#include "core/command/zset_range.h"

#include <cmath>
#include <cstdlib>

namespace slotkv::command {
namespace {

// One score bound as zslParseRange reads it: strtod over the C string (so an embedded NUL ends
// the number and "" is 0), every byte up to the NUL used, NaN refused.
bool ParseScoreBound(std::string_view arg, double* value, bool* exclusive) {
  *exclusive = !arg.empty() && arg[0] == '(';
  if (*exclusive) arg.remove_prefix(1);
  const std::string text(arg);
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return *end == '\0' && !std::isnan(*value);
}

// One lex bound as zslParseLexRangeItem reads it. "+" and "-" must be alone up to the C
// string's end, so "+\0x" is "+" as in Redis.
bool ParseLexBound(std::string_view arg, LexBound* bound) {
  if (arg.empty()) return false;
  const bool alone = arg.size() == 1 || arg[1] == '\0';
  switch (arg[0]) {
    case '+':
      if (!alone) return false;
      *bound = LexBound{.kind = LexBound::Kind::kPlusInf, .value = {}, .exclusive = true};
      return true;
    case '-':
      if (!alone) return false;
      *bound = LexBound{.kind = LexBound::Kind::kMinusInf, .value = {}, .exclusive = true};
      return true;
    case '(':
    case '[':
      *bound = LexBound{.kind = LexBound::Kind::kValue,
                        .value = std::string(arg.substr(1)),
                        .exclusive = arg[0] == '('};
      return true;
    default:
      return false;
  }
}

// Redis's sdscmplex with a member or a bound on each side: "-" is below everything but
// itself, "+" above everything but itself.
int CompareLex(const LexBound& a, const LexBound& b) {
  using Kind = LexBound::Kind;
  if (a.kind == b.kind && a.kind != Kind::kValue) return 0;
  if (a.kind == Kind::kMinusInf || b.kind == Kind::kPlusInf) return -1;
  if (a.kind == Kind::kPlusInf || b.kind == Kind::kMinusInf) return 1;
  return a.value.compare(b.value);
}

// A member against a bound (a member is never "-" or "+").
int CompareMember(std::string_view member, const LexBound& bound) {
  switch (bound.kind) {
    case LexBound::Kind::kMinusInf:
      return 1;
    case LexBound::Kind::kPlusInf:
      return -1;
    case LexBound::Kind::kValue:
      break;
  }
  return member.compare(bound.value);
}

// zzlIsInLexRange: whether the range can hold any entry of zset.
bool MayHold(const ZSetValue& zset, const LexRange& range) {
  return !range.AlwaysEmpty() && !zset.empty() && range.AboveMin(*zset.rbegin()) &&
         range.BelowMax(*zset.begin());
}

}  // namespace

bool LexRange::AboveMin(const ZSetValue::Entry& e) const {
  const int cmp = CompareMember(e.member, min);
  return min.exclusive ? cmp > 0 : cmp >= 0;
}

bool LexRange::BelowMax(const ZSetValue::Entry& e) const {
  const int cmp = CompareMember(e.member, max);
  return max.exclusive ? cmp < 0 : cmp <= 0;
}

bool LexRange::AlwaysEmpty() const {
  const int cmp = CompareLex(min, max);
  return cmp > 0 || (cmp == 0 && (min.exclusive || max.exclusive));
}

std::optional<ScoreRange> ParseScoreRange(std::string_view min, std::string_view max) {
  ScoreRange range;
  if (!ParseScoreBound(min, &range.min, &range.min_exclusive) ||
      !ParseScoreBound(max, &range.max, &range.max_exclusive)) {
    return std::nullopt;
  }
  return range;
}

std::optional<LexRange> ParseLexRange(std::string_view min, std::string_view max) {
  LexRange range;
  if (!ParseLexBound(min, &range.min) || !ParseLexBound(max, &range.max)) return std::nullopt;
  return range;
}

ZSetValue::const_iterator FirstInRange(const ZSetValue& zset, const ScoreRange& range) {
  if (range.AlwaysEmpty()) return zset.end();
  auto it = zset.LowerBound(range.min, range.min_exclusive);
  if (it == zset.end() || !range.BelowMax(*it)) return zset.end();
  return it;
}

ZSetValue::const_iterator LastInRange(const ZSetValue& zset, const ScoreRange& range) {
  if (range.AlwaysEmpty()) return zset.end();
  // The first entry past max; the one before it is the last candidate.
  auto it = zset.LowerBound(range.max, !range.max_exclusive);
  if (it == zset.begin()) return zset.end();
  --it;
  return range.AboveMin(*it) ? it : zset.end();
}

ZSetValue::const_iterator FirstInRange(const ZSetValue& zset, const LexRange& range) {
  if (!MayHold(zset, range)) return zset.end();
  for (auto it = zset.begin(); it != zset.end(); ++it) {
    if (range.AboveMin(*it)) return range.BelowMax(*it) ? it : zset.end();
  }
  return zset.end();
}

ZSetValue::const_iterator LastInRange(const ZSetValue& zset, const LexRange& range) {
  if (!MayHold(zset, range)) return zset.end();
  for (auto it = zset.rbegin(); it != zset.rend(); ++it) {
    if (range.BelowMax(*it)) return range.AboveMin(*it) ? std::prev(it.base()) : zset.end();
  }
  return zset.end();
}

}  // namespace slotkv::command
