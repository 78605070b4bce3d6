#include "cli_support.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace flysim::test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

CliResult run_flysim(const std::string& args, const std::string& out_path, const std::string& err_path) {
  const std::string cmd = std::string(FLYSIM_BINARY) + " " + args + " > " + out_path + " 2> " + err_path;
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out_path), slurp(err_path)};
}

void expect_one_line_error(const CliResult& r, const std::string& where) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("flysim: error: " + where), std::string::npos) << r.err;
  std::istringstream lines(r.err);
  int errors = 0;
  for (std::string line; std::getline(lines, line);) errors += line.find("error") != std::string::npos;
  EXPECT_EQ(errors, 1) << r.err;
}

}  // namespace flysim::test
