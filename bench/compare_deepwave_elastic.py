#!/usr/bin/env python3
"""Side-by-side comparison of pwave's and Deepwave's elastic propagators (2D P-SV).

The same model (vp, vs, rho), grid, spatial order, time step, steps, wavelet, source and
receivers are run by Deepwave 0.1.0 (`deepwave.elastic`, in this process, through PyTorch) and
by pwave (`pwave run` on generated decks): a forward run and a misfit gradient with respect to
vp, vs and rho. It prints the traces' difference, the gradients' agreement (cosine and
least-squares scale per parameter) and the times.

Deepwave and PyTorch are benchmark dependencies only (never needed to build or test pwave):

    python3 -m venv /tmp/dwenv && /tmp/dwenv/bin/pip install deepwave numpy
    /tmp/dwenv/bin/python bench/compare_deepwave_elastic.py --pwave build/bin/pwave

Where the conventions meet (both codes document them; see bench/README.md, "Elastic, against
Deepwave"):
- Grid: both put the normal stresses (and the pressure) on the cells, vz half a cell deeper
  and vx half a cell further along x, sxz at both halves (Deepwave's 2D axes are (y, x): its
  y is pwave's z). A vertical force acts on the vz node of a cell and vz is recorded on the vz
  nodes: pwave is given the node's coordinates ((iz + 1/2) h, ix h), Deepwave the cell's
  integer index, which names the same node. Both take on-node positions exactly.
- Source: pwave's force_z wavelet s(t) (N/m in 2D) enters as dt b s / (dz dx); Deepwave's
  source_amplitudes_y is a force density (force per volume): it is given s / (dz dx). The
  least-squares scale between the traces is printed as a check (1.0 when the scalings agree).
- Timing of samples: both record v at (n - 1/2) dt as sample n and add the force of sample n
  to the update from v((n - 1/2) dt) to v((n + 1/2) dt).
- Absorbing boundary: each code's own C-PML, `--pml` cells added outside the model on every
  side; pwave's with R = 1e-3 and the same frequency and velocity as Deepwave's pml_freq and
  max_vel. The layers differ in detail, so part of the trace difference is their different
  (small) reflections; `--nt` short enough that the first reflections arrive late keeps it
  small.
- Model: a smooth one (a Gaussian anomaly in vp, vs and rho), where the codes' different
  averaging of the density and the shear modulus onto the staggered nodes matters little.
- Gradient: J = 0.5 sum (d - d_obs)^2 over receivers and samples; each code's observed data
  are its own forward traces on the "true" model (the anomaly twice as strong), the synthetic
  ones on the case model. Compared without the edge cells (pwave folds the CPML's
  contributions onto them) and the cells around the source.

Timing: Deepwave's wall time of the `deepwave.elastic` call (forward, under torch.no_grad), or
of the call plus the misfit plus backward() (gradient), after a warm-up call; pwave's
`seconds` from the run's summary.json (its propagation, no start-up or I/O), after a warm-up
run. `--threads` sets torch's threads and OMP_NUM_THREADS for an OpenMP pwave build;
`--device cuda` runs Deepwave on the GPU (torch.cuda.synchronize() around the timed calls) and
pwave as built (a CUDA build on the GPU).
"""

