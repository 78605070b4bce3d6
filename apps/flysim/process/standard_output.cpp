#include "apps/flysim/process/standard_output.hpp"

#include <iostream>

namespace flysim::app {

void leave_standard_output_to_data() {
  std::cout.flush();
  std::cout.rdbuf(std::cerr.rdbuf());
}

}  // namespace flysim::app
