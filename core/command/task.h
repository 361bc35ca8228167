// Task: the coroutine type of commands that visit several slots or workers (MGET, RENAME, KEYS,
// INFO, CLIENT LIST ...). A task starts suspended; Start() runs it on the calling thread up to
// its first hop. `co_await Hop{executor, w}` resumes it on worker w (at once when already
// there). When it finishes, the done callback runs on the thread it finished on, and the frame
// frees itself. A task may `co_await` another Task.
//
// Thread rule: a task runs on one thread at a time; hops hand it over through Executor::Post,
// which orders its steps.
#pragma once

#include <coroutine>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include "core/command/executor.h"

namespace slotkv::command {

class Task {
  // The task the calling thread is starting from a caller's co_await, and the last one that
  // ended while being started (see the awaiter).
  static inline thread_local void* tl_starting = nullptr;
  static inline thread_local void* tl_ended_inline = nullptr;

 public:
  struct promise_type {
    std::function<void()> on_done;          // top-level task: run when it ends
    std::coroutine_handle<> continuation;   // awaited task: resumed when it ends

    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    // An awaited task resumes its caller; a started one runs on_done and frees its own frame
    // (the final suspend point is skipped), on the thread it ended on.
    struct FinalAwaiter {
      promise_type* promise;
      bool await_ready() noexcept {
        if (promise->continuation) return false;
        std::function<void()> done = std::move(promise->on_done);
        if (done) done();
        return true;
      }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        if (tl_starting == h.address()) {
          tl_ended_inline = h.address();  // the caller, still starting it, goes on by itself
          return std::noop_coroutine();
        }
        return h.promise().continuation;
      }
      void await_resume() noexcept {}
    };
    FinalAwaiter final_suspend() noexcept { return {this}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }  // our code does not throw
  };

  Task() = default;
  explicit Task(std::coroutine_handle<promise_type> h) : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  ~Task() {
    if (handle_) handle_.destroy();
  }

  // `co_await SubTask(ctx)` inside a task runs the sub-task (hops included) and resumes the
  // caller, on whatever worker the sub-task ended, when it ends.
  auto operator co_await() && noexcept {
    struct Awaiter {
      std::coroutine_handle<promise_type> child;
      bool await_ready() const noexcept { return false; }
      // Runs the task until it first suspends or ends. Ended at once: the caller goes on
      // here, without the task resuming it from inside itself (a loop of such tasks would nest
      // a frame per round on the stack: unoptimized builds make no tail call of a symmetric
      // transfer). Suspended: it resumes the caller where it ends. Past child.resume() the
      // frames may already be resumed elsewhere: only locals and thread-locals are read.
      bool await_suspend(std::coroutine_handle<> parent) noexcept {
        std::coroutine_handle<promise_type> task = child;
        void* const me = task.address();
        task.promise().continuation = parent;
        void* const outer = tl_starting;
        tl_starting = me;
        task.resume();
        tl_starting = outer;
        if (tl_ended_inline != me) return true;
        tl_ended_inline = nullptr;
        return false;
      }
      void await_resume() const noexcept {}
    };
    return Awaiter{handle_};
  }

  // Runs the task until its first hop or its end; on_done runs when it ends, then the task's
  // frame is freed. This Task no longer owns it. REQUIRES: not started, not awaited.
  void Start(std::function<void()> on_done) {
    std::coroutine_handle<promise_type> h = std::exchange(handle_, {});
    h.promise().on_done = std::move(on_done);
    h.resume();
  }

 private:
  std::coroutine_handle<promise_type> handle_;
};

// Suspends the running task while the calling worker's ring reads *reads (taken, left empty)
// into the OS page cache; it resumes there, from the completion. A pointer, not a member: GCC 12
// destroyed the vector of a braced awaiter temporary twice. REQUIRES: executor->async_reads().
struct FetchReads {
  Executor* executor;
  std::vector<BlockedRead>* reads;

  bool await_ready() const { return reads->empty(); }
  void await_suspend(std::coroutine_handle<> h) {
    std::vector<BlockedRead> taken = std::move(*reads);
    reads->clear();
    executor->Fetch(std::move(taken), [h] { h.resume(); });
  }
  void await_resume() const {}
};

// Moves the running task to worker `to` (no-op when already there, unless `requeue`: then the
// task goes to the back of its worker's queue). `before` runs on the old worker just before
// the task leaves it, given the move (`go`): it returns false to have it done now, or true
// when it calls go itself later (the command context, once the worker's group commit made its
// writes there durable).
struct Hop {
  Executor* executor;
  int to;
  std::function<bool(const std::function<void()>& go)> before = nullptr;
  bool requeue = false;

  bool await_ready() const { return !requeue && executor->current() == to; }
  void await_suspend(std::coroutine_handle<> h) {
    std::function<void()> go = [executor = executor, to = to, h] {
      executor->Post(to, [h] { h.resume(); });
    };
    if (before && before(go)) return;
    go();
  }
  void await_resume() const {}
};

}  // namespace slotkv::command
