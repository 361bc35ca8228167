#include "core/command/client_pause.h"

#include <algorithm>

namespace slotkv::command {

void ClientPause::Pause(PausePurpose purpose, PauseMode mode, int64_t end_ms) {
  Purpose& p = purposes_[static_cast<size_t>(purpose)];
  p.mode.store(static_cast<int>(mode));
  if (p.end_ms.load() < end_ms) p.end_ms.store(end_ms);
}

void ClientPause::Unpause(PausePurpose purpose) {
  Purpose& p = purposes_[static_cast<size_t>(purpose)];
  p.mode.store(0);
  p.end_ms.store(0);
}

bool ClientPause::active() const {
  return std::any_of(purposes_.begin(), purposes_.end(),
                     [](const Purpose& p) { return p.mode.load() != 0; });
}

PauseMode ClientPause::Mode(int64_t now_ms) const {
  int mode = 0;
  for (const Purpose& p : purposes_) {
    if (p.end_ms.load() > now_ms) mode = std::max(mode, p.mode.load());
  }
  return static_cast<PauseMode>(mode);
}

bool ClientPause::Holds(const CommandSpec& spec, const std::vector<std::string>& args,
                        const std::vector<QueuedCommand>& queued, int64_t now_ms) const {
  const PauseMode mode = Mode(now_ms);
  if (mode == PauseMode::kNone) return false;
  if (mode == PauseMode::kAll) return true;
  const auto changes = [](const CommandSpec& s, const std::vector<std::string>& a) {
    return (CommandTable::CallFlags(s, a) & (kWrite | kMayReplicate)) != 0;
  };
  if (changes(spec, args)) return true;
  return spec.name == "exec" && std::any_of(queued.begin(), queued.end(), [&](const auto& q) {
           return changes(*q.spec, q.args);
         });
}

}  // namespace slotkv::command
