// CAF's unit-test engine, compiled once (CAF_TEST_NO_MAIN: GoogleTest has the main).
#define CAF_TEST_NO_MAIN
#include <caf/test/unit_test_impl.hpp>

#include "caf_dsl_support.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace flysim::test {

namespace {
const std::function<void()>* current_body = nullptr;

// A test of CAF's engine that runs the body run_caf_test was given.
struct BodyTest {
  void run_test_impl() { (*current_body)(); }
};

// CAF's test engine aborts a test that runs longer (its watchdog).
constexpr int kMaxRuntimeS = 120;
// The console shows every check, the failed ones marked "!!" (CAF prints a failed check
// only at this level); ctest shows it for a failed test.
constexpr int kConsoleVerbosity = 4;
}  // namespace

bool run_caf_test(const std::function<void()>& body) {
  // test_coordinator_fixture parses the engine's arguments into its configuration.
  static char program[] = "flysim_actor_tests";
  static char* argv[] = {program, nullptr};
  caf::test::engine::args(1, argv);
  caf::test::engine::max_runtime(kMaxRuntimeS);
  // A new test each time: the engine counts a test's failed checks for its whole life.
  static int runs = 0;
  const std::string name = "body-" + std::to_string(++runs);
  caf::test::engine::add("flysim", std::make_unique<caf::test::test_impl<BodyTest>>(name, false));
  current_body = &body;
  const bool passed = caf::test::engine::run(false, "", kConsoleVerbosity, 0, "^flysim$", "", "^" + name + "$", "");
  current_body = nullptr;
  if (!passed) ADD_FAILURE() << "a CAF check failed: the lines marked !! above";
  return passed;
}

}  // namespace flysim::test
