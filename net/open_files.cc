#include "net/open_files.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace slotkv::net {

OpenFiles AdjustOpenFiles(int64_t maxclients, int64_t reserved) {
  OpenFiles out;
  const int64_t wanted = maxclients + reserved;
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
    out.limit = wanted;
    out.fit = maxclients;
    out.maxclients = maxclients;
    out.warning = std::string("cannot read the open files limit: ") + std::strerror(errno);
    return out;
  }
  if (rl.rlim_cur != RLIM_INFINITY && static_cast<int64_t>(rl.rlim_cur) < wanted) {
    const rlim_t raised = rl.rlim_max == RLIM_INFINITY
                              ? static_cast<rlim_t>(wanted)
                              : std::min(rl.rlim_max, static_cast<rlim_t>(wanted));
    rlimit next = rl;
    next.rlim_cur = raised;
    if (setrlimit(RLIMIT_NOFILE, &next) == 0) rl.rlim_cur = raised;
  }
  out.limit = rl.rlim_cur == RLIM_INFINITY ? wanted : static_cast<int64_t>(rl.rlim_cur);
  out.fit = std::max<int64_t>(1, out.limit - reserved);
  out.maxclients = std::min(maxclients, out.fit);
  if (out.maxclients < maxclients) {
    out.warning = "the open files limit is " + std::to_string(out.limit) + " (" +
                  std::to_string(reserved) + " kept for the server's files): maxclients " +
                  std::to_string(maxclients) + " reduced to " + std::to_string(out.maxclients) +
                  ". If you need more clients, raise 'ulimit -n'.";
  }
  return out;
}

}  // namespace slotkv::net
