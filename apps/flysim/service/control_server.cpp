#include "apps/flysim/service/control_server.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

#include "apps/flysim/service/activity_json.hpp"
#include "apps/flysim/service/browser_guard.hpp"
#include "apps/flysim/service/control_json.hpp"
#include "apps/flysim/service/guarded_server.hpp"
#include "messages/messages.hpp"
#include "model/errors.hpp"
#include "host/thread_placement.hpp"

namespace flysim::app {

namespace {
// Enough for slow commands (a swap that builds an engine), status requests and the
// connections idle clients hold until their deadlines (guarded_server.hpp) at once.
constexpr std::size_t kHttpThreads = 32;
// poisson_ids of every neuron of the FlyWire brain take about 3 MB of JSON.
constexpr std::size_t kMaxBodyBytes = 16u << 20;

struct Endpoint {
  std::string path;
  std::string method;
  bool queries = false;  // takes query parameters (and checks them itself); a page file ignores them
};

// The JSON the live page draws (and any script may read).
const std::vector<std::string> kActivityPaths = {"/spikes", "/rates", "/top"};

// The page's files: "/" is its index.
std::vector<std::string> page_paths(const PageFiles& page) {
  std::vector<std::string> paths;
  if (!page.files.empty()) paths.push_back("/");
  for (const PageFile& f : page.files) paths.push_back("/" + f.name);
  return paths;
}

std::vector<Endpoint> endpoints(const PageFiles& page) {
  std::vector<Endpoint> list = {{"/status", "GET"}};
  for (const std::string& action : kLiveActions) list.push_back({"/" + action, "POST"});
  for (const std::string& path : kActivityPaths) list.push_back({path, "GET", true});
  for (const std::string& path : page_paths(page)) list.push_back({path, "GET", true});
  return list;
}

std::string endpoint_list(const PageFiles& page) {
  std::vector<std::string> names;
  for (const Endpoint& e : endpoints(page)) names.push_back(e.method + " " + e.path);
  return fmt::format("{}", fmt::join(names, ", "));
}

void answer_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

void answer_error(httplib::Response& res, int status, const std::string& message) {
  answer_json(res, status, error_to_json(message));
}

// Compares in time that does not depend on where the texts differ.
bool same_secret(const std::string& given, const std::string& expected) {
  unsigned char differ = given.size() != expected.size();
  for (std::size_t k = 0; k < given.size(); ++k) differ |= given[k] ^ expected[k % std::max<std::size_t>(1, expected.size())];
  return differ == 0;
}

// Whether an Authorization header carries `token` in the Bearer scheme, whose name is
// case-insensitive (RFC 7235); the token is compared in constant time.
bool carries_token(const std::string& header, const std::string& token) {
  constexpr std::string_view kScheme = "bearer ";
  const bool bearer = header.size() >= kScheme.size() &&
                      std::equal(kScheme.begin(), kScheme.end(), header.begin(), [](char a, char b) {
                        return a == std::tolower(static_cast<unsigned char>(b));
                      });
  return same_secret(bearer ? header.substr(kScheme.size()) : std::string(), token) && bearer;
}

// SO_REUSEADDR so a restarted service binds at once, and deliberately not httplib's
// SO_REUSEPORT: with it a second service on the same port would share the requests.
void control_socket_options(socket_t sock) {
  int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

// What the control actor's error means for the client.
void answer_failure(httplib::Response& res, const caf::error& err, std::chrono::milliseconds waited, bool command) {
  if (const auto problem = invalid_command_problem(err)) return answer_error(res, 400, *problem);
  if (err == caf::sec::request_timeout)
    return answer_error(res, 504, fmt::format("no answer from the simulation within {:.1f} s{}", waited.count() / 1e3,
                                              command ? "; the command may still take effect at a later boundary (GET /status)" : ""));
  if (err == caf::sec::request_receiver_down)
    return answer_error(res, 503, err.context().match_elements<std::string>() ? err.context().get_as<std::string>(0)
                                                                              : "the simulation is not running (it has ended)");
  answer_error(res, 500, describe_error(err));
}

// Asks the control actor one question and answers with its report as JSON, or the error.
template <class Report, class... Ts>
void answer_question(caf::actor_system& system, const control_actor& control, std::chrono::milliseconds timeout,
                     httplib::Response& res, std::string (*to_json)(const Report&), Ts... question) {
  caf::scoped_actor self{system};
  self->request(control, timeout, question...)
      .receive([&](const Report& report) { answer_json(res, 200, to_json(report)); },
               [&](const caf::error& err) { answer_failure(res, err, timeout, false); });
}

// httplib's reason phrases are not in Debian's header-only part; these are the codes it sends itself.
std::string reason_phrase(int status) {
  switch (status) {
    case 400: return "bad request";
    case 413: return fmt::format("the body is larger than {} MiB", kMaxBodyBytes >> 20);
    case 414: return "the URI is too long";
    case 416: return "range not satisfiable";
    default: return "request refused";
  }
}

std::string bind_failure(const std::string& address, int port, int error) {
  const std::string where = fmt::format("{}:{}", address, port);
  switch (error) {
    case EADDRINUSE: return "cannot listen on " + where + ": the port is in use (another flysim serve?)";
    case EADDRNOTAVAIL: return "cannot listen on " + where + ": not an address of this machine";
    case EACCES: return "cannot listen on " + where + ": permission denied (ports below 1024 need privileges)";
    default: return "cannot listen on " + where + " (is it an address of this machine?)";
  }
}
}  // namespace

std::string host_and_port(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

ListenProblem listen_problem(const std::string& address, int port) {
  // As httplib binds: the address resolved (a name too), SO_REUSEADDR; the socket closed at once.
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (::getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
    return {bind_failure(address, port, EADDRNOTAVAIL), false};
  int error = EADDRNOTAVAIL;
  bool bound = false;
  for (const addrinfo* a = found; a != nullptr && !bound; a = a->ai_next) {
    const int sock = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (sock < 0) continue;
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    int no = 0;
    if (a->ai_family == AF_INET6) ::setsockopt(sock, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);
    bound = ::bind(sock, a->ai_addr, a->ai_addrlen) == 0;
    if (!bound) error = errno;
    ::close(sock);
  }
  ::freeaddrinfo(found);
  if (bound) return {};
  return {bind_failure(address, port, error), error == EADDRINUSE || error == EACCES};
}

bool is_loopback_address(const std::string& address) {
  if (address == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, address.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

ControlServer::ControlServer(caf::actor_system& system, control_actor control, ControlServerConfig config)
    : system_(system), control_(std::move(control)), config_(std::move(config)), server_(std::make_unique<GuardedServer>(ConnectionLimits{})) {
  if (config_.token.empty() && !is_loopback_address(config_.bind))
    throw input_error(fmt::format("control API on {}: an address other than loopback needs a token (control.token-file), "
                                  "or anyone who reaches it could stop the service",
                                  config_.bind));
  if (config_.port < 0 || config_.port > 65535) throw input_error(fmt::format("control API: port {} is not 0..65535", config_.port));
  install_routes();
  errno = 0;
  port_ = config_.port == 0 ? server_->bind_to_any_port(config_.bind) : config_.port;
  if (port_ < 0 || (config_.port != 0 && !server_->bind_to_port(config_.bind, config_.port)))
    throw input_error("control API: " + bind_failure(config_.bind, config_.port, errno));
  server_->widen_listen_queue();
  thread_ = std::thread([this] {
    // httplib starts its request threads from this one: they inherit its name and CPUs.
    enter_role(ThreadRole::http);
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // stop() works only once the server runs: wait for that here, so it can be called at once.
  while (!server_->is_running() && !listen_returned_) std::this_thread::yield();
  spdlog::info("control API: listening on http://{}{}", address(), config_.token.empty() ? "" : " (token required)");
}

ControlServer::~ControlServer() { stop(); }

std::string ControlServer::address() const { return host_and_port(config_.bind, port_); }

void ControlServer::stop() {
  if (!thread_.joinable()) return;
  // No new connections, then no request still being read holds a worker the stop waits for.
  server_->stop();
  server_->stop_reading();
  thread_.join();
  spdlog::debug("control API: stopped");
}

void ControlServer::install_routes() {
  httplib::Server& s = *server_;
  s.new_task_queue = [] { return new httplib::ThreadPool(kHttpThreads); };
  s.set_socket_options(control_socket_options);
  s.set_payload_max_length(kMaxBodyBytes);
  // Before routing and before the body is read: another site's request, the token, then
  // the path, then the method.
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (const std::string problem = cross_site_problem(req.get_header_value("Host"), req.get_header_value("Origin"),
                                                       config_.token.empty() && is_loopback_address(config_.bind));
        !problem.empty()) {
      answer_error(res, 403, problem);
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::vector<std::string> page = page_paths(config_.page);
    const bool page_file = std::find(page.begin(), page.end(), req.path) != page.end();
    if (!config_.token.empty() && !page_file && !carries_token(req.get_header_value("Authorization"), config_.token)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"flysim\"");
      answer_error(res, 401, req.has_header("Authorization")
                                 ? "the token is wrong: send the one in the service's control.token-file"
                                 : "this service needs a token: send 'Authorization: Bearer TOKEN' (control.token-file)");
      return httplib::Server::HandlerResponse::Handled;
    }
    for (const Endpoint& e : endpoints(config_.page)) {
      if (e.path != req.path) continue;
      if (!e.queries && !req.params.empty()) {
        answer_error(res, 400, fmt::format("unknown query parameter \"{}\": {} {} takes none{}", req.params.begin()->first,
                                           e.method, e.path, e.method == "POST" ? " (its fields go in the JSON body)" : ""));
        return httplib::Server::HandlerResponse::Handled;
      }
      // `curl -X POST .../stop` sends neither a length nor chunks; httplib 0.11 would wait
      // for the connection to close to find the body's end. Such a POST has no body.
      if (req.method == "POST" && e.method == "POST" && !req.has_header("Content-Length") &&
          req.get_header_value("Transfer-Encoding").find("chunked") == std::string::npos) {
        answer_command(req.path.substr(1), "", res);
        return httplib::Server::HandlerResponse::Handled;
      }
      if (req.method == "POST" && req.is_multipart_form_data()) {
        answer_error(res, 415, "a command is JSON sent as the body itself (curl -d or --data-binary), not a multipart form (curl -F)");
        return httplib::Server::HandlerResponse::Handled;
      }
      if (req.method == e.method || (e.method == "GET" && req.method == "HEAD")) return httplib::Server::HandlerResponse::Unhandled;
      res.set_header("Allow", e.method);
      answer_error(res, 405, fmt::format("{} takes {}, not {}", e.path, e.method, req.method));
      return httplib::Server::HandlerResponse::Handled;
    }
    answer_error(res, 404, fmt::format("no endpoint {}; the endpoints are {}", req.path, endpoint_list(config_.page)));
    return httplib::Server::HandlerResponse::Handled;
  });

  s.Get("/status", [this](const httplib::Request&, httplib::Response& res) {
    answer_question(system_, control_, config_.status_timeout, res, status_to_json, status_atom::value);
  });
  install_page_routes();
  for (const std::string& action : kLiveActions)
    // Read through a content reader: httplib's own body reading caps a form-encoded body
    // (curl -d's default type) at 8 KiB; this way every type gets kMaxBodyBytes.
    s.Post("/" + action, [this, action](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& read) {
      // httplib caps a body of a stated length; a chunked one is capped here, as it arrives.
      std::string body;
      bool too_large = false;
      const bool whole = read([&](const char* data, std::size_t n) {
        too_large = n > kMaxBodyBytes - body.size();
        if (!too_large) body.append(data, n);
        return !too_large;
      });
      if (too_large) {
        res.set_header("Connection", "close");  // the rest of the body is never read
        return answer_error(res, 413, reason_phrase(413));
      }
      if (whole) answer_command(action, body, res);
    });

  // httplib's own refusals (413, a malformed request) get the same JSON body as ours.
  s.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    answer_error(res, res.status, reason_phrase(res.status));
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("control API: internal error: {}", what);
    answer_error(res, 500, "internal error: " + what);
  });
  // The token is never logged: only the method, path, peer and answer.
  s.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    spdlog::debug("control API: {} {} from {}:{} -> {}{}", req.method, req.path, req.remote_addr, req.remote_port, res.status,
                  res.status >= 400 ? " " + res.body : "");
  });
}

void ControlServer::answer_command(const std::string& action, const std::string& body, httplib::Response& res) {
  LiveCommand command;
  try {
    command = command_from_json(action, body);
  } catch (const bad_request& e) {
    return answer_error(res, 400, e.what());
  }
  caf::scoped_actor self{system_};
  self->request(control_, config_.command_timeout, command_atom::value, std::move(command))
      .receive([&](const LiveReply& reply) { answer_json(res, reply.ok ? 200 : 409, reply_to_json(reply)); },
               [&](const caf::error& err) { answer_failure(res, err, config_.command_timeout, true); });
}

// The live page: its files, read when the service started, and the JSON it
// draws, each question forwarded to the control actor like a status request.
void ControlServer::install_page_routes() {
  httplib::Server& s = *server_;
  for (const PageFile& file : config_.page.files) {
    const auto send_file = [&file](const httplib::Request&, httplib::Response& res) {
      // Always asked again: an upgraded service serves its own page, not a cached one.
      res.set_header("Cache-Control", "no-cache");
      res.set_content(file.body, file.content_type);
    };
    s.Get("/" + file.name, send_file);
    if (&file == &config_.page.files.front()) s.Get("/", send_file);  // the index
  }
  // A bad query never leaves the HTTP layer: 400 naming the parameter.
  const auto query = [](const httplib::Request& req, httplib::Response& res, const std::vector<QueryParameter>& takes) {
    try {
      return std::optional(read_query(req.path, req.params, takes));
    } catch (const bad_request& e) {
      answer_error(res, 400, e.what());
      return std::optional<std::map<std::string, int64_t>>();
    }
  };
  s.Get("/spikes", [this, query](const httplib::Request& req, httplib::Response& res) {
    if (const auto q = query(req, res, spikes_parameters()))
      answer_question(system_, control_, config_.status_timeout, res, raster_to_json, raster_atom::value, q->at("since"),
                      static_cast<uint32_t>(q->at("neurons")));
  });
  s.Get("/rates", [this, query](const httplib::Request& req, httplib::Response& res) {
    if (const auto q = query(req, res, rates_parameters()))
      answer_question(system_, control_, config_.status_timeout, res, rates_to_json, rates_atom::value, q->at("since"));
  });
  s.Get("/top", [this, query](const httplib::Request& req, httplib::Response& res) {
    if (const auto q = query(req, res, top_parameters()))
      answer_question(system_, control_, config_.status_timeout, res, top_to_json, top_atom::value,
                      static_cast<uint32_t>(q->at("neurons")));
  });
}

}  // namespace flysim::app
