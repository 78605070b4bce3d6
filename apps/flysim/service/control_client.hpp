#pragma once
// One request to a running service's control API, for the programs that talk to it
// (flysim ctl, flysim cost): the connection errors said in one line each.
#include <httplib.h>

#include <stdexcept>
#include <string>

#include "apps/flysim/options/control_options.hpp"
#include "messages/control.hpp"

namespace flysim::app {

// No answer, or an answer that is not the service's: one line on stderr, exit code 1.
class control_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// GET `path` (body null) or POST `path` with the JSON `body`; an HTTP answer of any
// status, or a control_failure when none came.
httplib::Result control_request(const ControlEndpoint& service, const std::string& path, const std::string* body);

// GET /status, decoded; throws control_failure when no status came (no answer, a
// refused token, an answer that is not a status).
ServiceStatus fetch_status(const ControlEndpoint& service);

// "http://HOST:PORT" (a trailing '/' allowed) as an endpoint; throws input_error naming
// `option` when it is not one.
ControlEndpoint endpoint_from_url(const std::string& url, const std::string& option);

}  // namespace flysim::app
