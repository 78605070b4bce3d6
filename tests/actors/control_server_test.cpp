// Protocol tests of the control API's HTTP layer: a real ControlServer and
// control actor in front of a stand-in for the sim loop (control_support.hpp).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "apps/flysim/service/guarded_server.hpp"
#include "control_support.hpp"
#include "model/errors.hpp"

namespace flysim::test {
namespace {

using json = nlohmann::json;
using ControlServerTest = ControlFixture;

// The status code, and the "error" field of the JSON body, which must name `field`.
void expect_refused(const httplib::Result& r, int status, const std::string& field) {
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, status) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  const json body = json::parse(r->body);
  ASSERT_TRUE(body.contains("error")) << r->body;
  EXPECT_NE(body["error"].get<std::string>().find(field), std::string::npos) << r->body;
}

json ok_body(const httplib::Result& r) {
  EXPECT_TRUE(r) << httplib::to_string(r.error());
  if (!r) return {};
  EXPECT_EQ(r->status, 200) << r->body;
  return json::parse(r->body);
}

TEST_F(ControlServerTest, StatusReportsEveryFieldInSnakeCase) {
  start();
  const json s = ok_body(get("/status"));
  const ServiceStatus want = fake_status();
  EXPECT_EQ(s["state"], want.state);
  EXPECT_EQ(s["trial"], want.trial);
  EXPECT_EQ(s["step"], want.step);
  EXPECT_EQ(s["trials"], want.trials);
  EXPECT_EQ(s["simulated_s"], want.simulated_s);
  EXPECT_EQ(s["wall_s"], want.wall_s);
  EXPECT_EQ(s["wall_per_simulated"], want.wall_per_simulated);
  EXPECT_EQ(s["pace"], want.pace);
  EXPECT_EQ(s["lag_ms"], want.lag_ms);
  EXPECT_EQ(s["engine"], want.engine);
  EXPECT_EQ(s["threads"], want.threads);
  EXPECT_EQ(s["host_cpu_s"], want.host_cpu_s);
  EXPECT_EQ(s["host_cores"], want.host_cores);
  EXPECT_EQ(s["spikes"], want.spikes);
  EXPECT_EQ(s["spikes_per_simulated_s"], want.spikes_per_simulated_s);
  EXPECT_EQ(s["shards"], want.shards);
  EXPECT_EQ(s["last_checkpoint"], want.last_checkpoint);
  EXPECT_EQ(s["stimulus_rate_hz"], want.stimulus_rate_Hz);
  EXPECT_EQ(s["poisson_neurons"], want.poisson_neurons);
  EXPECT_EQ(s["groups"], json::parse(R"([{"name":"bitter","neurons":5,"rate_hz":80.0}])"));
  EXPECT_EQ(s["silenced_neurons"], want.silenced_neurons);
  EXPECT_EQ(s["silence_mode"], want.silence_mode);
  EXPECT_EQ(s["lag_p99_ms"], want.lag_p99_ms);
  EXPECT_EQ(s["lag_max_ms"], want.lag_max_ms);
  EXPECT_EQ(s["max_lag_ms"], want.max_lag_ms);
  EXPECT_EQ(s["window_s"], want.window_s);
  EXPECT_EQ(s["engine_cores_needed"], want.engine_cores_needed);
  EXPECT_EQ(s["warnings"], json(want.warnings));
  EXPECT_EQ(s["cpus_engine"], want.cpus_engine);
  EXPECT_EQ(s["cpus_plasticity"], want.cpus_plasticity);
  EXPECT_EQ(s["cpus_other"], want.cpus_other);
  EXPECT_EQ(s["cpus_freed"], want.cpus_freed);
  EXPECT_EQ(s["cost"]["at_s"], want.cost.at_s);
  EXPECT_EQ(s["cost"]["window_s"], want.cost.window_s);
  EXPECT_EQ(s["cost"]["process_cores"], want.cost.process_cores);
  EXPECT_EQ(s["cost"]["process_cpu_s"], want.cost.process_cpu_s);
  EXPECT_EQ(s["cost"]["exited_cores"], want.cost.exited_cores);
  EXPECT_EQ(s["cost"]["roles"], json::parse(R"([{"role":"engine","threads":2,"cores":0.25,"busiest_thread_cores":0.125,"cpu_s":3.0}])"));
  EXPECT_EQ(s["cost"]["threads"], json::parse(R"([{"tid":4242,"name":"fs-engine-0","cores":0.125,"cpu_s":1.5}])"));
  EXPECT_EQ(s["cost"].size(), 7u);
  EXPECT_EQ(s["gpu_note"], want.gpu_note);
  EXPECT_EQ(s["gpu_neighbours"], json::parse(R"([{"gpu":0,"pid":4343,"name":"python3","used_mib":2048.0}])"));
  EXPECT_EQ(s.size(), 35u) << s.dump();
}

TEST_F(ControlServerTest, EachEndpointDeliversItsCommand) {
  start();
  ok_body(post("/swap", R"({"engine":"cpu","threads":2})"));
  ok_body(post("/checkpoint", "{}"));
  ok_body(post("/stimulus", R"({"rate_hz":200})"));
  ok_body(post("/stimulus", R"({"poisson_ids":[720575940660219265,7]})"));
  ok_body(post("/stimulus", R"({"kicks":[{"neuron_id":7,"after_ms":5},{"neuron_id":8,"after_ms":0.5}]})"));
  ok_body(post("/pause", ""));
  ok_body(post("/resume", "{}"));
  ok_body(post("/stop", " "));
  const auto got = log_->received();
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(std::get<SwapCommand>(got[0]).engine, "cpu");
  EXPECT_EQ(std::get<SwapCommand>(got[0]).threads, 2);
  EXPECT_TRUE(std::holds_alternative<CheckpointCommand>(got[1]));
  const auto& rate = std::get<StimulusCommand>(got[2]);
  EXPECT_EQ(rate.rate_Hz, 200.0);
  EXPECT_FALSE(rate.poisson_ids);
  EXPECT_FALSE(rate.kicks);
  const auto& ids = std::get<StimulusCommand>(got[3]);
  EXPECT_EQ(ids.poisson_ids, (std::vector<int64_t>{720575940660219265, 7}));
  EXPECT_FALSE(ids.rate_Hz) << "a rate left out stays unchanged";
  const auto& kicks = std::get<StimulusCommand>(got[4]).kicks;
  ASSERT_EQ(kicks->size(), 2u);
  EXPECT_EQ((*kicks)[1].neuron_id, 8);
  EXPECT_EQ((*kicks)[1].after_ms, 0.5);
  EXPECT_TRUE(std::holds_alternative<PauseCommand>(got[5]));
  EXPECT_TRUE(std::holds_alternative<ResumeCommand>(got[6]));
  EXPECT_TRUE(std::holds_alternative<StopCommand>(got[7]));
}

// What `curl -X POST localhost:7460/stop` sends: no Content-Length, no body. Sent on a
// plain socket (httplib's client always sends a length); the answer must come at once,
// not after the server's read timeout.
// A TCP connection to the server at an IPv4 address; -1 when it fails.
int connect_to(uint16_t port, const std::string& address = "127.0.0.1") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

std::string raw_exchange(uint16_t port, const std::string& request, const std::string& address = "127.0.0.1") {
  const int fd = connect_to(port, address);
  if (fd < 0) return "connect failed";
  ::send(fd, request.data(), request.size(), 0);
  std::string answer(4096, '\0');
  const ssize_t got = ::recv(fd, answer.data(), answer.size(), 0);
  ::close(fd);
  answer.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return answer;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST_F(ControlServerTest, APostWithoutALengthIsAnsweredAtOnce) {
  start();
  const auto t0 = std::chrono::steady_clock::now();
  const std::string answer = raw_exchange(server_->port(), "POST /stop HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const double seconds = seconds_since(t0);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  EXPECT_LT(seconds, 2.0) << "answered only when the server gave up reading a body";
  ASSERT_EQ(log_->received().size(), 1u);
  EXPECT_TRUE(std::holds_alternative<StopCommand>(log_->received()[0]));
}

// Each idle connection holds a worker until its first-byte deadline; 16 of them leave
// GET /status answered at once.
TEST_F(ControlServerTest, IdleConnectionsDoNotDelayStatus) {
  start();
  std::vector<int> idle;
  for (int k = 0; k < 16; ++k) idle.push_back(connect_to(server_->port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // accepted and handed to workers
  const auto t0 = std::chrono::steady_clock::now();
  ok_body(get("/status"));
  EXPECT_LT(seconds_since(t0), 1.5);
  for (const int fd : idle) {
    EXPECT_GE(fd, 0);
    ::close(fd);
  }
}

// A client that trickles header lines (slow loris) is cut off at the headers' deadline,
// 2 s after it connected, however often it sends.
TEST_F(ControlServerTest, AClientTricklingItsHeadersIsCutOffAtTheDeadline) {
  start();
  const int fd = connect_to(server_->port());
  ASSERT_GE(fd, 0);
  const auto t0 = std::chrono::steady_clock::now();
  std::string line = "GET /status HTTP/1.1\r\n";
  while (seconds_since(t0) < 6 && ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size())) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 300) > 0) break;  // the server answered or closed
    line = "X-Slow: 1\r\n";
  }
  EXPECT_LT(seconds_since(t0), 3.0) << "the server kept reading a client that never finished its headers";
  ::close(fd);
}

// A client that declares a body and never sends it holds its worker 2 s after its
// headers, not for as long as a whole body may take.
TEST_F(ControlServerTest, AClientThatNeverSendsItsSmallBodyIsCutOffSoon) {
  start();
  const int fd = connect_to(server_->port());
  ASSERT_GE(fd, 0);
  const std::string head = "POST /stimulus HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  const auto t0 = std::chrono::steady_clock::now();
  pollfd p{fd, POLLIN, 0};
  while (seconds_since(t0) < 10 && ::poll(&p, 1, 100) == 0) {
  }
  const double cut_off = seconds_since(t0);
  EXPECT_GT(cut_off, 1.5);
  EXPECT_LT(cut_off, 3.5) << "the server kept reading a body that never came";
  ::close(fd);
  EXPECT_TRUE(log_->received().empty());
}

// A slow client that keeps sending is served, however long past the pause its whole body takes.
TEST_F(ControlServerTest, ASlowClientThatKeepsSendingIsServed) {
  start();
  const int fd = connect_to(server_->port());
  ASSERT_GE(fd, 0);
  const std::string body = R"({"rate_hz": 200})" + std::string(24, ' ');
  const std::string head = "POST /stimulus HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  for (std::size_t at = 0; at < body.size(); at += 10) {  // 10 bytes a second: 4 s for the body
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    ASSERT_EQ(::send(fd, body.data() + at, 10, MSG_NOSIGNAL), 10);
  }
  std::string answer(4096, '\0');
  const ssize_t got = ::recv(fd, answer.data(), answer.size(), 0);
  ::close(fd);
  answer.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  ASSERT_EQ(log_->received().size(), 1u);
  EXPECT_EQ(std::get<StimulusCommand>(log_->received()[0]).rate_Hz, 200.0);
}

