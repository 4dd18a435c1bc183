// 3D: the adjoint is the exact transpose of the forward scheme (dot-product test) and the
// gradient the exact derivative of the discrete misfit (central finite differences), with CPML
// on all six faces, the free surface, and the full, checkpoint and boundary storage strategies.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pwave/core/error.hpp"
#include "pwave/propagation/acoustic2d.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

constexpr int nz = 17, ny = 15, nx = 19;

// Heterogeneous model (gradient + fast lens), CPML of 6 cells on every face; sources and
// receivers near every face so that the CPML (and its adjoint) matters.
ForwardProblem adjoint_problem_3d(int order, bool free_surface) {
  ForwardProblem p =
      test::homogeneous_problem_3d(nz, ny, nx, 10.0, 2000.0, 0.001, 150, 15.0, order, 6);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) {
        const double r2 = std::pow(ix - 10.0, 2) + std::pow(iy - 6.0, 2) + std::pow(iz - 9.0, 2);
        p.model.vp[(std::size_t(iz) * ny + iy) * nx + ix] =
            1800.0 + 20.0 * iz + 5.0 * iy + 500.0 * std::exp(-r2 / 12.0);
      }
  if (free_surface) p.boundary.width[top] = 0, p.boundary.free_surface = true;
  p.boundary.pml_velocity = 3000.0;
  const std::vector<Position> recs = {test::at(20, 70, 30), test::at(90, 10, 100),
                                      test::at(170, 130, 60), test::at(60, 100, 160),
                                      test::at(100, 70, 0)};
  p.shots = {ShotGeometry{test::at(30, 20, 40), recs}, ShotGeometry{test::at(150, 120, 130), recs}};
  return p;
}

std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> dist;
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

// <F x, y> against <x, F* y> where F maps the wavelet to the recorded data.
void dot_product_test(int order, bool free_surface, Storage storage) {
  ForwardProblem p = adjoint_problem_3d(order, free_surface);
  p.wavelet = random_vector(p.nt, 1);
  Acoustic2D<double> prop(p);
  const int ns = 2, nrec = prop.receivers_per_shot(), nt = p.nt;
  Traces<double> d("d", ns, nrec, nt), y("y", ns, nrec, nt);
  auto history = prop.make_history(ns, storage);
  prop.forward(0, ns, d, {}, 0, 0, history);
  auto hy = Kokkos::create_mirror_view(y);
  const auto ry = random_vector(std::size_t(ns) * nrec * nt, 2);
  for (int s = 0; s < ns; ++s)
    for (int r = 0; r < nrec; ++r)
      for (int n = 0; n < nt; ++n) hy(s, r, n) = ry[(std::size_t(s) * nrec + r) * nt + n];
  Kokkos::deep_copy(y, hy);
  Grid2DView<double> grad("g", prop.padded_nz(), prop.padded_plane());
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> xs("xs", ns, nt);
  prop.adjoint(0, ns, y, history, grad, xs);
  auto hd = Kokkos::create_mirror_view(d);
  auto hx = Kokkos::create_mirror_view(xs);
  Kokkos::deep_copy(hd, d);
  Kokkos::deep_copy(hx, xs);
  double lhs = 0, rhs = 0;
  for (int s = 0; s < ns; ++s) {
    for (int r = 0; r < nrec; ++r)
      for (int n = 0; n < nt; ++n) lhs += hd(s, r, n) * hy(s, r, n);
    for (int n = 0; n < nt; ++n) rhs += p.wavelet[n] * hx(s, n);
  }
  ASSERT_NE(lhs, 0.0);
  EXPECT_LT(std::abs(lhs - rhs) / std::abs(lhs), 1e-12) << "lhs " << lhs << " rhs " << rhs;
}

TEST(Adjoint3D, DotProductOrder4) {
  dot_product_test(4, false, Storage::full);
}
TEST(Adjoint3D, DotProductOrder8) {
  dot_product_test(8, false, Storage::full);
}
TEST(Adjoint3D, DotProductOrder8FreeSurfaceCheckpoint) {
  dot_product_test(8, true, Storage::checkpoint);
}
TEST(Adjoint3D, DotProductOrder8Boundary) {
  dot_product_test(8, false, Storage::boundary);
}
TEST(Adjoint3D, DotProductOrder4FreeSurfaceBoundary) {
  dot_product_test(4, true, Storage::boundary);
}

