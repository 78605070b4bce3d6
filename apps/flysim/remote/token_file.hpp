#pragma once
// The one rule for the secrets flysim reads from token files: the control API's
// (control.token-file) and the plasticity shards' (plasticity.token-file, shard --token-file).
#include <cstddef>
#include <string>

namespace flysim::app {

// The shortest token accepted: a shard's key is derived from it by SHA-256 and a
// control request carries it as it is, so the token is the whole secret.
inline constexpr std::size_t kMinTokenLength = 16;

// The token a token file's text holds: its first line without surrounding blanks.
std::string token_in(const std::string& file_text);

// Why `token` is no token (empty, blanks or bytes that are not printable ASCII, shorter
// than kMinTokenLength); empty when it is one.
std::string token_problem(const std::string& token);

}  // namespace flysim::app
