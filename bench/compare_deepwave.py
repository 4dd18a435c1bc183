#!/usr/bin/env python3
"""Side-by-side timing and accuracy comparison of pwave and Deepwave (scalar propagator).

For each case, the same model, grid, spatial order, time step, number of steps, shots,
receivers, wavelet and CPML width are run by Deepwave (in this process, through PyTorch) and
by pwave (`pwave run` on generated decks), for a forward run and for a misfit gradient, on the
same machine in the same invocation. It prints one table with the times, the ratio
(Deepwave / pwave: > 1 means pwave is faster), the cell-update rates, and how far apart the
two codes' traces and gradients are.

Deepwave and PyTorch are benchmark dependencies only (never needed to build or test pwave):

    python3 -m venv /tmp/dwenv && /tmp/dwenv/bin/pip install deepwave numpy
    /tmp/dwenv/bin/python bench/compare_deepwave.py --pwave build/bin/pwave

See bench/README.md ("compare_deepwave.py") for what is and is not made equal and for the
GPU procedure.

What is compared
- Equation: both solve u_tt = v^2 lap u + v^2 (source), second order in time, order 2..8 in
  space, with the receivers sampling u^n before step n and the source of step n entering
  u^{n+1}. pwave adds v^2 dt^2 s / (dx dz) at the source cell (docs/physics.md); Deepwave adds
  -v^2 dt^2 f. Deepwave is therefore given f = -s / (dx dz), and the two codes then solve the
  same discrete equations: traces are compared as they are, with no normalisation (the
  least-squares scale between them is printed as a check, 1.0 when the scalings agree).
- Wavelet: one Ricker array (pwave's formula, delay 1.5 / freq) fed to both (pwave as a
  `wavelet.file`), so the source samples are identical.
- CPML: both are Pasalic & McGarry (2010) C-PML with R = 1e-3, a quadratic profile, alpha =
  pi f (1 - eta), `--pml` cells added outside the model on every side, the model extended by
  its edge values, the same frequency (`pml_freq` = `boundary.pml_frequency` = `--freq`) and
  the same velocity (`max_vel` = `boundary.pml_velocity`), R = `boundary.reflection` = 1e-3
  set in the decks, and the same discrete form, (1 + b) D2 u + db D1 u + D1 (a psi^{n-1})
  (docs/physics.md): traces agree to rounding (8e-6 relative on the Marmousi case of
  bench/README.md). `--reference-pml N` also runs both forwards with an N-cell CPML (e.g.
  120) and reports each code's trace error against it.
- Gradient: J = 0.5 sum (d - d_obs)^2 over shots, receivers and samples (pwave's definition),
  dJ/dv. Each code's observed data are its own forward traces (untimed) on a "true" model:
  the case model with a +5% Gaussian anomaly under the middle of the spread (see
  true_model()). (Data from one code would put the two codes' trace difference into the
  other's residual, which for a weak anomaly can be larger than the residual itself.) The gradients are compared as they are, and also without
  the edge cells (pwave folds the CPML cells' contributions onto them) and the cells around
  the sources (the injection term v^2 dt^2 s depends on v there). The two residuals
  (synthetic - observed) are compared too: when they differ by more than 5%, the anomaly's
  signal is weak against the codes' CPML differences and the gradients cannot agree better
  than several times that; the script says so.
  Deepwave keeps every time step's snapshot in memory (its default storage); pwave uses
  `--pwave-storage` (default `boundary`: the CPML frame per step, the interior recomputed
  backwards).

Timing
- Deepwave: wall time of the `deepwave.scalar` call (forward, under torch.no_grad) or of the
  call plus the misfit plus `backward()` (gradient), in-process, after one warm-up call;
  `torch.cuda.synchronize()` before reading the clock on CUDA.
- pwave: the propagation time pwave measures itself, in-process: `seconds` in the run's
  summary.json (forward: the propagation; gradient: forward with storage + adjoint + misfit).
  Deck parsing,
  model and observed-data reading and result writing are outside both. The whole process
  time (start-up, Kokkos and MPI initialisation, I/O) is printed as well. One warm-up run
  first (a new process each time: it warms the file cache, not pwave itself).
- `--repeat N` timed runs of each after the warm-up; the best is reported. The JSON copy
  also has every run's time and CPU times (Deepwave: process_time() around the call;
  pwave: the whole child process, start-up included), which on a shared machine show how
  much of a wall time was spent waiting for a core.
- Threads: Deepwave on the CPU runs on torch.get_num_threads() threads (parallel over shots),
  set here with `--threads` (default 1, matching a Serial pwave build, which is one thread).
  The same number is put into OMP_NUM_THREADS and KOKKOS_NUM_THREADS for pwave, which only
  an OpenMP build of pwave uses.
"""

