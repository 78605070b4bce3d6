#include "apps/flysim/service/browser_guard.hpp"

#include <fmt/format.h>

#include "apps/flysim/service/control_server.hpp"

namespace flysim::app {

namespace {
// "HOST:PORT", "[V6]:PORT" or "HOST" -> the host name alone, brackets removed.
std::string host_name(const std::string& host) {
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    return close == std::string::npos ? host : host.substr(1, close - 1);
  }
  return host.substr(0, host.find(':'));
}
}  // namespace

std::string cross_site_problem(const std::string& host, const std::string& origin, bool loopback_without_token) {
  if (loopback_without_token && !host.empty() && !is_loopback_address(host_name(host)))
    return fmt::format("Host '{}' is not a loopback name: this service answers requests to localhost, 127.0.0.1 or [::1] "
                       "only (a foreign name pointing here is how a web site reaches a local service)",
                       host);
  if (!origin.empty() && origin != "http://" + host)
    return fmt::format("a page of {} may not use this service: only its own page (http://{}) may", origin, host);
  return "";
}

}  // namespace flysim::app
