#!/usr/bin/env python3
"""pwave's variable-density acoustic equation beside Deepwave 0.1.0's `acoustic` propagator.

Same model (vp and rho), grid, spatial order, time step, steps, shots, receivers, wavelet and
CPML width; a forward run and a misfit gradient (dJ/dvp and dJ/drho) by each code, on the same
machine in the same invocation. Prints the times, how far apart the traces are, and the
direction agreement (cosine) of the two codes' gradients.

Deepwave and PyTorch are benchmark dependencies only:

    python3 -m venv /tmp/dwenv && /tmp/dwenv/bin/pip install deepwave numpy
    /tmp/dwenv/bin/python bench/compare_deepwave_density.py --pwave build/bin/pwave

What is and is not the same
- Equation. pwave: the second-order pressure form u_tt = rho v^2 div(grad u / rho) + v^2 s delta
  (docs/physics.md), leapfrog on u. Deepwave: the first-order velocity-pressure system on a
  staggered grid in space and time, p_t = rho v^2 (q delta - div w), w_t = -grad p / rho. The
  two are the same continuous equation when rho v^2 q_t = v^2 s at the source, i.e.
  q(t) = (1/rho_s) int_0^t s; the script feeds Deepwave q = cumsum(s) dt / (rho_s dx dz)
  (Deepwave samples q at half steps, so the cumulative sum up to sample n is the midpoint rule
  for int_0^{(n + 1/2) dt} s). The two discretisations are one scheme written two ways:
  eliminating the particle velocities of Deepwave's staggered leapfrog gives pwave's update
  u+ = 2u - u- + rho v^2 dt^2 D-(b D+ u), with the same staggered coefficients and the same
  buoyancy averaging, so the traces agree to rounding (measured: 3.9e-5 relative L2 in float32,
  least-squares amplitude ratio 1.0000) and the gradients point the same way (cosine 1.0000).
- Model: two layers (vp 2000 / 2800 m/s, the interface at mid-depth) with Gardner densities
  rho = 310 vp^0.25 kg/m^3, or --vp/--rho constants. The true model of the gradient adds a +5%
  Gaussian density anomaly left of the middle and a +5% velocity anomaly right of it, so both
  gradients have something to point at. Each code's observed data are its own forward traces
  on the true model (untimed).
- Gradients: J = 0.5 sum (d - d_obs)^2; compared by their cosine over the model without the
  edge cells (pwave folds its CPML cells onto them) and without 5 cells around each source.
- Timing: Deepwave's call (forward: under no_grad; gradient: call + misfit + backward) after a
  warm-up; pwave's own propagation time (summary.json `seconds`), after a warm-up run, best of
  --repeat. Threads: Deepwave on --threads (default 1), pwave as built (Serial: one thread).
"""

import argparse
import json
import math
import os
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_deepwave as cd  # noqa: E402  (ricker, yaml_dump, geometry, pwave runners)


def gardner(vp):
    return (310.0 * vp ** 0.25).astype(np.float32)