import argparse
import json
import math
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

try:
    import numpy as np
except ImportError:  # pragma: no cover - a message is better than a traceback
    sys.exit("compare_deepwave.py needs numpy (pip install numpy)")


# --------------------------------------------------------------------------- cases

CASE_KEYS = {"nz": int, "nx": int, "nt": int, "order": int, "shots": int, "spacing": float,
             "dt": float, "pml": int, "freq": float, "vp": float, "depth": int}


def parse_case(spec, defaults):
    """'nz=200,nx=300,nt=500,order=8,shots=1' over the command-line defaults."""
    case = dict(defaults)
    for item in filter(None, (s.strip() for s in spec.split(","))):
        if "=" not in item:
            raise SystemExit(f"--case: expected key=value, got '{item}'")
        k, v = (s.strip() for s in item.split("=", 1))
        if k not in CASE_KEYS:
            raise SystemExit(f"--case: unknown key '{k}' (known: {', '.join(CASE_KEYS)})")
        case[k] = CASE_KEYS[k](v)
    return case


def load_model(args, case):
    """The [nz][nx] float32 model of a case: --model file, else a constant --vp."""
    if args.model:
        if args.model.endswith(".npy"):
            v = np.load(args.model).astype(np.float32)
        else:
            if not args.shape:
                raise SystemExit("--model with a raw file needs --shape A B (the array as stored)")
            v = np.fromfile(args.model, dtype="<f4").reshape(args.shape)
        if args.model_order == "xz":
            v = v.T
        v = np.ascontiguousarray(v[:: args.stride, :: args.stride], dtype=np.float32)
        v *= args.model_scale
        if args.crop:
            v = np.ascontiguousarray(v[: args.crop[0], : args.crop[1]])
        case["nz"], case["nx"] = v.shape
        return v
    return np.full((case["nz"], case["nx"]), case["vp"], dtype=np.float32)


def true_model(v, case):
    """The case model with a +5% Gaussian anomaly of sigma = 1/20 of the smaller size (at
    least a quarter of the dominant wavelength), under the middle of the spread, at the depth
    whose reflection arrives at mid-record (at most half the model depth), so that the
    residual holds the anomaly's reflection."""
    nz, nx = v.shape
    wavelength = float(v.mean()) / case["freq"] / case["spacing"]
    sigma = max(2.0, min(nz, nx) / 20, wavelength / 4)
    depth = 0.25 * case["nt"] * case["dt"] * float(v.mean()) / case["spacing"]
    zc = min((nz - 1) / 2, max(depth, 3 * sigma + 3))
    z = np.arange(nz)[:, None] - zc
    x = np.arange(nx)[None, :] - (nx - 1) / 2
    return (v * (1 + 0.05 * np.exp(-(x * x + z * z) / (2 * sigma * sigma)))).astype(np.float32)


def geometry(case):
    """Grid indices: sources spread evenly over x, receivers on every 2nd cell, both at depth
    index `depth` (default 2)."""
    nz, nx, shots = case["nz"], case["nx"], case["shots"]
    src_iz = min(case["depth"], nz - 1)
    src_ix = [int(round((k + 1) * (nx - 1) / (shots + 1))) for k in range(shots)]
    rec_ix = list(range(0, nx, 2))
    return src_iz, src_ix, src_iz, rec_ix


def ricker(freq, dt, nt):
    """pwave's Ricker (src/pwave/acquisition/wavelet.cpp), peak at 1.5 / freq."""
    a = math.pi * freq * (np.arange(nt) * dt - 1.5 / freq)
    return (1 - 2 * a * a) * np.exp(-a * a)


