#pragma once
// The raw MPI communicator behind a Communicator (builds with PWAVE_HAVE_MPI only).

#ifdef PWAVE_HAVE_MPI
#include <mpi.h>

#include "pwave/parallel/communicator.hpp"

namespace pwave::parallel {

/// The MPI communicator `comm` uses; MPI_COMM_SELF for a Communicator that does not use MPI.
MPI_Comm native(const Communicator& comm);

/// A Communicator over a duplicate of `comm` (collective over `comm`).
Communicator from_native(MPI_Comm comm);

/// The MPI datatype of T (float, double, int, long).
template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_type<int>() {
  return MPI_INT;
}
template <>
inline MPI_Datatype mpi_type<long>() {
  return MPI_LONG;
}

}  // namespace pwave::parallel
#endif
