#include "core/acl/user.h"

#include <nettle/sha2.h>

#include <algorithm>
#include <cctype>

#include "core/base/ascii.h"
#include "core/base/glob.h"
#include "core/base/hash.h"
#include "core/base/secure_compare.h"

namespace slotkv::acl {
namespace {

constexpr size_t kHashLen = 64;  // SHA-256 in hex

// The reasons Apply refuses a rule (Redis's ACLSetUserStringError).
constexpr std::string_view kSyntax = "Syntax error";
constexpr std::string_view kUnknown = "Unknown command or category name in ACL";
constexpr std::string_view kAfterAllKeys =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have "
    "any effect. Try 'resetkeys' to start with an empty list of patterns";
constexpr std::string_view kAfterAllChannels =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not "
    "have any effect. Try 'resetchannels' to start with an empty list of channels";
constexpr std::string_view kNoSuchPassword =
    "The password you are trying to remove from the user does not exist";
constexpr std::string_view kBadHash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
    "characters";
constexpr std::string_view kFirstArgOfSubcommand =
    "Allowing first-arg of a subcommand is not supported";

bool ValidHash(std::string_view hash) {
  return hash.size() == kHashLen && std::all_of(hash.begin(), hash.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// ---- command bits ----------------------------------------------------------------------------

bool Bit(const Selector& s, int id) {
  const size_t i = static_cast<size_t>(id);
  return i / 64 < s.allowed.size() && (s.allowed[i / 64] >> (i % 64)) & 1;
}

void SetBit(Selector& s, int id, bool on) {
  const size_t i = static_cast<size_t>(id);
  if (s.allowed.size() <= i / 64) s.allowed.resize(i / 64 + 1, 0);
  if (on) {
    s.allowed[i / 64] |= uint64_t{1} << (i % 64);
  } else {
    s.allowed[i / 64] &= ~(uint64_t{1} << (i % 64));
    s.all_commands = false;
  }
}

void SetAll(Selector& s, const Catalog& catalog, bool on) {
  s.allowed.assign((catalog.size() + 63) / 64, 0);
  if (on) {
    for (size_t id = 0; id < catalog.size(); ++id) SetBit(s, static_cast<int>(id), true);
  }
  s.all_commands = on;
  s.future = on;
  s.first_args.clear();
}

// Allows or denies a command, and a container's subcommands with it (ACLChangeSelectorPerm).
void ChangePerm(Selector& s, const Catalog& catalog, int id, bool on) {
  SetBit(s, id, on);
  s.first_args.erase(id);
  for (int sub : catalog[static_cast<size_t>(id)].subcommands) SetBit(s, sub, on);
}

void ChangeCategory(Selector& s, const Catalog& catalog, uint32_t bit, bool on) {
  for (size_t id = 0; id < catalog.size(); ++id) {
    if (catalog[id].categories & bit) ChangePerm(s, catalog, static_cast<int>(id), on);
  }
}

std::optional<int> FindCommand(const Catalog& catalog, std::string_view name) {
  for (size_t id = 0; id < catalog.size(); ++id) {
    if (EqualsIgnoreCase(catalog[id].name, name)) return static_cast<int>(id);
  }
  return std::nullopt;
}

// ---- selector rules --------------------------------------------------------------------------

std::optional<std::string_view> AddKeyPattern(Selector& s, std::string_view rule) {
  if (s.all_keys) return kAfterAllKeys;
  uint8_t access = 0;
  size_t at = 1;
  if (rule[0] == '%') {
    for (; at < rule.size(); ++at) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(rule[at])));
      if (c == 'R' && !(access & kRead)) {
        access |= kRead;
      } else if (c == 'W' && !(access & kWrite)) {
        access |= kWrite;
      } else if (rule[at] == '~') {
        ++at;
        break;
      } else {
        return kSyntax;
      }
    }
    if (access == 0) return kSyntax;
  } else {
    access = kRead | kWrite;
  }
  const std::string_view pattern = rule.substr(std::min(at, rule.size()));
  if (HasSpaces(pattern)) return kSyntax;
  auto it = std::find_if(s.keys.begin(), s.keys.end(),
                         [&](const KeyPattern& k) { return k.pattern == pattern; });
  if (it == s.keys.end()) {
    s.keys.push_back({std::string(pattern), access});
  } else {
    it->access |= access;
  }
  return std::nullopt;
}

std::optional<std::string_view> AddChannel(Selector& s, std::string_view pattern) {
  if (s.all_channels) return kAfterAllChannels;
  if (HasSpaces(pattern)) return kSyntax;
  if (std::find(s.channels.begin(), s.channels.end(), pattern) == s.channels.end()) {
    s.channels.emplace_back(pattern);
  }
  return std::nullopt;
}

// +name, +name|sub, +name|first-arg.
std::optional<std::string_view> AllowCommand(Selector& s, const Catalog& catalog,
                                             std::string_view name) {
  const size_t bar = name.rfind('|');
  if (bar == std::string_view::npos) {
    std::optional<int> id = FindCommand(catalog, name);
    if (!id) return kUnknown;
    ChangePerm(s, catalog, *id, true);
    return std::nullopt;
  }
  std::optional<int> id = FindCommand(catalog, name.substr(0, bar));
  if (!id) return kUnknown;
  const CommandInfo& cmd = catalog[static_cast<size_t>(*id)];
  if (cmd.parent >= 0) return kFirstArgOfSubcommand;
  const std::string_view arg = name.substr(bar + 1);
  if (arg.empty()) return kSyntax;
  if (!cmd.subcommands.empty()) {
    std::optional<int> sub = FindCommand(catalog, name);
    if (!sub) return kUnknown;
    ChangePerm(s, catalog, *sub, true);
    return std::nullopt;
  }
  // A first argument of an otherwise denied command (deprecated in Redis, still accepted);
  // nothing to add while the whole command is allowed.
  if (Bit(s, *id)) return std::nullopt;
  std::vector<std::string>& args = s.first_args[*id];
  if (std::none_of(args.begin(), args.end(), [&](const std::string& a) { return EqualsIgnoreCase(a, arg); })) {
    args.emplace_back(arg);
  }
  return std::nullopt;
}

std::optional<std::string_view> ApplyToSelector(Selector& s, const Catalog& catalog,
                                                std::string_view rule) {
  if (EqualsIgnoreCase(rule, "allkeys") || rule == "~*") {
    s.all_keys = true;
    s.keys.clear();
  } else if (EqualsIgnoreCase(rule, "resetkeys")) {
    s.all_keys = false;
    s.keys.clear();
  } else if (EqualsIgnoreCase(rule, "allchannels") || rule == "&*") {
    s.all_channels = true;
    s.channels.clear();
  } else if (EqualsIgnoreCase(rule, "resetchannels")) {
    s.all_channels = false;
    s.channels.clear();
  } else if (EqualsIgnoreCase(rule, "allcommands") || EqualsIgnoreCase(rule, "+@all")) {
    SetAll(s, catalog, true);
  } else if (EqualsIgnoreCase(rule, "nocommands") || EqualsIgnoreCase(rule, "-@all")) {
    SetAll(s, catalog, false);
  } else if (rule[0] == '~' || rule[0] == '%') {
    return AddKeyPattern(s, rule);
  } else if (rule[0] == '&') {
    return AddChannel(s, rule.substr(1));
  } else if ((rule[0] == '+' || rule[0] == '-') && rule.size() > 1 && rule[1] == '@') {
    const uint32_t bit = CategoryBit(rule.substr(2));
    if (bit == 0) return kUnknown;
    ChangeCategory(s, catalog, bit, rule[0] == '+');
  } else if (rule[0] == '+') {
    return AllowCommand(s, catalog, rule.substr(1));
  } else if (rule[0] == '-') {
    std::optional<int> id = FindCommand(catalog, rule.substr(1));
    if (!id) return kUnknown;
    ChangePerm(s, catalog, *id, false);
  } else {
    return kSyntax;
  }
  return std::nullopt;
}

// ---- checks ----------------------------------------------------------------------------------

bool KeyAllowed(const Selector& s, std::string_view key, uint8_t access) {
  if (s.all_keys) return true;
  return std::any_of(s.keys.begin(), s.keys.end(), [&](const KeyPattern& p) {
    return (p.access & access) == access && GlobMatch(p.pattern, key);
  });
}

bool InChannels(const std::vector<std::string>& patterns, std::string_view channel,
                bool literal) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return literal ? p == channel : GlobMatch(p, channel);
  });
}

