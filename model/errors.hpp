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

// "file:line: message", the form every loader uses so a user can jump to the spot.
inline input_error input_error_at(const std::string& file, std::size_t line, const std::string& what) {
  return input_error(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace flysim
