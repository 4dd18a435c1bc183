// Forward-modelling benchmark: grid-cell updates per second and the fraction of the memory
// roofline, with the STREAM-copy bandwidth measured in the same run on the same backend.
//
//   bench_forward2d [--nz 2000] [--nx 2000] [--nt 100] [--shots 1] [--order 8]
//                   [--precision float32|float64] [--cpml 20] [--reps 5]
//                   [--cases interior,with_cpml] [--csv file]
//
// Roofline model: an update reads u^n (its stencil neighbours come from cache), u^{n-1} and
// v^2 dt^2 and writes u^{n+1}: 4 values = 16 bytes in float32 (32 in float64). The attainable
// update rate is copy_bandwidth / bytes_per_update. Two cases are timed: the interior kernel
// alone (CPML width 0, no frame) and the full step with CPML. Every time is the best of
// `--reps` runs after a warm-up run (first touch, page faults): on a shared machine the best
// run is the one least disturbed. See bench/README.md.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "backends/host_pages.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/types.hpp"
#include "pwave/core/version.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "stream_copy.hpp"

namespace {

struct Options {
  int nz = 2000, nx = 2000, nt = 100, shots = 1, order = 8, cpml = 20, reps = 5;
  std::string precision = "float32", cases = "interior,with_cpml", csv;
};

[[noreturn]] void usage(const char* msg) {
  std::fprintf(
      stderr,
      "%s\nusage: bench_forward2d [--nz N] [--nx N] [--nt N] [--shots N] [--order 2|4|6|8]\n"
      "         [--precision float32|float64] [--cpml N] [--reps N]\n"
      "         [--cases interior,with_cpml] [--csv file]\n",
      msg);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) usage(("missing value for " + k).c_str());
    const char* v = argv[i + 1];
    if (k == "--nz")
      o.nz = std::atoi(v);
    else if (k == "--nx")
      o.nx = std::atoi(v);
    else if (k == "--nt")
      o.nt = std::atoi(v);
    else if (k == "--shots")
      o.shots = std::atoi(v);
    else if (k == "--order")
      o.order = std::atoi(v);
    else if (k == "--cpml")
      o.cpml = std::atoi(v);
    else if (k == "--reps")
      o.reps = std::max(1, std::atoi(v));
    else if (k == "--precision")
      o.precision = v;
    else if (k == "--cases")
      o.cases = v;
    else if (k == "--csv")
      o.csv = v;
    else
      usage(("unknown option " + k).c_str());
  }
  if (o.precision != "float32" && o.precision != "float64") usage("precision: float32 or float64");
  return o;
}

/// Wall-clock and process CPU seconds of one call of f. On a shared machine the CPU time leaves
/// out the time the process waited for a core; with one thread (Serial) it equals the wall time
/// otherwise.
struct Seconds {
  double wall = 0, cpu = 0;
};
template <class F>
Seconds timed(F&& f) {
  Kokkos::fence();
  const auto w0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  f();
  Kokkos::fence();
  const std::clock_t c1 = std::clock();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(),
          double(c1 - c0) / CLOCKS_PER_SEC};
}

struct Timing {
  double best = 0, median = 0, cpu = 0;  ///< best and median wall seconds, best CPU seconds
};

Timing summarise(std::vector<Seconds> t) {
  Timing r;
  std::sort(t.begin(), t.end(), [](const Seconds& a, const Seconds& b) { return a.wall < b.wall; });
  r.best = t.front().wall;
  r.median = t[t.size() / 2].wall;
  r.cpu = t.front().cpu;
  for (const Seconds& x : t) r.cpu = std::min(r.cpu, x.cpu);
  return r;
}

/// The roofline's copy (bench/stream_copy.hpp), timed like the cases; bytes = read + write.
template <class T>
Timing copy_time(long& bytes) {
  const pwave::bench::StreamCopy<T> copy;
  std::vector<Seconds> t;
  for (int rep = 0; rep < copy.runs; ++rep) t.push_back(timed(copy));
  bytes = long(copy.bytes());
  return summarise(t);
}

template <class T>
Timing time_forward(const Options& o, int cpml) {
  pwave::ForwardProblem p;
  const double h = 10.0, v = 2500.0, f = 10.0;
  p.model = pwave::constant_model(pwave::Grid{o.nz, o.nx, h, h}, v);
  p.dt = 0.001;
  p.nt = o.nt;
  p.order = o.order;
  for (int s = 0; s < 4; ++s) p.boundary.width[s] = cpml;
  p.peak_frequency = f;
  p.wavelet = pwave::ricker(f, 1.5 / f, p.dt, p.nt);
  p.check_interval = 0;  // measure the propagator, not the NaN check
  for (int s = 0; s < o.shots; ++s) {
    p.shots.push_back({{h * (o.nx / 2), h * (o.nz / 2)}, {{0.0, 0.0}, {h * (o.nx - 1), 0.0}}});
  }
  pwave::AcousticPropagator<T> prop(p);
  pwave::Traces<T> traces("traces", o.shots, 2, o.nt);
  prop.forward(0, o.shots, traces);  // warm-up: first touch, page faults
  std::vector<Seconds> t;
  for (int rep = 0; rep < o.reps; ++rep)
    t.push_back(timed([&] { prop.forward(0, o.shots, traces); }));
  return summarise(t);
}

