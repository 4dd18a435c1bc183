// The multiscale stages' zero-phase Butterworth band-pass (inversion/bandpass.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/inversion/bandpass.hpp"

namespace pwave {
namespace {

constexpr double dt = 0.001;
constexpr int n = 4000;

std::vector<double> sinusoid(double f) {
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = std::sin(2 * M_PI * f * i * dt);
  return x;
}

/// The amplitude of `y` against `x` (same frequency, zero phase) over the middle half, and the
/// largest deviation of y from that multiple of x there (relative to x's amplitude 1).
struct Fit {
  double gain = 0, residual = 0;
};
Fit fit(const std::vector<double>& x, const std::vector<double>& y) {
  double xy = 0, xx = 0;
  for (int i = n / 4; i < 3 * n / 4; ++i) xy += x[i] * y[i], xx += x[i] * x[i];
  Fit f;
  f.gain = xy / xx;
  for (int i = n / 4; i < 3 * n / 4; ++i)
    f.residual = std::max(f.residual, std::abs(y[i] - f.gain * x[i]));
  return f;
}

/// |H(f)| of the forward-backward 4th-order Butterworth pair (bilinear, prewarped cutoffs).
double expected_gain(double f, double fmin, double fmax) {
  const double t = std::tan(M_PI * f * dt);
  double g = 1.0;
  if (fmax > 0) g /= 1.0 + std::pow(t / std::tan(M_PI * fmax * dt), 8);
  if (fmin > 0) g /= 1.0 + std::pow(std::tan(M_PI * fmin * dt) / t, 8);
  return g;
}

TEST(Bandpass, AttenuatesBelowMinAndKeepsThePassBandAsButterworth) {
  const double fmin = 8.0, fmax = 30.0;
  for (double f : {2.0, 4.0, 8.0, 15.0, 30.0, 60.0}) {
    const std::vector<double> x = sinusoid(f);
    const Fit m = fit(x, bandpass(x, fmin, fmax, dt));
    const double want = expected_gain(f, fmin, fmax);
    std::printf(
        "band-pass %g-%g Hz at %g Hz: gain %.6e (Butterworth %.6e), off by %.2e, "
        "phase residual %.2e\n",
        fmin, fmax, f, m.gain, want, std::abs(m.gain - want), m.residual);
    // Measured: gains within 4.3e-9 of the formula, residuals (phase) below 3.8e-9.
    EXPECT_NEAR(m.gain, want, 2e-8) << f << " Hz";
    EXPECT_LT(m.residual, 2e-8) << f << " Hz";
  }
  // The figures the formula gives, as a user reads them: 4 Hz (half of min) is attenuated about
  // 257 times (2^8 + 1; the prewarping moves it by 0.1%), 15 Hz kept to 1%, and each cutoff is
  // -6 dB.
  EXPECT_NEAR(expected_gain(4.0, fmin, 0.0), 1.0 / 257.0, 1e-5);
  EXPECT_NEAR(expected_gain(fmin, fmin, 0.0), 0.5, 1e-12);
  EXPECT_NEAR(expected_gain(15.0, fmin, fmax), 0.9897, 1e-4);
}

TEST(Bandpass, WithoutMinFrequencyIsTheLowPassBitwise) {
  std::vector<double> x(1500);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * double(i)) + 1e-3 * double(i);
  const std::vector<double> a = bandpass(x, 0.0, 12.0, dt), b = lowpass(x, 12.0, dt);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
  // The low-pass as it was before band-passes existed: two RBJ biquads, forwards then
  // backwards, recomputed here; bitwise the same values.
  std::vector<double> y = x;
  const double w0 = 2.0 * M_PI * 12.0 * dt;
  for (const bool reverse : {false, true}) {
    for (double q : {0.54119610, 1.30656296}) {
      const double alpha = std::sin(w0) / (2.0 * q), c = std::cos(w0), a0 = 1.0 + alpha;
      const double b0 = (1.0 - c) / 2.0 / a0, b1 = (1.0 - c) / a0, b2 = (1.0 - c) / 2.0 / a0,
                   a1 = -2.0 * c / a0, a2 = (1.0 - alpha) / a0;
      double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
      for (std::size_t k = 0; k < y.size(); ++k) {
        const std::size_t i = reverse ? y.size() - 1 - k : k;
        const double v = b0 * y[i] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
        x2 = x1, x1 = y[i], y2 = y1, y1 = v;
        y[i] = v;
      }
    }
  }
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], y[i]) << i;
}

TEST(Bandpass, IsZeroPhaseASymmetricPulseStaysSymmetric) {
  // A Ricker wavelet of 15 Hz centred in the trace.
  std::vector<double> x(n);
  const double t0 = (n / 2) * dt;
  for (int i = 0; i < n; ++i) {
    const double a = std::pow(M_PI * 15.0 * (i * dt - t0), 2);
    x[i] = (1 - 2 * a) * std::exp(-a);
  }
  const std::vector<double> y = bandpass(x, 10.0, 25.0, dt);
  double peak = 0, asymmetry = 0;
  int argmax = 0;
  for (int i = 0; i < n; ++i) {
    if (std::abs(y[i]) > peak) peak = std::abs(y[i]), argmax = i;
  }
  for (int k = 1; k < n / 2; ++k) {
    asymmetry = std::max(asymmetry, std::abs(y[n / 2 + k] - y[n / 2 - k]));
  }
  std::printf("band-passed Ricker: peak %.4f at sample %d (centre %d), asymmetry %.2e of it\n",
              peak, argmax, n / 2, asymmetry / peak);
  EXPECT_EQ(argmax, n / 2);
  EXPECT_LT(asymmetry / peak, 5e-14);  // measured 7e-15
  // It was filtered: 15 Hz lies inside 10-25 Hz but the Ricker's band is wider.
  EXPECT_LT(peak, 0.95);
}

TEST(Bandpass, RefusesCutoffsOutOfOrderOrPastNyquist) {
  EXPECT_THROW(BandpassFilter(20.0, 10.0, dt), InputError);
  EXPECT_THROW(BandpassFilter(10.0, 10.0, dt), InputError);
  EXPECT_THROW(BandpassFilter(0.0, 500.0, dt), InputError);
  EXPECT_THROW(BandpassFilter(600.0, 0.0, dt), InputError);
  EXPECT_THROW(BandpassFilter(-1.0, 10.0, dt), InputError);
  EXPECT_THROW(BandpassFilter(0.0, 0.0, dt), InputError);
  EXPECT_NO_THROW(BandpassFilter(5.0, 0.0, dt));  // a high-pass alone
  try {
    BandpassFilter(20.0, 10.0, dt);
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "inversion.stages.min_frequency");
  }
}

}  // namespace
}  // namespace pwave
