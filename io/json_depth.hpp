#pragma once
// How deeply JSON text nests arrays and objects, found by a scan of its bytes before any
// parser sees it: nlohmann's printer, comparisons and copies recurse once per level, so
// text nested 100,000 deep would overflow the stack of whoever touches it.
#include <cstddef>
#include <string>
#include <string_view>

namespace flysim {

// Deeper than any JSON flysim reads or writes (a live command nests 3 levels).
inline constexpr std::size_t kMaxJsonDepth = 64;

// "" when `text` nests arrays and objects at most `limit` deep; otherwise what is wrong,
// with the byte offset of the first bracket beyond the limit. Brackets inside strings
// do not count; the text need not be valid JSON (the parser judges that afterwards).
std::string json_depth_problem(std::string_view text, std::size_t limit = kMaxJsonDepth);

}  // namespace flysim
