#pragma once
// The launches of one backward elastic step (adjoint_kernels.hpp) and of its imaging, as
// step.hpp's: the Bar and Image kernels per strip box (they touch the memory variables); the
// Gathers of stored bars, and, with Bars::inline_interior (GPUs), in the box R cells inside the
// strips the Gathers that compute the bars at each tap instead. The caller takes the sources'
// transposes and adds the receivers' residuals between and after them, in the reverse of the
// forward's order:
//   [explosive source's transpose], surface_stress, image_stress, adjoint_stress, [force source's
//   transpose and image], image_velocity, adjoint_velocity, [residuals of the samples of step n].
// With the imaging of kept update terms (`full`, `checkpoint`) image_stress and adjoint_stress
// are one call, as image_velocity and adjoint_velocity: the images run in the inline gathers'
// launches (Then), sigmabar and vbar loaded once for both. With a free surface
// (free_surface_adjoint.hpp) the steps take its transposes in their places.

#include <array>
#include <type_traits>

#include "pwave/physics/elastic/adjoint_kernels.hpp"
#include "pwave/physics/elastic/free_surface_adjoint.hpp"
#include "pwave/physics/elastic/step.hpp"

namespace pwave::physics::elastic {

/// launch_strips() with `inner` on the inner box instead of K's instance there, in the same
/// for_each_box_3d (host lines run strip, inner, strip in turn). The two must touch no common
/// value.
template <class Instances, class Inner>
void launch_strips_around(const char* label, const ExecSpace& exec, int count,
                          const backend::BoxCuts& cuts, const Instances& k, const Inner& inner) {
  backend::for_each_box<Instances::dim>(
      label, exec, count, cuts, [&](auto in_x, auto in_y, auto in_z) -> const auto& {
        constexpr bool x = decltype(in_x)::value, y = decltype(in_y)::value;
        constexpr bool z = decltype(in_z)::value;
        if constexpr (!x && !y && !z) {
          return inner;
        } else {
          return k.template get<x, y, z>();
        }
      });
}

/// The cells of `outer` outside `inner` (a box inside it) as six boxes: the slabs above and
/// below `inner`, before and after it within its depths, left and right of it within its depths
/// and y lines. All of `outer` (and five empty boxes) when `inner` is empty.
inline std::array<backend::Box, 6> frame_of(const backend::Box& outer, const backend::Box& inner) {
  using backend::Box;
  if (inner.empty()) return {outer, Box{}, Box{}, Box{}, Box{}, Box{}};
  const Box& o = outer;
  const Box& i = inner;
  return {Box{o.z0, i.z0, o.y0, o.y1, o.x0, o.x1}, Box{i.z1, o.z1, o.y0, o.y1, o.x0, o.x1},
          Box{i.z0, i.z1, o.y0, i.y0, o.x0, o.x1}, Box{i.z0, i.z1, i.y1, o.y1, o.x0, o.x1},
          Box{i.z0, i.z1, i.y0, i.y1, o.x0, i.x0}, Box{i.z0, i.z1, i.y0, i.y1, i.x1, o.x1}};
}

/// The box between a state's strips shrunk by `d` cells on each side (along y in 3D only):
/// with d = R, the points whose stencil taps all lie outside the strips and at least R rows
/// below the top (the free surface's transposes read the bars of rows 0 .. R - 1).
template <class T, int Dim>
backend::Box strips_inner_box(const State<T>& st, int d) {
  const int dy = Dim == 3 ? d : 0;
  return backend::Box{st.strip_top + d,    st.nz - st.strip_bottom - d,
                      st.strip_front + dy, st.ny - st.strip_back - dy,
                      st.strip_left + d,   st.nx - st.strip_right - d};
}

/// Where a backward step takes the products its gathers differentiate (the bars).
enum class Bars {
  /// Stored (the Bar launches) on the strips, the top rows and a band of 2R cells inside them;
  /// in the box R inside the strips (strips_inner_box(R)) the gathers compute them at each tap:
  /// E^T and V^T each one pass over the interior, 10 arrays per point in 2D instead of 18 (20
  /// instead of 36 in 3D), for 2R times the products' arithmetic.
  inline_interior,
  /// Stored everywhere: two passes per transposed update.
  stored
};

/// The backward step's default: inline_interior where launches run cell-wise (GPUs, whose
/// stencil launches are bound by memory traffic; not measured there yet) and on the 2D host row
/// paths (2D `full` gradient 20 % faster since the subnormals are flushed), stored on the 3D
/// host row paths, where the inline gathers' y and z taps recompute the normal products and made
/// the 3D gradient 10-20 % slower (bench/README, 2026-11-27 and 2026-11-29).
template <int Dim>
inline constexpr Bars default_bars = backend::uses_row_paths<ExecSpace>() && Dim == 3
                                         ? Bars::stored
                                         : Bars::inline_interior;

/// One backward step on an adjoint state, its functors built once. `free_surface`: the forward
/// steps had one (FreeSurface).
template <class T, int Order, int Dim>
class AdjointStep {
  static constexpr int R = StaggeredStencil<Order>::radius;

