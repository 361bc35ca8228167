#include "core/base/io_ring.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace slotkv {
namespace {

thread_local IoRing* tl_current = nullptr;

}  // namespace

IoRing* IoRing::Current() { return tl_current; }
void IoRing::SetCurrent(IoRing* ring) { tl_current = ring; }

std::unique_ptr<IoRing> IoRing::Create(unsigned depth, std::string* why) {
  std::unique_ptr<IoRing> ring(new IoRing());
  if (int rc = io_uring_queue_init(depth, &ring->ring_, 0); rc != 0) {
    *why = std::string("io_uring_queue_init: ") + std::strerror(-rc);
    return nullptr;
  }
  ring->depth_ = depth;
  ring->event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (ring->event_fd_ < 0) {
    *why = std::string("eventfd: ") + std::strerror(errno);
    io_uring_queue_exit(&ring->ring_);
    return nullptr;
  }
  if (int rc = io_uring_register_eventfd(&ring->ring_, ring->event_fd_); rc != 0) {
    *why = std::string("io_uring_register_eventfd: ") + std::strerror(-rc);
    close(ring->event_fd_);
    io_uring_queue_exit(&ring->ring_);
    return nullptr;
  }
  return ring;
}

IoRing::~IoRing() {
  // Operations left unfinished are dropped without their callbacks.
  auto drop = [](std::unique_ptr<Op> op) {
    if (op->read.fd >= 0) close(op->read.fd);
    if (op->batch != nullptr && --op->batch->left == 0) delete op->batch;
  };
  while (!queued_.empty()) {
    drop(std::move(queued_.front()));
    queued_.pop_front();
  }
  // The kernel may still write into the buffers of reads in flight: wait for them first.
  while (inflight_ > 0) {
    io_uring_cqe* cqe;
    int rc = io_uring_wait_cqe(&ring_, &cqe);
    if (rc == -EINTR) continue;
    if (rc < 0) break;
    drop(std::unique_ptr<Op>(static_cast<Op*>(io_uring_cqe_get_data(cqe))));
    io_uring_cqe_seen(&ring_, cqe);
    --inflight_;
  }
  io_uring_queue_exit(&ring_);
  close(event_fd_);
}

void IoRing::Fetch(std::vector<BlockedRead> reads, std::function<void()> done) {
  // A region asked twice is read twice: the second read waits for the same page, no more disk.
  auto* batch = new Batch{reads.size(), std::move(done)};
  for (const BlockedRead& r : reads) {
    auto op = std::make_unique<Op>();
    op->batch = batch;
    op->read = r;
    op->buf = std::make_unique<char[]>(r.n);
    queued_.push_back(std::move(op));
  }
  SubmitQueued();
}

namespace {

// A duplicate of fd for the kernel to hold while the operation is in flight (fd may close
// meanwhile); -1 with errno set when none can be made (EMFILE).
int Duplicate(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 0); }

int ErrnoOf(ssize_t rc) { return rc < 0 ? errno : 0; }

constexpr int kPunchMode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;

}  // namespace

std::vector<std::function<void(int error)>> JoinAnswers(size_t parts,
                                                        std::function<void(int error)> done) {
  struct Join {
    size_t left;
    int error = 0;
    std::function<void(int)> done;
  };
  auto join = std::make_shared<Join>(Join{parts, 0, std::move(done)});
  std::vector<std::function<void(int error)>> answers;
  for (size_t i = 0; i < parts; ++i) {
    answers.emplace_back([join](int error) {
      if (error != 0 && join->error == 0) join->error = error;
      if (--join->left == 0) join->done(join->error);
    });
  }
  return answers;
}

void IoRing::Sync(int fd, std::function<void(int error)> done) {
  auto op = std::make_unique<Op>();
  op->on_done = std::move(done);
  op->read.fd = Duplicate(fd);
  if (op->read.fd < 0) op->outcome = ErrnoOf(fdatasync(fd));
  Answer(std::move(op));
}

void IoRing::Write(int fd, uint64_t offset, std::shared_ptr<const std::string> bytes,
                   std::function<void(int error)> done) {
  auto op = std::make_unique<Op>();
  op->read.offset = offset;
  op->read.n = bytes->size();
  op->bytes = std::move(bytes);
  op->on_done = std::move(done);
  op->read.fd = Duplicate(fd);
  if (op->read.fd < 0) {
    const ssize_t n = pwrite(fd, op->bytes->data(), op->read.n, static_cast<off_t>(offset));
    op->outcome = n < 0 ? errno : static_cast<size_t>(n) < op->read.n ? ENOSPC : 0;
  }
  Answer(std::move(op));
}

