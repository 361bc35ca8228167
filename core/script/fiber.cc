#include "core/script/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SLOTKV_ASAN 1
#endif

namespace slotkv::script {
namespace {

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace

Fiber::Fiber(size_t stack_bytes) {
  const size_t page = PageSize();
  size_ = (stack_bytes + page - 1) / page * page;
  void* m = mmap(nullptr, size_ + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (m == MAP_FAILED) {
    std::perror("fiber: mmap");
    std::abort();  // allocation failure is fatal
  }
  mapping_ = static_cast<char*>(m);
  mprotect(mapping_, page, PROT_NONE);  // an overflow faults instead of corrupting the heap
}

Fiber::~Fiber() { munmap(mapping_, size_ + PageSize()); }

void Fiber::Trampoline(unsigned hi, unsigned lo) {
  auto* self = reinterpret_cast<Fiber*>((uintptr_t{hi} << 32) | uintptr_t{lo});
#ifdef SLOTKV_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->caller_bottom_, &self->caller_size_);
#endif
  // One context for every function the fiber runs: making one costs a getcontext (a
  // sigprocmask call) and ending one a setcontext (another).
  for (;;) {
    self->fn_();
    self->fn_ = nullptr;
    self->done_ = true;
    self->SwitchOut();
  }
}

void Fiber::Start(std::function<void()> fn) {
  fn_ = std::move(fn);
  done_ = false;
  if (!made_) {
    getcontext(&fiber_);
    fiber_.uc_stack.ss_sp = mapping_ + PageSize();
    fiber_.uc_stack.ss_size = size_;
    fiber_.uc_link = nullptr;  // the trampoline never returns
    const auto p = reinterpret_cast<uintptr_t>(this);
    makecontext(&fiber_, reinterpret_cast<void (*)()>(&Fiber::Trampoline), 2,
                static_cast<unsigned>(p >> 32), static_cast<unsigned>(p & 0xffffffffu));
    made_ = true;
  }
  SwitchIn();
}

void Fiber::SwitchIn() {
#ifdef SLOTKV_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_, mapping_ + PageSize(), size_);
#endif
  swapcontext(&caller_, &fiber_);
#ifdef SLOTKV_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, nullptr, nullptr);
#endif
}

void Fiber::Suspend() { SwitchOut(); }

void Fiber::SwitchOut() {
#ifdef SLOTKV_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, caller_bottom_, caller_size_);
#endif
  swapcontext(&fiber_, &caller_);
#ifdef SLOTKV_ASAN
  __sanitizer_finish_switch_fiber(fake, &caller_bottom_, &caller_size_);
#endif
}

void Fiber::Resume() { SwitchIn(); }

}  // namespace slotkv::script
