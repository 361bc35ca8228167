// One ACL user as Redis 7.0 has it: flags, SHA-256 password hashes, and selectors (the root one
// and those added with `(...)`), each allowing commands (a bit per command id, plus first-arg
// exceptions), key patterns with read/write permissions, and channel patterns.
//
// The rules (ACL SETUSER's words) are applied with Apply; Describe gives them back as ACL LIST
// shows them; Check says whether a call may run. What the ACL knows of the commands comes from
// the command table as a Catalog (core/acl knows no command of its own).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::acl {

// Redis 7.0's command categories, in its order (ACL CAT, COMMAND INFO, rule descriptions).
inline constexpr std::string_view kCategories[] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};
inline constexpr size_t kCategoryCount = std::size(kCategories);

// The bit (1 << index in kCategories) of a category name, any case; 0 for none.
uint32_t CategoryBit(std::string_view name);
// The bits of space-separated category names ("write string slow").
uint32_t CategoryBits(std::string_view names);

// A command or subcommand as the ACL sees it; Catalog[id] for every command table id.
struct CommandInfo {
  std::string name;             // "get", "config|get"
  uint32_t categories = 0;      // CategoryBits
  bool no_auth = false;         // runs whatever the rules (AUTH, HELLO, QUIT)
  int parent = -1;              // a subcommand's container
  std::vector<int> subcommands = {};  // a container's
};
using Catalog = std::vector<CommandInfo>;

// What a key argument does to its value, as Redis's key specs say (ACL's %R~ and %W~).
enum KeyAccess : uint8_t { kRead = 1, kWrite = 2 };

// A call to check: its command id, its arguments (name first), its keys and channels.
struct Call {
  int id = -1;
  std::span<const std::string> args;
  struct Key {
    size_t pos;
    uint8_t access;  // KeyAccess bits; 0: the key's metadata only (any pattern will do)
  };
  std::vector<Key> keys = {};
  std::vector<size_t> channels = {};  // positions of channel arguments
  bool channel_patterns = false;  // PSUBSCRIBE: each must equal an allowed pattern
};

// Why a call is refused; the values order them as Redis's ACL_DENIED_* (the most relevant
// denial of several selectors is the greatest).
enum class Denial : uint8_t { kNone = 0, kCommand = 1, kKey = 2, kAuth = 3, kChannel = 4 };

struct Verdict {
  Denial denial = Denial::kNone;
  size_t pos = 0;  // the denied key or channel argument
  bool ok() const { return denial == Denial::kNone; }
};

struct KeyPattern {
  std::string pattern;
  uint8_t access;  // KeyAccess bits
};

struct Selector {
  bool root = false;
  bool all_keys = false;
  bool all_channels = false;
  bool all_commands = false;  // every command, and no bit was cleared since +@all
  bool future = false;        // the rules start from +@all (Redis's reserved command bit)
  std::vector<uint64_t> allowed;  // a bit per command id
  std::map<int, std::vector<std::string>> first_args;  // id -> allowed args[1] (+select|0)
  std::vector<KeyPattern> keys;
  std::vector<std::string> channels;
};

// User flags in the order ACL LIST names them.
enum UserFlag : uint8_t {
  kOn = 1,
  kOff = 2,
  kNoPass = 4,
  kSkipSanitizePayload = 8,
  kSanitizePayload = 16,
};

struct User {
  std::string name;
  uint8_t flags = kOff;
  std::vector<std::string> passwords;  // SHA-256 of each, lower-case hex, in the order added
  std::vector<Selector> selectors;     // [0]: the root selector
  // The root allows every command, key and channel: Check has nothing to look at.
  bool unrestricted = false;
};

// A new user named name: off, no password, no command or key, and no channel or every channel
// as acl-pubsub-default says (all_channels).
User NewUser(std::string_view name, bool all_channels = false);
// The default user of a fresh server: on, nopass, ~* &* +@all.
User DefaultUser(const Catalog& catalog);

// Applies one rule of ACL SETUSER ("on", ">pw", "~k*", "+@read", "(~a* +get)" ...). The reason
// it is refused ("Syntax error" ...) as Redis's ACLSetUserStringError, else nullopt.
// all_channels: acl-pubsub-default is allchannels (a new selector, and reset, allow every
// channel).
std::optional<std::string> Apply(User& user, const Catalog& catalog, std::string_view rule,
                                 bool all_channels = false);
// Whether s has a space or NUL: user names and patterns may not (Redis's ACLStringHasSpaces).
bool HasSpaces(std::string_view s);
// Splits a line of rules (ACL file, ACL LIST) on single spaces, as Redis's sdssplitlen: two
// spaces give an empty word.
std::vector<std::string> SplitWords(std::string_view line);
// Joins rules split across arguments into whole selectors ("(~a*", "+get)" -> "(~a* +get)");
// nullopt with the index of the unclosed one's first argument.
std::optional<std::vector<std::string>> MergeSelectorRules(std::span<const std::string> rules,
                                                           size_t* unclosed);

// The SHA-256 of password in lower-case hex.
std::string HashPassword(std::string_view password);
// Whether password opens user (on, and nopass or one hash matches). Time-independent compare.
bool PasswordMatches(const User& user, std::string_view password);

// The rules that rebuild the user, as ACL LIST shows them after "user <name> ".
std::string Describe(const User& user, const Catalog& catalog);
// A selector's command rules ("+@all -get"), key patterns ("~a* %R~b") and channels ("&c").
std::string DescribeCommands(const Selector& selector, const Catalog& catalog);
std::string DescribeKeys(const Selector& selector);
std::string DescribeChannels(const Selector& selector);
// The flag names of user, in ACL LIST's order.
std::vector<std::string_view> FlagNames(const User& user);

// Whether user may run call: the first selector that allows it, else the most relevant denial.
Verdict Check(const User& user, const Catalog& catalog, const Call& call);
// Whether some selector of user that allows command id may access every key as access says
// (SORT BY / GET patterns).
bool UnrestrictedKeyAccess(const User& user, const Catalog& catalog, const Call& call,
                           uint8_t access);
// Whether user may use channel; literal: a pattern (PSUBSCRIBE) must equal one of its own.
bool ChannelAllowed(const User& user, std::string_view channel, bool literal);

}  // namespace slotkv::acl
