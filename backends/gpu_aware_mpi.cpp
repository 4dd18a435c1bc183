#include "backends/gpu_aware_mpi.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#ifdef PWAVE_HAVE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#endif

// Device counts before Kokkos::initialize on Kokkos < 4.3 come from the vendor runtime.
#if KOKKOS_VERSION < 40300
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif
#endif

namespace pwave::backend {

namespace {

enum class Device { host, cuda, hip, other };

Device device_kind() {
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) return Device::host;
#if defined(KOKKOS_ENABLE_CUDA)
  return Device::cuda;
#elif defined(KOKKOS_ENABLE_HIP)
  return Device::hip;
#else
  return Device::other;
#endif
}

[[maybe_unused]] bool env_equals(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

struct Decision {
  bool aware = false;
  std::string reason;
};

#ifdef PWAVE_HAVE_MPI
// Asks the MPI library about `kind` (cuda or hip); MPI must be initialised.
Decision ask_mpi(Device kind) {
  const bool cuda = kind == Device::cuda;
  const std::string build = cuda ? "CUDA build; " : "HIP build; ";
#if defined(OPEN_MPI) && OPEN_MPI
  if (cuda) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    const int q = MPIX_Query_cuda_support();
    return {q == 1, build + "Open MPI MPIX_Query_cuda_support() = " + std::to_string(q)};
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    return {false, build + "Open MPI built without CUDA support (MPIX_CUDA_AWARE_SUPPORT = 0)"};
#else
    return {false, build + "Open MPI without the CUDA extension (no MPIX_CUDA_AWARE_SUPPORT)"};
#endif
  }
#if defined(OMPI_HAVE_MPI_EXT_ROCM) && OMPI_HAVE_MPI_EXT_ROCM
  const int q = MPIX_Query_rocm_support();
  return {q == 1, build + "Open MPI MPIX_Query_rocm_support() = " + std::to_string(q)};
#else
  return {false, build + "Open MPI without the ROCm extension (needs Open MPI >= 5)"};
#endif
#elif defined(MPICH_NUMVERSION)
  // MPICH family (MPICH, Cray MPICH, MVAPICH, Intel MPI). MPIX_GPU_SUPPORT_* are type ids
  // (CUDA is 0), so test that they are defined, not their value.
  int flag = 0;
  std::string how;
#if defined(MPIX_GPU_SUPPORT_CUDA)
  if (cuda) {
    MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &flag);
    how = "MPICH MPIX_GPU_query_support(CUDA) = " + std::to_string(flag);
  }
#endif
#if defined(MPIX_GPU_SUPPORT_HIP)
  if (!cuda) {
    MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &flag);
    how = "MPICH MPIX_GPU_query_support(HIP) = " + std::to_string(flag);
  }
#endif
  if (flag) return {true, build + how};
  if (env_equals("MPICH_GPU_SUPPORT_ENABLED", "1")) {
    return {true, build + "Cray MPICH MPICH_GPU_SUPPORT_ENABLED=1"};
  }
  const char* mv2 = cuda ? "MV2_USE_CUDA" : "MV2_USE_ROCM";
  if (env_equals(mv2, "1")) return {true, build + "MVAPICH2 " + mv2 + "=1"};
  if (how.empty()) how = "MPICH without MPIX_GPU_query_support";
  return {false, build + how + ", MPICH_GPU_SUPPORT_ENABLED and " + mv2 + " not 1"};
#else
  return {false, build + "unknown MPI implementation: assumed not GPU-aware"};
#endif
}
#endif

Decision decide() {
  const Device kind = device_kind();
  if (kind == Device::host) {
    return {false, "host memory space: buffers go to MPI as they are, nothing to stage"};
  }
#ifndef PWAVE_HAVE_MPI
  return {false, "built without MPI"};
#else
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) return {false, "MPI not initialised"};
  if (kind == Device::other) return {false, "device backend without a GPU-aware MPI query"};
  return ask_mpi(kind);
#endif
}

// Decided once MPI is running (or there is no MPI); asked again while it is not initialised.
const Decision& decision() {
  static std::mutex mutex;
  static Decision final_decision, provisional;
  static bool decided = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (decided) return final_decision;
  Decision d = decide();
  bool final = true;
#ifdef PWAVE_HAVE_MPI
  int initialised = 0;
  MPI_Initialized(&initialised);
  final = initialised != 0 || device_kind() == Device::host;
#endif
  if (!final) {
    provisional = d;
    return provisional;
  }
  final_decision = d;
  decided = true;
  return final_decision;
}

}  // namespace

bool mpi_is_gpu_aware() {
  return decision().aware;
}
const char* gpu_aware_reason() {
  return decision().reason.c_str();
}
bool device_memory_is_separate() {
  return device_kind() != Device::host;
}

int visible_device_count() {
#if KOKKOS_VERSION >= 40300
  const int n = Kokkos::num_devices();  // -1 without a device backend
  return n > 0 ? n : 0;
#elif defined(KOKKOS_ENABLE_CUDA)
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
#elif defined(KOKKOS_ENABLE_HIP)
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess ? n : 0;
#else
  return 0;
#endif
}

}  // namespace pwave::backend
