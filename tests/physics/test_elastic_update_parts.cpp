// The elastic forward updates launched in parts (physics/elastic/kernels.hpp: UpdateVx, UpdateVy,
// UpdateVz, then UpdateNormalStresses, UpdateSxz, UpdateSxy, UpdateSyz; Step's 3D host path)
// against the whole updates (UpdateVelocity, UpdateStress), run both along host lines and cell by
// cell (the GPU path): every field and memory variable equal after two steps (bitwise in -O3
// builds, to rounding otherwise: support/kernel_compare.hpp paths_bitwise), for every order, both
// precisions, a CPML on every side and strip lines narrower than a vector.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/launch.hpp"
#include "fixtures/elastic_fields.hpp"
#include "fixtures/elastic_run.hpp"
#include "pwave/physics/elastic/step.hpp"
#include "support/kernel_compare.hpp"

namespace pwave {
namespace {

namespace el = physics::elastic;

using test::expect_paths_agree;
using test::elastic::CellByCell;
using test::elastic::fill;
using test::elastic::values;

enum class How { parts, whole_lines, whole_cells };

/// Two leapfrog steps of one 3D state, the updates launched as `how` says. The kernels are
/// instantiated here, not taken from the library's Step.
template <class T, int Order, How how>
void two_steps(const el::State<T>& st, const el::Coefficients<T, Order>& c) {
  const ExecSpace exec;
  const backend::BoxCuts cuts = el::strip_cuts(st);
  const auto run = [&](const auto& instances) {
    backend::for_each_box_3d(
        "pwave::test::elastic::update", exec, 1, cuts, [&](auto in_x, auto in_y, auto in_z) {
          auto k = instances.template get<decltype(in_x)::value, decltype(in_y)::value,
                                          decltype(in_z)::value>();
          if constexpr (how == How::whole_cells) {
            return CellByCell<decltype(k)>{k};
          } else {
            return k;
          }
        });
  };
  for (int n = 0; n < 2; ++n) {
    if constexpr (how == How::parts) {
      run(el::StripInstances<el::UpdateVx, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateVy, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateVz, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateNormalStresses, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateSxz, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateSxy, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateSyz, T, Order, 3>(st, c));
    } else {
      run(el::StripInstances<el::UpdateVelocity, T, Order, 3>(st, c));
      run(el::StripInstances<el::UpdateStress, T, Order, 3>(st, c));
    }
  }
  exec.fence();
}

template <class T, int Order>
void check(int nz, int ny, int nx, int width) {
  const test::elastic::Model m =
      test::elastic::Model::homogeneous(nz, nx, 10.0, 3000.0, 1700.0, 2200.0, ny);
  test::elastic::Simulation r;
  r.order = Order, r.width = width, r.nt = 2, r.dt = 1e-3;
  const el::State<T> parts = test::elastic::detail::make_state<T, Order, 3>(m, r);
  const el::State<T> lines = test::elastic::detail::make_state<T, Order, 3>(m, r);
  const el::State<T> cells = test::elastic::detail::make_state<T, Order, 3>(m, r);
  const auto a = parts.checkpointed(), b = lines.checkpointed(), d = cells.checkpointed();
  for (std::size_t k = 0; k < a.size(); ++k) {
    // Wavefields of order 1, memory variables smaller, as in a run.
    for (const auto* f : {&a[k], &b[k], &d[k]}) fill(*f, std::uint32_t(k), k < 9 ? 1.0 : 0.01);
  }
  const el::Coefficients<T, Order> c(10.0, 10.0, 10.0);
  two_steps<T, Order, How::parts>(parts, c);
  two_steps<T, Order, How::whole_lines>(lines, c);
  two_steps<T, Order, How::whole_cells>(cells, c);
  const std::string where = "order " + std::to_string(Order) + ", " + std::to_string(nz) + " x " +
                            std::to_string(ny) + " x " + std::to_string(nx) + ", CPML " +
                            std::to_string(width);
  for (std::size_t k = 0; k < a.size(); ++k) {
    const std::vector<T> x = values(a[k]);
    const std::string field = "field " + std::to_string(k) + " of checkpointed()";
    expect_paths_agree((field + ", whole on lines").c_str(), x, values(b[k]), where);
    expect_paths_agree((field + ", whole by cells").c_str(), x, values(d[k]), where);
  }
}

template <class T>
void check_every_order() {
  // 27 columns with a 3-cell CPML: strip lines of 3 + R < 16 cells (cell by cell in the line
  // path too) and interior lines longer than a vector.
  check<T, 2>(13, 11, 27, 3);
  check<T, 4>(13, 11, 27, 3);
  check<T, 6>(14, 12, 40, 4);
  check<T, 8>(13, 11, 27, 3);
}

TEST(ElasticUpdateParts, PartsEqualTheWholeUpdatesBitwiseFloat) {
  check_every_order<float>();
}

TEST(ElasticUpdateParts, PartsEqualTheWholeUpdatesBitwiseDouble) {
  check_every_order<double>();
}

}  // namespace
}  // namespace pwave
