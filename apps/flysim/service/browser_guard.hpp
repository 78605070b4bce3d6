#pragma once
// Requests a browser sends for another site. Once the service has a page,
// the browser on the operator's machine is a client, and any site it visits could make
// it send a request to localhost:7460: a cross-site POST /stop needs no CORS permission
// to take effect, and a domain that resolves to 127.0.0.1 ("DNS rebinding") would even
// count as the same origin. So the server refuses (403):
//   - a request whose Origin header names another origin than the Host it was sent to
//     (browsers send Origin with every cross-origin request and every POST; curl and
//     flysim ctl send none);
//   - on a loopback service without a token, a Host that is not a loopback name
//     (localhost, 127.x.y.z, [::1]): the mark of DNS rebinding. An SSH tunnel keeps
//     localhost. A service with a token is protected by the token instead.
#include <string>

namespace flysim::app {

// Why the request is refused, or "" when it is not. `host` and `origin` are the
// headers' values ("" when absent); `loopback_without_token` says the service listens
// on loopback and needs no token.
std::string cross_site_problem(const std::string& host, const std::string& origin, bool loopback_without_token);

}  // namespace flysim::app
