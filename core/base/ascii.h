// ASCII case helpers for command names, options and hex ids (never locale-dependent).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace slotkv {

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace slotkv
