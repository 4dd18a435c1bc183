// Data selection (misfit/selection.hpp): the weights each trace gets (offsets, a linear-moveout
// window with cosine tapers, trace weights, dead traces), and misfit_gradient with a selection
// against central finite differences of J(W d, W o) computed here from the statement.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "pwave/misfit/selection.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/misfit_value.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

using misfit::Misfit;
using misfit::selection_window;

TEST(Selection, WindowIsOneInsideZeroOutsideAndHalfCosineOnTheRamps) {
  EXPECT_EQ(selection_window(9.9, 10, 50, 4), 0.0);
  EXPECT_EQ(selection_window(10, 10, 50, 4), 0.0);
  EXPECT_NEAR(selection_window(12, 10, 50, 4), 0.5, 1e-15);
  EXPECT_NEAR(selection_window(11, 10, 50, 4), 0.5 * (1 - std::cos(M_PI / 4)), 1e-15);
  EXPECT_EQ(selection_window(14, 10, 50, 4), 1.0);
  EXPECT_EQ(selection_window(30, 10, 50, 4), 1.0);
  EXPECT_NEAR(selection_window(48, 10, 50, 4), 0.5, 1e-15);
  EXPECT_EQ(selection_window(50.1, 10, 50, 4), 0.0);
  EXPECT_EQ(selection_window(10, 10, 50, 0), 1.0);           // no taper: a box
  EXPECT_NEAR(selection_window(12, 10, 14, 4), 0.5, 1e-15);  // ramps meet mid-window
}

// One shot at x = 100 m; receivers at offsets 0, 50, 100, 200, 300 m (2D).
std::vector<ShotGeometry> line() {
  ShotGeometry s;
  s.source = {100.0, 10.0};
  for (double x : {100.0, 150.0, 200.0, 300.0, 400.0}) s.receivers.push_back({x, 10.0});
  return {s};
}

TEST(Selection, TraceWeightsFromOffsetsWindowWeightsAndDeadTraces) {
  misfit::Selection s;
  s.offset_min = 40.0;
  s.offset_max = 250.0;
  s.velocity = 1000.0;  // t_first = 0.01 + offset / 1000
  s.t0 = 0.01;
  s.before = 0.02;
  s.after = 0.05;
  s.taper = 0.004;
  s.trace_weights = {1.0, 0.5, 2.0, 1.0, 1.0};
  const double dt = 0.001;
  const int nt = 400, nrec = 5;
  misfit::TraceSelection<double> sel(s, line(), dt, 1, nrec);
  std::vector<double> rows(std::size_t(nrec) * nt, 1.0);
  for (int n = 0; n < nt; ++n) rows[std::size_t(3) * nt + n] = 0.0;  // receiver 3: dead
  EXPECT_EQ(sel.stage(0, 0, rows.data(), nt), 1);
  sel.upload(1);
  EXPECT_FALSE(sel.identity());
  const auto at = [&](int r, int n) { return rows[std::size_t(r) * nt + n]; };
  for (int n = 0; n < nt; ++n) {
    EXPECT_EQ(at(0, n), 0.0) << "offset 0 is below the range";
    EXPECT_EQ(at(3, n), 0.0) << "dead";
    EXPECT_EQ(at(4, n), 0.0) << "offset 300 is above the range";
  }
  // Receiver 1 (offset 50, weight 0.5): t_first = 0.06 s, window [0.04, 0.11] s = samples
  // [40, 110], ramps of 4 samples.
  EXPECT_EQ(at(1, 39), 0.0);
  EXPECT_NEAR(at(1, 42), 0.25, 1e-12);
  EXPECT_EQ(at(1, 80), 0.5);
  EXPECT_NEAR(at(1, 108), 0.25, 1e-12);
  EXPECT_EQ(at(1, 111), 0.0);
  // Receiver 2 (offset 100, weight 2): window [0.09, 0.16] s.
  EXPECT_EQ(at(2, 89), 0.0);
  EXPECT_EQ(at(2, 120), 2.0);
  EXPECT_EQ(at(2, 161), 0.0);
  // The device weights are the host ones: apply() to ones gives the staged rows.
  Traces<double> x("x", 1, nrec, nt);
  Kokkos::deep_copy(x, 1.0);
  sel.apply(x, 1);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  for (int r = 0; r < nrec; ++r)
    for (int n = 0; n < nt; ++n) ASSERT_EQ(hx(0, r, n), at(r, n)) << r << " " << n;
}

