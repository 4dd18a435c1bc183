#pragma once
// Zero-phase low-pass filtering of traces and wavelets for multiscale inversion.

#include <cstddef>
#include <vector>

#include "pwave/core/types.hpp"

namespace pwave {

/// 4th-order Butterworth low-pass (two biquads, bilinear transform) run forwards and backwards
/// (zero phase, effective order 8). cutoff in Hz (-6 dB point), dt in seconds.
std::vector<double> lowpass(const std::vector<double>& x, double cutoff, double dt);

/// The same filter for many traces of one length, in place and without allocating after the
/// first trace: a multiscale inversion filters each minibatch's observed traces as they are
/// staged, rather than a filtered copy of the whole data set per stage. Every trace is filtered
/// in double and rounded back once, exactly as lowpass() on its values.
class LowpassFilter {
 public:
  /// Throws InputError("inversion.stages.max_frequency") unless 0 < cutoff < Nyquist.
  LowpassFilter(double cutoff, double dt);
  /// Filters `trace` (n samples at dt) in place. Not thread-safe (one work buffer).
  void apply(float* trace, std::size_t n);
  void apply(double* trace, std::size_t n);

 private:
  template <class T>
  void apply_impl(T* trace, std::size_t n);
  struct Biquad {
    double b0, b1, b2, a1, a2;  // a0 normalised to 1
  };
  std::vector<Biquad> sections_;
  std::vector<double> work_;
};

/// Filters every trace of [shot][receiver][time] data in place.
template <class T>
void lowpass_traces(const HostArray3<T>& data, double cutoff, double dt);

}  // namespace pwave