 public:
  AdjointStep(const AdjointState<T>& a, const Coefficients<T, Order>& c, bool free_surface,
              Bars bars = default_bars<Dim>)
      : cuts_(strip_cuts(a.st)),
        inline_(bars == Bars::inline_interior ? strips_inner_box<T, Dim>(a.st, R) : backend::Box{}),
        gather_frame_(frame_of(backend::Box{0, a.st.nz, 0, a.st.ny, 0, a.st.nx}, inline_)),
        bar_frame_(
            frame_of(strips_inner_box<T, Dim>(a.st, 0),
                     inline_.empty() ? backend::Box{} : strips_inner_box<T, Dim>(a.st, 2 * R))),
        free_surface_(free_surface),
        surface_(a, c),
        stress_bar_(a, c),
        velocity_bar_(a, c),
        stress_gather_{{}, a, c},
        velocity_gather_{{}, a, c},
        stress_inline_{{}, a, c},
        velocity_inline_{{}, a, c} {}

  /// The free surface's szz = 0 transposed (nothing without one): first in a backward step.
  void surface_stress(const ExecSpace& exec, int count) const;
  /// E^T: sigmabar^{n+1} -> vbar^{n+1/2} (vbar gains the strains' transposes).
  void adjoint_stress(const ExecSpace& exec, int count) const;
  /// V^T: vbar^{n+1/2} -> sigmabar^n (sigmabar gains the divergence's transposes).
  void adjoint_velocity(const ExecSpace& exec, int count) const;
  /// adjoint_stress() and the step's stress imaging from its kept terms (Imaging::kept_stress:
  /// the two read sigmabar^{n+1}, which E^T does not change): in the inline box one launch
  /// (Then) runs both at each point, over the rest the imaging has launches of its own. The
  /// same bits as the imaging's launch over the grid followed by adjoint_stress().
  void adjoint_stress(const ExecSpace& exec, int count,
                      const ImageKeptStress<T, Order, Dim>& image) const;
  /// adjoint_velocity() and the velocity imaging from the kept terms (both read vbar^{n+1/2},
  /// which V^T does not change), as adjoint_stress(exec, count, image).
  void adjoint_velocity(const ExecSpace& exec, int count,
                        const ImageKeptVelocity<T, Order, Dim>& image) const;

 private:
  /// Stands for no imaging in transpose().
  struct NoImage {};

