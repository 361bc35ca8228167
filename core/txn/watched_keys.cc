#include "core/txn/watched_keys.h"

#include <algorithm>

namespace slotkv::txn {

WatchedKeys::WatchedKeys(uint32_t slots) : by_slot_(slots) {}

void WatchedKeys::Add(uint32_t s, uint32_t db, std::string_view key,
                      const std::shared_ptr<Watch>& w) {
  if (!by_slot_[s]) by_slot_[s] = std::make_unique<Map>();
  auto& watchers = (*by_slot_[s])[{db, std::string(key)}];
  if (std::find(watchers.begin(), watchers.end(), w) == watchers.end()) watchers.push_back(w);
}

void WatchedKeys::Remove(uint32_t s, uint32_t db, std::string_view key, const Watch* w) {
  Map* map = by_slot_[s].get();
  if (!map) return;
  auto it = map->find({db, std::string(key)});
  if (it == map->end()) return;
  auto& watchers = it->second;
  watchers.erase(std::remove_if(watchers.begin(), watchers.end(),
                                [w](const std::shared_ptr<Watch>& x) { return x.get() == w; }),
                 watchers.end());
  if (watchers.empty()) map->erase(it);
  if (map->empty()) by_slot_[s].reset();
}

void WatchedKeys::TouchKey(uint32_t s, uint32_t db, std::string_view key) {
  auto it = by_slot_[s]->find({db, std::string(key)});
  if (it == by_slot_[s]->end()) return;
  for (const auto& w : it->second) w->dirty.store(true);
}

void WatchedKeys::TouchFlushed(uint32_t s, uint32_t db,
                               const std::function<bool(std::string_view)>& exists) {
  Map* map = by_slot_[s].get();
  if (!map) return;
  for (auto& [id, watchers] : *map) {
    if (id.first != db || !exists(id.second)) continue;
    for (const auto& w : watchers) w->dirty.store(true);
  }
}

}  // namespace slotkv::txn
