// The boundary storage's backward box on the 2D host row path: the reversed step with its imaging
// term and the adjoint step in one pass over each block of rows
// (physics::InteriorStep::rows_reverse_and_adjoint, which ReverseStepBox::rows runs) against the
// two updates one after the other (rows_imaging, then the adjoint fields' rows), from arbitrary
// fields, compared value by value: u^{n-1}, G^n and the imaging accumulator hold the same bits
// (in -O3 builds; to rounding otherwise: support/kernel_compare.hpp paths_bitwise).
// Blocks of block_rows rows take the fused vector path (on builds with the host vector
// extension); a shorter block and rows narrower than a vector take the two calls.

#include <gtest/gtest.h>

#include <string>

#include "pwave/physics/acoustic/kernels.hpp"
#include "support/kernel_compare.hpp"

namespace pwave {
namespace {

using test::copy_of;
using test::expect_paths_agree;
using test::fill;

template <class T, int Order>
void check_rows(int nz, int nx, int x0, int x1) {
  using Step = physics::InteriorStep<T, Order>;
  const int R = Order / 2;
  const std::string what = "order " + std::to_string(Order) + ", " + std::to_string(nz) + " x " +
                           std::to_string(nx) + ", columns [" + std::to_string(x0) + ", " +
                           std::to_string(x1) + ")";
  double seed = 0.3;
  const auto field = [&](const char* name, int rows, int cols) {
    Field<T> f(std::string(name), 1, rows, cols);
    fill(f, seed += 0.1);
    return f;
  };
  const Field<T> u_cur = field("u_cur", nz + 2 * R, nx + 2 * R);
  const Field<T> u_next = field("u_next", nz + 2 * R, nx + 2 * R);
  const Field<T> g_cur = field("g_cur", nz + 2 * R, nx + 2 * R);
  const Field<T> g_next = field("g_next", nz + 2 * R, nx + 2 * R);
  const Field<T> acc = field("acc", nz, nx);
  GridView<T> w("w", nz, nx);
  fill(w, seed += 0.1);
  const physics::ScaledStencil<T, Order> coef(7.0, 9.0);

  // The two calls, on copies of the outputs.
  const Field<T> u_two = copy_of(u_next), g_two = copy_of(g_next), acc_two = copy_of(acc);
  const Step rebuild_two(u_two, u_cur, w, coef, R), adjoint_two(g_two, g_cur, w, coef, R);
  // One pass.
  const Step rebuild(u_next, u_cur, w, coef, R), adjoint(g_next, g_cur, w, coef, R);
  for (int iz = 0; iz < nz; iz += Step::block_rows) {
    const int n = std::min(Step::block_rows, nz - iz);
    rebuild_two.rows_imaging(0, iz, n, x0, x1, g_cur, acc_two);
    adjoint_two.rows(0, iz, n, x0, x1);
    rebuild.rows_reverse_and_adjoint(0, iz, n, x0, x1, adjoint, acc);
  }
  Kokkos::fence();
  expect_paths_agree("u^{n-1}", u_next, u_two, what);
  expect_paths_agree("G^n", g_next, g_two, what);
  expect_paths_agree("imaging accumulator", acc, acc_two, what);
}

TEST(ReverseAndAdjointRows, OnePassEqualsTheTwoUpdatesBitwise) {
  // Unaligned first and last columns (partial vectors at both ends), a short last block.
  check_rows<float, 8>(21, 77, 3, 75);
  check_rows<float, 8>(16, 40, 0, 40);
  check_rows<float, 4>(19, 61, 5, 58);
  check_rows<double, 8>(21, 77, 3, 75);
  check_rows<double, 2>(9, 33, 1, 32);
  // Rows narrower than a vector.
  check_rows<float, 8>(8, 12, 2, 9);
}

}  // namespace
}  // namespace pwave
