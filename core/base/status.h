// Status and Result<T>: how every slotkv module reports failure. No exception crosses a module
// boundary; a function that can fail returns one of these, and callers must look at it.
//
// A Status is OK (costs one null pointer) or a code plus a message. Codes are few on purpose:
// callers branch on the code, people read the message.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace slotkv {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound = 1,
    kCorruption = 2,
    kIOError = 3,
    kInvalidArgument = 4,
    kNotSupported = 5,
    kBusy = 6,
    // Refused because an earlier I/O failure stopped writes (the message says which).
    kUnavailable = 7,
  };

  Status() = default;
  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  static Status Unavailable(std::string_view msg) { return Status(Code::kUnavailable, msg); }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsNotSupported() const { return code() == Code::kNotSupported; }
  bool IsBusy() const { return code() == Code::kBusy; }
  bool IsUnavailable() const { return code() == Code::kUnavailable; }

  // The message alone ("" when OK).
  std::string_view message() const { return rep_ ? std::string_view(rep_->msg) : ""; }
  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Explicitly drops a Status whose failure is handled elsewhere; say why at the call site.
  void PermitUnchecked() const {}

 private:
  struct Rep {
    Code code;
    std::string msg;
  };
  Status(Code code, std::string_view msg)
      : rep_(std::make_unique<Rep>(Rep{code, std::string(msg)})) {}

  std::unique_ptr<Rep> rep_;
};

inline std::string Status::ToString() const {
  if (ok()) return "OK";
  static constexpr const char* kNames[] = {"OK",          "NotFound",         "Corruption",
                                           "IO error",    "Invalid argument", "Not supported",
                                           "Busy",        "Unavailable"};
  return std::string(kNames[static_cast<int>(rep_->code)]) + ": " + rep_->msg;
}

// A value or the Status that explains its absence.
// REQUIRES: value() only when ok(); status() is OK when a value is held.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok());
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace slotkv

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define SLOTKV_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::slotkv::Status _st = (expr);            \
    if (!_st.ok()) return _st;                \
  } while (0)

#define SLOTKV_CONCAT_INNER(a, b) a##b
#define SLOTKV_CONCAT(a, b) SLOTKV_CONCAT_INNER(a, b)
// `SLOTKV_ASSIGN_OR_RETURN(auto x, F())`: declares x from a Result, or returns its Status.
#define SLOTKV_ASSIGN_OR_RETURN(lhs, expr)                               \
  auto SLOTKV_CONCAT(_res_, __LINE__) = (expr);                          \
  if (!SLOTKV_CONCAT(_res_, __LINE__).ok())                              \
    return SLOTKV_CONCAT(_res_, __LINE__).status();                      \
  lhs = std::move(SLOTKV_CONCAT(_res_, __LINE__)).value()
