#include "core/pubsub/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "core/base/glob.h"

namespace slotkv::pubsub {

bool Registry::Subscribe(Kind kind, const std::string& name, Subscriber s) {
  std::unique_lock lock(mu_);
  std::vector<Subscriber>& subs = MapOf(kind)[name];
  if (std::find(subs.begin(), subs.end(), s) != subs.end()) return false;
  subs.push_back(s);
  return true;
}

bool Registry::Unsubscribe(Kind kind, const std::string& name, Subscriber s) {
  std::unique_lock lock(mu_);
  Map& map = MapOf(kind);
  auto it = map.find(name);
  if (it == map.end()) return false;
  auto at = std::find(it->second.begin(), it->second.end(), s);
  if (at == it->second.end()) return false;
  it->second.erase(at);
  if (it->second.empty()) map.erase(it);
  return true;
}

int64_t Registry::Publish(Kind kind, std::string_view channel, std::string_view payload) {
  std::map<int, Batch> by_worker;
  int64_t receivers = 0;
  {
    std::shared_lock lock(mu_);
    const Map& exact = MapOf(kind == Kind::kShard ? Kind::kShard : Kind::kChannel);
    auto it = exact.find(std::string(channel));
    if (it != exact.end()) {
      auto msg = std::make_shared<Message>(
          Message{kind, "", std::string(channel), std::string(payload)});
      for (const Subscriber& s : it->second) by_worker[s.worker].emplace_back(s.client, msg);
      receivers += static_cast<int64_t>(it->second.size());
    }
    if (kind == Kind::kChannel) {
      for (const auto& [pattern, subs] : patterns_) {
        if (!GlobMatch(pattern, channel, false)) continue;
        auto msg = std::make_shared<Message>(
            Message{Kind::kPattern, pattern, std::string(channel), std::string(payload)});
        for (const Subscriber& s : subs) by_worker[s.worker].emplace_back(s.client, msg);
        receivers += static_cast<int64_t>(subs.size());
      }
    }
  }
  for (auto& [worker, batch] : by_worker) deliver_(worker, std::move(batch));
  return receivers;
}

std::vector<std::string> Registry::Channels(Kind kind, const std::string* pattern) const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, subs] : MapOf(kind)) {
    if (pattern == nullptr || GlobMatch(*pattern, name, false)) out.push_back(name);
  }
  return out;
}

int64_t Registry::NumSub(Kind kind, const std::string& channel) const {
  std::shared_lock lock(mu_);
  const Map& map = MapOf(kind);
  auto it = map.find(channel);
  return it == map.end() ? 0 : static_cast<int64_t>(it->second.size());
}

int64_t Registry::NumPat() const {
  std::shared_lock lock(mu_);
  return static_cast<int64_t>(patterns_.size());
}

bool Registry::AddMonitor(Subscriber s) {
  std::unique_lock lock(mu_);
  if (std::find(monitors_.begin(), monitors_.end(), s) != monitors_.end()) return false;
  monitors_.push_back(s);
  monitors_count_.store(monitors_.size(), std::memory_order_relaxed);
  return true;
}

bool Registry::RemoveMonitor(Subscriber s) {
  std::unique_lock lock(mu_);
  auto at = std::find(monitors_.begin(), monitors_.end(), s);
  if (at == monitors_.end()) return false;
  monitors_.erase(at);
  monitors_count_.store(monitors_.size(), std::memory_order_relaxed);
  return true;
}

void Registry::FeedMonitors(std::string line) {
  std::map<int, Batch> by_worker;
  {
    std::shared_lock lock(mu_);
    if (monitors_.empty()) return;
    auto msg = std::make_shared<Message>();
    msg->kind = Kind::kMonitor;
    msg->payload = std::move(line);
    for (const Subscriber& s : monitors_) by_worker[s.worker].emplace_back(s.client, msg);
  }
  for (auto& [worker, batch] : by_worker) deliver_(worker, std::move(batch));
}

}  // namespace slotkv::pubsub