  /// The Bar launches where the bars are stored, then the gathers of them, then the inline
  /// gather over the rest; with an `image` (a pointwise imaging kernel), that too, at every
  /// point: over the gathers' frame in launches of its own, in the inline box in the inline
  /// gather's launch.
  template <class Bar, class Gather, class Inline, class Image = NoImage>
  void transpose(const char* label, const ExecSpace& exec, int count, const Bar& bar,
                 const Gather& gather, const Inline& fused, const Image& image = {}) const {
    constexpr bool imaging = !std::is_same_v<Image, NoImage>;
    if (inline_.empty()) {
      // Stored everywhere: the strips' and the inner box's bars in one launch, so that host
      // lines run strip, inner, strip in turn.
      launch_strips(label, exec, count, cuts_, bar);
    } else {
      launch_strips(label, exec, count, cuts_, bar, true);
      for (const backend::Box& b : bar_frame_)
        backend::for_each_cell_3d(label, exec, count, b, bar.template get<false, false, false>());
    }
    for (const backend::Box& b : gather_frame_) {
      backend::for_each_cell_3d(label, exec, count, b, gather);
      if constexpr (imaging) backend::for_each_cell_3d(label, exec, count, b, image);
    }
    if constexpr (imaging) {
      backend::for_each_cell_3d(label, exec, count, inline_,
                                Then<T, Order, Inline, Image>{{}, fused, image, fused.c});
    } else {
      backend::for_each_cell_3d(label, exec, count, inline_, fused);
    }
  }

  backend::BoxCuts cuts_;
  backend::Box inline_;                       ///< the gathers computing the bars (maybe empty)
  std::array<backend::Box, 6> gather_frame_;  ///< the grid outside inline_
  std::array<backend::Box, 6> bar_frame_;     ///< inline bars: inner box outside their need
  bool free_surface_;
  AdjointFreeSurface<T, Order, Dim> surface_;
  StripInstances<AdjointStressBar, T, Order, Dim> stress_bar_;
  StripInstances<AdjointVelocityBar, T, Order, Dim> velocity_bar_;
  AdjointStressGather<T, Order, Dim, false> stress_gather_;
  AdjointVelocityGather<T, Order, Dim, false> velocity_gather_;
  AdjointStressGather<T, Order, Dim, true> stress_inline_;
  AdjointVelocityGather<T, Order, Dim, true> velocity_inline_;
};

/// The imaging of one step: an ImagingState whose `forward` is the state an update read.
template <class T, int Order, int Dim>
class Imaging {
 public:
  Imaging(const ImagingState<T>& i, const Coefficients<T, Order>& c)
      : cuts_(strip_cuts(i.forward)),
        velocity_(i, c),
        stress_(i, c),
        reverse_velocity_{{}, i, c},
        reverse_stress_{{}, i, c},
        kept_velocity_{{}, i, c, {}},
        kept_stress_{{}, i, c, {}} {}

  /// dJ/dB += vbar^{n+1/2} F^n; `forward` holds sigma^n and psi_sigma^{n-1}.
  void image_velocity(const ExecSpace& exec, int count) const;
  /// dJ/d(lambda, mu, mu_ac) += sigmabar^{n+1} . e^{n+1/2}; `forward` is the state after step n
  /// (v^{n+1/2} and the velocity memory variables that step advanced; with a free surface the
  /// mirrored vz above it, which makes row 0's ezz 0 here as in the update).
  void image_stress(const ExecSpace& exec, int count) const;
  /// image_velocity()'s kernel reading the F^n step n kept (`full`, `checkpoint`), and
  /// image_stress()'s reading its e^{n+1/2}: AdjointStep runs them with the transposes.
  ImageKeptVelocity<T, Order, Dim> kept_velocity(const UpdateTerms<T>& kept) const {
    ImageKeptVelocity<T, Order, Dim> k = kept_velocity_;
    k.kept = kept;
    return k;
  }
  ImageKeptStress<T, Order, Dim> kept_stress(const UpdateTerms<T>& kept) const {
    ImageKeptStress<T, Order, Dim> k = kept_stress_;
    k.kept = kept;
    return k;
  }
  /// `boundary` storage: image_stress() on the strips and, between them, the stress update of
  /// `forward` (the state after step n) reversed with its imaging, in one pass
  /// (ReverseStressImage). Between the strips `forward` then holds sigma^n.
  void image_stress_reversing(const ExecSpace& exec, int count) const;
  /// `boundary` storage: image_velocity() on the strips and, between them, the velocity update
  /// of `forward` (sigma^n, v^{n+1/2}) reversed with its imaging (ReverseVelocityImage).
  void image_velocity_reversing(const ExecSpace& exec, int count) const;

