#include "net/resp_parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

// Expected replies were captured from redis-server 7.0.15 with raw sockets.

namespace slotkv::net {
namespace {

using State = RespParser::State;
using Args = std::vector<std::string>;
using namespace std::string_literals;

std::string Multibulk(const Args& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& arg : args)
    out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  return out;
}

// A connection's read loop: keeps the unconsumed bytes, parses until the input runs out.
struct Conn {
  explicit Conn(RespLimits limits = {}) : parser(limits) {}

  State Feed(std::string_view bytes) {
    buffer.append(bytes);
    while (true) {
      size_t consumed = 0;
      const State state = parser.Parse(buffer, &args, &consumed);
      REQUIRE(consumed <= buffer.size());
      buffer.erase(0, consumed);
      max_buffered = std::max(max_buffered, buffer.size());
      if (state != State::kCommand) return state;
      commands.push_back(args);
    }
  }

  // Feeds `input` cut at the given (ascending) offsets; errors are sticky, so the last state
  // tells.
  State FeedCut(std::string_view input, const std::vector<size_t>& cuts) {
    size_t from = 0;
    for (size_t cut : cuts) {
      Feed(input.substr(from, cut - from));
      from = cut;
    }
    return Feed(input.substr(from));
  }

  State FeedBytewise(std::string_view input) {
    State state = Feed("");
    for (char c : input) state = Feed(std::string_view(&c, 1));
    return state;
  }

  RespParser parser;
  std::string buffer;
  Args args;
  std::vector<Args> commands;
  size_t max_buffered = 0;
};

// The error `input` ends in (every byte fed at once), or "" when it ends without one.
std::string ErrorOf(std::string_view input, RespLimits limits = {}) {
  Conn conn(limits);
  return conn.Feed(input) == State::kError ? conn.parser.error() : "";
}

// The single request `input` holds.
Args Only(std::string_view input) {
  Conn conn;
  CHECK(conn.Feed(input) == State::kNeedMore);
  CHECK(conn.buffer.empty());
  REQUIRE(conn.commands.size() == 1);
  return conn.commands[0];
}

// A stream with every request form and edge the parser knows, and what it holds.
const std::string kMixedStream =
    Multibulk({"SET", "bin", "a\r\nb\0c\r\n"s}) + "*0\r\n" + "*-1\r\n" + "PING\r\n" + "\r\n" +
    "  ECHO \"x\\r\\n\\x00y\" 'it\\'s'\t z\n" + Multibulk({"GET", ""}) + "*1\rX$4\r\nPINGXY" +
    Multibulk({std::string(300, 'v')}) + "\n" + "QUIT\r\n";
const std::vector<Args> kMixedRequests = {{"SET", "bin", "a\r\nb\0c\r\n"s},
                                          {"PING"},
                                          {"ECHO", "x\r\n\0y"s, "it's", "z"},
                                          {"GET", ""},
                                          {"PING"},
                                          {std::string(300, 'v')},
                                          {"QUIT"}};

TEST_CASE("multibulk request round trip") {
  const Args args = {"SET", "key", "value"};
  RespParser parser;
  Args out;
  size_t consumed = 0;
  const std::string input = Multibulk(args);
  CHECK(parser.Parse(input, &out, &consumed) == State::kCommand);
  CHECK(out == args);
  CHECK(consumed == input.size());
}

TEST_CASE("inline request splits on spaces and tabs") {
  CHECK(Only("SET k  v\r\n") == Args{"SET", "k", "v"});
  CHECK(Only("  PING \t \n") == Args{"PING"});
}

TEST_CASE("pipelined requests come one per call") {
  const std::string input = "PING\r\n" + Multibulk({"GET", "k"}) + "ECHO x\n";
  RespParser parser;
  Args args;
  size_t consumed = 0;
  CHECK(parser.Parse(input, &args, &consumed) == State::kCommand);
  CHECK(args == Args{"PING"});
  CHECK(consumed == 6);
  std::string_view rest = std::string_view(input).substr(consumed);
  CHECK(parser.Parse(rest, &args, &consumed) == State::kCommand);
  CHECK(args == Args{"GET", "k"});
  rest.remove_prefix(consumed);
  CHECK(parser.Parse(rest, &args, &consumed) == State::kCommand);
  CHECK(args == Args{"ECHO", "x"});
  CHECK(consumed == rest.size());
  CHECK(parser.Parse("", &args, &consumed) == State::kNeedMore);
}

TEST_CASE("mixed stream parses to the expected requests") {
  Conn conn;
  CHECK(conn.Feed(kMixedStream) == State::kNeedMore);
  CHECK(conn.commands == kMixedRequests);
  CHECK(conn.buffer.empty());
}

TEST_CASE("every split point of a mixed stream parses identically") {
  for (size_t cut = 0; cut <= kMixedStream.size(); ++cut) {
    CAPTURE(cut);
    Conn conn;
    CHECK(conn.FeedCut(kMixedStream, {cut}) == State::kNeedMore);
    CHECK(conn.commands == kMixedRequests);
    CHECK(conn.buffer.empty());
  }
}

TEST_CASE("a stream fed a byte at a time parses identically") {
  Conn conn;
  CHECK(conn.FeedBytewise(kMixedStream) == State::kNeedMore);
  CHECK(conn.commands == kMixedRequests);
  // Only an incomplete line ever waits in the buffer; the longest here is the inline ECHO.
  CHECK(conn.max_buffered <= 35);
}

TEST_CASE("every split point of a stream ending in an error gives the same error") {
  const std::string stream = Multibulk({"SET", "k", "v"}) + "PING\r\n" + "*1\r\nfoo\r\n";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    CAPTURE(cut);
    Conn conn;
    CHECK(conn.FeedCut(stream, {cut}) == State::kError);
    CHECK(conn.commands == std::vector<Args>{{"SET", "k", "v"}, {"PING"}});
    CHECK(conn.parser.error() == "ERR Protocol error: expected '$', got 'f'");
  }
}

