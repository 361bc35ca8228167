#include "core/command/blocking.h"

#include <algorithm>

namespace slotkv::command {

// ---- Waiter ---------------------------------------------------------------------------------

uint32_t Waiter::NewRound() {
  const uint32_t gen = Gen(word_.load()) + 1;
  word_.store(Word(gen, 0, kArmed));
  return gen;
}

std::optional<size_t> Waiter::EndRound(uint32_t gen) {
  uint64_t w = Word(gen, 0, kArmed);
  if (word_.compare_exchange_strong(w, Word(gen, 0, kDone))) return std::nullopt;
  if (Gen(w) == gen && StateOf(w) == kClaimed) return KeyOf(w);
  return std::nullopt;
}

Waiter::Claim Waiter::TryClaim(uint32_t gen, size_t key_index) {
  uint64_t w = word_.load();
  while (Gen(w) == gen && (StateOf(w) == kArmed || StateOf(w) == kParked)) {
    const State was = StateOf(w);
    if (word_.compare_exchange_weak(w, Word(gen, key_index, kClaimed))) {
      return was == kParked ? Claim::kParked : Claim::kEarly;
    }
  }
  return Claim::kNone;
}

bool Waiter::TryPark(uint32_t gen, std::coroutine_handle<> handle) {
  handle_ = handle;
  uint64_t w = Word(gen, 0, kArmed);
  if (!word_.compare_exchange_strong(w, Word(gen, 0, kParked))) return false;
  // A stop requested before the park saw no parked task: take it out ourselves.
  if (stop_.load() != 0) {
    w = Word(gen, 0, kParked);
    if (word_.compare_exchange_strong(w, Word(gen, 0, kDone))) return false;
  }
  return true;
}

bool Waiter::RequestStop(Stop reason) {
  int none = 0;
  stop_.compare_exchange_strong(none, static_cast<int>(reason));
  uint64_t w = word_.load();
  while (StateOf(w) == kParked) {
    if (word_.compare_exchange_weak(w, Word(Gen(w), 0, kDone))) return true;
  }
  return false;
}

Waiter::Outcome Waiter::outcome() const {
  const uint64_t w = word_.load();
  Outcome out;
  if (StateOf(w) == kClaimed) {
    out.key = KeyOf(w);
  } else {
    out.stop = stop();
  }
  return out;
}

// ---- Blocking -------------------------------------------------------------------------------

Blocking::Blocking(ServerState* server, int workers)
    : server_(server), tables_(static_cast<size_t>(workers)) {}

Blocking::Table& Blocking::Here() {
  return tables_[static_cast<size_t>(server_->executor->current())];
}

void Blocking::OnKeyChange(uint32_t db, std::string_view key) {
  Table& t = Here();
  if (t.waiting.empty()) return;
  KeyId id{db, std::string(key)};
  if (!t.waiting.contains(id)) return;
  if (std::find(t.ready.begin(), t.ready.end(), id) == t.ready.end()) {
    t.ready.push_back(std::move(id));
  }
}

void Blocking::OnClear(uint32_t db, uint32_t slot) {
  Table& t = Here();
  for (const auto& [id, entries] : t.waiting) {
    if (id.db != db || server_->keyspace->SlotOfKey(id.key) != slot) continue;
    if (std::find(t.ready.begin(), t.ready.end(), id) == t.ready.end()) t.ready.push_back(id);
  }
}

void Blocking::Add(const std::shared_ptr<Waiter>& waiter, uint32_t gen, size_t key_index,
                   std::string_view key) {
  Table& t = Here();
  t.waiting[KeyId{waiter->db(), std::string(key)}].push_back(
      Entry{waiter, gen, key_index, t.next_seq++});
}

void Blocking::Remove(const Waiter* waiter, std::string_view key) {
  Table& t = Here();
  auto it = t.waiting.find(KeyId{waiter->db(), std::string(key)});
  if (it == t.waiting.end()) return;
  std::erase_if(it->second, [&](const Entry& e) { return e.waiter.get() == waiter; });
  if (it->second.empty()) t.waiting.erase(it);
}

void Blocking::HandBack(uint32_t db, std::string key) {
  const uint32_t slot = server_->keyspace->SlotOfKey(key);
  server_->executor->Post(server_->executor->OwnerOf(slot), [this, db, key = std::move(key)] {
    OnKeyChange(db, key);
    ServeReady();
  });
}

void Blocking::ServeReady() {
  Table& t = Here();
  if (t.serving || t.ready.empty()) return;
  t.serving = true;
  // A key whose slot a transaction holds waits until it is given back (whoever gives it back
  // calls this again): a waiter must not pop what the transaction is still writing.
  std::vector<KeyId> later;
  const txn::SlotLocks& locks = server_->keyspace->locks();
  while (!t.ready.empty()) {
    KeyId id = std::move(t.ready.back());
    t.ready.pop_back();
    if (!locks.Free(server_->keyspace->SlotOfKey(id.key), id.key)) {
      later.push_back(std::move(id));
      continue;
    }
    ServeKey(id);
  }
  for (KeyId& id : later) t.ready.push_back(std::move(id));
  t.serving = false;
}

void Blocking::ServeKey(const KeyId& id) {
  Table& t = Here();
  const uint32_t slot = server_->keyspace->SlotOfKey(id.key);
  const uint64_t pass = t.next_seq;
  while (true) {
    // Looked up again each time: a resumed task may have queued itself anew.
    auto q = t.waiting.find(id);
    if (q == t.waiting.end()) return;
    Store store(server_->keyspace, slot, id.db,
                &(*server_->dirty)[static_cast<size_t>(server_->executor->current())]);
    Result<std::optional<slot::KeyMeta>> meta = store.GetMeta(id.key);
    if (!meta.ok()) return;
    const bool present = meta->has_value();
    const ValueType type = present ? (*meta)->type : ValueType::kString;
    // Claim the first live entry waiting for this type (a stream waiter for any change: it
    // decides itself, and answers XREADGROUP's error when the stream went), queued before this
    // pass (a waiter that looked and queued again waits for the next change); stale entries
    // are dropped on the way.
    std::deque<Entry>& entries = q->second;
    bool claimed = false;
    std::shared_ptr<Waiter> parked;
    for (auto it = entries.begin(); it != entries.end() && !claimed;) {
      const ValueType wants = it->waiter->type();
      if (it->seq >= pass || (wants != ValueType::kStream && (!present || wants != type))) {
        ++it;
        continue;
      }
      Entry e = std::move(*it);
      it = entries.erase(it);
      const Waiter::Claim claim = e.waiter->TryClaim(e.gen, e.key_index);
      if (claim == Waiter::Claim::kNone) continue;
      claimed = true;
      if (claim == Waiter::Claim::kParked) parked = std::move(e.waiter);
    }
    if (entries.empty()) t.waiting.erase(q);
    if (!claimed) return;
    // The task pops here, now. An early claim serves itself later: the key may still have
    // data for the next waiter either way, so look again.
    if (parked) parked->handle().resume();
  }
}

}  // namespace slotkv::command
