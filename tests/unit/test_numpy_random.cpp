// The port of NumPy's generator (src/attention/numpy_random.hpp): SeedSequence, PCG64, the ziggurat normal.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/numpy_random.hpp"

using attention::NumpyGenerator;
using attention::NumpySeedSequence;

// The expected values below come from NumPy itself (Debian 12's python3-numpy,
// 1.24.2), the independent reference. To rerun:
//
//   /usr/bin/python3 -c "
//   import numpy as np
//   ss = np.random.SeedSequence(1337)
//   print([hex(int(v)) for v in ss.pool]); print([hex(int(v)) for v in ss.generate_state(4, np.uint64)])
//   print([hex(int(v)) for v in np.random.SeedSequence(2**63).pool])
//   r = np.random.default_rng(1337); print([hex(int(v)) for v in r.bit_generator.random_raw(3)])
//   r = np.random.default_rng(1337); print(r.random(3).tolist())
//   r = np.random.default_rng(1337); print(r.normal(2.0, 3.0, size=2).tolist())
//   print(np.random.default_rng(1337).standard_normal(5).tolist())
//   a = np.random.default_rng(0).standard_normal(304); print(a[303].hex())
//   print((np.random.default_rng(1337).normal(size=(6, 3)) * 0.5)[[0, 5]].tolist())"
//
// It prints:
//
//   ['0x31db188b', '0x7500096e', '0xdad4311a', '0x69ec0325']
//   ['0xbc7e664d90aa98cc', '0x83e7a3f304ca3335', '0x959ba968f3163f00', '0x8b7089338ccd3d3']
//   ['0xd60f1f66', '0x80ce6f34', '0xcffba37f', '0x668c137e']
//   ['0xe0cb49408bdbe881', '0x2f7ec2afba1d1a31', '0xebc021d88a4ae104']
//   [0.8781019003471183, 0.18552796163759344, 0.9209004548704729]
//   [2.1148046684912476, 3.4218093078138954]
//   [0.03826822283041585, 0.47393643593796514, -0.1377459184858857, -1.389334440932998, 2.520118685485888]
//   -0x1.e2d9e98d87bc6p+1
//   [[0.019134111415207926, 0.23696821796898257, -0.06887295924294284],
//    [0.9064877690583453, -0.10866826741687258, 0.04696171484313286]]
//
// Decimal values printed by Python's repr are the shortest that read back as
// the same double, so comparing with == is exact.

TEST_CASE("SeedSequence pools and hashes a seed as NumPy does", "[ch08]") {
  CHECK(NumpySeedSequence(1337).pool() == std::vector<std::uint32_t>{0x31db188b, 0x7500096e, 0xdad4311a, 0x69ec0325});
  CHECK(NumpySeedSequence(1337).generate_state_uint64(4) ==
        std::vector<std::uint64_t>{0xbc7e664d90aa98ccULL, 0x83e7a3f304ca3335ULL, 0x959ba968f3163f00ULL,
                                   0x08b7089338ccd3d3ULL});
  // 2⁶³ needs two 32-bit words of entropy: 0, then 2³¹.
  CHECK(NumpySeedSequence(std::uint64_t{1} << 63).pool() ==
        std::vector<std::uint32_t>{0xd60f1f66, 0x80ce6f34, 0xcffba37f, 0x668c137e});
}

TEST_CASE("PCG64 gives NumPy's 64-bit draws and doubles", "[ch08]") {
  NumpyGenerator raw(1337);
  CHECK(raw.next_uint64() == 0xe0cb49408bdbe881ULL);
  CHECK(raw.next_uint64() == 0x2f7ec2afba1d1a31ULL);
  CHECK(raw.next_uint64() == 0xebc021d88a4ae104ULL);
  NumpyGenerator uniform(1337);
  CHECK(uniform.next_double() == 0.8781019003471183);
  CHECK(uniform.next_double() == 0.18552796163759344);
  CHECK(uniform.next_double() == 0.9209004548704729);
}

TEST_CASE("the ziggurat gives NumPy's normal draws", "[ch08]") {
  NumpyGenerator generator(1337);
  const std::vector<double> expected{0.03826822283041585, 0.47393643593796514, -0.1377459184858857, -1.389334440932998,
                                     2.520118685485888};
  for (double value : expected) CHECK(generator.standard_normal() == value);

  NumpyGenerator shifted(1337);
  CHECK(shifted.normal(2.0, 3.0) == 2.1148046684912476);
  CHECK(shifted.normal(2.0, 3.0) == 3.4218093078138954);
}

TEST_CASE("a draw from the ziggurat's tail, beyond r, matches NumPy", "[ch08]") {
  NumpyGenerator generator(0);
  for (int i = 0; i < 303; ++i) generator.standard_normal();
  const double tail = generator.standard_normal();
  CHECK(tail < -attention::numpy_ziggurat::nor_r);
  CHECK(tail == -0x1.e2d9e98d87bc6p+1);
}

TEST_CASE("normal_matrix fills rows first, as rng.normal(size=(rows, cols)) does", "[ch08]") {
  NumpyGenerator generator(1337);
  const attention::Matrix w = 0.5 * attention::normal_matrix(generator, 6, 3);
  REQUIRE(w.rows() == 6);
  REQUIRE(w.cols() == 3);
  CHECK(w(0, 0) == 0.019134111415207926);
  CHECK(w(0, 1) == 0.23696821796898257);
  CHECK(w(0, 2) == -0.06887295924294284);
  CHECK(w(5, 0) == 0.9064877690583453);
  CHECK(w(5, 1) == -0.10866826741687258);
  CHECK(w(5, 2) == 0.04696171484313286);
}

TEST_CASE("equal seeds give equal streams, different seeds different ones", "[ch08]") {
  NumpyGenerator a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next_uint64();
    CHECK(x == b.next_uint64());
    CHECK(x != c.next_uint64());
  }
}
