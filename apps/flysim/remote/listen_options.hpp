#pragma once
// The options of a process that serves other processes over CAF's network layer
// (flysim shard, flysim worker): port, bind and token-file, checked once for both.
#include <caf/actor_system.hpp>
#include <caf/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "model/errors.hpp"

namespace flysim::app {

struct ListenRequest {
  uint16_t port = 0;       // 0: any free port
  std::string bind;        // an IPv4 address
  std::string token;       // the token file's, or this user's own on loopback
  std::string token_from;  // in words: where the token came from (for the log)
};

// port, bind and token-file; `peer_token_key` is the option the peers give the same
// token with (plasticity.token-file, screen.token-file).
std::vector<OptionSpec> listen_specs(const std::string& peer_token_key);

// The checked options: bind is an IPv4 address; beyond loopback a token file is
// required. Errors name the option.
ListenRequest listen_request(const Options& o, const std::string& peer_token_key);

// The error of a publish that failed, in words where the bind says why ("the port is in use").
input_error cannot_listen(caf::actor_system& system, const ListenRequest& listen, const caf::error& err);

}  // namespace flysim::app
