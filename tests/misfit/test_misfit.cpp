// Misfit functions (src/pwave/misfit): each adjoint source is the exact derivative of its J
// (central finite differences in float64), l2 keeps the arithmetic of earlier versions, the
// normalised misfits ignore amplitude, the Hilbert transform is a Hilbert transform and its own
// negative transpose, and zero traces follow the documented rules.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "pwave/misfit/misfit.hpp"

namespace pwave {
namespace {

using misfit::Misfit;

constexpr int ns = 2, nrec = 3, nt = 240;

/// Smooth random-ish traces: per trace a few Gaussian-windowed sinusoids of random centre,
/// width, frequency, phase and amplitude over a sinusoid spanning the whole trace, which keeps
/// the envelope away from 0 (E = 0 is where the envelope misfit has no derivative: near it,
/// finite differences with a fixed step measure the curvature, not the adjoint).
std::vector<double> smooth_traces(unsigned seed, int shots = ns, int receivers = nrec,
                                  int samples = nt) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> v(std::size_t(shots) * receivers * samples, 0.0);
  for (int tr = 0; tr < shots * receivers; ++tr) {
    const double f0 = 0.03 + 0.02 * u(gen), phase0 = 2 * pi * u(gen);
    for (int n = 0; n < samples; ++n)
      v[std::size_t(tr) * samples + n] = 0.4 * std::cos(2 * pi * f0 * n + phase0);
    for (int k = 0; k < 3; ++k) {
      const double c = (0.2 + 0.6 * u(gen)) * samples, w = (0.05 + 0.1 * u(gen)) * samples;
      const double f = 0.02 + 0.06 * u(gen), phase = 2 * pi * u(gen), a = 0.5 + u(gen);
      for (int n = 0; n < samples; ++n) {
        const double t = n - c;
        v[std::size_t(tr) * samples + n] +=
            a * std::exp(-t * t / (2 * w * w)) * std::cos(2 * pi * f * t + phase);
      }
    }
  }
  return v;
}

template <class T>
Traces<T> device_traces(const std::vector<double>& v, int shots = ns, int receivers = nrec,
                        int samples = nt) {
  Traces<T> d("traces", shots, receivers, samples);
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h.data()[i] = T(v[i]);
  Kokkos::deep_copy(d, h);
  return d;
}

template <class T>
std::vector<double> host_values(const Traces<T>& d) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), d);
  return std::vector<double>(h.data(), h.data() + h.size());
}

/// J summed over the shots, and the adjoint source, of synthetic d against observed o (float64).
struct Evaluation {
  std::vector<double> per_shot;
  double j = 0;
  std::vector<double> adjoint;
};
Evaluation evaluate(Misfit kind, const std::vector<double>& d, const std::vector<double>& o,
                    int shots = ns, int receivers = nrec, int samples = nt) {
  const auto syn = device_traces<double>(d, shots, receivers, samples);
  const auto obs = device_traces<double>(o, shots, receivers, samples);
  Traces<double> res("res", shots, receivers, samples);
  Evaluation e;
  e.per_shot = misfit::misfits_and_adjoint_sources(kind, syn, obs, res, shots);
  for (double j : e.per_shot) e.j += j;
  e.adjoint = host_values(res);
  return e;
}

/// Central differences of J along `dir` with step h.
double directional_fd(Misfit kind, const std::vector<double>& d, const std::vector<double>& o,
                      const std::vector<double>& dir, double h) {
  std::vector<double> plus = d, minus = d;
  for (std::size_t i = 0; i < d.size(); ++i) {
    plus[i] += h * dir[i];
    minus[i] -= h * dir[i];
  }
  return (evaluate(kind, plus, o).j - evaluate(kind, minus, o).j) / (2 * h);
}

