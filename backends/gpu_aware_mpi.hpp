#pragma once
// Can the MPI library read and write the default memory space's (device) buffers directly?
// Which backend is in use and how each MPI flavour answers is backend knowledge, so it lives
// here; the policy (environment/deck override, logging) is in pwave/parallel/allreduce.hpp.

namespace pwave::backend {

/// True when buffers in Kokkos::DefaultExecutionSpace::memory_space may be handed to MPI:
///  - host-accessible memory spaces (Serial, OpenMP, Threads; CUDA UVM): false, since there is
///    no device memory and nothing to stage: host buffers go to MPI as they are;
///  - CUDA: Open MPI's compile-time MPIX_CUDA_AWARE_SUPPORT and run-time
///    MPIX_Query_cuda_support(); MPICH >= 4 MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA);
///    Cray MPICH MPICH_GPU_SUPPORT_ENABLED=1; MVAPICH2 MV2_USE_CUDA=1;
///  - HIP: Open MPI >= 5 MPIX_Query_rocm_support(); MPICH MPIX_GPU_query_support(
///    MPIX_GPU_SUPPORT_HIP); Cray MPICH MPICH_GPU_SUPPORT_ENABLED=1; MVAPICH2 MV2_USE_ROCM=1;
///  - anything else, or a build without MPI, or MPI not initialised yet: false.
/// Decided once, at the first call (which must come after MPI_Init).
bool mpi_is_gpu_aware();

/// How mpi_is_gpu_aware() decided, for the log, e.g. "CUDA build; Open MPI
/// MPIX_Query_cuda_support() = 0".
const char* gpu_aware_reason();

/// True when the default memory space is device memory that the host cannot read (CUDA, HIP,
/// SYCL device memory): only then does an allreduce have a choice of path.
bool device_memory_is_separate();

/// Number of devices visible to this process for the device backend, callable before
/// Kokkos::initialize (Kokkos::num_devices() from Kokkos 4.3, else the vendor runtime);
/// 0 for host-only builds.
int visible_device_count();

}  // namespace pwave::backend
