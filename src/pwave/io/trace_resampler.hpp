#pragma once
// Band-limited resampling of traces between two time axes: observed SEG-Y traces onto the
// simulation's time axis as they are read, and synthetic traces back onto the data's axis.

#include <cstddef>
#include <vector>

namespace pwave::io {

/// A regular time axis: `n` samples at t = start + k dt, k = 0..n-1 (seconds).
struct TimeAxis {
  int n = 0;
  double dt = 0.0;
  double start = 0.0;
};

/// Band-limited resampling of traces from one time axis to another (either way: data to
/// simulation or simulation to data): a Kaiser-windowed sinc (12 zero crossings each side,
/// beta 8) whose cutoff is 0.9 of the lower of the two Nyquist frequencies, so that
/// downsampling low-passes first (no aliasing). Each output sample's weights are normalised to
/// sum to 1 over the whole window; samples of the window outside the input count as zeros.
/// Output times before the input's first sample or past its last are 0. Equal intervals and
/// starts that differ by a whole number of samples (to 1e-9 of a sample): a copy, shifted, cut
/// or padded with zeros.
class TraceResampler {
 public:
  TraceResampler(TimeAxis in, TimeAxis out);
  /// Both axes starting at t = 0.
  TraceResampler(int n_in, double dt_in, int n_out, double dt_out)
      : TraceResampler(TimeAxis{n_in, dt_in, 0.0}, TimeAxis{n_out, dt_out, 0.0}) {}
  /// `in`: n_in() samples; `out`: n_out().
  void apply(const float* in, double* out) const;
  void apply(const double* in, double* out) const;
  int n_in() const { return in_.n; }
  int n_out() const { return out_.n; }
  const TimeAxis& input_axis() const { return in_; }
  const TimeAxis& output_axis() const { return out_; }

 private:
  template <class U>
  void apply_impl(const U* in, double* out) const;
  TimeAxis in_, out_;
  bool copy_ = false;
  long shift_ = 0;                   ///< copy: output sample n is input sample n + shift_
  std::vector<int> first_;           ///< per output sample: first input sample of its weights
  std::vector<std::size_t> offset_;  ///< per output sample: its weights in w_ (n_out + 1)
  std::vector<double> w_;
};

}  // namespace pwave::io
