#pragma once
// Zero-phase band-pass filtering of traces and wavelets for multiscale inversion: a stage's
// high-pass below inversion.stages[].min_frequency and low-pass above max_frequency.

#include <cstddef>
#include <vector>

#include "pwave/core/types.hpp"

namespace pwave {

/// Butterworth band-pass run forwards and backwards (zero phase): a 4th-order low-pass (two
/// biquads, bilinear transform prewarped at the cutoff) when `max_frequency` > 0, then a
/// 4th-order high-pass (two biquads) when `min_frequency` > 0; each pass is -3 dB at its cutoff,
/// so the filter is -6 dB there and its amplitude response
///   |H(f)| = 1 / (1 + (tan(pi f dt) / tan(pi max dt))^8) * 1 / (1 + (tan(pi min dt) / tan(pi f
///   dt))^8)
/// (a factor left out for a cutoff of 0). Frequencies in Hz, dt in seconds. A filter with
/// `min_frequency` 0 is exactly the low-pass pwave used before it had a high-pass (same
/// sections, same arithmetic).
///
/// Many traces of one length are filtered in place and without allocating after the first
/// trace: a multiscale inversion filters each minibatch's observed traces as they are staged,
/// rather than a filtered copy of the whole data set per stage. Every trace is filtered in double
/// and rounded back once, exactly as bandpass() on its values.
class BandpassFilter {
 public:
  /// Throws InputError("inversion.stages.max_frequency" or ".min_frequency") unless
  /// 0 <= min_frequency < Nyquist, 0 <= max_frequency < Nyquist, at least one of them > 0, and
  /// min_frequency < max_frequency when both are.
  BandpassFilter(double min_frequency, double max_frequency, double dt);
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

/// `x` band-passed (BandpassFilter).
std::vector<double> bandpass(const std::vector<double>& x, double min_frequency,
                             double max_frequency, double dt);
/// `x` low-passed below `cutoff` Hz (BandpassFilter without a high-pass).
std::vector<double> lowpass(const std::vector<double>& x, double cutoff, double dt);

/// Filters every trace of [shot][receiver][time] data in place.
template <class T>
void bandpass_traces(const HostArray3<T>& data, double min_frequency, double max_frequency,
                     double dt);

}  // namespace pwave
