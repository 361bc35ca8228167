// WatchedKeys: the keys clients WATCH, so that a write of one makes their EXEC fail.
//
// Design. Each client's WATCH session is a Watch: one flag shared by the client and the entries
// of the keys it watches. The entries sit with the key's slot, on the slot's owner: every write
// there (Store::Put, Store::Delete, FLUSHDB/FLUSHALL of the slot) marks the watches of the key
// dirty, as Redis's touchWatchedKey does. EXEC reads the flag once it holds the slots of its
// watched keys, so no write can come between the check and the commands. UNWATCH, EXEC,
// DISCARD and a closing connection drop the client's Watch and remove its entries on their
// owners; an entry found after its client moved on only marks a flag nobody reads.
//
// Thread rule: slot s's entries are touched only on s's owner; a Watch's flag by any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slotkv::txn {

// One client's WATCH session.
struct Watch {
  // Set by a write of a watched key (any worker); read by the client's EXEC.
  std::atomic<bool> dirty{false};
};

class WatchedKeys {
 public:
  explicit WatchedKeys(uint32_t slots);

  // Adds w to the watchers of key of db, which lives in slot s. REQUIRES: on s's owner.
  void Add(uint32_t s, uint32_t db, std::string_view key, const std::shared_ptr<Watch>& w);
  // Removes w from the watchers of key. REQUIRES: on s's owner.
  void Remove(uint32_t s, uint32_t db, std::string_view key, const Watch* w);
  // key of db (slot s) was written: its watchers are marked dirty. REQUIRES: on s's owner.
  void Touch(uint32_t s, uint32_t db, std::string_view key) {
    if (!by_slot_[s]) return;  // the common case: nobody watches a key of s
    TouchKey(s, db, key);
  }
  // Database db of slot s is about to be emptied (FLUSHDB, FLUSHALL): the watchers of its keys
  // for which exists(key) is true are marked dirty (a watched key that was not there stays
  // untouched, as in Redis). REQUIRES: on s's owner.
  void TouchFlushed(uint32_t s, uint32_t db, const std::function<bool(std::string_view)>& exists);

 private:
  struct KeyHash {
    size_t operator()(const std::pair<uint32_t, std::string>& k) const {
      return std::hash<std::string>()(k.second) ^ (size_t{k.first} * 0x9e3779b97f4a7c15ull);
    }
  };
  using Map = std::unordered_map<std::pair<uint32_t, std::string>,
                                 std::vector<std::shared_ptr<Watch>>, KeyHash>;
  void TouchKey(uint32_t s, uint32_t db, std::string_view key);

  std::vector<std::unique_ptr<Map>> by_slot_;  // [slot]; null while nothing is watched there
};

}  // namespace slotkv::txn