// A stop does not wait for the requests still being read: 40 clients stuck in their
// bodies hold every worker, and stop() returns at once.
TEST_F(ControlServerTest, StopDoesNotWaitForBodiesThatNeverCome) {
  start();
  std::vector<int> stuck;
  const std::string head = "POST /stimulus HTTP/1.1\r\nHost: localhost\r\nContent-Length: 16000000\r\n\r\n{";
  for (int k = 0; k < 40; ++k) {
    stuck.push_back(connect_to(server_->port()));
    ::send(stuck.back(), head.data(), head.size(), MSG_NOSIGNAL);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // accepted, their headers read
  const auto t0 = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(seconds_since(t0), 1.5) << "stop() waited for the bodies";
  for (const int fd : stuck) ::close(fd);
  EXPECT_TRUE(log_->received().empty());
}

TEST(ConnectionCounts, AnAddressHoldsAtMostItsShareAndLoopbackIsNotCounted) {
  app::ConnectionCounts counts(2);
  EXPECT_TRUE(counts.admit("192.0.2.7"));
  EXPECT_TRUE(counts.admit("192.0.2.7"));
  EXPECT_FALSE(counts.admit("192.0.2.7"));
  EXPECT_TRUE(counts.admit("192.0.2.8")) << "another address has its own share";
  counts.release("192.0.2.7");
  EXPECT_TRUE(counts.admit("192.0.2.7"));
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(counts.admit("127.0.0.1"));
}

// An IPv4 address of this machine other than loopback, or "" when it has none.
std::string outside_address() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string found;
  for (const ifaddrs* a = list; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    if (!app::is_loopback_address(text)) found = text;
  }
  ::freeifaddrs(list);
  return found;
}

