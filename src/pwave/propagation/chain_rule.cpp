#include "pwave/propagation/chain_rule.hpp"

#include <string>

#include "pwave/core/error.hpp"
#include "pwave/physics/equation.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

namespace pwave {

namespace {

/// For each model cell, sums dJ/dw over the padded cells that copy it (itself, plus the CPML
/// cells beyond it when it lies on an edge) and applies dw/dvp = 2 vp dt^2 (none without vp).
/// 3D grids use the plane index q = iy nx + ix on both grids (ny = 1 and no y pads in 2D).
template <class T>
struct FoldGradient {
  GridView<T> out, grad_w, vp;
  int nz, nx, pad_top, pad_left, padded_nz, padded_nx;
  T two_dt2;
  int ny = 1, pad_front = 0, padded_ny = 1;
  KOKKOS_INLINE_FUNCTION void operator()(int mz, int mq) const {
    const int my = mq / nx, mx = mq % nx;
    const int z_lo = mz == 0 ? 0 : mz + pad_top;
    const int z_hi = mz == nz - 1 ? padded_nz : mz + pad_top + 1;
    const int x_lo = mx == 0 ? 0 : mx + pad_left;
    const int x_hi = mx == nx - 1 ? padded_nx : mx + pad_left + 1;
    const int y_lo = my == 0 ? 0 : my + pad_front;
    const int y_hi = my == ny - 1 ? padded_ny : my + pad_front + 1;
    T sum = 0;
    for (int z = z_lo; z < z_hi; ++z)
      for (int y = y_lo; y < y_hi; ++y)
        for (int x = x_lo; x < x_hi; ++x) sum += grad_w(z, y * padded_nx + x);
    out(mz, mq) = vp.extent(0) > 0 ? sum * two_dt2 * vp(mz, mq) : sum;
  }
};

}  // namespace

template <class T>
void fold_to_model(const ForwardProblem& p, const GridView<T>& grad_w, const GridView<T>& vp,
                   const GridView<T>& out) {
  const Grid& g = p.model.grid;
  const int pad_front = g.is_3d() ? p.boundary.width[front] : 0;
  const int padded_ny = g.is_3d() ? g.ny + pad_front + p.boundary.width[back] : 1;
  const int padded_nx = g.nx + p.boundary.width[left] + p.boundary.width[right];
  Kokkos::parallel_for(
      "pwave::propagation::fold_gradient",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {g.nz, g.ny * g.nx}),
      FoldGradient<T>{out, grad_w, vp, g.nz, g.nx, p.boundary.width[top], p.boundary.width[left],
                      int(grad_w.extent(0)), padded_nx, T(2 * p.dt * p.dt), g.ny, pad_front,
                      padded_ny});
}

template <class T>
void fold_padding(const ForwardProblem& p, const GridView<T>& padded, const GridView<T>& out) {
  fold_to_model(p, padded, GridView<T>(), out);
}

template <class T>
GridView<T> fold_to_model(const ForwardProblem& p, const GridView<T>& grad_w) {
  const Grid& g = p.model.grid;
  GridView<T> vp("pwave::vp", g.nz, g.ny * g.nx);
  auto hv = host_mirror_uninit(vp);
  for (int iz = 0; iz < g.nz; ++iz)
    for (int q = 0; q < g.ny * g.nx; ++q)
      hv(iz, q) = T(p.model.vp[std::size_t(iz) * g.ny * g.nx + q]);
  Kokkos::deep_copy(vp, hv);
  GridView<T> out("pwave::gradient", g.nz, g.ny * g.nx);
  fold_to_model(p, grad_w, vp, out);
  return out;
}

