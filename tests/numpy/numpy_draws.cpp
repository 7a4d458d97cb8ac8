// numpy_draws SEED KIND COUNT: COUNT draws of attention::NumpyGenerator(SEED),
// written to stdout as raw little-endian 8-byte words, for
// tests/programs/test_numpy_random.py to compare with NumPy bit for bit.
// KIND is uint64 (next_uint64), double (next_double), normal (standard_normal)
// or matrix (normal_matrix with COUNT rows and 3 columns, row by row).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "attention/numpy_random.hpp"

namespace {

bool read_unsigned(const char* text, std::uint64_t& value) {
  if (*text == '\0') return false;
  value = 0;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(*c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

void put(std::uint64_t bits) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
  std::fwrite(bytes, 1, 8, stdout);
}

void put(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  put(bits);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 0;
  std::uint64_t count = 0;
  if (argc != 4 || !read_unsigned(argv[1], seed) || !read_unsigned(argv[3], count)) {
    std::fprintf(stderr, "usage: numpy_draws SEED uint64|double|normal|matrix COUNT\n");
    return 2;
  }
  const std::string kind = argv[2];
  attention::NumpyGenerator generator(seed);
  if (kind == "uint64") {
    for (std::uint64_t i = 0; i < count; ++i) put(generator.next_uint64());
  } else if (kind == "double") {
    for (std::uint64_t i = 0; i < count; ++i) put(generator.next_double());
  } else if (kind == "normal") {
    for (std::uint64_t i = 0; i < count; ++i) put(generator.standard_normal());
  } else if (kind == "matrix") {
    const attention::Matrix m = attention::normal_matrix(generator, static_cast<Eigen::Index>(count), 3);
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) put(m(i, j));
  } else {
    std::fprintf(stderr, "numpy_draws: unknown kind %s\n", argv[2]);
    return 2;
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