// The adjoint source against central differences of J (float64): along single samples
// d(s, r, n) spread over every trace (error relative to the largest |dJ/dd| of the trace, since
// a sample's own derivative may be near zero), and along a random direction (relative to the
// derivative). Step h = 1e-5 (traces are O(1)), truncation O(h^2). Largest errors measured
// (host build, GCC): single samples l2 2.2e-9, trace_normalized_l2 5.1e-9,
// normalized_correlation 3.2e-9, envelope 1.9e-9; random direction 2.1e-10, 7.5e-10, 4.8e-10,
// 2.3e-8. Tolerance 2e-8 per sample, 1e-7 along the direction; a wrong term of the adjoint (a
// dropped projection, a sign, H instead of H^T) gives errors of order 1e-2 to 1.
void expect_adjoint_matches_fd(Misfit kind) {
  const std::vector<double> d = smooth_traces(1), o = smooth_traces(2);
  const Evaluation e = evaluate(kind, d, o);
  ASSERT_GT(e.j, 0.0);
  const double h = 1e-5;
  double worst = 0;
  const int samples[] = {17, 60, 101, 150, 199, 233};
  for (int s = 0; s < ns; ++s) {
    for (int r = 0; r < nrec; ++r) {
      const std::size_t t0 = (std::size_t(s) * nrec + r) * nt;
      double scale = 0;
      for (int n = 0; n < nt; ++n) scale = std::max(scale, std::abs(e.adjoint[t0 + n]));
      ASSERT_GT(scale, 0.0);
      for (int n : samples) {
        std::vector<double> dir(d.size(), 0.0);
        dir[t0 + n] = 1.0;
        const double fd = directional_fd(kind, d, o, dir, h);
        const double err = std::abs(fd - e.adjoint[t0 + n]) / scale;
        worst = std::max(worst, err);
        EXPECT_LT(err, 2e-8) << misfit::name(kind) << " shot " << s << " receiver " << r
                             << " sample " << n << ": fd " << fd << ", adjoint "
                             << e.adjoint[t0 + n];
      }
    }
  }
  std::mt19937_64 gen(3);
  std::normal_distribution<double> g;
  std::vector<double> dir(d.size());
  for (double& x : dir) x = g(gen);
  double directional = 0;
  for (std::size_t i = 0; i < d.size(); ++i) directional += e.adjoint[i] * dir[i];
  const double fd = directional_fd(kind, d, o, dir, h);
  const double err = std::abs(fd - directional) / std::abs(fd);
  EXPECT_LT(err, 1e-7) << misfit::name(kind) << ": fd " << fd << ", adjoint " << directional;
  std::printf("%s: worst single-sample error %.2g, random direction %.2g\n", misfit::name(kind),
              worst, err);
}

TEST(Misfit, L2AdjointMatchesFiniteDifferences) {
  expect_adjoint_matches_fd(Misfit::l2);
}
TEST(Misfit, TraceNormalizedL2AdjointMatchesFiniteDifferences) {
  expect_adjoint_matches_fd(Misfit::trace_normalized_l2);
}
TEST(Misfit, NormalizedCorrelationAdjointMatchesFiniteDifferences) {
  expect_adjoint_matches_fd(Misfit::normalized_correlation);
}
TEST(Misfit, EnvelopeAdjointMatchesFiniteDifferences) {
  expect_adjoint_matches_fd(Misfit::envelope);
}

// The l2 kernel of every earlier version (residual_and_misfits), kept here to pin the bits.
template <class T>
std::vector<double> reference_l2(const Traces<T>& syn, const Traces<T>& obs, const Traces<T>& res,
                                 int count) {
  std::vector<double> out(std::size_t(count), 0.0);
  const int nr = int(syn.extent(1)), nn = int(syn.extent(2));
  for (int s = 0; s < count; ++s) {
    double j = 0;
    Kokkos::parallel_reduce(
        "test::reference_l2", Kokkos::RangePolicy<ExecSpace>(0, nr),
        KOKKOS_LAMBDA(const int r, double& acc) {
          for (int n = 0; n < nn; ++n) {
            const T d = syn(s, r, n) - obs(s, r, n);
            res(s, r, n) = d;
            acc += double(d) * double(d);
          }
        },
        j);
    out[s] = 0.5 * j;
  }
  return out;
}

