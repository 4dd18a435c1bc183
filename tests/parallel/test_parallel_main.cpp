// GoogleTest entry point of the MPI tests: MPI first, then Kokkos (finalised before MPI). Every
// rank runs every test; rank 0 prints the usual report, the other ranks print only their
// failures, prefixed with their rank; the exit code is the worst over ranks.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <iostream>
#include <memory>
#include <sstream>

#include "parallel_test_env.hpp"

namespace pwave::parallel::test_env {

namespace {
const Communicator* g_world = nullptr;

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::ostringstream s;
    s << "[rank " << rank_ << "] " << (r.file_name() ? r.file_name() : "?") << ":"
      << r.line_number() << ": failure\n"
      << r.summary() << "\n";
    std::cerr << s.str() << std::flush;
  }

 private:
  int rank_;
};
}  // namespace

const Communicator& world() {
  return *g_world;
}

}  // namespace pwave::parallel::test_env

int main(int argc, char** argv) {
  pwave::parallel::Environment mpi(argc, argv);
  int code = 0;
  {
    pwave::parallel::Communicator world;
    pwave::parallel::test_env::g_world = &world;
    Kokkos::ScopeGuard kokkos(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    if (world.rank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new pwave::parallel::test_env::RankFailurePrinter(world.rank()));
    }
    const int local = RUN_ALL_TESTS();
    code = int(world.allreduce_max(double(local)));
    if (world.rank() == 0) {
      std::cout << "test_parallel: " << world.size() << " rank(s), "
                << (code == 0 ? "all passed on every rank" : "FAILED on some rank") << std::endl;
    }
    pwave::parallel::test_env::g_world = nullptr;
  }
  return code;
}
