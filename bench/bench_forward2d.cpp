// Forward-modelling benchmark: grid-cell updates per second and the fraction of the memory
// roofline, with the STREAM-copy bandwidth measured in the same run on the same backend.
//
//   bench_forward2d [--nz 2000] [--nx 2000] [--nt 100] [--shots 1] [--order 8]
//                   [--precision float32|float64] [--cpml 20] [--csv file]
//
// Roofline model: an update reads u^n (its stencil neighbours come from cache), u^{n-1} and
// v^2 dt^2 and writes u^{n+1}: 4 values = 16 bytes in float32 (32 in float64). The attainable
// update rate is copy_bandwidth / bytes_per_update. Two cases are timed: the interior kernel
// alone (CPML width 0, no frame) and the full step with CPML.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/types.hpp"
#include "pwave/core/version.hpp"
#include "pwave/propagation/acoustic2d.hpp"

namespace {

struct Options {
  int nz = 2000, nx = 2000, nt = 100, shots = 1, order = 8, cpml = 20;
  std::string precision = "float32", csv;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--nz") o.nz = std::atoi(v);
    else if (k == "--nx") o.nx = std::atoi(v);
    else if (k == "--nt") o.nt = std::atoi(v);
    else if (k == "--shots") o.shots = std::atoi(v);
    else if (k == "--order") o.order = std::atoi(v);
    else if (k == "--cpml") o.cpml = std::atoi(v);
    else if (k == "--precision") o.precision = v;
    else if (k == "--csv") o.csv = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Best-of-N STREAM copy bandwidth (bytes/s, read + write counted) on the default space.
template <class T>
double copy_bandwidth() {
  const long n = 1L << 25;  // 32 Mi values: far beyond any cache
  Kokkos::View<T*, pwave::MemSpace> a("a", n), b("b", n);
  Kokkos::deep_copy(a, T(1));
  double best = 0;
  for (int rep = 0; rep < 8; ++rep) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for("pwave::bench::stream_copy", Kokkos::RangePolicy<pwave::ExecSpace>(0, n),
                         KOKKOS_LAMBDA(const long i) { b(i) = a(i); });
    Kokkos::fence();
    best = std::max(best, 2.0 * sizeof(T) * n / seconds_since(t0));
  }
  return best;
}

template <class T>
double time_forward(const Options& o, int cpml) {
  pwave::ForwardProblem p;
  const double h = 10.0, v = 2500.0, f = 10.0;
  p.model = pwave::constant_model(pwave::Grid2D{o.nz, o.nx, h, h}, v);
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
  pwave::Acoustic2D<T> prop(p);
  pwave::Traces<T> traces("traces", o.shots, 2, o.nt);
  prop.forward(0, o.shots, traces);  // warm-up: first touch, page faults
  const auto t0 = std::chrono::steady_clock::now();
  prop.forward(0, o.shots, traces);
  return seconds_since(t0);
}

template <class T>
int run(const Options& o) {
  const double bw = copy_bandwidth<T>();
  const double bytes_per_update = 4.0 * sizeof(T);
  std::printf("# pwave bench_forward2d: %s, Kokkos %s, execution space %s\n", o.precision.c_str(),
              pwave::kokkos_version, pwave::ExecSpace::name());
  std::printf("# STREAM copy bandwidth: %.2f GB/s -> roofline %.3f Gcell/s at %.0f B/update\n",
              bw * 1e-9, bw / bytes_per_update * 1e-9, bytes_per_update);
  std::printf("%-10s %6s %6s %5s %6s %5s %6s %10s %12s %10s\n", "case", "nz", "nx", "order",
              "shots", "nt", "cpml", "seconds", "Gcell/s", "roofline");
  FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
  if (csv) {
    std::fprintf(csv, "case,nz,nx,order,shots,nt,cpml,precision,seconds,gcells_per_s,"
                 "copy_gb_per_s,roofline_fraction\n");
  }
  for (int cpml : {0, o.cpml}) {
    const double s = time_forward<T>(o, cpml);
    const double cells = double(o.nz + 2 * cpml) * (o.nx + 2 * cpml) * o.shots * o.nt;
    const double rate = cells / s;
    const double frac = rate * bytes_per_update / bw;
    const char* name = cpml == 0 ? "interior" : "with_cpml";
    std::printf("%-10s %6d %6d %5d %6d %5d %6d %10.3f %12.3f %10.2f\n", name, o.nz, o.nx, o.order,
                o.shots, o.nt, cpml, s, rate * 1e-9, frac);
    if (csv) {
      std::fprintf(csv, "%s,%d,%d,%d,%d,%d,%d,%s,%.6f,%.6f,%.4f,%.4f\n", name, o.nz, o.nx, o.order,
                   o.shots, o.nt, cpml, o.precision.c_str(), s, rate * 1e-9, bw * 1e-9, frac);
    }
  }
  if (csv) std::fclose(csv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options o = parse(argc, argv);
  return o.precision == "float64" ? run<double>(o) : run<float>(o);
}
