#include "apps/flysim/service/control_client.hpp"

#include <fmt/format.h>

#include <charconv>

#include "apps/flysim/service/control_json.hpp"
#include "model/errors.hpp"

namespace flysim::app {

httplib::Result control_request(const ControlEndpoint& s, const std::string& path, const std::string* body) {
  httplib::Client client(s.host, s.port);
  client.set_connection_timeout(std::chrono::seconds(5));
  // The service answers a command once it took effect, and waits at most 60 s for that.
  client.set_read_timeout(std::chrono::seconds(70));
  httplib::Headers headers;
  if (!s.token.empty()) headers.emplace("Authorization", "Bearer " + s.token);
  httplib::Result result = body ? client.Post(path, headers, *body, "application/json") : client.Get(path, headers);
  if (result) return result;
  switch (result.error()) {
    case httplib::Error::Connection:
      throw control_failure(fmt::format("nothing listens on {} (is flysim serve running? control.port?)", s.where()));
    case httplib::Error::ConnectionTimeout:
      throw control_failure(fmt::format("no connection to {} within 5 s (is control.bind the service's host?)", s.where()));
    case httplib::Error::Read:
      throw control_failure(fmt::format("{} did not answer (it closed the connection, or took over 70 s)", s.where()));
    default:
      throw control_failure(fmt::format("the request to {} failed: {}", s.where(), httplib::to_string(result.error())));
  }
}

ServiceStatus fetch_status(const ControlEndpoint& s) {
  const httplib::Result result = control_request(s, "/status", nullptr);
  if (result->status == 401)
    throw control_failure("the service refused the request: it needs the token of its control.token-file (--control.token-file)");
  if (result->status != 200)
    throw control_failure(fmt::format("{} answered HTTP {}: {}", s.where(), result->status, error_from_json(result->body)));
  try {
    return status_from_json(result->body);
  } catch (const std::runtime_error& e) {
    throw control_failure(e.what());
  }
}

ControlEndpoint endpoint_from_url(const std::string& url, const std::string& option) {
  const std::string scheme = "http://";
  std::string rest = url.rfind(scheme, 0) == 0 ? url.substr(scheme.size()) : "";
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  const std::size_t colon = rest.rfind(':');
  const bool bracketed = !rest.empty() && rest.front() == '[';
  std::string host = colon == std::string::npos ? "" : rest.substr(0, colon);
  if (bracketed && host.size() >= 2 && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = colon == std::string::npos ? "" : rest.substr(colon + 1);
  int port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (host.empty() || port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
      port > 65535 || host.find('/') != std::string::npos)
    throw input_error(fmt::format("option {}: '{}' is not a URL like http://127.0.0.1:7460 (HTTP only, host and port, no path)",
                                  option, url));
  ControlEndpoint endpoint;
  endpoint.host = host;
  endpoint.port = port;
  return endpoint;
}

}  // namespace flysim::app
