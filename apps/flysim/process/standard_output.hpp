#pragma once
// Standard output belongs to the data when an output file is written there: the
// program's own text (the run's summary) then goes to stderr, so that a CSV piped into
// pandas holds nothing else.

namespace flysim::app {

// From now on, what the program prints to std::cout goes to stderr. Idempotent.
void leave_standard_output_to_data();

}  // namespace flysim::app
