#include "pwave/parallel/allreduce.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <vector>

#include "backends/gpu_aware_mpi.hpp"
#include "pwave/core/error.hpp"

#ifdef PWAVE_HAVE_MPI
#include "pwave/parallel/mpi_native.hpp"
#endif

namespace pwave::parallel {

// ---- path choice -------------------------------------------------------------------------------

GpuAwareSetting parse_gpu_aware_setting(const std::string& text, const std::string& key) {
  std::string t = text;
  for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (t == "auto") return GpuAwareSetting::automatic;
  if (t == "on" || t == "true" || t == "yes" || t == "1") return GpuAwareSetting::on;
  if (t == "off" || t == "false" || t == "no" || t == "0") return GpuAwareSetting::off;
  throw InputError(key, "", "must be on, off or auto, got '" + text + "'");
}

std::string AllreduceChoice::log_line() const {
  return std::string(path == AllreducePath::device ? "allreduce: device buffers straight to MPI"
                                                   : "allreduce: staged through host memory") +
         " (" + reason + ")";
}

AllreduceChoice choose_allreduce_path(GpuAwareSetting deck) {
  if (!backend::device_memory_is_separate()) {
    return {AllreducePath::device, backend::gpu_aware_reason()};
  }
  if (!built_with_mpi()) return {AllreducePath::device, "built without MPI: one rank"};
  const char* env = std::getenv("PWAVE_GPU_AWARE_MPI");
  if (env && *env) {
    const GpuAwareSetting s = parse_gpu_aware_setting(env, "PWAVE_GPU_AWARE_MPI");
    if (s != GpuAwareSetting::automatic) {
      return {s == GpuAwareSetting::on ? AllreducePath::device : AllreducePath::staged,
              std::string("PWAVE_GPU_AWARE_MPI=") + env};
    }
  }
  if (deck != GpuAwareSetting::automatic) {
    return {deck == GpuAwareSetting::on ? AllreducePath::device : AllreducePath::staged,
            deck == GpuAwareSetting::on ? "set on in the deck" : "set off in the deck"};
  }
  const bool aware = backend::mpi_is_gpu_aware();
  return {aware ? AllreducePath::device : AllreducePath::staged,
          std::string("detected: ") + backend::gpu_aware_reason()};
}

// ---- requests ----------------------------------------------------------------------------------

struct AllreduceRequest::Impl {
#ifdef PWAVE_HAVE_MPI
  std::vector<MPI_Request> requests;
#endif
  std::function<void()> finish;  // copies a staged result back
  bool done = false;
  void complete() {
    if (finish) finish();
    finish = nullptr;
    done = true;
  }
};

AllreduceRequest::AllreduceRequest() = default;
AllreduceRequest::AllreduceRequest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AllreduceRequest::AllreduceRequest(AllreduceRequest&&) noexcept = default;
AllreduceRequest& AllreduceRequest::operator=(AllreduceRequest&& other) noexcept {
  if (this != &other) {
    if (impl_ && !impl_->done) wait();
    impl_ = std::move(other.impl_);
  }
  return *this;
}
AllreduceRequest::~AllreduceRequest() {
  if (impl_ && !impl_->done) wait();
}

bool AllreduceRequest::done() const {
  return !impl_ || impl_->done;
}

bool AllreduceRequest::test() {
  if (done()) return true;
#ifdef PWAVE_HAVE_MPI
  int flag = 1;
  if (!impl_->requests.empty()) {
    MPI_Testall(int(impl_->requests.size()), impl_->requests.data(), &flag, MPI_STATUSES_IGNORE);
  }
  if (!flag) return false;
#endif
  impl_->complete();
  return true;
}

void AllreduceRequest::wait() {
  if (done()) return;
#ifdef PWAVE_HAVE_MPI
  if (!impl_->requests.empty()) {
    MPI_Waitall(int(impl_->requests.size()), impl_->requests.data(), MPI_STATUSES_IGNORE);
  }
#endif
  impl_->complete();
}

// ---- sums --------------------------------------------------------------------------------------

namespace {

template <class T>
using DeviceUnmanaged = Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using HostUnmanaged = Kokkos::View<T*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Copies n values between the reduced array and its host stage.
template <class T>
void to_host(const T* data, T* host, std::size_t n, bool host_accessible) {
  if (host_accessible) {
    std::copy(data, data + n, host);
  } else {
    Kokkos::deep_copy(HostUnmanaged<T>(host, n), DeviceUnmanaged<T>(const_cast<T*>(data), n));
  }
}
template <class T>
void from_host(const T* host, T* data, std::size_t n, bool host_accessible) {
  if (host_accessible) {
    std::copy(host, host + n, data);
  } else {
    Kokkos::deep_copy(DeviceUnmanaged<T>(data, n), HostUnmanaged<T>(const_cast<T*>(host), n));
    fence_all();
  }
}

#ifdef PWAVE_HAVE_MPI
constexpr std::size_t kMaxCount = std::size_t(1) << 30;  // MPI counts are int
#endif

}  // namespace

namespace detail {

template <class T>
void allreduce_sum_raw(const Communicator& comm, T* data, std::size_t n, bool host_accessible,
                       AllreducePath path, StagingBuffer<T>& staging) {
  if (!comm.uses_mpi() || comm.size() == 1 || n == 0) return;
#ifdef PWAVE_HAVE_MPI
  fence_all();
  T* buf = data;
  if (path == AllreducePath::staged) {
    buf = staging.host(n);
    to_host(data, buf, n, host_accessible);
  }
  for (std::size_t off = 0; off < n; off += kMaxCount) {
    MPI_Allreduce(MPI_IN_PLACE, buf + off, int(std::min(kMaxCount, n - off)), mpi_type<T>(),
                  MPI_SUM, native(comm));
  }
  if (path == AllreducePath::staged) from_host(buf, data, n, host_accessible);
#else
  (void)data, (void)host_accessible, (void)path, (void)staging;
#endif
}

template <class T>
AllreduceRequest iallreduce_sum_raw(const Communicator& comm, T* data, std::size_t n,
                                    bool host_accessible, AllreducePath path,
                                    StagingBuffer<T>& staging) {
  if (!comm.uses_mpi() || comm.size() == 1 || n == 0) return AllreduceRequest();
  auto impl = std::make_unique<AllreduceRequest::Impl>();
#ifdef PWAVE_HAVE_MPI
  fence_all();
  T* buf = data;
  if (path == AllreducePath::staged) {
    buf = staging.host(n);
    to_host(data, buf, n, host_accessible);
    impl->finish = [buf, data, n, host_accessible] { from_host(buf, data, n, host_accessible); };
  }
  for (std::size_t off = 0; off < n; off += kMaxCount) {
    impl->requests.emplace_back();
    MPI_Iallreduce(MPI_IN_PLACE, buf + off, int(std::min(kMaxCount, n - off)), mpi_type<T>(),
                   MPI_SUM, native(comm), &impl->requests.back());
  }
#else
  (void)data, (void)host_accessible, (void)path, (void)staging;
#endif
  return AllreduceRequest(std::move(impl));
}

template void allreduce_sum_raw<float>(const Communicator&, float*, std::size_t, bool,
                                       AllreducePath, StagingBuffer<float>&);
template void allreduce_sum_raw<double>(const Communicator&, double*, std::size_t, bool,
                                        AllreducePath, StagingBuffer<double>&);
template AllreduceRequest iallreduce_sum_raw<float>(const Communicator&, float*, std::size_t, bool,
                                                    AllreducePath, StagingBuffer<float>&);
template AllreduceRequest iallreduce_sum_raw<double>(const Communicator&, double*, std::size_t,
                                                     bool, AllreducePath, StagingBuffer<double>&);

}  // namespace detail

}  // namespace pwave::parallel
