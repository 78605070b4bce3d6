#pragma once
// The reference model's input format (docs/MODEL.md, "Connectome formats").
#include <functional>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

// Called now and then while a large file is read: (bytes done, bytes total).
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

// Neurons file: header `,Completed` (first column the root ID), row number = index.
std::vector<int64_t> load_flywire_neurons(const std::string& path);

// Connectivity CSV with the seven columns of docs/MODEL.md, validated against the neurons.
// "FlyWire CSV PATH": what a network loaded from `connectivity_path` is called.
std::string flywire_description(const std::string& connectivity_path);

Network load_flywire(const std::string& neurons_path, const std::string& connectivity_path,
                     const ProgressFn& progress = {});

// Writes a network in the same two-file format (atomically: temp file, then rename).
void write_flywire(const Network& net, const std::string& neurons_path, const std::string& connectivity_path,
                   const ProgressFn& progress = {});

}  // namespace flysim