def models(args):
    nz, nx = args.nz, args.nx
    vp = np.full((nz, nx), args.vp if args.vp else 2000.0, dtype=np.float32)
    if not args.vp:
        vp[nz // 2:, :] = 2800.0
    rho = np.full((nz, nx), args.rho, dtype=np.float32) if args.rho else gardner(vp)
    z = np.arange(nz)[:, None] - 0.35 * nz
    sigma = max(3.0, min(nz, nx) / 20)
    bump = lambda xc: np.exp(-((np.arange(nx)[None, :] - xc) ** 2 + z * z) / (2 * sigma ** 2))
    true_rho = (rho * (1 + 0.05 * bump(0.35 * nx))).astype(np.float32)
    true_vp = (vp * (1 + 0.05 * bump(0.65 * nx))).astype(np.float32)
    return vp, rho, true_vp, true_rho


def pwave_deck(case, task, work, files, vmax, name):
    src_iz, src_ix, rec_iz, rec_ix = cd.geometry(case)
    h = case["spacing"]
    deck = {
        "task": task, "precision": case["precision"],
        "model": {"shape": [case["nz"], case["nx"]], "spacing": h,
                  "vp": {"file": files["vp"]}, "rho": {"file": files["rho"]}},
        "time": {"dt": case["dt"], "nt": case["nt"]},
        "wavelet": {"type": "file", "file": files["wavelet"], "peak_frequency": case["freq"]},
        "acquisition": {"sources": {"x": [i * h for i in src_ix], "z": src_iz * h},
                        "receivers": {"x": [i * h for i in rec_ix], "z": rec_iz * h}},
        "physics": {"equation": "acoustic_variable_density", "order": case["order"]},
        "boundary": {"type": "cpml", "width": case["pml"], "pml_frequency": case["freq"],
                     "pml_velocity": float(vmax), "reflection": 1e-3},
        "output": {"directory": os.path.join(work, "out_" + name), "plots": False},
    }
    if task == "gradient":
        deck["observed"] = {"file": files["observed"]}
        deck["gradient"] = {"storage": case["storage"]}
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as f:
        f.write(cd.yaml_dump(deck) + "\n")
    return path, deck["output"]["directory"]


class DeepwaveAcoustic:
    def __init__(self, args, case, rho_at_sources):
        import torch
        import deepwave
        self.torch, self.dw = torch, deepwave
        torch.set_num_threads(args.threads)
        self.device = torch.device(args.device)
        self.dtype = torch.float32 if case["precision"] == "float32" else torch.float64
        src_iz, src_ix, rec_iz, rec_ix = cd.geometry(case)
        h, dt, shots = case["spacing"], case["dt"], case["shots"]
        s = cd.ricker(case["freq"], dt, case["nt"])
        q = np.stack([np.cumsum(s) * dt / (r * h * h) for r in rho_at_sources])
        self.kw = dict(
            grid_spacing=h, dt=dt,
            source_amplitudes_volume_rate=torch.tensor(q[:, None, :], dtype=self.dtype,
                                                       device=self.device),
            source_locations_volume_rate=torch.tensor([[[src_iz, ix]] for ix in src_ix],
                                                      dtype=torch.long, device=self.device),
            receiver_locations_p=torch.tensor([[[rec_iz, ix] for ix in rec_ix]] * shots,
                                              dtype=torch.long, device=self.device),
            accuracy=case["order"], pml_width=case["pml"], pml_freq=case["freq"],
            max_vel=float(case["vmax"]))

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()

    def call(self, v, rho):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.dw.acoustic(v, rho, **self.kw).receiver_amplitudes_p

    def tensor(self, a, grad=False):
        return self.torch.tensor(a, dtype=self.dtype, device=self.device, requires_grad=grad)

    def forward(self, vp, rho):
        with self.torch.no_grad():
            self.sync()
            t0 = time.perf_counter()
            rec = self.call(self.tensor(vp), self.tensor(rho))
            self.sync()
            return time.perf_counter() - t0, rec.cpu().numpy()

    def gradient(self, vp, rho, observed):
        v, r = self.tensor(vp, True), self.tensor(rho, True)
        obs = self.tensor(observed)
        self.sync()
        t0 = time.perf_counter()
        loss = 0.5 * ((self.call(v, r) - obs) ** 2).sum()
        loss.backward()
        self.sync()
        return (time.perf_counter() - t0, float(loss.item()), v.grad.cpu().numpy(),
                r.grad.cpu().numpy())


def cosine(a, b, mask):
    a, b = a[mask].astype(np.float64), b[mask].astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--pwave", default=os.path.join(here, "..", "build", "bin", "pwave"))
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--nz", type=int, default=200)
    p.add_argument("--nx", type=int, default=300)
    p.add_argument("--spacing", type=float, default=10.0)
    p.add_argument("--nt", type=int, default=800)
    p.add_argument("--order", type=int, choices=[2, 4, 6, 8], default=8)
    p.add_argument("--shots", type=int, default=2)
    p.add_argument("--pml", type=int, default=20)
    p.add_argument("--freq", type=float, default=10.0)
    p.add_argument("--vp", type=float, default=0.0, help="constant vp (default: two layers)")
    p.add_argument("--rho", type=float, default=0.0, help="constant rho (default: Gardner)")
    p.add_argument("--precision", choices=["float32", "float64"], default="float32")
    p.add_argument("--storage", choices=["boundary", "checkpoint", "full"], default="boundary")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args()

    vp, rho, true_vp, true_rho = models(args)
    vmax = float(max(vp.max(), true_vp.max()))
    case = dict(nz=args.nz, nx=args.nx, spacing=args.spacing, nt=args.nt, order=args.order,
                shots=args.shots, pml=args.pml, freq=args.freq, depth=2, precision=args.precision,
                storage=args.storage, vmax=vmax)
    case["dt"], _ = cd.choose_dt(case, vmax * math.sqrt(float((rho.max() / rho.min()))))
    work = tempfile.mkdtemp(prefix="pwave_dw_density_")
    files = {}
    for name, a in (("vp", vp), ("rho", rho), ("true_vp", true_vp), ("true_rho", true_rho)):
        files[name] = os.path.join(work, name + ".npy")
        np.save(files[name], a)
    files["wavelet"] = os.path.join(work, "wavelet.npy")
    np.save(files["wavelet"], cd.ricker(args.freq, case["dt"], args.nt).astype(np.float32))
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               KOKKOS_NUM_THREADS=str(args.threads))
    print("pwave:", cd.pwave_info(args.pwave))
    print(f"case: {args.nz} x {args.nx} cells, h = {args.spacing} m, {args.nt} steps, dt = "
          f"{case['dt']:g} s, order {args.order}, {args.shots} shots, CPML {args.pml}, "
          f"{args.precision}")

    src_iz, src_ix, _, _ = cd.geometry(case)
    dw = DeepwaveAcoustic(args, case, [float(rho[src_iz, ix]) for ix in src_ix])
    rows = {}

    # Forward.
    deck, out = pwave_deck(case, "forward", work, files, vmax, "forward")
    pw_t, _, _, _ = cd.time_pwave(args.pwave, deck, out, env, args.repeat)
    d_pw = np.load(os.path.join(out, "receivers.npy")).astype(np.float64)
    dw.forward(vp, rho)  # warm-up
    dw_t = [dw.forward(vp, rho)[0] for _ in range(args.repeat)]
    d_dw = dw.forward(vp, rho)[1].astype(np.float64)
    scale = float((d_dw * d_pw).sum() / (d_dw * d_dw).sum())
    rows["forward"] = dict(deepwave_s=min(dw_t), pwave_s=min(pw_t),
                           traces_rel_l2=float(np.linalg.norm(d_pw - d_dw) / np.linalg.norm(d_pw)),
                           ls_scale_pwave_over_deepwave=scale,
                           rel_l2_after_scale=float(np.linalg.norm(d_pw - scale * d_dw) /
                                                    np.linalg.norm(d_pw)))

    # Gradient: each code's observed data from the true model.
    true_files = dict(files, vp=files["true_vp"], rho=files["true_rho"])
    tdeck, tout = pwave_deck(case, "forward", work, true_files, vmax, "true")
    cd.run_pwave(args.pwave, tdeck, tout, env)
    files["observed"] = os.path.join(tout, "receivers.npy")
    gdeck, gout = pwave_deck(case, "gradient", work, files, vmax, "gradient")
    pwg_t, _, _, _ = cd.time_pwave(args.pwave, gdeck, gout, env, args.repeat)
    g_vp = np.load(os.path.join(gout, "gradient.npy"))
    g_rho = np.load(os.path.join(gout, "gradient_rho.npy"))
    obs_dw = dw.forward(true_vp, true_rho)[1]
    dw.gradient(vp, rho, obs_dw)  # warm-up
    runs = [dw.gradient(vp, rho, obs_dw) for _ in range(args.repeat)]
    _, _, dg_vp, dg_rho = runs[-1]
    mask = np.zeros(vp.shape, dtype=bool)
    mask[1:-1, 1:-1] = True
    for ix in src_ix:
        mask[max(src_iz - 5, 0):src_iz + 6, max(ix - 5, 0):ix + 6] = False
    rows["gradient"] = dict(deepwave_s=min(r[0] for r in runs), pwave_s=min(pwg_t),
                            cosine_dJ_dvp=cosine(g_vp, dg_vp, mask),
                            cosine_dJ_drho=cosine(g_rho, dg_rho, mask))

    print(f"{'task':9s} {'Deepwave s':>11s} {'pwave s':>9s} {'ratio':>6s}  agreement")
    for task, r in rows.items():
        ratio = r["deepwave_s"] / r["pwave_s"]
        if task == "forward":
            what = (f"traces rel L2 {r['traces_rel_l2']:.3g} (LS scale pwave/Deepwave "
                    f"{r['ls_scale_pwave_over_deepwave']:.4f}; {r['rel_l2_after_scale']:.3g} "
                    f"after it)")
        else:
            what = (f"cosine dJ/dvp {r['cosine_dJ_dvp']:.4f}, dJ/drho "
                    f"{r['cosine_dJ_drho']:.4f}")
        print(f"{task:9s} {r['deepwave_s']:11.3f} {r['pwave_s']:9.3f} {ratio:6.2f}  {what}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(case=case, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
