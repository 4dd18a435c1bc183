// The benchmark table of pwave: forward and gradient runs in 2D and 3D, several orders, sizes
// and shot-batch sizes, one line per case, against the memory roofline measured in the same run.
//
//   bench_suite [--dims 2,3] [--orders 4,8] [--sizes2d 1000,2000] [--sizes3d 100,160]
//               [--shots 1,4] [--nt 100] [--cpml 20] [--reps 3] [--precision float32|float64]
//               [--gradient on|off] [--storage boundary|checkpoint|full]
//               [--stride N] [--compression none|bf16|int8] (with --storage full)
//               [--interior3d cells|z_march] [--free-surface off|on] [--wavefront-steps N]
//               [--equation acoustic|acoustic_variable_density|elastic] [--csv file]
//               [--json file] [--stream-reads off|on]
//
// Columns (see bench/README.md):
//   Gcell/s    padded-grid cell updates (model + CPML) x shots x steps / best wall time
//   B/update   the compulsory traffic of an update averaged over the padded grid: 4 values for
//              an interior cell (read u^n, u^{n-1}, v^2 dt^2, write u^{n+1}), 4 more per CPML
//              axis whose strip holds the cell (read psi, write psi', read and write zeta);
//              variable density (constant rho 2000 kg/m^3) reads its material in place of
//              v^2 dt^2 (interior_values below); elastic (vp 2500, vs 1400, rho 2000): the
//              two launches read the velocities, the stresses and their coefficients and write
//              what they update, 20 values in 2D and 35 in 3D, and 4 per strip memory variable
//              (2 dim of them per axis)
//   roofline   Gcell/s x the interior update's bytes (16 B in float32 for constant density) /
//              STREAM copy bandwidth of this run: the fraction of the memory-bound limit of
//              the interior update
//   grad/fwd   time of a gradient (forward keeping the `--storage` history + adjoint + imaging)
//              over the time of a plain forward run of the same shots; storage default: boundary
//              (elastic: checkpoint; it has checkpoint and full)
//   --stream-reads on: after the table, the bandwidth of reading 1, 2, 4, 6, 8, 10, 12 and 16
//   arrays at
//              once into one more (bench/stream_copy.hpp StreamReads): a kernel that streams
//              as many arrays as an elastic update (12 to 15) may not reach the copy's rate
//   MB         device memory the propagator holds (wavefields, v^2 dt^2, CPML memory variables,
//              plus the boundary history for the gradient); `rss_MB` the process high-water mark

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/host_pages.hpp"
#include "int_list.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/types.hpp"
#include "pwave/core/version.hpp"
#include "pwave/physics/equation.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "pwave/propagation/propagator.hpp"
#include "stream_copy.hpp"

