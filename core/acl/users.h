// The server's ACL users and its ACL LOG, shared by every worker.
//
// Users are immutable once published: a change builds a new User and swaps it in, so a worker
// reads one with no lock held. A connection keeps a shared_ptr to its user and the version it
// was read at; version() moves on every change, and the connection then fetches its user again
// (Get) before its next command.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/acl/user.h"

namespace slotkv::acl {

class Users {
 public:
  // Starts with the default user only (on, nopass, ~* &* +@all).
  explicit Users(Catalog catalog);

  const Catalog& catalog() const { return catalog_; }
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // The user called name, or nullptr.
  std::shared_ptr<const User> Get(std::string_view name) const;
  std::shared_ptr<const User> Default() const { return Get("default"); }
  // Every user, by name.
  std::vector<std::shared_ptr<const User>> All() const;
  // Whether a new connection must authenticate: the default user has a password or is off.
  bool auth_required() const { return auth_required_.load(std::memory_order_relaxed); }

  // ACL SETUSER name rules...: all rules apply to a copy, which then replaces (or becomes) the
  // user; nothing changes when one fails. The error reply text, or "" when done. *before gets
  // the user as it was (nullptr when new).
  std::string SetUser(std::string_view name, std::span<const std::string> rules,
                      std::shared_ptr<const User>* before = nullptr);
  // Removes name; false when there is none. REQUIRES: name is not "default".
  bool Delete(std::string_view name);
  // requirepass: the default user's only password, or nopass when empty.
  void SetDefaultPassword(std::string_view password);
  // acl-pubsub-default: whether new users and selectors (and reset) allow every channel.
  void SetPubsubDefault(bool all_channels) { all_channels_.store(all_channels); }

  // ACL LOAD (and aclfile at start): replaces every user with the file's (a default user
  // missing from the file gets a fresh one's rules). The error reply text (nothing changed) or
  // "". *dropped gets the names of the users replaced but default, whose connections Redis
  // closes.
  std::string Load(const std::string& path, std::vector<std::string>* dropped = nullptr);
  // ACL SAVE: writes ACL LIST's lines to a temporary file renamed over path. False on I/O
  // failure.
  bool Save(const std::string& path) const;

 private:
  void Publish(std::map<std::string, std::shared_ptr<const User>, std::less<>> users);

  const Catalog catalog_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const User>, std::less<>> users_;
  std::atomic<uint64_t> version_{1};
  std::atomic<bool> auth_required_{false};
  std::atomic<bool> all_channels_{false};
};

// Where a denial happened, as ACL LOG names it.
enum class Context : uint8_t { kToplevel, kMulti, kLua };

struct LogEntry {
  uint64_t count = 1;
  Denial reason = Denial::kCommand;
  Context context = Context::kToplevel;
  std::string object;    // the command, key, channel, or AUTH as typed
  std::string username;
  int64_t time_ms = 0;   // of the latest occurrence
  std::string client_info;
};

// ACL LOG: the latest denials first; an entry like one of the 10 latest (same reason, context,
// object and user, within a minute) is counted in it and moved to the front.
class Log {
 public:
  void Add(LogEntry entry, size_t max_len);
  // The count latest entries.
  std::vector<LogEntry> Latest(size_t count) const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::deque<LogEntry> entries_;
};

}  // namespace slotkv::acl
