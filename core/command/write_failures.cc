#include "core/command/write_failures.h"

#include <algorithm>

namespace slotkv::command {

void WriteTrace::Add(const slot::Slot* s) {
  if (std::find(slots.begin(), slots.end(), s) == slots.end()) slots.push_back(s);
}

void WriteFailures::Record(const slot::Slot* slot, const Status& st) {
  std::lock_guard lock(mu_);
  kept_.push_back({slot, st.IsUnavailable() ? st : Status::Unavailable(st.ToString())});
  if (kept_.size() > kKept) kept_.pop_front();
  count_.fetch_add(1, std::memory_order_release);
}

Status WriteFailures::Outcome(const WriteTrace& trace) const {
  if (trace.slots.empty() || Mark() == trace.mark) return Status::OK();  // the common case
  std::lock_guard lock(mu_);
  const uint64_t count = count_.load(std::memory_order_relaxed);
  const uint64_t first_kept = count - kept_.size();
  if (trace.mark < first_kept) {
    return Status::Unavailable("too many write failures since this command started");
  }
  for (uint64_t i = trace.mark - first_kept; i < kept_.size(); ++i) {
    const Failure& f = kept_[i];
    if (std::find(trace.slots.begin(), trace.slots.end(), f.slot) != trace.slots.end()) {
      return f.status;
    }
  }
  return Status::OK();
}

}  // namespace slotkv::command