namespace {

using pwave::bench::int_list;

struct Options {
  std::vector<int> dims{2, 3}, orders{4, 8}, sizes2d{1000, 2000}, sizes3d{100, 160}, shots{1, 4};
  int nt = 100, cpml = 20, reps = 3;
  bool gradient = true;
  bool free_surface = false;  ///< --free-surface on: boundary.free_surface, no top CPML
  std::string
      storage;     ///< --storage; empty: the equation's default (boundary; elastic: checkpoint)
  int stride = 1;  ///< --stride (full)
  pwave::Compression compression = pwave::Compression::none;      ///< --compression (full)
  pwave::Interior3D interior_3d = pwave::Interior3D::cells;       ///< execution.interior_3d
  int wavefront_steps = pwave::ForwardProblem().wavefront_steps;  ///< execution.wavefront_steps
  pwave::physics::Equation equation = pwave::physics::Equation::acoustic;  ///< physics.equation
  std::string precision = "float32", csv, json;
  bool stream_reads = false;  ///< --stream-reads on: the bandwidth by arrays read at once
};

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "%s\nusage: bench_suite [--dims 2,3] [--orders 4,8] [--sizes2d 1000,2000]\n"
               "         [--sizes3d 100,160] [--shots 1,4] [--nt 100] [--cpml 20] [--reps 3]\n"
               "         [--precision float32|float64] [--gradient on|off]\n"
               "         [--storage boundary|checkpoint|full] [--interior3d cells|z_march]\n"
               "         [--stride N] [--compression none|bf16|int8] [--free-surface off|on]\n"
               "         [--wavefront-steps N]\n"
               "         [--equation acoustic|acoustic_variable_density|elastic] [--csv file] "
               "[--json file] [--stream-reads off|on]\n",
               msg.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) usage("missing value for " + k);
    const std::string v = argv[i + 1];
    if (k == "--dims")
      o.dims = int_list(v);
    else if (k == "--orders")
      o.orders = int_list(v);
    else if (k == "--sizes2d")
      o.sizes2d = int_list(v);
    else if (k == "--sizes3d")
      o.sizes3d = int_list(v);
    else if (k == "--shots")
      o.shots = int_list(v);
    else if (k == "--nt")
      o.nt = std::atoi(v.c_str());
    else if (k == "--cpml")
      o.cpml = std::atoi(v.c_str());
    else if (k == "--reps")
      o.reps = std::max(1, std::atoi(v.c_str()));
    else if (k == "--precision")
      o.precision = v;
    else if (k == "--gradient")
      o.gradient = v == "on";
    else if (k == "--free-surface" && (v == "on" || v == "off"))
      o.free_surface = v == "on";
    else if (k == "--storage" && (v == "boundary" || v == "checkpoint" || v == "full"))
      o.storage = v;
    else if (k == "--stride" && std::atoi(v.c_str()) >= 1)
      o.stride = std::atoi(v.c_str());
    else if (k == "--compression" && (v == "none" || v == "bf16" || v == "int8"))
      o.compression = v == "bf16"   ? pwave::Compression::bf16
                      : v == "int8" ? pwave::Compression::int8
                                    : pwave::Compression::none;
    else if (k == "--interior3d" && (v == "cells" || v == "z_march"))
      o.interior_3d = v == "z_march" ? pwave::Interior3D::z_march : pwave::Interior3D::cells;
    else if (k == "--wavefront-steps" && std::atoi(v.c_str()) >= 1)
      o.wavefront_steps = std::atoi(v.c_str());
    else if (k == "--equation" && pwave::physics::parse_equation(v, o.equation))
      ;
    else if (k == "--stream-reads" && (v == "on" || v == "off"))
      o.stream_reads = v == "on";
    else if (k == "--csv")
      o.csv = v;
    else if (k == "--json")
      o.json = v;
    else
      usage("unknown option " + k);
  }
  if (o.precision != "float32" && o.precision != "float64") usage("precision: float32 or float64");
  if (o.nt < 1) usage("--nt must be at least 1");
  if (o.storage.empty())
    o.storage = o.equation == pwave::physics::Equation::elastic ? "checkpoint" : "boundary";
  return o;
}

template <class F>
double seconds(F&& f) {
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) best = std::min(best, seconds(f));
  return best;
}

/// The roofline's bandwidth (bench/stream_copy.hpp): bytes read + written per second.
template <class T>
double copy_bandwidth() {
  const pwave::bench::StreamCopy<T> copy;
  return copy.bytes() / best_of(copy.runs, copy);
}

/// --stream-reads on: GB/s of StreamReads for each of its array counts, one line.
template <class T>
void print_stream_reads() {
  const pwave::bench::StreamReads<T> reads;
  std::printf("# arrays read at once (+1 written), GB/s:");
  for (const int k : reads.counts) {
    const double s = best_of(reads.runs, [&] { reads(k); });
    std::printf(" %d: %.1f", k, reads.bytes(k) / s * 1e-9);
  }
  std::printf("\n");
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // kilobytes on Linux
}

struct Case {
  int dim, n, order, shots;
};

struct Result {
  Case c;
  long padded_cells = 0;
  double forward_s = 0, gradient_s = 0, gcells = 0, bytes_per_update = 0, roofline = 0;
  double state_mb = 0, history_mb = 0, rss_mb = 0;
};

