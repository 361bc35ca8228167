#include "core/command/tracking.h"

#include <algorithm>
#include <mutex>
#include <utility>

namespace slotkv::command {
namespace {

// One of a and b starts with the other (Redis's stringCheckPrefix).
bool Overlap(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

}  // namespace

Tracking::Tracking(Executor* executor, int workers, Deliver deliver)
    : executor_(executor), deliver_(std::move(deliver)), tables_(static_cast<size_t>(workers)) {}

Tracking::Table& Tracking::Here() { return tables_[static_cast<size_t>(executor_->current())]; }

void Tracking::ForgetHere() {
  Table& t = Here();
  for (const auto& [key, ids] : t.readers) {
    items_.fetch_sub(static_cast<int64_t>(ids.size()), std::memory_order_relaxed);
  }
  keys_.fetch_sub(static_cast<int64_t>(t.readers.size()), std::memory_order_relaxed);
  t.readers.clear();
}

std::optional<TrackingSettings> Tracking::SettingsOf(uint64_t client) const {
  std::shared_lock lock(mu_);
  auto it = clients_.find(client);
  if (it == clients_.end()) return std::nullopt;
  return it->second;
}

void Tracking::Enable(uint64_t client, TrackingSettings settings) {
  std::unique_lock lock(mu_);
  auto [it, added] = clients_.try_emplace(client);
  if (added) clients_count_.fetch_add(1, std::memory_order_relaxed);
  if (settings.bcast) {
    // Prefixes add up while BCAST stays on (Redis's enableBcastTrackingForPrefix).
    std::vector<std::string> all = it->second.bcast ? it->second.prefixes
                                                    : std::vector<std::string>();
    if (settings.prefixes.empty()) settings.prefixes.emplace_back();
    for (std::string& p : settings.prefixes) {
      if (std::find(all.begin(), all.end(), p) == all.end()) all.push_back(std::move(p));
    }
    std::sort(all.begin(), all.end());
    settings.prefixes = std::move(all);
  }
  if (settings.bcast != (!added && it->second.bcast)) {
    bcast_count_.fetch_add(settings.bcast ? 1 : -1, std::memory_order_relaxed);
  }
  it->second = std::move(settings);
}

void Tracking::Disable(uint64_t client) {
  std::unique_lock lock(mu_);
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  if (it->second.bcast) bcast_count_.fetch_sub(1, std::memory_order_relaxed);
  clients_.erase(it);
  clients_count_.fetch_sub(1, std::memory_order_relaxed);
}

std::string Tracking::PrefixCollision(uint64_t client,
                                      const std::vector<std::string>& prefixes) const {
  std::shared_lock lock(mu_);
  auto it = clients_.find(client);
  const std::vector<std::string>* had =
      it != clients_.end() && it->second.bcast ? &it->second.prefixes : nullptr;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    for (size_t k = 0; had != nullptr && k < had->size(); ++k) {
      if (Overlap((*had)[k], prefixes[i])) {
        return "ERR Prefix '" + prefixes[i] + "' overlaps with an existing prefix '" +
               (*had)[k] + "'. Prefixes for a single client must not overlap.";
      }
    }
    for (size_t j = i + 1; j < prefixes.size(); ++j) {
      if (Overlap(prefixes[i], prefixes[j])) {
        return "ERR Prefix '" + prefixes[i] + "' overlaps with another provided prefix '" +
               prefixes[j] + "'. Prefixes for a single client must not overlap.";
      }
    }
  }
  return {};
}

int64_t Tracking::prefixes() const {
  std::shared_lock lock(mu_);
  std::vector<std::string_view> all;
  for (const auto& [id, s] : clients_) all.insert(all.end(), s.prefixes.begin(), s.prefixes.end());
  std::sort(all.begin(), all.end());
  return std::unique(all.begin(), all.end()) - all.begin();
}

void Tracking::Remember(std::string_view key, uint64_t client) {
  if (!active()) return;  // it stopped tracking while this was on its way
  Table& t = Here();
  auto [it, added] = t.readers.try_emplace(std::string(key));
  if (added) keys_.fetch_add(1, std::memory_order_relaxed);
  if (std::find(it->second.begin(), it->second.end(), client) != it->second.end()) return;
  it->second.push_back(client);
  items_.fetch_add(1, std::memory_order_relaxed);
  // Past this worker's share of the bound, other keys are invalidated and forgotten (Redis
  // picks them at random too).
  const int64_t max = max_keys_.load(std::memory_order_relaxed);
  if (max <= 0) return;
  const auto share = static_cast<size_t>(max / static_cast<int64_t>(tables_.size()) + 1);
  while (t.readers.size() > share) {
    auto victim = t.readers.begin();
    if (victim->first == key) ++victim;
    const std::string victim_key = victim->first;
    Tell(Take(t, victim), victim_key, 0);
  }
}

std::vector<uint64_t> Tracking::Take(Table& t, Readers::iterator it) {
  std::vector<uint64_t> readers = std::move(it->second);
  items_.fetch_sub(static_cast<int64_t>(readers.size()), std::memory_order_relaxed);
  keys_.fetch_sub(1, std::memory_order_relaxed);
  t.readers.erase(it);
  return readers;
}

void Tracking::Send(uint64_t to, const TrackingSettings& s,
                    std::optional<std::string_view> key) {
  auto m = std::make_shared<pubsub::Message>();
  m->kind = pubsub::Kind::kInvalidate;
  m->everything = !key.has_value();
  if (key) m->payload.assign(*key);
  m->origin = to;
  m->origin_worker = s.worker;
  if (s.redirect != 0) {
    deliver_(s.redirect_worker, s.redirect, std::move(m));
  } else {
    deliver_(s.worker, to, std::move(m));
  }
}

void Tracking::Invalidate(std::string_view key, uint64_t writer) {
  if (!active()) return;
  Table& t = Here();
  std::vector<uint64_t> readers;
  if (!t.readers.empty()) {
    auto it = t.readers.find(std::string(key));
    if (it != t.readers.end()) readers = Take(t, it);
  }
  Tell(readers, key, writer);
}

void Tracking::Tell(const std::vector<uint64_t>& readers, std::string_view key,
                    uint64_t writer) {
  if (readers.empty() && bcast_count_.load(std::memory_order_relaxed) == 0) return;
  std::shared_lock lock(mu_);
  for (uint64_t id : readers) {
    auto s = clients_.find(id);
    // Gone, off, or switched to BCAST since it read the key: nothing to tell.
    if (s == clients_.end() || s->second.bcast) continue;
    if (s->second.noloop && id == writer) continue;
    Send(id, s->second, key);
  }
  if (bcast_count_.load(std::memory_order_relaxed) == 0) return;
  for (const auto& [id, s] : clients_) {
    if (!s.bcast || (s.noloop && id == writer)) continue;
    for (const std::string& p : s.prefixes) {
      if (key.substr(0, p.size()) == p) {
        Send(id, s, key);
        break;
      }
    }
  }
}

void Tracking::InvalidateEverything() {
  if (!active()) return;
  std::shared_lock lock(mu_);
  for (const auto& [id, s] : clients_) Send(id, s, std::nullopt);
}

}  // namespace slotkv::command
