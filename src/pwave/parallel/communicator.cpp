#include "pwave/parallel/communicator.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>

#include "pwave/core/error.hpp"

#ifdef PWAVE_HAVE_MPI
#include "pwave/parallel/mpi_native.hpp"
#endif

namespace pwave::parallel {

struct Communicator::Impl {
  bool mpi = false;
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  std::string local_rank_source = "default";
#ifdef PWAVE_HAVE_MPI
  MPI_Comm comm = MPI_COMM_SELF;
  bool owned = false;
  ~Impl() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned && !finalized) MPI_Comm_free(&comm);
  }
#endif
};

namespace {

/// Launcher variables that hold the node-local rank, most specific first.
const char* const kLocalRankVariables[] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                                           "SLURM_LOCALID",
                                           "MV2_COMM_WORLD_LOCAL_RANK",
                                           "MPI_LOCALRANKID",
                                           "PMI_LOCAL_RANK",
                                           "PALS_LOCAL_RANKID"};

bool parse_int(const char* text, int& out) {
  if (!text || !*text) return false;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > INT_MAX) return false;
  out = int(v);
  return true;
}

void apply_environment_local_rank(Communicator::Impl& c) {
  const LocalRank l = local_rank_from_environment();
  c.local_rank = l.rank;
  c.local_size = l.size;
  c.local_rank_source = l.source;
}

#ifdef PWAVE_HAVE_MPI
bool mpi_running() {
  int initialised = 0, finalized = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalized);
  return initialised && !finalized;
}

std::shared_ptr<Communicator::Impl> make_impl(MPI_Comm parent) {
  auto c = std::make_shared<Communicator::Impl>();
  if (!mpi_running()) {
    apply_environment_local_rank(*c);
    return c;
  }
  MPI_Comm_dup(parent, &c->comm);
  c->owned = true;
  c->mpi = true;
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    MPI_Comm_rank(node, &c->local_rank);
    MPI_Comm_size(node, &c->local_size);
    MPI_Comm_free(&node);
    c->local_rank_source = "MPI_Comm_split_type";
  } else {
    apply_environment_local_rank(*c);
  }
  return c;
}

// MPI counts are int: long buffers go in pieces.
constexpr std::size_t kMaxCount = std::size_t(1) << 30;
#endif

}  // namespace

LocalRank local_rank_from_environment() {
  static const char* const sizes[] = {"OMPI_COMM_WORLD_LOCAL_SIZE",
                                      "SLURM_NTASKS_PER_NODE",
                                      "MV2_COMM_WORLD_LOCAL_SIZE",
                                      "MPI_LOCALNRANKS",
                                      "PMI_LOCAL_SIZE",
                                      "PALS_LOCAL_SIZE"};
  LocalRank l;
  for (std::size_t k = 0; k < std::size(kLocalRankVariables); ++k) {
    int v = 0;
    if (parse_int(std::getenv(kLocalRankVariables[k]), v)) {
      l.rank = v;
      l.source = kLocalRankVariables[k];
      int n = 0;
      if (parse_int(std::getenv(sizes[k]), n)) l.size = n;
      break;
    }
  }
  if (l.size <= l.rank) l.size = l.rank + 1;
  return l;
}

bool built_with_mpi() {
#ifdef PWAVE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool started_by_mpi_launcher() {
  const char* forced = std::getenv("PWAVE_MPI");
  if (forced && std::string(forced) == "on") return true;
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID",
        "MV2_COMM_WORLD_RANK", "PALS_RANKID", "FLUX_TASK_RANK"}) {
    if (std::getenv(name)) return true;
  }
  return false;
}

// ---- Environment -------------------------------------------------------------------------------

Environment::Environment(int& argc, char**& argv) {
#ifdef PWAVE_HAVE_MPI
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &thread_level_);
    initialised_here_ = true;
  } else {
    MPI_Query_thread(&thread_level_);
  }
#else
  (void)argc;
  (void)argv;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "PMIX_SIZE"}) {
    int n = 0;
    if (parse_int(std::getenv(name), n) && n > 1) {
      warning_ = "this pwave was built without MPI but started as one of " + std::to_string(n) +
                 " tasks (" + name + "): every process runs the whole job alone";
      break;
    }
  }
#endif
}