TEST_CASE("after kNeedMore only an incomplete line stays unconsumed") {
  RespParser parser;
  Args args;
  size_t consumed = 0;
  CHECK(parser.Parse("*2\r\n$3", &args, &consumed) == State::kNeedMore);
  CHECK(consumed == 4);  // "$3" waits for its CR
  CHECK(parser.Parse("$3\r\nGE", &args, &consumed) == State::kNeedMore);
  CHECK(consumed == 6);  // a partial bulk is taken in
  CHECK(parser.Parse("T\r", &args, &consumed) == State::kNeedMore);
  CHECK(consumed == 2);
  CHECK(parser.Parse("\n$1\r", &args, &consumed) == State::kNeedMore);
  CHECK(consumed == 1);  // the CR of "$1" waits for the byte after it
  CHECK(parser.Parse("$1\r\nk\r\n", &args, &consumed) == State::kCommand);
  CHECK(args == Args{"GET", "k"});
  CHECK(consumed == 7);
}

TEST_CASE("bulks are binary safe") {
  const std::string value = "\r\n\0\r\n$3\r\n*1\r\n\xff"s;
  CHECK(Only(Multibulk({"SET", "k", value})) == Args{"SET", "k", value});
}

TEST_CASE("empty bulk") { CHECK(Only("*2\r\n$4\r\necho\r\n$0\r\n\r\n") == Args{"echo", ""}); }

TEST_CASE("multibulk counts of zero and below are skipped") {
  CHECK(Only("*0\r\n*-1\r\n*-5\r\nPING\r\n") == Args{"PING"});
  Conn conn;
  CHECK(conn.Feed("*0\r\n*-1\r\n") == State::kNeedMore);
  CHECK(conn.commands.empty());
  CHECK(conn.buffer.empty());
}

TEST_CASE("blank inline lines are skipped") {
  CHECK(Only("\r\n\n   \r\n \t\nPING\r\n") == Args{"PING"});
}

TEST_CASE("the two bytes after a bulk are not checked") {
  CHECK(Only("*1\r\n$4\r\nPINGXY") == Args{"PING"});
}

TEST_CASE("the byte after a header's CR is not checked") {
  CHECK(Only("*1\rX$4\rXPING\r\n") == Args{"PING"});
}

TEST_CASE("a header line ends at its CR, not at a LF") {
  CHECK(ErrorOf("*1\n$4\r\nPING\r\n") == kErrInvalidMultibulkLength);
}

