// 3D: the adjoint is the exact transpose of the forward scheme (dot-product test) and the
// gradient the exact derivative of the discrete misfit (central finite differences), with CPML
// on all six faces, the free surface, and the full, checkpoint and boundary storage strategies.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pwave/core/error.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/adjoint_checks.hpp"
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

// <F x, y> against <x, F* y> where F maps the wavelet to the recorded data.
void dot_product_test(int order, bool free_surface, Storage storage) {
  test::expect_dot_product(adjoint_problem_3d(order, free_surface), storage);
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

// A smooth perturbation: one Gaussian bump, off-centre.
std::vector<double> bump(unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.2, 0.8);
  const double cz = u(gen) * nz, cy = u(gen) * ny, cx = u(gen) * nx;
  std::vector<double> dv(std::size_t(nz) * ny * nx);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) {
        dv[(std::size_t(iz) * ny + iy) * nx + ix] =
            std::exp(-(std::pow(iz - cz, 2) + std::pow(iy - cy, 2) + std::pow(ix - cx, 2)) / 8.0);
      }
  return dv;
}

void finite_difference_test(int order, bool free_surface, Storage storage) {
  test::expect_gradient_matches_finite_differences(adjoint_problem_3d(order, free_surface), storage,
                                                   {bump(3), bump(4)});
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

// A gradient array of the wrong shape (here [nz][nx], the 2D shape, on a 3D grid) is refused
// before anything is written into it.
TEST(Gradient3D, WrongGradientShapeIsRefusedClearly) {
  const ForwardProblem p = adjoint_problem_3d(4, false);
  AcousticPropagator<double> prop(p);
  const int ns = 1, nt = p.nt;
  Traces<double> d("d", ns, prop.max_receivers(), nt);
  auto history = prop.make_history(ns, Storage::boundary);
  prop.forward(0, ns, d, {}, 0, 0, history);
  GridView<double> wrong("g", prop.padded_nz(), prop.padded_nx());
  try {
    prop.adjoint(0, ns, d, history, wrong);
    ADD_FAILURE() << "a [nz][nx] gradient was accepted for a 3D grid";
  } catch (const RuntimeError& e) {
    const std::string expected = "the gradient is " + std::to_string(prop.padded_nz()) + " x " +
                                 std::to_string(prop.padded_nx()) + ", expected " +
                                 std::to_string(prop.padded_nz()) + " x " +
                                 std::to_string(prop.padded_plane());
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  GridView<double> right("g", prop.padded_nz(), prop.padded_plane());
  prop.adjoint(0, ns, d, history, right);  // the right shape goes through
}

TEST(Gradient3D, CompressedFullStorageIsRefusedClearly) {
  const ForwardProblem p = adjoint_problem_3d(4, false);
  AcousticPropagator<double> prop(p);
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