bool wants(const Options& o, const char* name) {
  const std::string c = "," + o.cases + ",";
  return c.find("," + std::string(name) + ",") != std::string::npos;
}

template <class T>
int run(const Options& o) {
  long copy_bytes = 0;
  const Timing copy = copy_time<T>(copy_bytes);
  const double bw = copy_bytes / copy.best, bw_cpu = copy_bytes / copy.cpu;
  const double bytes_per_update = 4.0 * sizeof(T);
  std::printf("# pwave bench_forward2d: %s, Kokkos %s, execution space %s, best of %d runs\n",
              o.precision.c_str(), pwave::kokkos_version, pwave::ExecSpace::name(), o.reps);
  std::printf(
      "# STREAM copy bandwidth: %.2f GB/s -> roofline %.3f Gcell/s at %.0f B/update"
      " (CPU time: %.2f GB/s, %.3f Gcell/s)\n",
      bw * 1e-9, bw / bytes_per_update * 1e-9, bytes_per_update, bw_cpu * 1e-9,
      bw_cpu / bytes_per_update * 1e-9);
  std::printf("%-10s %6s %6s %5s %6s %5s %5s %8s %8s %8s %8s %8s %8s %8s\n", "case", "nz", "nx",
              "order", "shots", "nt", "cpml", "best_s", "median_s", "Gcell/s", "roofline", "cpu_s",
              "Gcell/s", "roofline");
  std::printf("%-10s %6s %6s %5s %6s %5s %5s %8s %8s %8s %8s %8s %8s %8s\n", "", "", "", "", "", "",
              "", "wall", "wall", "wall", "wall", "cpu", "cpu", "cpu");
  FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
  if (csv) {
    std::fprintf(csv,
                 "case,nz,nx,order,shots,nt,cpml,precision,reps,best_s,median_s,cpu_s,"
                 "gcells_per_s,roofline_fraction,gcells_per_s_cpu,roofline_fraction_cpu,"
                 "copy_gb_per_s,copy_gb_per_s_cpu\n");
  }
  double interior_s = 0, interior_cells = 0, cpml_s = 0, cpml_cells = 0;
  for (int cpml : {0, o.cpml}) {
    const char* name = cpml == 0 ? "interior" : "with_cpml";
    if (!wants(o, name)) continue;
    const Timing t = time_forward<T>(o, cpml);
    const double cells = double(o.nz + 2 * cpml) * (o.nx + 2 * cpml) * o.shots * o.nt;
    const double rate = cells / t.best, rate_cpu = cells / t.cpu;
    const double frac = rate * bytes_per_update / bw,
                 frac_cpu = rate_cpu * bytes_per_update / bw_cpu;
    (cpml == 0 ? interior_s : cpml_s) = t.cpu;
    (cpml == 0 ? interior_cells : cpml_cells) = cells;
    std::printf("%-10s %6d %6d %5d %6d %5d %5d %8.3f %8.3f %8.3f %8.2f %8.3f %8.3f %8.2f\n", name,
                o.nz, o.nx, o.order, o.shots, o.nt, cpml, t.best, t.median, rate * 1e-9, frac,
                t.cpu, rate_cpu * 1e-9, frac_cpu);
    if (csv) {
      std::fprintf(csv, "%s,%d,%d,%d,%d,%d,%d,%s,%d,%.6f,%.6f,%.6f,%.6f,%.4f,%.6f,%.4f,%.4f,%.4f\n",
                   name, o.nz, o.nx, o.order, o.shots, o.nt, cpml, o.precision.c_str(), o.reps,
                   t.best, t.median, t.cpu, rate * 1e-9, frac, rate_cpu * 1e-9, frac_cpu, bw * 1e-9,
                   bw_cpu * 1e-9);
    }
    if (o.cpml == 0) break;
  }
  if (interior_s > 0 && cpml_s > 0) {
    // The with_cpml grid is the interior grid plus the frame; at the interior's time per cell
    // the frame's share of the time would equal its share of the cells.
    std::printf("# CPML frame: %.1f%% of the cells, %.1f%% of the (CPU) time\n",
                100.0 * (1.0 - interior_cells / cpml_cells),
                100.0 * (cpml_s - interior_s) / cpml_s);
  }
  if (csv) std::fclose(csv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  pwave::backend::request_huge_pages(argv);  // first: may re-execute the program
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options o = parse(argc, argv);
  return o.precision == "float64" ? run<double>(o) : run<float>(o);
}