pwave::ForwardProblem problem(const Case& c, const Options& o) {
  pwave::ForwardProblem p;
  const double h = 10.0, v = 2500.0, f = 10.0;
  pwave::Grid g{c.n, c.n, h, h};
  if (c.dim == 3) g.ny = c.n, g.dy = h, g.dimension = 3;
  p.model = pwave::constant_model(g, v);
  p.equation = o.equation;
  if (o.equation != pwave::physics::Equation::acoustic)
    p.model.rho.assign(p.model.vp.size(), 2000.0);
  if (o.equation == pwave::physics::Equation::elastic) p.model.vs.assign(p.model.vp.size(), 1400.0);
  p.dt = 0.5 * pwave::physics::max_stable_dt(c.order, v, h, h, c.dim == 3 ? h : 0.0);
  p.nt = o.nt;
  p.order = c.order;
  for (int s = 0; s < pwave::num_sides; ++s) p.boundary.width[s] = o.cpml;
  if (o.free_surface) {
    p.boundary.free_surface = true;
    p.boundary.width[int(pwave::Side::top)] = 0;
  }
  p.peak_frequency = f;
  p.wavelet = pwave::ricker(f, 1.5 / f, p.dt, p.nt);
  p.check_interval = 0;  // the propagator, not the NaN check
  p.interior_3d = o.interior_3d;
  p.wavefront_steps = o.wavefront_steps;
  const double mid = h * (c.n / 2);
  for (int s = 0; s < c.shots; ++s) {
    pwave::ShotGeometry shot;
    shot.source.x = mid, shot.source.z = 2 * h, shot.source.y = c.dim == 3 ? mid : 0.0;
    for (int r = 0; r < c.n; r += 4) {
      pwave::Position rec;
      rec.x = h * r, rec.z = h, rec.y = shot.source.y;
      shot.receivers.push_back(rec);
    }
    p.shots.push_back(shot);
  }
  return p;
}

/// Values an interior cell update reads or writes at least once: u^n, u^{n-1} and u^{n+1}
/// over it, and the material. Constant density: v^2 dt^2. Variable density: w = rho v^2 dt^2
/// and the half-point buoyancy of each axis (beta_x, beta_z [, beta_y]).
double interior_values(const Case& c, pwave::physics::Equation e) {
  if (e == pwave::physics::Equation::elastic) return c.dim == 3 ? 35.0 : 20.0;
  return e == pwave::physics::Equation::acoustic_variable_density ? 4.0 + c.dim : 4.0;
}

/// Compulsory bytes per update averaged over the padded grid (see the header comment).
double bytes_per_update(const Case& c, pwave::physics::Equation e, int cpml, int value_bytes) {
  const double n = c.n, w = 2.0 * cpml, total = n + w;
  const double in_strip = w / total;  // fraction of cells in one axis' strips
  const int axes = c.dim;
  const double per_axis = e == pwave::physics::Equation::elastic ? 4.0 * axes : 4.0;
  return value_bytes * (interior_values(c, e) + per_axis * axes * in_strip);
}

template <class V>
double mb(const V& v) {
  return double(v.span()) * sizeof(typename V::value_type) / 1e6;
}

/// The gradient's storage (--storage; full's --stride and --compression).
pwave::StorageOptions storage_of(const Options& o) {
  pwave::StorageOptions s = o.storage == "full"         ? pwave::Storage::full
                            : o.storage == "checkpoint" ? pwave::Storage::checkpoint
                                                        : pwave::Storage::boundary;
  if (s.strategy == pwave::Storage::full) s.stride = o.stride, s.compression = o.compression;
  return s;
}

/// An equation with its own propagator class (elastic), through the Propagator front;
/// state_MB not reported.
template <class T>
Result run_case_front(const Case& c, const Options& o, double bandwidth) {
  Result r;
  r.c = c;
  const pwave::ForwardProblem p = problem(c, o);
  const auto prop = pwave::make_propagator<T>(p);
  const pwave::propagation::PaddedLayout layout = pwave::propagation::PaddedLayout::of(p);
  r.padded_cells = layout.cells();
  const int nrec = prop->max_receivers();
  std::vector<int> shots;
  for (int s = 0; s < c.shots; ++s) shots.push_back(s);
  pwave::Traces<T> traces("traces", c.shots, nrec, o.nt);
  prop->forward(shots, traces);  // warm-up: first touch, page faults
  r.forward_s = best_of(o.reps, [&] { prop->forward(shots, traces); });
  const double updates = double(r.padded_cells) * c.shots * o.nt;
  r.gcells = updates / r.forward_s * 1e-9;
  r.bytes_per_update = bytes_per_update(c, o.equation, o.cpml, int(sizeof(T)));
  r.roofline = updates / r.forward_s * interior_values(c, o.equation) * sizeof(T) / bandwidth;
  if (o.gradient) {
    pwave::Traces<T> residual("residual", c.shots, nrec, o.nt);
    Kokkos::deep_copy(residual, T(1e-3));
    const pwave::StorageOptions storage = storage_of(o);
    auto history = prop->make_history(c.shots, storage);
    r.history_mb = prop->history_bytes_per_shot(storage) * c.shots / 1e6;
    const auto gradient = [&] {
      prop->forward(shots, traces, {}, 0, 0, history);
      prop->adjoint_per_shot(shots, residual, history);
    };
    gradient();  // warm-up: the history's and the backward state's first touch
    r.gradient_s = best_of(std::min(o.reps, 2), gradient);
  }
  r.rss_mb = peak_rss_mb();
  return r;
}

