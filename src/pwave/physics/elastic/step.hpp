#pragma once
// The launches of one elastic time step (kernels.hpp): the padded grid cut at the CPML strips
// into 3^Dim boxes, each launched with the kernel instance of exactly the strips it lies in,
// velocities first, then stresses. The caller injects sources between and after the two
// (force sources into v^{n+1/2}, explosive ones into sigma^{n+1}) and records before them.

#include <tuple>
#include <type_traits>
#include <utility>

#include "backends/launch.hpp"
#include "backends/wavefront.hpp"
#include "pwave/physics/elastic/instances.hpp"
#include "pwave/physics/elastic/update_terms.hpp"

namespace pwave::physics::elastic {

/// The eight strip instances of kernel K (flags InX, InZ, InY), built once from one state.
template <template <class, int, int, bool, bool, bool> class K, class T, int Order, int Dim,
          class Flags = std::make_integer_sequence<int, 8>>
struct StripInstances;

template <template <class, int, int, bool, bool, bool> class K, class T, int Order, int Dim,
          int... I>
struct StripInstances<K, T, Order, Dim, std::integer_sequence<int, I...>> {
  static constexpr int dim = Dim;
  /// Instance I has InX = bit 0, InY = bit 1, InZ = bit 2.
  std::tuple<K<T, Order, Dim, (I & 1) != 0, (I & 4) != 0, (I & 2) != 0>...> kernels;

  /// `st`: the kernels' first member (State, or the adjoint's and imaging's data).
  template <class S>
  StripInstances(const S& st, const Coefficients<T, Order>& c)
      : kernels{make<K<T, Order, Dim, (I & 1) != 0, (I & 4) != 0, (I & 2) != 0>>(st, c)...} {}

  /// Kernel{st, c}, or Kernel{{}, st, c} for a PointwiseKernel (its base first).
  template <class Kernel, class S>
  static Kernel make(const S& st, const Coefficients<T, Order>& c) {
    if constexpr (std::is_base_of_v<PointwiseKernelTag, Kernel>) {
      return Kernel{{}, st, c};
    } else {
      return Kernel{st, c};
    }
  }

  template <bool InX, bool InY, bool InZ>
  const auto& get() const {
    return std::get<(InX ? 1 : 0) | (InY ? 2 : 0) | (InZ ? 4 : 0)>(kernels);
  }
};

/// The box cuts of a state's strips.
template <class T>
backend::BoxCuts strip_cuts(const State<T>& st) {
  return backend::BoxCuts{{0, st.strip_top, st.nz - st.strip_bottom, st.nz},
                          {0, st.strip_front, st.ny - st.strip_back, st.ny},
                          {0, st.strip_left, st.nx - st.strip_right, st.nx}};
}

/// The box launches' `make` (backend::for_each_box): the instance of k of a box's strips.
template <class Instances>
auto instance_of(const Instances& k) {
  return [&k](auto in_x, auto in_y, auto in_z) -> const auto& {
    return k.template get<decltype(in_x)::value, decltype(in_y)::value, decltype(in_z)::value>();
  };
}

/// Launches K's strip instance of each box of `cuts` (backend::for_each_box), shots [0, count);
/// `skip_center`: not the inner box.
template <class Instances>
void launch_strips(const char* label, const ExecSpace& exec, int count,
                   const backend::BoxCuts& cuts, const Instances& k, bool skip_center = false) {
  backend::for_each_box<Instances::dim>(label, exec, count, cuts, instance_of(k), skip_center);
}

/// Host: launch_strips() for shot s at depths [za, zb) only, on the calling thread (a group of
/// a host wavefront: backend::host_boxes_depths, the launch's blocks of depths where za and zb
/// are the bounds of its blocks).
template <class Instances>
void strips_at_depths(const backend::BoxCuts& cuts, const Instances& k, int s, int za, int zb) {
  backend::host_boxes_depths<Instances::dim>(cuts, instance_of(k), s, za, zb);
}

/// One leapfrog step of a state, its functors built once (no View copies or allocation per
/// step). A state whose fields are swapped or replaced needs a new Step.
template <class T, int Order, int Dim>
class Step {
 public:
  Step(const State<T>& st, const Coefficients<T, Order>& c)
      : cuts_(strip_cuts(st)),
        velocity_(st, c),
        stress_(st, c),
        vx_(st, c),
        vy_(st, c),
        vz_(st, c),
        normal_(st, c),
        sxz_(st, c),
        sxy_(st, c),
        syz_(st, c),
        kept_velocity_(st, c),
        kept_stress_(st, c) {}

  /// v^{n-1/2} -> v^{n+1/2} for shots [0, count).
  void update_velocity(const ExecSpace& exec, int count) const;
  /// sigma^n -> sigma^{n+1} for shots [0, count).
  void update_stress(const ExecSpace& exec, int count) const;
  /// The two updates keeping their right-hand sides (F^n, e^{n+1/2}) in `kept` (UpdateTerms).
  void update_velocity(const ExecSpace& exec, int count, const UpdateTerms<T>& kept) const;
  void update_stress(const ExecSpace& exec, int count, const UpdateTerms<T>& kept) const;
  /// Host wavefronts: the two updates of shot s at depths [za, zb) only, on the calling thread
  /// (the same parts, blocks and arithmetic as the launches where za and zb bound their blocks:
  /// depth_units()).
  void update_velocity(int s, int za, int zb) const;
  void update_stress(int s, int za, int zb) const;
  /// The blocks of depths the launches run (backend::SlabUnits), for a wavefront's groups.
  backend::SlabUnits depth_units() const { return backend::slab_units(cuts_, host_depths<Dim>); }