// Connections from an address other than loopback: 16 at once; the next is answered
// 503 at once, naming the address; once they close, the address is served again.
TEST_F(ControlServerTest, AnOutsideAddressHoldsAtMost16ConnectionsAtOnce) {
  const std::string address = outside_address();
  if (address.empty()) GTEST_SKIP() << "this machine has no IPv4 address other than loopback";
  app::ControlServerConfig config;
  config.bind = address;
  config.token = "secret";
  start(config);
  std::vector<int> idle;
  for (int k = 0; k < 16; ++k) idle.push_back(connect_to(server_->port(), address));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // accepted and counted
  const std::string request = "GET /status HTTP/1.1\r\nHost: " + address + "\r\nAuthorization: Bearer secret\r\n\r\n";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string refused = raw_exchange(server_->port(), request, address);
  EXPECT_LT(seconds_since(t0), 0.5);
  EXPECT_EQ(refused.rfind("HTTP/1.1 503", 0), 0u) << refused;
  EXPECT_NE(refused.find(address + " has 16 connections open to this service already"), std::string::npos) << refused;
  for (const int fd : idle) {
    EXPECT_GE(fd, 0);
    ::close(fd);
  }
  std::string answer;
  for (int tries = 0; tries < 20 && answer.rfind("HTTP/1.1 200", 0) != 0; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    answer = raw_exchange(server_->port(), request, address);
  }
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
}