template <class T>
void expect_l2_unchanged() {
  const auto syn = device_traces<T>(smooth_traces(4)), obs = device_traces<T>(smooth_traces(5));
  Traces<T> res("res", ns, nrec, nt), ref("ref", ns, nrec, nt);
  const auto j = misfit::misfits_and_adjoint_sources(Misfit::l2, syn, obs, res, ns);
  const auto j_ref = reference_l2(syn, obs, ref, ns);
  ASSERT_EQ(j.size(), std::size_t(ns));
  auto hs = Kokkos::create_mirror_view_and_copy(HostSpace(), syn);
  auto ho = Kokkos::create_mirror_view_and_copy(HostSpace(), obs);
  auto hr = Kokkos::create_mirror_view_and_copy(HostSpace(), res);
  auto hf = Kokkos::create_mirror_view_and_copy(HostSpace(), ref);
  for (int s = 0; s < ns; ++s) {
    EXPECT_EQ(j[s], j_ref[s]) << "shot " << s;  // the same bits as before
    double sum = 0;
    for (int r = 0; r < nrec; ++r)
      for (int n = 0; n < nt; ++n) {
        const T d = hs(s, r, n) - ho(s, r, n);
        sum += double(d) * double(d);
        ASSERT_EQ(hr(s, r, n), d);  // bitwise d - o
        ASSERT_EQ(hr(s, r, n), hf(s, r, n));
      }
    // 0.5 sum (d - o)^2: exactly when one thread adds in sample order, else to rounding.
    if (ExecSpace().concurrency() == 1) {
      EXPECT_EQ(j[s], 0.5 * sum);
    } else {
      EXPECT_NEAR(j[s], 0.5 * sum, 1e-14 * sum);
    }
  }
}

TEST(Misfit, L2IsTheHalfSumOfSquaresWithResidualSyntheticMinusObserved) {
  expect_l2_unchanged<double>();
  expect_l2_unchanged<float>();
}

// d = 3 o: both normalised misfits vanish with their adjoint sources (amplitude-insensitive),
// while l2 does not.
TEST(Misfit, NormalizedMisfitsIgnoreAmplitude) {
  const std::vector<double> o = smooth_traces(6);
  std::vector<double> d = o;
  for (double& x : d) x *= 3.0;
  for (Misfit kind : {Misfit::trace_normalized_l2, Misfit::normalized_correlation}) {
    const Evaluation e = evaluate(kind, d, o);
    EXPECT_NEAR(e.j, 0.0, 1e-14) << misfit::name(kind);
    for (double a : e.adjoint) ASSERT_NEAR(a, 0.0, 1e-14) << misfit::name(kind);
    // ... and a phase change is seen.
    EXPECT_GT(evaluate(kind, smooth_traces(7), o).j, 1e-2) << misfit::name(kind);
  }
  EXPECT_GT(evaluate(Misfit::l2, d, o).j, 1.0);
}

// Each shot's misfit and adjoint source are its own: the same bits evaluated alone or in a batch.
TEST(Misfit, ShotValuesDoNotDependOnTheBatch) {
  const std::vector<double> d = smooth_traces(8), o = smooth_traces(9);
  const std::size_t per_shot = std::size_t(nrec) * nt;
  for (Misfit kind : misfit::all()) {
    const Evaluation both = evaluate(kind, d, o);
    for (int s = 0; s < ns; ++s) {
      const std::vector<double> ds(d.begin() + s * per_shot, d.begin() + (s + 1) * per_shot);
      const std::vector<double> os(o.begin() + s * per_shot, o.begin() + (s + 1) * per_shot);
      const Evaluation one = evaluate(kind, ds, os, 1);
      EXPECT_EQ(one.per_shot[0], both.per_shot[s]) << misfit::name(kind);
      for (std::size_t i = 0; i < per_shot; ++i)
        ASSERT_EQ(one.adjoint[i], both.adjoint[s * per_shot + i]) << misfit::name(kind);
    }
  }
}

std::vector<double> hilbert_of(const std::vector<double>& x, int receivers, int samples) {
  const auto in = device_traces<double>(x, 1, receivers, samples);
  Traces<double> out("out", 1, receivers, samples);
  misfit::Workspace ws;
  misfit::hilbert(in, out, ws);
  return host_values(out);
}

