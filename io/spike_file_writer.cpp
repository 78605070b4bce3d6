#include "io/spike_file_writer.hpp"

namespace flysim {

SpikeFileWriter::SpikeFileWriter(std::string path, bool stream) : path_(std::move(path)), stream_(stream) {}

void SpikeFileWriter::begin(const SpikeRunInfo& run) {
  steps_per_trial_ = run.steps_per_trial;
  const std::string header = start(run);
  file_.emplace(path_, stream_);
  file_->write(header);
  file_->flush();
}

void SpikeFileWriter::write(const SpikeBatch& batch) {
  rows_.clear();
  append_rows(batch, rows_);
  file_->write(order_.add(batch.trial, std::move(rows_), batch.first + batch.steps == steps_per_trial_));
  file_->flush_if_due();
}

void SpikeFileWriter::flush() { file_->flush(); }

void SpikeFileWriter::finish() {
  file_->write(order_.drain());
  file_->commit();
  file_.reset();
}

void SpikeFileWriter::abort() { file_.reset(); }

}  // namespace flysim
