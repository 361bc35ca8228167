#include "core/acl/users.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace slotkv::acl {
namespace {

constexpr int64_t kLogGroupingMs = 60000;
constexpr size_t kLogScan = 10;

std::string_view Trim(std::string_view s, std::string_view chars) {
  const size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(chars);
  return s.substr(b, e - b + 1);
}

}  // namespace

Users::Users(Catalog catalog) : catalog_(std::move(catalog)) {
  users_.emplace("default", std::make_shared<const User>(DefaultUser(catalog_)));
}

std::shared_ptr<const User> Users::Get(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const User>> Users::All() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<const User>> all;
  for (const auto& [name, user] : users_) all.push_back(user);
  return all;
}

void Users::Publish(std::map<std::string, std::shared_ptr<const User>, std::less<>> users) {
  const User& d = *users.at("default");
  auth_required_.store(!(d.flags & kNoPass) || (d.flags & kOff), std::memory_order_relaxed);
  users_ = std::move(users);
  version_.fetch_add(1, std::memory_order_acq_rel);
}

std::string Users::SetUser(std::string_view name, std::span<const std::string> rules,
                           std::shared_ptr<const User>* before) {
  if (HasSpaces(name)) return "ERR Usernames can't contain spaces or null characters";
  size_t unclosed = 0;
  std::optional<std::vector<std::string>> merged = MergeSelectorRules(rules, &unclosed);
  if (!merged) {
    return "ERR Unmatched parenthesis in acl selector starting at '" + rules[unclosed] + "'.";
  }
  std::lock_guard lock(mu_);
  auto it = users_.find(name);
  const bool all_channels = all_channels_.load();
  User user = it == users_.end() ? NewUser(name, all_channels) : *it->second;
  for (const std::string& rule : *merged) {
    if (std::optional<std::string> why = Apply(user, catalog_, rule, all_channels)) {
      return "ERR Error in ACL SETUSER modifier '" + rule + "': " + *why;
    }
  }
  if (before) *before = it == users_.end() ? nullptr : it->second;
  auto users = users_;
  users[std::string(name)] = std::make_shared<const User>(std::move(user));
  Publish(std::move(users));
  return "";
}

bool Users::Delete(std::string_view name) {
  std::lock_guard lock(mu_);
  auto it = users_.find(name);
  if (it == users_.end() || name == "default") return false;
  auto users = users_;
  users.erase(std::string(name));
  Publish(std::move(users));
  return true;
}

void Users::SetDefaultPassword(std::string_view password) {
  std::lock_guard lock(mu_);
  User user = *users_.at("default");
  Apply(user, catalog_, "resetpass");
  Apply(user, catalog_, password.empty() ? std::string("nopass") : ">" + std::string(password));
  auto users = users_;
  users["default"] = std::make_shared<const User>(std::move(user));
  Publish(std::move(users));
}

std::string Users::Load(const std::string& path, std::vector<std::string>* dropped) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return "ERR Error loading ACLs, opening file '" + path + "': " + std::strerror(errno);
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  std::map<std::string, std::shared_ptr<const User>, std::less<>> users;
  std::string errors;
  size_t start = 0;
  for (int linenum = 1; start <= all.size(); ++linenum) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    const std::string_view line = Trim(std::string_view(all).substr(start, end - start),
                                       " \t\r\n");
    start = end + 1;
    if (line.empty()) continue;
    const std::vector<std::string> words = SplitWords(line);
    const std::string where = path + ":" + std::to_string(linenum);
    if (words[0] != "user" || words.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (HasSpaces(words[1])) {
      errors += "'" + where + ": username '" + words[1] + "' contains invalid characters. ";
      continue;
    }
    if (users.count(words[1])) {
      errors += "WARNING: Duplicate user '" + words[1] + "' found on line " +
                std::to_string(linenum) + ". ";
      continue;
    }
    std::optional<std::vector<std::string>> rules =
        MergeSelectorRules(std::span(words).subspan(2), nullptr);
    if (!rules) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      continue;
    }
    User user = NewUser(words[1], all_channels_.load());
    bool syntax_error = false;
    for (std::string& rule : *rules) {
      rule = std::string(Trim(rule, "\t\r\n"));
      std::optional<std::string> why = Apply(user, catalog_, rule, all_channels_.load());
      if (!why) continue;
      if (*why == "Unknown command or category name in ACL") {
        errors += where + ": Error in applying operation '" + rule + "': " + *why + ". ";
      } else if (!syntax_error) {
        errors += where + ": " + *why + ". ";
        syntax_error = true;
      }
    }
    users.emplace(words[1], std::make_shared<const User>(std::move(user)));
  }
  if (!errors.empty()) {
    return "ERR " + errors +
           "WARNING: ACL errors detected, no change to the previously active ACL rules was "
           "performed";
  }
  if (!users.count("default")) {
    users.emplace("default", std::make_shared<const User>(DefaultUser(catalog_)));
  }
  std::lock_guard lock(mu_);
  if (dropped) {
    for (const auto& [name, user] : users_) {
      if (name != "default") dropped->push_back(name);
    }
  }
  Publish(std::move(users));
  return "";
}

bool Users::Save(const std::string& path) const {
  std::string text;
  for (const std::shared_ptr<const User>& user : All()) {
    text += "user " + user->name + " " + Describe(*user, catalog_) + "\n";
  }
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool synced = written && fsync(fd) == 0;
  close(fd);
  if (!synced || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

void Log::Add(LogEntry entry, size_t max_len) {
  std::lock_guard lock(mu_);
  const size_t scan = std::min(kLogScan, entries_.size());
  for (size_t i = 0; i < scan; ++i) {
    LogEntry& e = entries_[i];
    if (e.reason != entry.reason || e.context != entry.context || e.object != entry.object ||
        e.username != entry.username || std::abs(e.time_ms - entry.time_ms) > kLogGroupingMs) {
      continue;
    }
    LogEntry matched = std::move(e);
    entries_.erase(entries_.begin() + static_cast<ptrdiff_t>(i));
    matched.count++;
    matched.time_ms = entry.time_ms;
    matched.client_info = std::move(entry.client_info);
    entries_.push_front(std::move(matched));
    return;
  }
  entries_.push_front(std::move(entry));
  while (entries_.size() > max_len) entries_.pop_back();
}

std::vector<LogEntry> Log::Latest(size_t count) const {
  std::lock_guard lock(mu_);
  const size_t n = std::min(count, entries_.size());
  return std::vector<LogEntry>(entries_.begin(), entries_.begin() + static_cast<ptrdiff_t>(n));
}

void Log::Reset() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

}  // namespace slotkv::acl
