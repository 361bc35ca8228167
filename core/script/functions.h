// Functions: the server's Redis 7 function libraries (FUNCTION LOAD ... FCALL), kept on disk.
//
// A library is Lua code that starts with a `#!lua name=<library>` line and registers functions
// when it runs (LuaVm::LoadLibrary). FUNCTION LOAD checks a library in a scratch interpreter
// of its own, then adds it; each worker interpreter loads every library again when the set
// changed (generation). The set lives in `dir/functions.rdb` as a FUNCTION DUMP payload (Redis's
// format: core/base/rdb.h), rewritten atomically after every change and read at start; with
// pure-memory storage (no file system) it is not kept.
//
// Thread rule: every method may be called from any thread (a mutex guards the libraries).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/base/fs.h"
#include "core/base/status.h"
#include "core/script/lua_vm.h"

namespace slotkv::script {

class Functions {
 public:
  struct Library {
    std::string name;
    std::string code;  // as loaded, #! line included
    std::vector<LuaVm::Function> functions;
  };
  // The libraries interpreters load, and which set it is.
  struct Snapshot {
    uint64_t generation = 0;
    std::vector<std::string> codes;
  };

  // fs and path: where the set is kept (nullptr: not kept).
  Functions(Fs* fs, std::string path) : fs_(fs), path_(std::move(path)) {}

  // Reads the kept set, if any. Corruption when the file is damaged.
  Status Open();

  // FUNCTION LOAD [REPLACE]: the library's name, or Redis's error ("ERR Library 'x' already
  // exists", "ERR Function f already exists", "ERR Missing library metadata" ...).
  Result<std::string> Load(const std::string& code, bool replace);
  // FUNCTION DELETE: NotFound ("ERR Library not found").
  Status Delete(const std::string& library);
  Status Flush();
  std::vector<Library> List() const;
  Snapshot Current() const;

  // FCALL's look-up: whether function name exists, and whether it is flagged no-writes.
  struct Found {
    bool no_writes = false;
  };
  std::optional<Found> Find(const std::string& name) const;

  // The code an interpreter runs: the #! line blanked (still a line, so error positions count
  // it).
  static std::string Body(const std::string& code);

  // FUNCTION DUMP: Redis's payload (a FUNCTION2 opcode and the code per library, RDB version
  // 10, CRC-64).
  std::string Dump() const;
  // FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE] (policy as given, upper case).
  Status Restore(std::string_view payload, const std::string& policy);

 private:
  // Checks code (its #! line and, in a scratch interpreter, its functions).
  static Result<Library> Check(const std::string& code);
  // Adds the libraries of set to libraries (REQUIRES: mu_), replacing same-named ones when
  // replace; Redis's error when a library or function name is taken.
  Status AddLocked(std::vector<Library> set, bool replace, bool restoring,
                   std::vector<Library>* libraries);
  Status SaveLocked();
  static std::string DumpOf(const std::vector<Library>& libraries);

  Fs* fs_;
  std::string path_;
  mutable std::mutex mu_;
  std::vector<Library> libraries_;  // guarded by mu_
  uint64_t generation_ = 0;         // guarded by mu_
};

}  // namespace slotkv::script
