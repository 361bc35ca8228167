// Cleanup: runs a function when the scope ends, however it ends (an early error return
// included), unless Cancel()ed first.
#pragma once

#include <utility>

namespace slotkv {

template <typename Fn>
class Cleanup {
 public:
  explicit Cleanup(Fn fn) : fn_(std::move(fn)) {}
  ~Cleanup() {
    if (armed_) fn_();
  }
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;

  void Cancel() { armed_ = false; }

 private:
  Fn fn_;
  bool armed_ = true;
};

}  // namespace slotkv
