#include "repl/backlog.h"

#include <algorithm>
#include <utility>

namespace slotkv::repl {

void Backlog::Append(uint64_t offset, std::string frame) {
  bytes_ += frame.size();
  events_.push_back({offset, std::move(frame)});
  end_ = offset;
  TrimTo(capacity_);
}

void Backlog::TrimTo(size_t bytes) {
  while (bytes_ > bytes && events_.size() > 1) {
    bytes_ -= events_.front().frame.size();
    start_ = events_.front().offset;
    events_.pop_front();
  }
}

void Backlog::Reset(uint64_t offset) {
  events_.clear();
  bytes_ = 0;
  start_ = end_ = offset;
}

void Backlog::ForEachAfter(uint64_t offset,
                           const std::function<void(std::string_view)>& fn) const {
  auto it = std::upper_bound(events_.begin(), events_.end(), offset,
                             [](uint64_t x, const Event& e) { return x < e.offset; });
  for (; it != events_.end(); ++it) fn(it->frame);
}

}  // namespace slotkv::repl
