#include "apps/flysim/service/guarded_server.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "apps/flysim/service/control_json.hpp"
#include "apps/flysim/service/control_server.hpp"

namespace flysim::app {

namespace {

using Clock = std::chrono::steady_clock;

// The numeric address and port of the peer (remote) or of this end.
void socket_address(socket_t sock, bool remote, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ip.clear();
  port = 0;
  if ((remote ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
              : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len)) != 0)
    return;
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

// True when `events` are ready on `sock` before `deadline`.
bool ready_before(socket_t sock, short events, Clock::time_point deadline) {
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{sock, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n < 0 && errno != EINTR) return false;
  }
}

// A connection's socket as httplib reads it, under deadlines: the headers must have
// arrived by one; after them, each read of the body must come within the pause allowed,
// and the whole body by the body's deadline.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(socket_t sock, const ConnectionLimits& limits, Clock::time_point accepted)
      : sock_(sock), limits_(limits), deadline_(accepted + limits.headers) {}

  bool is_readable() const override { return ready_before(sock_, POLLIN, deadline_); }
  bool is_writable() const override { return ready_before(sock_, POLLOUT, Clock::now() + limits_.write); }

  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    const ssize_t n = ::recv(sock_, ptr, size, 0);
    const Clock::time_point now = Clock::now();
    if (headers_done_ && n > 0) deadline_ = std::min(now + limits_.body_pause, body_end_);
    for (ssize_t k = 0; k < n && !headers_done_; ++k) {
      tail_ = (tail_ << 8) | static_cast<unsigned char>(ptr[k]);
      if ((tail_ & 0xffffffffu) == 0x0d0a0d0au) {  // "\r\n\r\n": the body's deadlines start
        headers_done_ = true;
        body_end_ = now + limits_.body;
        deadline_ = std::min(now + limits_.body_pause, body_end_);
      }
    }
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    return ::send(sock_, ptr, size, MSG_NOSIGNAL);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { socket_address(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { socket_address(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  socket_t sock_;
  const ConnectionLimits& limits_;
  Clock::time_point deadline_;
  Clock::time_point body_end_;
  bool headers_done_ = false;
  uint32_t tail_ = 0;
};

// Closed with unread input, a socket sends a reset that can destroy the answer before the
// client reads it: stop sending, then read and discard what comes, for at most `linger`.
void close_gracefully(socket_t sock, std::chrono::milliseconds linger) {
  ::shutdown(sock, SHUT_WR);
  const Clock::time_point deadline = Clock::now() + linger;
  char discard[4096];
  while (ready_before(sock, POLLIN, deadline) && ::recv(sock, discard, sizeof discard, 0) > 0) {
  }
  ::close(sock);
}

// A refusal sent without waiting: the client may be the one not reading.
void refuse_busy(socket_t sock, const std::string& address, std::size_t limit) {
  const std::string body =
      error_to_json(fmt::format("{} has {} connections open to this service already; close one and retry", address, limit));
  const std::string answer = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
      "Connection: close\r\nRetry-After: 1\r\n\r\n{}",
      body.size(), body);
  [[maybe_unused]] const ssize_t sent = ::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

bool ConnectionCounts::admit(const std::string& address) {
  if (is_loopback_address(address)) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t& open = open_[address];
  if (open >= per_address_) return false;
  ++open;
  return true;
}

void ConnectionCounts::release(const std::string& address) {
  if (is_loopback_address(address)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = open_.find(address); it != open_.end() && --it->second == 0) open_.erase(it);
}

void GuardedServer::widen_listen_queue() { ::listen(svr_sock_, SOMAXCONN); }

void GuardedServer::stop_reading() {
  std::lock_guard<std::mutex> lock(sockets_mutex_);
  reading_stopped_ = true;
  for (const socket_t sock : sockets_) ::shutdown(sock, SHUT_RD);
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  const Clock::time_point accepted = Clock::now();
  std::string address;
  int port = 0;
  socket_address(sock, true, address, port);
  if (!counts_.admit(address)) {
    refuse_busy(sock, address, limits_.per_address);
    close_gracefully(sock, std::chrono::milliseconds(100));
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(sockets_mutex_);
    sockets_.insert(sock);
    if (reading_stopped_) ::shutdown(sock, SHUT_RD);
  }
  bool served = false;
  if (ready_before(sock, POLLIN, accepted + limits_.first_byte)) {
    DeadlineStream stream(sock, limits_, accepted);
    bool connection_closed = false;
    served = process_request(stream, true, connection_closed, nullptr);
  }
  counts_.release(address);
  {
    // Out of the set before the descriptor is closed and may be reused.
    std::lock_guard<std::mutex> lock(sockets_mutex_);
    sockets_.erase(sock);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return served;
}

}  // namespace flysim::app