TEST_CASE("invalid multibulk length") {
  for (const char* input : {"*abc\r\n", "*\r\n", "*-0\r\n", "*01\r\n", "*+1\r\n", "* 1\r\n",
                            "*1 \r\n", "*2147483648\r\n", "*11111111111111111111\r\n"}) {
    CAPTURE(input);
    CHECK(ErrorOf(input) == kErrInvalidMultibulkLength);
  }
}

TEST_CASE("a multibulk count up to INT_MAX is accepted without reserving for it") {
  Conn conn;
  CHECK(conn.Feed("*2147483647\r\n$1\r\na\r\n") == State::kNeedMore);
  CHECK(conn.buffer.empty());
  CHECK(conn.commands.empty());
}

TEST_CASE("expected '$' reports the byte found") {
  CHECK(ErrorOf("*1\r\nfoo\r\n") == "ERR Protocol error: expected '$', got 'f'");
  CHECK(ErrorOf("*1\r\n\x01\r\n") == "ERR Protocol error: expected '$', got '\x01'");
  CHECK(ErrorOf("*1\r\n\xff\r\n") == "ERR Protocol error: expected '$', got '\xff'");
  CHECK(ErrorOf("*2\r\n$1\r\na\r\n:1\r\n") == "ERR Protocol error: expected '$', got ':'");
}

TEST_CASE("expected '$' prints CR and LF as a space") {
  CHECK(ErrorOf("*1\r\n\r\n") == "ERR Protocol error: expected '$', got ' '");
  CHECK(ErrorOf("*1\r\n\n\r\n") == "ERR Protocol error: expected '$', got ' '");
}

TEST_CASE("invalid bulk length") {
  for (const char* input : {"*1\r\n$-1\r\n", "*1\r\n$abc\r\n", "*1\r\n$\r\n", "*1\r\n$01\r\n",
                            "*1\r\n$+1\r\n", "*1\r\n$536870913\r\n"}) {
    CAPTURE(input);
    CHECK(ErrorOf(input) == kErrInvalidBulkLength);
  }
}

TEST_CASE("huge declared lengths are rejected before anything is reserved") {
  CHECK(ErrorOf("*1\r\n$9223372036854775807\r\n") == kErrInvalidBulkLength);
  CHECK(ErrorOf("*1\r\n$18446744073709551616\r\n") == kErrInvalidBulkLength);
  CHECK(ErrorOf("*9223372036854775807\r\n") == kErrInvalidMultibulkLength);
  CHECK(ErrorOf("*-9223372036854775808\r\n").empty());  // negative: an empty request
}

TEST_CASE("too big mbulk count string") {
  const std::string header = "*" + std::string(65535, '1');  // 64 KB without a CR: waits
  CHECK(ErrorOf(header).empty());
  CHECK(ErrorOf(header + "1") == kErrTooBigMultibulkCount);
}

TEST_CASE("too big bulk count string") {
  const std::string header = "*1\r\n$" + std::string(65535, '1');
  CHECK(ErrorOf(header).empty());
  CHECK(ErrorOf(header + "1") == kErrTooBigBulkCount);
  // A header of exactly 64 KB ends in time, and is then no number.
  CHECK(ErrorOf(header + "\r\n") == kErrInvalidBulkLength);
}

TEST_CASE("too big inline request") {
  const std::string line(65536, 'a');
  CHECK(ErrorOf(line).empty());
  CHECK(ErrorOf(line + "a") == kErrTooBigInline);
  Conn conn;
  CHECK(conn.Feed("ECHO " + std::string(65531, 'a') + "\n") == State::kNeedMore);
  CHECK(conn.commands == std::vector<Args>{{"ECHO", std::string(65531, 'a')}});
}

TEST_CASE("a line longer than the limit fails however it is split") {
  RespLimits limits;
  limits.max_inline_len = 16;
  // The outcome of `input` fed in two pieces, the same for every cut.
  auto outcome = [&](const std::string& input) {
    std::string first;
    for (size_t cut = 0; cut <= input.size(); ++cut) {
      Conn conn(limits);
      const std::string result = conn.FeedCut(input, {cut}) == State::kError
                                     ? conn.parser.error()
                                     : std::to_string(conn.commands.size()) + " requests";
      if (cut == 0) first = result;
      CHECK(result == first);
    }
    return first;
  };
  CHECK(outcome("ECHO " + std::string(11, 'a') + "\r\n") == kErrTooBigInline);  // 17 before LF
  CHECK(outcome("ECHO " + std::string(10, 'a') + "\r\n") == "1 requests");      // 16 before LF
  CHECK(outcome("*1\r\n$1" + std::string(15, '0') + "\r\n") == kErrTooBigBulkCount);  // 17
  CHECK(outcome("*1\r\n$" + std::string(14, '0') + "1\r\nx\r\n") == kErrInvalidBulkLength);
}

