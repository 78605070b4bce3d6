#include "apps/flysim/remote/listen_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flysim::app {

bool looks_like_ipv6(const std::string& host) { return host.find(':') != std::string::npos || host.find('[') != std::string::npos; }

bool is_ipv4_literal(const std::string& address) {
  in_addr a{};
  return ::inet_pton(AF_INET, address.c_str(), &a) == 1;
}

bool is_ipv4_loopback(const std::string& address) {
  in_addr a{};
  return ::inet_pton(AF_INET, address.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

std::string why_cannot_listen(const std::string& address, uint16_t port) {
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = htons(port);
  if (::inet_pton(AF_INET, address.c_str(), &where.sin_addr) != 1) return "it is not an IPv4 address";
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::string("cannot create a socket: ") + std::strerror(errno);
  // As CAF's publish does (reuse = true): a port left in TIME_WAIT is not "in use".
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  std::string why;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&where), sizeof where) != 0 || ::listen(fd, 1) != 0) {
    switch (errno) {
      case EADDRINUSE: why = "the port is in use"; break;
      case EADDRNOTAVAIL: why = "the address is not one of this machine's"; break;
      case EACCES: why = "permission denied (ports below 1024 need privileges)"; break;
      default: why = std::strerror(errno);
    }
  }
  ::close(fd);
  return why;
}

}  // namespace flysim::app
