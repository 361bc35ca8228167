// The computation of ZUNION ZINTER ZDIFF, their STORE forms and ZINTERCARD, for
// zset_setops_commands.cc (which parses the requests and visits the owners): the inputs as
// read on their owners, how they combine (Redis's WEIGHTS and AGGREGATE, NaNs included), and
// member lookups in paged inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/context.h"
#include "core/command/keyspace.h"
#include "core/command/task.h"
#include "core/types/set_value.h"
#include "core/types/zset_value.h"

namespace slotkv::command::zset_ops {

enum class Op { kUnion, kInter, kDiff };
// What becomes of the result: replied (ZUNION ...), stored (ZUNIONSTORE ...) or counted
// (ZINTERCARD).
enum class Output { kReply, kStore, kCard };
enum class Aggregate { kSum, kMin, kMax };

// A parsed ZUNION / ZINTER / ZDIFF / *STORE / ZINTERCARD request.
struct Request {
  Op op = Op::kUnion;
  Output out = Output::kReply;
  std::string_view name;  // lower case, for "at least 1 input key" errors
  size_t first = 0;       // the sources are args[first, end)
  size_t end = 0;
  std::vector<double> weights;  // per source, 1 unless WEIGHTS
  Aggregate aggregate = Aggregate::kSum;
  bool with_scores = false;
  int64_t limit = 0;  // ZINTERCARD: 0 = no limit
  // The first bad option, replied after the sources are read (Redis looks them up first).
  std::string_view option_error;
};

// One input: a sorted set, a plain set (every member scores 1), or neither (a missing key, an
// empty set). A paged one is only counted by the first pass (paged()), and read whole later
// when the operation needs all its members.
struct Source {
  std::optional<ZSetValue> zset;
  std::optional<SetValue> set;
  double weight = 1.0;
  ValueType paged_type = ValueType::kString;  // kZSet or kSet: a paged input
  uint64_t paged_size = 0;

  bool paged() const { return paged_type != ValueType::kString && !zset && !set; }
  size_t size() const {
    return paged() ? paged_size : zset ? zset->size() : set ? set->size() : 0;
  }
  // The member's score, or nullopt when absent.
  std::optional<double> Score(std::string_view member) const {
    if (zset) return zset->Score(member);
    if (set && set->Contains(member)) return 1.0;
    return std::nullopt;
  }
  // Calls fn(member, score) for each member until fn returns false.
  template <class F>
  void ForEach(F&& fn) const {
    if (zset) {
      for (const ZSetValue::Entry& e : *zset) {
        if (!fn(std::string_view(e.member), e.score)) return;
      }
    } else if (set) {
      for (const std::string& m : set->members()) {
        if (!fn(std::string_view(m), 1.0)) return;
      }
    }
  }
};

// The sources of a request: args[first + i] -> inputs[i].
struct Sources {
  size_t first = 0;
  std::vector<Source> inputs;
  Status failure;
  bool wrong_type = false;
};

// First pass: reads the sources at positions ps (all in store's slot) into src, stopping at
// the first error; a paged one only counted. Each lookup counts as a keyspace hit or miss.
void ReadSources(AsyncContext& ctx, Store& store, const std::vector<size_t>& ps, Sources* src);

// Replies the first error of a request: a failed or WRONGTYPE source, then a bad option. True
// when there was one.
bool RequestFailed(const Request& req, const Sources& src, Reply& reply);

// Writes result under dst (replacing any value, no TTL; deleting dst when empty) and replies
// the result's size.
void StoreResult(Store& store, std::string_view dst, ZSetValue result, Reply& reply);

// The result of a request in *out, or ZINTERCARD's count in *card (at most its limit).
// ZUNION reads every input whole; ZINTER takes the members of its smallest input (ZDIFF: of
// its first) and folds in, or drops, what the others hold for them, smallest first: from
// memory for a one-value input, by lookups on its owner for a paged one (the task moves only
// then). False after replying a failure.
Task Compute(AsyncContext& ctx, const Request& req, Sources& src, ZSetValue* out,
             int64_t* card, bool* ok);

}  // namespace slotkv::command::zset_ops
