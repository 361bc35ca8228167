// The parsers of the option table's rows with a grammar of their own (OptionDef::parse): each
// checks a value and returns it as CONFIG GET shows it, given the current one. The ones of
// Redis 7.0.15's options that change nothing in slotkv keep Redis's checks and error texts, so
// a value Redis refuses is refused here too. (config.h declares the parsers other modules use.)
#pragma once

#include <string>
#include <string_view>

#include "conf/config.h"

namespace slotkv::conf {

// notify-keyspace-events: Redis's letters, shown as Redis writes them.
Result<std::string> ParseNotifyOption(std::string_view value, std::string_view current);
// latency-tracking-info-percentiles: numbers in [0, 100], shown trimmed ("99.9 50 0").
Result<std::string> ParsePercentilesOption(std::string_view value, std::string_view current);
// maxmemory-clients: a memory value, or a percentage of maxmemory up to 100 ("10%").
Result<std::string> ParseMemoryOrPercent(std::string_view value, std::string_view current);
// shutdown-on-sigint / shutdown-on-sigterm: flags, shown in Redis's order.
Result<std::string> ParseShutdownFlags(std::string_view value, std::string_view current);
// oom-score-adj: relative is another name of yes.
Result<std::string> ParseOomScoreAdj(std::string_view value, std::string_view current);
// oom-score-adj-values: three integers in [-2000, 2000].
Result<std::string> ParseOomScoreValues(std::string_view value, std::string_view current);
// proc-title-template: Redis's {variable} template.
Result<std::string> ParseProcTitleTemplate(std::string_view value, std::string_view current);
// cluster-announce-hostname: letters, digits, '-' and '.'.
Result<std::string> ParseHostname(std::string_view value, std::string_view current);
// dbfilename, appendfilename, appenddirname: a file name, not a path.
Result<std::string> ParseDbFilename(std::string_view value, std::string_view current);
Result<std::string> ParseAppendFilename(std::string_view value, std::string_view current);
Result<std::string> ParseAppendDirname(std::string_view value, std::string_view current);
// unixsocketperm: octal, 0 to 0777.
Result<std::string> ParseOctalPerm(std::string_view value, std::string_view current);

}  // namespace slotkv::conf
