#include "core/script/fiber.h"

#include <doctest/doctest.h>

#include <string>

namespace slotkv::script {
namespace {

TEST_CASE("a fiber stops half-way and goes on where it stopped") {
  Fiber fiber;
  std::string log;
  fiber.Start([&] {
    log += "a";
    fiber.Suspend();
    log += "b";
    fiber.Suspend();
    log += "c";
  });
  CHECK(log == "a");
  CHECK_FALSE(fiber.done());
  fiber.Resume();
  CHECK(log == "ab");
  fiber.Resume();
  CHECK(log == "abc");
  CHECK(fiber.done());
}

int Deep(Fiber& fiber, int n) {
  char pad[256];
  pad[0] = static_cast<char>(n);
  if (n == 0) {
    fiber.Suspend();
    return pad[0];
  }
  return Deep(fiber, n - 1) + pad[0];
}

TEST_CASE("a fiber keeps its own stack across a stop") {
  Fiber fiber;
  int result = -1;
  fiber.Start([&] { result = Deep(fiber, 100); });
  CHECK(result == -1);
  fiber.Resume();
  CHECK(result == 5050);
}

TEST_CASE("a fiber runs one function after another, each from its start") {
  Fiber fiber;
  std::string log;
  for (int i = 0; i < 3; ++i) {
    fiber.Start([&, i] {
      log += std::to_string(i);
      fiber.Suspend();
      log += "+";
    });
    CHECK_FALSE(fiber.done());
    fiber.Resume();
    CHECK(fiber.done());
  }
  fiber.Start([&] { log += "end"; });
  CHECK(fiber.done());
  CHECK(log == "0+1+2+end");
}

}  // namespace
}  // namespace slotkv::script
