// The variable-density equation's forward on the shared propagator: its material on the padded
// grid (w = rho v^2 dt^2 and the half-point buoyancies, rebuilt when vp or rho change) and one
// time step (flux and update launches per box of the padded grid, or on host backends the
// fused interior). The time loop that calls step_vd is AcousticPropagator::forward_impl
// (acoustic_forward.hpp); the backward step is in acoustic_vd_adjoint.cpp.

#include <algorithm>

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/propagation/acoustic_forward.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/extend_model.hpp"

namespace pwave {
namespace {

/// One launch of kernel K (vd::Flux or vd::Update) over the 3^Dim boxes of `cuts`, each box
/// with the instance of the strips it lies in.
template <template <class, int, int, bool, bool, bool> class K, class T, int Order, int Dim>
void launch_boxes(const char* label, const ExecSpace& exec, int count, const backend::BoxCuts& cuts,
                  const physics::acoustic_vd::State<T>& v,
                  const physics::acoustic_vd::Coefficients<T, Order>& coef) {
  backend::for_each_box<Dim>(label, exec, count, cuts, [&](auto in_x, auto in_y, auto in_z) {
    return K<T, Order, Dim, decltype(in_x)::value, decltype(in_z)::value, decltype(in_y)::value>{
        v, coef};
  });
}

/// w = rho v^2 dt^2 and the half-point buoyancies beta_a(j) = (b_j + b_{j+1}) / 2 (b of the last
/// cell at the last half point) of the variable-density scheme, from the padded rho and v^2 dt^2.
/// A free function: nvcc rejects extended lambdas in private member functions.
template <class T>
void vd_material(const GridView<T>& rho, const GridView<T>& v2dt2,
                 const physics::acoustic_vd::State<T>& v, int nz, int ny, int nx) {
  const GridView<T> w = v.w, bx = v.beta_x, bz = v.beta_z, by = v.beta_y;
  const bool is3d = by.extent(0) > 0;
  Kokkos::parallel_for(
      "pwave::physics::acoustic_vd::material",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {nz, ny * nx}),
      KOKKOS_LAMBDA(const int iz, const int q) {
        const int iy = q / nx, ix = q % nx;
        const T b = T(1) / rho(iz, q);
        w(iz, q) = rho(iz, q) * v2dt2(iz, q);
        bx(iz, q) = ix + 1 < nx ? T(0.5) * (b + T(1) / rho(iz, q + 1)) : b;
        bz(iz, q) = iz + 1 < nz ? T(0.5) * (b + T(1) / rho(iz + 1, q)) : b;
        if (is3d) by(iz, q) = iy + 1 < ny ? T(0.5) * (b + T(1) / rho(iz, q + nx)) : b;
      });
}

}  // namespace

template <class T>
void AcousticPropagator<T>::set_density(const GridView<T>& rho) {
  const Grid& g = problem_.model.grid;
  if (problem_.equation != physics::Equation::acoustic_variable_density) {
    throw RuntimeError(
        "AcousticPropagator::set_density: the constant-density equation has no density");
  }
  if (int(rho.extent(0)) != g.nz || int(rho.extent(1)) != g.ny * g.nx) {
    throw RuntimeError("AcousticPropagator::set_density: the model has the wrong shape");
  }
  propagation::extend_model("pwave::propagation::set_density",
                            propagation::PaddedLayout::of(problem_), g.nz, g.ny, g.nx, rho,
                            rho_pad_, propagation::Identity<T>{});
  rebuild_vd_material();
}

template <class T>
void AcousticPropagator<T>::rebuild_vd_material() {
  vd_material(rho_pad_, st_.v2dt2, vd_, st_.nz, st_.ny, st_.nx);
}