# CFL: Deepwave sub-steps (and resamples the source and receivers) when
# dt vmax sqrt(1/dz^2 + 1/dx^2) > 0.6 (its default Courant number); pwave refuses
# dt above 2 / (vmax sqrt(mu (1/dx^2 + 1/dz^2))), mu = 4, 16/3, 272/45, 2048/315.
DEEPWAVE_COURANT = 0.6
PWAVE_MU = {2: 4.0, 4: 16 / 3, 6: 272 / 45, 8: 2048 / 315}


def choose_dt(case, vmax):
    h = case["spacing"]
    limit = DEEPWAVE_COURANT * h / (vmax * math.sqrt(2))
    if case.get("dt"):
        return case["dt"], limit
    dt = 0.9 * limit
    p = 10 ** math.floor(math.log10(dt))  # round down to 2 significant digits
    return math.floor(dt / p * 10) / 10 * p, limit


# --------------------------------------------------------------------------- pwave

def yaml_dump(d, indent=0):
    """A tiny block-style YAML writer (scalars and lists in JSON form, valid YAML)."""
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out.append(" " * indent + f"{k}:")
            out.append(yaml_dump(v, indent + 2))
        else:
            out.append(" " * indent + f"{k}: {json.dumps(v)}")
    return "\n".join(out)