TEST_CASE("a NUL in an inline line hides its end until the line is too big") {
  Conn conn;
  CHECK(conn.Feed("PING\0\r\nPING\r\n"s) == State::kNeedMore);
  CHECK(conn.commands.empty());
  CHECK(conn.Feed(std::string(65536 - 13, 'x')) == State::kNeedMore);
  CHECK(conn.Feed("x") == State::kError);
  CHECK(conn.parser.error() == kErrTooBigInline);
}

TEST_CASE("a NUL in a header hides its end until the header is too big") {
  CHECK(ErrorOf("*1\0\r\n"s).empty());
  CHECK(ErrorOf("*1\0\r\n"s + std::string(65532, 'x')) == kErrTooBigMultibulkCount);
  CHECK(ErrorOf("*1\r\n$4\0\r\n"s + std::string(65531, 'x')).empty());
  CHECK(ErrorOf("*1\r\n$4\0\r\n"s + std::string(65532, 'x')) == kErrTooBigBulkCount);
}

TEST_CASE("inline double quotes take escapes") {
  CHECK(Only("ECHO \"a\\x41\\n\\r\\t\\b\\a\\\\\\\"\\q\"\r\n") == Args{"ECHO", "aA\n\r\t\b\a\\\"q"});
  CHECK(Only("ECHO \"\\x00\\xfF\"\r\n") == Args{"ECHO", "\0\xff"s});
  CHECK(Only("ECHO \"\\xZZ\" \"\\x4\"\r\n") == Args{"ECHO", "xZZ", "x4"});
  CHECK(Only("ECHO \"\" \"a b\"\r\n") == Args{"ECHO", "", "a b"});
}

TEST_CASE("inline single quotes take only \\'") {
  CHECK(Only("ECHO 'a\\'b\\n\"'\r\n") == Args{"ECHO", "a'b\\n\""});
  CHECK(Only("ECHO ''\r\n") == Args{"ECHO", ""});
}

TEST_CASE("quotes may open in the middle of an argument") {
  CHECK(Only("SET k a\"b c\"\r\n") == Args{"SET", "k", "ab c"});
  CHECK(Only("ECHO\v\"a\"\v\r\n") == Args{"ECHO\va"});
}

TEST_CASE("unbalanced quotes in request") {
  for (const char* input :
       {"ECHO \"abc\"def\r\n", "ECHO 'abc'def\r\n", "ECHO a\"b c\"d\r\n", "ECHO \"abc\r\n",
        "ECHO 'abc\r\n", "ECHO \"ab\\\"\r\n", "ECHO \"a\\\r\n", "ECHO 'a\\\\'\r\n"}) {
    CAPTURE(input);
    CHECK(ErrorOf(input) == kErrUnbalancedQuotes);
  }
}

TEST_CASE("a closing quote may be followed by any blank") {
  CHECK(Only("ECHO \"a\"\tx\r\n") == Args{"ECHO", "a", "x"});
  CHECK(Only("ECHO \"a\"\v\r\n") == Args{"ECHO", "a"});
  CHECK(Only("ECHO 'a'\f'b'\r\n") == Args{"ECHO", "a", "b"});
}

TEST_CASE("vertical tab and form feed separate only before an argument") {
  CHECK(Only("ECHO a\vb\r\n") == Args{"ECHO", "a\vb"});
  CHECK(Only("ECHO a\fb\r\n") == Args{"ECHO", "a\fb"});
  CHECK(Only("ECHO \va\r\n") == Args{"ECHO", "a"});
}

TEST_CASE("a CR inside an inline line separates arguments") {
  CHECK(Only("ECHO a\rb\r\n") == Args{"ECHO", "a", "b"});
  CHECK(Only("ECHO ab\r\r\n") == Args{"ECHO", "ab"});
}