 private:
  /// launch_strips() with each instance's copy keeping its terms in `kept`.
  template <class Instances>
  void launch_keeping(const char* label, const ExecSpace& exec, int count, const Instances& k,
                      const UpdateTerms<T>& kept) const {
    backend::for_each_box<Dim>(label, exec, count, cuts_, [&](auto in_x, auto in_y, auto in_z) {
      auto kernel =
          k.template get<decltype(in_x)::value, decltype(in_y)::value, decltype(in_z)::value>();
      kernel.kept = kept;
      return kernel;
    });
  }

  /// The 3D host paths launch each update in parts (velocity: vx, vy, vz; stresses: the
  /// normal three, then each shear one), each reading at most 8 arrays of the grid where the
  /// whole update reads 12 or 14: a core streams fewer arrays at once faster (bench/README,
  /// "Where the 3D elastic forward's time goes"). GPUs, the cell-wise build and 2D launch the
  /// whole update. Same bits either way (tests/physics/test_elastic_update_parts.cpp).
  static constexpr bool in_parts = Dim == 3 && backend::uses_row_paths<ExecSpace>();

  backend::BoxCuts cuts_;
  StripInstances<UpdateVelocity, T, Order, Dim> velocity_;
  StripInstances<UpdateStress, T, Order, Dim> stress_;
  StripInstances<UpdateVx, T, Order, Dim> vx_;
  StripInstances<UpdateVy, T, Order, Dim> vy_;
  StripInstances<UpdateVz, T, Order, Dim> vz_;
  StripInstances<UpdateNormalStresses, T, Order, Dim> normal_;
  StripInstances<UpdateSxz, T, Order, Dim> sxz_;
  StripInstances<UpdateSxy, T, Order, Dim> sxy_;
  StripInstances<UpdateSyz, T, Order, Dim> syz_;
  StripInstances<KeptUpdateVelocity, T, Order, Dim> kept_velocity_;
  StripInstances<KeptUpdateStress, T, Order, Dim> kept_stress_;
};

template <class T, int Order, int Dim>
void Step<T, Order, Dim>::update_velocity(const ExecSpace& exec, int count) const {
  if constexpr (in_parts) {
    launch_strips("pwave::physics::elastic::update_vx", exec, count, cuts_, vx_);
    launch_strips("pwave::physics::elastic::update_vy", exec, count, cuts_, vy_);
    launch_strips("pwave::physics::elastic::update_vz", exec, count, cuts_, vz_);
  } else {
    launch_strips("pwave::physics::elastic::update_velocity", exec, count, cuts_, velocity_);
  }
}

template <class T, int Order, int Dim>
void Step<T, Order, Dim>::update_stress(const ExecSpace& exec, int count) const {
  if constexpr (in_parts) {
    launch_strips("pwave::physics::elastic::update_normal_stresses", exec, count, cuts_, normal_);
    launch_strips("pwave::physics::elastic::update_sxz", exec, count, cuts_, sxz_);
    launch_strips("pwave::physics::elastic::update_sxy", exec, count, cuts_, sxy_);
    launch_strips("pwave::physics::elastic::update_syz", exec, count, cuts_, syz_);
  } else {
    launch_strips("pwave::physics::elastic::update_stress", exec, count, cuts_, stress_);
  }
}

template <class T, int Order, int Dim>
void Step<T, Order, Dim>::update_velocity(const ExecSpace& exec, int count,
                                          const UpdateTerms<T>& kept) const {
  launch_keeping("pwave::physics::elastic::update_velocity_keeping", exec, count, kept_velocity_,
                 kept);
}

template <class T, int Order, int Dim>
void Step<T, Order, Dim>::update_stress(const ExecSpace& exec, int count,
                                        const UpdateTerms<T>& kept) const {
  launch_keeping("pwave::physics::elastic::update_stress_keeping", exec, count, kept_stress_, kept);
}

template <class T, int Order, int Dim>
void Step<T, Order, Dim>::update_velocity(int s, int za, int zb) const {
  if constexpr (in_parts) {
    strips_at_depths(cuts_, vx_, s, za, zb);
    strips_at_depths(cuts_, vy_, s, za, zb);
    strips_at_depths(cuts_, vz_, s, za, zb);
  } else {
    strips_at_depths(cuts_, velocity_, s, za, zb);
  }
}

template <class T, int Order, int Dim>
void Step<T, Order, Dim>::update_stress(int s, int za, int zb) const {
  if constexpr (in_parts) {
    strips_at_depths(cuts_, normal_, s, za, zb);
    strips_at_depths(cuts_, sxz_, s, za, zb);
    strips_at_depths(cuts_, sxy_, s, za, zb);
    strips_at_depths(cuts_, syz_, s, za, zb);
  } else {
    strips_at_depths(cuts_, stress_, s, za, zb);
  }
}

PWAVE_ELASTIC_EVERY_INSTANCE(extern, Step)

}  // namespace pwave::physics::elastic
