// backend::for_each_box_3d on a grid without y strips (YStrips = false, the 2D grids of the
// elastic and variable-density steps): the same boxes, with the same strip flags, as the launch
// that compiles every y strip's kernel, and a clear error for cuts that have y strips.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "backends/launch.hpp"
#include "pwave/core/types.hpp"

namespace pwave {
namespace {

/// A kernel that does nothing: what is launched is recorded by the make function.
struct NoOp {
  KOKKOS_INLINE_FUNCTION void operator()(int, int, int, int) const {}
};

/// The strip flags make() is asked for, one "xyz" string of 0/1 per box launched, in order.
template <bool YStrips>
std::vector<std::string> boxes_made(const backend::BoxCuts& cuts, bool skip_center) {
  std::vector<std::string> made;
  backend::for_each_box_3d<YStrips>(
      "pwave::test::box_launches", ExecSpace(), 1, cuts,
      [&](auto in_x, auto in_y, auto in_z) {
        made.push_back(std::string(decltype(in_x)::value ? "1" : "0") +
                       (decltype(in_y)::value ? "1" : "0") + (decltype(in_z)::value ? "1" : "0"));
        return NoOp{};
      },
      skip_center);
  return made;
}

TEST(BoxLaunches, WithoutYStripsTheSameBoxesAsWithThem) {
  const backend::BoxCuts cuts{{0, 3, 9, 12}, {0, 0, 1, 1}, {0, 4, 20, 24}};
  for (const bool skip_center : {false, true}) {
    const std::vector<std::string> with = boxes_made<true>(cuts, skip_center);
    const std::vector<std::string> without = boxes_made<false>(cuts, skip_center);
    // Three slabs (top strip, inner, bottom strip) of three boxes each, less the inner box.
    EXPECT_EQ(with.size(), skip_center ? 8u : 9u);
    EXPECT_EQ(without, with);
    for (const std::string& b : without) EXPECT_EQ(b[1], '0') << b;
  }
}

TEST(BoxLaunches, YStripsOnAGridWithoutThemAreAnError) {
  const backend::BoxCuts cuts{{0, 3, 9, 12}, {0, 2, 5, 7}, {0, 4, 20, 24}};
  EXPECT_EQ(boxes_made<true>(cuts, false).size(), 27u);
  try {
    boxes_made<false>(cuts, false);
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("y strips on a grid without them"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pwave
