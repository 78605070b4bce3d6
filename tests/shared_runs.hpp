#pragma once
// Baseline runs that several tests compare against, run once per build. gtest_discover_tests
// runs every test in a process of its own, where SetUpTestSuite would run them again for
// each test; here they are kept on disk instead, in a folder of the build's test folder
// named after the binaries (a rebuild of flysim or of the tests makes a new one).
#include <filesystem>
#include <functional>
#include <string>

#include "cli_support.hpp"

namespace flysim::test {

// The shared folder for `name`; fill(folder) runs under a lock on it (test processes run
// in parallel under ctest -j), and should make its runs with run_flysim_kept, which
// return what an earlier process kept.
std::filesystem::path with_shared_runs(const std::string& name, const std::function<void(const std::filesystem::path&)>& fill);

// run_flysim, its exit code kept in out_path + ".code" (written last, by rename): when
// that file exists the run is not made again and the kept result is returned.
CliResult run_flysim_kept(const std::string& args, const std::string& out_path, const std::string& err_path);

}  // namespace flysim::test
