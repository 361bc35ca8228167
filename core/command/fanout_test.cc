#include "core/command/fanout.h"

#include <doctest/doctest.h>

#include <functional>
#include <future>
#include <map>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// Runs ForEachKeySlotReading over keys a, b, c (home: worker 0) with step and waits for it.
Status WalkReading(CommandFixture& f,
                   std::function<Status(Store&, const std::vector<size_t>&)> step) {
  AsyncContext ctx({"CMD", "a", "b", "c"}, 2, &f.state(), nullptr, 0);
  std::vector<size_t> positions = {1, 2, 3};
  Status failure;
  std::promise<void> done;
  Task task = ForEachKeySlotReading(ctx, positions, std::move(step), &failure);
  f.executor().Post(0, [&] { task.Start([&] { done.set_value(); }); });
  done.get_future().wait();
  return failure;
}

// A step that misses `misses` times per slot (while no-wait reads are on), recording per slot
// how it ran: 'n' with no-wait reads, 'w' reading waiting.
// The walk runs one step at a time, handed from worker to worker through the executor's queues:
// no two steps touch `runs` at once.
struct MissingStep {
  explicit MissingStep(int misses) : misses(misses) {}
  int misses;
  std::map<uint32_t, std::string> runs;

  Status operator()(Store& store, const std::vector<size_t>&) {
    NoWaitReads* no_wait = NoWaitReads::Current();
    std::string* r = &runs[store.slot()];
    r->push_back(no_wait ? 'n' : 'w');
    if (no_wait && static_cast<int>(r->size()) <= misses) return no_wait->Blocked(-1, 0, 4096);
    return Status::OK();
  }
};

TEST_CASE("ForEachKeySlotReading runs a step again after the fetch of what it missed") {
  CommandFixture f(2, 8);
  f.executor().set_async_reads(true);
  MissingStep step(2);
  CHECK(WalkReading(f, std::ref(step)).ok());
  REQUIRE(!step.runs.empty());
  for (const auto& [slot, runs] : step.runs) CHECK(runs == "nnn");
  CHECK(f.executor().regions_fetched() == 2 * step.runs.size());
}

TEST_CASE("ForEachKeySlotReading reads waiting after kNoWaitTries misses") {
  CommandFixture f(2, 8);
  f.executor().set_async_reads(true);
  MissingStep step(100);
  CHECK(WalkReading(f, std::ref(step)).ok());
  REQUIRE(!step.runs.empty());
  for (const auto& [slot, runs] : step.runs) CHECK(runs == std::string(kNoWaitTries, 'n') + "w");
  CHECK(f.executor().regions_fetched() == kNoWaitTries * step.runs.size());
}

TEST_CASE("ForEachKeySlotReading without async reads runs each step once, waiting") {
  CommandFixture f(2, 8);
  MissingStep step(100);
  CHECK(WalkReading(f, std::ref(step)).ok());
  for (const auto& [slot, runs] : step.runs) CHECK(runs == "w");
  CHECK(f.executor().regions_fetched() == 0);
}

TEST_CASE("ForEachKeySlotReading stops at the first error") {
  CommandFixture f(2, 8);
  f.executor().set_async_reads(true);
  int steps = 0;  // the walk visits one slot at a time
  Status st = WalkReading(f, [&](Store&, const std::vector<size_t>&) {
    ++steps;
    return Status::Corruption("bad page");
  });
  CHECK(st.IsCorruption());
  CHECK(steps == 1);
}

}  // namespace
}  // namespace slotkv::command
