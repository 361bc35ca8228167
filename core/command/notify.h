// Keyspace notifications (notify-keyspace-events), as Redis's notify.c publishes them: each
// write a command makes through a Store is told to a CommandNotifier, which names the event
// the way Redis names it for that command ("set", "lpush", "rename_from", "del" ...) and
// publishes it on __keyspace@<db>__:<key> and __keyevent@<db>__:<event>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/context.h"
#include "core/command/keyspace.h"

namespace slotkv::command {

struct CommandSpec;

// Publishes event of class klass (conf::NotifyClass) about key of database db, when the
// server's notify-keyspace-events asks for that class.
void Notify(ServerState& server, uint32_t klass, std::string_view event, std::string_view key,
            uint32_t db);

// The observer of one command's writes (keyspace.h): set on every Store the command uses.
// Inactive, and free, when notifications are off.
class CommandNotifier : public KeyObserver {
 public:
  CommandNotifier(ServerState& server, const CommandSpec* spec,
                  const std::vector<std::string>* args);

  bool active() const override { return active_; }
  bool wants_created() const override;
  void OnPut(uint32_t db, std::string_view key, bool created) override;
  void OnDelete(uint32_t db, std::string_view key) override;
  void OnMiss(uint32_t db, std::string_view key) override;

  // One event: its class and name.
  struct Event {
    uint32_t klass;
    std::string_view name;
  };
  // The events Redis publishes when a command (args, name included) sets key / removes it.
  static std::vector<Event> PutEvents(const CommandSpec& spec,
                                      const std::vector<std::string>& args,
                                      std::string_view key);
  static std::vector<Event> DeleteEvents(const CommandSpec& spec,
                                         const std::vector<std::string>& args,
                                         std::string_view key);

 private:
  ServerState& server_;
  const CommandSpec* spec_;
  const std::vector<std::string>* args_;
  uint32_t flags_;
  bool active_;
};

}  // namespace slotkv::command
