#pragma once
// cpp-httplib's server with bounds on what an idle or slow client holds. httplib gives
// each connection a worker for as long as the client takes to send its request (5 s
// per read, without end for a client that trickles bytes); here a connection must send
// its first byte within `first_byte` and its headers within `headers` of connecting, and
// then its body with no pause longer than `body_pause` and within `body` in all, or it is
// closed (a client that declares a body and sends none frees its worker soon; a slow
// one that keeps sending may take its time); a client address
// other than loopback holds at most `per_address` connections at once (the others are
// answered 503 at once). stop_reading() ends every request still being read, so a stop
// does not wait out a client that never finishes its body.
#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace flysim::app {

struct ConnectionLimits {
  std::chrono::milliseconds first_byte{1000};  // from accept to the request's first byte
  std::chrono::milliseconds headers{2000};     // from accept to the end of the headers
  std::chrono::milliseconds body_pause{2000};  // the longest wait for the body's next bytes
  std::chrono::milliseconds body{30000};       // from the end of the headers to the end of the body
  std::chrono::milliseconds write{5000};       // for each write of the answer
  std::size_t per_address = 16;                // connections at once from one address other than loopback
};

// The connections each client address holds. Loopback addresses are not counted: they
// are this machine, and the live page, flysim ctl and scripts all come from there.
class ConnectionCounts {
 public:
  explicit ConnectionCounts(std::size_t per_address) : per_address_(per_address) {}
  // True (and counted) when `address` may open one more connection.
  bool admit(const std::string& address);
  // Ends a connection that admit() counted.
  void release(const std::string& address);

 private:
  std::size_t per_address_;
  std::mutex mutex_;
  std::map<std::string, std::size_t> open_;
};

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits) : limits_(limits), counts_(limits.per_address) {}
  // httplib listens with a queue of 5 connections: a burst beyond it waits out TCP's 1 s
  // retransmission before it is even accepted. Call once bound.
  void widen_listen_queue();
  // Ends the reading of every request, now and from now on (the read side of each socket
  // is shut: a request being read fails at once, an answer being written is still sent).
  void stop_reading();

 private:
  // Replaces httplib's: one request per connection, under the limits above.
  bool process_and_close_socket(socket_t sock) override;
  ConnectionLimits limits_;
  ConnectionCounts counts_;
  std::mutex sockets_mutex_;
  std::set<socket_t> sockets_;  // connections being served
  bool reading_stopped_ = false;
};

}  // namespace flysim::app
