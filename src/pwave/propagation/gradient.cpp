#include "pwave/propagation/gradient.hpp"

#include "pwave/core/error.hpp"
#include "pwave/parallel/allreduce.hpp"
#include "pwave/parallel/reproducible_sum.hpp"
#include "pwave/parallel/shot_plan.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/shot_gradient.hpp"

namespace pwave {
namespace {

/// For each model cell, sums dJ/dw over the padded cells that copy it (itself, plus the CPML
/// cells beyond it when it lies on an edge) and applies dw/dvp = 2 vp dt^2.
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
    out(mz, mq) = sum * two_dt2 * vp(mz, mq);
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

namespace {

void check_observed_shape(const ForwardProblem& problem, std::size_t s, std::size_t r,
                          std::size_t n, int nrec) {
  const int nshots = int(problem.shots.size());
  if (s != std::size_t(nshots) || r != std::size_t(nrec) || n != std::size_t(problem.nt)) {
    throw InputError("observed", "",
                     "has shape [" + std::to_string(s) + ", " + std::to_string(r) + ", " +
                         std::to_string(n) + "] but the acquisition needs [" +
                         std::to_string(nshots) + ", " + std::to_string(nrec) + ", " +
                         std::to_string(problem.nt) + "]");
  }
}

}  // namespace

template <class T>
GradientResult<T> misfit_gradient(const ForwardProblem& problem, const ObservedTraces& observed,
                                  const StorageOptions& storage, const ProgressCallback& progress,
                                  const parallel::Communicator& comm,
                                  const misfit::Options& misfit) {
  // Each rank takes a contiguous share of the shots and propagates it in chunks of at most
  // shot_batch shots; misfits and per-shot imaging are summed in shot order (ShotGradient), so
  // the result is bitwise the same for any number of ranks and any shot_batch.
  const int nshots = int(problem.shots.size());
  std::vector<int> all(static_cast<std::size_t>(nshots));
  for (int s = 0; s < nshots; ++s) all[s] = s;
  const parallel::ShotPlan plan = parallel::plan_shots(all, comm.rank(), comm.size());
  const int share = (nshots + comm.size() - 1) / comm.size();
  const int chunk = problem.shot_batch > 0 ? std::min(problem.shot_batch, share) : share;
  AcousticPropagator<T> prop(problem, chunk);
  const int nrec = prop.max_receivers();
  check_observed_shape(problem, observed.shots(), observed.receivers(), observed.samples(), nrec);
  ShotGradient<T> shots(prop, observed, share, storage, parallel::choose_allreduce_path().path,
                        comm, misfit);

  GradientResult<T> out;
  out.synthetic = HostArray3<T>("pwave::synthetic", nshots, nrec, problem.nt);
  typename ShotGradient<T>::Hooks hooks;
  hooks.progress = progress;
  hooks.synthetic = [&](const Traces<T>& syn, int first, int count) {
    const int s0 = plan.shots[first];  // a share is a run of consecutive shots
    Kokkos::deep_copy(
        Kokkos::subview(out.synthetic, std::make_pair(s0, s0 + count), Kokkos::ALL, Kokkos::ALL),
        Kokkos::subview(syn, std::make_pair(0, count), Kokkos::ALL, Kokkos::ALL));
  };
  std::vector<long> keys;
  for (int s : plan.shots) keys.push_back(s);
  out.misfit = shots.evaluate(plan.shots, keys, hooks);
  out.dead_traces = shots.dead_traces();
  if (progress && plan.empty()) progress(1, 1);

  const Grid& g = problem.model.grid;
  out.gradient = HostArray2<T>("pwave::gradient_host", g.nz, g.ny * g.nx);  // [nz][ny nx] in 3D
  if (prop.imaging_channels() > 1) {
    const GridView<T> grad_vp("pwave::grad_vp", g.nz, g.ny * g.nx);
    const GridView<T> grad_rho("pwave::grad_rho", g.nz, g.ny * g.nx);
    prop.model_gradients(shots.imaging(), grad_vp, grad_rho);
    out.gradient_rho = HostArray2<T>("pwave::gradient_rho_host", g.nz, g.ny * g.nx);
    Kokkos::deep_copy(out.gradient, grad_vp);
    Kokkos::deep_copy(out.gradient_rho, grad_rho);
  } else {
    GridView<T> grad_w("pwave::grad_w", prop.padded_nz(), prop.padded_plane());
    prop.add_imaging(shots.imaging(), grad_w);
    Kokkos::deep_copy(out.gradient, fold_to_model(problem, grad_w));
  }
  if (comm.size() > 1) {
    // Every rank returns every shot's traces: its own rows to the others, in shot order.
    const std::size_t per_shot = std::size_t(nrec) * std::size_t(problem.nt);
    const T* mine = out.synthetic.data() + std::size_t(plan.empty() ? 0 : plan.shots[0]) * per_shot;
    const std::vector<double> local(mine, mine + std::size_t(plan.count) * per_shot);
    const std::vector<double> traces = comm.allgatherv(local);
    for (std::size_t i = 0; i < traces.size() && i < out.synthetic.size(); ++i) {
      out.synthetic.data()[i] = T(traces[i]);
    }
  }
  return out;
}

template <class T>
GradientResult<T> misfit_gradient(const ForwardProblem& problem, const HostArray3<T>& observed,
                                  const StorageOptions& storage, const ProgressCallback& progress,
                                  const parallel::Communicator& comm,
                                  const misfit::Options& misfit) {
  return misfit_gradient<T>(problem, ObservedArray<T>(observed), storage, progress, comm, misfit);
}

template GradientResult<float> misfit_gradient<float>(const ForwardProblem&, const ObservedTraces&,
                                                      const StorageOptions&,
                                                      const ProgressCallback&,
                                                      const parallel::Communicator&,
                                                      const misfit::Options&);
template GradientResult<double> misfit_gradient<double>(
    const ForwardProblem&, const ObservedTraces&, const StorageOptions&, const ProgressCallback&,
    const parallel::Communicator&, const misfit::Options&);
template GradientResult<float> misfit_gradient<float>(
    const ForwardProblem&, const HostArray3<float>&, const StorageOptions&, const ProgressCallback&,
    const parallel::Communicator&, const misfit::Options&);
template GradientResult<double> misfit_gradient<double>(
    const ForwardProblem&, const HostArray3<double>&, const StorageOptions&,
    const ProgressCallback&, const parallel::Communicator&, const misfit::Options&);
template GridView<float> fold_to_model(const ForwardProblem&, const GridView<float>&);
template void fold_to_model(const ForwardProblem&, const GridView<float>&, const GridView<float>&,
                            const GridView<float>&);
template void fold_to_model(const ForwardProblem&, const GridView<double>&, const GridView<double>&,
                            const GridView<double>&);
template GridView<double> fold_to_model(const ForwardProblem&, const GridView<double>&);

}  // namespace pwave