Environment::~Environment() {
#ifdef PWAVE_HAVE_MPI
  if (initialised_here_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
#endif
}

// ---- Communicator ------------------------------------------------------------------------------

Communicator::Communicator()
#ifdef PWAVE_HAVE_MPI
    : impl_(make_impl(MPI_COMM_WORLD)){}
#else
    : impl_(std::make_shared<Impl>()) {
  apply_environment_local_rank(*impl_);
}
#endif

      Communicator Communicator::self() {
  auto c = std::make_shared<Impl>();
  return Communicator(c);
}

int Communicator::rank() const {
  return impl_->rank;
}
int Communicator::size() const {
  return impl_->size;
}
bool Communicator::uses_mpi() const {
  return impl_->mpi;
}
int Communicator::local_rank() const {
  return impl_->local_rank;
}
int Communicator::local_size() const {
  return impl_->local_size;
}
const std::string& Communicator::local_rank_source() const {
  return impl_->local_rank_source;
}

#ifdef PWAVE_HAVE_MPI

MPI_Comm native(const Communicator& comm) {
  return comm.impl()->comm;
}

Communicator from_native(MPI_Comm comm) {
  return Communicator(make_impl(comm));
}

void Communicator::barrier() const {
  if (impl_->mpi) MPI_Barrier(impl_->comm);
}

std::string Communicator::broadcast(const std::string& value, int root) const {
  if (!impl_->mpi) return value;
  long n = long(value.size());
  MPI_Bcast(&n, 1, MPI_LONG, root, impl_->comm);
  std::string out = impl_->rank == root ? value : std::string(std::size_t(n), '\0');
  for (std::size_t off = 0; off < std::size_t(n); off += kMaxCount) {
    const std::size_t len = std::min(kMaxCount, std::size_t(n) - off);
    MPI_Bcast(&out[off], int(len), MPI_CHAR, root, impl_->comm);
  }
  return out;
}

namespace {
template <class T>
T reduce_one(const Communicator::Impl& c, T v, MPI_Op op) {
  if (!c.mpi) return v;
  T out{};
  MPI_Allreduce(&v, &out, 1, mpi_type<T>(), op, c.comm);
  return out;
}
void reduce_vector(const Communicator::Impl& c, std::vector<double>& v, MPI_Op op) {
  if (!c.mpi) return;
  for (std::size_t off = 0; off < v.size(); off += kMaxCount) {
    const std::size_t len = std::min(kMaxCount, v.size() - off);
    MPI_Allreduce(MPI_IN_PLACE, v.data() + off, int(len), MPI_DOUBLE, op, c.comm);
  }
}
template <class T>
std::vector<T> gatherv(const Communicator::Impl& c, const std::vector<T>& mine) {
  if (!c.mpi) return mine;
  std::vector<int> counts(std::size_t(c.size)), displs(std::size_t(c.size));
  const int n = int(mine.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, c.comm);
  int total = 0;
  for (int r = 0; r < c.size; ++r) {
    displs[std::size_t(r)] = total;
    total += counts[std::size_t(r)];
  }
  std::vector<T> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), n, mpi_type<T>(), all.data(), counts.data(), displs.data(),
                 mpi_type<T>(), c.comm);
  return all;
}
}  // namespace

double Communicator::allreduce_sum(double v) const {
  return reduce_one(*impl_, v, MPI_SUM);
}
double Communicator::allreduce_max(double v) const {
  return reduce_one(*impl_, v, MPI_MAX);
}
double Communicator::allreduce_min(double v) const {
  return reduce_one(*impl_, v, MPI_MIN);
}
long Communicator::allreduce_sum(long v) const {
  return reduce_one(*impl_, v, MPI_SUM);
}
void Communicator::allreduce_sum(std::vector<double>& v) const {
  reduce_vector(*impl_, v, MPI_SUM);
}
void Communicator::allreduce_max(std::vector<double>& v) const {
  reduce_vector(*impl_, v, MPI_MAX);
}

std::vector<long> Communicator::allgather(long value) const {
  std::vector<long> all(std::size_t(impl_->size), value);
  if (impl_->mpi) MPI_Allgather(&value, 1, MPI_LONG, all.data(), 1, MPI_LONG, impl_->comm);
  return all;
}
std::vector<long> Communicator::allgatherv(const std::vector<long>& v) const {
  return gatherv(*impl_, v);
}
std::vector<double> Communicator::allgatherv(const std::vector<double>& v) const {
  return gatherv(*impl_, v);
}

void Communicator::abort(int code) const {
  std::cout.flush();
  std::cerr.flush();
  if (impl_->mpi) MPI_Abort(impl_->comm, code);
  std::exit(code);
}

#else  // no MPI: one rank

void Communicator::barrier() const {}
std::string Communicator::broadcast(const std::string& value, int) const {
  return value;
}
double Communicator::allreduce_sum(double v) const {
  return v;
}
double Communicator::allreduce_max(double v) const {
  return v;
}
double Communicator::allreduce_min(double v) const {
  return v;
}
long Communicator::allreduce_sum(long v) const {
  return v;
}
void Communicator::allreduce_sum(std::vector<double>&) const {}
void Communicator::allreduce_max(std::vector<double>&) const {}
std::vector<long> Communicator::allgather(long value) const {
  return {value};
}
std::vector<long> Communicator::allgatherv(const std::vector<long>& v) const {
  return v;
}
std::vector<double> Communicator::allgatherv(const std::vector<double>& v) const {
  return v;
}
void Communicator::abort(int code) const {
  std::cout.flush();
  std::cerr.flush();
  std::exit(code);
}

#endif

// ---- Status ------------------------------------------------------------------------------------

Status Status::failure(int code, std::string message) {
  Status s;
  s.code = code == 0 ? 1 : code;
  s.message = std::move(message);
  return s;
}

Status status_from_exception(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return Status::failure(2, x.what());
  } catch (const std::exception& x) {
    return Status::failure(1, x.what());
  } catch (...) {
    return Status::failure(1, "unknown error");
  }
}

Status agree_on_error(const Communicator& comm, const Status& local) {
  Status out = local;
  if (!out.ok()) out.rank = comm.rank();
  if (comm.size() == 1) return out;
#ifdef PWAVE_HAVE_MPI
  const MPI_Comm c = native(comm);
  const int mine = local.ok() ? comm.size() : comm.rank();
  int first = comm.size();
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c);
  if (first == comm.size()) return Status::success();
  int code = local.code;
  MPI_Bcast(&code, 1, MPI_INT, first, c);
  out.code = code;
  out.message = comm.broadcast(local.message, first);
  out.rank = first;
#endif
  return out;
}

}  // namespace pwave::parallel
