#pragma once
// The messages of the live page: what GET /spikes, /rates and /top ask the
// recorder's activity window (model/activity_window.hpp), and its answers.
#include <caf/all.hpp>

#include "model/activity_window.hpp"

namespace flysim {

using raster_atom = caf::atom_constant<caf::atom("raster")>;
using rates_atom = caf::atom_constant<caf::atom("rates")>;
using top_atom = caf::atom_constant<caf::atom("top")>;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ActivityNeuron& x) {
  return f(caf::meta::type_name("flysim.activity_neuron"), x.root_id, x.index, x.spikes, x.rate_Hz, x.stimulated, x.readout);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ActivitySpan& x) {
  return f(caf::meta::type_name("flysim.activity_span"), x.first, x.next, x.bin_ms, x.window_bins);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RasterBin& x) {
  return f(caf::meta::type_name("flysim.raster_bin"), x.pos, x.t_ms, x.counts);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RasterReport& x) {
  return f(caf::meta::type_name("flysim.raster_report"), x.span, x.rows, x.bins);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RateBin& x) {
  return f(caf::meta::type_name("flysim.rate_bin"), x.pos, x.t_ms, x.spikes, x.active, x.population_Hz, x.readout_Hz);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RatesReport& x) {
  return f(caf::meta::type_name("flysim.rates_report"), x.span, x.neurons, x.has_readout, x.readout, x.bins);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TopReport& x) {
  return f(caf::meta::type_name("flysim.top_report"), x.span, x.window_ms, x.top);
}

}  // namespace flysim
