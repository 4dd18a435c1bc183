#pragma once
// Subnormal ("denormal") floating-point numbers on the host: a wavefield decaying ahead of its
// front and inside the CPML passes through values below the smallest normal number (1.2e-38 in
// float32), and x86 cores take a slow microcoded path for every operation that reads or makes
// one. Flushing them to zero changes nothing a seismogram or gradient can show and makes the
// 3D elastic gradient about 1.6x and the 3D acoustic forward about 1.3x faster on a CPU core
// (bench/README.md, "Subnormal numbers"). GPUs handle them at full speed; nothing to do there.

namespace pwave::backend {

/// Sets flush-to-zero and denormals-are-zero (x86 MXCSR FTZ and DAZ; AArch64 FPCR FZ) on the
/// calling thread and on every thread of the default host execution space. Idempotent; the
/// propagators call it when they are built (BatchPropagator), so a process running pwave
/// computes with subnormals flushed from its first propagator on.
void flush_subnormals_to_zero();

}  // namespace pwave::backend