// H(cos) = sin. A cosine under a wide Gaussian (its spectrum far below the carrier's) has
// H = the same Gaussian times the sine to rounding over the whole trace (measured 1.8e-14); a
// plain cosine, cut off at both ends, away from them (measured 1.5e-3 for samples 250-750 of
// 1000, period 20: the cut-off's error decays like 1 / distance).
TEST(Misfit, HilbertOfCosineIsSine) {
  const int n = 1000;
  const double w = 2 * pi / 20.0;
  std::vector<double> x(2 * n);
  for (int k = 0; k < n; ++k) {
    const double t = k - n / 2.0;
    x[k] = std::cos(w * k);
    x[n + k] = std::exp(-t * t / (2 * 60.0 * 60.0)) * std::cos(w * k);
  }
  const std::vector<double> hx = hilbert_of(x, 2, n);
  double plain = 0, windowed = 0;
  for (int k = 0; k < n; ++k) {
    const double t = k - n / 2.0;
    windowed = std::max(
        windowed, std::abs(hx[n + k] - std::exp(-t * t / (2 * 60.0 * 60.0)) * std::sin(w * k)));
    if (k >= n / 4 && k < 3 * n / 4) plain = std::max(plain, std::abs(hx[k] - std::sin(w * k)));
  }
  std::printf("H(cos) - sin: windowed %.2g, plain (middle half) %.2g\n", windowed, plain);
  EXPECT_LT(windowed, 1e-12);
  EXPECT_LT(plain, 3e-3);
}

// <H x, y> = -<x, H y> (H^T = -H) for random x, y and several lengths, odd ones included.
TEST(Misfit, HilbertTransposeIsMinusHilbert) {
  for (int n : {1, 7, 128, 241, 300}) {
    std::mt19937_64 gen(10 + n);
    std::normal_distribution<double> g;
    std::vector<double> xy(2 * std::size_t(n));
    for (double& v : xy) v = g(gen);
    const std::vector<double> h = hilbert_of(xy, 2, n);
    double hx_y = 0, x_hy = 0, scale = 0;
    for (int k = 0; k < n; ++k) {
      hx_y += h[k] * xy[n + k];
      x_hy += xy[k] * h[n + k];
      scale += std::abs(h[k] * xy[n + k]);
    }
    if (n > 1) {
      ASSERT_GT(std::abs(hx_y), 1e-3 * scale);
    }
    EXPECT_LE(std::abs(hx_y + x_hy), 1e-12 * std::max(scale, 1.0)) << "nt " << n;
  }
}

// Zero traces: a dead observed trace contributes 0 and no adjoint source to the normalised
// misfits; an all-zero synthetic trace contributes 1 (correlation) or 0.5 (trace-normalised L2)
// and no adjoint source. l2 and envelope count them as defined.
TEST(Misfit, ZeroTraces) {
  const int rec = 3;
  std::vector<double> d = smooth_traces(11, 1, rec), o = smooth_traces(12, 1, rec);
  std::fill(o.begin(), o.begin() + nt, 0.0);           // receiver 0: dead observed trace
  std::fill(d.begin() + nt, d.begin() + 2 * nt, 0.0);  // receiver 1: zero synthetic trace
  for (Misfit kind : misfit::all()) {
    const Evaluation all3 = evaluate(kind, d, o, 1, rec);
    const auto alone = [&](int r) {
      const std::vector<double> dr(d.begin() + r * nt, d.begin() + (r + 1) * nt);
      const std::vector<double> orr(o.begin() + r * nt, o.begin() + (r + 1) * nt);
      return evaluate(kind, dr, orr, 1, 1);
    };
    const Evaluation dead = alone(0), zero = alone(1), live = alone(2);
    for (double a : all3.adjoint) ASSERT_TRUE(std::isfinite(a)) << misfit::name(kind);
    EXPECT_NEAR(all3.j, dead.j + zero.j + live.j, 1e-14 * all3.j) << misfit::name(kind);
    const bool normalized =
        kind == Misfit::trace_normalized_l2 || kind == Misfit::normalized_correlation;
    if (normalized) {
      EXPECT_EQ(dead.j, 0.0) << misfit::name(kind);
      EXPECT_EQ(zero.j, kind == Misfit::normalized_correlation ? 1.0 : 0.5);
      for (int n = 0; n < 2 * nt; ++n) ASSERT_EQ(all3.adjoint[n], 0.0) << misfit::name(kind);
    } else {
      EXPECT_GT(dead.j, 0.0) << misfit::name(kind);  // as defined: pulls d towards zero
    }
    EXPECT_GT(live.j, 0.0);
  }
}

