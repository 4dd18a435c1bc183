#pragma once
// MPI, or its absence, behind one small interface. Built with PWAVE_HAVE_MPI the calls go to
// MPI; without it (or when MPI was never initialised) a Communicator is a single rank and every
// call is local. No MPI header is included here: code that needs the raw MPI_Comm includes
// pwave/parallel/mpi_native.hpp.
//
// Every member that talks to other ranks is collective: all ranks of the communicator must call
// it, in the same order, or the job hangs.

#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pwave::parallel {

/// True when pwave was built with MPI (PWAVE_HAVE_MPI).
bool built_with_mpi();

/// The node-local rank as the launcher tells it through the environment (used when MPI is not
/// running): the first set of OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID,
/// MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID (MPICH hydra), PMI_LOCAL_RANK, PALS_LOCAL_RANKID,
/// with the matching local size variable; rank 0 of 1 from "default" when none is set.
struct LocalRank {
  int rank = 0;
  int size = 1;  ///< at least rank + 1
  std::string source = "default";
};
LocalRank local_rank_from_environment();

/// True when an MPI launcher started this process: mpirun/mpiexec of Open MPI, MPICH, Intel MPI
/// or MVAPICH, srun, Cray PALS or Flux, seen from the variables they set (OMPI_COMM_WORLD_SIZE,
/// PMIX_RANK, PMI_RANK, PMI_SIZE, SLURM_PROCID, MV2_COMM_WORLD_RANK, PALS_RANKID,
/// FLUX_TASK_RANK). PWAVE_MPI=on in the environment says yes for a launcher not in that list.
/// The pwave driver starts MPI only then: a process started alone is one rank either way, and
/// Open MPI 4 would start it as a "singleton" that forks a daemon and shares a session folder in
/// /tmp with every other Open MPI process of the user (two singletons starting together can fail
/// in MPI_Init: "mkdir /tmp/ompi.<host>.<uid>: File exists").
bool started_by_mpi_launcher();

/// Starts MPI for the lifetime of the object (MPI_Init_thread with MPI_THREAD_FUNNELED: only the
/// main thread calls MPI) unless it is already running, and finalises it at destruction if it
/// started it. Without MPI it does nothing. Create it first in main(), before
/// set_kokkos_device_from_local_rank() and Kokkos::ScopeGuard, so that Kokkos is finalised
/// before MPI:
///
///   pwave::parallel::Environment mpi(argc, argv);
///   pwave::parallel::Communicator world;
///   pwave::parallel::set_kokkos_device_from_local_rank(world.local_rank());
///   Kokkos::ScopeGuard kokkos(argc, argv);
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  /// True when this object called MPI_Init_thread (and will call MPI_Finalize).
  bool initialised_here() const { return initialised_here_; }
  /// The thread level MPI provided (MPI_THREAD_*), -1 without MPI.
  int thread_level() const { return thread_level_; }
  /// Non-empty when something is off, e.g. a build without MPI started by mpirun or srun with
  /// several tasks (every process would then run the whole job on its own).
  const std::string& warning() const { return warning_; }

 private:
  bool initialised_here_ = false;
  int thread_level_ = -1;
  std::string warning_;
};

/// A group of ranks (MPI_COMM_WORLD by default). Copies share one duplicated MPI communicator,
/// so pwave's messages never mix with the caller's. Construction is collective.
class Communicator {
 public:
  /// MPI_COMM_WORLD when MPI is initialised; a single rank otherwise (also in builds without
  /// MPI), so library code may always create one.
  Communicator();
  /// A single rank that never calls MPI.
  static Communicator self();

  int rank() const;
  int size() const;
  bool is_root() const { return rank() == 0; }
  /// True when calls go to MPI (built with MPI, MPI initialised, not self()).
  bool uses_mpi() const;

  /// Rank among the ranks on this node: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or without
  /// MPI local_rank_from_environment() (so that several copies of a build without MPI started
  /// by a launcher still spread over the node's GPUs).
  int local_rank() const;
  /// Number of ranks on this node (> local_rank()).
  int local_size() const;
  /// Where local_rank() came from ("MPI_Comm_split_type", a variable name, or "default").
  const std::string& local_rank_source() const;

  void barrier() const;
  /// Rank `root`'s `value` on every rank (any bytes: std::string holds binary data too).
  std::string broadcast(const std::string& value, int root = 0) const;
  /// Sum / maximum / minimum over ranks, returned on every rank.
  double allreduce_sum(double value) const;
  double allreduce_max(double value) const;
  double allreduce_min(double value) const;
  long allreduce_sum(long value) const;
  /// Element-wise, in place (same length on every rank).
  void allreduce_sum(std::vector<double>& values) const;
  void allreduce_max(std::vector<double>& values) const;
  /// Every rank's `value`, indexed by rank.
  std::vector<long> allgather(long value) const;
  /// Concatenation of every rank's `values` in rank order (lengths may differ).
  std::vector<long> allgatherv(const std::vector<long>& values) const;
  std::vector<double> allgatherv(const std::vector<double>& values) const;

  /// Ends every rank of the job now with `code` (MPI_Abort; std::exit without MPI). For failures
  /// that not all ranks see at a point where they can agree_on_error().
  [[noreturn]] void abort(int code) const;

  struct Impl;
  /// Internal (mpi_native.hpp).
  const std::shared_ptr<Impl>& impl() const { return impl_; }
  explicit Communicator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

/// The outcome of some work on one rank: code 0 is success; otherwise the exit code the job
/// should end with (pwave: 2 bad input, 1 anything else) and a one-line message.
struct Status {
  int code = 0;
  std::string message;
  int rank = -1;  ///< after agree_on_error: the failing rank whose status this is, else -1
  bool ok() const { return code == 0; }
  static Status success() { return {}; }
  /// A failure; a code of 0 is turned into 1.
  static Status failure(int code, std::string message);
};

/// The exit code and message for an exception: pwave::InputError -> 2, pwave::RuntimeError and
/// other std::exception -> 1, anything else -> 1 ("unknown error").
Status status_from_exception(const std::exception_ptr& e);

/// Collective. Every rank passes its own status; every rank gets back the status of the lowest
/// failing rank (with .rank set), or success when all succeeded. Then rank 0 can print the
/// message and all ranks return the same exit code: nobody waits forever for a rank that gave up.
Status agree_on_error(const Communicator& comm, const Status& local);

/// Collective. Runs f() on every rank, turns an exception into a Status, and agrees on it:
///   const Status s = run_collectively(world, [&] { deck = io::read_deck(path); });
///   if (!s.ok()) { if (world.is_root()) report(s.message); return s.code; }
template <class F>
Status run_collectively(const Communicator& comm, F&& f) {
  Status local;
  try {
    f();
  } catch (...) {
    local = status_from_exception(std::current_exception());
  }
  return agree_on_error(comm, local);
}

}  // namespace pwave::parallel