 private:
  backend::BoxCuts cuts_;
  StripInstances<ImageVelocity, T, Order, Dim> velocity_;
  StripInstances<ImageStress, T, Order, Dim> stress_;
  ReverseVelocityImage<T, Order, Dim> reverse_velocity_;
  ReverseStressImage<T, Order, Dim> reverse_stress_;
  ImageKeptVelocity<T, Order, Dim> kept_velocity_;
  ImageKeptStress<T, Order, Dim> kept_stress_;
};

template <class T, int Order, int Dim>
void AdjointStep<T, Order, Dim>::surface_stress(const ExecSpace& exec, int count) const {
  if (free_surface_) surface_.stress(exec, count);
}

template <class T, int Order, int Dim>
void AdjointStep<T, Order, Dim>::adjoint_stress(const ExecSpace& exec, int count) const {
  transpose("pwave::physics::elastic::adjoint_stress", exec, count, stress_bar_, stress_gather_,
            stress_inline_);
  if (free_surface_) surface_.mirror(exec, count);
}

template <class T, int Order, int Dim>
void AdjointStep<T, Order, Dim>::adjoint_velocity(const ExecSpace& exec, int count) const {
  transpose("pwave::physics::elastic::adjoint_velocity", exec, count, velocity_bar_,
            velocity_gather_, velocity_inline_);
  if (free_surface_) surface_.images(exec, count);
}

template <class T, int Order, int Dim>
void AdjointStep<T, Order, Dim>::adjoint_stress(const ExecSpace& exec, int count,
                                                const ImageKeptStress<T, Order, Dim>& image) const {
  transpose("pwave::physics::elastic::adjoint_stress_imaging", exec, count, stress_bar_,
            stress_gather_, stress_inline_, image);
  if (free_surface_) surface_.mirror(exec, count);
}

template <class T, int Order, int Dim>
void AdjointStep<T, Order, Dim>::adjoint_velocity(
    const ExecSpace& exec, int count, const ImageKeptVelocity<T, Order, Dim>& image) const {
  transpose("pwave::physics::elastic::adjoint_velocity_imaging", exec, count, velocity_bar_,
            velocity_gather_, velocity_inline_, image);
  if (free_surface_) surface_.images(exec, count);
}

template <class T, int Order, int Dim>
void Imaging<T, Order, Dim>::image_velocity(const ExecSpace& exec, int count) const {
  launch_strips("pwave::physics::elastic::image_velocity", exec, count, cuts_, velocity_);
}

template <class T, int Order, int Dim>
void Imaging<T, Order, Dim>::image_stress(const ExecSpace& exec, int count) const {
  launch_strips("pwave::physics::elastic::image_stress", exec, count, cuts_, stress_);
}

template <class T, int Order, int Dim>
void Imaging<T, Order, Dim>::image_stress_reversing(const ExecSpace& exec, int count) const {
  // The two touch no common value: the images of disjoint cells; the reversal rewrites only its
  // own cells' fields, which the strips' images do not read.
  launch_strips_around("pwave::physics::elastic::image_stress_reversing", exec, count, cuts_,
                       stress_, reverse_stress_);
}

template <class T, int Order, int Dim>
void Imaging<T, Order, Dim>::image_velocity_reversing(const ExecSpace& exec, int count) const {
  launch_strips_around("pwave::physics::elastic::image_velocity_reversing", exec, count, cuts_,
                       velocity_, reverse_velocity_);
}

PWAVE_ELASTIC_EVERY_INSTANCE(extern, AdjointStep)
PWAVE_ELASTIC_EVERY_INSTANCE(extern, Imaging)

}  // namespace pwave::physics::elastic
