#pragma once
// CAF 0.17's deterministic test DSL (caf/test/dsl.hpp: test_coordinator_fixture, expect,
// inject, sched) inside GoogleTest. The DSL reports its checks to CAF's own unit-test
// engine, which must be running a test when they happen: run_caf_test runs a body as one.
// GoogleTest's FAIL() would break a template of dsl.hpp that this suite does not use.
#pragma push_macro("FAIL")
#undef FAIL
#include <caf/test/dsl.hpp>
#pragma pop_macro("FAIL")

#include <functional>

#include "messages/messages.hpp"

namespace flysim::test {

// Runs `body` as a test of CAF's unit-test engine. A failed CAF check (a CAF_CHECK, a
// field of expect(...).with()) is printed and fails the running GoogleTest test; false
// then. A failed requirement (an expect() whose message is not the next one) aborts the
// process, as in CAF's own test runner, after printing what was required: the ctest of
// that test fails with it.
bool run_caf_test(const std::function<void()>& body);

// An actor system configuration with flysim's message types registered, for
// test_coordinator_fixture<FlysimTestConfig>.
struct FlysimTestConfig : caf::actor_system_config {
  FlysimTestConfig() { register_message_types(*this); }
};

}  // namespace flysim::test
