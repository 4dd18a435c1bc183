// Cost of the gradient reductions: a plain allreduce against the reproducible ordered sum
// (chain and gather), and how much a non-blocking allreduce hides behind computation.
//   mpiexec -n 2 build/tests/parallel/bench_parallel [n=1727851] [batch=8] [repeats=20]
// Prints one line per method (rank 0): median seconds, payload bytes this rank sent/received.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pwave/parallel/allreduce.hpp"
#include "pwave/parallel/reproducible_sum.hpp"
#include "pwave/parallel/shot_plan.hpp"

using namespace pwave::parallel;
using T = float;
using Clock = std::chrono::steady_clock;

namespace {

template <class F>
double median_seconds(const Communicator& w, int repeats, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    w.barrier();
    const auto t0 = Clock::now();
    f();
    pwave::fence_all();
    // The slowest rank's time counts.
    t.push_back(w.allreduce_max(std::chrono::duration<double>(Clock::now() - t0).count()));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// About `seconds` of stencil-like work on the device (stands in for the next shot batch).
struct Work {
  Kokkos::View<T*, pwave::MemSpace> a, b;
  KOKKOS_INLINE_FUNCTION void operator()(const long i) const {
    const long n = long(a.extent(0));
    T s = a(i);
    for (int k = 1; k <= 8; ++k) s += T(0.1) * (a((i + k) % n) + a((i + n - k) % n));
    b(i) = s;
  }
};

}  // namespace

int main(int argc, char** argv) {
  Environment mpi(argc, argv);
  {
    Communicator w;
    Kokkos::ScopeGuard kokkos(argc, argv);
    const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1727851;  // 751x2301
    const int batch = argc > 2 ? std::atoi(argv[2]) : 8;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 20;
    std::vector<int> minibatch(static_cast<std::size_t>(batch));
    for (int k = 0; k < batch; ++k) minibatch[std::size_t(k)] = k;
    const ShotPlan plan = plan_shots(minibatch, w.rank(), w.size());
    pwave::Field<T> rows("rows", std::max(plan.count, 1), 1, long(n));
    Kokkos::deep_copy(rows, T(1));
    Kokkos::View<T*, Kokkos::LayoutRight, pwave::MemSpace> grad("grad", n), result("result", n);
    const AllreduceChoice choice = choose_allreduce_path();
    StagingBuffer<T> staging;

    if (w.is_root()) {
      std::printf("ranks %d, n %zu floats (%.1f MB), batch %d, %s\n", w.size(), n,
                  double(n * sizeof(T)) / 1e6, batch, choice.log_line().c_str());
      std::printf("%-26s %12s %14s %14s\n", "method", "median s", "sent MB/rank", "recv MB/rank");
    }
    const double ring = w.size() > 1 ? 2.0 * double(w.size() - 1) / w.size() : 0.0;
    const double t_all =
        median_seconds(w, repeats, [&] { allreduce_sum(w, grad, choice.path, staging); });
    // The non-reproducible baseline: each rank sums its rows, then one allreduce.
    OrderedSum<T> local_sum(n, choice.path);
    const Communicator self = Communicator::self();
    const double t_base = median_seconds(w, repeats, [&] {
      local_sum.sum(self, plan.positions(), rows, grad);
      allreduce_sum(w, grad, choice.path, staging);
    });
    if (w.is_root()) {
      const double mb = ring * double(n * sizeof(T)) / 1e6;
      std::printf("%-26s %12.6f %14.2f %14.2f   (ring estimate)\n", "allreduce", t_all, mb, mb);
      std::printf("%-26s %12.6f %14.2f %14.2f   (ring estimate)\n", "local row sum + allreduce",
                  t_base, mb, mb);
    }
    for (OrderedSumMethod m : {OrderedSumMethod::chain, OrderedSumMethod::gather}) {
      OrderedSum<T> sum(n, choice.path, m);
      const double t =
          median_seconds(w, repeats, [&] { sum.sum(w, plan.positions(), rows, result); });
      // Largest per-rank traffic.
      const double sent = w.allreduce_max(double(sum.last().bytes_sent)) / 1e6;
      const double recv = w.allreduce_max(double(sum.last().bytes_received)) / 1e6;
      if (w.is_root()) {
        std::printf("%-26s %12.6f %14.2f %14.2f\n",
                    m == OrderedSumMethod::chain ? "ordered sum (chain)" : "ordered sum (gather)",
                    t, sent, recv);
      }
    }

    // Overlap: work alone, work then a blocking allreduce, work with a non-blocking one polled
    // between kernel launches.
    Work work{Kokkos::View<T*, pwave::MemSpace>("a", n), Kokkos::View<T*, pwave::MemSpace>("b", n)};
    // Work of about twice the allreduce, in 16 launches (the request is polled between them).
    const int launches = 16;
    long m = long(n);
    auto run_work = [&](AllreduceRequest* req) {
      for (int k = 0; k < launches; ++k) {
        Kokkos::parallel_for("pwave::bench::work",
                             Kokkos::RangePolicy<pwave::ExecSpace, Kokkos::IndexType<long>>(0, m),
                             work);
        if (req) req->test();
      }
    };
    const double t_full = median_seconds(w, 3, [&] { run_work(nullptr); });
    m = std::max(1L, std::min(long(n), long(double(n) * 2.0 * t_all / t_full)));
    const double t_work = median_seconds(w, repeats, [&] { run_work(nullptr); });
    const double t_seq = median_seconds(w, repeats, [&] {
      run_work(nullptr);
      allreduce_sum(w, grad, choice.path, staging);
    });
    const double t_ovl = median_seconds(w, repeats, [&] {
      AllreduceRequest r = iallreduce_sum(w, grad, choice.path, staging);
      run_work(&r);
      r.wait();
    });
    if (w.is_root()) {
      std::printf(
          "overlap: work %.6f s, work + allreduce %.6f s, work || iallreduce %.6f s "
          "(hidden %.0f%% of the allreduce)\n",
          t_work, t_seq, t_ovl, t_seq > t_work ? 100.0 * (t_seq - t_ovl) / (t_seq - t_work) : 0.0);
    }
  }
  return 0;
}