TEST(Selection, PickedFirstArrivalsPlaceTheWindowAndNoPickExcludes) {
  misfit::Selection s;
  s.picks = {0.05, -1.0, 0.2, 0.1, 0.1};  // receiver 1: no pick
  s.before = 0.01;
  s.after = 0.02;
  misfit::TraceSelection<double> sel(s, line(), 0.001, 1, 5);
  std::vector<double> rows(5 * 300, 1.0);
  sel.stage(0, 0, rows.data(), 300);
  const auto at = [&](int r, int n) { return rows[std::size_t(r) * 300 + n]; };
  EXPECT_EQ(at(0, 39), 0.0);  // window [0.04, 0.07] s
  EXPECT_EQ(at(0, 55), 1.0);
  EXPECT_EQ(at(0, 71), 0.0);
  for (int n = 0; n < 300; ++n) ASSERT_EQ(at(1, n), 0.0);
  EXPECT_EQ(at(2, 189), 0.0);  // window [0.19, 0.22] s
  EXPECT_EQ(at(2, 200), 1.0);
}

TEST(Selection, NonFiniteTracesAreZeroedAndExcluded) {
  misfit::Selection s;
  s.exclude_dead_traces = false;  // all-zero traces kept; NaN/Inf ones never
  misfit::TraceSelection<float> sel(s, line(), 0.001, 1, 5);
  std::vector<float> rows(5 * 10, 1.0f);
  rows[2 * 10 + 3] = std::numeric_limits<float>::quiet_NaN();
  for (int n = 0; n < 10; ++n) rows[std::size_t(4) * 10 + n] = 0.0f;
  EXPECT_EQ(sel.stage(0, 0, rows.data(), 10), 1);
  sel.upload(1);
  for (int n = 0; n < 10; ++n) EXPECT_EQ(rows[2 * 10 + n], 0.0f);
  EXPECT_EQ(rows[0], 1.0f);
  // Device weights: 0 for the NaN trace, 1 for the all-zero one (kept) and the others.
  Traces<float> x("x", 1, 5, 10);
  Kokkos::deep_copy(x, 1.0f);
  sel.apply(x, 1);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  for (int r = 0; r < 5; ++r) EXPECT_EQ(hx(0, r, 9), r == 2 ? 0.0f : 1.0f) << r;
}

// test::lens_problem with 15 receivers on the surface every 40 m (offsets 0 to 500 m).
ForwardProblem small_problem() {
  std::vector<Position> recs;
  for (double x = 0; x <= 560; x += 40) recs.push_back({x, 20.0});
  return test::lens_problem(recs);
}

misfit::Options options(Misfit kind) {
  misfit::Options o(kind);
  o.selection.offset_min = 50.0;
  o.selection.offset_max = 400.0;
  o.selection.velocity = 1800.0;
  o.selection.t0 = 0.03;
  o.selection.before = 0.02;
  o.selection.after = 0.12;
  o.selection.taper = 0.01;
  o.selection.trace_weights.assign(2 * 15, 1.0);
  o.selection.trace_weights[3] = 0.3;
  o.selection.trace_weights[15 + 7] = 2.5;
  return o;
}

