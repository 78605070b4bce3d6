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

// run_flysim with stdout and stderr in folder/TAG.out and folder/TAG.err, its exit code
// kept in folder/TAG.code (written last, by rename): when that file exists the run is not
// made again and the kept result is returned.
CliResult run_flysim_kept(const std::string& args, const std::filesystem::path& folder, const std::string& tag);

// An empty folder of this test process under the system's temporary one:
// PREFIX-PID (the folders of the tests, beside the shared runs).
std::filesystem::path empty_process_folder(const std::string& prefix);

}  // namespace flysim::test
