#include "util/sha1.hpp"

#include <gtest/gtest.h>

namespace kpt::util {
namespace {

// The four test vectors of RFC 3174 section 7.3, plus the empty message and block boundaries.
TEST(Sha1, MatchesTheRfc3174TestVectors) {
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1_hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  std::string eighty;
  for (int i = 0; i < 80; ++i) eighty += "01234567";
  EXPECT_EQ(sha1_hex(eighty), "dea356a2cddd90c7a7ecedc5ebb563934f460452");
}

TEST(Sha1, HandlesEmptyInputAndPaddingBoundaries) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex(std::string(55, 'a')), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(sha1_hex(std::string(56, 'a')), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  EXPECT_EQ(sha1_hex(std::string(64, 'a')), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

TEST(Sha1, GivesJobSetsJobKeyForTheWorkedExample) {
  EXPECT_EQ(sha1_hex("default/multi-node-example-node-0"), "65669d389c5e534c162a3d66e7ae429e92b5239b");
}

}  // namespace
}  // namespace kpt::util