import argparse
import json
import os
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover
    sys.exit("compare_deepwave_elastic.py needs numpy (pip install numpy)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_deepwave import ricker, run_pwave, time_pwave, yaml_dump  # noqa: E402


def models(args, strength):
    """vp, vs, rho [nz, nx] (float32): the background with a Gaussian anomaly of `strength`
    (relative) centred under the middle of the spread."""
    nz, nx = args.nz, args.nx
    z, x = np.meshgrid(np.arange(nz), np.arange(nx), indexing="ij")
    g = np.exp(-((z - 0.55 * nz) ** 2 + (x - 0.5 * nx) ** 2) / (2 * (0.08 * min(nz, nx)) ** 2))
    vp = args.vp * (1 + strength * g)
    vs = args.vs * (1 - strength * g)
    rho = args.rho * (1 + 0.5 * strength * g)
    return [a.astype(np.float32) for a in (vp, vs, rho)]


def wavelet(args):
    """A Ricker of 1e9 N/m: particle velocities of order 1e-3 m/s, so that float32 misfits and
    gradients (products of them) stay far from underflow."""
    return 1e9 * ricker(args.freq, args.dt, args.nt)


def geometry(args):
    """Source cell (iz, ix) and receiver cells: a line 10 cells below the top."""
    src = (args.nz // 5, args.nx // 4)
    rec_iz = args.nz // 5
    rec_ix = list(range(args.nx // 10, args.nx - args.nx // 10, 2))
    return src, rec_iz, rec_ix


def pwave_deck(args, task, workdir, files, name, observed=None):
    (src_iz, src_ix), rec_iz, rec_ix = geometry(args)
    h = args.spacing
    deck = {
        "task": task,
        "precision": args.precision,
        "model": {"shape": [args.nz, args.nx], "spacing": h,
                  "vp": {"file": files["vp"]}, "vs": {"file": files["vs"]},
                  "rho": {"file": files["rho"]}},
        "time": {"dt": args.dt, "nt": args.nt},
        "wavelet": {"type": "file", "file": files["wavelet"], "peak_frequency": args.freq},
        "acquisition": {
            "sources": {"x": [src_ix * h], "z": (src_iz + 0.5) * h, "type": "force_z"},
            "receivers": {"x": {"start": rec_ix[0] * h, "step": (rec_ix[1] - rec_ix[0]) * h,
                                "count": len(rec_ix)},
                          "z": (rec_iz + 0.5) * h, "components": "vz"},
        },
        "physics": {"equation": "elastic", "order": args.order},
        "boundary": {"type": "cpml", "width": args.pml, "pml_frequency": args.freq,
                     "pml_velocity": float(files["vmax"]), "reflection": 1e-3},
        "output": {"directory": os.path.join(workdir, f"out_{name}"), "plots": False},
    }
    if task == "gradient":
        deck["observed"] = {"file": observed}
        deck["gradient"] = {"storage": args.storage}
    path = os.path.join(workdir, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(yaml_dump(deck) + "\n")
    return path, deck["output"]["directory"]


class Deepwave:
    def __init__(self, args, vmax):
        import torch
        import deepwave
        self.torch, self.dw = torch, deepwave
        torch.set_num_threads(args.threads)
        self.device = torch.device(args.device)
        self.dtype = torch.float32 if args.precision == "float32" else torch.float64
        (src_iz, src_ix), rec_iz, rec_ix = geometry(args)
        h = args.spacing
        s = wavelet(args)
        dev = self.device
        amp = torch.tensor(s / (h * h), dtype=self.dtype, device=dev).reshape(1, 1, -1)
        self.kw = dict(grid_spacing=h, dt=args.dt, source_amplitudes_y=amp,
                       source_locations_y=torch.tensor([[[src_iz, src_ix]]], device=dev),
                       receiver_locations_y=torch.tensor([[[rec_iz, ix] for ix in rec_ix]],
                                                         device=dev),
                       accuracy=args.order, pml_width=args.pml, pml_freq=args.freq,
                       max_vel=vmax)

    def _call(self, vp, vs, rho):
        lamb, mu, b = self.dw.vpvsrho_to_lambmubuoyancy(vp, vs, rho)
        out = self.dw.elastic(lamb, mu, b, **self.kw)
        self.info = out.info
        return out.as_dict()["receiver_amplitudes_y"]

    def tensors(self, arrays, grad=False):
        return [self.torch.tensor(a, dtype=self.dtype, device=self.device, requires_grad=grad)
                for a in arrays]

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()

    def forward(self, arrays):
        with self.torch.no_grad():
            v = self.tensors(arrays)
            self.sync()
            t0 = time.perf_counter()
            rec = self._call(*v)
            self.sync()
            return time.perf_counter() - t0, rec.cpu().numpy()

    def gradient(self, arrays, observed):
        v = self.tensors(arrays, grad=True)
        obs = self.torch.tensor(observed, dtype=self.dtype, device=self.device)
        self.sync()
        t0 = time.perf_counter()
        rec = self._call(*v)
        loss = 0.5 * ((rec - obs) ** 2).sum()
        loss.backward()
        self.sync()
        t = time.perf_counter() - t0
        return t, float(loss.item()), [x.grad.cpu().numpy() for x in v]


def rel_l2(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def ls_scale(a, b):
    """s minimising |s a - b|."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.sum(a * b) / np.sum(a * a))


def interior(g, args):
    """The gradient without the edge cells and the cells within 5 of the source."""
    (src_iz, src_ix), _, _ = geometry(args)
    m = np.zeros_like(g, dtype=bool)
    e = 3
    m[e:-e, e:-e] = True
    m[max(src_iz - 5, 0):src_iz + 6, max(src_ix - 5, 0):src_ix + 6] = False
    return np.asarray(g[m], np.float64)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pwave", default=os.path.join(here, "..", "build", "bin", "pwave"))
    p.add_argument("--nz", type=int, default=150)
    p.add_argument("--nx", type=int, default=200)
    p.add_argument("--spacing", type=float, default=10.0)
    p.add_argument("--nt", type=int, default=600)
    p.add_argument("--dt", type=float, default=0.001, help="s (below both codes' CFL bounds)")
    p.add_argument("--order", type=int, choices=[2, 4, 6, 8], default=4)
    p.add_argument("--pml", type=int, default=20)
    p.add_argument("--freq", type=float, default=10.0)
    p.add_argument("--vp", type=float, default=2500.0)
    p.add_argument("--vs", type=float, default=1400.0)
    p.add_argument("--rho", type=float, default=2200.0)
    p.add_argument("--anomaly", type=float, default=0.05, help="relative, of the true model")
    p.add_argument("--precision", choices=["float32", "float64"], default="float32")
    p.add_argument("--storage", choices=["checkpoint", "full"], default="checkpoint")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="Deepwave's device (pwave runs on whatever backend it was built for)")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--float64-reference", action="store_true",
                   help="float32 runs: also both gradients in float64 (untimed), and each "
                   "float32 gradient's cosine against its code's float64 one")
    p.add_argument("--json", help="write the results here too")
    args = p.parse_args()

    work = tempfile.mkdtemp(prefix="pwave_dw_elastic_")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               KOKKOS_NUM_THREADS=str(args.threads))
    case_model = models(args, 0.5 * args.anomaly)
    true_model = models(args, args.anomaly)
    vmax = float(max(true_model[0].max(), case_model[0].max()))
    files = {"vmax": vmax, "wavelet": os.path.join(work, "wavelet.npy")}
    np.save(files["wavelet"], wavelet(args))

    def save_model(arrays, tag):
        out = dict(files)
        for name, a in zip(("vp", "vs", "rho"), arrays):
            out[name] = os.path.join(work, f"{name}_{tag}.npy")
            np.save(out[name], a)
        return out

    case_files, true_files = save_model(case_model, "case"), save_model(true_model, "true")
    dw = Deepwave(args, vmax)

    # Forward.
    deck, out = pwave_deck(args, "forward", work, case_files, "forward")
    pw_t, _, _, _ = time_pwave(args.pwave, deck, out, env, args.repeat)
    pw_traces = np.load(os.path.join(out, "receivers.npy"))[0]
    dw.forward(case_model)  # warm-up
    dw_times = [dw.forward(case_model) for _ in range(args.repeat)]
    dw_traces = dw_times[-1][1][0]
    dw_t = [t for t, _ in dw_times]
    step_ratio = getattr(dw.info, "step_ratio", None)

    # Gradient: each code's observed data from its own forward run on the true model.
    def gradients(precision, repeat):
        """Both codes' gradients (vp, vs, rho) in `precision`, and their best times."""
        a = argparse.Namespace(**vars(args))
        a.precision = precision
        deck, out = pwave_deck(a, "forward", work, true_files, f"observed_{precision}")
        run_pwave(a.pwave, deck, out, env)
        observed_pw = os.path.join(out, "receivers.npy")
        deck, out = pwave_deck(a, "gradient", work, case_files, f"gradient_{precision}",
                               observed_pw)
        pg_t = time_pwave(a.pwave, deck, out, env, repeat)[0] if repeat > 0 else []
        if repeat == 0:
            run_pwave(a.pwave, deck, out, env)
        pw = [np.load(os.path.join(out, f)) for f in
              ("gradient.npy", "gradient_vs.npy", "gradient_rho.npy")]
        d = dw if precision == args.precision else Deepwave(a, vmax)
        _, dw_observed = d.forward(true_model)
        if repeat > 0:
            d.gradient(case_model, dw_observed)  # warm-up
        runs = [d.gradient(case_model, dw_observed) for _ in range(max(repeat, 1))]
        return pw, runs[-1][2], min(pg_t) if pg_t else None, min(t for t, _, _ in runs)

    pw_grads, dw_grads, pg_best, dg_best = gradients(args.precision, args.repeat)
    reference = None
    if args.precision == "float32" and args.float64_reference:
        reference = gradients("float64", 0)

    cells = args.nz * args.nx * args.nt
    res = {
        "case": {k: getattr(args, k) for k in ("nz", "nx", "spacing", "nt", "dt", "order", "pml",
                                               "freq", "precision", "storage", "threads",
                                               "device")},
        "deepwave_step_ratio": step_ratio,
        "traces_rel_l2": rel_l2(pw_traces, dw_traces),
        "traces_ls_scale": ls_scale(pw_traces, dw_traces),
        "forward_s": {"pwave": min(pw_t), "deepwave": min(dw_t)},
        "gradient_s": {"pwave": pg_best, "deepwave": dg_best},
        "gradient": {},
    }
    def cosine(a, b):
        return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))

    for k, name in enumerate(("vp", "vs", "rho")):
        a, b = interior(pw_grads[k], args), interior(dw_grads[k], args)
        res["gradient"][name] = {
            "cosine": cosine(a, b), "ls_scale": ls_scale(a, b),
            "rel_l2_after_scale": rel_l2(ls_scale(a, b) * a, b)}
        if reference:
            pr, dr = interior(reference[0][k], args), interior(reference[1][k], args)
            res["gradient"][name]["float64"] = {
                "codes_cosine": cosine(pr, dr), "pwave_cosine": cosine(a, pr),
                "deepwave_cosine": cosine(b, dr)}

    print(f"elastic {args.nz} x {args.nx} cells of {args.spacing} m + CPML {args.pml}, "
          f"order {args.order}, nt {args.nt}, dt {args.dt} s, {args.precision}, "
          f"{args.threads} thread(s), Deepwave on {args.device}; Deepwave step ratio {step_ratio}")
    print(f"traces (vz): relative L2 {res['traces_rel_l2']:.2e}, "
          f"least-squares scale {res['traces_ls_scale']:.5f}")
    for name, g in res["gradient"].items():
        print(f"gradient {name:3s}: cosine {g['cosine']:.5f}, scale {g['ls_scale']:.4f}, "
              f"relative L2 after scale {g['rel_l2_after_scale']:.2e}")
        if "float64" in g:
            r = g["float64"]
            print(f"   against float64: pwave cosine {r['pwave_cosine']:.5f}, Deepwave "
                  f"{r['deepwave_cosine']:.5f} (the float64 gradients: {r['codes_cosine']:.7f})")
    for what in ("forward_s", "gradient_s"):
        t = res[what]
        print(f"{what[:-2]:8s}: pwave {t['pwave']:.3f} s ({cells / t['pwave'] / 1e9:.3f} "
              f"Gcell/s), Deepwave {t['deepwave']:.3f} s, Deepwave / pwave "
              f"{t['deepwave'] / t['pwave']:.2f}")
    print(f"gradient / forward: pwave {res['gradient_s']['pwave'] / res['forward_s']['pwave']:.2f}"
          f", Deepwave {res['gradient_s']['deepwave'] / res['forward_s']['deepwave']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
