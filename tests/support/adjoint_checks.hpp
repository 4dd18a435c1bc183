#pragma once
// The two checks every adjoint test runs, 2D or 3D (model-grid arrays are [nz][ny nx], ny = 1
// in 2D, so one indexing serves both):
//  - the dot-product test <F x, y> = <x, F* y>, F mapping the wavelet to the recorded data;
//  - the gradient of the discrete misfit against central finite differences along given
//    velocity perturbations.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"

namespace pwave::test {

inline std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> dist;
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

/// The two sides of the dot-product test <F x, y> = <x, F* y> over the problem's first `ns`
/// shots, F mapping each shot's wavelet x_s (p.shot_wavelets[s] when given, else p.wavelet) to
/// its recorded data, y random data, F* the adjoint run with the given storage of the forward
/// history; summed over the shots, and each shot alone (its data depend on its own wavelet only).
struct DotProduct {
  double lhs = 0, rhs = 0;
  double worst_shot = 0;  ///< largest |lhs_s - rhs_s| / |lhs_s|
  double mismatch() const { return std::abs(lhs - rhs) / std::abs(lhs); }
};
inline DotProduct dot_product(const ForwardProblem& p, Storage storage, int ns) {
  AcousticPropagator<double> prop(p);
  const int nrec = prop.max_receivers(), nt = p.nt;
  Traces<double> d("d", ns, nrec, nt), y("y", ns, nrec, nt);
  auto history = prop.make_history(ns, storage);
  prop.forward(0, ns, d, {}, 0, 0, history);
  auto hy = Kokkos::create_mirror_view(y);
  const auto ry = random_vector(std::size_t(ns) * nrec * nt, 2);
  for (int s = 0; s < ns; ++s)
    for (int r = 0; r < nrec; ++r)
      for (int n = 0; n < nt; ++n) hy(s, r, n) = ry[(std::size_t(s) * nrec + r) * nt + n];
  Kokkos::deep_copy(y, hy);
  GridView<double> grad("g", prop.imaging_rows(), prop.padded_plane());
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> xs("xs", ns, nt);
  prop.adjoint(0, ns, y, history, grad, xs);
  auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xs);
  DotProduct dp;
  for (int s = 0; s < ns; ++s) {
    const std::vector<double>& x = p.shot_wavelets.empty() ? p.wavelet : p.shot_wavelets[s];
    double l = 0, r = 0;
    for (int k = 0; k < nrec; ++k)
      for (int n = 0; n < nt; ++n) l += hd(s, k, n) * hy(s, k, n);
    for (int n = 0; n < nt; ++n) r += x[std::size_t(n)] * hx(s, n);
    dp.lhs += l, dp.rhs += r;
    dp.worst_shot = std::max(dp.worst_shot, std::abs(l - r) / std::abs(l));
  }
  return dp;
}

/// <F x, y> against <x, F* y> for a random wavelet x and random data y (2 shots), with the
/// given storage of the forward history; relative mismatch below 1e-12 (float64).
inline void expect_dot_product(ForwardProblem p, Storage storage) {
  p.wavelet = random_vector(p.nt, 1);
  const DotProduct dp = dot_product(p, storage, 2);
  ASSERT_NE(dp.lhs, 0.0);
  EXPECT_LT(dp.mismatch(), 1e-12) << "lhs " << dp.lhs << " rhs " << dp.rhs;
}

/// 0.5 ||F(p) - obs||^2, computed with the forward modelling alone.
inline double misfit(const ForwardProblem& p, const HostArray3<double>& obs) {
  const auto d = forward_model<double>(p);
  double j = 0;
  for (std::size_t s = 0; s < d.extent(0); ++s)
    for (std::size_t r = 0; r < d.extent(1); ++r)
      for (std::size_t n = 0; n < d.extent(2); ++n)
        j += 0.5 * std::pow(d(s, r, n) - obs(s, r, n), 2);
  return j;
}

/// Data of `truth`, a wrong starting model (0.97 v + 40 m/s), its misfit gradient with the given
/// storage; checks the reported misfit, then the gradient along each velocity perturbation
/// (model order, [nz][ny][nx]) against central differences (eps 1 m/s): relative 1e-5.
inline void expect_gradient_matches_finite_differences(
    const ForwardProblem& truth, Storage storage,
    const std::vector<std::vector<double>>& perturbations) {
  const auto observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  const auto result = misfit_gradient<double>(p, observed, storage);
  EXPECT_NEAR(result.misfit, misfit(p, observed), 1e-12 * result.misfit);
  const Grid& g = p.model.grid;
  const int plane = g.ny * g.nx;
  ASSERT_EQ(int(result.gradient.extent(1)), plane);  // [nz][ny nx]
  for (std::size_t k = 0; k < perturbations.size(); ++k) {
    const std::vector<double>& dv = perturbations[k];
    ASSERT_EQ(dv.size(), p.model.vp.size());
    double directional = 0;
    for (int iz = 0; iz < g.nz; ++iz)
      for (int q = 0; q < plane; ++q)
        directional += result.gradient(iz, q) * dv[std::size_t(iz) * plane + q];
    const double eps = 1.0;  // m/s: central differences are exact to O(eps^2) here
    ForwardProblem plus = p, minus = p;
    for (std::size_t i = 0; i < dv.size(); ++i) {
      plus.model.vp[i] += eps * dv[i];
      minus.model.vp[i] -= eps * dv[i];
    }
    const double fd = (misfit(plus, observed) - misfit(minus, observed)) / (2 * eps);
    EXPECT_LT(std::abs(fd - directional) / std::abs(fd), 1e-5)
        << "perturbation " << k << ": finite difference " << fd << ", adjoint " << directional;
  }
}

}  // namespace pwave::test
