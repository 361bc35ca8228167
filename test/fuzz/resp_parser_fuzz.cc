// Fuzz target: net/resp_parser (RespParser), the bytes every client sends.
//
// Input:  flags:u8 cut:u8 stream
//   flags bit 0: max_inline_len = 4 + 8 * (flags >> 4) (4..124) instead of 64 KB
//         bit 1: max_bulk_len = 40           bit 2: max_multibulk_len = 5
//         bit 3: the client is not authenticated (Redis's 10-argument / 16 KB caps)
//   cut: where the stream is split in two for the second feeding (cut * size / 255)
//
// Checks, besides the sanitizers: the stream fed whole, in two pieces and a byte at a time
// gives the same requests, the same error and the same unconsumed bytes (the parser's contract
// that splitting never changes the outcome); at most max_inline_len + 1 bytes stay unconsumed
// after kNeedMore; every byte is examined at most once; an error is sticky until Reset; and the
// requests, written back as multibulk requests, parse to themselves after a Reset.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/resp_parser.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::net {
namespace {

struct Outcome {
  std::vector<std::vector<std::string>> requests;
  bool failed = false;
  std::string error;
  std::string unconsumed;  // bytes left in the caller's buffer (plus any not fed, after an error)
  uint64_t examined = 0;

  bool operator==(const Outcome& o) const {
    return requests == o.requests && failed == o.failed && error == o.error &&
           unconsumed == o.unconsumed;
  }
};

// Feeds stream to parser in pieces of the given sizes (the last piece takes the rest), as a
// connection does: append what arrived, parse until kNeedMore or kError.
Outcome Feed(RespParser& parser, std::string_view stream, const std::vector<size_t>& pieces) {
  Outcome out;
  std::string buffer;
  std::vector<std::string> args;
  size_t fed = 0;
  for (size_t i = 0; fed < stream.size() || i == 0; ++i) {
    const size_t n =
        i < pieces.size() ? std::min(pieces[i], stream.size() - fed) : stream.size() - fed;
    buffer.append(stream.substr(fed, n));
    fed += n;
    while (true) {
      size_t consumed = 0;
      const RespParser::State state = parser.Parse(buffer, &args, &consumed);
      FUZZ_CHECK(consumed <= buffer.size());
      buffer.erase(0, consumed);
      (void)parser.OverQueryLimit(buffer.size());
      if (state == RespParser::State::kCommand) {
        FUZZ_CHECK(!args.empty());
        out.requests.push_back(args);
        continue;
      }
      if (state == RespParser::State::kNeedMore) {
        FUZZ_CHECK(buffer.size() <= parser.limits().max_inline_len + 1);
        break;
      }
      FUZZ_CHECK(!parser.error().empty());
      FUZZ_CHECK(parser.error().find_first_of("\r\n") == std::string::npos);
      // Sticky: nothing more is consumed.
      FUZZ_CHECK(parser.Parse(buffer, &args, &consumed) == RespParser::State::kError);
      FUZZ_CHECK(consumed == 0);
      out.failed = true;
      out.error = parser.error();
      buffer.append(stream.substr(fed));
      fed = stream.size();
      break;
    }
    if (out.failed) break;
  }
  out.unconsumed = buffer;
  out.examined = parser.BytesExaminedForTest();
  return out;
}

// The requests as multibulk requests, when the limits let the parser take them back that way
// (inline requests escape some of them: they have no argument count or bulk length to check).
bool Encode(const std::vector<std::vector<std::string>>& requests, const RespLimits& limits,
            bool authenticated, std::string* out) {
  auto header_fits = [&](uint64_t n) {
    return std::to_string(n).size() + 1 <= limits.max_inline_len;
  };
  for (const std::vector<std::string>& args : requests) {
    const auto count = static_cast<int64_t>(args.size());
    if (count > limits.max_multibulk_len || !header_fits(args.size()) ||
        (!authenticated && count > kUnauthMaxMultibulkLen)) {
      return false;
    }
    *out += "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string& arg : args) {
      if (arg.size() > limits.max_bulk_len || !header_fits(arg.size()) ||
          (!authenticated && static_cast<int64_t>(arg.size()) > kUnauthMaxBulkLen)) {
        return false;
      }
      *out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
    }
  }
  return true;
}

}  // namespace
}  // namespace slotkv::net

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv::net;
  if (size < 2) return 0;
  const uint8_t flags = data[0];
  const uint8_t cut = data[1];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);

  RespLimits limits;
  if (flags & 0x01) limits.max_inline_len = 4 + 8 * (flags >> 4);
  if (flags & 0x02) limits.max_bulk_len = 40;
  if (flags & 0x04) limits.max_multibulk_len = 5;
  const bool authenticated = (flags & 0x08) == 0;

  RespParser whole(limits);
  whole.set_authenticated(authenticated);
  const Outcome a = Feed(whole, stream, {});
  FUZZ_CHECK(a.examined <= stream.size());

  RespParser halves(limits);
  halves.set_authenticated(authenticated);
  const Outcome b = Feed(halves, stream, {cut * stream.size() / 255});
  FUZZ_CHECK(b == a);

  RespParser bytes(limits);
  bytes.set_authenticated(authenticated);
  const Outcome c = Feed(bytes, stream, std::vector<size_t>(stream.size(), 1));
  FUZZ_CHECK(c == a);
  FUZZ_CHECK(c.examined <= stream.size());

  // Written back as multibulk requests, the requests parse to themselves (after a Reset, which
  // must forget an error and a partial request).
  std::string encoded;
  if (Encode(a.requests, limits, authenticated, &encoded)) {
    whole.Reset();
    const Outcome again = Feed(whole, encoded, {});
    FUZZ_CHECK(!again.failed);
    FUZZ_CHECK(again.unconsumed.empty());
    FUZZ_CHECK(again.requests == a.requests);
  }
  return 0;
}