template <class T>
void AcousticPropagator<T>::model_gradients(const GridView<T>& imaging,
                                            const ParameterGrids<T>& grads) const {
  const Grid& g = problem_.model.grid;
  const int channels = imaging_channels();
  if (int(imaging.extent(0)) != channels * st_.nz || int(imaging.extent(1)) != padded_plane()) {
    throw RuntimeError("AcousticPropagator::model_gradients: the imaging is " +
                       std::to_string(imaging.extent(0)) + " x " +
                       std::to_string(imaging.extent(1)) + ", expected " +
                       std::to_string(channels * st_.nz) + " x " + std::to_string(padded_plane()));
  }
  for (const physics::Parameter p : physics::all_parameters) {
    if (!grads.has(p)) continue;
    if (!physics::has_parameter(problem_.equation, p)) {
      throw RuntimeError(std::string("AcousticPropagator::model_gradients: the ") +
                         physics::name(problem_.equation) + " equation has no " + physics::name(p));
    }
    if (int(grads[p].extent(0)) != g.nz || int(grads[p].extent(1)) != g.ny * g.nx) {
      throw RuntimeError(std::string("AcousticPropagator::model_gradients: the gradient of ") +
                         physics::name(p) + " must be the model grid [nz][ny nx]");
    }
  }
  using physics::Parameter;
  if (channels == 1) {
    // Constant density: dJ/dw = imaging / w^2 on the padded grid, folded with 2 vp dt^2.
    if (!grads.has(Parameter::vp)) return;
    if (grad_w_.extent(0) == 0) grad_w_ = GridView<T>("pwave::grad_w", st_.nz, padded_plane());
    Kokkos::deep_copy(grad_w_, T(0));
    add_imaging(imaging, grad_w_);
    fold_to_model(problem_, grad_w_, vp_, grads[Parameter::vp]);
    Kokkos::fence();
    return;
  }
  const GridView<T> grad_vp = grads[Parameter::vp], grad_rho = grads[Parameter::rho];
  const bool want_vp = grads.has(Parameter::vp), want_rho = grads.has(Parameter::rho);
  const GridView<T> v2dt2 = st_.v2dt2;
  const GridView<T> w = vd_.w;
  const GridView<T> rho = rho_pad_;
  const int* wd = problem_.boundary.width;
  const int pad_top = wd[top], pad_left = wd[left], pad_front = g.is_3d() ? wd[front] : 0;
  const int nz = g.nz, nx = g.nx, ny = g.ny;
  const int pnz = st_.nz, pnx = st_.nx, pny = st_.ny;
  const T dt = T(problem_.dt);
  // Variable density: w = rho v^2 dt^2 and b = 1/rho both depend on rho; dJ/dvp at fixed rho.
  Kokkos::parallel_for(
      "pwave::propagation::model_gradients",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {nz, ny * nx}),
      KOKKOS_LAMBDA(const int mz, const int mq) {
        const int my = mq / nx, mx = mq % nx;
        // The padded cells that copy model cell (mz, my, mx).
        const int z_lo = mz == 0 ? 0 : mz + pad_top;
        const int z_hi = mz == nz - 1 ? pnz : mz + pad_top + 1;
        const int x_lo = mx == 0 ? 0 : mx + pad_left;
        const int x_hi = mx == nx - 1 ? pnx : mx + pad_left + 1;
        const int y_lo = my == 0 ? 0 : my + pad_front;
        const int y_hi = my == ny - 1 ? pny : my + pad_front + 1;
        T gv = 0, gr = 0;
        for (int z = z_lo; z < z_hi; ++z)
          for (int y = y_lo; y < y_hi; ++y)
            for (int x = x_lo; x < x_hi; ++x) {
              const int q = y * pnx + x;
              const T ww = w(z, q);
              const T dj_dw = imaging(z, q) / (ww * ww);
              // dw/dv = 2 w / v.
              const T v = math::sqrt(v2dt2(z, q)) / dt;
              gv += dj_dw * T(2) * ww / v;
              const T r = rho(z, q);
              gr += dj_dw * v2dt2(z, q) - imaging(z + pnz, q) / (r * r);
            }
        if (want_vp) grad_vp(mz, mq) = gv;
        if (want_rho) grad_rho(mz, mq) = gr;
      });
  Kokkos::fence();
}

template void fold_to_model(const ForwardProblem&, const GridView<float>&, const GridView<float>&,
                            const GridView<float>&);
template void fold_to_model(const ForwardProblem&, const GridView<double>&, const GridView<double>&,
                            const GridView<double>&);
template void fold_padding(const ForwardProblem&, const GridView<float>&, const GridView<float>&);
template void fold_padding(const ForwardProblem&, const GridView<double>&, const GridView<double>&);
template GridView<float> fold_to_model(const ForwardProblem&, const GridView<float>&);
template GridView<double> fold_to_model(const ForwardProblem&, const GridView<double>&);
template void AcousticPropagator<float>::model_gradients(const GridView<float>&,
                                                         const ParameterGrids<float>&) const;
template void AcousticPropagator<double>::model_gradients(const GridView<double>&,
                                                          const ParameterGrids<double>&) const;

}  // namespace pwave
