#pragma once
// Helpers for the tests that run the real flysim binary (FLYSIM_BINARY).
#include <string>

namespace flysim::test {

struct CliResult {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path);
void spit(const std::string& path, const std::string& bytes);

// Runs `flysim ARGS` with stdout and stderr sent to the given files, and reads them back.
CliResult run_flysim(const std::string& args, const std::string& out_path, const std::string& err_path);

// Exactly one error line on stderr (progress lines may precede it) that contains
// "flysim: error: " + where, and exit code 2.
void expect_one_line_error(const CliResult& r, const std::string& where);

}  // namespace flysim::test
