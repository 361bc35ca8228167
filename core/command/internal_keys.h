// Internal keys: the keys slotkv itself keeps in a slot beside the user's (pages of paged
// collections, the count of internal keys, the reclaim queue), in a namespace no user key can
// reach.
//
// Design. Every key is stored as bytes in the slot. A user key that starts with byte 0xFF is
// stored with one more 0xFF in front; any other user key is stored as it is (no copy, no byte
// added: the common case costs nothing). So a stored key that starts with 0xFF followed by a
// byte other than 0xFF (or the lone byte 0xFF) is never a user's: those are the internal keys.
// Store (keyspace.h) maps user keys to stored keys on the way in and filters internal keys out
// of scans and counts on the way out; replication ships stored keys as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slotkv::command {

inline constexpr char kEscapeByte = '\xFF';

// The stored form of a user key (a view of it, or of an owned escaped copy).
class StoredKey {
 public:
  explicit StoredKey(std::string_view user) {
    if (!user.empty() && user[0] == kEscapeByte) {
      escaped_.reserve(user.size() + 1);
      escaped_.push_back(kEscapeByte);
      escaped_.append(user);
      view_ = escaped_;
    } else {
      view_ = user;
    }
  }
  StoredKey(const StoredKey&) = delete;
  StoredKey& operator=(const StoredKey&) = delete;
  std::string_view view() const { return view_; }
  operator std::string_view() const { return view_; }

 private:
  std::string escaped_;
  std::string_view view_;
};

// Whether a stored key is internal.
inline bool IsInternalKey(std::string_view stored) {
  return !stored.empty() && stored[0] == kEscapeByte &&
         (stored.size() == 1 || stored[1] != kEscapeByte);
}

// The user key of a stored key (a view into it); nullopt for an internal key.
inline std::optional<std::string_view> UserKeyOf(std::string_view stored) {
  if (stored.empty() || stored[0] != kEscapeByte) return stored;
  if (IsInternalKey(stored)) return std::nullopt;
  return stored.substr(1);
}

// Turns a stored key into its user key in place; false (key untouched) for an internal key.
inline bool ToUserKey(std::string* stored) {
  std::optional<std::string_view> user = UserKeyOf(*stored);
  if (!user) return false;
  if (user->size() != stored->size()) stored->erase(0, 1);
  return true;
}

// Internal keys: 0xFF, a kind byte, then the kind's fields.
// How many internal keys the slot holds besides this one (a decimal number; absent = 0).
inline constexpr std::string_view kInternalCountKey = "\xFF" "c";
// The pages of dropped paged collections still to delete (collection_pages.h).
inline constexpr std::string_view kReclaimKey = "\xFF" "r";
// The page ranges of the copies of paged collections being written into the slot (BeginCopy
// in collection_pages.h).
inline constexpr std::string_view kCopyKey = "\xFF" "k";
// Page index of paged collection id: 0xFF 'p' id:fixed64-big-endian index:fixed64-big-endian.
// Held inline: every page a command reads or writes names its key, and as a std::string (18
// bytes, past the inline 15) each was an allocation (1-2% of the server's CPU under ZADD or
// LRANGE of a paged collection).
class PageKey {
 public:
  PageKey(uint64_t id, uint64_t index);
  operator std::string_view() const { return {bytes_, sizeof(bytes_)}; }

 private:
  char bytes_[18];
};

}  // namespace slotkv::command
