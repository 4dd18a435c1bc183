// Gradient benchmark: time of a forward run against a gradient (forward with wavefield storage
// + adjoint with imaging) for each storage strategy, and the memory each strategy keeps.
//
//   bench_gradient2d [--nz 500] [--nx 500] [--nt 500] [--shots 1] [--order 8]
//                    [--precision float32|float64] [--cpml 20] [--csv file]
//
// Target (issue 3): gradient with boundary storage <= 3x the forward run.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "backends/host_pages.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/types.hpp"
#include "pwave/core/version.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

namespace {

struct Options {
  int nz = 500, nx = 500, nt = 500, shots = 1, order = 8, cpml = 20;
  std::string precision = "float32", csv;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
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
    else if (k == "--precision")
      o.precision = v;
    else if (k == "--csv")
      o.csv = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return o;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
int run(const Options& o) {
  pwave::ForwardProblem p;
  const double h = 10.0, v = 2500.0, f = 10.0;
  p.model = pwave::constant_model(pwave::Grid{o.nz, o.nx, h, h}, v);
  p.dt = 0.001;
  p.nt = o.nt;
  p.order = o.order;
  for (int s = 0; s < 4; ++s) p.boundary.width[s] = o.cpml;
  p.peak_frequency = f;
  p.wavelet = pwave::ricker(f, 1.5 / f, p.dt, p.nt);
  p.check_interval = 0;
  for (int s = 0; s < o.shots; ++s) {
    pwave::ShotGeometry g;
    g.source = {h * (o.nx / 2), h * 2};
    for (int r = 0; r < o.nx; r += 4) g.receivers.push_back({h * r, h});
    p.shots.push_back(g);
  }
  pwave::AcousticPropagator<T> prop(p);
  const int nrec = prop.max_receivers();
  pwave::Traces<T> traces("traces", o.shots, nrec, o.nt), residual("res", o.shots, nrec, o.nt);
  Kokkos::deep_copy(residual, T(1e-3));
  pwave::GridView<T> grad("grad", prop.padded_nz(), prop.padded_nx());

  prop.forward(0, o.shots, traces);  // warm-up
  auto t0 = std::chrono::steady_clock::now();
  prop.forward(0, o.shots, traces);
  const double forward_s = since(t0);
  const double cells = double(prop.padded_nz()) * prop.padded_nx() * o.shots * o.nt;

  std::printf(
      "# pwave bench_gradient2d: %s, Kokkos %s, %s; padded grid %d x %d, %d shots, nt %d, order "
      "%d\n",
      o.precision.c_str(), pwave::kokkos_version, pwave::ExecSpace::name(), prop.padded_nz(),
      prop.padded_nx(), o.shots, o.nt, o.order);
  std::printf("%-12s %10s %12s %10s %14s\n", "case", "seconds", "Gcell/s", "ratio",
              "history MB/shot");
  std::printf("%-12s %10.3f %12.3f %10.2f %14s\n", "forward", forward_s, cells / forward_s * 1e-9,
              1.0, "-");
  FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
  if (csv) std::fprintf(csv, "case,seconds,ratio_to_forward,history_mb_per_shot\n");
  if (csv) std::fprintf(csv, "forward,%.6f,1.0,0\n", forward_s);
  pwave::StorageOptions bf16_stride4(pwave::Storage::full);
  bf16_stride4.stride = 4;
  bf16_stride4.compression = pwave::Compression::bf16;
  const std::pair<const char*, pwave::StorageOptions> cases[] = {
      {"boundary", pwave::Storage::boundary},
      {"checkpoint", pwave::Storage::checkpoint},
      {"full", pwave::Storage::full},
      {"full/4+bf16", bf16_stride4}};
  for (const auto& [name, storage] : cases) {
    const double mb = prop.history_bytes_per_shot(storage) / 1e6;
    if (mb * o.shots > 8000) {
      std::printf("%-10s %10s %12s %10s %14.1f (skipped: too large)\n", name, "-", "-", "-", mb);
      continue;
    }
    auto history = prop.make_history(o.shots, storage);
    t0 = std::chrono::steady_clock::now();
    prop.forward(0, o.shots, traces, {}, 0, 0, history);
    prop.adjoint(0, o.shots, residual, history, grad);
    const double s = since(t0);
    std::printf("%-12s %10.3f %12s %10.2f %14.1f\n", name, s, "-", s / forward_s, mb);
    if (csv) std::fprintf(csv, "%s,%.6f,%.4f,%.3f\n", name, s, s / forward_s, mb);
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
