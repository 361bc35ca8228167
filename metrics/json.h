// Json: a small writer of JSON text for the HTTP admin API. Commas and nesting are tracked, so
// callers write values in order: Json j; j.BeginObject().Key("a").Int(1).EndObject();
// Strings are escaped (quotes, backslash, control characters); bytes of 0x80 and above are
// written as \u00XX, so any byte string gives valid JSON (read back as Latin-1 code points).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::metrics {

class Json {
 public:
  Json& BeginObject();
  Json& EndObject();
  Json& BeginArray();
  Json& EndArray();
  // An object member's name. REQUIRES: inside an object, before the member's value.
  Json& Key(std::string_view name);
  Json& String(std::string_view s);
  Json& Int(int64_t v);
  Json& Uint(uint64_t v);
  Json& Bool(bool v);
  // A number already in JSON's syntax (INFO's "1.25"); the caller checked it.
  Json& Number(std::string_view text);

  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// s as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view s);
// Whether text is a JSON number ("12", "-3", "0.5", "1e+20"; not "inf", "1.", ".5", "01").
bool IsJsonNumber(std::string_view text);

}  // namespace slotkv::metrics