template <class T>
Result run_case(const Case& c, const Options& o, double bandwidth) {
  if (o.equation == pwave::physics::Equation::elastic) return run_case_front<T>(c, o, bandwidth);
  Result r;
  r.c = c;
  const pwave::ForwardProblem p = problem(c, o);
  pwave::AcousticPropagator<T> prop(p);
  const auto& st = prop.state();
  r.padded_cells = long(st.nz) * st.ny * st.nx;
  r.state_mb = mb(st.u_prev) + mb(st.u_cur) + mb(st.v2dt2) + 2 * mb(st.psi_x) + mb(st.zeta_x) +
               2 * mb(st.psi_z) + mb(st.zeta_z) + 2 * mb(st.psi_y) + mb(st.zeta_y);
  const int nrec = prop.max_receivers();
  pwave::Traces<T> traces("traces", c.shots, nrec, o.nt);
  prop.forward(0, c.shots, traces);  // warm-up: first touch, page faults
  r.forward_s = best_of(o.reps, [&] { prop.forward(0, c.shots, traces); });
  const double updates = double(r.padded_cells) * c.shots * o.nt;
  r.gcells = updates / r.forward_s * 1e-9;
  r.bytes_per_update = bytes_per_update(c, o.equation, o.cpml, int(sizeof(T)));
  r.roofline = updates / r.forward_s * interior_values(c, o.equation) * sizeof(T) / bandwidth;
  if (o.gradient) {
    pwave::Traces<T> residual("residual", c.shots, nrec, o.nt);
    Kokkos::deep_copy(residual, T(1e-3));
    // [channels nz][ny nx]: dJ/dw, and for variable density dJ/db below it
    pwave::GridView<T> grad("grad", prop.imaging_rows(), prop.padded_plane());
    const pwave::StorageOptions storage = storage_of(o);
    auto history = prop.make_history(c.shots, storage);
    r.history_mb = prop.history_bytes_per_shot(storage) * c.shots / 1e6;
    const auto gradient = [&] {
      prop.forward(0, c.shots, traces, {}, 0, 0, history);
      prop.adjoint(0, c.shots, residual, history, grad);
    };
    gradient();  // warm-up: the history's and the backward state's first touch
    r.gradient_s = best_of(std::min(o.reps, 2), gradient);
  }
  r.rss_mb = peak_rss_mb();
  return r;
}

