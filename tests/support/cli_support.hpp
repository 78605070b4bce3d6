#pragma once
// Helpers for the tests that run the real flysim binary (FLYSIM_BINARY).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "scratch_dir.hpp"

namespace flysim::test {

struct CliResult {
  int code = -1;
  std::string out, err;
};

// Runs `flysim ARGS` with stdout and stderr sent to the given files, and reads them back.
CliResult run_flysim(const std::string& args, const std::string& out_path, const std::string& err_path);

// The JSON summary a run wrote (output.summary); a failed test when it is missing or not JSON.
nlohmann::json read_summary(const std::string& path);

// Exactly one error line on stderr (progress lines may precede it) that contains
// "flysim: error: " + where, and exit code 2.
void expect_one_line_error(const CliResult& r, const std::string& where);

// Equal texts, or the first line where they differ. (EXPECT_EQ on two large strings
// makes gtest compute an edit-distance diff whose memory grows with the product of
// their lengths: megabyte files exhaust the machine.)
testing::AssertionResult same_text(const std::string& expected, const std::string& actual);

// `defaults extra`, less the --key=value items of `defaults` whose key `extra` sets too
// (flysim refuses a key given twice: a test that changes a default says so here).
std::string with_overrides(const std::string& defaults, const std::string& extra);

// How often `what` occurs in `text`.
std::size_t count_of(const std::string& text, const std::string& what);

// A spike CSV's header line plus every spike line at or after (trial, step).
std::string spikes_from(const std::string& csv, int trial, int step);

// `flysim ARGS` started in the background (stdout and stderr to files), for servers
// such as `flysim shard`; killed with SIGKILL when destroyed if still running.
class BackgroundFlysim {
 public:
  // `launcher`, when given, runs the binary ("ip netns exec NS": in a network namespace).
  BackgroundFlysim(const std::string& args, const std::string& out_path, const std::string& err_path,
                   const std::string& launcher = "");
  ~BackgroundFlysim();
  BackgroundFlysim(const BackgroundFlysim&) = delete;
  BackgroundFlysim& operator=(const BackgroundFlysim&) = delete;
  // Waits (up to timeout_s) for a stdout line containing `what`; returns it, or "".
  std::string wait_for_output(const std::string& what, double timeout_s) const;
  // The same for stderr (the log).
  std::string wait_for_log(const std::string& what, double timeout_s) const;
  // Sends `signal` and waits for the process; returns its exit code (128+signal if killed).
  int stop(int signal);
  // Waits for the process to end by itself; returns its exit code as stop() does.
  int wait();
  // Waits at most timeout_s for the process to end; its exit code as wait() gives it,
  // or -2 when it is still running (it is then left running).
  int wait_for(double timeout_s);
  // The process ID (for /proc), or -1 once it has been waited for.
  int pid() const { return pid_; }
  // Sends `signal` without waiting (SIGSTOP freezes it: its connections stay open, silent).
  void send(int signal) const;

 private:
  int pid_ = -1;
  std::string out_path_, err_path_;
};

// Sends `bytes` to 127.0.0.1:port and waits for the peer to hang up: true once it has
// closed the connection (it read the bytes and refused them), false when it still holds
// it open after 30 s (a bound against hanging, not a measure of speed).
bool poke(unsigned port, const std::string& bytes);

// A BASP header (CAF 0.17: operation, 2 padding bytes, flags, payload length, operation
// data, source and destination actor; big-endian) announcing `payload` bytes.
std::string basp_header(uint32_t payload);

// Resident memory of a process, in KiB, from /proc/PID/status: `field` VmRSS (all of it)
// or RssAnon (heap and stacks, without the pages of mapped files); -1 when unreadable.
long resident_kib(int pid, const std::string& field = "VmRSS");

}  // namespace flysim::test
