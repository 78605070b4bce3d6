#pragma once
// The limits of what an engine may be given on this host, shared by every front end that
// asks for one (options, the control API, Python).

namespace flysim {

// The most threads a CPU pool takes (engine.threads, a live swap's threads, Python's threads).
inline constexpr int kMaxPoolThreads = 1024;

// The highest CUDA device number an option may name (engine.cuda-device, engine.cuda-devices).
inline constexpr int kMaxCudaDevice = 1023;

}  // namespace flysim
