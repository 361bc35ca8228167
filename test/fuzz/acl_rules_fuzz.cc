// Fuzz target: core/acl's rules: ACL SETUSER's words applied to a user (Apply, selectors
// merged across words), its description, and the checks.
//
// Input: text; each line is one ACL SETUSER's rules, split on spaces.
//
// Checks: applying rules returns an error or changes the user, never crashes; the description
// of the user (ACL LIST's rules, Redis's reconstruction from +@all / -@all, categories and
// single commands) applied to a new user gives a user with the same commands (every command
// bit, the future-commands flag), keys, channels, flags and passwords, whose description is
// the same text (Redis asserts the bitmap half of this); Check of a few calls answers.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/acl/test_catalog.h"
#include "core/acl/user.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::fuzz {
namespace {

const acl::Catalog& TheCatalog() {
  static const acl::Catalog catalog = acl::TestCatalog();
  return catalog;
}

// Applies words (ACL SETUSER's rules) to a copy of user; the copy when all applied, else
// nullopt with *refused the rule that was not.
std::optional<acl::User> ApplyAll(const acl::User& user, const std::vector<std::string>& words,
                                  std::string* refused = nullptr) {
  std::optional<std::vector<std::string>> rules = acl::MergeSelectorRules(words, nullptr);
  if (!rules) return std::nullopt;
  acl::User copy = user;
  for (const std::string& rule : *rules) {
    if (std::optional<std::string> why = acl::Apply(copy, TheCatalog(), rule)) {
      if (refused) *refused = rule + ": " + *why;
      return std::nullopt;
    }
  }
  return copy;
}

bool SameSelector(const acl::Selector& a, const acl::Selector& b) {
  for (size_t id = 0; id < TheCatalog().size(); ++id) {
    auto bit = [&](const acl::Selector& s) {
      return id / 64 < s.allowed.size() && ((s.allowed[id / 64] >> (id % 64)) & 1);
    };
    if (bit(a) != bit(b)) return false;
  }
  // (%RW~* reads back as allkeys, the same keys: compared by their description.)
  return a.future == b.future && a.all_channels == b.all_channels &&
         acl::DescribeKeys(a) == acl::DescribeKeys(b) &&
         acl::DescribeChannels(a) == acl::DescribeChannels(b) && a.first_args == b.first_args;
}

// Whether a selector after the root names a pattern or first argument ending in ')': its
// description then closes the selector early, so it cannot be read back (Redis's too).
bool Ambiguous(const acl::User& user) {
  for (size_t i = 1; i < user.selectors.size(); ++i) {
    const acl::Selector& s = user.selectors[i];
    auto closes = [](std::string_view w) { return !w.empty() && w.back() == ')'; };
    for (const acl::KeyPattern& k : s.keys) {
      if (closes(k.pattern)) return true;
    }
    for (const std::string& c : s.channels) {
      if (closes(c)) return true;
    }
    for (const auto& [id, args] : s.first_args) {
      for (const std::string& a : args) {
        if (closes(a)) return true;
      }
    }
  }
  return false;
}

void CheckRoundTrip(const acl::User& user) {
  if (Ambiguous(user)) return;
  const std::string text = acl::Describe(user, TheCatalog());
  std::string refused;
  std::optional<acl::User> again =
      ApplyAll(acl::NewUser(user.name), acl::SplitWords(text), &refused);
  FUZZ_CHECK_MSG(again.has_value(), refused + " in " + text);
  FUZZ_CHECK_MSG(again->flags == user.flags, text);
  FUZZ_CHECK_MSG(again->passwords == user.passwords, text);
  FUZZ_CHECK_MSG(again->selectors.size() == user.selectors.size(), text);
  for (size_t i = 0; i < user.selectors.size(); ++i) {
    FUZZ_CHECK_MSG(SameSelector(again->selectors[i], user.selectors[i]), text);
  }
  FUZZ_CHECK_MSG(acl::Describe(*again, TheCatalog()) == text, text);
}

}  // namespace
}  // namespace slotkv::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv;
  using namespace slotkv::fuzz;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  acl::User user = acl::NewUser("u");
  size_t start = 0;
  while (start <= input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::vector<std::string> words = acl::SplitWords(input.substr(start, end - start));
    if (std::optional<acl::User> next = ApplyAll(user, words)) user = std::move(*next);
    start = end + 1;
  }
  CheckRoundTrip(user);
  const std::vector<std::string> get = {"get", "key"};
  const std::vector<std::string> pub = {"publish", "news", "m"};
  const std::vector<std::string> cfg = {"config", "set", "a", "b"};
  (void)acl::Check(user, TheCatalog(), {.id = 0, .args = get, .keys = {{1, acl::kRead}}});
  (void)acl::Check(user, TheCatalog(), {.id = 6, .args = pub, .channels = {1}});
  (void)acl::Check(user, TheCatalog(), {.id = 5, .args = cfg});
  (void)acl::ChannelAllowed(user, "news", true);
  return 0;
}
