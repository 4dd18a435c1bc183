// Communicator basics and the agreement on errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "parallel_test_env.hpp"
#include "pwave/core/error.hpp"

using namespace pwave::parallel;

TEST(Communicator, RankAndSizeMatchTheLauncher) {
  const Communicator& w = test_env::world();
  EXPECT_GE(w.rank(), 0);
  EXPECT_LT(w.rank(), w.size());
  EXPECT_EQ(w.is_root(), w.rank() == 0);
  if (const char* n = std::getenv("OMPI_COMM_WORLD_SIZE")) {
    if (built_with_mpi()) {
      EXPECT_EQ(w.size(), std::atoi(n));
    }
  }
  EXPECT_EQ(w.uses_mpi(), built_with_mpi());
  const Communicator self = Communicator::self();
  EXPECT_EQ(self.size(), 1);
  EXPECT_EQ(self.rank(), 0);
  EXPECT_FALSE(self.uses_mpi());
  EXPECT_DOUBLE_EQ(self.allreduce_sum(2.5), 2.5);
}

TEST(Communicator, StartedByAnMpiLauncher) {
  if (test_env::world().uses_mpi()) {
    EXPECT_TRUE(started_by_mpi_launcher());  // mpiexec started this test
  }
  const char* names[] = {
      "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",   "PMI_RANK",       "PMI_SIZE", "SLURM_PROCID",
      "MV2_COMM_WORLD_RANK",  "PALS_RANKID", "FLUX_TASK_RANK", "PWAVE_MPI"};
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* n : names) {
    if (const char* v = std::getenv(n)) saved.emplace_back(n, v);
    unsetenv(n);
  }
  EXPECT_FALSE(started_by_mpi_launcher());  // started alone: the pwave driver skips MPI_Init
  setenv("PWAVE_MPI", "on", 1);             // a launcher pwave does not know
  EXPECT_TRUE(started_by_mpi_launcher());
  unsetenv("PWAVE_MPI");
  for (const char* n : names) {
    if (std::string(n) == "PWAVE_MPI") continue;
    setenv(n, "0", 1);
    EXPECT_TRUE(started_by_mpi_launcher()) << n;
    unsetenv(n);
  }
  for (const auto& [n, v] : saved) setenv(n.c_str(), v.c_str(), 1);
}

TEST(Communicator, LocalRankIsSane) {
  const Communicator& w = test_env::world();
  EXPECT_GE(w.local_rank(), 0);
  EXPECT_LT(w.local_rank(), w.local_size());
  if (w.uses_mpi()) {
    EXPECT_LE(w.local_size(), w.size());
  }
  EXPECT_FALSE(w.local_rank_source().empty());
  // This machine is one node: node-local ranks are the world ranks, as the launcher says.
  if (built_with_mpi()) {
    EXPECT_EQ(w.local_rank_source(), "MPI_Comm_split_type");
    EXPECT_EQ(w.local_size(), w.size());
    EXPECT_EQ(w.local_rank(), w.rank());
    if (const char* l = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) {
      EXPECT_EQ(w.local_rank(), std::atoi(l));
    }
  }
  // Distinct local ranks on the node.
  const std::vector<long> all = w.allgather(long(w.local_rank()));
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i], all[j]);
  }
}

TEST(Communicator, LocalRankFromTheLauncherEnvironment) {
  const char* names[] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                         "OMPI_COMM_WORLD_LOCAL_SIZE",
                         "SLURM_LOCALID",
                         "SLURM_NTASKS_PER_NODE",
                         "MV2_COMM_WORLD_LOCAL_RANK",
                         "MPI_LOCALRANKID",
                         "MPI_LOCALNRANKS",
                         "PMI_LOCAL_RANK",
                         "PALS_LOCAL_RANKID"};
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* n : names) {
    if (const char* v = std::getenv(n)) saved.emplace_back(n, v);
    unsetenv(n);
  }
  LocalRank l = local_rank_from_environment();
  EXPECT_EQ(l.rank, 0);
  EXPECT_EQ(l.size, 1);
  EXPECT_EQ(l.source, "default");
  setenv("PMI_LOCAL_RANK", "3", 1);
  l = local_rank_from_environment();
  EXPECT_EQ(l.rank, 3);
  EXPECT_EQ(l.size, 4);  // at least rank + 1 when the size is not given
  EXPECT_EQ(l.source, "PMI_LOCAL_RANK");
  setenv("SLURM_LOCALID", "1", 1);  // more specific than PMI_LOCAL_RANK
  setenv("SLURM_NTASKS_PER_NODE", "4", 1);
  l = local_rank_from_environment();
  EXPECT_EQ(l.rank, 1);
  EXPECT_EQ(l.size, 4);
  EXPECT_EQ(l.source, "SLURM_LOCALID");
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);  // unparsable: skipped
  EXPECT_EQ(local_rank_from_environment().source, "SLURM_LOCALID");
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "8", 1);
  l = local_rank_from_environment();
  EXPECT_EQ(l.rank, 2);
  EXPECT_EQ(l.size, 8);
  EXPECT_EQ(l.source, "OMPI_COMM_WORLD_LOCAL_RANK");
  for (const char* n : names) unsetenv(n);
  for (const auto& [n, v] : saved) setenv(n.c_str(), v.c_str(), 1);
}

