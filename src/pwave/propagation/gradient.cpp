#include "pwave/propagation/gradient.hpp"

#include "pwave/core/error.hpp"
#include "pwave/parallel/allreduce.hpp"
#include "pwave/parallel/reproducible_sum.hpp"
#include "pwave/parallel/shot_plan.hpp"
#include "pwave/propagation/propagator.hpp"
#include "pwave/propagation/shot_gradient.hpp"

namespace pwave {
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
  const std::unique_ptr<Propagator<T>> made = make_propagator<T>(problem, chunk);
  Propagator<T>& prop = *made;
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
  // Every parameter of the equation (Propagator::model_gradients).
  ParameterGrids<T> grads;
  for (const physics::Parameter p : physics::all_parameters) {
    if (physics::has_parameter(problem.equation, p))
      grads[p] = GridView<T>(std::string("pwave::gradient_") + physics::name(p), g.nz, g.ny * g.nx);
  }
  prop.model_gradients(shots.imaging(), grads);
  Kokkos::deep_copy(out.gradient, grads[physics::Parameter::vp]);
  out.of(physics::Parameter::vp) = out.gradient;
  for (const physics::Parameter p : physics::all_parameters) {
    if (p == physics::Parameter::vp || !grads.has(p)) continue;
    out.of(p) = HostArray2<T>(std::string("pwave::gradient_") + physics::name(p) + "_host", g.nz,
                              g.ny * g.nx);
    Kokkos::deep_copy(out.of(p), grads[p]);
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

}  // namespace pwave
