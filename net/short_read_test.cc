#include "net/short_read.h"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <functional>
#include <memory>
#include <string>

namespace slotkv::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// A connected pair on 127.0.0.1: the server side as a ShortReadSocket.
struct Pair {
  asio::io_context io;
  tcp::socket client{io};
  std::unique_ptr<ShortReadSocket> server;

  Pair() {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    client.connect(acceptor.local_endpoint());
    server = std::make_unique<ShortReadSocket>(acceptor.accept());
  }
};

// Reads into buf until want bytes came or the peer closed; returns them and the reads it took.
std::string ReadAll(Pair& p, size_t want, char* buf, size_t n, int* reads, bool* closed) {
  std::string got;
  *reads = 0;
  *closed = false;
  std::function<void()> next = [&] {
    p.server->AsyncRead(buf, n, [&](const boost::system::error_code& ec, size_t bytes) {
      ++*reads;
      REQUIRE_FALSE(ec);
      if (bytes == 0) {
        *closed = true;
        return;
      }
      got.append(buf, bytes);
      if (got.size() < want) next();
    });
  };
  next();
  p.io.run();
  p.io.restart();
  return got;
}

TEST_CASE("ShortReadSocket reads what comes, a request at a time") {
  Pair p;
  char buf[64];
  int reads = 0;
  bool closed = false;
  for (int i = 0; i < 3; ++i) {
    const std::string request = "*1\r\n$4\r\nPING\r\n" + std::to_string(i);
    asio::write(p.client, asio::buffer(request));
    CHECK(ReadAll(p, request.size(), buf, sizeof(buf), &reads, &closed) == request);
    CHECK(reads == 1);
  }
}

TEST_CASE("ShortReadSocket takes a message longer than its buffer in full reads") {
  Pair p;
  const std::string big(1000, 'x');
  asio::write(p.client, asio::buffer(big));
  char buf[100];
  int reads = 0;
  bool closed = false;
  CHECK(ReadAll(p, big.size(), buf, sizeof(buf), &reads, &closed) == big);
  CHECK(reads == 10);
}

TEST_CASE("ShortReadSocket waits for data that comes after a short read") {
  Pair p;
  char buf[64];
  int reads = 0;
  bool closed = false;
  asio::write(p.client, asio::buffer(std::string("ab")));
  CHECK(ReadAll(p, 2, buf, sizeof(buf), &reads, &closed) == "ab");
  // The short read left the next read queued without a try: the data must still wake it.
  asio::steady_timer later(p.io, std::chrono::milliseconds(20));
  later.async_wait([&](const boost::system::error_code&) {
    asio::write(p.client, asio::buffer(std::string("cd")));
  });
  CHECK(ReadAll(p, 2, buf, sizeof(buf), &reads, &closed) == "cd");
}

TEST_CASE("ShortReadSocket reports the peer closing as 0 bytes, and a cancel as aborted") {
  Pair p;
  char buf[64];
  int reads = 0;
  bool closed = false;
  p.client.close();
  CHECK(ReadAll(p, 1, buf, sizeof(buf), &reads, &closed).empty());
  CHECK(closed);

  Pair q;
  boost::system::error_code got;
  q.server->AsyncRead(buf, sizeof(buf),
                      [&](const boost::system::error_code& ec, size_t) { got = ec; });
  q.server->close();
  q.io.run();
  CHECK(got == asio::error::operation_aborted);
}

}  // namespace
}  // namespace slotkv::net
