#include "apps/flysim/run/run_outputs.hpp"

#include "apps/flysim/run/run_summary.hpp"
#include "io/weights_file.hpp"

namespace flysim::app {

void write_run_outputs(const RunOutputs& out, const RunSummary& summary) {
  SummaryContext context{*out.network, *out.stimulus, out.stimulus_rate_Hz, out.compatibility, out.paced, out.endless, {}, 0};
  if (!out.weights_path.empty()) {
    write_plastic_weights_csv(out.weights_path, *out.network, *out.plastic_edges, summary.final_weights);
    context.weights_path = out.weights_path;
    context.plastic_connections = out.plastic_edges->size();
  }
  context.command = out.command;
  print_summary(summary, context);
  if (!out.summary_path.empty()) write_summary_json(out.summary_path, summary, context);
}

}  // namespace flysim::app
