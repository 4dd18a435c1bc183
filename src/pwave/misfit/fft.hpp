#pragma once
// The in-place radix-2 complex FFT of pwave: the envelope misfit's Hilbert transform runs it in
// device kernels (misfit.cpp), the source wavelet estimation on the host
// (inversion/wavelet_estimation.cpp). One routine, so both see the same transform.

#include <cmath>

#include "pwave/core/kokkos_compat.hpp"

namespace pwave::misfit {

/// Fills the twiddle factors of an FFT of length n (a power of two >= 2): tw[2 k] =
/// cos(2 pi k / n), tw[2 k + 1] = -sin(2 pi k / n) for k < n / 2 (n values, host memory).
inline void fill_twiddles(double* tw, int n) {
  for (int k = 0; k < n / 2; ++k) {
    tw[2 * k] = std::cos(2.0 * pi * k / n);
    tw[2 * k + 1] = -std::sin(2.0 * pi * k / n);
  }
}

/// In-place radix-2 FFT of the n complex values a[2k] + i a[2k+1] (n a power of two):
/// forward X[k] = sum_j x[j] e^{-2 pi i jk / n}, or the inverse without its 1/n factor.
/// tw(k, 0) = cos(2 pi k / n), tw(k, 1) = -sin(2 pi k / n) for k < n / 2 (fill_twiddles): a
/// device View [n / 2][2] in kernels, a host one (or any such accessor) on the host.
template <class Twiddle>
KOKKOS_INLINE_FUNCTION void fft(double* a, const int n, const Twiddle& tw, const bool inverse) {
  for (int i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const double re = a[2 * i], im = a[2 * i + 1];
      a[2 * i] = a[2 * j];
      a[2 * i + 1] = a[2 * j + 1];
      a[2 * j] = re;
      a[2 * j + 1] = im;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    const int half = len >> 1, step = n / len;
    for (int i = 0; i < n; i += len) {
      for (int k = 0; k < half; ++k) {
        const double wr = tw(k * step, 0), wi = inverse ? -tw(k * step, 1) : tw(k * step, 1);
        double* u = a + 2 * (i + k);
        double* v = a + 2 * (i + k + half);
        const double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
        v[0] = u[0] - vr;
        v[1] = u[1] - vi;
        u[0] += vr;
        u[1] += vi;
      }
    }
  }
}

}  // namespace pwave::misfit
