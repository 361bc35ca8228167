#include "core/base/no_wait_reads.h"

#include <fcntl.h>
#include <unistd.h>

#include <cassert>

namespace slotkv {
namespace {

thread_local NoWaitReads* tl_scope = nullptr;

}  // namespace

NoWaitReads::NoWaitReads() {
  assert(tl_scope == nullptr);
  tl_scope = this;
}

void CloseBlocked(std::vector<BlockedRead>& reads) {
  for (const BlockedRead& r : reads) {
    if (r.fd >= 0) close(r.fd);
  }
  reads.clear();
}

NoWaitReads::~NoWaitReads() {
  CloseBlocked(blocked_);
  tl_scope = nullptr;
}

NoWaitReads* NoWaitReads::Current() { return tl_scope; }

bool ReadMisses::Take(Status& st) {
  if (!st.IsBusy() || tl_scope == nullptr) return false;
  busy_ = std::move(st);
  st = Status::OK();
  return true;
}

Status NoWaitReads::Blocked(int fd, uint64_t offset, size_t n) {
  blocked_.push_back({fcntl(fd, F_DUPFD_CLOEXEC, 0), offset, n});
  return Status::Busy("read would wait for the disk");
}

}  // namespace slotkv
