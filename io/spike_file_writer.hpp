#pragma once
// The part of a spike writer that every single-file text format shares: one OutputFile
// (atomic, or streamed for flysim serve), a header, and each batch's rows passed through
// TrialOrder, so a batched run writes the bytes of trials run one after another. A
// format subclass gives only its header and its rows.
#include <optional>
#include <string>

#include "io/output_file.hpp"
#include "io/spike_writer.hpp"
#include "io/trial_order.hpp"

namespace flysim {

class SpikeFileWriter : public SpikeWriter {
 public:
  SpikeFileWriter(std::string path, bool stream);

  void begin(const SpikeRunInfo& run) final;
  void write(const SpikeBatch& batch) final;
  void flush() final;
  void finish() final;
  void abort() final;

 protected:
  // Keeps what the rows need of `run`; returns the text before the first row.
  virtual std::string start(const SpikeRunInfo& run) = 0;
  // Appends the rows of `batch`'s spikes to `out`.
  virtual void append_rows(const SpikeBatch& batch, std::string& out) const = 0;

 private:
  std::string path_;
  bool stream_ = false;
  int32_t steps_per_trial_ = 0;
  std::optional<OutputFile> file_;
  TrialOrder order_;
  std::string rows_;  // one batch's rows
};

}  // namespace flysim
