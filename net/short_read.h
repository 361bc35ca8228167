// ShortReadSocket: a TCP socket whose AsyncRead, unlike asio's async_read_some, does not try the
// socket at once when the previous read came back short (fewer bytes than the buffer holds).
//
// Why: Boost 1.74's epoll reactor tries a read op as soon as it starts ("speculative"), and
// stops doing so only after a read that returned 0 bytes. At -P 1 the next request comes only
// after the reply, so every such try found nothing: 2 recvfrom per request against Redis's 1
// (scripts/bench-cpu.sh, GET at -P 1). asio's async_wait is no way out: it skips the try but
// re-arms the descriptor with an epoll_ctl, one syscall all the same.
//
// How: the op reports a short read as "done and exhausted", which asio's reactor takes as a hint
// to queue the next op on the descriptor without trying it; the next readiness event (an edge,
// or one that came while no op was queued) runs it. A read that filled the buffer keeps the next
// one speculative, as a long pipeline wants. This reaches into asio's detail layer (the reactor
// and the socket's per-descriptor data): Debian's Boost 1.74, checked by the static_assert.
#pragma once

#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
// After the public headers, which complete the types these use.
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/version.hpp>
#include <cerrno>
#include <cstddef>
#include <memory>
#include <utility>

static_assert(BOOST_VERSION / 100 == 1074, "ShortReadSocket uses Boost 1.74's asio internals");

namespace slotkv::net {

class ShortReadSocket : public boost::asio::ip::tcp::socket {
 public:
  // The reactor is looked up here, once: use_service takes the service registry's mutex.
  explicit ShortReadSocket(boost::asio::ip::tcp::socket&& socket)
      : boost::asio::ip::tcp::socket(std::move(socket)),
        reactor_(boost::asio::use_service<boost::asio::detail::reactor>(
            boost::asio::query(get_executor(), boost::asio::execution::context))) {}

  // Reads up to n bytes into buf, then handler(error_code, bytes) on the socket's io_context
  // (0 bytes with no error: the peer closed). One read in flight at a time.
  template <typename Handler>
  void AsyncRead(char* buf, size_t n, Handler&& handler) {
    auto& impl = impl_.get_implementation();
    auto* op = new Op<std::decay_t<Handler>>(impl.socket_, buf, n, std::forward<Handler>(handler));
    reactor_.start_op(boost::asio::detail::reactor::read_op, impl.socket_, impl.reactor_data_, op,
                      /*is_continuation=*/false, /*allow_speculative=*/true);
  }

 private:
  boost::asio::detail::reactor& reactor_;

  template <typename Handler>
  class Op : public boost::asio::detail::reactor_op {
   public:
    Op(int fd, char* buf, size_t n, Handler handler)
        : reactor_op(boost::system::error_code(), &Perform, &Complete),
          fd_(fd), buf_(buf), n_(n), handler_(std::move(handler)) {}

   private:
    static status Perform(reactor_op* base) {
      auto* op = static_cast<Op*>(base);
      for (;;) {
        const ssize_t got = ::recv(op->fd_, op->buf_, op->n_, MSG_DONTWAIT);
        if (got >= 0) {
          op->bytes_transferred_ = static_cast<size_t>(got);
          return op->bytes_transferred_ < op->n_ ? done_and_exhausted : done;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
        op->ec_ = boost::system::error_code(errno, boost::system::system_category());
        return done;
      }
    }
    // owner is null when the io_context is destroyed with the op pending: free it only.
    static void Complete(void* owner, boost::asio::detail::operation* base,
                         const boost::system::error_code&, size_t) {
      std::unique_ptr<Op> op(static_cast<Op*>(base));
      Handler handler = std::move(op->handler_);
      const boost::system::error_code ec = op->ec_;
      const size_t n = op->bytes_transferred_;
      op.reset();
      if (owner != nullptr) handler(ec, n);
    }

    int fd_;
    char* buf_;
    size_t n_;
    Handler handler_;
  };
};

}  // namespace slotkv::net
