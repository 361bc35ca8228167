// Glob matching with Redis's rules: the patterns of KEYS, SCAN/HSCAN/SSCAN/ZSCAN MATCH,
// PSUBSCRIBE and CONFIG GET.
#pragma once

#include <string_view>

namespace slotkv {

// Returns true when `pattern` matches all of `text`, with the semantics of Redis's
// stringmatchlen (checked byte for byte against redis-server 7.0.15 on x86-64). Both strings
// are bytes: NUL and bytes >= 0x80 are ordinary characters. Never fails; a malformed pattern
// simply matches what Redis would match.
//
// Pattern tokens:
//   *        any run of bytes, including none; consecutive stars act as one.
//   ?        exactly one byte.
//   \x       the byte x literally (a trailing lone '\' is a literal '\').
//   [set]    one byte in the set; [^set] one byte not in it. Inside a set: \x is the byte x,
//            a-b is a range, anything else is itself. ']' right after '[' or '[^' closes the
//            set at once, so "[]" matches nothing and "[^]" matches any byte.
//   x        any other byte matches itself.
//
// Redis quirks kept on purpose:
//   - A nonempty pattern never matches the empty text, not even "*" (Redis KEYS and SCAN skip
//     matching for a lone "*"; callers that want that shortcut make it themselves).
//   - Reversed ranges work: "[z-a]" is "[a-z]". A range's bounds and the byte are compared as
//     signed chars, as x86-64 Redis does, so "[a-\xff]" is the bytes 0xff and 0x00..'a'.
//   - A range reaches over ']': "[a-]" is the range ']'..'a' and leaves the set unterminated.
//   - An unterminated set ("[abc", "[a\]") matches one byte from it and ends the pattern; a
//     lone "[" at the end matches nothing; "[^" at the end matches any one byte.
//   - With nocase, literals and ranges compare ASCII-lowercased (a range lowercases its bounds
//     after putting them in order, so nocase "[Z-a]" matches nothing), but \x inside a set
//     compares exactly.
//   - Abuse guard (Redis's fix for CVE-2024-31228): a pattern that needs more than 1000 stars
//     followed by something else ("*a" repeated 1001 times) matches nothing; trailing stars do
//     not count.
//
// Cost: O(pattern.size() * text.size()) worst case, no recursion, no allocation (the usual
// greedy star with one saved backtrack point; Redis's own "*a*a*a...b" blow-up cannot happen).
bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase = false);

}  // namespace slotkv
