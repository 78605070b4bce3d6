#include "host/lag_window.hpp"

#include <algorithm>
#include <cmath>

namespace flysim {

namespace {
constexpr double kFirstEdgeMs = 0.01;
constexpr double kBinsPerDoubling = 16.0;

LagFigures figures(const LagHistogram& h, double now_ms) { return {now_ms, h.quantile(0.99), h.max_ms(), h.count()}; }
}  // namespace

int LagHistogram::bin_of(double lag_ms) {
  if (!(lag_ms >= kFirstEdgeMs)) return 0;
  const int bin = 1 + static_cast<int>(std::floor(kBinsPerDoubling * std::log2(lag_ms / kFirstEdgeMs)));
  return std::min(bin, kBins - 1);
}

double LagHistogram::upper_edge(int bin) { return kFirstEdgeMs * std::exp2(bin / kBinsPerDoubling); }

void LagHistogram::add(double lag_ms) {
  ++counts_[static_cast<std::size_t>(bin_of(lag_ms))];
  ++count_;
  max_ms_ = std::max(max_ms_, lag_ms);
}

void LagHistogram::merge(const LagHistogram& other) {
  for (std::size_t k = 0; k < counts_.size(); ++k) counts_[k] += other.counts_[k];
  count_ += other.count_;
  max_ms_ = std::max(max_ms_, other.max_ms_);
}

double LagHistogram::quantile(double q) const {
  if (count_ == 0) return 0.0;
  const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  uint64_t seen = 0;
  for (int bin = 0; bin < kBins; ++bin) {
    seen += counts_[static_cast<std::size_t>(bin)];
    if (seen >= rank) return bin == 0 ? std::min(kFirstEdgeMs, max_ms_) : std::min(upper_edge(bin), max_ms_);
  }
  return max_ms_;
}

LagWindow::LagWindow(double window_s) : window_s_(window_s) {}

void LagWindow::record(double at_s, double lag_ms) {
  const auto index = static_cast<int64_t>(std::floor(at_s));
  if (seconds_.empty() || seconds_.back().index != index) seconds_.push_back({index, {}});
  seconds_.back().histogram.add(lag_ms);
  run_.add(lag_ms);
  now_ms_ = lag_ms;
  while (!seconds_.empty() && static_cast<double>(seconds_.front().index + 1) <= at_s - window_s_) seconds_.pop_front();
}

LagFigures LagWindow::window(double at_s) const {
  LagHistogram merged;
  for (const Second& s : seconds_)
    if (static_cast<double>(s.index + 1) > at_s - window_s_) merged.merge(s.histogram);
  return figures(merged, now_ms_);
}

LagFigures LagWindow::whole_run() const { return figures(run_, now_ms_); }

}  // namespace flysim
