// flysim doctor: can this machine run the engine that is asked for? Reports the CUDA
// build, the device files, driver and runtime versions, the code in the binary, the
// other processes on the GPU (NVML, loaded at run time), CPUs, whether the CPU engine
// has AVX-512 lanes, the CPU partition and the thread setting. Exits non-zero when cuda
// is asked for and cannot run.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "apps/flysim/run/trial_options.hpp"
#include "kernels/cpu/cpu_features.hpp"
#include "kernels/version.hpp"
#include "host/gpu_processes.hpp"
#include "io/network_cache.hpp"

namespace flysim::app {

namespace {
std::vector<std::string> nvidia_device_files() {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    struct stat st {};
    if (name.rfind("nvidia", 0) == 0 && ::stat(entry.path().c_str(), &st) == 0 && S_ISCHR(st.st_mode))
      found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}
std::string cpu_list_or_none(const CpuList& cpus) { return cpus.empty() ? "-" : format_cpu_list(cpus); }
}  // namespace

int doctor_command(const std::vector<std::string>& args) {
  const auto specs = run_options();
  if (print_help_if_asked(args, "flysim doctor [--key=value ...]",
                               "Reports whether this machine can run flysim's engines: CUDA compiled in, /dev/nvidia* "
                               "devices, driver and runtime versions, GPU code in the binary for the card, CPUs and "
                               "engine threads. Takes the options of `flysim run` (so one config file serves both); "
                               "exits 1 when the cuda engine is asked for (engine.kind or FLY_LIF_CUDA) and cannot run.",
                               specs))
    return 0;
  const Options o = Options::parse(specs, args);
  const RealtimeSettings realtime = realtime_settings(o);  // refuses a CPU list this process may not use
  const EngineKind kind = engine_choice(o).kind;  // engine.threads and the device are checked too
  const CudaProbe probe = probe_cuda_backend(cuda_device(o));
  const auto devices = nvidia_device_files();

  std::cout << "flysim doctor\n";
  std::cout << fmt::format("  cuda compiled in   {}\n", cuda_compiled_in() ? "yes, code for " + probe.binary_archs : "no");
  std::cout << fmt::format("  /dev/nvidia*       {}\n",
                           devices.empty() ? "none (no NVIDIA driver on this machine)" : fmt::format("{}", fmt::join(devices, " ")));
  if (cuda_compiled_in()) {
    std::cout << fmt::format("  driver / runtime   {} / {}{}\n",
                             probe.driver_version ? cuda_version_string(probe.driver_version) : "none",
                             cuda_version_string(probe.runtime_version),
                             probe.driver_version && probe.driver_version < probe.runtime_version
                                 ? "  (the driver is older than the runtime: upgrade the NVIDIA driver)"
                                 : "");
    if (probe.device_present)
      std::cout << fmt::format("  device             {}: {} (sm_{}{}), {} device(s); binary has code for it: {}\n",
                               probe.device, probe.device_name, probe.cc_major, probe.cc_minor, probe.device_count,
                               probe.binary_runs_on_device ? "yes" : "no");
    else
      std::cout << "  device             none usable\n";
    // The others engine.cuda-devices may name (a screen's experiments, a run's batches).
    for (int d = 0; probe.device_present && d < probe.device_count; ++d) {
      if (d == probe.device) continue;
      const CudaProbe other = probe_cuda_backend(d);
      std::cout << fmt::format("  device             {}: {} (sm_{}{}), {:.0f} MiB free{}\n", d, other.device_name, other.cc_major,
                               other.cc_minor, static_cast<double>(other.free_memory_bytes) / (1 << 20),
                               other.problem.empty() ? "" : "; unusable: " + other.problem);
    }
  }
  std::cout << fmt::format("  cuda engine        {}\n", probe.problem.empty() ? "usable" : "unusable: " + probe.problem);
  // Read only: who else holds the GPU, and how much of its memory.
  const NvmlReader nvml;
  const GpuNeighbours neighbours = gpu_neighbours(nvml, static_cast<uint32_t>(::getpid()));
  std::cout << fmt::format("  gpu processes      {}\n", neighbours.note);
  for (const GpuProcess& p : neighbours.processes)
    std::cout << fmt::format("                     GPU {}: pid {} {} {}\n", p.gpu, p.pid, p.name.empty() ? "(name unknown)" : p.name,
                             p.used_MiB >= 0 ? fmt::format("{:.0f} MiB", p.used_MiB) : "(memory not reported)");
  std::cout << fmt::format("  cpus               {} (engine.threads = {}), this process may use {}\n",
                           std::thread::hardware_concurrency(), o.text("engine.threads"), format_cpu_list(realtime.cpus.allowed));
  std::cout << fmt::format("  cpu lanes          {}\n",
                           kernels::cpu_has_avx512() ? "AVX-512: the CPU engine sorts paths and draws Poisson events eight at a time"
                           : kernels::cpu_has_avx2() ? "AVX2 (no AVX-512 F, VL, DQ): the CPU engine sorts paths and draws Poisson "
                                                       "events four at a time (same results)"
                                                     : "no AVX2: the CPU engine takes one neuron at a time (same results, slower)");
  if (realtime.cpus.pins_anything())
    std::cout << fmt::format("  cpu partition      engine {}, plasticity {}, other {}\n", cpu_list_or_none(realtime.cpus.engine),
                             cpu_list_or_none(realtime.cpus.plasticity), cpu_list_or_none(realtime.cpus.other));
  std::cout << fmt::format("  engine asked for   {}{}\n", to_string(kind),
                           std::getenv("FLY_LIF_CUDA") ? " (from FLY_LIF_CUDA)" : " (engine.kind)");
  std::cout << fmt::format("  kernel             {}\n", kKernelVersion);
  const LifConstants constants = derive_constants(model_params(o));
  const auto cached = cached_network(network_source(o));
  std::cout << fmt::format("  compat             {}\n",
                           cached ? compatibility_string(constants, cached->content_hash())
                                  : "(the network is not cached yet: `flysim run` prints it)");
  if (kind == EngineKind::cuda && !probe.problem.empty()) {
    std::cerr << "flysim doctor: the cuda engine is asked for but cannot run: " << probe.problem << "\n";
    return 1;
  }
  return 0;
}

}  // namespace flysim::app
