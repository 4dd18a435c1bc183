// Each storage strategy is its own history type: make_history() returns the one the options
// name and nothing else, and history_bytes_per_shot() is what that type allocates per shot.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/elastic_propagator.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "support/problems.hpp"

namespace pwave::propagation {
namespace {

using History = AcousticPropagator<float>::History;

template <class V>
double bytes_of(const V& v) {
  return double(v.span()) * sizeof(typename V::value_type);
}

/// Which of the five types `h` holds, by name ("" when empty); checks that only one answers.
std::string strategy_of(const History& h) {
  const bool full = h.get_if<FullHistory<float>>() != nullptr;
  const bool frames = h.get_if<FrameHistory<float>>() != nullptr;
  const bool checkpoints = h.get_if<CheckpointHistory<float>>() != nullptr;
  const bool differences = h.get_if<DifferenceHistory<float>>() != nullptr;
  const bool states = h.get_if<SampledStateHistory<float>>() != nullptr;
  const bool terms = h.get_if<TermHistory<float>>() != nullptr;
  EXPECT_LE(
      int(full) + int(frames) + int(checkpoints) + int(differences) + int(states) + int(terms), 1);
  EXPECT_EQ(h.empty(), !(full || frames || checkpoints || differences || states || terms));
  return full          ? "full"
         : frames      ? "frames"
         : checkpoints ? "checkpoints"
         : differences ? "differences"
         : states      ? "sampled states"
         : terms       ? "update terms"
                       : "";
}

ForwardProblem two_shots(bool is3d) {
  ForwardProblem p =
      is3d ? test::homogeneous_problem_3d(20, 18, 22, 10.0, 2000.0, 0.001, 30, 10.0, 4, 6)
           : test::homogeneous_problem(30, 35, 10.0, 2000.0, 0.001, 30, 10.0, 8, 12);
  ShotGeometry shot;
  shot.source = is3d ? test::at(100.0, 100.0, 100.0) : Position{100.0, 100.0};
  shot.receivers = {shot.source};
  p.shots = {shot, shot};
  return p;
}

/// p with the elastic equation: vs 1000 m/s, rho 2000 kg/m^3 everywhere.
ForwardProblem elastic_problem(ForwardProblem p) {
  p.equation = physics::Equation::elastic;
  p.model.vs.assign(p.model.vp.size(), 1000.0);
  p.model.rho.assign(p.model.vp.size(), 2000.0);
  return p;
}

TEST(WavefieldHistory, TheDefaultKeepsNothing) {
  const History none;
  EXPECT_EQ(strategy_of(none), "");
  EXPECT_FALSE(none.holds(10, 1));
}

void expect_types_and_bytes(bool is3d) {
  const ForwardProblem p = two_shots(is3d);
  const AcousticPropagator<float> prop(p);
  const int count = prop.batch_capacity();
  const auto per_shot = [count](double bytes) { return bytes / count; };

  const History full = prop.make_history(count, Storage::full);
  ASSERT_EQ(strategy_of(full), "full");
  EXPECT_TRUE(full.holds(p.nt, count));
  EXPECT_FALSE(full.holds(p.nt + 1, count));
  EXPECT_FALSE(full.holds(p.nt, count + 1));
  EXPECT_DOUBLE_EQ(per_shot(bytes_of(full.get_if<FullHistory<float>>()->snapshots)),
                   prop.history_bytes_per_shot(Storage::full));

  const History frames = prop.make_history(count, Storage::boundary);
  ASSERT_EQ(strategy_of(frames), "frames");
  EXPECT_TRUE(frames.holds(p.nt, count));
  EXPECT_DOUBLE_EQ(per_shot(bytes_of(frames.get_if<FrameHistory<float>>()->frames)),
                   prop.history_bytes_per_shot(Storage::boundary));

  for (const int interval : {0, 7}) {
    StorageOptions o(Storage::checkpoint);
    o.interval = interval;
    const History checkpoints = prop.make_history(count, o);
    ASSERT_EQ(strategy_of(checkpoints), "checkpoints");
    EXPECT_TRUE(checkpoints.holds(p.nt, count));
    const auto& c = *checkpoints.get_if<CheckpointHistory<float>>();
    EXPECT_EQ(c.interval, interval > 0 ? interval : 6);  // ceil(sqrt(30))
    ASSERT_EQ(c.saved.size(), 8u);                       // u^{n-1}, u^n, psi and zeta of three axes
    double allocated = bytes_of(c.segment);
    for (const auto& saved : c.saved) allocated += bytes_of(saved);
    EXPECT_DOUBLE_EQ(per_shot(allocated), prop.history_bytes_per_shot(o));
  }

  if (is3d) return;  // 3D keeps exact histories only
  for (const Compression compression : {Compression::none, Compression::bf16}) {
    StorageOptions o(Storage::full);
    o.stride = 3;
    o.compression = compression;
    const History differences = prop.make_history(count, o);
    ASSERT_EQ(strategy_of(differences), "differences");
    EXPECT_TRUE(differences.holds(p.nt, count));
    const auto& d = *differences.get_if<DifferenceHistory<float>>();
    EXPECT_EQ(d.stride, 3);
    const double allocated = bytes_of(d.plain) + bytes_of(d.half) + bytes_of(d.previous);
    EXPECT_DOUBLE_EQ(per_shot(allocated), prop.history_bytes_per_shot(o));
  }
}

TEST(WavefieldHistory, MakeHistoryAllocatesOneStrategyOfTheBytesItStates2D) {
  expect_types_and_bytes(false);
}

TEST(WavefieldHistory, MakeHistoryAllocatesOneStrategyOfTheBytesItStates3D) {
  expect_types_and_bytes(true);
}

// The elastic `boundary` history: every wavefield's frame (the strips, no band) and every memory
// variable whole, nt + 1 times; what it allocates is what history_bytes_per_shot() and the
// padded layout (`pwave check`'s estimate: drivers/estimates.cpp) say.
void expect_elastic_frames(bool is3d) {
  ForwardProblem p = elastic_problem(two_shots(is3d));
  if (!is3d) {
    p.boundary.free_surface = true;  // no top strip
    p.boundary.width[top] = 0;
  }
  const ElasticPropagator<float> prop(p);
  const int count = prop.batch_capacity();
  const ElasticPropagator<float>::History h = prop.make_history(count, Storage::boundary);
  const auto* frames = h.get_if<FrameHistory<float>>();
  ASSERT_NE(frames, nullptr);
  EXPECT_TRUE(h.holds(p.nt, count));
  const int axes = is3d ? 3 : 2;
  EXPECT_EQ(frames->memory.size(), std::size_t(2 * axes * axes));  // 2 axes per derivative axis
  double allocated = bytes_of(frames->frames);
  for (const auto& m : frames->memory) allocated += bytes_of(m);
  EXPECT_DOUBLE_EQ(allocated / count, prop.history_bytes_per_shot(Storage::boundary));
  const PaddedLayout l = PaddedLayout::of(p);
  const double cells = double(l.frame(0).size()) * physics::elastic::Physics::wavefields_of(axes) +
                       double(physics::elastic::Physics::cpml_memory_of(axes)) * l.strip_cells();
  EXPECT_DOUBLE_EQ(double(p.nt + 1) * cells * sizeof(float),
                   prop.history_bytes_per_shot(Storage::boundary));
}

TEST(WavefieldHistory, ElasticBoundaryKeepsFramesAndMemoryVariables2D) {
  expect_elastic_frames(false);
}

TEST(WavefieldHistory, ElasticBoundaryKeepsFramesAndMemoryVariables3D) {
  expect_elastic_frames(true);
}

// The elastic exact `full` history: every step's update terms (5 fields of the padded grid in
// 2D, 9 in 3D), nothing else; `checkpoint`: the states every interval steps and a segment of
// interval steps' terms. What they allocate is what history_bytes_per_shot() says.
void expect_elastic_terms(bool is3d) {
  ForwardProblem p = elastic_problem(two_shots(is3d));
  const ElasticPropagator<float> prop(p);
  const int count = prop.batch_capacity();
  const History h = prop.make_history(count, Storage::full);
  ASSERT_EQ(strategy_of(h), "update terms");
  EXPECT_TRUE(h.holds(p.nt, count));
  EXPECT_FALSE(h.holds(p.nt + 1, count));
  const auto& terms = *h.get_if<TermHistory<float>>();
  const PaddedLayout l = PaddedLayout::of(p);
  const double cells = double(l.nz) * l.ny * l.nx;
  EXPECT_EQ(terms.terms(), is3d ? 9 : 5);
  EXPECT_DOUBLE_EQ(bytes_of(terms.kept) / count, prop.history_bytes_per_shot(Storage::full));
  EXPECT_DOUBLE_EQ(double(p.nt) * terms.terms() * cells * sizeof(float),
                   prop.history_bytes_per_shot(Storage::full));
  StorageOptions o(Storage::checkpoint);
  o.interval = 7;
  const History c = prop.make_history(count, o);
  ASSERT_EQ(strategy_of(c), "checkpoints");
  double saved = 0;
  for (const auto& v : c.get_if<CheckpointHistory<float>>()->saved) saved += bytes_of(v);
  EXPECT_DOUBLE_EQ(saved / count + 7.0 * terms.terms() * cells * sizeof(float),
                   prop.history_bytes_per_shot(o));
}

TEST(WavefieldHistory, ElasticFullKeepsUpdateTerms2D) {
  expect_elastic_terms(false);
}

TEST(WavefieldHistory, ElasticFullKeepsUpdateTerms3D) {
  expect_elastic_terms(true);
}

/// The message of the RuntimeError `f` throws ("" if none).
template <class F>
std::string runtime_error_of(F&& f) {
  try {
    f();
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "";
}

// Each propagator runs its own equation family's histories only: handed the other's (acoustic:
// one field per step; elastic: whole states, update terms), its forward and backward runs refuse
// it, saying which it keeps, instead of keeping nothing or reading a history that is not there.
TEST(WavefieldHistory, EachPropagatorRefusesTheOtherEquationsHistories) {
  ForwardProblem p = two_shots(false);
  AcousticPropagator<float> acoustic(p);
  ElasticPropagator<float> elastic(elastic_problem(p));
  const std::vector<int> shots = {0, 1};
  Traces<float> traces("traces", 2, 1, p.nt);
  StorageOptions strided(Storage::full);
  strided.stride = 2;
  const std::string acoustic_refusal =
      "sampled states and update terms are the elastic equation's histories";
  const std::string elastic_refusal =
      "the elastic equation keeps whole states, update terms or frames (checkpoint, full or "
      "boundary)";
  const History sampled = elastic.make_history(2, strided);
  const History terms = elastic.make_history(2, Storage::full);
  ASSERT_EQ(strategy_of(sampled), "sampled states");
  ASSERT_EQ(strategy_of(terms), "update terms");
  for (const History& h : {sampled, terms}) {
    SCOPED_TRACE(strategy_of(h));
    EXPECT_EQ(runtime_error_of([&] { acoustic.forward(shots, traces, {}, 0, 0, h); }),
              "AcousticPropagator: " + acoustic_refusal);
    acoustic.forward(shots, traces);
    EXPECT_EQ(runtime_error_of([&] { acoustic.adjoint(shots, traces, h, GridView<float>()); }),
              "AcousticPropagator::adjoint: " + acoustic_refusal);
  }
  for (const History& h :
       {acoustic.make_history(2, Storage::full), acoustic.make_history(2, strided)}) {
    SCOPED_TRACE(strategy_of(h));
    EXPECT_EQ(runtime_error_of([&] { elastic.forward(shots, traces, {}, 0, 0, h); }),
              "ElasticPropagator: " + elastic_refusal);
    elastic.forward(shots, traces);
    EXPECT_EQ(runtime_error_of([&] { elastic.adjoint_per_shot(shots, traces, h); }),
              "ElasticPropagator::adjoint: " + elastic_refusal);
  }
}

// The elastic `full` history with a stride or compression: for every stride-th step, what its
// imaging reads of the states before and after it (the stresses before, the velocities after:
// one state's fields), in the format asked; what it allocates and the backward run's decoded
// state are history_bytes_per_shot().
void expect_elastic_samples(bool is3d) {
  ForwardProblem p = elastic_problem(two_shots(is3d));
  const ElasticPropagator<float> prop(p);
  const int count = prop.batch_capacity();
  // A state: `checkpoint` every step keeps nt of them and one step's update terms (exact
  // `full`'s bytes / nt).
  StorageOptions every_step(Storage::checkpoint);
  every_step.interval = 1;
  const double state = (prop.history_bytes_per_shot(every_step) -
                        prop.history_bytes_per_shot(Storage::full) / p.nt) /
                       p.nt;
  struct Case {
    int stride;
    Compression compression;
    int slots;
    double value_bytes;
  };
  for (const Case c : {Case{3, Compression::int8, 10, 1.0}, Case{1, Compression::bf16, 30, 2.0},
                       Case{4, Compression::none, 8, 4.0}}) {
    StorageOptions o(Storage::full);
    o.stride = c.stride;
    o.compression = c.compression;
    const ElasticPropagator<float>::History h = prop.make_history(count, o);
    ASSERT_EQ(strategy_of(h), "sampled states");
    EXPECT_TRUE(h.holds(p.nt, count));
    EXPECT_FALSE(h.holds(p.nt + 3, count));
    const auto& s = *h.get_if<SampledStateHistory<float>>();
    EXPECT_EQ(s.stride, c.stride);
    double allocated = 0;
    for (const auto& f : s.fields) {
      allocated += bytes_of(f.plain) + bytes_of(f.half) + bytes_of(f.bytes);
      EXPECT_EQ(f.plain.extent(0) + f.half.extent(0) + f.bytes.extent(0),
                f.plain.size() + f.half.size() + f.bytes.size() > 0 ? std::size_t(c.slots) : 0u);
    }
    EXPECT_EQ(s.scale.size() > 0, c.compression == Compression::int8);
    const double expected = c.slots * state * c.value_bytes / sizeof(float);
    EXPECT_DOUBLE_EQ(allocated / count, expected);
    EXPECT_DOUBLE_EQ(prop.history_bytes_per_shot(o), expected + state);
  }
}

TEST(WavefieldHistory, ElasticSampledFullKeepsAStatePerImagedStep2D) {
  expect_elastic_samples(false);
}

TEST(WavefieldHistory, ElasticSampledFullKeepsAStatePerImagedStep3D) {
  expect_elastic_samples(true);
}

// SampledStateHistory's copies on a state of two fields (the first kept from before a step, the
// second from after it), 3 of 4 shots whose values differ in size by 10^3 from shot to shot,
// 13000 values per shot (two copy blocks): a slot stored and loaded back times 2 gives the
// values times 2 exactly in the run's precision, within bfloat16's rounding (2^-8 relative),
// and within half of int8's step of each shot's own peak (and float32's rounding of the value);
// the other slot and the fourth shot are untouched. Measured: 0.99 and 1.00 of those bounds.
struct TwoFieldState {
  Field<double> before, after;
  std::array<Field<double>, 2> checkpointed() const { return {before, after}; }
  static constexpr bool imaged_after(int k) { return k == 1; }
};

TEST(WavefieldHistory, SampledStatesComeBackInEachFormat) {
  const int shots = 4, count = 3, rows = 100, cols = 130;
  TwoFieldState st{Field<double>("before", shots, rows, cols),
                   Field<double>("after", shots, rows, cols)};
  const auto value = [](int f, int s, int r, int c) {
    return std::pow(1e-3, s) * std::sin(0.37 * r + 0.11 * c + 1.3 * f + 0.5);
  };
  const auto fill = [&](double scale) {
    for (int f = 0; f < 2; ++f) {
      auto h = Kokkos::create_mirror_view(f == 0 ? st.before : st.after);
      for (int s = 0; s < shots; ++s)
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) h(s, r, c) = scale * value(f, s, r, c);
      Kokkos::deep_copy(f == 0 ? st.before : st.after, h);
    }
  };
  for (const Compression compression : {Compression::none, Compression::bf16, Compression::int8}) {
    StorageOptions o(Storage::full);
    o.stride = 2;
    o.compression = compression;
    const auto h = SampledStateHistory<double>::allocate(st, 5, shots, o);
    ASSERT_TRUE(h.holds(5, shots));
    ASSERT_EQ(h.slot(4), 2);
    const ExecSpace exec;
    fill(-7.0);  // slot 0 holds other values
    h.store(exec, st, 0, count, false);
    h.store(exec, st, 0, count, true);
    fill(1.0);
    h.store(exec, st, 1, count, false);
    h.store(exec, st, 1, count, true);
    Kokkos::deep_copy(st.before, 0.0);
    Kokkos::deep_copy(st.after, 0.0);
    h.load(exec, st, 1, count, 2.0);
    exec.fence();
    double worst = 0;  // the largest error over its bound
    for (int f = 0; f < 2; ++f) {
      auto got = Kokkos::create_mirror_view_and_copy(HostSpace(), f == 0 ? st.before : st.after);
      for (int s = 0; s < shots; ++s) {
        double peak = 0;
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) peak = std::max(peak, std::abs(value(f, s, r, c)));
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < cols; ++c) {
            const double want = s < count ? 2.0 * value(f, s, r, c) : 0.0;
            const double error = std::abs(got(s, r, c) - want);
            if (s == count || compression == Compression::none) {
              ASSERT_EQ(got(s, r, c), want) << int(compression) << " " << f << " " << s;
              continue;
            }
            const double bound = compression == Compression::bf16
                                     ? std::ldexp(std::abs(want), -8)
                                     : 2.0 * (peak / 127.0) * (0.5 + 1e-4);
            worst = std::max(worst, error / bound);
          }
        }
      }
    }
    std::printf("%s: largest error %.3f of its bound\n", to_string(compression), worst);
    EXPECT_LE(worst, 1.0) << to_string(compression);
    if (compression != Compression::none) EXPECT_GT(worst, 0.2) << to_string(compression);
  }
}

}  // namespace
}  // namespace pwave::propagation
