// Open-file limit: what the server needs for maxclients connections besides its own files, as
// Redis's adjustOpenFilesLimit. At start the soft RLIMIT_NOFILE is raised as far as the hard
// one allows; when that is still too low, maxclients is lowered to fit, with a warning.
#pragma once

#include <cstdint>
#include <string>

namespace slotkv::net {

// Descriptors kept for the server's own files: per engine slot a WAL, page, chunk and
// metadata files (about 10), for every database of every slot, plus listeners, io_urings,
// eventfds and the HTTP server.
inline int64_t ReservedFiles(int64_t slots, int64_t databases) {
  return 64 + 10 * slots * databases;
}

struct OpenFiles {
  int64_t limit = 0;       // the soft limit after raising it
  int64_t fit = 0;         // clients that fit under it besides the reserve (at least 1)
  int64_t maxclients = 0;  // min(maxclients asked, fit)
  std::string warning;     // set when maxclients had to be lowered, or the limit raised failed
};

// Raises the soft limit towards maxclients + reserved (up to the hard limit) and says how many
// clients fit.
OpenFiles AdjustOpenFiles(int64_t maxclients, int64_t reserved);

}  // namespace slotkv::net
