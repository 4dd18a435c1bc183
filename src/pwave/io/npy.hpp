#pragma once
// NumPy .npy files (format 1.0/2.0/3.0), read and written without Python.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pwave::io {

/// An array read from a .npy file, converted to double and to C order (last index fastest).
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<double> data;
  std::string dtype;  ///< as stored, e.g. "<f4", "<f8", ">f4", "<i4"
};

/// What the header of an .npy file says, checked against the file's size.
struct NpyHeader {
  std::vector<std::size_t> shape;
  std::string dtype;              ///< as stored, e.g. "<f4"
  char kind = 'f';                ///< 'f' float, 'i' signed integer
  std::size_t item_size = 0;      ///< bytes per value: 4 or 8
  bool little_endian = true;      ///< byte order of the values
  bool native_byte_order = true;  ///< the values can be read in place on this machine
  bool fortran_order = false;     ///< first index fastest
  std::size_t data_offset = 0;    ///< bytes from the start of the file to the first value
  std::size_t count = 0;          ///< number of values (product of shape)
};

/// Parses the header at the start of an .npy file of `size` bytes (`bytes` points at the whole
/// file, e.g. a mapping of it) and checks that the file holds all the data the header
/// announces. Same dtypes and errors as read_npy().
NpyHeader parse_npy_header(const unsigned char* bytes, std::size_t size, const std::string& path);

/// Reads float32/float64 (either endianness) and int32/int64 arrays in C or Fortran order.
/// Throws InputError(key = "", where = path, ...) for a missing/unreadable/truncated file or an
/// unsupported dtype, with a message that says which.
NpyArray read_npy(const std::string& path);

/// Writes a C-order little-endian array atomically (see AtomicFile). Throws RuntimeError.
void write_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);
void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape);
void write_npy(const std::string& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape);

}  // namespace pwave::io