TEST_CASE("inline arguments are binary apart from NUL") {
  CHECK(Only("ECHO \xff\xfe\r\n") == Args{"ECHO", "\xff\xfe"});
}

TEST_CASE("custom limits") {
  RespLimits limits;
  limits.max_bulk_len = 10;
  limits.max_multibulk_len = 3;
  limits.max_inline_len = 8;
  CHECK(ErrorOf("*1\r\n$10\r\n", limits).empty());
  CHECK(ErrorOf("*1\r\n$11\r\n", limits) == kErrInvalidBulkLength);
  CHECK(ErrorOf("*3\r\n", limits).empty());
  CHECK(ErrorOf("*4\r\n", limits) == kErrInvalidMultibulkLength);
  CHECK(ErrorOf("PING", limits).empty());
  CHECK(ErrorOf("ECHO abcd", limits) == kErrTooBigInline);
}

TEST_CASE("new limits apply from the next header") {
  Conn conn;
  CHECK(conn.Feed("*2\r\n$3\r\nGET\r\n") == State::kNeedMore);
  RespLimits limits;
  limits.max_bulk_len = 2;
  conn.parser.set_limits(limits);
  CHECK(conn.Feed("$3\r\n") == State::kError);
  CHECK(conn.parser.error() == kErrInvalidBulkLength);
}

TEST_CASE("unauthenticated clients are limited to 10 arguments of 16 KB") {
  RespParser parser;
  parser.set_authenticated(false);
  Args args;
  size_t consumed = 0;
  CHECK(parser.Parse("*10\r\n$16384\r\n", &args, &consumed) == State::kNeedMore);
  CHECK(ErrorOf("*11\r\n", {}).empty());

  auto error_unauth = [](std::string_view input) {
    Conn conn;
    conn.parser.set_authenticated(false);
    return conn.Feed(input) == State::kError ? conn.parser.error() : "";
  };
  CHECK(error_unauth("*11\r\n") == kErrUnauthMultibulkLength);
  CHECK(error_unauth("*1\r\n$16385\r\n") == kErrUnauthBulkLength);
  // The invalid checks come first, as in Redis.
  CHECK(error_unauth("*11111111111\r\n") == kErrInvalidMultibulkLength);
  CHECK(error_unauth("*1\r\n$536870913\r\n") == kErrInvalidBulkLength);
  // Inline requests have only the inline limit.
  CHECK(error_unauth("A B C D E F G H I J K L\r\n").empty());
}

TEST_CASE("authenticating lifts the unauthenticated limits") {
  Conn conn;
  conn.parser.set_authenticated(false);
  CHECK(conn.Feed(Multibulk({"AUTH", "secret"})) == State::kNeedMore);
  conn.parser.set_authenticated(true);
  CHECK(conn.Feed("*11\r\n$16385\r\n") == State::kNeedMore);
  CHECK(conn.commands.size() == 1);
}

TEST_CASE("a 10 MB bulk in 4 KB pieces is examined once") {
  const size_t size = 10 << 20;
  std::string value(size, '\0');
  for (size_t i = 0; i < size; ++i) value[i] = static_cast<char>(i % 251);
  const std::string input = Multibulk({"SET", "k", value});
  Conn conn;
  for (size_t at = 0; at < input.size(); at += 4096) {
    CHECK(conn.Feed(std::string_view(input).substr(at, 4096)) == State::kNeedMore);
  }
  REQUIRE(conn.commands.size() == 1);
  CHECK(conn.commands[0][2] == value);
  CHECK(conn.parser.BytesExaminedForTest() <= input.size());
  CHECK(conn.max_buffered < 16);  // never more than a partial header
}

TEST_CASE("a line arriving a byte at a time is scanned once") {
  const std::string line = "SET k " + std::string(60000, 'v') + "\r\n";
  Conn conn;
  CHECK(conn.FeedBytewise(line) == State::kNeedMore);
  CHECK(conn.commands.size() == 1);
  CHECK(conn.parser.BytesExaminedForTest() <= line.size());
}