template <class T>
template <int Order, int Dim>
void AcousticPropagator<T>::step_vd(
    const ExecSpace& exec, int count, const physics::acoustic_vd::State<T>& v,
    const physics::acoustic_vd::Coefficients<T, Order>& coef) const {
  namespace vd = physics::acoustic_vd;
  const auto& st = v.st;
  const backend::BoxCuts cuts{{0, st.strip_top, st.nz - st.strip_bottom, st.nz},
                              {0, st.strip_front, st.ny - st.strip_back, st.ny},
                              {0, st.strip_left, st.nx - st.strip_right, st.nx}};
  // Host backends, 2D: the rows between the z strips (the x strips' cells included) in one
  // fused launch (vd::FusedStep) that keeps its flux in cache and writes to the flux arrays
  // the z flux that the z strips' updates read; the flux and update launches cover the z
  // strips. GPUs: flux and update launches over every box.
  constexpr bool fused = Dim == 2 && backend::uses_row_paths<ExecSpace>();
  const backend::Box rows{cuts.z[1], cuts.z[2], 0, 1, 0, st.nx};
  bool fuse = false;
  if constexpr (fused) fuse = !rows.empty() && vd::FusedStep<T, Order>::fits(st);
  // The boxes the flux and update launches take: all, or those of the z strips.
  const auto strips = [&](auto launch) {
    if (!fuse) return launch(cuts);
    backend::BoxCuts top = cuts, bottom = cuts;
    top.z[2] = top.z[3] = cuts.z[1];
    bottom.z[0] = bottom.z[1] = cuts.z[2];
    launch(top);
    launch(bottom);
  };
  strips([&](const backend::BoxCuts& c) {
    launch_boxes<vd::Flux, T, Order, Dim>("pwave::physics::acoustic_vd::flux", exec, count, c, v,
                                          coef);
  });
  if constexpr (fused) {
    if (fuse) {
      backend::for_each_cell_3d(
          "pwave::physics::acoustic_vd::fused_step", exec, count, rows,
          vd::FusedStep<T, Order>{
              v, coef, problem_.boundary.free_surface, rows.z0, rows.z1, {}, {}});
    }
  }
  if (problem_.boundary.free_surface) {
    Kokkos::parallel_for("pwave::physics::acoustic_vd::mirror_flux",
                         Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                             exec, {0, 0}, {count, int(v.flux_z.extent(2))}),
                         vd::MirrorFlux<T>{v.flux_z, st.halo});
  }
  strips([&](const backend::BoxCuts& c) {
    launch_boxes<vd::Update, T, Order, Dim>("pwave::physics::acoustic_vd::update", exec, count, c,
                                            v, coef);
  });
}

/// The step of parity p's fields: the variable-density state over the shared pressure fields
/// (PressureForward), one per parity, built once.
template <class T>
template <int Order, int Dim>
class AcousticPropagator<T>::VariableDensityForward : public PressureForward {
 public:
  using State = physics::AcousticState<T>;
  VariableDensityForward(const AcousticPropagator& prop, const Traces<T>& traces)
      : PressureForward(prop, traces),
        prop_(prop),
        coef_(prop.template coefficients<physics::acoustic_vd::Coefficients<T, Order>, Dim>()),
        even_(over(prop.vd_, this->fields(0))),
        odd_(over(prop.vd_, this->fields(1))) {}
  VariableDensityForward(const VariableDensityForward&) = delete;
  VariableDensityForward& operator=(const VariableDensityForward&) = delete;

  void step(const ExecSpace& exec, int count, int p) const {
    prop_.template step_vd<Order, Dim>(exec, count, p == 0 ? even_ : odd_, coef_);
  }

 private:
  static physics::acoustic_vd::State<T> over(const physics::acoustic_vd::State<T>& vd,
                                             const State& fields) {
    physics::acoustic_vd::State<T> v = vd;
    v.st = fields;
    return v;
  }
  const AcousticPropagator& prop_;
  const physics::acoustic_vd::Coefficients<T, Order> coef_;
  const physics::acoustic_vd::State<T> even_, odd_;
};

PWAVE_INSTANTIATE_FORWARD(physics::acoustic_vd::Physics)

#define PWAVE_INSTANTIATE_VD_STEP(T, O, D)                          \
  template void AcousticPropagator<T>::step_vd<O, D>(               \
      const ExecSpace&, int, const physics::acoustic_vd::State<T>&, \
      const physics::acoustic_vd::Coefficients<T, O>&) const;
#define PWAVE_INSTANTIATE_VD_STEP_ORDERS(T, D) \
  PWAVE_INSTANTIATE_VD_STEP(T, 2, D)           \
  PWAVE_INSTANTIATE_VD_STEP(T, 4, D)           \
  PWAVE_INSTANTIATE_VD_STEP(T, 6, D)           \
  PWAVE_INSTANTIATE_VD_STEP(T, 8, D)
#define PWAVE_INSTANTIATE_VD_MATERIAL(T)                                \
  template void AcousticPropagator<T>::set_density(const GridView<T>&); \
  template void AcousticPropagator<T>::rebuild_vd_material();           \
  PWAVE_INSTANTIATE_VD_STEP_ORDERS(T, 2)                                \
  PWAVE_INSTANTIATE_VD_STEP_ORDERS(T, 3)
PWAVE_INSTANTIATE_VD_MATERIAL(float)
PWAVE_INSTANTIATE_VD_MATERIAL(double)

}  // namespace pwave