// A trace whose norm is below epsilon (float64: 2.2e-16) of the shot's largest counts as zero
// for the normalised misfits (the precursor before a first arrival); one above it counts in full.
TEST(Misfit, NegligibleTracesCountAsZero) {
  const int rec = 3;
  const std::vector<double> d = smooth_traces(17, 1, rec), o = smooth_traces(18, 1, rec);
  for (Misfit kind : {Misfit::trace_normalized_l2, Misfit::normalized_correlation}) {
    const double zero_synthetic = kind == Misfit::normalized_correlation ? 1.0 : 0.5;
    const double live =
        evaluate(kind, {d.begin() + 2 * nt, d.end()}, {o.begin() + 2 * nt, o.end()}, 1, 1).j;
    for (double scale : {1e-20, 1e-10}) {
      std::vector<double> dt = d, ot = o;
      for (int n = 0; n < nt; ++n) {
        ot[n] *= scale;       // receiver 0: faint observed trace
        dt[nt + n] *= scale;  // receiver 1: faint synthetic trace
      }
      const Evaluation e = evaluate(kind, dt, ot, 1, rec);
      const double faint =
          evaluate(kind, {dt.begin(), dt.begin() + nt}, {ot.begin(), ot.begin() + nt}, 1, 1).j +
          evaluate(kind, {dt.begin() + nt, dt.begin() + 2 * nt},
                   {ot.begin() + nt, ot.begin() + 2 * nt}, 1, 1)
              .j;
      if (scale < 1e-16) {  // negligible: as zero traces, no adjoint source
        EXPECT_NEAR(e.j, zero_synthetic + live, 1e-14) << misfit::name(kind);
        for (int n = 0; n < 2 * nt; ++n) ASSERT_EQ(e.adjoint[n], 0.0) << misfit::name(kind);
      } else {  // faint but resolved: scale-free, as on their own
        EXPECT_NEAR(e.j, faint + live, 1e-12) << misfit::name(kind);
        EXPECT_GT(e.j, zero_synthetic + live) << misfit::name(kind);
      }
    }
  }
}

// The envelope's adjoint source stays finite and exact where the synthetic trace is exactly
// zero over a stretch (before a first arrival): E(d) = 0 there.
TEST(Misfit, EnvelopeWithSilentStretch) {
  const int rec = 1;
  std::vector<double> d = smooth_traces(13, 1, rec), o = smooth_traces(14, 1, rec);
  for (int n = 0; n < 60; ++n) d[n] = 0.0;
  const Evaluation e = evaluate(Misfit::envelope, d, o, 1, rec);
  for (double a : e.adjoint) ASSERT_TRUE(std::isfinite(a));
  EXPECT_GT(e.j, 0.0);
}

// float32 traces: the same misfits as float64 to float rounding.
TEST(Misfit, Float32AgreesWithFloat64) {
  const std::vector<double> d = smooth_traces(15), o = smooth_traces(16);
  for (Misfit kind : misfit::all()) {
    const Evaluation e = evaluate(kind, d, o);
    const auto syn = device_traces<float>(d), obs = device_traces<float>(o);
    Traces<float> res("res", ns, nrec, nt);
    const auto j = misfit::misfits_and_adjoint_sources(kind, syn, obs, res, ns);
    const auto a = host_values(res);
    double amax = 0, err = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      amax = std::max(amax, std::abs(e.adjoint[i]));
      err = std::max(err, std::abs(a[i] - e.adjoint[i]));
    }
    EXPECT_NEAR(j[0] + j[1], e.j, 1e-5 * e.j) << misfit::name(kind);
    EXPECT_LT(err, 1e-5 * amax) << misfit::name(kind);
  }
}

TEST(Misfit, NamesRoundTrip) {
  for (Misfit kind : misfit::all()) EXPECT_EQ(misfit::parse(misfit::name(kind)), kind);
  EXPECT_FALSE(misfit::parse("L2").has_value());
  EXPECT_EQ(misfit::names().size(), 4u);
}

}  // namespace
}  // namespace pwave