TEST_CASE("the query buffer limit counts the partial bulk") {
  RespLimits limits;
  limits.max_query_buffer = 100;
  Conn conn(limits);
  CHECK_FALSE(conn.parser.OverQueryLimit(100));
  CHECK(conn.parser.OverQueryLimit(101));
  CHECK(conn.Feed("*1\r\n$200\r\n" + std::string(90, 'x')) == State::kNeedMore);
  CHECK_FALSE(conn.parser.OverQueryLimit(10));
  CHECK(conn.parser.OverQueryLimit(11));
}

TEST_CASE("the query limit counts the complete arguments of a request being read") {
  RespLimits limits;
  limits.max_query_buffer = 1000;
  SUBCASE("big bulks, one after the other") {
    Conn conn(limits);
    std::string data = "*1000\r\n";
    for (int i = 0; i < 3; ++i) data += "$300\r\n" + std::string(300, 'x') + "\r\n";
    CHECK(conn.Feed(data) == State::kNeedMore);
    // 3 x (300 + 32) held; nothing of it is buffered any more
    CHECK_FALSE(conn.parser.OverQueryLimit(0));
    CHECK(conn.Feed("$300\r\n" + std::string(300, 'x') + "\r\n") == State::kNeedMore);
    CHECK(conn.parser.OverQueryLimit(0));
  }
  SUBCASE("many empty arguments") {
    Conn conn(limits);
    std::string data = "*1000000\r\n";
    for (int i = 0; i < 31; ++i) data += "$0\r\n\r\n";
    CHECK(conn.Feed(data) == State::kNeedMore);
    CHECK_FALSE(conn.parser.OverQueryLimit(0));  // 31 x 32
    CHECK(conn.Feed("$0\r\n\r\n") == State::kNeedMore);
    CHECK(conn.parser.OverQueryLimit(0));  // 32 x 32 > 1000
  }
  SUBCASE("a finished request holds nothing") {
    Conn conn(limits);
    conn.Feed(Multibulk({"SET", "k", std::string(900, 'v')}));
    CHECK(conn.commands.size() == 1);
    CHECK_FALSE(conn.parser.OverQueryLimit(0));
  }
}

TEST_CASE("args are replaced, not appended to") {
  RespParser parser;
  Args args = {"stale", "junk", "more"};
  size_t consumed = 0;
  CHECK(parser.Parse("PING\r\n", &args, &consumed) == State::kCommand);
  CHECK(args == Args{"PING"});
  CHECK(parser.Parse(Multibulk({"GET", "k"}), &args, &consumed) == State::kCommand);
  CHECK(args == Args{"GET", "k"});
}

TEST_CASE("errors are sticky until Reset") {
  RespParser parser;
  Args args;
  size_t consumed = 0;
  CHECK(parser.Parse("*1\r\n$-1\r\n", &args, &consumed) == State::kError);
  CHECK(consumed == 4);
  CHECK(parser.Parse("PING\r\n", &args, &consumed) == State::kError);
  CHECK(consumed == 0);
  CHECK(parser.error() == kErrInvalidBulkLength);
  parser.Reset();
  CHECK(parser.error().empty());
  CHECK(parser.Parse("PING\r\n", &args, &consumed) == State::kCommand);
}

TEST_CASE("Reset drops a partial request") {
  RespParser parser;
  Args args;
  size_t consumed = 0;
  CHECK(parser.Parse("*2\r\n$3\r\nGET\r\n$1\r\n", &args, &consumed) == State::kNeedMore);
  parser.Reset();
  CHECK(parser.Parse("PING\r\n", &args, &consumed) == State::kCommand);
  CHECK(args == Args{"PING"});
}

TEST_CASE("AtRequestStart: only between requests") {
  RespParser parser;
  Args args;
  size_t consumed = 0;
  CHECK(parser.AtRequestStart());
  CHECK(parser.Parse("*2\r\n$3\r\nGET\r\n$1\r\n", &args, &consumed) == State::kNeedMore);
  CHECK_FALSE(parser.AtRequestStart());
  CHECK(parser.Parse("k\r\n", &args, &consumed) == State::kCommand);
  CHECK(parser.AtRequestStart());
  CHECK(parser.Parse("PIN", &args, &consumed) == State::kNeedMore);  // inside a line
  CHECK_FALSE(parser.AtRequestStart());
  CHECK(parser.Parse("PING\r\n", &args, &consumed) == State::kCommand);
  CHECK(parser.AtRequestStart());
}

}  // namespace
}  // namespace slotkv::net