bool CommandAllowed(const Selector& s, const Catalog& catalog, const Call& call) {
  if (s.all_commands || catalog[static_cast<size_t>(call.id)].no_auth || Bit(s, call.id)) {
    return true;
  }
  auto it = s.first_args.find(call.id);
  const size_t at = catalog[static_cast<size_t>(call.id)].parent >= 0 ? 2 : 1;
  if (it == s.first_args.end() || call.args.size() <= at) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const std::string& a) { return EqualsIgnoreCase(a, call.args[at]); });
}

Verdict CheckSelector(const Selector& s, const Catalog& catalog, const Call& call) {
  if (!CommandAllowed(s, catalog, call)) return {Denial::kCommand, 0};
  if (!s.all_keys) {
    for (const Call::Key& k : call.keys) {
      if (!KeyAllowed(s, call.args[k.pos], k.access)) return {Denial::kKey, k.pos};
    }
  }
  if (!s.all_channels) {
    for (size_t pos : call.channels) {
      if (!InChannels(s.channels, call.args[pos], call.channel_patterns)) {
        return {Denial::kChannel, pos};
      }
    }
  }
  return {};
}

void Refresh(User& user) {
  const Selector& root = user.selectors.front();
  user.unrestricted = root.all_commands && root.all_keys && root.all_channels;
}

