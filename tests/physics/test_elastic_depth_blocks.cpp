// The elastic forward updates over blocks of depths (physics/elastic/kernels.hpp: DepthsAccess,
// DepthBlockedKernel, the 2D host path) against the same kernels run cell by cell (the GPU
// path): every field, memory variable and kept update term equal after two steps (bitwise in
// -O3 builds, to rounding otherwise: support/kernel_compare.hpp paths_bitwise), for every order,
// both precisions, a CPML on every side, boxes whose heights are not multiples of the block,
// rows wider than a vector and strip lines narrower than one.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/launch.hpp"
#include "fixtures/elastic_fields.hpp"
#include "fixtures/elastic_run.hpp"
#include "pwave/physics/elastic/step.hpp"
#include "pwave/physics/elastic/update_terms.hpp"
#include "support/kernel_compare.hpp"

namespace pwave {
namespace {

namespace el = physics::elastic;

using test::expect_paths_agree;
using test::elastic::CellByCell;
using test::elastic::fill;
using test::elastic::values;

/// The kept update terms of a 2D state: halo-free [1][nz][nx] fields.
template <class T>
el::UpdateTerms<T> kept_terms(const el::State<T>& st) {
  el::UpdateTerms<T> t;
  for (Field<T>* f : {&t.fx, &t.fz, &t.exx, &t.ezz, &t.exz}) {
    *f = Field<T>("pwave::test::elastic::kept", 1, st.nz, st.ny * st.nx);
  }
  return t;
}

/// Two leapfrog steps of one state, each update launched as el::Step launches it (the host
/// backends' line paths: blocks of depths in 2D), or cell by cell (`Cells`); `Keep`: the updates
/// keeping their terms. The kernels are instantiated here, not taken from the library's Step.
template <class T, int Order, bool Keep, bool Cells>
void two_steps(const el::State<T>& st, const el::Coefficients<T, Order>& c,
               const el::UpdateTerms<T>& kept) {
  const ExecSpace exec;
  const backend::BoxCuts cuts = el::strip_cuts(st);
  const auto run = [&](const auto& instances) {
    backend::for_each_box_3d<false>(
        "pwave::test::elastic::update", exec, 1, cuts, [&](auto in_x, auto in_y, auto in_z) {
          auto k = instances.template get<decltype(in_x)::value, decltype(in_y)::value,
                                          decltype(in_z)::value>();
          if constexpr (Keep) k.kept = kept;
          if constexpr (Cells) {
            return CellByCell<decltype(k)>{k};
          } else {
            return k;
          }
        });
  };
  for (int n = 0; n < 2; ++n) {
    if constexpr (Keep) {
      run(el::StripInstances<el::KeptUpdateVelocity, T, Order, 2>(st, c));
      run(el::StripInstances<el::KeptUpdateStress, T, Order, 2>(st, c));
    } else {
      run(el::StripInstances<el::UpdateVelocity, T, Order, 2>(st, c));
      run(el::StripInstances<el::UpdateStress, T, Order, 2>(st, c));
    }
  }
  exec.fence();
}

template <class T, int Order, bool Keep>
void check(int nz, int nx, int width) {
  static_assert(backend::has_lines<el::UpdateVelocity<T, Order, 2, false, false, false>>::value &&
                    backend::has_lines<el::KeptUpdateStress<T, Order, 2, true, true, false>>::value,
                "the 2D forward updates block depths");
  const test::elastic::Model m =
      test::elastic::Model::homogeneous(nz, nx, 10.0, 3000.0, 1700.0, 2200.0);
  test::elastic::Simulation r;
  r.order = Order, r.width = width, r.nt = 2, r.dt = 1e-3;
  const el::State<T> blocked = test::elastic::detail::make_state<T, Order, 2>(m, r);
  const el::State<T> cells = test::elastic::detail::make_state<T, Order, 2>(m, r);
  const el::UpdateTerms<T> kept_blocked = kept_terms(blocked), kept_cells = kept_terms(cells);
  const auto a = blocked.checkpointed(), b = cells.checkpointed();
  for (std::size_t k = 0; k < a.size(); ++k) {
    // Wavefields of order 1, memory variables smaller, as in a run.
    fill(a[k], std::uint32_t(k), k < 9 ? 1.0 : 0.01);
    fill(b[k], std::uint32_t(k), k < 9 ? 1.0 : 0.01);
  }
  const el::Coefficients<T, Order> c(10.0, 10.0);
  two_steps<T, Order, Keep, false>(blocked, c, kept_blocked);
  two_steps<T, Order, Keep, true>(cells, c, kept_cells);
  const std::string where = "order " + std::to_string(Order) + ", " + std::to_string(nz) + " x " +
                            std::to_string(nx) + ", CPML " + std::to_string(width) +
                            (Keep ? ", keeping terms" : "");
  for (std::size_t k = 0; k < a.size(); ++k) {
    const std::string field = "field " + std::to_string(k) + " of checkpointed()";
    expect_paths_agree(field.c_str(), values(a[k]), values(b[k]), where);
  }
  if (Keep) {
    el::UpdateTerms<T> kb = kept_blocked, kc = kept_cells;
    std::vector<Field<T>> tb, tc;
    el::UpdateTerms<T>::for_each(kb, [&](Field<T>& f) { tb.push_back(f); });
    el::UpdateTerms<T>::for_each(kc, [&](Field<T>& f) { tc.push_back(f); });
    for (std::size_t k = 0; k < 5; ++k) {
      const std::string term = "kept term " + std::to_string(k);
      expect_paths_agree(term.c_str(), values(tb[k]), values(tc[k]), where);
    }
  }
}

template <class T, bool Keep>
void check_every_order() {
  // 37 rows: the interior's 37 - 2 (width + R) rows and the strips' width + R rows are not all
  // multiples of 4; 45 columns with a 3-cell CPML: strip lines of 3 + R < 16 cells (cell by cell
  // in the line path too) and interior lines longer than a vector.
  check<T, 2, Keep>(37, 45, 3);
  check<T, 4, Keep>(37, 45, 3);
  check<T, 6, Keep>(30, 61, 5);
  check<T, 8, Keep>(37, 45, 3);
  check<T, 8, Keep>(43, 70, 20);
}

TEST(ElasticDepthBlocks, UpdatesEqualTheCellWiseKernelsBitwiseFloat) {
  if (!backend::runs_on_host<ExecSpace>()) GTEST_SKIP() << "the blocks run on host backends";
  check_every_order<float, false>();
  check_every_order<float, true>();
}

TEST(ElasticDepthBlocks, UpdatesEqualTheCellWiseKernelsBitwiseDouble) {
  if (!backend::runs_on_host<ExecSpace>()) GTEST_SKIP() << "the blocks run on host backends";
  check_every_order<double, false>();
  check_every_order<double, true>();
}

}  // namespace
}  // namespace pwave
