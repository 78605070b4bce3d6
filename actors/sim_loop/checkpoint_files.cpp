#include "actors/sim_loop/checkpoint_files.hpp"

namespace flysim {

void CheckpointFiles::written(std::string path) {
  --writing_;
  ++written_;
  files_.push_back(std::move(path));
  while (files_.size() > listed_) files_.pop_front();
}

}  // namespace flysim
