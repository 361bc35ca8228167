#include "core/base/clock.h"

#include <chrono>

namespace slotkv {
namespace {

class RealClock : public Clock {
 public:
  int64_t NowMs() const override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
  int64_t MonotonicUs() const override {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
  }
};

}  // namespace

Clock* SystemClock() {
  static RealClock clock;
  return &clock;
}

}  // namespace slotkv
