#include "apps/flysim/options/cuda_devices_option.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "apps/flysim/options/common_options.hpp"
#include "kernels/engine_factory.hpp"

namespace flysim::app {

namespace {

// The device numbers as written (empty for "all"), each checked for its form only.
std::vector<int> written_devices(const Options& o) {
  const std::string& text = o.text(kCudaDevicesKey);
  std::vector<int> devices;
  if (text == "all") return devices;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = text.substr(from, comma - from);
    int device = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || device < 0 || device > kMaxCudaDevice)
      o.reject(kCudaDevicesKey, "must be 'all' or device numbers 0.." + std::to_string(kMaxCudaDevice) + " separated by commas ('" + item + "' is not one)");
    devices.push_back(device);
    from = comma + 1;
  }
  return devices;
}

// The devices as listed, each once per mention, from the numbers as written.
std::vector<int> listed_devices(const Options& o, std::vector<int> devices) {
  const std::string& text = o.text(kCudaDevicesKey);
  if (text.empty()) return {cuda_device(o)};
  // How many devices there are: the probe of device 0 counts them (and says why none can run).
  const CudaProbe probe = probe_cuda_backend(0);
  if (!probe.problem.empty() && probe.device_count == 0) o.reject(kCudaDevicesKey, "cannot be used: " + probe.problem);
  if (text == "all")
    for (int d = 0; d < probe.device_count; ++d) devices.push_back(d);
  for (int device : devices)
    if (device >= probe.device_count)
      o.reject(kCudaDevicesKey, "names device " + std::to_string(device) + ", but CUDA finds " +
                                    std::to_string(probe.device_count) + " (0.." + std::to_string(probe.device_count - 1) + ")");
  return devices;
}

}  // namespace

std::vector<OptionSpec> cuda_devices_specs(const std::string& per_device) {
  return {{kCudaDevicesKey, OptionType::text, "",
           "with engine.kind=cuda: the devices to spread the work over (a screen's experiments, a run's batches, each "
           "engine holding run.batch trials): 'all', or device numbers '0,1,...'; empty: engine.cuda-device"},
          {kPerDeviceKey, OptionType::integer, per_device,
           fmt::format("with engine.kind=cuda: engines on each device, each running its own experiments or trials (1..{}; "
                       "several overlap one engine's host work with another's kernels)", kMaxEnginesPerDevice)}};
}

std::vector<int> cuda_devices(const Options& o) {
  // Its form first, before any probe or other check.
  const std::vector<int> written = o.text(kCudaDevicesKey).empty() ? std::vector<int>{} : written_devices(o);
  if (engine_kind(o) != EngineKind::cuda) {
    for (const char* key : {kCudaDevicesKey, kPerDeviceKey})
      if (o.given(key)) o.reject(key, "applies to engine.kind=cuda only");
    return {cuda_device(o)};
  }
  const int64_t per_device = o.integer(kPerDeviceKey);
  if (per_device < 1 || per_device > kMaxEnginesPerDevice)
    o.reject(kPerDeviceKey, "must be 1.." + std::to_string(kMaxEnginesPerDevice));
  std::vector<int> engines;
  for (int d : listed_devices(o, written))
    for (int64_t k = 0; k < per_device; ++k) engines.push_back(d);
  return engines;
}

}  // namespace flysim::app
