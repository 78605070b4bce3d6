#pragma once
// The process's own CPU time and peak memory from getrusage: microsecond CPU times for a
// run's summary and pacing (thread_times.hpp reads /proc per thread, in clock ticks).

namespace flysim {

// Process CPU time (user + system) in seconds.
double process_cpu_seconds();
// Peak resident memory of the process in MiB.
double peak_memory_MiB();

}  // namespace flysim