double misfit(const ForwardProblem& p, const HostArray3<double>& obs) {
  const auto d = forward_model<double>(p);
  double j = 0;
  for (std::size_t s = 0; s < d.extent(0); ++s)
    for (std::size_t r = 0; r < d.extent(1); ++r)
      for (std::size_t n = 0; n < d.extent(2); ++n)
        j += 0.5 * std::pow(d(s, r, n) - obs(s, r, n), 2);
  return j;
}

void finite_difference_test(int order, bool free_surface, Storage storage) {
  const ForwardProblem truth = adjoint_problem_3d(order, free_surface);
  const auto observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;  // a wrong starting model
  const auto result = misfit_gradient<double>(p, observed, storage);
  EXPECT_NEAR(result.misfit, misfit(p, observed), 1e-12 * result.misfit);
  ASSERT_EQ(int(result.gradient.extent(1)), ny * nx);  // [nz][ny nx]
  // A smooth perturbation: one Gaussian bump per seed, off-centre.
  for (unsigned seed : {3u, 4u}) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0.2, 0.8);
    const double cz = u(gen) * nz, cy = u(gen) * ny, cx = u(gen) * nx;
    std::vector<double> dv(p.model.vp.size());
    double directional = 0;
    for (int iz = 0; iz < nz; ++iz)
      for (int iy = 0; iy < ny; ++iy)
        for (int ix = 0; ix < nx; ++ix) {
          const std::size_t i = (std::size_t(iz) * ny + iy) * nx + ix;
          dv[i] =
              std::exp(-(std::pow(iz - cz, 2) + std::pow(iy - cy, 2) + std::pow(ix - cx, 2)) / 8.0);
          directional += result.gradient(iz, iy * nx + ix) * dv[i];
        }
    const double eps = 1.0;  // m/s
    ForwardProblem plus = p, minus = p;
    for (std::size_t i = 0; i < dv.size(); ++i) {
      plus.model.vp[i] += eps * dv[i];
      minus.model.vp[i] -= eps * dv[i];
    }
    const double fd = (misfit(plus, observed) - misfit(minus, observed)) / (2 * eps);
    EXPECT_LT(std::abs(fd - directional) / std::abs(fd), 1e-5)
        << "seed " << seed << ": finite difference " << fd << ", adjoint " << directional;
  }
}

TEST(Gradient3D, MatchesFiniteDifferencesOrder4Full) {
  finite_difference_test(4, false, Storage::full);
}
TEST(Gradient3D, MatchesFiniteDifferencesOrder8FreeSurfaceCheckpoint) {
  finite_difference_test(8, true, Storage::checkpoint);
}
TEST(Gradient3D, MatchesFiniteDifferencesOrder8Boundary) {
  finite_difference_test(8, false, Storage::boundary);
}
TEST(Gradient3D, MatchesFiniteDifferencesOrder4FreeSurfaceBoundary) {
  finite_difference_test(4, true, Storage::boundary);
}

TEST(Gradient3D, CheckpointEqualsFullBitwise) {
  const ForwardProblem truth = adjoint_problem_3d(8, false);
  const auto observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v *= 0.98;
  const auto full = misfit_gradient<double>(p, observed, Storage::full);
  StorageOptions ck(Storage::checkpoint);
  ck.interval = 17;
  const auto checkpoint = misfit_gradient<double>(p, observed, ck);
  for (int iz = 0; iz < nz; ++iz)
    for (int q = 0; q < ny * nx; ++q) ASSERT_EQ(full.gradient(iz, q), checkpoint.gradient(iz, q));
}

TEST(Gradient3D, CompressedFullStorageIsRefusedClearly) {
  const ForwardProblem p = adjoint_problem_3d(4, false);
  Acoustic2D<double> prop(p);
  StorageOptions o(Storage::full);
  o.stride = 2;
  try {
    prop.make_history(2, o);
    ADD_FAILURE() << "a strided full history of a 3D grid was accepted";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("no stride or compression"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pwave
