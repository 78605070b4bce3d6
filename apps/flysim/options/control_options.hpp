#pragma once
// The control.* options: the same keys tell `flysim serve` where to listen
// and `flysim ctl` where to connect, so one config file serves both.
#include <string>
#include <vector>

#include "apps/flysim/service/control_server.hpp"
#include "apps/flysim/options/options.hpp"

namespace flysim::app {

// The port `flysim serve` listens on, and `flysim ctl` connects to, by default.
inline constexpr int kDefaultControlPort = 7460;

// control.port (default `default_port`), control.bind, control.token-file.
std::vector<OptionSpec> control_options(int default_port);

// control.web-dir: where flysim serve finds the live page.
OptionSpec web_dir_option();

// The token of control.token-file: its first line, without surrounding blanks; "" when
// the option is not set. Refuses what token_problem refuses (apps/flysim/remote/token_file.hpp:
// the rule of shard tokens too); warns when the file is readable by other users.
std::string control_token(const Options& o);

// What `flysim serve` starts its ControlServer with: control.port checked (0..65535),
// the token read, and an address other than loopback refused without a token (naming
// control.bind). Throws input_error.
ControlServerConfig control_server_config(const Options& o);

// The live page's files, from control.web-dir or the places web_dir_candidates() names
// (flysim serve only). Throws input_error naming where it looked.
PageFiles page_files_from_options(const Options& o);

// Where `flysim ctl` finds the service: the host control.bind, control.port (1..65535:
// a client cannot connect to "any port") and the token. Throws input_error.
struct ControlEndpoint {
  std::string host;
  int port = kDefaultControlPort;
  std::string token;
  // "HOST:PORT" ("[HOST]:PORT" for an IPv6 address), as messages show it.
  std::string where() const;
};
ControlEndpoint control_endpoint(const Options& o);

}  // namespace flysim::app
