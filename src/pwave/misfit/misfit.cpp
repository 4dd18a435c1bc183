#include "pwave/misfit/misfit.hpp"

#include <cmath>
#include <limits>

#include "pwave/misfit/fft.hpp"

namespace pwave::misfit {
namespace {

using Scratch = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;

/// Applies the Hilbert transform H (misfit.hpp) to the real and the imaginary parts of the n
/// complex values in a (zero-padded traces, n >= 2 nt): afterwards a[2k] and a[2k+1] for k < nt
/// are H of the real and of the imaginary input. H is real (below), so H(x + i y) = Hx + i Hy:
/// one FFT pair transforms two traces.
///
/// H = P^T F^-1 D F P, P the zero-padding of nt samples to n, P^T the truncation and D the
/// diagonal -i sign(k) with D_0 = D_{n/2} = 0. D is purely imaginary and odd
/// (D_{n-k} = -D_k), so F^-1 D F is the circular convolution with a real, odd kernel h
/// (h[-j] = -h[j]): a real circulant C with C^T = -C. Hence H is real and
/// H^T = P^T C^T P = -P^T C P = -H, exactly (to rounding) for every nt.
KOKKOS_INLINE_FUNCTION void hilbert_in_place(double* a, const int n, const Scratch& tw) {
  fft(a, n, tw, false);
  a[0] = a[1] = 0.0;                 // DC
  a[n] = a[n + 1] = 0.0;             // Nyquist (bin n/2)
  for (int k = 1; k < n / 2; ++k) {  // positive frequencies: times -i
    const double re = a[2 * k], im = a[2 * k + 1];
    a[2 * k] = im;
    a[2 * k + 1] = -re;
  }
  for (int k = n / 2 + 1; k < n; ++k) {  // negative frequencies: times +i
    const double re = a[2 * k], im = a[2 * k + 1];
    a[2 * k] = -im;
    a[2 * k + 1] = re;
  }
  fft(a, n, tw, true);
  const double scale = 1.0 / n;
  for (int k = 0; k < 2 * n; ++k) a[k] *= scale;
}

/// The largest sum of squares of a trace of shot s in `x`.
template <class T>
struct TraceEnergy {
  Traces<T> x;
  int s, nt;
  KOKKOS_INLINE_FUNCTION void operator()(const int r, double& biggest) const {
    double e = 0;
    for (int n = 0; n < nt; ++n) e += double(x(s, r, n)) * double(x(s, r, n));
    biggest = e > biggest ? e : biggest;
  }
};

/// trace_normalized_l2 and normalized_correlation of shot s: receiver r's J, and its adjoint
/// source into res (zero-trace rules in misfit.hpp: a trace whose sum of squares is at most
/// `dd_zero` / `oo_zero` counts as zero).
template <class T>
struct NormalizedTrace {
  Traces<T> syn, obs, res;
  int s, nt;
  bool correlation;
  double dd_zero, oo_zero;
  KOKKOS_INLINE_FUNCTION void operator()(const int r, double& acc) const {
    double dd = 0, oo = 0, od = 0;
    for (int n = 0; n < nt; ++n) {
      const double d = syn(s, r, n), o = obs(s, r, n);
      dd += d * d;
      oo += o * o;
      od += o * d;
    }
    // Dead observed trace: 0; zero synthetic trace: J at d^ = 0. Either: no adjoint source.
    if (oo <= oo_zero || dd <= dd_zero) {
      for (int n = 0; n < nt; ++n) res(s, r, n) = T(0);
      if (oo > oo_zero) acc += correlation ? 1.0 : 0.5;
      return;
    }
    const double nd = math::sqrt(dd), no = math::sqrt(oo);
    if (correlation) {
      const double c = od / (nd * no);  // d^ . o^
      acc += 1.0 - c;
      for (int n = 0; n < nt; ++n) {
        const double dh = syn(s, r, n) / nd, oh = obs(s, r, n) / no;
        res(s, r, n) = T(-(oh - c * dh) / nd);
      }
      return;
    }
    double j = 0, dr = 0;  // 0.5 ||r||^2 and d^ . r, r = d^ - o^
    for (int n = 0; n < nt; ++n) {
      const double dh = syn(s, r, n) / nd, rn = dh - obs(s, r, n) / no;
      j += rn * rn;
      dr += dh * rn;
    }
    acc += 0.5 * j;
    for (int n = 0; n < nt; ++n) {
      const double dh = syn(s, r, n) / nd, rn = dh - obs(s, r, n) / no;
      res(s, r, n) = T((rn - dr * dh) / nd);
    }
  }
};

/// envelope of shot s: receiver r's J, and its adjoint source into res. Scratch row r:
/// [0, 2 n) the complex FFT buffer, [2 n, 2 n + nt) w d.
template <class T>
struct EnvelopeTrace {
  Traces<T> syn, obs, res;
  Scratch work, tw;
  int s, nt, n;
  KOKKOS_INLINE_FUNCTION void operator()(const int r, double& acc) const {
    double* a = &work(r, 0);
    double* wd = a + 2 * n;
    for (int k = 0; k < nt; ++k) {  // d + i o: one transform gives H(d) and H(o)
      a[2 * k] = syn(s, r, k);
      a[2 * k + 1] = obs(s, r, k);
    }
    for (int k = 2 * nt; k < 2 * n; ++k) a[k] = 0.0;
    hilbert_in_place(a, n, tw);
    double emax = 0;
    for (int k = 0; k < nt; ++k) {
      const double d = syn(s, r, k), hd = a[2 * k];
      const double e = math::sqrt(d * d + hd * hd);
      emax = e > emax ? e : emax;
    }
    // E(d) = 0 has no derivative: divide by eps there instead (|d|, |H d| <= E(d) keep w d and
    // w H(d) bounded); exact wherever E(d) >= eps.
    const double eps = 1e-10 * emax;
    double j = 0;
    for (int k = 0; k < nt; ++k) {
      const double d = syn(s, r, k), o = obs(s, r, k), hd = a[2 * k], ho = a[2 * k + 1];
      const double ed = math::sqrt(d * d + hd * hd), eo = math::sqrt(o * o + ho * ho);
      const double diff = ed - eo;
      j += diff * diff;
      const double w = emax > 0.0 ? diff / (ed > eps ? ed : eps) : 0.0;
      wd[k] = w * d;
      a[2 * k] = w * hd;  // the input of the second transform
      a[2 * k + 1] = 0.0;
    }
    acc += 0.5 * j;
    for (int k = 2 * nt; k < 2 * n; ++k) a[k] = 0.0;
    hilbert_in_place(a, n, tw);
    for (int k = 0; k < nt; ++k) res(s, r, k) = T(wd[k] - a[2 * k]);  // w d + H^T(w H d)
  }
};

/// out(s, r, :) = H(in(s, r, :)) for the receivers r of shot s.
template <class T>
struct HilbertTrace {
  Traces<T> in, out;
  Scratch work, tw;
  int s, nt, n;
  KOKKOS_INLINE_FUNCTION void operator()(const int r) const {
    double* a = &work(r, 0);
    for (int k = 0; k < 2 * n; ++k) a[k] = 0.0;
    for (int k = 0; k < nt; ++k) a[2 * k] = in(s, r, k);
    hilbert_in_place(a, n, tw);
    for (int k = 0; k < nt; ++k) out(s, r, k) = T(a[2 * k]);
  }
};

}  // namespace

int Workspace::fft_length(int samples) {
  int n = 2;
  while (n < 2 * samples) n *= 2;
  return n;
}

void Workspace::reserve(int traces, int samples) {
  const int nfft = fft_length(samples);
  if (nfft != n) {
    twiddle = Scratch(Kokkos::view_alloc("pwave::misfit::twiddle", Kokkos::WithoutInitializing),
                      std::size_t(nfft / 2), 2);
    auto h = host_mirror_uninit(twiddle);
    fill_twiddles(h.data(), nfft);
    Kokkos::deep_copy(twiddle, h);
    n = nfft;
  }
  const std::size_t row = 2 * std::size_t(nfft) + std::size_t(samples);
  if (work.extent(0) < std::size_t(traces) || work.extent(1) != row) {
    work = Scratch(Kokkos::view_alloc("pwave::misfit::work", Kokkos::WithoutInitializing),
                   std::size_t(traces), row);
  }
}

template <class T>
std::vector<double> misfits_and_adjoint_sources(Misfit kind, const Traces<T>& syn,
                                                const Traces<T>& obs, const Traces<T>& res,
                                                int count, Workspace& ws) {
  std::vector<double> out(std::size_t(count > 0 ? count : 0), 0.0);
  const int nrec = int(syn.extent(1)), nt = int(syn.extent(2));
  if (kind == Misfit::envelope && count > 0) ws.reserve(nrec, nt);
  for (int s = 0; s < count; ++s) {
    double j = 0;
    const auto traces = Kokkos::RangePolicy<ExecSpace>(0, nrec);
    switch (kind) {
      case Misfit::l2:
        // The arithmetic of every earlier version: l2 results are bitwise unchanged.
        Kokkos::parallel_reduce(
            "pwave::misfit::l2", traces,
            KOKKOS_LAMBDA(const int r, double& acc) {
              for (int n = 0; n < nt; ++n) {
                const T d = syn(s, r, n) - obs(s, r, n);
                res(s, r, n) = d;
                acc += double(d) * double(d);
              }
            },
            j);
        j *= 0.5;
        break;
      case Misfit::trace_normalized_l2:
      case Misfit::normalized_correlation: {
        // Zero traces: at most (epsilon of T)^2 times the shot's largest sum of squares.
        double dd_max = 0, oo_max = 0;
        Kokkos::parallel_reduce("pwave::misfit::trace_energy", traces, TraceEnergy<T>{syn, s, nt},
                                Kokkos::Max<double>(dd_max));
        Kokkos::parallel_reduce("pwave::misfit::trace_energy", traces, TraceEnergy<T>{obs, s, nt},
                                Kokkos::Max<double>(oo_max));
        const double eps = double(std::numeric_limits<T>::epsilon());
        Kokkos::parallel_reduce(
            kind == Misfit::normalized_correlation ? "pwave::misfit::normalized_correlation"
                                                   : "pwave::misfit::trace_normalized_l2",
            traces,
            NormalizedTrace<T>{syn, obs, res, s, nt, kind == Misfit::normalized_correlation,
                               eps * eps * dd_max, eps * eps * oo_max},
            j);
        break;
      }
      case Misfit::envelope:
        Kokkos::parallel_reduce("pwave::misfit::envelope", traces,
                                EnvelopeTrace<T>{syn, obs, res, ws.work, ws.twiddle, s, nt, ws.n},
                                j);
        break;
    }
    out[s] = j;
  }
  return out;
}

template <class T>
std::vector<double> misfits_and_adjoint_sources(Misfit kind, const Traces<T>& syn,
                                                const Traces<T>& obs, const Traces<T>& res,
                                                int count) {
  Workspace ws;
  return misfits_and_adjoint_sources(kind, syn, obs, res, count, ws);
}

template <class T>
void hilbert(const Traces<T>& in, const Traces<T>& out, Workspace& ws) {
  const int ns = int(in.extent(0)), nrec = int(in.extent(1)), nt = int(in.extent(2));
  if (ns == 0 || nrec == 0) return;
  ws.reserve(nrec, nt);
  for (int s = 0; s < ns; ++s) {
    Kokkos::parallel_for("pwave::misfit::hilbert", Kokkos::RangePolicy<ExecSpace>(0, nrec),
                         HilbertTrace<T>{in, out, ws.work, ws.twiddle, s, nt, ws.n});
  }
  fence_all();
}

template std::vector<double> misfits_and_adjoint_sources(Misfit, const Traces<float>&,
                                                         const Traces<float>&, const Traces<float>&,
                                                         int, Workspace&);
template std::vector<double> misfits_and_adjoint_sources(Misfit, const Traces<double>&,
                                                         const Traces<double>&,
                                                         const Traces<double>&, int, Workspace&);
template std::vector<double> misfits_and_adjoint_sources(Misfit, const Traces<float>&,
                                                         const Traces<float>&, const Traces<float>&,
                                                         int);
template std::vector<double> misfits_and_adjoint_sources(Misfit, const Traces<double>&,
                                                         const Traces<double>&,
                                                         const Traces<double>&, int);
template void hilbert(const Traces<float>&, const Traces<float>&, Workspace&);
template void hilbert(const Traces<double>&, const Traces<double>&, Workspace&);

}  // namespace pwave::misfit
