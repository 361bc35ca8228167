// Fiber: a function running on a stack of its own, which can stop half-way (Suspend) and go on
// later (Resume) on the same thread. A script runs on one: when redis.call needs another
// worker's slot or a coroutine command, the script stops there while its worker serves other
// requests, and goes on when the reply is back, so no worker ever waits for another
// (ucontext from glibc; annotated for AddressSanitizer's stack switches).
//
// Thread rule: Start, Suspend and Resume on one thread (a fiber never moves between threads).
#pragma once

#include <cstddef>
#include <functional>

#include <ucontext.h>

namespace slotkv::script {

class Fiber {
 public:
  explicit Fiber(size_t stack_bytes = 256 << 10);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs fn on the fiber's stack until it returns or calls Suspend, then returns.
  // REQUIRES: not started, or done (a fiber is reused for the next function).
  void Start(std::function<void()> fn);
  // From inside fn: back to the caller of Start or Resume. REQUIRES: running on this fiber.
  void Suspend();
  // Goes on from the last Suspend until the next one or fn's end. REQUIRES: suspended.
  void Resume();
  bool done() const { return done_; }

 private:
  static void Trampoline(unsigned hi, unsigned lo);
  void SwitchIn();
  void SwitchOut();

  size_t size_;
  char* mapping_ = nullptr;  // guard page, then the stack
  ucontext_t fiber_{};
  ucontext_t caller_{};
  std::function<void()> fn_;
  bool done_ = false;
  bool made_ = false;  // fiber_ made: it runs the trampoline's loop
  // AddressSanitizer's bookkeeping of the stack being left.
  void* fake_stack_ = nullptr;
  const void* caller_bottom_ = nullptr;
  size_t caller_size_ = 0;
};

}  // namespace slotkv::script
