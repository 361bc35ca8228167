#include "core/command/slowlog.h"

namespace slotkv::command {

void SlowLog::Add(const std::vector<std::string>& args, int64_t duration_us, int64_t now_s,
                  const std::string& addr, const std::string& name, size_t max_len) {
  constexpr size_t kMaxArgs = 32;
  constexpr size_t kMaxArgBytes = 128;
  SlowLogEntry e;
  e.time_s = now_s;
  e.duration_us = duration_us;
  e.client_addr = addr;
  e.client_name = name;
  size_t shown = std::min(args.size(), kMaxArgs);
  for (size_t i = 0; i < shown; ++i) {
    if (i == kMaxArgs - 1 && args.size() > kMaxArgs) {
      e.args.push_back("... (" + std::to_string(args.size() - kMaxArgs + 1) + " more arguments)");
      break;
    }
    const std::string& a = args[i];
    if (a.size() > kMaxArgBytes) {
      e.args.push_back(a.substr(0, kMaxArgBytes) + "... (" +
                       std::to_string(a.size() - kMaxArgBytes) + " more bytes)");
    } else {
      e.args.push_back(a);
    }
  }
  std::lock_guard lock(mu_);
  e.id = next_id_++;
  entries_.push_front(std::move(e));
  while (entries_.size() > max_len) entries_.pop_back();
}

std::vector<SlowLogEntry> SlowLog::Get(int64_t count) const {
  std::lock_guard lock(mu_);
  size_t n = count < 0 ? entries_.size() : std::min<size_t>(entries_.size(), count);
  return std::vector<SlowLogEntry>(entries_.begin(), entries_.begin() + n);
}

size_t SlowLog::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void SlowLog::Reset() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

}  // namespace slotkv::command
