#pragma once
// Which options decide what a run computes (its spikes, rates and weights), as against
// where it runs, how fast, and where its outputs go. A journal records the first kind,
// a replay takes them from the journal alone, and a screen's workers get them from
// their coordinator.
#include <string>

namespace flysim::app {

bool changes_result(const std::string& key);

// The options of changes_result, for messages: "network.* (but network.cache, ...), ...".
std::string result_options_text();

}  // namespace flysim::app
