// `flysim ctl`, the real binary, against a control server in this process (a stand-in
// for the sim loop behind it, control_support.hpp) and against nothing at all.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "cli_support.hpp"
#include "control_support.hpp"

namespace flysim::test {
namespace {

class CtlCli : public ControlFixture {
 protected:
  std::string path(const std::string& name) const { return scratch_.path(name); }
  std::string write(const std::string& name, const std::string& text) const { return scratch_.write(name, text); }
  CliResult ctl(const std::string& args) const {
    return run_flysim("ctl " + args + " --control.port=" + std::to_string(server_->port()), path("out"), path("err"));
  }
  ScratchDir scratch_{"flysim-ctl"};
};

// A port that nothing listens on: bound (so no one else takes it) but never listened to.
class ClosedPort {
 public:
  ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~ClosedPort() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

TEST_F(CtlCli, NothingListeningIsExitOneWithAClearMessage) {
  const ClosedPort closed;
  const CliResult r = run_flysim("ctl status --control.port=" + std::to_string(closed.port()), path("out"), path("err"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err, "flysim ctl: nothing listens on 127.0.0.1:" + std::to_string(closed.port()) +
                       " (is flysim serve running? control.port?)\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(CtlCli, StatusPrintsATableOrTheRawJson) {
  start();
  CliResult r = ctl("status");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("flysim serve at 127.0.0.1:" + std::to_string(server_->port()) + ": running"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("position    trial 1 step 360 (of 3 trials)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pace        realtime, 0.5 ms behind"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checkpoint  ckpt/flysim-trial0001-step000000360.ckpt"), std::string::npos) << r.out;
  r = ctl("status --json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"state\":\"running\",\"trial\":1,", 0), 0u) << r.out;
}

TEST_F(CtlCli, CommandsPrintWhereTheyTookEffect) {
  start();
  CliResult r = ctl("swap cpu --threads=2");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "swap: applied swap (at trial 1 step 360)\n");
  r = ctl("checkpoint");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "checkpoint: applied checkpoint (at trial 1 step 360)\n  file        ckpt/flysim-trial0001-step000000360.ckpt\n");
  r = ctl("stimulus --rate=200 --kick=7@5 --ids=" + write("ids.txt", "11\n12\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* action : {"pause", "resume", "stop"}) EXPECT_EQ(ctl(action).code, 0) << action;
  const auto got = log_->received();
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(std::get<SwapCommand>(got[0]).threads, 2);
  const auto& stimulus = std::get<StimulusCommand>(got[2]);
  EXPECT_EQ(stimulus.rate_Hz, 200);
  EXPECT_EQ(stimulus.poisson_ids, (std::vector<int64_t>{11, 12}));
  EXPECT_EQ(stimulus.kicks->size(), 1u);
  EXPECT_TRUE(std::holds_alternative<StopCommand>(got[5]));
}

TEST_F(CtlCli, ARefusedCommandIsExitOneWithTheReason) {
  start();
  const CliResult r = ctl("swap cuda");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "flysim ctl: swap refused: cuda cannot run here: no CUDA device\n");
}

TEST_F(CtlCli, BadUsageIsExitTwoAndSendsNothing) {
  start();
  expect_one_line_error(ctl("swap"), "command line: flysim ctl swap needs the engine");
  expect_one_line_error(ctl("stimulus --rate=fast"), "command line: --rate=fast: 'fast' is not a number");
  expect_one_line_error(ctl("status --stimulus.rate=5"), "command line: option stimulus.rate='5' is an option of flysim serve");
  EXPECT_TRUE(log_->received().empty());
}

TEST_F(CtlCli, TokenComesFromTheTokenFileAnd401IsExplained) {
  app::ControlServerConfig config;
  config.token = "tok-42-0123456789abcdef";
  start(config);
  CliResult r = ctl("status");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "flysim ctl: the service needs a token: give --control.token-file=FILE, the file flysim serve reads\n");
  r = ctl("status --control.token-file=" + write("wrong", "tok-41-0123456789abcdef\n"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the service refused the token of control.token-file"), std::string::npos) << r.err;
  r = ctl("status --control.token-file=" + write("right", "tok-42-0123456789abcdef\n"));
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(CtlCli, AServeConfigFileServesCtlToo) {
  start();
  const std::string config = write("serve.ini",
                                   "run.duration-ms = 1000\nengine.threads = 2\n[stimulus]\nrate = 150\n[control]\nbind = 127.0.0.1\n"
                                   "web-dir = " + path("web") + "\n");
  const CliResult r = ctl("status --config=" + config);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(": running"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace flysim::test
