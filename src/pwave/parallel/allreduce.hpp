#pragma once
// Sums of device arrays over ranks: straight from device memory when MPI is GPU-aware (or the
// memory is host memory anyway), else staged through a host buffer the caller keeps. Every
// call fences all execution spaces first (Kokkos 4 does not synchronise the default stream for
// MPI). Blocking (allreduce_sum) and non-blocking (iallreduce_sum) forms.

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "pwave/core/types.hpp"
#include "pwave/parallel/communicator.hpp"

namespace pwave::parallel {

/// How device data reach MPI: `device` passes the View's own pointer (GPU-aware MPI, or host
/// memory spaces); `staged` copies into a host buffer, reduces there and copies back.
enum class AllreducePath { device, staged };

/// The user's wish: detect (auto), or force on (device pointers to MPI) or off (staged).
enum class GpuAwareSetting { automatic, on, off };

/// "auto", "on" or "off" (also true/false, yes/no, 1/0); anything else throws pwave::InputError
/// naming `key` (e.g. "PWAVE_GPU_AWARE_MPI" or the deck key).
GpuAwareSetting parse_gpu_aware_setting(const std::string& text, const std::string& key);

/// The path to use and why (for one log line, printed by rank 0).
struct AllreduceChoice {
  AllreducePath path = AllreducePath::device;
  std::string reason;
  /// "gradient allreduce: device pointers to MPI (<reason>)" or "... staged through host ...".
  std::string log_line() const;
};

/// The path for this run. Precedence: PWAVE_GPU_AWARE_MPI=on|off in the environment (so a
/// shared deck can be overridden per cluster), then `deck` (on|off), then detection
/// (backend::mpi_is_gpu_aware()). On host memory spaces the answer is always `device`: the
/// buffers are host memory and staging would only copy them. Call after MPI is initialised.
AllreduceChoice choose_allreduce_path(GpuAwareSetting deck = GpuAwareSetting::automatic);

/// The host buffer of the staged path. Allocates only when a larger size is asked for, so one
/// buffer per reduced array (kept across iterations) means no allocation per call. A buffer
/// must not serve two non-blocking reductions in flight at once.
template <class T>
class StagingBuffer {
 public:
  /// A host array of at least n elements.
  T* host(std::size_t n) {
    if (buf_.extent(0) < n) {
      buf_ = Kokkos::View<T*, HostSpace>(
          Kokkos::view_alloc(std::string("pwave::parallel::staging"), Kokkos::WithoutInitializing),
          n);
    }
    return buf_.data();
  }
  std::size_t capacity() const { return buf_.extent(0); }

 private:
  Kokkos::View<T*, HostSpace> buf_;
};

/// A non-blocking sum in flight. test() drives MPI and finishes the reduction (copying a staged
/// result back) once MPI has; wait() blocks until then. The data must not be read or written
/// meanwhile. The destructor waits, so a request never outlives its buffers by accident. Open
/// MPI and MPICH progress a non-blocking collective mostly inside MPI calls: call test() now and
/// then (e.g. between kernel launches) for the reduction to advance during computation.
class AllreduceRequest {
 public:
  AllreduceRequest();  ///< a completed request
  AllreduceRequest(AllreduceRequest&&) noexcept;
  AllreduceRequest& operator=(AllreduceRequest&&) noexcept;
  ~AllreduceRequest();
  bool test();
  void wait();
  bool done() const;

  struct Impl;
  explicit AllreduceRequest(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

namespace detail {
// The work behind the templates, on raw contiguous memory: `host_accessible` says whether
// `data` may be read by the host; otherwise it lies in pwave::MemSpace. Instantiated for float
// and double.
template <class T>
void allreduce_sum_raw(const Communicator& comm, T* data, std::size_t n, bool host_accessible,
                       AllreducePath path, StagingBuffer<T>& staging);
template <class T>
AllreduceRequest iallreduce_sum_raw(const Communicator& comm, T* data, std::size_t n,
                                    bool host_accessible, AllreducePath path,
                                    StagingBuffer<T>& staging);

template <class View>
constexpr bool host_accessible() {
  return Kokkos::SpaceAccessibility<HostSpace, typename View::memory_space>::accessible;
}
template <class View>
void check_reducible(const View& v) {
  static_assert(
      host_accessible<View>() || std::is_same<typename View::memory_space, MemSpace>::value,
      "pwave::parallel: reduce Views in pwave::MemSpace or host memory");
  if (!v.span_is_contiguous()) {
    throw std::invalid_argument("pwave::parallel: allreduce needs a contiguous View");
  }
}
}  // namespace detail

/// In place: data = sum over ranks of data (element-wise), on every rank. `data` is any
/// contiguous View (any rank, e.g. a DeviceVector or a GridView) of float or double in
/// pwave::MemSpace or host memory. Collective; fences all execution spaces before MPI.
template <class View>
void allreduce_sum(const Communicator& comm, const View& data, AllreducePath path,
                   StagingBuffer<typename View::non_const_value_type>& staging) {
  detail::check_reducible(data);
  detail::allreduce_sum_raw(comm, data.data(), data.size(), detail::host_accessible<View>(), path,
                            staging);
}

/// The same with a staging buffer allocated for this call only (when staged).
template <class View>
void allreduce_sum(const Communicator& comm, const View& data, AllreducePath path) {
  StagingBuffer<typename View::non_const_value_type> staging;
  allreduce_sum(comm, data, path, staging);
}

/// Starts the same sum without waiting (MPI_Iallreduce). The staged path copies device to host
/// now and host to device in test()/wait(); `staging` must live until then.
template <class View>
AllreduceRequest iallreduce_sum(const Communicator& comm, const View& data, AllreducePath path,
                                StagingBuffer<typename View::non_const_value_type>& staging) {
  detail::check_reducible(data);
  return detail::iallreduce_sum_raw(comm, data.data(), data.size(), detail::host_accessible<View>(),
                                    path, staging);
}

}  // namespace pwave::parallel
