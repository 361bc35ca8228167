#include "core/base/glob.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>

// Every expectation here was checked against redis-server 7.0.15 (KEYS for case-sensitive
// cases, CONFIG GET for nocase ones).

namespace slotkv {
namespace {

using namespace std::string_view_literals;

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST_CASE("literal pattern matches only the same bytes") {
  CHECK(GlobMatch("hello", "hello"));
  CHECK_FALSE(GlobMatch("hello", "hellO"));
  CHECK_FALSE(GlobMatch("hello", "hell"));
  CHECK_FALSE(GlobMatch("hell", "hello"));
}

TEST_CASE("question mark matches exactly one byte") {
  CHECK(GlobMatch("h?llo", "hello"));
  CHECK_FALSE(GlobMatch("h?llo", "hllo"));
  CHECK_FALSE(GlobMatch("?", "ab"));
}

TEST_CASE("star matches any run including none") {
  CHECK(GlobMatch("h*llo", "hllo"));
  CHECK(GlobMatch("h*llo", "heeeello"));
  CHECK(GlobMatch("a*", "a"));
  CHECK(GlobMatch("*a", "ba"));
  CHECK_FALSE(GlobMatch("*a", "ab"));
  CHECK(GlobMatch("*", "anything"));
}

TEST_CASE("repeated stars act as one") {
  CHECK(GlobMatch("a**b", "axxb"));
  CHECK(GlobMatch("***", "x"));
  CHECK(GlobMatch(std::string(5000, '*') + "a", "a"));
}

TEST_CASE("empty pattern matches only empty text") {
  CHECK(GlobMatch("", ""));
  CHECK_FALSE(GlobMatch("", "a"));
}

TEST_CASE("empty text matches no nonempty pattern, not even stars") {
  CHECK_FALSE(GlobMatch("a", ""));
  CHECK_FALSE(GlobMatch("*", ""));
  CHECK_FALSE(GlobMatch("**", ""));
  CHECK_FALSE(GlobMatch("?", ""));
}

TEST_CASE("set matches one byte of its members") {
  CHECK(GlobMatch("h[ae]llo", "hallo"));
  CHECK(GlobMatch("h[ae]llo", "hello"));
  CHECK_FALSE(GlobMatch("h[ae]llo", "hillo"));
  CHECK_FALSE(GlobMatch("h[ae]llo", "hllo"));
}

TEST_CASE("negated set matches one byte not in it") {
  CHECK(GlobMatch("h[^e]llo", "hallo"));
  CHECK_FALSE(GlobMatch("h[^e]llo", "hello"));
  CHECK(GlobMatch("[^a-c]", "d"));
  CHECK_FALSE(GlobMatch("[^a-c]", "b"));
}

TEST_CASE("range matches bytes between its bounds") {
  CHECK(GlobMatch("h[a-b]llo", "hbllo"));
  CHECK_FALSE(GlobMatch("h[a-b]llo", "hcllo"));
  CHECK(GlobMatch("[-a]", "-"));  // a leading '-' is itself
}

TEST_CASE("reversed range matches like the ordered one") {
  CHECK(GlobMatch("[z-a]", "m"));
  CHECK_FALSE(GlobMatch("[z-a]", "A"));
}

TEST_CASE("range compares bytes as signed chars") {
  CHECK(GlobMatch("[a-\xff]", "\xff"));
  CHECK(GlobMatch("[a-\xff]", "\x00"sv));
  CHECK_FALSE(GlobMatch("[a-\xff]", "\x80"));
  CHECK_FALSE(GlobMatch("[a-\xff]", "b"));
  CHECK(GlobMatch("[\x80-\xff]", "\x90"));
  CHECK_FALSE(GlobMatch("[\x80-\xff]", "a"));
}

TEST_CASE("range may take the closing bracket as its bound") {
  // "[a-]" is the range ']'..'a' with the set left open: "b" below is a member, not a literal.
  CHECK(GlobMatch("[a-]", "]"));
  CHECK(GlobMatch("[a-]", "_"));
  CHECK_FALSE(GlobMatch("[a-]", "-"));
  CHECK(GlobMatch("[a-]b", "a"));
  CHECK(GlobMatch("[a-]b", "b"));
  CHECK_FALSE(GlobMatch("[a-]b", "ab"));
}

TEST_CASE("escape outside a set matches the next byte literally") {
  CHECK(GlobMatch("\\*", "*"));
  CHECK_FALSE(GlobMatch("\\*", "a"));
  CHECK(GlobMatch("\\?", "?"));
  CHECK_FALSE(GlobMatch("\\?", "a"));
  CHECK(GlobMatch("\\[a]", "[a]"));
  CHECK_FALSE(GlobMatch("\\[a]", "a"));
  CHECK(GlobMatch("\\\\", "\\"));
  CHECK(GlobMatch("\\a", "a"));
  CHECK(GlobMatch("a]", "a]"));  // a stray ']' is itself
}

TEST_CASE("trailing backslash is a literal backslash") {
  CHECK(GlobMatch("a\\", "a\\"));
  CHECK_FALSE(GlobMatch("a\\", "a"));
}

TEST_CASE("escape inside a set adds the next byte") {
  CHECK(GlobMatch("[\\]]", "]"));
  CHECK(GlobMatch("[\\^]", "^"));
  CHECK(GlobMatch("[\\*]", "*"));
  CHECK(GlobMatch("[\\\\]", "\\"));
  CHECK(GlobMatch("[a\\-z]", "-"));
  CHECK_FALSE(GlobMatch("[a\\-z]", "m"));  // an escaped '-' makes no range
}

TEST_CASE("star and question mark inside a set are literal") {
  CHECK(GlobMatch("[*]", "*"));
  CHECK_FALSE(GlobMatch("[*]", "a"));
  CHECK(GlobMatch("[?]", "?"));
  CHECK_FALSE(GlobMatch("[?]", "a"));
}

TEST_CASE("bracket right after the opening closes an empty set") {
  CHECK_FALSE(GlobMatch("[]", "]"));
  CHECK_FALSE(GlobMatch("[]a]", "a]"));
  CHECK_FALSE(GlobMatch("[]a]", "]a]"));
  CHECK(GlobMatch("[^]", "x"));
  CHECK(GlobMatch("[^]", "]"));
  CHECK(GlobMatch("[^]a", "xa"));
}

TEST_CASE("unterminated set matches one byte and ends the pattern") {
  CHECK(GlobMatch("[abc", "a"));
  CHECK(GlobMatch("x[abc", "xc"));
  CHECK_FALSE(GlobMatch("[abc", "ab"));
  CHECK_FALSE(GlobMatch("[abc", "d"));
  CHECK(GlobMatch("[a\\]", "]"));
  CHECK(GlobMatch("[a\\]", "a"));
  CHECK_FALSE(GlobMatch("[a\\]", "a]"));
}

TEST_CASE("lone opening bracket at the end matches nothing") {
  CHECK_FALSE(GlobMatch("[", "["));
  CHECK_FALSE(GlobMatch("a[", "a"));
  CHECK_FALSE(GlobMatch("a[", "a["));
}

TEST_CASE("lone negation at the end matches any one byte") {
  CHECK(GlobMatch("[^", "q"));
  CHECK_FALSE(GlobMatch("[^", "qq"));
}

TEST_CASE("NUL and high bytes are ordinary bytes") {
  CHECK(GlobMatch("a?c", "a\0c"sv));
  CHECK(GlobMatch("a\0*"sv, "a\0bc"sv));
  CHECK_FALSE(GlobMatch("a\0*"sv, "abc"));
  CHECK(GlobMatch("[\0]"sv, "\0"sv));
  CHECK(GlobMatch("\xe2\x82\xac?", "\xe2\x82\xac!"));
}

TEST_CASE("nocase folds ASCII letters in literals, escapes and sets") {
  CHECK(GlobMatch("APPENDONLY", "appendonly", true));
  CHECK_FALSE(GlobMatch("APPENDONLY", "appendonly"));
  CHECK(GlobMatch("\\Appendonl?", "appendonly", true));
  CHECK(GlobMatch("[A]ppendonl?", "appendonly", true));
  CHECK(GlobMatch("[A-A]ppendonl?", "appendonly", true));
  CHECK(GlobMatch("[a-A]ppendonl?", "appendonly", true));
  CHECK_FALSE(GlobMatch("[^A]ppendonl?", "appendonly", true));
  CHECK(GlobMatch("\xc3\x89", "\xc3\x89", true));
  CHECK_FALSE(GlobMatch("\xc3\x89", "\xc3\xa9", true));  // ASCII only
}

TEST_CASE("nocase leaves an escape inside a set exact") {
  CHECK_FALSE(GlobMatch("[\\A]ppendonl?", "appendonly", true));
  CHECK(GlobMatch("[\\a]ppendonl?", "appendonly", true));
}

TEST_CASE("nocase lowercases range bounds after ordering them") {
  // 'Z' < 'a', so the bounds stay in order, then become 'z'..'a': an empty range.
  CHECK_FALSE(GlobMatch("[Z-a]ppendonl?", "appendonly", true));
  CHECK(GlobMatch("[Z-a]ppendonl?", "appendonly", false));
}

TEST_CASE("more than 1000 nested stars match nothing") {
  std::string text(1002, 'a');
  CHECK(GlobMatch(Repeat("*a", 1000), text));
  CHECK_FALSE(GlobMatch(Repeat("*a", 1001), text));
  CHECK(GlobMatch(Repeat("a*", 1001), text));  // the trailing star does not nest
  CHECK_FALSE(GlobMatch(Repeat("a*", 1002), text));
  // Escaped and bracketed stars are not stars.
  CHECK(GlobMatch(Repeat("\\*", 1500), std::string(1500, '*')));
  CHECK(GlobMatch(Repeat("[*]a", 1500), Repeat("*a", 1500)));
}

TEST_CASE("pathological patterns on a 10k text finish fast") {
  std::string text(10000, 'a');
  std::string many_stars = Repeat("*a", 24) + "*b";
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(GlobMatch(many_stars, text));
  CHECK(GlobMatch(many_stars, text + "b"));
  CHECK_FALSE(GlobMatch("*" + std::string(100, 'a') + "b", text));
  CHECK_FALSE(GlobMatch(Repeat("*a", 1000) + "*b", text));
  CHECK_FALSE(GlobMatch(Repeat("*?", 900) + "*b", text));
  auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed < std::chrono::seconds(1));
}

}  // namespace
}  // namespace slotkv
