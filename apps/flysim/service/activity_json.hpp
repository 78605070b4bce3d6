#pragma once
// The live page's JSON: the query parameters of GET /spikes, /rates and /top,
// refused with a message that names the parameter, and the activity window's answers as
// JSON. Root IDs are strings: they exceed 2^53, where JavaScript's numbers lose digits.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/activity_window.hpp"

namespace flysim::app {

// One integer query parameter an endpoint takes.
struct QueryParameter {
  std::string name;
  int64_t min = 0, max = 0;
  int64_t fallback = 0;  // when the request leaves it out
};

// The query parameters of GET /spikes, /rates, /top.
std::vector<QueryParameter> spikes_parameters();
std::vector<QueryParameter> rates_parameters();
std::vector<QueryParameter> top_parameters();

// The values of `takes` in `params` (a request's query, as httplib parses it), by name.
// Throws bad_request naming the parameter: one `endpoint` does not take, one given
// twice, one that is not a decimal integer in min..max.
std::map<std::string, int64_t> read_query(const std::string& endpoint, const std::multimap<std::string, std::string>& params,
                                          const std::vector<QueryParameter>& takes);

std::string raster_to_json(const RasterReport& report);
std::string rates_to_json(const RatesReport& report);
std::string top_to_json(const TopReport& report);

}  // namespace flysim::app
