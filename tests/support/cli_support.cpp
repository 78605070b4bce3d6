#include "cli_support.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "file_events.hpp"

namespace flysim::test {

CliResult run_flysim(const std::string& args, const std::string& out_path, const std::string& err_path) {
  const std::string cmd = std::string(FLYSIM_BINARY) + " " + args + " > " + out_path + " 2> " + err_path;
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out_path), slurp(err_path)};
}

nlohmann::json read_summary(const std::string& path) {
  const std::string text = slurp(path);
  const nlohmann::json summary = nlohmann::json::parse(text, nullptr, false);
  EXPECT_TRUE(summary.is_object()) << path << " holds no JSON summary: '" << text.substr(0, 200) << "'";
  return summary.is_object() ? summary : nlohmann::json::object();
}

void expect_one_line_error(const CliResult& r, const std::string& where) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("flysim: error: " + where), std::string::npos) << r.err;
  std::istringstream lines(r.err);
  int errors = 0;
  for (std::string line; std::getline(lines, line);) errors += line.find("error") != std::string::npos;
  EXPECT_EQ(errors, 1) << r.err;
}

testing::AssertionResult same_text(const std::string& expected, const std::string& actual) {
  if (expected == actual) return testing::AssertionSuccess();
  std::istringstream a(expected), b(actual);
  std::string la, lb;
  for (std::size_t line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a || !more_b || la != lb)
      return testing::AssertionFailure() << "texts of " << expected.size() << " and " << actual.size()
                                         << " bytes differ at line " << line << ": '" << (more_a ? la : "<end>")
                                         << "' vs '" << (more_b ? lb : "<end>") << "'";
  }
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string with_overrides(const std::string& defaults, const std::string& extra) {
  const auto key_of = [](const std::string& word) { return word.substr(0, word.find('=')); };
  std::istringstream overriding(extra), given(defaults);
  std::vector<std::string> keys;
  for (std::string word; overriding >> word;)
    if (word.rfind("--", 0) == 0) keys.push_back(key_of(word));
  std::string out;
  for (std::string word; given >> word;)
    if (std::find(keys.begin(), keys.end(), key_of(word)) == keys.end()) out += word + " ";
  return out + extra;
}

std::string spikes_from(const std::string& csv, int trial, int step) {
  std::istringstream in(csv);
  std::string line, out;
  std::getline(in, line);
  out = line + "\n";
  while (std::getline(in, line)) {
    const int t = std::stoi(line);
    const int s = std::stoi(line.substr(line.find(',') + 1));
    if (t > trial || (t == trial && s >= step)) out += line + "\n";
  }
  return out;
}

BackgroundFlysim::BackgroundFlysim(const std::string& args, const std::string& out_path, const std::string& err_path,
                                   const std::string& launcher)
    : out_path_(out_path), err_path_(err_path) {
  const std::string cmd = "exec " + (launcher.empty() ? "" : launcher + " ") + std::string(FLYSIM_BINARY) + " " + args + " > " +
                          out_path + " 2> " + err_path;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
}

BackgroundFlysim::~BackgroundFlysim() {
  if (pid_ > 0) stop(SIGKILL);
}

namespace {
std::string wait_for_line(const std::string& path, const std::string& what, double timeout_s) {
  std::string found;
  const auto has_line = [&] {
    std::istringstream lines(slurp(path));
    for (std::string line; std::getline(lines, line);)
      if (line.find(what) != std::string::npos) return found = line, true;
    return false;
  };
  const std::string folder = std::filesystem::path(path).parent_path().string();
  wait_in_folder(folder.empty() ? "." : folder, has_line, timeout_s);
  return found;
}
}  // namespace

std::string BackgroundFlysim::wait_for_output(const std::string& what, double timeout_s) const {
  return wait_for_line(out_path_, what, timeout_s);
}

std::string BackgroundFlysim::wait_for_log(const std::string& what, double timeout_s) const {
  return wait_for_line(err_path_, what, timeout_s);
}

int BackgroundFlysim::stop(int signal) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, signal);
  return wait();
}

void BackgroundFlysim::send(int signal) const {
  if (pid_ > 0) ::kill(pid_, signal);
}

int BackgroundFlysim::wait() {
  if (pid_ <= 0) return -1;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int BackgroundFlysim::wait_for(double timeout_s) {
  if (pid_ <= 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() >= deadline) return -2;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

long resident_kib(int pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

bool poke(unsigned port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = htons(static_cast<uint16_t>(port));
  where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&where), sizeof where) != 0) {
    ::close(fd);
    ADD_FAILURE() << "cannot connect to 127.0.0.1:" << port;
    return false;
  }
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  timeval bound{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  char answer[4096];
  ssize_t n = 0;
  while ((n = ::recv(fd, answer, sizeof answer, 0)) > 0) {
  }
  const bool closed = n == 0 || errno == ECONNRESET;
  ::close(fd);
  return closed;
}

std::string basp_header(uint32_t payload) {
  std::string h(32, '\0');
  h[0] = 1;  // client handshake
  for (int i = 0; i < 4; ++i) h[4 + i] = static_cast<char>(payload >> (24 - 8 * i));
  return h;
}

}  // namespace flysim::test