void IoRing::Unlink(int dir_fd, std::string name, std::function<void(int error)> done) {
  auto op = std::make_unique<Op>();
  op->unlink_name = std::move(name);
  op->on_done = std::move(done);
  op->read.fd = Duplicate(dir_fd);
  if (op->read.fd < 0) op->outcome = ErrnoOf(unlinkat(dir_fd, op->unlink_name.c_str(), 0));
  Answer(std::move(op));
}

void IoRing::PunchHole(int fd, uint64_t offset, uint64_t len,
                       std::function<void(int error)> done) {
  auto op = std::make_unique<Op>();
  op->read.offset = offset;
  op->read.n = len;
  op->punch = true;
  op->on_done = std::move(done);
  op->read.fd = Duplicate(fd);
  if (op->read.fd < 0) {
    op->outcome = ErrnoOf(fallocate(fd, kPunchMode, static_cast<off_t>(offset),
                                    static_cast<off_t>(len)));
  }
  Answer(std::move(op));
}

void IoRing::Fail(int error, std::function<void(int error)> done) {
  auto op = std::make_unique<Op>();
  op->on_done = std::move(done);
  op->outcome = error;
  Answer(std::move(op));
}

void IoRing::Answer(std::unique_ptr<Op> op) {
  queued_.push_back(std::move(op));
  SubmitQueued();
}

void IoRing::DrainForTest() {
  for (int i = 0; i < 500 && (inflight_ > 0 || !queued_.empty()); ++i) {
    pollfd p{event_fd_, POLLIN, 0};
    poll(&p, 1, 10);
    Reap();
  }
}

void IoRing::SubmitQueued() {
  bool any = false;
  while (!queued_.empty() && inflight_ < depth_) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) break;
    Op* op = queued_.front().release();
    queued_.pop_front();
    if (op->outcome >= 0) {
      io_uring_prep_nop(sqe);
    } else if (!op->unlink_name.empty()) {
      io_uring_prep_unlinkat(sqe, op->read.fd, op->unlink_name.c_str(), 0);
    } else if (op->punch) {
      io_uring_prep_fallocate(sqe, op->read.fd, kPunchMode, op->read.offset, op->read.n);
    } else if (op->bytes) {
      io_uring_prep_write(sqe, op->read.fd, op->bytes->data(), static_cast<unsigned>(op->read.n),
                          op->read.offset);
    } else if (op->on_done) {
      io_uring_prep_fsync(sqe, op->read.fd, IORING_FSYNC_DATASYNC);
    } else {
      io_uring_prep_read(sqe, op->read.fd, op->buf.get(), static_cast<unsigned>(op->read.n),
                         op->read.offset);
    }
    io_uring_sqe_set_data(sqe, op);
    ++inflight_;
    if (!op->on_done) ++reads_submitted_;
    any = true;
  }
  // The kernel takes its reference to each file here, before any of them may close.
  if (any) io_uring_submit(&ring_);
}

void IoRing::Reap() {
  uint64_t count;
  while (read(event_fd_, &count, sizeof count) > 0) {
  }
  std::vector<Batch*> finished;
  std::vector<std::pair<std::function<void(int)>, int>> answered;
  io_uring_cqe* cqe;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
    std::unique_ptr<Op> op(static_cast<Op*>(io_uring_cqe_get_data(cqe)));
    const int res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);
    --inflight_;
    if (op->read.fd >= 0) close(op->read.fd);
    if (op->outcome >= 0) {
      answered.emplace_back(std::move(op->on_done), op->outcome);
    } else if (op->on_done) {
      int error = res < 0 ? -res : 0;
      if (op->bytes && res >= 0 && static_cast<size_t>(res) < op->read.n) error = ENOSPC;
      answered.emplace_back(std::move(op->on_done), error);
    } else if (--op->batch->left == 0) {
      finished.push_back(op->batch);
    }
  }
  SubmitQueued();
  for (auto& [done, error] : answered) done(error);
  for (Batch* batch : finished) {
    std::unique_ptr<Batch> owned(batch);
    owned->done();
  }
}

}  // namespace slotkv