/// J(W d, W o) with W written out from the statement in misfit/selection.hpp.
double selected_misfit(const misfit::Options& o, const ForwardProblem& p,
                       const HostArray3<double>& observed) {
  const HostArray3<double> d = forward_model<double>(p);
  const int ns = int(d.extent(0)), nr = int(d.extent(1)), nt = int(d.extent(2));
  const misfit::Selection& s = o.selection;
  HostArray3<double> wd("wd", ns, nr, nt), wo("wo", ns, nr, nt);
  for (int k = 0; k < ns; ++k)
    for (int r = 0; r < nr; ++r) {
      const ShotGeometry& g = p.shots[std::size_t(k)];
      const double offset = std::abs(g.receivers[std::size_t(r)].x - g.source.x);
      const bool in = offset >= s.offset_min && offset <= s.offset_max;
      const double c = in ? s.trace_weights[std::size_t(k) * nr + r] : 0.0;
      const double first = s.t0 + offset / s.velocity;
      for (int n = 0; n < nt; ++n) {
        const double t = n * p.dt, a = first - s.before, b = first + s.after;
        double w = 0;
        if (t >= a && t <= b) {
          const double x = std::min(t - a, b - t) / s.taper;
          w = x >= 1 ? 1.0 : 0.5 * (1 - std::cos(M_PI * x));
        }
        wd(k, r, n) = c * w * d(k, r, n);
        wo(k, r, n) = c * w * observed(k, r, n);
      }
    }
  return test::misfit_value(o.function, wd, wo);
}

void expect_selected_gradient_matches_fd(Misfit kind) {
  const ForwardProblem truth = small_problem();
  const HostArray3<double> observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  const misfit::Options o = options(kind);
  const GradientResult<double> g = misfit_gradient<double>(p, observed, Storage::boundary, {},
                                                           parallel::Communicator::self(), o);
  const double j = selected_misfit(o, p, observed);
  ASSERT_GT(j, 0.0);
  EXPECT_NEAR(g.misfit, j, 1e-10 * j) << misfit::name(kind);
  const Grid& grid = p.model.grid;
  const std::vector<double> bump = test::bump(p.model.grid, 15.0, 20.0, 30.0);
  double directional = 0;
  for (std::size_t i = 0; i < bump.size(); ++i) directional += g.gradient.data()[i] * bump[i];
  // Central differences err by O(eps^2): measured relative errors at eps = 1, 0.25, 0.0625 m/s:
  // l2 2.6e-6, 1.6e-7, 9.7e-9; normalized_correlation 2.9e-5, 1.8e-6, 1.1e-7 (the adjoint is
  // exact; the windowed correlation is the more curved J).
  const double eps = 0.25;
  ForwardProblem plus = p, minus = p;
  for (std::size_t i = 0; i < bump.size(); ++i) plus.model.vp[i] += eps * bump[i];
  for (std::size_t i = 0; i < bump.size(); ++i) minus.model.vp[i] -= eps * bump[i];
  const double fd =
      (selected_misfit(o, plus, observed) - selected_misfit(o, minus, observed)) / (2 * eps);
  std::printf("%s with selection: finite difference %.9e, adjoint %.9e, relative %.2e\n",
              misfit::name(kind), fd, directional, std::abs(fd - directional) / std::abs(fd));
  EXPECT_LT(std::abs(fd - directional) / std::abs(fd), 1e-5);
}

TEST(SelectionGradient, L2MatchesFiniteDifferences) {
  expect_selected_gradient_matches_fd(Misfit::l2);
}
TEST(SelectionGradient, NormalizedCorrelationMatchesFiniteDifferences) {
  expect_selected_gradient_matches_fd(Misfit::normalized_correlation);
}

TEST(SelectionGradient, SelectingEverythingChangesNothing) {
  const ForwardProblem truth = small_problem();
  const HostArray3<double> observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  misfit::Options all;
  all.selection.offset_max = 1e6;
  all.selection.trace_weights.assign(2 * 15, 1.0);
  const auto a = misfit_gradient<double>(p, observed, Storage::boundary, {},
                                         parallel::Communicator::self(), all);
  const auto b = misfit_gradient<double>(p, observed);
  EXPECT_EQ(a.misfit, b.misfit);
  for (std::size_t i = 0; i < a.gradient.size(); ++i)
    ASSERT_EQ(a.gradient.data()[i], b.gradient.data()[i]) << i;
}

}  // namespace
}  // namespace pwave