// ---- descriptions ----------------------------------------------------------------------------

// How many commands of a category a selector allows (on) and denies (off).
void CountCategory(const Selector& s, const Catalog& catalog, uint32_t bit, size_t* on,
                   size_t* off) {
  *on = *off = 0;
  for (size_t id = 0; id < catalog.size(); ++id) {
    if (!(catalog[id].categories & bit)) continue;
    (Bit(s, static_cast<int>(id)) ? *on : *off) += 1;
  }
}

// Emits the single-command rules that make fake's bits equal s's, each container followed by
// its subcommands (ACLDescribeSelectorCommandRulesSingleCommands).
void DescribeSingles(const Selector& s, Selector& fake, const Catalog& catalog, int id,
                     std::string& out) {
  const CommandInfo& cmd = catalog[static_cast<size_t>(id)];
  const bool user_bit = Bit(s, id);
  if (user_bit != Bit(fake, id)) {
    out += user_bit ? '+' : '-';
    out += cmd.name;
    out += ' ';
    ChangePerm(fake, catalog, id, user_bit);
  }
  for (int sub : cmd.subcommands) DescribeSingles(s, fake, catalog, sub, out);
  auto it = s.first_args.find(id);
  if (!user_bit && it != s.first_args.end()) {
    for (const std::string& arg : it->second) out += "+" + cmd.name + "|" + arg + " ";
  }
}

}  // namespace

uint32_t CategoryBit(std::string_view name) {
  for (size_t i = 0; i < kCategoryCount; ++i) {
    if (EqualsIgnoreCase(kCategories[i], name)) return uint32_t{1} << i;
  }
  return 0;
}

uint32_t CategoryBits(std::string_view names) {
  uint32_t bits = 0;
  for (const std::string& name : SplitWords(names)) bits |= CategoryBit(name);
  return bits;
}

User NewUser(std::string_view name, bool all_channels) {
  User user;
  user.name = std::string(name);
  Selector root;
  root.root = true;
  root.all_channels = all_channels;
  user.selectors.push_back(std::move(root));
  return user;
}

User DefaultUser(const Catalog& catalog) {
  User user = NewUser("default");
  for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) {
    Apply(user, catalog, rule);
  }
  return user;
}

