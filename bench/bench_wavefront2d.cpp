// Wavefront temporal blocking of the 2D acoustic interior, measured (issue 13): how much of the
// one-step memory roofline several time steps per sweep can pass on a CPU core, before any of it
// goes into the propagator.
//
//   bench_wavefront2d [--n 4040] [--nt 32] [--levels 2,4,8,16] [--tile 0] [--reps 2]
//
// One shot, float32, order 8, an n x n grid of random u^n and u^{n-1} with zero halos (no CPML,
// source or receiver), the propagator's own interior kernel (physics::InteriorStep::rows, the
// host row path, blocks of block_rows rows). Step by step: every block of step n, then of step
// n + 1. Wavefront of L levels: steps t .. t + L - 1 in one sweep down the grid; at front f,
// level j updates block f - j. A block of level j reads level j - 1's rows up to R below it
// (R = 4 <= block_rows: the block below, updated earlier in the same front) and overwrites level
// j - 2's rows, which no later update reads; so the results are bitwise those of the step-by-step
// run (checked every run). `--tile W`: the sweep in x tiles of W columns, level j's columns
// shifted left by j R (parallelograms), each tile swept down the grid before the next.
// Roofline: 16 bytes per update (u^n, u^{n-1}, v^2 dt^2 read, u^{n+1} written) at the STREAM
// copy bandwidth measured in the same run (stream_copy.hpp). Serial or one thread.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/host_pages.hpp"
#include "int_list.hpp"
#include "pwave/physics/acoustic/kernels.hpp"
#include "stream_copy.hpp"

namespace {

using T = float;
constexpr int Order = 8;
using Kernel = pwave::physics::InteriorStep<T, Order, 2>;
constexpr int R = Kernel::R;
constexpr int B = Kernel::block_rows;

struct Options {
  int n = 4040, nt = 32, tile = 0, reps = 2;
  std::vector<int> levels = {2, 4, 8, 16};
};

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "%s\nusage: bench_wavefront2d [--n N] [--nt N] [--levels L1,L2,..] [--tile W] "
               "[--reps N]\n",
               msg.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) usage("missing value for " + k);
    const std::string v = argv[i + 1];
    if (k == "--n") {
      o.n = std::atoi(v.c_str());
    } else if (k == "--nt") {
      o.nt = std::atoi(v.c_str());
    } else if (k == "--tile") {
      o.tile = std::atoi(v.c_str());
    } else if (k == "--reps") {
      o.reps = std::atoi(v.c_str());
    } else if (k == "--levels") {
      o.levels = pwave::bench::int_list(v);
    } else {
      usage("unknown option " + k);
    }
  }
  if (o.n < 2 * B || o.nt < 1 || o.reps < 1 || o.tile < 0) usage("bad sizes");
  if (o.levels.empty()) usage("--levels: at least one");
  for (int l : o.levels)
    if (l < 1) usage("--levels: each at least 1");
  return o;
}

double seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

/// The grid: u^{n-1} in a, u^n in b (step t of parity t & 1 reads the other copy).
struct Grid {
  int n;
  pwave::Field<T> a, b;
  pwave::GridView<T> w;

  explicit Grid(int n_)
      : n(n_),
        a("pwave::bench::wavefront::a", 1, n_ + 2 * R, n_ + 2 * R),
        b("pwave::bench::wavefront::b", 1, n_ + 2 * R, n_ + 2 * R),
        w("pwave::bench::wavefront::w", n_, n_) {
    Kokkos::deep_copy(w, T(4e-6));  // v^2 dt^2 / h^2 small: stable for any number of steps
  }
  void fill() const {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    for (const auto& f : {a, b}) {
      auto h = Kokkos::create_mirror_view(f);
      Kokkos::deep_copy(h, T(0));
      for (int z = 0; z < n; ++z)
        for (int x = 0; x < n; ++x) h(0, z + R, x + R) = u(rng);
      Kokkos::deep_copy(f, h);
    }
  }
  std::vector<T> values() const {
    std::vector<T> v;
    for (const auto& f : {a, b}) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
      v.insert(v.end(), h.data(), h.data() + h.size());
    }
    return v;
  }
};

