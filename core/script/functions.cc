// dir/functions.rdb holds FUNCTION DUMP's payload (core/base/rdb.h):
//   payload := (0xF5 code:string)* rdb_version:u16le(10) crc64:u64le
// 0xF5 is Redis's RDB_OPCODE_FUNCTION2; code is a library's whole text, `#!lua name=...` first.
// Example: one library "#!lua name=l\n..." of 40 bytes is F5 28 <40 bytes> 0A 00 <crc64>.
#include "core/script/functions.h"

#include <algorithm>
#include <cctype>

#include "core/base/ascii.h"
#include "core/base/rdb.h"
#include "core/command/errors.h"

namespace slotkv::script {
namespace {

constexpr uint8_t kOpFunction2 = 0xF5;

bool ValidLibraryName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The library name of code's `#!lua name=<name>` line, or Redis's error.
Result<std::string> ParseShebang(const std::string& code) {
  if (code.rfind("#!", 0) != 0) return Status::InvalidArgument("ERR Missing library metadata");
  const size_t eol = code.find('\n');
  const std::string line = code.substr(2, eol == std::string::npos ? std::string::npos : eol - 2);
  std::vector<std::string> words;
  for (size_t at = 0; at < line.size();) {
    const size_t space = line.find(' ', at);
    const size_t end = space == std::string::npos ? line.size() : space;
    if (end > at) words.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  if (words.empty()) return Status::InvalidArgument("ERR Missing library metadata");
  if (AsciiLower(words[0]) != "lua") return Status::InvalidArgument("ERR Engine '" + words[0] + "' not found");
  std::optional<std::string> name;
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i].rfind("name=", 0) != 0) {
      return Status::InvalidArgument("ERR Invalid metadata value given: " + words[i]);
    }
    name = words[i].substr(5);
  }
  if (!name) return Status::InvalidArgument("ERR Library name was not given");
  if (!ValidLibraryName(*name)) {
    return Status::InvalidArgument(
        "ERR Library names can only contain letters, numbers, or underscores(_) and must be at "
        "least one character long");
  }
  return *name;
}

}  // namespace

std::string Functions::Body(const std::string& code) {
  std::string body = code;
  const size_t eol = body.find('\n');
  body.replace(0, eol == std::string::npos ? body.size() : eol, "");
  return body;
}

Result<Functions::Library> Functions::Check(const std::string& code) {
  SLOTKV_ASSIGN_OR_RETURN(std::string name, ParseShebang(code));
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<LuaVm> vm, LuaVm::Create());
  SLOTKV_ASSIGN_OR_RETURN(std::vector<LuaVm::Function> functions, vm->LoadLibrary(Body(code)));
  return Library{std::move(name), code, std::move(functions)};
}

Status Functions::AddLocked(std::vector<Library> set, bool replace, bool restoring,
                            std::vector<Library>* libraries) {
  for (Library& lib : set) {
    auto same = std::find_if(libraries->begin(), libraries->end(),
                             [&](const Library& l) { return l.name == lib.name; });
    if (same != libraries->end()) {
      if (!replace) {
        // Redis words LOAD's and RESTORE's refusal apart.
        return Status::InvalidArgument(restoring
                                           ? "ERR Library " + lib.name + " already exists"
                                           : "ERR Library '" + lib.name + "' already exists");
      }
      libraries->erase(same);
    }
    for (const LuaVm::Function& f : lib.functions) {
      for (const Library& other : *libraries) {
        for (const LuaVm::Function& g : other.functions) {
          if (g.name == f.name) {
            return Status::InvalidArgument("ERR Function " + f.name + " already exists");
          }
        }
      }
    }
    libraries->push_back(std::move(lib));
  }
  return Status::OK();
}

Result<std::string> Functions::Load(const std::string& code, bool replace) {
  SLOTKV_ASSIGN_OR_RETURN(Library lib, Check(code));
  std::string name = lib.name;
  std::lock_guard lock(mu_);
  std::vector<Library> next = libraries_;
  std::vector<Library> one;
  one.push_back(std::move(lib));
  SLOTKV_RETURN_IF_ERROR(AddLocked(std::move(one), replace, false, &next));
  libraries_ = std::move(next);
  ++generation_;
  SLOTKV_RETURN_IF_ERROR(SaveLocked());
  return name;
}

Status Functions::Delete(const std::string& library) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(libraries_.begin(), libraries_.end(),
                         [&](const Library& l) { return l.name == library; });
  if (it == libraries_.end()) return Status::NotFound("ERR Library not found");
  libraries_.erase(it);
  ++generation_;
  return SaveLocked();
}

Status Functions::Flush() {
  std::lock_guard lock(mu_);
  libraries_.clear();
  ++generation_;
  return SaveLocked();
}

std::vector<Functions::Library> Functions::List() const {
  std::lock_guard lock(mu_);
  return libraries_;
}

Functions::Snapshot Functions::Current() const {
  std::lock_guard lock(mu_);
  Snapshot s;
  s.generation = generation_;
  for (const Library& lib : libraries_) s.codes.push_back(lib.code);
  return s;
}

std::optional<Functions::Found> Functions::Find(const std::string& name) const {
  std::lock_guard lock(mu_);
  for (const Library& lib : libraries_) {
    for (const LuaVm::Function& f : lib.functions) {
      if (f.name != name) continue;
      Found found;
      found.no_writes = std::find(f.flags.begin(), f.flags.end(), "no-writes") != f.flags.end();
      return found;
    }
  }
  return std::nullopt;
}

std::string Functions::DumpOf(const std::vector<Library>& libraries) {
  std::string out;
  for (const Library& lib : libraries) {
    out.push_back(static_cast<char>(kOpFunction2));
    PutRdbString(&out, lib.code);
  }
  PutRdbTrailer(&out);
  return out;
}

std::string Functions::Dump() const {
  std::lock_guard lock(mu_);
  return DumpOf(libraries_);
}

Status Functions::Restore(std::string_view payload, const std::string& policy) {
  std::optional<std::string_view> body = RdbPayloadBody(payload);
  if (!body) return Status::InvalidArgument(command::kErrBadPayload);
  std::string_view in = *body;
  std::vector<Library> set;
  while (!in.empty()) {
    if (static_cast<uint8_t>(in[0]) != kOpFunction2) {
      return Status::InvalidArgument("ERR given type is not a function");
    }
    in.remove_prefix(1);
    std::string code;
    if (!GetRdbString(&in, &code)) return Status::InvalidArgument(command::kErrBadPayload);
    SLOTKV_ASSIGN_OR_RETURN(Library lib, Check(code));
    set.push_back(std::move(lib));
  }
  std::lock_guard lock(mu_);
  std::vector<Library> next = policy == "FLUSH" ? std::vector<Library>() : libraries_;
  SLOTKV_RETURN_IF_ERROR(AddLocked(std::move(set), policy == "REPLACE", true, &next));
  libraries_ = std::move(next);
  ++generation_;
  return SaveLocked();
}

Status Functions::SaveLocked() {
  if (fs_ == nullptr) return Status::OK();
  return fs_->WriteFileAtomic(path_, DumpOf(libraries_));
}

Status Functions::Open() {
  if (fs_ == nullptr || !fs_->Exists(path_)) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(std::string payload, fs_->ReadFile(path_));
  Status st = Restore(payload, "REPLACE");
  if (!st.ok()) return Status::Corruption(path_ + ": " + std::string(st.message()));
  return Status::OK();
}

}  // namespace slotkv::script