TEST(Communicator, BroadcastsBytesFromAnyRoot) {
  const Communicator& w = test_env::world();
  w.barrier();
  std::string deck = "model:\n  vp: 1500\n";
  deck.push_back('\0');
  deck += "binary\xff";
  const std::string got0 = w.broadcast(w.rank() == 0 ? deck : std::string("junk"), 0);
  EXPECT_EQ(got0, deck);
  const int last = w.size() - 1;
  const std::string got_last =
      w.broadcast(w.rank() == last ? std::string(100000, 'x') : std::string(), last);
  EXPECT_EQ(got_last, std::string(100000, 'x'));
  EXPECT_EQ(w.broadcast(std::string(), 0), std::string());
}

TEST(Communicator, ReducesAndGathers) {
  const Communicator& w = test_env::world();
  const int n = w.size(), r = w.rank();
  EXPECT_DOUBLE_EQ(w.allreduce_sum(double(r + 1)), n * (n + 1) / 2.0);
  EXPECT_DOUBLE_EQ(w.allreduce_max(double(r)), double(n - 1));
  EXPECT_DOUBLE_EQ(w.allreduce_min(double(r) - 1.0), -1.0);
  EXPECT_EQ(w.allreduce_sum(long(r) * 1000000000L), long(n) * (n - 1) / 2 * 1000000000L);
  std::vector<double> v = {1.0, double(r), -double(r)};
  w.allreduce_sum(v);
  EXPECT_EQ(v, (std::vector<double>{double(n), n * (n - 1) / 2.0, -n * (n - 1) / 2.0}));
  std::vector<double> m = {double(r), -double(r)};
  w.allreduce_max(m);
  EXPECT_EQ(m, (std::vector<double>{double(n - 1), 0.0}));
  const std::vector<long> ranks = w.allgather(long(r));
  for (int k = 0; k < n; ++k) EXPECT_EQ(ranks[k], k);
  std::vector<long> mine(static_cast<std::size_t>(r), long(r));  // rank r contributes r copies of r
  std::vector<long> expected;
  for (int k = 0; k < n; ++k) expected.insert(expected.end(), std::size_t(k), long(k));
  EXPECT_EQ(w.allgatherv(mine), expected);
  const std::vector<double> d = w.allgatherv(std::vector<double>{0.5 * r});
  ASSERT_EQ(int(d.size()), n);
  EXPECT_DOUBLE_EQ(d[n - 1], 0.5 * (n - 1));
}

TEST(AgreeOnError, AllSucceed) {
  const Status s = agree_on_error(test_env::world(), Status::success());
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(s.rank, -1);
}

TEST(AgreeOnError, OneFailingRankIsSeenByAll) {
  const Communicator& w = test_env::world();
  const int bad = w.size() - 1;  // the last rank, e.g. a file missing on its node only
  const Status local = w.rank() == bad
                           ? Status::failure(3, "rank " + std::to_string(bad) + ": cannot read x")
                           : Status::success();
  const Status s = agree_on_error(w, local);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code, 3);
  EXPECT_EQ(s.rank, bad);
  EXPECT_EQ(s.message, "rank " + std::to_string(bad) + ": cannot read x");
}

TEST(AgreeOnError, TheLowestFailingRankWins) {
  const Communicator& w = test_env::world();
  const Status local = w.rank() == 0
                           ? Status::success()
                           : Status::failure(10 + w.rank(), "r" + std::to_string(w.rank()));
  const Status s = agree_on_error(w, local);
  if (w.size() == 1) {
    EXPECT_TRUE(s.ok());
  } else {
    EXPECT_EQ(s.code, 11);
    EXPECT_EQ(s.message, "r1");
    EXPECT_EQ(s.rank, 1);
  }
  EXPECT_EQ(Status::failure(0, "zero means failure too").code, 1);
}

TEST(AgreeOnError, RunCollectivelyMapsExceptionsToExitCodes) {
  const Communicator& w = test_env::world();
  const int bad = w.size() > 1 ? 1 : 0;
  Status s = run_collectively(w, [&] {
    if (w.rank() == bad) throw pwave::InputError("model.vp", "deck.yaml:3", "must be positive");
  });
  EXPECT_EQ(s.code, 2);
  EXPECT_EQ(s.rank, bad);
  EXPECT_EQ(s.message, "deck.yaml:3: 'model.vp': must be positive");
  s = run_collectively(w, [&] {
    if (w.rank() == 0) throw pwave::RuntimeError("NaN at step 12");
  });
  EXPECT_EQ(s.code, 1);
  EXPECT_EQ(s.message, "NaN at step 12");
  s = run_collectively(w, [&] {
    if (w.rank() == w.size() - 1) throw 42;
  });
  EXPECT_EQ(s.code, 1);
  EXPECT_EQ(s.message, "unknown error");
  EXPECT_TRUE(run_collectively(w, [] {}).ok());
}
