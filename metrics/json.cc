#include "metrics/json.h"

#include <cctype>
#include <cstdio>

namespace slotkv::metrics {

void Json::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

Json& Json::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}

Json& Json::EndObject() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}

Json& Json::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}

Json& Json::EndArray() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}

Json& Json::Key(std::string_view name) {
  BeforeValue();
  out_ += JsonQuote(name);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

Json& Json::String(std::string_view s) {
  BeforeValue();
  out_ += JsonQuote(s);
  return *this;
}

Json& Json::Int(int64_t v) {
  BeforeValue();
  out_ += std::to_string(v);
  return *this;
}

Json& Json::Bool(bool v) {
  BeforeValue();
  out_ += v ? "true" : "false";
  return *this;
}

Json& Json::Uint(uint64_t v) {
  BeforeValue();
  out_ += std::to_string(v);
  return *this;
}

Json& Json::Number(std::string_view text) {
  BeforeValue();
  out_.append(text);
  return *this;
}

std::string JsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c >= 0x80) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
  return out;
}

bool IsJsonNumber(std::string_view t) {
  size_t i = 0;
  const auto digit = [&](size_t k) {
    return k < t.size() && std::isdigit(static_cast<unsigned char>(t[k]));
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (!digit(i)) return false;
  if (t[i] == '0') {
    ++i;
  } else {
    while (digit(i)) ++i;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  return i == t.size();
}

}  // namespace slotkv::metrics
