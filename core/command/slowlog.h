// SLOWLOG: the most recent commands that ran longer than slowlog-log-slower-than, shared by all
// workers (a mutex: entries are rare by definition).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace slotkv::command {

struct SlowLogEntry {
  uint64_t id = 0;
  int64_t time_s = 0;
  int64_t duration_us = 0;
  std::vector<std::string> args;  // as Redis: at most 32, each cut at 128 bytes
  std::string client_addr;
  std::string client_name;
};

class SlowLog {
 public:
  // Records a command; keeps at most max_len entries (newest first).
  void Add(const std::vector<std::string>& args, int64_t duration_us, int64_t now_s,
           const std::string& addr, const std::string& name, size_t max_len);
  // The newest `count` entries (all when count < 0).
  std::vector<SlowLogEntry> Get(int64_t count) const;
  size_t size() const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::deque<SlowLogEntry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

}  // namespace slotkv::command
