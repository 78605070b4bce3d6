#include "io/output_file.hpp"

namespace flysim {

OutputFile::OutputFile(const std::string& path, bool stream) {
  if (stream)
    stream_.emplace(path);
  else
    atomic_.emplace(path);
}

void OutputFile::write(std::string_view text) {
  if (atomic_) atomic_->write(text.data(), text.size());
  if (stream_) stream_->write(text.data(), text.size());
}

void OutputFile::flush_if_due() {
  if (stream_ && std::chrono::steady_clock::now() - last_flush_ >= kStreamFlushEvery) flush();
}

void OutputFile::flush() {
  if (!stream_) return;
  stream_->flush();
  last_flush_ = std::chrono::steady_clock::now();
}

void OutputFile::commit() {
  if (atomic_) atomic_->commit();
  if (stream_) stream_->commit();
}

}  // namespace flysim
