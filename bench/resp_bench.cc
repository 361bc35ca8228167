// resp_bench: a closed-loop load generator for command sequences that redis-benchmark cannot
// send (it repeats one command): each of C connections sends one operation, a run of commands
// written together (e.g. MULTI / SET / INCR / EXEC), waits for all their replies, and sends
// the next, as redis-benchmark does with one command. One thread, epoll, like redis-benchmark,
// so the same client load meets redis-server and slotkv.
//
// Usage: resp_bench --port P [--clients 50] [--requests 100000] [--keyspace 100000]
//                   [--value-size 3] --op 'MULTI;SET key:__rand_int__ __value__;EXEC'
// Commands are separated by ';' and their arguments by spaces; __rand_int__ becomes a random
// number below --keyspace (one per operation, the same in each of its commands, as
// redis-benchmark draws one per command) and __value__ a value of --value-size bytes.
// Prints: RESULT ops_per_s=... p50_ms=... p99_ms=... errors=...
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Args {
  int port = 0;
  int clients = 50;
  long requests = 100000;
  long keyspace = 100000;
  size_t value_size = 3;
  std::string op;
};

std::vector<std::vector<std::string>> ParseOp(const std::string& op) {
  std::vector<std::vector<std::string>> cmds;
  size_t start = 0;
  while (start <= op.size()) {
    size_t end = op.find(';', start);
    if (end == std::string::npos) end = op.size();
    std::vector<std::string> words;
    size_t p = start;
    while (p < end) {
      while (p < end && op[p] == ' ') ++p;
      size_t q = p;
      while (q < end && op[q] != ' ') ++q;
      if (q > p) words.emplace_back(op.substr(p, q - p));
      p = q;
    }
    if (!words.empty()) cmds.push_back(std::move(words));
    start = end + 1;
  }
  return cmds;
}

std::string Encode(const std::vector<std::vector<std::string>>& cmds, const std::string& rnd,
                   const std::string& value) {
  std::string out;
  for (const auto& cmd : cmds) {
    out += "*" + std::to_string(cmd.size()) + "\r\n";
    for (std::string arg : cmd) {
      for (size_t at; (at = arg.find("__rand_int__")) != std::string::npos;) {
        arg.replace(at, 12, rnd);
      }
      if (arg == "__value__") arg = value;
      out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
    }
  }
  return out;
}

// Length of the complete reply at the start of in, or 0 when it is not complete yet. Sets
// *error when the top-level reply is an error.
size_t ReplyLength(std::string_view in, bool* error) {
  if (in.empty()) return 0;
  size_t eol = in.find("\r\n");
  if (eol == std::string_view::npos) return 0;
  const char type = in[0];
  if (error) *error = type == '-' || type == '!';
  const long n = std::atol(std::string(in.substr(1, eol - 1)).c_str());
  size_t at = eol + 2;
  switch (type) {
    case '$':
    case '=':
    case '!':
      if (n < 0) return at;
      return in.size() >= at + static_cast<size_t>(n) + 2 ? at + static_cast<size_t>(n) + 2 : 0;
    case '*':
    case '~':
    case '>':
    case '%': {
      const long items = type == '%' ? 2 * n : n;
      for (long i = 0; i < items; ++i) {
        size_t len = ReplyLength(in.substr(at), nullptr);
        if (len == 0) return 0;
        at += len;
      }
      return at;
    }
    default:
      return at;  // + - : _ , # (
  }
}

struct Client {
  int fd = -1;
  std::string out;
  size_t sent = 0;
  std::string in;
  size_t replies_left = 0;
  std::chrono::steady_clock::time_point start;
};

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") a.port = std::atoi(v.c_str());
    else if (k == "--clients") a.clients = std::atoi(v.c_str());
    else if (k == "--requests") a.requests = std::atol(v.c_str());
    else if (k == "--keyspace") a.keyspace = std::atol(v.c_str());
    else if (k == "--value-size") a.value_size = static_cast<size_t>(std::atol(v.c_str()));
    else if (k == "--op") a.op = v;
    else {
      std::fprintf(stderr, "unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  const auto cmds = ParseOp(a.op);
  if (a.port == 0 || cmds.empty()) {
    std::fprintf(stderr, "usage: resp_bench --port P --op 'CMD args;CMD args' [...]\n");
    return 2;
  }
  const std::string value(a.value_size, 'x');
  std::mt19937_64 rng(12345);
  const int ep = epoll_create1(0);
  std::vector<Client> clients(static_cast<size_t>(a.clients));
  long started = 0, done = 0, errors = 0;
  std::vector<double> latencies;
  latencies.reserve(static_cast<size_t>(a.requests));
  auto next_op = [&](Client& c) {
    c.out = Encode(cmds, std::to_string(rng() % static_cast<uint64_t>(a.keyspace)), value);
    c.sent = 0;
    c.replies_left = cmds.size();
    c.start = std::chrono::steady_clock::now();
    ++started;
  };
  for (size_t i = 0; i < clients.size(); ++i) {
    Client& c = clients[i];
    c.fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(a.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Die("connect");
    int one = 1;
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto send_all = [&](Client& c) {
    while (c.sent < c.out.size()) {
      ssize_t n = write(c.fd, c.out.data() + c.sent, c.out.size() - c.sent);
      if (n <= 0) Die("write");
      c.sent += static_cast<size_t>(n);
    }
  };
  for (Client& c : clients) {
    if (started >= a.requests) break;
    next_op(c);
    send_all(c);
  }
  std::vector<epoll_event> events(static_cast<size_t>(a.clients));
  char buf[65536];
  while (done < a.requests) {
    int n = epoll_wait(ep, events.data(), a.clients, 10000);
    if (n <= 0) Die("epoll_wait (no reply in 10 s)");
    for (int e = 0; e < n; ++e) {
      Client& c = clients[events[static_cast<size_t>(e)].data.u64];
      ssize_t got = read(c.fd, buf, sizeof buf);
      if (got <= 0) Die("read");
      c.in.append(buf, static_cast<size_t>(got));
      for (;;) {
        bool error = false;
        size_t len = ReplyLength(c.in, &error);
        if (len == 0) break;
        c.in.erase(0, len);
        errors += error ? 1 : 0;
        if (--c.replies_left > 0) continue;
        latencies.push_back(std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - c.start)
                                .count());
        ++done;
        if (started < a.requests) {
          next_op(c);
          send_all(c);
        }
        break;
      }
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))];
  };
  std::printf("RESULT ops_per_s=%.0f p50_ms=%.3f p99_ms=%.3f errors=%ld\n",
              static_cast<double>(done) / secs, pct(0.5), pct(0.99), errors);
  for (Client& c : clients) close(c.fd);
  return 0;
}
