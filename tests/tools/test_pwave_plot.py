#!/usr/bin/env python3
"""Tests of tools/pwave-plot on synthetic run directories (ctest: PwavePlot.Figures).

Usage: test_pwave_plot.py [--tool PATH/TO/pwave-plot] [unittest options]

Runs the tool with this interpreter (which must have NumPy and matplotlib; exit 77 = skipped
otherwise) and checks that every expected figure is written, is a valid PNG, and is not blank.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.normpath(os.path.join(HERE, "..", "..", "tools", "pwave-plot"))

try:
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {sys.executable} has no NumPy/matplotlib ({e})")
    sys.exit(SKIP)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NZ, NX, DZ, DX = 41, 81, 10.0, 10.0
NT, DT = 300, 0.002
SOURCES = [[100.0, 20.0], [400.0, 20.0], [700.0, 20.0]]
RECEIVERS = [[x, 10.0] for x in np.arange(0.0, 801.0, 20.0).tolist()]   # 41 receivers


def ricker(nt, dt, f0=12.0, t0=0.1):
    t = np.arange(nt) * dt - t0
    a = (np.pi * f0 * t) ** 2
    return (1 - 2 * a) * np.exp(-a)


def layered_model():
    z = np.arange(NZ)[:, None] * DZ
    x = np.arange(NX)[None, :] * DX
    v = 1500.0 + 2.5 * z + 0 * x
    v[(z > 200 + 0.1 * x) & (z < 280 + 0.1 * x)] += 600.0     # a dipping fast layer
    return v


def smooth(a, n=30):
    for _ in range(n):
        a = (a + np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1)) / 5
    return a


def gathers(nshots, wavelet):
    """Direct and reflected hyperbolae, [shot, receiver, time]."""
    rx = np.array([r[0] for r in RECEIVERS])
    t = np.arange(NT) * DT
    d = np.zeros((nshots, len(rx), NT))
    for s in range(nshots):
        off = np.abs(rx - SOURCES[s][0])
        for t0, v, amp in ((0.0, 1500.0, 1.0), (0.25, 2000.0, 0.4)):
            tt = np.sqrt(t0 ** 2 + (off / v) ** 2)
            for r in range(len(rx)):
                d[s, r] = d[s, r] + amp * np.interp(t - tt[r], t - 0.1, wavelet, left=0, right=0)
    return d.astype("<f4")


def write_run_json(directory, task, **extra):
    meta = {"task": task, "precision": "float32", "dt": DT, "nt": NT, "nz": NZ, "nx": NX,
            "dz": DZ, "dx": DX, "sources": SOURCES, "receivers": RECEIVERS, "output_every": 1,
            "observed_file": "", "true_model": task == "fwi"}
    meta.update(extra)
    with open(os.path.join(directory, "run.json"), "w") as f:
        json.dump(meta, f, indent=1)


def make_fwi_run(directory):
    w = ricker(NT, DT)
    np.save(os.path.join(directory, "wavelet.npy"), w.astype("<f4"))
    np.save(os.path.join(directory, "observed.npy"), gathers(3, w))
    true = layered_model()
    initial = smooth(true)
    model = 0.5 * (initial + true)
    np.save(os.path.join(directory, "true_model.npy"), true.astype("<f4"))
    np.save(os.path.join(directory, "initial_model.npy"), initial.astype("<f4"))
    np.save(os.path.join(directory, "model_0001.npy"), model.astype("<f4"))
    np.save(os.path.join(directory, "gradient_0001.npy"), ((initial - true) * 1e-7).astype("<f4"))
    np.save(os.path.join(directory, "model_final.npy"), model.astype("<f8"))
    with open(os.path.join(directory, "history.csv"), "w") as f:
        f.write("iteration,stage,misfit,gradient_norm,step,seconds,dead_traces\n")
        misfit = 5.0
        for it in range(1, 7):
            stage = 0 if it <= 3 else 1
            misfit *= 2.5 if it == 4 else 0.7
            f.write(f"{it},{stage},{misfit:.6g},{misfit * 30:.6g},20,0.5,{3 if it == 1 else 0}\n")
    write_run_json(directory, "fwi")


def run_tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)


LINE_FIGURES = ("wavelet.png", "loss.png", "wavelet_estimate.png")


def image_problems(path, kind=None):
    """Why the PNG at path is not an acceptable figure ('' when it is). kind: "lines" for
    curve plots, "image" for maps and gathers (default: from the file name)."""
    if kind is None:
        kind = "lines" if os.path.basename(path) in LINE_FIGURES else "image"
    if not os.path.isfile(path):
        return "missing"
    with open(path, "rb") as f:
        if f.read(8) != PNG_SIGNATURE:
            return "not a PNG file"
    try:
        img = mpimg.imread(path)
    except Exception as e:  # noqa: BLE001
        return f"unreadable PNG ({e})"
    if img.ndim != 3 or min(img.shape[:2]) < 150:
        return f"unexpected image shape {img.shape}"
    rgb = img[..., :3].astype(float)
    if not np.all(np.isfinite(rgb)):
        return "non-finite pixels"
    std = float(rgb.std())
    if std < 0.05:
        return f"blank: pixel standard deviation {std:.4f}"
    # Axes, ticks and labels alone (an empty plot) pass the standard deviation test, so look
    # for the data too: a map or a gather fills a good part of the figure with non-white
    # pixels; a curve plot has coloured (saturated) pixels, which black text and grey grids
    # have not.
    if kind == "image":
        inked = float(np.mean(np.any(rgb < 0.9, axis=2)))
        if inked < 0.15:
            return f"blank: only {100 * inked:.1f}% of the pixels are not white"
    else:
        coloured = float(np.mean(rgb.max(axis=2) - rgb.min(axis=2) > 0.25))
        if coloured < 0.002:
            return f"blank: only {100 * coloured:.2f}% of the pixels are coloured (no curve)"
    return ""


class ImageCheck(unittest.TestCase):
    """The blank-image check itself must reject blank and empty figures."""

    def test_rejects_blank_and_empty_figures(self):
        with tempfile.TemporaryDirectory(prefix="pwave_plot_check_") as tmp:
            white = os.path.join(tmp, "white.png")
            fig = plt.figure(figsize=(6, 4))
            fig.savefig(white, dpi=100, facecolor="white")
            plt.close(fig)
            self.assertIn("blank", image_problems(white))

            empty = os.path.join(tmp, "empty.png")
            fig, ax = plt.subplots(figsize=(6, 4))
            ax.set_xlabel("x (m)")
            ax.set_ylabel("depth (m)")
            ax.set_title("no data")
            fig.savefig(empty, dpi=100, facecolor="white")
            plt.close(fig)
            self.assertIn("blank", image_problems(empty, "image"))
            self.assertIn("blank", image_problems(empty, "lines"))

            full = os.path.join(tmp, "full.png")
            fig, ax = plt.subplots(figsize=(6, 4))
            ax.imshow(layered_model(), cmap="viridis", aspect="auto")
            fig.savefig(full, dpi=100, facecolor="white")
            plt.close(fig)
            self.assertEqual(image_problems(full, "image"), "")

            curve = os.path.join(tmp, "curve.png")
            fig, ax = plt.subplots(figsize=(6, 4))
            ax.plot(np.arange(NT) * DT, ricker(NT, DT))
            fig.savefig(curve, dpi=100, facecolor="white")
            plt.close(fig)
            self.assertEqual(image_problems(curve, "lines"), "")
            self.assertIn("blank", image_problems(curve, "image"))

            self.assertEqual(image_problems(os.path.join(tmp, "none.png")), "missing")


class Figures(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="pwave_plot_test_")
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def assert_figures(self, directory, expected, stdout):
        for name in expected:
            problem = image_problems(os.path.join(directory, name))
            self.assertEqual(problem, "", f"{name}: {problem}")
        lines = [l for l in stdout.splitlines() if l.strip()]
        self.assertEqual(len(lines), len(expected), f"one line per figure expected:\n{stdout}")
        for name in expected:
            self.assertTrue(any(name in l for l in lines), f"{name} not reported:\n{stdout}")
        pngs = sorted(f for f in os.listdir(directory) if f.endswith(".png"))
        self.assertEqual(pngs, sorted(expected), "unexpected set of figures")
        leftovers = [f for f in os.listdir(directory) if ".tmp" in f]
        self.assertEqual(leftovers, [], "temporary files left behind")

    def test_fwi_run_directory(self):
        make_fwi_run(self.dir)
        r = run_tool(self.dir, "--dpi", "80")
        self.assertEqual(r.returncode, 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        self.assert_figures(self.dir, ["wavelet.png", "observed_data.png", "loss.png",
                                       "iteration_0001.png", "final_model.png"], r.stdout)

    def test_fwi_run_with_density(self):
        """A variable-density inversion: the density's own figures beside vp's."""
        make_fwi_run(self.dir)
        rho = 0.3 * layered_model() + 1500.0
        for name, a in (("true_model_rho.npy", rho), ("initial_model_rho.npy", smooth(rho)),
                        ("model_rho_0001.npy", rho), ("model_rho_final.npy", rho),
                        ("gradient_rho_0001.npy", (smooth(rho) - rho) * 1e-7),
                        ("gradient_rho.npy", (smooth(rho) - rho) * 1e-7)):
            np.save(os.path.join(self.dir, name), a.astype("<f4"))
        r = run_tool(self.dir, "--dpi", "60")
        self.assertEqual(r.returncode, 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        self.assert_figures(self.dir, ["wavelet.png", "observed_data.png", "loss.png",
                                       "iteration_0001.png", "final_model.png",
                                       "iteration_rho_0001.png", "final_model_rho.png",
                                       "gradient_rho.png"], r.stdout)

    def test_elastic_run_with_density_and_s_velocity(self):
        """An elastic inversion: the density's and the S velocity's figures beside vp's."""
        make_fwi_run(self.dir)
        rho = 0.3 * layered_model() + 1500.0
        vs = 0.5 * layered_model()
        for suffix, m in (("_rho", rho), ("_vs", vs)):
            for name, a in ((f"true_model{suffix}.npy", m), (f"initial_model{suffix}.npy", smooth(m)),
                            (f"model{suffix}_0001.npy", m), (f"model{suffix}_final.npy", m),
                            (f"gradient{suffix}_0001.npy", (smooth(m) - m) * 1e-7),
                            (f"gradient{suffix}.npy", (smooth(m) - m) * 1e-7)):
                np.save(os.path.join(self.dir, name), a.astype("<f4"))
        r = run_tool(self.dir, "--dpi", "60")
        self.assertEqual(r.returncode, 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        self.assert_figures(self.dir, ["wavelet.png", "observed_data.png", "loss.png",
                                       "iteration_0001.png", "final_model.png",
                                       "iteration_rho_0001.png", "final_model_rho.png",
                                       "gradient_rho.png", "iteration_vs_0001.png",
                                       "final_model_vs.png", "gradient_vs.png"], r.stdout)

    def test_density_only_inversion_with_only(self):
        """A density-only inversion writes no vp model: --only draws the density's figures and
        does not report the vp files as missing."""
        make_fwi_run(self.dir)
        for f in os.listdir(self.dir):
            if f.startswith("model_") and "_rho" not in f:
                os.remove(os.path.join(self.dir, f))
        rho = 0.3 * layered_model() + 1500.0
        for name in ("model_rho_0001.npy", "model_rho_final.npy"):
            np.save(os.path.join(self.dir, name), rho.astype("<f4"))
        for only, figure in (("final_model", "final_model_rho.png"),
                             ("iterations", "iteration_rho_0001.png"),
                             ("iteration_0001", "iteration_rho_0001.png")):
            r = run_tool(self.dir, "--dpi", "50", "--only", only)
            self.assertEqual(r.returncode, 0, f"--only {only}:\n{r.stdout}\n{r.stderr}")
            self.assertIn(figure, r.stdout)
            self.assertNotIn("missing", r.stderr)

    def test_fwi_run_with_wavelet_estimation(self):
        """wavelet.estimate writes wavelet_NNNN.npy and wavelet_estimate.npy: one more figure,
        the initial wavelet against the estimates, also alone with --only."""
        make_fwi_run(self.dir)
        for it, (f0, amp) in enumerate(((11.0, 1.8), (10.0, 2.4), (10.0, 2.5)), start=1):
            w = amp * ricker(NT, DT, f0=f0, t0=0.12)
            np.save(os.path.join(self.dir, f"wavelet_{it:04d}.npy"), w.astype("<f4"))
        np.save(os.path.join(self.dir, "wavelet_estimate.npy"), w.astype("<f4"))
        r = run_tool(self.dir, "--dpi", "60")
        self.assertEqual(r.returncode, 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        self.assert_figures(self.dir, ["wavelet.png", "wavelet_estimate.png", "observed_data.png",
                                       "loss.png", "iteration_0001.png", "final_model.png"],
                            r.stdout)
        os.remove(os.path.join(self.dir, "wavelet_estimate.png"))
        r = run_tool(self.dir, "--dpi", "60", "--only", "wavelet_estimate")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("wavelet_estimate.png", r.stdout)
        self.assertEqual(image_problems(os.path.join(self.dir, "wavelet_estimate.png")), "")
        os.remove(os.path.join(self.dir, "wavelet_estimate.npy"))  # no estimation: nothing
        r = run_tool(self.dir, "--dpi", "60", "--only", "wavelet_estimate")
        self.assertEqual(r.returncode, 1, r.stderr)

    def test_fwi_run_with_per_shot_wavelets(self):
        """wavelet.estimate.per_shot writes [shots, nt] estimates (and a [shots, nt] wavelet.npy
        when the deck gave one row per shot): both figures draw a few shots."""
        make_fwi_run(self.dir)
        rows = np.array([a * ricker(NT, DT, f0=f0, t0=0.12)
                         for a, f0 in ((1.0, 12.0), (1.7, 12.0), (-1.2, 8.0), (2.0, 10.0),
                                       (0.8, 14.0), (1.1, 11.0))])
        for it in (1, 2):
            np.save(os.path.join(self.dir, f"wavelet_{it:04d}.npy"), (rows * it).astype("<f4"))
        np.save(os.path.join(self.dir, "wavelet_estimate.npy"), (rows * 2).astype("<f4"))
        r = run_tool(self.dir, "--dpi", "60", "--only", "wavelet_estimate,wavelet")
        self.assertEqual(r.returncode, 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        self.assert_figures(self.dir, ["wavelet.png", "wavelet_estimate.png"], r.stdout)
        np.save(os.path.join(self.dir, "wavelet.npy"), rows.astype("<f4"))  # one row per shot
        r = run_tool(self.dir, "--dpi", "60", "--only", "wavelet_estimate,wavelet")
        self.assertEqual(r.returncode, 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        self.assert_figures(self.dir, ["wavelet.png", "wavelet_estimate.png"], r.stdout)
        np.save(os.path.join(self.dir, "wavelet.npy"), np.zeros((2, 3, NT), "<f4"))
        r = run_tool(self.dir, "--dpi", "60", "--only", "wavelet")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("expected 1 or 2 dimensions", r.stderr)

    def test_forward_and_gradient_tasks(self):
        w = ricker(NT, DT)
        fwd = os.path.join(self.dir, "forward")
        os.mkdir(fwd)
        np.save(os.path.join(fwd, "wavelet.npy"), w.astype("<f4"))
        np.save(os.path.join(fwd, "receivers.npy"), gathers(3, w))
        write_run_json(fwd, "forward")
        r = run_tool(fwd, "--dpi", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(fwd, ["wavelet.png", "shot_gathers.png"], r.stdout)

        grad = os.path.join(self.dir, "gradient")
        os.mkdir(grad)
        np.save(os.path.join(grad, "synthetic.npy"), gathers(1, w))
        g = smooth(layered_model(), 3) - layered_model()
        g[0, 0] = np.nan                                   # must not break the figure
        np.save(os.path.join(grad, "gradient.npy"), g)
        write_run_json(grad, "gradient", sources=SOURCES[:1])
        r = run_tool(grad, "--dpi", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(grad, ["shot_gathers.png", "gradient.png"], r.stdout)

    def test_3d_forward_run(self):
        """3D runs list [x, y, z] triples: the wavelet and the gathers are drawn, no maps."""
        w = ricker(NT, DT)
        np.save(os.path.join(self.dir, "wavelet.npy"), w.astype("<f4"))
        np.save(os.path.join(self.dir, "receivers.npy"), gathers(2, w))
        # A carpet of receivers (several y): traces by receiver number.
        receivers = [[x, 40.0 * (i % 2), 10.0] for i, (x, _) in enumerate(RECEIVERS)]
        sources = [[x, 200.0, z] for x, z in SOURCES[:2]]
        write_run_json(self.dir, "forward", dimension=3, ny=11, dy=DX, sources=sources,
                       receivers=receivers)
        r = run_tool(self.dir, "--dpi", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("warning", r.stderr)
        self.assert_figures(self.dir, ["wavelet.png", "shot_gathers.png"], r.stdout)
        r = run_tool(self.dir, "--only", "final_model")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("3D run", r.stderr)

    def test_only(self):
        make_fwi_run(self.dir)
        r = run_tool(self.dir, "--only", "loss", "--dpi", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(self.dir, ["loss.png"], r.stdout)
        r = run_tool(self.dir, "--only", "no_such_figure")
        self.assertEqual(r.returncode, 2, r.stderr)
        r = run_tool(self.dir, "--only", "gradient")              # fwi run: no gradient.npy
        self.assertEqual(r.returncode, 1, r.stderr)

    def test_usage_errors(self):
        r = run_tool(self.dir)                                    # no run.json
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("run.json", r.stderr)
        self.assertEqual([f for f in os.listdir(self.dir) if f.endswith(".png")], [])
        r = run_tool(os.path.join(self.dir, "does_not_exist"))
        self.assertEqual(r.returncode, 2, r.stderr)
        r = run_tool()
        self.assertEqual(r.returncode, 2, r.stderr)

    def test_unreadable_input_fails(self):
        make_fwi_run(self.dir)
        with open(os.path.join(self.dir, "wavelet.npy"), "w") as f:
            f.write("not an array")
        r = run_tool(self.dir, "--only", "wavelet,loss", "--dpi", "60")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("wavelet.npy", r.stderr)
        self.assert_figures(self.dir, ["loss.png"], r.stdout)     # the others still drawn


def main():
    global TOOL
    argv = sys.argv[:]
    if "--tool" in argv:
        i = argv.index("--tool")
        TOOL = os.path.abspath(argv[i + 1])
        del argv[i:i + 2]
    if not os.path.isfile(TOOL):
        print(f"FAIL: {TOOL} not found")
        return 1
    result = unittest.main(argv=argv, exit=False, verbosity=2).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
