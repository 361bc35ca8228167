#include "core/base/sync_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace slotkv {

SyncClient::~SyncClient() {
  if (fd_ >= 0) ::close(fd_);
}

Status SyncClient::Wait(short events, int64_t timeout_ms) {
  pollfd p{fd_, events, 0};
  int n;
  do {
    n = ::poll(&p, 1, static_cast<int>(timeout_ms));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Status::IOError(std::string("poll: ") + std::strerror(errno));
  if (n == 0) return Status::IOError("timeout");
  return Status::OK();
}

Status SyncClient::Connect(const std::string& host, const std::string& port,
                           int64_t timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    return Status::IOError("cannot resolve " + host);
  }
  // The first address whose connect starts is the one, as Redis's anetTcpGenericConnect.
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) continue;
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) return Status::IOError("cannot connect to " + host + ":" + port);
  SLOTKV_RETURN_IF_ERROR(Wait(POLLOUT, timeout_ms));
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return Status::OK();
}

Status SyncClient::Write(std::string_view data, int64_t timeout_ms) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      SLOTKV_RETURN_IF_ERROR(Wait(POLLOUT, timeout_ms));
    } else {
      return Status::IOError(std::string("send: ") + std::strerror(errno));
    }
  }
  return Status::OK();
}

Status SyncClient::ReadLine(std::string* line, int64_t timeout_ms) {
  for (;;) {
    const size_t eol = in_.find("\r\n");
    if (eol != std::string::npos) {
      line->assign(in_, 0, eol);
      in_.erase(0, eol + 2);
      return Status::OK();
    }
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n > 0) {
      in_.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      return Status::IOError("connection closed");
    } else if (errno == EAGAIN || errno == EINTR) {
      SLOTKV_RETURN_IF_ERROR(Wait(POLLIN, timeout_ms));
    } else {
      return Status::IOError(std::string("recv: ") + std::strerror(errno));
    }
  }
}

}  // namespace slotkv
