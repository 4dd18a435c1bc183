// The framework's time loops (propagation/forward_loop.hpp, backward_loop.hpp) on their own:
// what they call, in which order, with which parity, and which checkpoint segments the backward
// loop recomputes. Every equation's runs rely on this order (the propagators' tests check the
// physics through them).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pwave/propagation/backward_loop.hpp"
#include "pwave/propagation/forward_loop.hpp"

namespace {

using pwave::ExecSpace;
using Calls = std::vector<std::string>;

std::string call(const char* what, int p, int n) {
  return std::string(what) + " " + std::to_string(p) + " " + std::to_string(n);
}

struct LoggingSteps {
  Calls* log;
  void record(const ExecSpace&, int p, int n) const { log->push_back(call("record", p, n)); }
  void step(const ExecSpace&, int p, int n) const { log->push_back(call("step", p, n)); }
};

struct LoggingKeep {
  Calls* log;
  void before(const ExecSpace&, int p, int n) const { log->push_back(call("before", p, n)); }
  void after(const ExecSpace&, int p, int n) const { log->push_back(call("after", p, n)); }
  void finish(const ExecSpace&, int p, int n) const { log->push_back(call("finish", p, n)); }
};

TEST(TimeLoops, ForwardKeepsRecordsStepsAndReportsInOrderWithTheParityOfTheRun) {
  Calls log;
  const LoggingSteps steps{&log};
  const LoggingKeep keep{&log};
  const auto report = [&](int done) { log.push_back("report " + std::to_string(done)); };
  pwave::propagation::forward_loop(ExecSpace(), steps, keep, 3, 6, true, report);
  // Parity counts from the first step of the run (a recomputed segment starts at its own).
  const Calls expected = {"before 0 3", "record 0 3", "step 0 3",   "after 0 3",
                          "report 4",   "before 1 4", "record 1 4", "step 1 4",
                          "after 1 4",  "report 5",   "before 0 5", "record 0 5",
                          "step 0 5",   "after 0 5",  "report 6",   "finish 1 6"};
  EXPECT_EQ(log, expected);
}

TEST(TimeLoops, ForwardWithoutRecordingAndKeepWithCallsTheGivenParts) {
  Calls log;
  const LoggingSteps steps{&log};
  const auto keep = pwave::propagation::keep_with(
      [&](const ExecSpace&, int p, int n) { log.push_back(call("kept", p, n)); },
      pwave::propagation::keep_none,
      [&](const ExecSpace&, int p, int n) { log.push_back(call("last", p, n)); });
  pwave::propagation::forward_loop(ExecSpace(), steps, keep, 0, 2, false, [](int) {});
  const Calls expected = {"kept 0 0", "step 0 0", "kept 1 1", "step 1 1", "last 0 2"};
  EXPECT_EQ(log, expected);
}

TEST(TimeLoops, BackwardRecomputesEachSegmentOnEnteringItAndStepsDownToZero) {
  Calls log;
  const auto recompute = [&](int c, int n0, int n1) {
    log.push_back("segment " + std::to_string(c) + " " + std::to_string(n0) + " " +
                  std::to_string(n1));
  };
  const auto step_back = [&](int p, int n) { log.push_back(call("back", p, n)); };
  pwave::propagation::backward_loop(10, 4, recompute, step_back);
  // nt = 10, checkpoints every 4 steps: segments [8, 10), [4, 8), [0, 4), the last one short.
  const Calls expected = {"segment 2 8 10", "back 0 9", "back 1 8", "segment 1 4 8", "back 0 7",
                          "back 1 6",       "back 0 5", "back 1 4", "segment 0 0 4", "back 0 3",
                          "back 1 2",       "back 0 1", "back 1 0"};
  EXPECT_EQ(log, expected);

  log.clear();
  pwave::propagation::backward_loop(3, 0, recompute, step_back);  // no checkpoints
  EXPECT_EQ(log, (Calls{"back 0 2", "back 1 1", "back 0 0"}));
}

}  // namespace
