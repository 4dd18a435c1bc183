#include "pwave/inversion/wavelet_estimation.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "pwave/misfit/fft.hpp"
#include "pwave/misfit/misfit.hpp"

namespace pwave {
namespace {

/// tw(k, 0), tw(k, 1) of misfit::fft over a host array [N / 2][2].
struct HostTwiddles {
  const double* v;
  KOKKOS_INLINE_FUNCTION double operator()(int k, int j) const { return v[2 * k + j]; }
};

}  // namespace

WaveletEstimator::WaveletEstimator(int samples) : nt_(samples) {
  if (samples < 1) {
    throw std::invalid_argument("WaveletEstimator: " + std::to_string(samples) + " samples");
  }
  n_ = misfit::Workspace::fft_length(samples);
  twiddle_.resize(std::size_t(n_));
  misfit::fill_twiddles(twiddle_.data(), n_);
  work_.resize(4 * std::size_t(n_));
}

template <class T>
void WaveletEstimator::spectra(const T* synthetic, const T* observed, std::size_t traces,
                               double* row) {
  std::fill(row, row + row_size(), 0.0);
  const int n = n_, nb = bins();
  double* zs = work_.data();  // S and D, each a complex signal of N values
  double* zd = zs + 2 * n;
  const HostTwiddles tw{twiddle_.data()};
  for (std::size_t t = 0; t < traces; ++t) {
    // One transform per real trace: S(f) holds nothing of D, even where S is many orders of
    // magnitude weaker than D (packing S + i D into one transform leaks D into S at rounding
    // level, which C / P would amplify).
    const T* s = synthetic + t * std::size_t(nt_);
    const T* d = observed + t * std::size_t(nt_);
    std::fill(zs, zs + 4 * n, 0.0);
    for (int k = 0; k < nt_; ++k) {
      zs[2 * k] = double(s[k]);
      zd[2 * k] = double(d[k]);
    }
    misfit::fft(zs, n, tw, false);
    misfit::fft(zd, n, tw, false);
    for (int k = 0; k < nb; ++k) {
      const double sr = zs[2 * k], si = zs[2 * k + 1], dr = zd[2 * k], di = zd[2 * k + 1];
      row[3 * k] += sr * dr + si * di;      // Re conj(S) D
      row[3 * k + 1] += sr * di - si * dr;  // Im conj(S) D
      row[3 * k + 2] += sr * sr + si * si;  // |S|^2
    }
  }
}

std::vector<double> WaveletEstimator::filter(const double* sums, double water_level) const {
  if (!(water_level >= 0.0)) {
    throw std::invalid_argument("WaveletEstimator: water_level must be >= 0");
  }
  const int nb = bins();
  double pmax = 0.0;
  for (int k = 0; k < nb; ++k) pmax = std::max(pmax, sums[3 * k + 2]);
  const double eps = water_level * pmax;
  std::vector<double> f(2 * std::size_t(nb));
  for (int k = 0; k < nb; ++k) {
    const double den = sums[3 * k + 2] + eps;
    if (den > 0.0) {
      f[2 * k] = (sums[3 * k] + eps) / den;
      f[2 * k + 1] = sums[3 * k + 1] / den;
    } else {  // no synthetic energy and no water level: keep the wavelet
      f[2 * k] = 1.0;
      f[2 * k + 1] = 0.0;
    }
  }
  // The bins of frequency 0 and N/2 are real for real traces (C is real there up to rounding):
  // keep F real so that w_new is.
  f[1] = 0.0;
  f[2 * (nb - 1) + 1] = 0.0;
  return f;
}

std::vector<double> WaveletEstimator::update(const std::vector<double>& wavelet, const double* sums,
                                             double water_level) {
  if (wavelet.size() != std::size_t(nt_)) {
    throw std::invalid_argument("WaveletEstimator: a wavelet of " + std::to_string(wavelet.size()) +
                                " samples for traces of " + std::to_string(nt_));
  }
  const std::vector<double> f = filter(sums, water_level);
  const int n = n_, nb = bins();
  double pmax = 0.0;
  for (int k = 0; k < nb; ++k) pmax = std::max(pmax, sums[3 * k + 2]);
  if (pmax == 0.0) return wavelet;  // no synthetic energy (e.g. every trace weighted out)
  double* z = work_.data();
  std::fill(z, z + 2 * n, 0.0);
  for (int k = 0; k < nt_; ++k) z[2 * k] = wavelet[std::size_t(k)];
  const HostTwiddles tw{twiddle_.data()};
  misfit::fft(z, n, tw, false);
  for (int k = 0; k < nb; ++k) {  // F W on bins 0 .. N/2
    const double wr = z[2 * k], wi = z[2 * k + 1], fr = f[2 * k], fi = f[2 * k + 1];
    z[2 * k] = fr * wr - fi * wi;
    z[2 * k + 1] = fr * wi + fi * wr;
  }
  z[1] = 0.0;  // W is real at 0 and N/2 too (to rounding)
  z[2 * (nb - 1) + 1] = 0.0;
  for (int k = nb; k < n; ++k) {  // F W of a real signal: Hermitian
    z[2 * k] = z[2 * (n - k)];
    z[2 * k + 1] = -z[2 * (n - k) + 1];
  }
  misfit::fft(z, n, tw, true);
  std::vector<double> out(static_cast<std::size_t>(nt_));
  for (int k = 0; k < nt_; ++k) out[std::size_t(k)] = z[2 * k] / n;
  return out;
}

template void WaveletEstimator::spectra(const float*, const float*, std::size_t, double*);
template void WaveletEstimator::spectra(const double*, const double*, std::size_t, double*);

}  // namespace pwave
