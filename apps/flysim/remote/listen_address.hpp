#pragma once
// The address `flysim shard` listens on, and plain-words reasons when it cannot.
// CAF 0.17's publish reports a failed bind as an opaque "cannot bind" error, so the
// reason is found by trying the same bind once more on a socket of our own.
#include <cstdint>
#include <string>

namespace flysim::app {

// True for text that looks like an IPv6 address ("::1", "[::1]", "fe80::1"): flysim
// speaks IPv4 only, and the messages say so instead of failing later.
bool looks_like_ipv6(const std::string& host);

// True for an IPv4 address in 127.0.0.0/8 (reachable from this machine only).
// Anything else, including host names, counts as reachable from elsewhere.
bool is_ipv4_loopback(const std::string& address);

// True for a dotted-quad IPv4 address.
bool is_ipv4_literal(const std::string& address);

// Why listening on `address`:`port` (IPv4) fails, in words ("the port is in use",
// "the address is not one of this machine's", ...), or "" when a bind works now.
std::string why_cannot_listen(const std::string& address, uint16_t port);

}  // namespace flysim::app
