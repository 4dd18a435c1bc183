#pragma once
// NumPy .npy files (format 1.0/2.0/3.0), read and written without Python.

#include <cstddef>
#include <string>
#include <vector>

namespace pwave::io {

/// An array read from a .npy file, converted to double and to C order (last index fastest).
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<double> data;
  std::string dtype;  ///< as stored, e.g. "<f4", "<f8", ">f4", "<i4"
};

/// Reads float32/float64 (either endianness) and int32/int64 arrays in C or Fortran order.
/// Throws InputError(key = "", where = path, ...) for a missing/unreadable/truncated file or an
/// unsupported dtype, with a message that says which.
NpyArray read_npy(const std::string& path);

/// Writes a C-order little-endian array atomically (see AtomicFile). Throws RuntimeError.
void write_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);
void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape);

}  // namespace pwave::io