std::optional<std::string> Apply(User& user, const Catalog& catalog, std::string_view rule,
                                 bool all_channels) {
  std::optional<std::string_view> why;
  if (rule.empty()) return std::nullopt;
  if (EqualsIgnoreCase(rule, "on")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kOff) | kOn);
  } else if (EqualsIgnoreCase(rule, "off")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kOn) | kOff);
  } else if (EqualsIgnoreCase(rule, "skip-sanitize-payload")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kSanitizePayload) | kSkipSanitizePayload);
  } else if (EqualsIgnoreCase(rule, "sanitize-payload")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kSkipSanitizePayload) | kSanitizePayload);
  } else if (EqualsIgnoreCase(rule, "nopass")) {
    user.flags |= kNoPass;
    user.passwords.clear();
  } else if (EqualsIgnoreCase(rule, "resetpass")) {
    user.flags &= static_cast<uint8_t>(~kNoPass);
    user.passwords.clear();
  } else if (rule[0] == '>' || rule[0] == '#') {
    std::string hash = rule[0] == '>' ? HashPassword(rule.substr(1)) : std::string(rule.substr(1));
    if (rule[0] == '#' && !ValidHash(hash)) return std::string(kBadHash);
    if (std::find(user.passwords.begin(), user.passwords.end(), hash) == user.passwords.end()) {
      user.passwords.push_back(std::move(hash));
    }
    user.flags &= static_cast<uint8_t>(~kNoPass);
  } else if (rule[0] == '<' || rule[0] == '!') {
    std::string hash = rule[0] == '<' ? HashPassword(rule.substr(1)) : std::string(rule.substr(1));
    if (rule[0] == '!' && !ValidHash(hash)) return std::string(kBadHash);
    auto it = std::find(user.passwords.begin(), user.passwords.end(), hash);
    if (it == user.passwords.end()) return std::string(kNoSuchPassword);
    user.passwords.erase(it);
  } else if (rule.front() == '(' && rule.back() == ')') {
    Selector s;
    s.all_channels = all_channels;
    for (const std::string& word : SplitWords(rule.substr(1, rule.size() - 2))) {
      if (word.empty()) continue;
      if (std::optional<std::string_view> bad = ApplyToSelector(s, catalog, word)) {
        return std::string(*bad);
      }
    }
    user.selectors.push_back(std::move(s));
  } else if (EqualsIgnoreCase(rule, "clearselectors")) {
    user.selectors.resize(1);
  } else if (EqualsIgnoreCase(rule, "reset")) {
    for (std::string_view r : {"resetpass", "resetkeys", "resetchannels", "off",
                               "sanitize-payload", "clearselectors", "-@all"}) {
      Apply(user, catalog, r);
    }
    if (all_channels) Apply(user, catalog, "allchannels");
  } else {
    why = ApplyToSelector(user.selectors.front(), catalog, rule);
  }
  Refresh(user);
  if (why) return std::string(*why);
  return std::nullopt;
}

bool HasSpaces(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return c == '\0' || std::isspace(static_cast<unsigned char>(c));
  });
}

std::vector<std::string> SplitWords(std::string_view line) {
  std::vector<std::string> words;
  for (;;) {
    const size_t space = line.find(' ');
    words.emplace_back(line.substr(0, space));
    if (space == std::string_view::npos) break;
    line.remove_prefix(space + 1);
  }
  return words;
}

std::optional<std::vector<std::string>> MergeSelectorRules(std::span<const std::string> rules,
                                                           size_t* unclosed) {
  std::vector<std::string> out;
  std::string selector;
  std::optional<size_t> open;
  for (size_t i = 0; i < rules.size(); ++i) {
    const std::string& r = rules[i];
    if (!open && !r.empty() && r.front() == '(' && r.back() != ')') {
      selector = r;
      open = i;
      continue;
    }
    if (open) {
      selector += " " + r;
      if (!r.empty() && r.back() == ')') {
        out.push_back(std::move(selector));
        open.reset();
      }
      continue;
    }
    out.push_back(r);
  }
  if (open) {
    if (unclosed) *unclosed = *open;
    return std::nullopt;
  }
  return out;
}