class Sweeps {
 public:
  explicit Sweeps(const Grid& g)
      : n_(g.n),
        blocks_((g.n + B - 1) / B),
        step_{Kernel(g.a, g.b, g.w, coef(), R, 0, 0, g.n),
              Kernel(g.b, g.a, g.w, coef(), R, 0, 0, g.n)} {}

  void stepwise(int nt) const {
    for (int t = 0; t < nt; ++t)
      for (int b = 0; b < blocks_; ++b) block(t, b, 0, n_);
  }
  /// Levels of L steps; x tiles of `tile` columns (0: whole rows).
  void wavefront(int nt, int levels, int tile) const {
    const int w = tile > 0 ? tile : n_;
    const int tiles = (n_ + w - 1) / w;
    for (int t0 = 0; t0 < nt; t0 += levels) {
      const int lv = std::min(levels, nt - t0);
      for (int t = 0; t < tiles; ++t) {
        for (int f = 0; f < blocks_ + lv - 1; ++f) {
          for (int j = 0; j < lv; ++j) {
            const int b = f - j;
            if (b < 0 || b >= blocks_) continue;
            const int x0 = t == 0 ? 0 : std::max(0, t * w - j * R);
            const int x1 = t == tiles - 1 ? n_ : std::min(n_, (t + 1) * w - j * R);
            block(t0 + j, b, x0, x1);
          }
        }
      }
    }
  }

 private:
  static pwave::physics::ScaledStencil<T, Order> coef() { return {1.0, 1.0}; }
  void block(int t, int b, int x0, int x1) const {
    if (x1 > x0) step_[t & 1].rows(0, b * B, std::min(B, n_ - b * B), x0, x1);
  }
  int n_, blocks_;
  Kernel step_[2];
};

}  // namespace

int main(int argc, char** argv) {
  pwave::backend::request_huge_pages(argv);  // first: may re-execute the program
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options o = parse(argc, argv);
  double copy = 1e30;
  {
    const pwave::bench::StreamCopy<T> c;
    for (int r = 0; r < c.runs; ++r) {
      const double t0 = seconds();
      c();
      Kokkos::fence();
      copy = std::min(copy, seconds() - t0);
    }
    copy = pwave::bench::StreamCopy<T>::bytes() / copy;
  }
  const double roofline = copy / 16.0;  // updates per second
  std::printf("grid %d^2, order %d, float32, nt %d; copy %.1f GB/s, roofline %.2f Gcell/s\n", o.n,
              Order, o.nt, copy / 1e9, roofline / 1e9);

  const Grid g(o.n);
  const Sweeps sweeps(g);
  g.fill();
  sweeps.stepwise(o.nt);
  const std::vector<T> reference = g.values();
  const double updates = double(o.n) * o.n * o.nt;
  const auto report = [&](const char* what, int levels, double s, const char* check) {
    std::printf("%-10s L=%-3d %7.3f s  %6.3f Gcell/s  %5.2f roofline  %s\n", what, levels, s,
                updates / s / 1e9, updates / s / roofline, check);
  };
  bool all_same = true;
  for (int rep = 0; rep < o.reps; ++rep) {
    g.fill();
    double t0 = seconds();
    sweeps.stepwise(o.nt);
    report("stepwise", 1, seconds() - t0, "");
    for (int levels : o.levels) {
      g.fill();
      t0 = seconds();
      sweeps.wavefront(o.nt, levels, o.tile);
      const double s = seconds() - t0;
      const std::vector<T> v = g.values();
      const bool same = std::memcmp(v.data(), reference.data(), v.size() * sizeof(T)) == 0;
      all_same = all_same && same;
      report("wavefront", levels, s, same ? "bitwise" : "DIFFERS");
    }
  }
  return all_same ? 0 : 1;
}