template <class T>
int run(const Options& o) {
  const double bw = copy_bandwidth<T>();
  std::printf(
      "# pwave bench_suite %s: %s, %s, Kokkos %s, execution space %s, nt %d, CPML %d%s, best of"
      " %d, 3D interior launch %s, wavefront steps %d (at most: the cache caps 3D and elastic), "
      "gradient storage %s (stride %d, %s)\n",
      pwave::version, pwave::physics::name(o.equation), o.precision.c_str(), pwave::kokkos_version,
      pwave::ExecSpace::name(), o.nt, o.cpml, o.free_surface ? " (free surface on top)" : "",
      o.reps, o.interior_3d == pwave::Interior3D::z_march ? "z_march" : "cells", o.wavefront_steps,
      o.storage.c_str(), o.stride, pwave::to_string(o.compression));
  std::printf("# host huge pages: %s\n", pwave::backend::huge_pages_status().c_str());
  std::printf(
      "# STREAM copy: %.2f GB/s -> roofline %.3f Gcell/s at %d B/update (constant density)\n",
      bw * 1e-9, bw / (4.0 * sizeof(T)) * 1e-9, int(4 * sizeof(T)));
  std::printf("%-4s %-11s %5s %5s %8s %8s %8s %8s %8s %8s %9s %8s %8s\n", "dim", "model", "order",
              "shots", "fwd_s", "Gcell/s", "B/update", "roofline", "grad_s", "grad/fwd", "state_MB",
              "hist_MB", "rss_MB");
  std::vector<Result> results;
  for (int dim : o.dims) {
    for (int n : dim == 3 ? o.sizes3d : o.sizes2d) {
      for (int order : o.orders) {
        for (int shots : o.shots) {
          const Result r = run_case<T>({dim, n, order, shots}, o, bw);
          const std::string model = dim == 3 ? std::to_string(n) + "^3" : std::to_string(n) + "^2";
          std::printf("%-4d %-11s %5d %5d %8.3f %8.3f %8.1f %8.2f ", dim, model.c_str(), order,
                      shots, r.forward_s, r.gcells, r.bytes_per_update, r.roofline);
          if (r.gradient_s > 0) {
            std::printf("%8.3f %8.2f ", r.gradient_s, r.gradient_s / r.forward_s);
          } else {
            std::printf("%8s %8s ", "-", "-");
          }
          std::printf("%9.1f %8.1f %8.0f\n", r.state_mb, r.history_mb, r.rss_mb);
          std::fflush(stdout);
          results.push_back(r);
        }
      }
    }
  }
  if (!o.csv.empty()) {
    FILE* f = std::fopen(o.csv.c_str(), "w");
    if (!f) usage("cannot write " + o.csv);
    std::fprintf(f,
                 "equation,dim,n,order,shots,nt,cpml,precision,padded_cells,forward_s,gcells_per_s,"
                 "bytes_per_update,roofline_fraction,gradient_s,gradient_over_forward,state_mb,"
                 "history_mb,rss_mb,copy_gb_per_s\n");
    for (const Result& r : results) {
      std::fprintf(
          f, "%s,%d,%d,%d,%d,%d,%d,%s,%ld,%.6f,%.6f,%.2f,%.4f,%.6f,%.4f,%.3f,%.3f,%.1f,%.3f\n",
          pwave::physics::name(o.equation), r.c.dim, r.c.n, r.c.order, r.c.shots, o.nt, o.cpml,
          o.precision.c_str(), r.padded_cells, r.forward_s, r.gcells, r.bytes_per_update,
          r.roofline, r.gradient_s, r.gradient_s > 0 ? r.gradient_s / r.forward_s : 0.0, r.state_mb,
          r.history_mb, r.rss_mb, bw * 1e-9);
    }
    std::fclose(f);
  }
  if (!o.json.empty()) {
    FILE* f = std::fopen(o.json.c_str(), "w");
    if (!f) usage("cannot write " + o.json);
    std::fprintf(f,
                 "{\"version\": \"%s\", \"equation\": \"%s\", \"kokkos\": \"%s\", "
                 "\"execution_space\": \"%s\", "
                 "\"precision\": \"%s\", \"nt\": %d, \"cpml\": %d, \"copy_gb_per_s\": %.3f, "
                 "\"cases\": [",
                 pwave::version, pwave::physics::name(o.equation), pwave::kokkos_version,
                 pwave::ExecSpace::name(), o.precision.c_str(), o.nt, o.cpml, bw * 1e-9);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      std::fprintf(f,
                   "%s\n  {\"dim\": %d, \"n\": %d, \"order\": %d, \"shots\": %d, "
                   "\"padded_cells\": %ld, \"forward_s\": %.6f, \"gcells_per_s\": %.6f, "
                   "\"bytes_per_update\": %.2f, \"roofline_fraction\": %.4f, \"gradient_s\": %s, "
                   "\"gradient_over_forward\": %s, \"state_mb\": %.3f, \"history_mb\": %.3f, "
                   "\"rss_mb\": %.1f}",
                   i ? "," : "", r.c.dim, r.c.n, r.c.order, r.c.shots, r.padded_cells, r.forward_s,
                   r.gcells, r.bytes_per_update, r.roofline,
                   r.gradient_s > 0 ? std::to_string(r.gradient_s).c_str() : "null",
                   r.gradient_s > 0 ? std::to_string(r.gradient_s / r.forward_s).c_str() : "null",
                   r.state_mb, r.history_mb, r.rss_mb);
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
  }
  if (o.stream_reads) print_stream_reads<T>();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  pwave::backend::request_huge_pages(argv);  // first: may re-execute the program
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options o = parse(argc, argv);
  return o.precision == "float64" ? run<double>(o) : run<float>(o);
}
