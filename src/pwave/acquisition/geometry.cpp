#include "pwave/acquisition/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "pwave/core/error.hpp"

namespace pwave {

namespace {
/// How far outside [0, extent] a coordinate lies (0 inside).
double outside_by(double v, double extent) {
  return v < 0 ? -v : v > extent ? v - extent : 0.0;
}
}  // namespace

std::size_t max_receivers(const std::vector<ShotGeometry>& shots) {
  std::size_t n = 0;
  for (const ShotGeometry& s : shots) n = std::max(n, s.receivers.size());
  return n;
}

std::size_t total_traces(const std::vector<ShotGeometry>& shots) {
  std::size_t n = 0;
  for (const ShotGeometry& s : shots) n += s.receivers.size();
  return n;
}

bool same_receiver_counts(const std::vector<ShotGeometry>& shots) {
  for (const ShotGeometry& s : shots) {
    if (s.receivers.size() != shots.front().receivers.size()) return false;
  }
  return true;
}

bool shared_receivers(const std::vector<ShotGeometry>& shots) {
  for (const ShotGeometry& s : shots) {
    if (s.receivers.size() != shots.front().receivers.size()) return false;
    for (std::size_t r = 0; r < s.receivers.size(); ++r) {
      const Position &a = s.receivers[r], &b = shots.front().receivers[r];
      if (a.x != b.x || a.y != b.y || a.z != b.z) return false;
    }
  }
  return true;
}

std::string describe_shots(const std::vector<ShotGeometry>& shots) {
  const std::string n = std::to_string(shots.size()) + (shots.size() == 1 ? " shot" : " shots");
  if (same_receiver_counts(shots)) {
    return n + " x " + std::to_string(max_receivers(shots)) + " receivers";
  }
  std::size_t least = max_receivers(shots);
  for (const ShotGeometry& s : shots) least = std::min(least, s.receivers.size());
  return n + " of " + std::to_string(least) + " to " + std::to_string(max_receivers(shots)) +
         " receivers (" + std::to_string(total_traces(shots)) + " traces)";
}

void check_inside(const Grid& grid, const Position& p, const std::string& key) {
  const bool is3d = grid.is_3d();
  if (!std::isfinite(p.x) || !std::isfinite(p.z) || !std::isfinite(p.y)) {
    throw InputError(key, "", "position is not a finite number");
  }
  if (!is3d && p.y != 0.0) {
    throw InputError(key, "", "y is given but the model is 2D (model.shape has two entries)");
  }
  const double ox = outside_by(p.x, grid.width()), oz = outside_by(p.z, grid.depth());
  const double oy = is3d ? outside_by(p.y, grid.breadth()) : 0.0;
  if (ox > 1e-6 * grid.dx || oz > 1e-6 * grid.dz || (is3d && oy > 1e-6 * grid.dy)) {
    std::ostringstream what;
    what << "position (x=" << p.x << " m, ";
    if (is3d) what << "y=" << p.y << " m, ";
    what << "z=" << p.z << " m) is outside the model (x in [0, " << grid.width() << "] m, ";
    if (is3d) what << "y in [0, " << grid.breadth() << "] m, ";
    what << "z in [0, " << grid.depth() << "] m) by";
    if (ox > 0) what << " " << ox << " m in x";
    if (oy > 0) what << " " << oy << " m in y";
    if (oz > 0) what << " " << oz << " m in z";
    throw InputError(key, "", what.str());
  }
}

}  // namespace pwave
