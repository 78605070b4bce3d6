#pragma once
// The shard token of this user on this machine, for a node and its runs that give no
// token file: every connection to a node is TLS with a token (network_layer.hpp), so a
// peer that lacks it never reaches CAF's message layer, which cannot cap the size a
// header announces (docs/CAF-0.17.md).
#include <string>

namespace flysim::app {

// $HOME/.cache/flysim/shard-token (the folder mode 700, the file 600).
std::string user_token_path();

// The token in user_token_path(), created with 32 random hex digits when missing (two
// processes creating it at once both end with the same token). Throws input_error.
std::string user_token();

}  // namespace flysim::app
