#include "core/script/scripts.h"

#include "core/base/ascii.h"

namespace slotkv::script {
namespace {


// Interpreters kept idle per worker; more are made while scripts wait, and dropped after.
constexpr size_t kMaxIdle = 4;

}  // namespace

std::string Scripts::Add(std::string body) {
  std::string sha = Sha1Hex(body);
  std::lock_guard lock(mu_);
  bodies_.emplace(sha, std::move(body));
  return sha;
}

std::optional<std::string> Scripts::Body(std::string_view sha) const {
  std::lock_guard lock(mu_);
  auto it = bodies_.find(AsciiLower(sha));
  if (it == bodies_.end()) return std::nullopt;
  return it->second;
}

void Scripts::Flush() {
  std::lock_guard lock(mu_);
  bodies_.clear();
  generation_.fetch_add(1);
}

std::pair<size_t, size_t> Scripts::CacheSize() const {
  std::lock_guard lock(mu_);
  size_t bytes = 0;
  for (const auto& [sha, body] : bodies_) bytes += sha.size() + body.size();
  return {bodies_.size(), bytes};
}

Result<Scripts::Lease> Scripts::Take(int w) {
  auto& idle = idle_[static_cast<size_t>(w)];
  const uint64_t now = generation_.load();
  if (!idle.empty()) {
    Lease lease = std::move(idle.back());
    idle.pop_back();
    if (lease.generation != now) lease.vm->Flush();
    lease.generation = now;
    return lease;
  }
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<LuaVm> vm, LuaVm::Create());
  return Lease{std::move(vm), std::make_unique<Fiber>(), now};
}

void Scripts::Give(int w, Lease lease) {
  auto& idle = idle_[static_cast<size_t>(w)];
  if (idle.size() < kMaxIdle) idle.push_back(std::move(lease));
}

std::shared_ptr<Scripts::Running> Scripts::Started() {
  auto run = std::make_shared<Running>();
  std::lock_guard lock(mu_);
  running_.push_back(run);
  return run;
}

void Scripts::Ended(const std::shared_ptr<Running>& run) {
  if (run->busy.load()) busy_.fetch_sub(1);
  std::lock_guard lock(mu_);
  std::erase(running_, run);
}

void Scripts::Busy(Running& run) {
  if (!run.busy.exchange(true)) busy_.fetch_add(1);
}

Scripts::KillResult Scripts::Kill() {
  std::lock_guard lock(mu_);
  bool any_busy = false;
  bool killed = false;
  for (const auto& run : running_) {
    if (!run->busy.load()) continue;
    any_busy = true;
    if (run->wrote.load()) continue;
    run->kill.store(true);
    killed = true;
  }
  if (!any_busy) return KillResult::kNotBusy;
  return killed ? KillResult::kKilled : KillResult::kUnkillable;
}

}  // namespace slotkv::script
