#pragma once
// Source wavelet estimation (Pratt 1999): the filter that best maps the synthetic traces S,
// modelled with the current wavelet w, to the observed traces D, frequency by frequency, applied
// to w. With the traces zero-padded to N samples (the power of two >= 2 nt, so that products of
// spectra are linear, not circular, convolutions) and f a frequency bin k = 0 .. N/2:
//
//   C(f) = sum over traces conj(S(f)) D(f),   P(f) = sum over traces |S(f)|^2,
//   F(f) = (C(f) + eps) / (P(f) + eps),       eps = water_level * max_f P(f),
//   w_new = the first nt samples of IFFT(F W),  W = FFT of w zero-padded to N.
//
// F minimises sum_traces |D(f) - F S(f)|^2 + eps |F - 1|^2: it is the least-squares filter C / P
// wherever the synthetic traces have energy (P >> eps), and the water level damps it towards 1
// (keep the current wavelet) where they have little. Damping towards 1 rather than 0 (Pratt's
// C / (P + eps)) matters twice in an inversion: data low-passed in a multiscale stage say
// nothing about the frequencies above the band, which keep the current wavelet's spectrum
// instead of being erased for the next stages; and an estimate repeated every iteration does not
// lose its weak frequencies a factor P / (P + eps) at a time once the synthetic data fit (F = 1
// is the fixed point). water_level = 0 gives F = C / P exactly (F = 1 where P = 0).
//
// C and P are sums over traces: each shot's sums fill one row of plain doubles (spectra()), so
// that the rows of shots spread over ranks can be added in a fixed order
// (parallel::ordered_sum) before update(): the estimate is then bitwise independent of the
// number of ranks.

#include <cstddef>
#include <vector>

namespace pwave {

/// The computations of the statement above for traces and wavelets of `samples` samples, on the
/// host. Not thread-safe (one work buffer); allocates only at construction.
class WaveletEstimator {
 public:
  /// Throws std::invalid_argument unless samples >= 1.
  explicit WaveletEstimator(int samples);

  int samples() const { return nt_; }
  /// N: the FFT length, the power of two >= 2 samples (misfit::Workspace::fft_length).
  int fft_length() const { return n_; }
  /// Frequency bins k = 0 .. N/2 (f = k / (N dt)).
  int bins() const { return n_ / 2 + 1; }
  /// Doubles per row: for each bin k, row[3k] = Re C, row[3k + 1] = Im C, row[3k + 2] = P.
  std::size_t row_size() const { return 3 * std::size_t(bins()); }

  /// Overwrites `row` (row_size() values) with C and P summed over `traces` traces, added in
  /// order: synthetic[t * samples() + n] and observed[t * samples() + n] are sample n of trace t
  /// (host memory, float or double).
  template <class T>
  void spectra(const T* synthetic, const T* observed, std::size_t traces, double* row);

  /// w_new from C and P summed over all traces (`sums`: row_size() values laid out as a row)
  /// and the current wavelet `wavelet` (samples() values), water_level >= 0. Without any
  /// synthetic energy (P = 0 everywhere) the wavelet is returned as it is.
  std::vector<double> update(const std::vector<double>& wavelet, const double* sums,
                             double water_level);

  /// F(f) of the statement above, interleaved (Re, Im) per bin: 2 bins() values.
  std::vector<double> filter(const double* sums, double water_level) const;

 private:
  int nt_, n_;
  std::vector<double> twiddle_;  // [N / 2][2]
  std::vector<double> work_;     // two complex signals of N values
};

}  // namespace pwave
