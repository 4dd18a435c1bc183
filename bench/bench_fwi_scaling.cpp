// FWI scaling benchmark over MPI ranks: time per iteration, parallel efficiency against one
// rank, and the share of an iteration spent in the cross-rank sums (misfit + gradient).
//
//   mpirun -np N bench_fwi_scaling [--nz 188] [--nx 576] [--nt 1500] [--shots 8] [--batch 8]
//                                  [--iterations 3] [--order 8] [--csv file]
//
// Every rank runs the same inversion; rank 0 prints. bench/run_scaling.sh runs it on 1 and 2
// ranks and prints the parallel efficiency. (--reference 1 also times one rank in-process after
// the N-rank run, but idle MPI ranks busy-poll, which skews it on small machines.)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "backends/host_pages.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/log.hpp"
#include "pwave/inversion/fwi.hpp"
#include "pwave/parallel/communicator.hpp"
#include "pwave/propagation/forward.hpp"

namespace {

struct Options {
  int nz = 188, nx = 576, nt = 1500, shots = 8, batch = 8, iterations = 3, order = 8;
  int reference = 0;
  std::string csv;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (k == "--nz")
      o.nz = v;
    else if (k == "--nx")
      o.nx = v;
    else if (k == "--nt")
      o.nt = v;
    else if (k == "--shots")
      o.shots = v;
    else if (k == "--batch")
      o.batch = v;
    else if (k == "--iterations")
      o.iterations = v;
    else if (k == "--order")
      o.order = v;
    else if (k == "--reference")
      o.reference = v;
    else if (k == "--csv")
      o.csv = argv[i + 1];
  }
  return o;
}

pwave::FwiConfig make_config(const Options& o) {
  pwave::FwiConfig c;
  const double h = 16.0, v = 2500.0, f = 6.0;
  auto& p = c.problem;
  p.model = pwave::constant_model(pwave::Grid{o.nz, o.nx, h, h}, v);
  p.dt = 0.0015;
  p.nt = o.nt;
  p.order = o.order;
  p.peak_frequency = f;
  p.wavelet = pwave::ricker(f, 1.5 / f, p.dt, p.nt);
  p.check_interval = 0;
  for (int s = 0; s < o.shots; ++s) {
    pwave::ShotGeometry g;
    g.source = {h * int((s + 0.5) * (o.nx - 1) / o.shots), 2 * h};
    for (int r = 0; r < o.nx; r += 2) g.receivers.push_back({h * r, h});
    p.shots.push_back(g);
  }
  c.stages = {pwave::StageConfig{o.iterations, 0.0}};
  c.batch_size = o.batch;
  c.vmin = 1500.0, c.vmax = 3500.0;
  c.checkpoint_every = 0;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  pwave::backend::request_huge_pages(argv);  // first: may re-execute the program
  pwave::parallel::Environment mpi(argc, argv);
  pwave::parallel::Communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options o = parse(argc, argv);
  pwave::FwiConfig c = make_config(o);
  pwave::ForwardProblem truth = c.problem;
  for (int iz = o.nz / 2; iz < o.nz; ++iz)
    for (int ix = 0; ix < o.nx; ++ix) truth.model.vp[std::size_t(iz) * o.nx + ix] = 3000.0;
  const auto observed = pwave::forward_model<float>(truth);
  pwave::log::set_quiet(!world.is_root());

  const pwave::FwiResult r = pwave::run_fwi<float>(c, observed, world);
  double reference = 0;
  if (o.reference && world.size() > 1 && world.is_root()) {
    reference = pwave::run_fwi<float>(c, observed, pwave::parallel::Communicator::self()).seconds;
  }
  if (world.is_root()) {
    const double per_it = r.seconds / o.iterations;
    std::printf(
        "# pwave bench_fwi_scaling: %d x %d, nt %d, order %d, %d shots, batch %d, %d iterations\n",
        o.nz, o.nx, o.nt, o.order, o.shots, o.batch, o.iterations);
    std::printf("%6s %14s %14s %12s %14s\n", "ranks", "s/iteration", "1-rank s/it", "efficiency",
                "reduce share");
    const double ref_it = reference > 0 ? reference / o.iterations : per_it;
    std::printf("%6d %14.3f %14.3f %12.2f %13.2f%%\n", world.size(), per_it, ref_it,
                ref_it / (per_it * world.size()), 100.0 * r.reduce_seconds / r.seconds);
    if (!o.csv.empty()) {
      FILE* f = std::fopen(o.csv.c_str(), "w");
      std::fprintf(
          f,
          "ranks,seconds_per_iteration,one_rank_seconds_per_iteration,efficiency,reduce_share\n");
      std::fprintf(f, "%d,%.6f,%.6f,%.4f,%.6f\n", world.size(), per_it, ref_it,
                   ref_it / (per_it * world.size()), r.reduce_seconds / r.seconds);
      std::fclose(f);
    }
  }
  return 0;
}
