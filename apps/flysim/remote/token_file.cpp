#include "apps/flysim/remote/token_file.hpp"

namespace flysim::app {

std::string token_in(const std::string& file_text) {
  const std::string line = file_text.substr(0, file_text.find('\n'));
  const auto first = line.find_first_not_of(" \t\r");
  const auto last = line.find_last_not_of(" \t\r");
  return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

std::string token_problem(const std::string& token) {
  if (token.empty()) return "holds no token on its first line";
  for (unsigned char c : token)
    if (c < 0x21 || c > 0x7e) return "holds a token with blanks or characters that are not printable ASCII";
  if (token.size() < kMinTokenLength)
    return "holds a token of " + std::to_string(token.size()) + " characters; a token needs at least " +
           std::to_string(kMinTokenLength) + " random ones (e.g. `head -c 32 /dev/urandom | base64 > FILE`)";
  return "";
}

}  // namespace flysim::app
