#include "core/base/secure_compare.h"

#include <doctest/doctest.h>

namespace slotkv {
namespace {

TEST_CASE("SecureEquals is plain equality, whatever the lengths") {
  CHECK(SecureEquals("", ""));
  CHECK(SecureEquals("secret", "secret"));
  CHECK_FALSE(SecureEquals("secret", "secreT"));
  CHECK_FALSE(SecureEquals("secret", "secret2"));
  CHECK_FALSE(SecureEquals("secret", ""));
  CHECK_FALSE(SecureEquals("", "x"));
  CHECK_FALSE(SecureEquals(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
  CHECK_FALSE(SecureEquals(std::string_view("a\0", 2), "a"));  // a shorter one, zero-padded
}

}  // namespace
}  // namespace slotkv
