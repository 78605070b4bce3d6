#include "apps/flysim/options/control_options.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "apps/flysim/remote/token_file.hpp"
#include "model/errors.hpp"
#include "io/input_file.hpp"

namespace flysim::app {

std::vector<OptionSpec> control_options(int default_port) {
  return {
      {"control.port", OptionType::integer, std::to_string(default_port),
       "TCP port of the control API (flysim serve listens, flysim ctl connects; 0 for serve: any free port, printed)"},
      {"control.bind", OptionType::text, "127.0.0.1",
       "address of the control API (serve: where to listen; ctl: the host to connect to). An address other than loopback "
       "needs control.token-file"},
      {"control.token-file", OptionType::path, "",
       "file whose first line is the token every control request must carry ('Authorization: Bearer TOKEN'); keep it "
       "readable by its owner only"},
  };
}

OptionSpec web_dir_option() {
  return {"control.web-dir", OptionType::path, "",
          "folder of the live page's files (index.html, page.js, page.css), served at / on the control address; empty: "
          "web/ next to the binary, ../share/flysim/web beside it, the source tree, then the install prefix"};
}

std::string control_token(const Options& o) {
  const std::string& path = o.text("control.token-file");
  if (path.empty()) return "";
  std::string text;
  try {
    text = read_input_file(path, "the token file");
  } catch (const input_error& e) {
    o.reject("control.token-file", std::string("cannot be read: ") + e.what());
  }
  const std::string token = token_in(text);
  if (const std::string problem = token_problem(token); !problem.empty()) o.reject("control.token-file", problem);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0)
    spdlog::warn("control.token-file={} is readable by other users; chmod 600 it", path);
  return token;
}

namespace {
int control_port(const Options& o, int lowest) {
  const int64_t port = o.integer("control.port");
  if (port < lowest || port > 65535) o.reject("control.port", fmt::format("must be {}..65535", lowest));
  return static_cast<int>(port);
}

std::string control_bind(const Options& o) {
  if (o.text("control.bind").empty()) o.reject("control.bind", "is empty; give an address such as 127.0.0.1");
  return o.text("control.bind");
}
}  // namespace

ControlServerConfig control_server_config(const Options& o) {
  ControlServerConfig config;
  config.port = control_port(o, 0);
  config.bind = control_bind(o);
  config.token = control_token(o);
  if (config.token.empty() && !is_loopback_address(config.bind))
    o.reject("control.bind", "is not a loopback address: serving it needs control.token-file, or anyone who reaches it "
                             "could stop the service");
  if (!config.token.empty() && !is_loopback_address(config.bind))
    spdlog::warn("control API on {}: plain HTTP, so the token and the commands cross the network unencrypted", config.bind);
  return config;
}

PageFiles page_files_from_options(const Options& o) {
  return load_page_files(find_web_dir(o.text("control.web-dir"), web_dir_candidates(running_executable())));
}

std::string ControlEndpoint::where() const { return host_and_port(host, port); }

ControlEndpoint control_endpoint(const Options& o) {
  return {control_bind(o), control_port(o, 1), control_token(o)};
}

}  // namespace flysim::app