std::string HashPassword(std::string_view password) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, password.size(), reinterpret_cast<const uint8_t*>(password.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  return HexLower(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

bool PasswordMatches(const User& user, std::string_view password) {
  if (user.flags & kOff) return false;
  if (user.flags & kNoPass) return true;
  const std::string hash = HashPassword(password);
  bool match = false;
  for (const std::string& p : user.passwords) match |= SecureEquals(hash, p);
  return match;
}

std::string DescribeCommands(const Selector& selector, const Catalog& catalog) {
  // Redis 7.0's reconstruction: start from +@all or -@all, add the categories that fit best,
  // then the single commands that still differ; fake tracks what the rules so far give.
  const bool additive = !selector.future;
  std::string out = additive ? "-@all " : "+@all ";
  Selector fake;
  SetAll(fake, catalog, !additive);
  Selector temp;
  temp.allowed = selector.allowed;
  bool applied[kCategoryCount] = {};
  for (;;) {
    int best = -1;
    size_t min_diff = SIZE_MAX, max_same = 0;
    for (size_t j = 0; j < kCategoryCount; ++j) {
      if (applied[j]) continue;
      size_t on, off;
      CountCategory(temp, catalog, uint32_t{1} << j, &on, &off);
      const size_t diff = additive ? off : on;
      const size_t same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = static_cast<int>(j);
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    const uint32_t bit = uint32_t{1} << best;
    ChangeCategory(fake, catalog, bit, additive);
    ChangeCategory(temp, catalog, bit, !additive);
    out += (additive ? "+@" : "-@") + std::string(kCategories[best]) + " ";
    applied[best] = true;
  }
  for (size_t id = 0; id < catalog.size(); ++id) {
    if (catalog[id].parent < 0) DescribeSingles(selector, fake, catalog, static_cast<int>(id), out);
  }
  out.pop_back();
  return out;
}

std::string DescribeKeys(const Selector& selector) {
  if (selector.all_keys) return "~*";
  std::string out;
  for (const KeyPattern& k : selector.keys) {
    if (!out.empty()) out += ' ';
    // "~*" would read back as allkeys, which refuses the patterns after it (Redis writes it
    // so, and then cannot load its own ACL file): a full * pattern is "%RW~*".
    if (k.access == (kRead | kWrite)) {
      out += k.pattern == "*" ? "%RW~" : "~";
    } else {
      out += k.access == kRead ? "%R~" : "%W~";
    }
    out += k.pattern;
  }
  return out;
}

std::string DescribeChannels(const Selector& selector) {
  if (selector.all_channels) return "&*";
  std::string out;
  for (const std::string& c : selector.channels) {
    if (!out.empty()) out += ' ';
    out += "&" + c;
  }
  return out;
}

std::vector<std::string_view> FlagNames(const User& user) {
  static constexpr std::pair<UserFlag, std::string_view> kNames[] = {
      {kOn, "on"},
      {kOff, "off"},
      {kNoPass, "nopass"},
      {kSkipSanitizePayload, "skip-sanitize-payload"},
      {kSanitizePayload, "sanitize-payload"}};
  std::vector<std::string_view> names;
  for (const auto& [flag, name] : kNames) {
    if (user.flags & flag) names.push_back(name);
  }
  return names;
}

std::string Describe(const User& user, const Catalog& catalog) {
  std::string out;
  for (std::string_view flag : FlagNames(user)) out += std::string(flag) + " ";
  for (const std::string& p : user.passwords) out += "#" + p + " ";
  for (const Selector& s : user.selectors) {
    std::string text;
    if (s.all_keys) {
      text += "~* ";
    } else if (!s.keys.empty()) {
      text += DescribeKeys(s) + " ";
    }
    text += s.all_channels ? "&* " : "resetchannels ";
    if (!s.all_channels && !s.channels.empty()) text += DescribeChannels(s) + " ";
    text += DescribeCommands(s, catalog);
    out += s.root ? text : " (" + text + ")";
  }
  return out;
}

Verdict Check(const User& user, const Catalog& catalog, const Call& call) {
  Verdict relevant{Denial::kCommand, 0};
  for (const Selector& s : user.selectors) {
    const Verdict v = CheckSelector(s, catalog, call);
    if (v.ok()) return v;
    if (v.denial > relevant.denial || (v.denial == relevant.denial && v.pos > relevant.pos)) {
      relevant = v;
    }
  }
  return relevant;
}

bool UnrestrictedKeyAccess(const User& user, const Catalog& catalog, const Call& call,
                           uint8_t access) {
  for (const Selector& s : user.selectors) {
    if (!CheckSelector(s, catalog, call).ok()) continue;
    if (s.all_keys) return true;
    for (const KeyPattern& k : s.keys) {
      if ((k.access & access) == access && k.pattern == "*") return true;
    }
  }
  return false;
}

bool ChannelAllowed(const User& user, std::string_view channel, bool literal) {
  return std::any_of(user.selectors.begin(), user.selectors.end(), [&](const Selector& s) {
    return s.all_channels || InChannels(s.channels, channel, literal);
  });
}

}  // namespace slotkv::acl
