#pragma once
// The control API's HTTP server: cpp-httplib on threads of its own. Its
// handlers only turn HTTP into messages to the control actor and its answers back into
// HTTP; they never touch the simulation. It also serves the live page: its
// static files and the JSON it draws. Endpoints, bodies and status codes: README.md.
#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "actors/control.hpp"
#include "apps/flysim/service/page_files.hpp"
#include "messages/interfaces.hpp"

namespace httplib {
struct Response;
}

namespace flysim::app {

class GuardedServer;

struct ControlServerConfig {
  std::string bind = "127.0.0.1";  // address to listen on
  int port = 0;                    // 0: any free port (ControlServer::port() says which)
  std::string token;               // empty: no authentication, which only a loopback address allows
  // How long a request waits for the control actor. A command is answered when it took
  // effect at a boundary; one that has not by then gets 504 and may still take effect.
  std::chrono::milliseconds command_timeout = std::chrono::seconds(60);
  std::chrono::milliseconds status_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(kStatusTimeout) + std::chrono::seconds(1);
  // The live page at / (none when empty). Its files need no token: they hold no secret,
  // and the page asks for the token before it reads or changes anything.
  PageFiles page;
};

// "HOST:PORT", or "[HOST]:PORT" for an IPv6 address, as messages and URLs show it.
std::string host_and_port(const std::string& host, int port);

// True for 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and "localhost".
bool is_loopback_address(const std::string& address);

// Why the control API could not listen on address:port (port 0: any port); an empty
// message when it can. The port is tried, and let go at once, before a service loads
// anything.
struct ListenProblem {
  std::string message;
  bool port_unavailable = false;  // in use, or privileged: the port is to blame, not the address
};
ListenProblem listen_problem(const std::string& address, int port);

class ControlServer {
 public:
  // Binds, then serves on a thread of its own until stop(). Throws input_error when the
  // address cannot be bound, or is not loopback and no token is set. `system` must
  // outlive the server: destroy (or stop) the server before the actor system.
  ControlServer(caf::actor_system& system, control_actor control, ControlServerConfig config);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // The port bound (the one chosen when the configuration said 0).
  int port() const { return port_; }
  // "ADDRESS:PORT", as a client would connect to it.
  std::string address() const;
  // Stops accepting, lets the requests in progress finish, and joins the server thread.
  // Each connection serves one request, so no idle client can hold it up. Idempotent.
  void stop();

 private:
  void install_routes();
  // Forwards a live command (`action`, its JSON body) to the control actor and answers.
  void answer_command(const std::string& action, const std::string& body, httplib::Response& res);
  void install_page_routes();
  caf::actor_system& system_;
  control_actor control_;
  ControlServerConfig config_;
  std::unique_ptr<GuardedServer> server_;
  int port_ = 0;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace flysim::app
