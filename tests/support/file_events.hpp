#pragma once
// Waiting for what another process writes: on the file system's own events (inotify),
// not on sleeps of a guessed length.
#include <functional>
#include <string>

namespace flysim::test {

// Returns once ready() is true, checking it at once and again whenever something in
// `folder` is created, written, renamed into it or closed; false when it is still not
// true after timeout_s (a bound against hanging, not a measure of speed).
bool wait_in_folder(const std::string& folder, const std::function<bool()>& ready, double timeout_s);

}  // namespace flysim::test