TEST_F(ControlServerTest, ReplySaysWhereTheCommandTookEffect) {
  start();
  const json reply = ok_body(post("/checkpoint", ""));
  EXPECT_EQ(reply, json::parse(R"({"ok":true,"message":"applied checkpoint","trial":1,"step":360,
                                   "file":"ckpt/flysim-trial0001-step000000360.ckpt"})"));
  EXPECT_EQ(ok_body(post("/swap", R"({"engine":"cpu"})"))["ok"], true);
  EXPECT_FALSE(std::get<SwapCommand>(log_->received().back()).threads) << "no thread count: the service's engine.threads";
}

TEST_F(ControlServerTest, RefusalBySimulationIs409WithTheReply) {
  start();
  const auto r = post("/swap", R"({"engine":"cuda"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  const json reply = json::parse(r->body);
  EXPECT_EQ(reply["ok"], false);
  EXPECT_EQ(reply["message"], "cuda cannot run here: no CUDA device");
}

TEST_F(ControlServerTest, BadRequestsAre400NamingTheFieldAndNeverReachTheSimulation) {
  start();
  expect_refused(post("/swap", R"({"engine":"cpu",)"), 400, "not valid JSON: parse error at line 1, column 17");
  expect_refused(post("/swap", "[1]"), 400, "must be a JSON object, got array");
  expect_refused(post("/swap", R"({"engine":"cpu","thread":2})"), 400, "unknown field \"thread\": POST /swap takes engine, threads");
  expect_refused(post("/pause", R"({"now":true})"), 400, "unknown field \"now\": POST /pause takes no fields");
  expect_refused(post("/swap", R"({"engine":"cpu","threads":"2"})"), 400, "field \"threads\" must be an integer, got string");
  expect_refused(post("/swap", R"({"engine":"cpu","threads":2.5})"), 400, "field \"threads\" must be an integer");
  expect_refused(post("/swap", R"({"engine":7})"), 400, "field \"engine\" must be a string");
  expect_refused(post("/swap", R"({"threads":2})"), 400, "field \"engine\" is missing");
  expect_refused(post("/swap", R"({"engine":"gpu"})"), 400, "engine must be \"cpu\" or \"cuda\", got \"gpu\"");
  expect_refused(post("/swap", R"({"engine":"cpu","threads":0})"), 400, "threads must be 1..1024, got 0");
  expect_refused(post("/swap", R"({"engine":"cpu","threads":1025})"), 400, "threads must be 1..1024, got 1025");
  expect_refused(post("/swap", R"({"engine":"cuda","threads":2})"), 400, "threads applies only to engine \"cpu\"");
  expect_refused(post("/swap", R"({"engine":"cpu","engine":"cuda"})"), 400, "field \"engine\" is given twice");
  expect_refused(post("/stimulus", R"({"rate_hz":-5})"), 400, "rate_hz must be a finite number >= 0, got -5");
  expect_refused(post("/stimulus", R"({"rate_hz":"fast"})"), 400, "field \"rate_hz\" must be a number");
  expect_refused(post("/stimulus", "{}"), 400, "stimulus needs at least one of rate_hz, poisson_ids, kicks, silence_ids, silence_mode");
  expect_refused(post("/stimulus", R"({"kicks":[]})"), 400, "kicks is empty");
  expect_refused(post("/stimulus", R"({"kicks":[{"neuron_id":7}]})"), 400, "field \"after_ms\" is missing (kicks[0]");
  expect_refused(post("/stimulus", R"({"kicks":[{"neuron_id":7,"after_ms":-1}]})"), 400, "kicks[0].after_ms must lie in 0..");
  expect_refused(post("/stimulus", R"({"kicks":[{"neuron_id":7,"after_ms":1e300}]})"), 400, "kicks[0].after_ms must lie in 0..");
  expect_refused(post("/stimulus", R"({"rate_hz":1e400})"), 400, "field \"rate_hz\" is out of range");
  expect_refused(post("/stimulus", R"({"kicks":[{"neuron_id":7,"after_ms":1,"x":1}]})"), 400, "unknown field \"kicks[0].x\"");
  expect_refused(post("/stimulus", R"({"poisson_ids":[1,"2"]})"), 400, "field \"poisson_ids[1]\" must be an integer");
  expect_refused(post("/stimulus", R"({"poisson_ids":[1,2,1]})"), 400, "poisson_ids lists 1 twice");
  expect_refused(post("/stimulus", R"({"poisson_ids":[]})"), 400, "poisson_ids is empty");
  expect_refused(post("/stimulus", R"({"poisson_ids":[18446744073709551615]})"), 400, "field \"poisson_ids[0]\" is out of range");
  EXPECT_TRUE(log_->received().empty()) << "a refused request reached the simulation";
}

// 100,000 nested arrays (200 KB) would overflow the HTTP thread's stack: the depth scan
// refuses them before any parser sees them, and the server goes on answering.
TEST_F(ControlServerTest, DeeplyNestedBodyIs400NamingTheLimitAndTheServerLives) {
  start();
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expect_refused(post("/stimulus", deep), 400, "nest deeper than 64 levels (at byte 65)");
  expect_refused(post("/stimulus", R"({"rate_hz":)" + deep + "}"), 400, "nest deeper than 64 levels");
  expect_refused(post("/swap", R"({"engine":)" + deep + "}"), 400, "nest deeper than 64 levels");
  EXPECT_TRUE(log_->received().empty()) << "a refused request reached the simulation";
  ok_body(get("/status"));
}

// curl -d sends its body as application/x-www-form-urlencoded, which httplib caps at
// 8 KiB by itself: a 20 KiB command of any type is delivered, and the 16 MiB limit is
// the one a refusal names. A multipart form is refused by name.
TEST_F(ControlServerTest, ABodyOfAnyTypeUpToTheLimitIsDelivered) {
  start();
  const std::string padded = R"({"rate_hz":200)" + std::string(20 << 10, ' ') + "}";
  httplib::Client client("127.0.0.1", server_->port());
  ok_body(client.Post("/stimulus", padded, "application/x-www-form-urlencoded"));
  ok_body(client.Post("/stimulus", padded, "text/plain"));
  ASSERT_EQ(log_->received().size(), 2u);
  expect_refused(client.Post("/stimulus", std::string((16 << 20) + 1, ' '), "application/x-www-form-urlencoded"), 413,
                 "the body is larger than 16 MiB");
  expect_refused(client.Post("/stimulus", "--b\r\n\r\n--b--\r\n", "multipart/form-data; boundary=b"), 415,
                 "not a multipart form (curl -F)");
  EXPECT_EQ(log_->received().size(), 2u);
  // A chunked body (no length stated) is cut off at the limit as it arrives: this one
  // would run to 64 MiB; the server stops reading after 16 and closes the connection,
  // so the client's writes fail before the rest (the socket buffers aside) is sent.
  std::size_t sent = 0;
  const std::string chunk(1 << 20, ' ');
  httplib::Client chunked("127.0.0.1", server_->port());
  const httplib::Result r = chunked.Post("/stimulus",
                                         [&](std::size_t, httplib::DataSink& sink) {
                                           if (sent < (64u << 20)) {
                                             sent += chunk.size();
                                             return sink.write(chunk.data(), chunk.size());
                                           }
                                           sink.done();
                                           return true;
                                         },
                                         "application/json");
  EXPECT_LT(sent, 40u << 20) << "the server read a chunked body past its limit";
  if (r) expect_refused(r, 413, "the body is larger than 16 MiB");  // when the answer beat the failed write
  EXPECT_EQ(log_->received().size(), 2u);
  ok_body(get("/status"));
}

TEST_F(ControlServerTest, UnknownPathIs404AndWrongMethodIs405) {
  start();
  expect_refused(get("/nowhere"), 404, "no endpoint /nowhere; the endpoints are GET /status, POST /swap");
  expect_refused(post("/status", "{}"), 405, "/status takes GET, not POST");
  const auto r = get("/swap");
  expect_refused(r, 405, "/swap takes POST, not GET");
  EXPECT_EQ(r->get_header_value("Allow"), "POST");
  httplib::Client client("127.0.0.1", server_->port());
  expect_refused(client.Delete("/stop"), 405, "/stop takes POST, not DELETE");
  // Status and commands take no query parameters: one is named, not ignored.
  expect_refused(get("/status?verbose=1"), 400, "unknown query parameter \"verbose\": GET /status takes none");
  expect_refused(post("/stimulus?rate_hz=5", R"({"rate_hz":5})"), 400,
                 "unknown query parameter \"rate_hz\": POST /stimulus takes none (its fields go in the JSON body)");
  EXPECT_TRUE(log_->received().empty());
}

TEST_F(ControlServerTest, TokenIsRequiredWhenConfigured) {
  app::ControlServerConfig config;
  config.token = "s3cret-token";
  start(config);
  expect_refused(get("/status"), 401, "this service needs a token");
  expect_refused(post("/stop", ""), 401, "this service needs a token");
  const auto wrong = get("/status", {{"Authorization", "Bearer s3cret-tokeN"}});
  expect_refused(wrong, 401, "the token is wrong");
  EXPECT_EQ(wrong->get_header_value("WWW-Authenticate"), "Bearer realm=\"flysim\"");
  expect_refused(get("/nowhere", {{"Authorization", "Bearer nope"}}), 401, "token");
  EXPECT_TRUE(log_->received().empty());
  expect_refused(get("/status", {{"Authorization", "Basic s3cret-token"}}), 401, "the token is wrong");
  expect_refused(get("/status", {{"Authorization", "s3cret-token"}}), 401, "the token is wrong");
  EXPECT_EQ(ok_body(get("/status", {{"Authorization", "Bearer s3cret-token"}}))["state"], "running");
  // The scheme's name is case-insensitive (RFC 7235), the token is not.
  EXPECT_EQ(ok_body(get("/status", {{"Authorization", "bearer s3cret-token"}}))["state"], "running");
  EXPECT_EQ(ok_body(post("/stop", "", {{"Authorization", "BEARER s3cret-token"}}))["ok"], true);
  EXPECT_EQ(log_->received().size(), 1u);
}

TEST_F(ControlServerTest, NonLoopbackAddressWithoutATokenIsRefused) {
  app::ControlServerConfig config;
  config.bind = "0.0.0.0";
  try {
    start(config);
    FAIL() << "0.0.0.0 was served without a token";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("an address other than loopback needs a token (control.token-file)"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(app::is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(app::is_loopback_address("127.1.2.3"));
  EXPECT_TRUE(app::is_loopback_address("::1"));
  EXPECT_TRUE(app::is_loopback_address("localhost"));
  EXPECT_FALSE(app::is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(app::is_loopback_address("::"));
  EXPECT_FALSE(app::is_loopback_address("192.168.1.5"));
  EXPECT_FALSE(app::is_loopback_address("example.org"));
}

TEST_F(ControlServerTest, PortZeroPicksAFreePortAndATakenPortIsAnInputError) {
  start();
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(server_->address(), "127.0.0.1:" + std::to_string(server_->port()));
  app::ControlServerConfig same;
  same.port = server_->port();
  try {
    app::ControlServer second(*system_, control_, same);
    FAIL() << "a second server bound the same port";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("the port is in use"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ok_body(get("/status"))["state"], "running") << "the first server still answers";
}

TEST_F(ControlServerTest, StopEndsTheServerPromptly) {
  start();
  ok_body(get("/status"));
  const auto before = std::chrono::steady_clock::now();
  server_->stop();
  // Promptly: not after httplib's 5 s keep-alive or read timeout. The margin is for a
  // loaded machine joining the server's threads.
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(3));
  EXPECT_FALSE(get("/status")) << "the server answered after stop()";
  server_->stop();  // idempotent
}

TEST_F(ControlServerTest, ASimulationThatEndedIs503) {
  start();
  caf::scoped_actor self{*system_};
  self->monitor(control_);
  caf::anon_send_exit(sim_, caf::exit_reason::user_shutdown);
  // The control actor ends with the sim loop: wait for that, then ask.
  self->receive([](const caf::down_msg&) {});
  expect_refused(get("/status"), 503, "the simulation is not running");
  expect_refused(post("/pause", ""), 503, "the simulation is not running");
}

TEST_F(ControlServerTest, ACommandNotAnsweredInTimeIs504AndSaysItMayStillApply) {
  app::ControlServerConfig config;
  config.command_timeout = std::chrono::milliseconds(200);
  log_->answer_commands = false;
  start(config);
  expect_refused(post("/pause", ""), 504, "no answer from the simulation within 0.2 s; the command may still take effect");
  EXPECT_EQ(log_->received().size(), 1u);
  EXPECT_EQ(ok_body(get("/status"))["state"], "running") << "status does not wait for a command";
}

TEST_F(ControlServerTest, ACommandWaitingWhenTheSimulationEndsFailsAtOnce) {
  log_->answer_commands = false;
  start();  // the default 60 s command timeout
  const auto before = std::chrono::steady_clock::now();
  auto waiting = std::async(std::launch::async, [this] { return post("/pause", ""); });
  log_->wait_for(1);
  caf::anon_send_exit(sim_, caf::exit_reason::user_shutdown);
  expect_refused(waiting.get(), 503, "the simulation ended before the command took effect");
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(30));
}

TEST_F(ControlServerTest, ControlActorRefusesAnInvalidCommandFromAnySender) {
  start();
  caf::scoped_actor self{*system_};
  const LiveCommand bad = SwapCommand{"tpu", std::nullopt};
  self->request(control_, std::chrono::seconds(5), command_atom::value, bad)
      .receive([](const LiveReply&) { FAIL() << "an invalid command was answered by the simulation"; },
               [](const caf::error& err) {
                 const auto problem = invalid_command_problem(err);
                 ASSERT_TRUE(problem);
                 EXPECT_EQ(*problem, "engine must be \"cpu\" or \"cuda\", got \"tpu\"");
               });
  EXPECT_TRUE(log_->received().empty());
}

}  // namespace
}  // namespace flysim::test
