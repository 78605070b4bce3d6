#include "apps/flysim/run/swap_schedule.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <string>

namespace flysim::app {

std::vector<SwapRequest> swap_requests(const Options& o, int cuda_device) {
  std::vector<SwapRequest> requests;
  const std::string text = o.text("run.swap-at");
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const std::size_t colon = item.find(':');
    double ms = 0;
    const std::string kind = colon == std::string::npos ? "" : item.substr(colon + 1);
    const std::string number = item.substr(0, colon);
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), ms);
    if (colon == std::string::npos || ec != std::errc() || end != number.data() + number.size() || !(ms > 0) ||
        (kind != "cpu" && kind != "cuda"))
      o.reject("run.swap-at", "has '" + item + "'; expected MS:cpu or MS:cuda items separated by commas, MS > 0");
    if (kind == "cuda") {
      const CudaProbe probe = probe_cuda_backend(cuda_device);
      if (!probe.problem.empty()) o.reject("run.swap-at", "asks for the cuda engine, which cannot run here: " + probe.problem);
    }
    requests.push_back({ms, kind == "cuda" ? EngineKind::cuda : EngineKind::cpu});
    pos = comma + 1;
  }
  return requests;
}

std::vector<PlacedCommand> scripted_swaps(const std::vector<SwapRequest>& requests, const ScheduleGeometry& g) {
  std::vector<PlacedCommand> swaps;
  for (const SwapRequest& r : requests)
    swaps.push_back({position_at_ms(r.ms, g, g.delay_steps), SwapCommand{to_string(r.kind), std::nullopt}});
  std::stable_sort(swaps.begin(), swaps.end(), [](const PlacedCommand& a, const PlacedCommand& b) { return a.at < b.at; });
  for (const PlacedCommand& swap : swaps)
    if (!reached(swap.at, g))
      spdlog::warn("run.swap-at: the swap to {} at trial {} step {} lies outside what this run simulates; it will not happen",
                   std::get<SwapCommand>(swap.command).engine, swap.at.trial, swap.at.step);
  return swaps;
}

}  // namespace flysim::app
