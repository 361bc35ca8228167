// SyncClient: a blocking TCP connection with a deadline per operation, for the one command
// that talks to another server on the caller's thread (MIGRATE, as Redis's connSyncWrite /
// connSyncReadLine: it blocks its worker for at most the timeout per step).
//
// Thread rule: one thread uses a SyncClient at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace slotkv {

class SyncClient {
 public:
  SyncClient() = default;
  SyncClient(const SyncClient&) = delete;
  SyncClient& operator=(const SyncClient&) = delete;
  ~SyncClient();

  // Resolves host and connects, within timeout_ms; IOError when it cannot start or does not
  // finish in time. A connection refused once started shows at the first Write or ReadLine, as
  // with Redis's blocking connect (MIGRATE to a closed port: "error ... writing").
  Status Connect(const std::string& host, const std::string& port, int64_t timeout_ms);
  // Writes all of data, each wait for the socket at most timeout_ms.
  Status Write(std::string_view data, int64_t timeout_ms);
  // Reads one line (without its CRLF) into *line, each wait at most timeout_ms.
  Status ReadLine(std::string* line, int64_t timeout_ms);

 private:
  // Waits until the socket is readable (events POLLIN) or writable (POLLOUT).
  Status Wait(short events, int64_t timeout_ms);
  int fd_ = -1;
  std::string in_;  // bytes read past the last line
};

}  // namespace slotkv
