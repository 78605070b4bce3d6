#pragma once
// Two kinds of failure, as Arbor separates them: an input_error is the user's to fix
// (a file, an option, a value) and its message says where; anything else is a bug.
#include <stdexcept>
#include <string>

namespace flysim {

class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A stop signal (Ctrl-C, SIGTERM, SIGHUP) ended work that had not produced anything yet:
// the program says what it was doing and exits with 128 + the signal.
class interrupted : public std::runtime_error {
 public:
  interrupted(int signal, const std::string& what) : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// "file:line: message", the form every loader uses so a user can jump to the spot.
inline input_error input_error_at(const std::string& file, std::size_t line, const std::string& what) {
  return input_error(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace flysim
