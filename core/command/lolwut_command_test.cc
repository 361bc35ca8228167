#include <doctest/doctest.h>

#include <string>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

std::string Times(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Replies as redis-server 7.0.15's. Schotter's first two rows of squares are not turned: its
// first five lines are the same at every call, as Redis's.
TEST_CASE("LOLWUT prints the version line; VERSION 5 and 6 draw") {
  CommandFixture f;
  CHECK(f.Run({"LOLWUT"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(f.Run({"LOLWUT", "foo"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(f.Run({"LOLWUT", "VERSION", "7"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(f.Run({"LOLWUT", "VERSION", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.Run({"LOLWUT", "VERSION", "5", "x"}) ==
        "-ERR value is not an integer or out of range\r\n");
  const std::string schotter = f.Run({"LOLWUT", "VERSION", "5"});
  const std::string top = "⠀" + Times("⡤" + Times("⠤", 7), 8) + "⡄\n";
  const std::string side = "⠀" + Times("⡇" + Times("⠀", 7), 8) + "⡇\n";
  const std::string mid = "⠀" + Times("⡧" + Times("⠤", 7), 8) + "⡇\n";
  CHECK(schotter.find("\r\n" + top + side + side + side + mid) != std::string::npos);
  CHECK(schotter.find("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n") !=
        std::string::npos);
  CHECK(f.Run({"LOLWUT", "VERSION", "5", "2", "1", "1"}) ==
        "$73\r\n⡏⠉\n\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n\r\n");
  const std::string skyline = f.Run({"LOLWUT", "VERSION", "6", "3", "2"});
  CHECK(skyline.find("\nDedicated to the 8 bit game developers of past and present.\n"
                     "Original 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15\n") !=
        std::string::npos);
  CHECK(skyline.find("\033[0;") != std::string::npos);
}

}  // namespace
}  // namespace slotkv::command
