#include "core/command/client_pause.h"

#include <doctest/doctest.h>

namespace slotkv::command {
namespace {

const CommandSpec kGet{.name = "get", .flags = kReadOnly};
const CommandSpec kSet{.name = "set", .flags = kWrite};
const CommandSpec kPublish{.name = "publish", .flags = kPubSub | kMayReplicate};
const CommandSpec kExec{.name = "exec"};

std::vector<QueuedCommand> Queued(std::initializer_list<const CommandSpec*> specs) {
  std::vector<QueuedCommand> out;
  for (const CommandSpec* s : specs) out.push_back({s, {}});
  return out;
}

TEST_CASE("client pause: WRITE holds what may change data or reach replicas, until its end") {
  ClientPause pause;
  CHECK(pause.Mode(0) == PauseMode::kNone);
  CHECK_FALSE(pause.Holds(kSet, {}, {}, 0));
  pause.Pause(PausePurpose::kClient, PauseMode::kWrite, 100);
  CHECK(pause.Mode(99) == PauseMode::kWrite);
  CHECK(pause.Holds(kSet, {}, {}, 50));
  CHECK(pause.Holds(kPublish, {}, {}, 50));
  CHECK_FALSE(pause.Holds(kGet, {}, {}, 50));
  CHECK_FALSE(pause.Holds(kExec, {}, Queued({&kGet, &kGet}), 50));
  CHECK(pause.Holds(kExec, {}, Queued({&kGet, &kSet}), 50));
  CHECK_FALSE(pause.Holds(kSet, {}, {}, 100));  // ended by itself
  CHECK(pause.Mode(100) == PauseMode::kNone);
}

TEST_CASE("client pause: ALL holds everything; a later pause keeps the longer end") {
  ClientPause pause;
  pause.Pause(PausePurpose::kClient, PauseMode::kAll, 100);
  CHECK(pause.Holds(kGet, {}, {}, 10));
  // As Redis: the new mode replaces the old one, an earlier end does not shorten it.
  pause.Pause(PausePurpose::kClient, PauseMode::kWrite, 50);
  CHECK(pause.Mode(80) == PauseMode::kWrite);
  CHECK_FALSE(pause.Holds(kGet, {}, {}, 80));
  pause.Unpause(PausePurpose::kClient);
  CHECK(pause.Mode(10) == PauseMode::kNone);
}

TEST_CASE("client pause: each purpose keeps its own pause; the strictest applies") {
  ClientPause pause;
  pause.Pause(PausePurpose::kFailover, PauseMode::kWrite, ClientPause::kForever);
  pause.Pause(PausePurpose::kClient, PauseMode::kAll, 100);
  CHECK(pause.Mode(10) == PauseMode::kAll);
  pause.Unpause(PausePurpose::kClient);
  CHECK(pause.Mode(10) == PauseMode::kWrite);  // the failover's stays
  CHECK(pause.Mode(1'000'000'000) == PauseMode::kWrite);
  pause.Unpause(PausePurpose::kFailover);
  CHECK(pause.Mode(10) == PauseMode::kNone);
}

}  // namespace
}  // namespace slotkv::command

namespace slotkv::command {
namespace {

TEST_CASE("client pause: WRITE holds a container's writing subcommands only (their rows)") {
  ClientPause pause;
  pause.Pause(PausePurpose::kClient, PauseMode::kWrite, 100);
  const CommandSpec container{
      .name = "xgroup",
      .subcommands = {Subcommand("xgroup|create", -5, kWrite, "write stream slow", 2),
                      Subcommand("xgroup|help", 2, kLoading | kStale, "stream slow")}};
  CHECK(pause.Holds(container, {"xgroup", "create", "k", "g", "$"}, {}, 50));
  CHECK_FALSE(pause.Holds(container, {"xgroup", "help"}, {}, 50));
  const std::vector<QueuedCommand> queued = {{&container, {"xgroup", "create", "k", "g", "0"}}};
  CHECK(pause.Holds(kExec, {"exec"}, queued, 50));
}

}  // namespace
}  // namespace slotkv::command
