#pragma once
// Analytic solutions used by the physics tests.

#include <cmath>
#include <functional>
#include <vector>

namespace pwave::test {

/// 2D homogeneous-medium solution of u_tt = v^2 lap(u) + v^2 s(t) delta(x - x_s), u = 0 for
/// t <= 0, at distance r (metres) and time t (seconds):
///   u(r, t) = 1/(2 pi) int_{r/v}^{t} s(t - tau) / sqrt(tau^2 - r^2/v^2) dtau
///           = 1/(2 pi) int_0^{acosh(v t / r)} s(t - (r/v) cosh(theta)) dtheta,
/// the second form having no singularity. `s` is the continuous source time function.
inline double green2d_response(const std::function<double(double)>& s, double v, double r, double t,
                               int samples = 4000) {
  const double t0 = r / v;
  if (t <= t0) return 0.0;
  const double theta_max = std::acosh(t / t0);
  const double h = theta_max / samples;
  double sum = 0.5 * (s(t - t0) + s(t - t0 * std::cosh(theta_max)));
  for (int k = 1; k < samples; ++k) sum += s(t - t0 * std::cosh(k * h));
  return sum * h / (2.0 * M_PI);
}

/// 3D homogeneous-medium solution of the same equation: the retarded point-source response
///   u(r, t) = s(t - r / v) / (4 pi r).
inline double green3d_response(const std::function<double(double)>& s, double v, double r,
                               double t) {
  return s(t - r / v) / (4.0 * M_PI * r);
}

/// Continuous Ricker wavelet with peak frequency f (Hz) and delay t0 (s).
inline std::function<double(double)> ricker_fn(double f, double t0) {
  return [f, t0](double t) {
    const double a = M_PI * f * (t - t0);
    return (1.0 - 2.0 * a * a) * std::exp(-a * a);
  };
}

/// sqrt(sum (a-b)^2 / sum b^2) over a range.
inline double relative_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace pwave::test