def pwave_deck(case, task, workdir, model_file, wavelet_file, observed_file, vmax, storage,
               precision, name=None):
    name = name or task
    src_iz, src_ix, rec_iz, rec_ix = geometry(case)
    h = case["spacing"]
    deck = {
        "task": task,
        "precision": precision,
        "model": {"shape": [case["nz"], case["nx"]], "spacing": h, "vp": {"file": model_file}},
        "time": {"dt": case["dt"], "nt": case["nt"]},
        "wavelet": {"type": "file", "file": wavelet_file, "peak_frequency": case["freq"]},
        "acquisition": {
            "sources": {"x": [i * h for i in src_ix], "z": src_iz * h},
            "receivers": {"x": {"start": rec_ix[0] * h, "step": (rec_ix[1] - rec_ix[0]) * h
                                if len(rec_ix) > 1 else h, "count": len(rec_ix)},
                          "z": rec_iz * h},
        },
        "physics": {"order": case["order"]},
        "boundary": {"type": "cpml", "width": case["pml"], "free_surface": False,
                     "pml_frequency": case["freq"], "pml_velocity": float(vmax),
                     "reflection": 1e-3},  # Deepwave's fixed R
        "output": {"directory": os.path.join(workdir, f"out_{name}"), "plots": False},
    }
    if task == "gradient":
        deck["observed"] = {"file": observed_file}
        deck["gradient"] = {"storage": storage}
    path = os.path.join(workdir, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(yaml_dump(deck) + "\n")
    return path, deck["output"]["directory"]


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_pwave(exe, deck, outdir, env):
    c0 = children_cpu()
    t0 = time.perf_counter()
    r = subprocess.run([exe, "run", deck, "--quiet", "--no-plots"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    process_s = time.perf_counter() - t0
    process_cpu_s = children_cpu() - c0
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit(f"pwave failed (exit {r.returncode}) on {deck}")
    # pwave times its own propagation (no start-up, no I/O) into summary.json, every task.
    summary_path = os.path.join(outdir, "summary.json")
    if not os.path.exists(summary_path):
        raise SystemExit(f"pwave wrote no {summary_path}: is {exe} older than this script?")
    with open(summary_path) as f:
        summary = json.load(f)
    return {"seconds": float(summary["seconds"]), "process_seconds": process_s,
            "process_cpu_seconds": process_cpu_s, "timing_source": "summary.json seconds",
            "summary": summary}


def time_pwave(exe, deck, outdir, env, repeat):
    """One warm-up run, then `repeat` timed ones: the lists of propagation, process and process
    CPU seconds, and the last run's result."""
    run_pwave(exe, deck, outdir, env)
    times, process, cpu = [], [], []
    for _ in range(repeat):
        r = run_pwave(exe, deck, outdir, env)
        times.append(r["seconds"])
        process.append(r["process_seconds"])
        cpu.append(r["process_cpu_seconds"])
    return times, process, cpu, r


def pwave_info(exe):
    try:
        r = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        return " | ".join(l.strip() for l in r.stdout.strip().splitlines())
    except (OSError, subprocess.SubprocessError) as e:
        raise SystemExit(f"cannot run pwave at '{exe}': {e} (give it with --pwave)")


# --------------------------------------------------------------------------- Deepwave

class Deepwave:
    def __init__(self, device, precision):
        import torch
        import deepwave
        self.torch, self.deepwave = torch, deepwave
        self.device = torch.device(device)
        self.dtype = torch.float32 if precision == "float32" else torch.float64

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()

    def step_ratio(self, case, vmax):
        dw = self.deepwave
        f = getattr(getattr(dw, "discretisation", None), "cfl_condition_n", None) or \
            getattr(getattr(dw, "common", None), "cfl_condition_n", None)
        if f is None:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f([case["spacing"]] * 2, case["dt"], float(vmax))[1]

    def setup(self, case, vmax):
        torch = self.torch
        src_iz, src_ix, rec_iz, rec_ix = geometry(case)
        shots = case["shots"]
        h = case["spacing"]
        s = ricker(case["freq"], case["dt"], case["nt"])
        # pwave injects +v^2 dt^2 s / (dx dz); Deepwave injects -v^2 dt^2 f: f = -s / (dx dz).
        amp = torch.tensor(-s / (h * h), dtype=self.dtype, device=self.device)
        self.src_amp = amp.reshape(1, 1, -1).repeat(shots, 1, 1).contiguous()
        self.src_loc = torch.tensor([[[src_iz, ix]] for ix in src_ix], dtype=torch.long,
                                    device=self.device)
        rec = torch.tensor([[rec_iz, ix] for ix in rec_ix], dtype=torch.long, device=self.device)
        self.rec_loc = rec.unsqueeze(0).repeat(shots, 1, 1).contiguous()
        self.kw = dict(grid_spacing=h, dt=case["dt"], source_amplitudes=self.src_amp,
                       source_locations=self.src_loc, receiver_locations=self.rec_loc,
                       accuracy=case["order"], pml_width=case["pml"], pml_freq=case["freq"],
                       max_vel=float(vmax))

    def _call(self, v):
        out = self.deepwave.scalar(v, **self.kw)
        info = getattr(out, "info", None)
        self.last_step_ratio = getattr(info, "step_ratio", None)
        rec = getattr(out, "receiver_amplitudes", None)
        return out[-1] if rec is None else rec

    def forward(self, v_np):
        torch = self.torch
        v = torch.tensor(v_np, dtype=self.dtype, device=self.device)
        with torch.no_grad():
            self.sync()
            c0, t0 = time.process_time(), time.perf_counter()
            rec = self._call(v)
            self.sync()
            t, self.last_cpu = time.perf_counter() - t0, time.process_time() - c0
        return t, rec.cpu().numpy()

    def gradient(self, v_np, observed):
        torch = self.torch
        v = torch.tensor(v_np, dtype=self.dtype, device=self.device, requires_grad=True)
        obs = torch.tensor(observed, dtype=self.dtype, device=self.device)
        self.sync()
        c0, t0 = time.process_time(), time.perf_counter()
        rec = self._call(v)
        loss = 0.5 * ((rec - obs) ** 2).sum()
        loss.backward()
        self.sync()
        t, self.last_cpu = time.perf_counter() - t0, time.process_time() - c0
        self.last_residual = float((rec - obs).detach().norm() / obs.norm())
        self.last_residual_array = (rec - obs).detach().cpu().numpy()
        return t, float(loss.item()), v.grad.cpu().numpy()

    def memory_estimate(self, case):
        try:
            est = self.deepwave.estimate_memory(
                "scalar", [case["nz"], case["nx"]], case["nt"], case["shots"], self.dtype,
                accuracy=case["order"], pml_width=case["pml"], device=self.device)
            for name in ("total_bytes_lower_bound", "total_bytes", "peak_bytes"):
                value = est.get(name) if isinstance(est, dict) else getattr(est, name, None)
                if value is not None:
                    return float(value)
        except Exception:  # an optional estimate: never fail the comparison on it
            pass
        return None


# --------------------------------------------------------------------------- comparison

def rel_l2(a, b):
    """||a - b|| / ||b||."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    nb = np.linalg.norm(b)
    return float(np.linalg.norm(a - b) / nb) if nb > 0 else float("nan")


def ls_scale(a, b):
    """The c minimising ||a - c b||."""
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    bb = float(b @ b)
    return float(a @ b) / bb if bb > 0 else float("nan")


def best(times):
    return min(times)


def run_case(args, case, dw, pwave_env, workroot):
    v = load_model(args, case)  # sets nz, nx from a model file
    label = (f"{os.path.basename(args.model) + ' ' if args.model else ''}"
             f"{case['nz']}x{case['nx']} nt{case['nt']} o{case['order']} "
             f"{case['shots']} shot{'s' if case['shots'] > 1 else ''}")
    vmax = 1.05 * float(v.max())  # the true model's anomaly adds at most 5%
    case["dt"], dt_limit = choose_dt(case, vmax)
    vt = true_model(v, case)
    pad = (case["nz"] + 2 * case["pml"]) * (case["nx"] + 2 * case["pml"])
    updates = pad * case["nt"] * case["shots"]
    print(f"\n== {label}: spacing {case['spacing']} m, dt {case['dt']:g} s "
          f"(Deepwave sub-steps above {dt_limit:.4g} s), freq {case['freq']} Hz, "
          f"pml {case['pml']}, v {v.min():.0f}..{vmax:.0f} m/s, padded {pad} cells", flush=True)

    ratio = dw.step_ratio(case, vmax)
    warn = []
    if ratio is not None and ratio != 1:
        warn.append(f"Deepwave step_ratio {ratio}")
        print(f"WARNING: dt {case['dt']:g} s makes Deepwave take {ratio} internal steps per "
              "sample (and resample source and receivers): the comparison is not like for "
              f"like; use --dt <= {dt_limit:.4g}", flush=True)
    h = case["spacing"]
    pts = float(v.min()) / (3 * case["freq"] * h)
    if pts < 5:
        warn.append(f"{pts:.1f} points per shortest wavelength")

    work = tempfile.mkdtemp(prefix="pwave_vs_dw_", dir=workroot)
    model_file = os.path.join(work, "model.npy")
    np.save(model_file, v)
    wavelet_file = os.path.join(work, "wavelet.npy")
    np.save(wavelet_file, ricker(case["freq"], case["dt"], case["nt"]).astype(
        np.float32 if args.precision == "float32" else np.float64))

    dw.setup(case, vmax)
    rows = []

    # ---- forward
    if "forward" in args.tasks:
        deck, outdir = pwave_deck(case, "forward", work, model_file, wavelet_file, None, vmax,
                                  args.pwave_storage, args.precision)
        dw_t, dw_c = [], []
        dw.forward(v)  # warm-up
        for _ in range(args.repeat):
            t, traces_dw = dw.forward(v)
            dw_t.append(t)
            dw_c.append(dw.last_cpu)
        if dw.last_step_ratio not in (None, 1) and "Deepwave step_ratio" not in " ".join(warn):
            warn.append(f"Deepwave step_ratio {dw.last_step_ratio}")
        pw_t, pw_p, pw_c, r = time_pwave(args.pwave, deck, outdir, pwave_env, args.repeat)
        traces_pw = np.load(os.path.join(outdir, "receivers.npy"))
        rows.append(dict(case=label, task="forward", deepwave_s=best(dw_t), pwave_s=best(pw_t),
                         pwave_process_s=best(pw_p), pwave_timing=r["timing_source"],
                         cell_updates=updates,
                         diff_rel_l2=rel_l2(traces_dw, traces_pw),
                         diff_what="traces, ||dw - pw|| / ||pw||",
                         scale_dw_over_pw=ls_scale(traces_dw, traces_pw),
                         deepwave_times=dw_t, pwave_times=pw_t, pwave_process_times=pw_p,
                         deepwave_cpu_times=dw_c, pwave_process_cpu_times=pw_c))
        if args.reference_pml:
            # Both codes again with a much wider CPML (untimed): their traces then agree to
            # rounding, and each code's distance to them is the error its --pml CPML makes.
            ref = dict(case, pml=args.reference_pml)
            dw.setup(ref, vmax)
            _, ref_dw = dw.forward(v)
            dw.setup(case, vmax)
            deck, outdir = pwave_deck(ref, "forward", work, model_file, wavelet_file, None, vmax,
                                      args.pwave_storage, args.precision, name="reference")
            run_pwave(args.pwave, deck, outdir, pwave_env)
            ref_pw = np.load(os.path.join(outdir, "receivers.npy"))
            rows[-1].update(reference_pml=args.reference_pml,
                            reference_dw_vs_pw=rel_l2(ref_dw, ref_pw),
                            cpml_error_deepwave=rel_l2(traces_dw, ref_pw),
                            cpml_error_pwave=rel_l2(traces_pw, ref_pw))

    # ---- gradient
    if "gradient" in args.tasks:
        mem = dw.memory_estimate(case)
        if mem:
            print(f"Deepwave gradient memory estimate: {mem / 2**30:.2f} GiB", flush=True)
        # Each code's observed data are its own forward traces on the true model (untimed).
        _, observed = dw.forward(vt)
        true_file = os.path.join(work, "true_model.npy")
        np.save(true_file, vt)
        deck, outdir = pwave_deck(case, "forward", work, true_file, wavelet_file, None, vmax,
                                  args.pwave_storage, args.precision, name="observed")
        run_pwave(args.pwave, deck, outdir, pwave_env)
        observed_file = os.path.join(outdir, "receivers.npy")
        deck, outdir = pwave_deck(case, "gradient", work, model_file, wavelet_file,
                                  observed_file, vmax, args.pwave_storage, args.precision)
        dw_t, dw_c = [], []
        dw.gradient(v, observed)  # warm-up
        for _ in range(args.repeat):
            t, loss_dw, grad_dw = dw.gradient(v, observed)
            dw_t.append(t)
            dw_c.append(dw.last_cpu)
        pw_t, pw_p, pw_c, r = time_pwave(args.pwave, deck, outdir, pwave_env, args.repeat)
        grad_pw = np.load(os.path.join(outdir, "gradient.npy"))
        res_pw = (np.load(os.path.join(outdir, "synthetic.npy")).astype(np.float64)
                  - np.load(observed_file).astype(np.float64))
        res_diff = rel_l2(dw.last_residual_array, res_pw)
        loss_pw = float(r["summary"]["misfit"]) if r["summary"] else float("nan")
        # Away from the edges (CPML folding) and from the sources (injection term).
        e = case["order"] // 2 + 1
        mask = np.zeros_like(grad_pw, dtype=bool)
        mask[e:-e, e:-e] = True
        src_iz, src_ix, _, _ = geometry(case)
        for ix in src_ix:
            mask[max(0, src_iz - e): src_iz + e + 1, max(0, ix - e): ix + e + 1] = False
        rows.append(dict(case=label, task="gradient", deepwave_s=best(dw_t), pwave_s=best(pw_t),
                         pwave_process_s=best(pw_p), pwave_timing=r["timing_source"],
                         cell_updates=updates,
                         diff_rel_l2=rel_l2(grad_dw, grad_pw),
                         diff_rel_l2_inner=rel_l2(grad_dw[mask], grad_pw[mask]),
                         diff_what="dJ/dv, ||dw - pw|| / ||pw||",
                         scale_dw_over_pw=ls_scale(grad_dw, grad_pw),
                         misfit_deepwave=loss_dw, misfit_pwave=loss_pw,
                         residual_rel_deepwave=dw.last_residual,
                         residual_diff_rel_l2=res_diff,
                         pwave_storage=args.pwave_storage,
                         deepwave_memory_estimate_bytes=mem,
                         deepwave_times=dw_t, pwave_times=pw_t, pwave_process_times=pw_p,
                         deepwave_cpu_times=dw_c, pwave_process_cpu_times=pw_c))
    for r in rows:
        if r["task"] == "gradient" and r["residual_diff_rel_l2"] > 0.05:
            r.setdefault("notes", []).append(
                f"the two codes' residuals differ by {r['residual_diff_rel_l2']:.0%} (the "
                "anomaly's signal is weak against their CPML differences) and their gradients "
                "by several times that (a larger model, nt or freq helps)")
    for row in rows:
        row.update(dict(nz=case["nz"], nx=case["nx"], nt=case["nt"], order=case["order"],
                        shots=case["shots"], spacing=case["spacing"], dt=case["dt"],
                        pml=case["pml"], freq=case["freq"], warnings=warn,
                        ratio=row["deepwave_s"] / row["pwave_s"],
                        cpu_ratio=min(row["deepwave_cpu_times"]) /
                        max(1e-9, min(row["pwave_process_cpu_times"])),
                        deepwave_mcell_s=updates / row["deepwave_s"] / 1e6,
                        pwave_mcell_s=updates / row["pwave_s"] / 1e6))
        print(f"  {row['task']:8s} Deepwave {row['deepwave_s']:.3f} s, pwave {row['pwave_s']:.3f} s "
              f"(process {row['pwave_process_s']:.3f} s), ratio {row['ratio']:.2f}, "
              f"rel diff {row['diff_rel_l2']:.2e}", flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def print_table(rows):
    head = ("case", "task", "Deepwave s", "pwave s", "ratio", "DW Mcell/s", "pwave Mcell/s",
            "pwave process s", "CPU ratio", "rel L2 diff")
    lines = [head]
    for r in rows:
        diff = f"{r['diff_rel_l2']:.1e}"
        if r["task"] == "gradient":
            diff += f" (inner {r['diff_rel_l2_inner']:.1e})"
        lines.append((r["case"], r["task"], f"{r['deepwave_s']:.3f}", f"{r['pwave_s']:.3f}",
                      f"{r['ratio']:.2f}", f"{r['deepwave_mcell_s']:.0f}",
                      f"{r['pwave_mcell_s']:.0f}", f"{r['pwave_process_s']:.3f}",
                      f"{r['cpu_ratio']:.2f}", diff))
    print("\n| " + " | ".join(lines[0]) + " |")
    print("|" + "---|" * len(head))
    for l in lines[1:]:
        print("| " + " | ".join(l) + " |")
    print("\nratio = Deepwave s / pwave s (> 1: pwave faster). Mcell/s = padded cells x nt x shots"
          " / s (for the gradient: forward cell updates per second of gradient time).")
    print("CPU ratio = Deepwave CPU s of the call / CPU s of the whole pwave process (start-up"
          " included): less sensitive to waiting for a core on a shared machine.")
    print("rel L2 diff: forward = ||traces_dw - traces_pw|| / ||traces_pw||; gradient = the same"
          " for dJ/dv (inner: without the edge cells and the cells around the sources).")
    for r in rows:
        extra = [f"timing: {r['pwave_timing']}"]
        if r["task"] == "gradient":
            extra.append(f"misfit dw {r['misfit_deepwave']:.6g} pw {r['misfit_pwave']:.6g}, "
                         f"residual {r['residual_rel_deepwave']:.2e} of the data (Deepwave), "
                         f"residuals differ by {r['residual_diff_rel_l2']:.1e}")
        extra.append(f"scale dw/pw {r['scale_dw_over_pw']:.5f}")
        if "reference_pml" in r:
            extra.append(f"against a {r['reference_pml']}-cell CPML reference (where the codes "
                         f"differ by {r['reference_dw_vs_pw']:.1e}): Deepwave "
                         f"{r['cpml_error_deepwave']:.1e}, pwave {r['cpml_error_pwave']:.1e}")
        if r["warnings"] or r.get("notes"):
            extra.append("warnings: " + "; ".join(r["warnings"] + r.get("notes", [])))
        print(f"  {r['case']} {r['task']}: " + ", ".join(extra))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Cases: --case 'nz=200,nx=300,nt=500,order=8,shots=1' "
                                "(repeatable; keys: " + ", ".join(CASE_KEYS) + "; each "
                                "over the defaults given by the options below).")
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--pwave", default=os.path.join(here, "..", "build", "bin", "pwave"),
                   help="pwave executable (default: build/bin/pwave of this checkout)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="Deepwave's device (pwave runs on whatever its build targets)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch.set_num_threads for Deepwave and OMP/KOKKOS_NUM_THREADS for "
                   "pwave (default 1: a Serial pwave build runs one thread)")
    p.add_argument("--case", action="append", default=[], metavar="K=V,...")
    p.add_argument("--nz", type=int, default=200)
    p.add_argument("--nx", type=int, default=300)
    p.add_argument("--spacing", type=float, default=10.0, help="m (dz = dx)")
    p.add_argument("--nt", type=int, default=500)
    p.add_argument("--dt", type=float, default=0.0,
                   help="s; default: 0.9 x Deepwave's no-sub-stepping limit, 2 digits")
    p.add_argument("--order", type=int, choices=[2, 4, 6, 8], default=8)
    p.add_argument("--shots", type=int, default=1)
    p.add_argument("--pml", type=int, default=20, help="CPML cells per side")
    p.add_argument("--freq", type=float, default=10.0, help="Ricker peak frequency, Hz")
    p.add_argument("--vp", type=float, default=2500.0, help="constant model velocity, m/s")
    p.add_argument("--depth", type=int, default=2,
                   help="depth of the sources and receivers, in cells below the top")
    p.add_argument("--model", help="velocity file: .npy, or raw little-endian float32")
    p.add_argument("--shape", type=int, nargs=2, metavar=("A", "B"),
                   help="raw --model: the array shape as stored (C order)")
    p.add_argument("--model-order", choices=["zx", "xz"], default="zx",
                   help="zx: stored [nz][nx]; xz: stored [nx][nz] (transposed on reading)")
    p.add_argument("--model-scale", type=float, default=1.0, help="e.g. 1000 for km/s")
    p.add_argument("--stride", type=int, default=1, help="decimate the model file")
    p.add_argument("--crop", type=int, nargs=2, metavar=("NZ", "NX"),
                   help="keep the first NZ x NX cells of the model file")
    p.add_argument("--tasks", default="forward,gradient")
    p.add_argument("--precision", choices=["float32", "float64"], default="float32")
    p.add_argument("--pwave-storage", choices=["boundary", "checkpoint", "full"],
                   default="boundary")
    p.add_argument("--repeat", type=int, default=1, help="timed runs after the warm-up")
    p.add_argument("--reference-pml", type=int, default=0, metavar="N",
                   help="also run both forwards (untimed) with an N-cell CPML and report each "
                   "code's trace error against it: how much of the trace difference is "
                   "whose CPML (0: off)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--workdir", default=None, help="where the temporary decks go")
    p.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = p.parse_args()
    args.tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    args.pwave = os.path.abspath(args.pwave)

    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(args.threads)
    env["KOKKOS_NUM_THREADS"] = str(args.threads)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))

    import torch
    import deepwave
    if args.device == "cpu":
        torch.set_num_threads(args.threads)
    elif not torch.cuda.is_available():
        raise SystemExit("--device cuda but torch.cuda.is_available() is False")
    dw = Deepwave(args.device, args.precision)

    pw = pwave_info(args.pwave)
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            cpu = m.group(1) if m else cpu
    except OSError:
        pass
    meta = {
        "host": platform.node(), "cpu": cpu, "cpus": os.cpu_count(),
        "python": platform.python_version(), "torch": torch.__version__,
        "deepwave": getattr(deepwave, "__version__", "?"), "numpy": np.__version__,
        "pwave": pw, "pwave_executable": args.pwave, "device": args.device,
        "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
        "threads": args.threads, "torch_threads": torch.get_num_threads(),
        "precision": args.precision, "command": " ".join(sys.argv),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    print(f"# Deepwave {meta['deepwave']} (torch {meta['torch']}, {args.device}"
          f"{', ' + meta['gpu'] if meta['gpu'] else ''}, {meta['torch_threads']} threads) vs {pw}")
    print(f"# {cpu}, {meta['cpus']} CPUs, load average {meta['loadavg']}")

    defaults = {k: getattr(args, k) for k in CASE_KEYS}
    cases = [parse_case(s, defaults) for s in args.case] or [dict(defaults)]
    rows = []
    for case in cases:
        rows += run_case(args, case, dw, env, args.workdir)
    print_table(rows)
    if args.json:
        meta["loadavg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
