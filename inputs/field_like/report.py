#!/usr/bin/env python3
"""The field-like example's result: RMS error of the initial and final models against the true
model on the inversion's grid, over the whole model and below the sea floor's 28 m, and how the
estimated wavelet compares with the one that made the data. Run from the repository root."""
import os

import numpy as np

OUT = "out/field_like"


def rms(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)))


def main():
    true = np.load(os.path.join(OUT, "true_vp_16m.npy")).astype(np.float64)
    initial = np.load(os.path.join(OUT, "fwi", "initial_model.npy")).astype(np.float64)
    final = np.load(os.path.join(OUT, "fwi", "model_final.npy")).astype(np.float64)
    print(f"report.py: model RMS error against the true model: initial {rms(initial, true):.1f} m/s, "
          f"final {rms(final, true):.1f} m/s ({rms(final, true) / rms(initial, true):.3f} of the initial)")
    below = slice(2, None)  # rows below 32 m: the sediments
    print(f"report.py: below 32 m: initial {rms(initial[below], true[below]):.1f} m/s, "
          f"final {rms(final[below], true[below]):.1f} m/s")
    w_file = os.path.join(OUT, "fwi", "wavelet_estimate.npy")
    if os.path.exists(w_file):
        # Both wavelets on the inversion's time axis and in the band its last stage used (below
        # 8 Hz): outside it the data say nothing about the wavelet.
        dt = 0.0018
        est = np.load(w_file).astype(np.float64)
        src = np.load(os.path.join(OUT, "source_wavelet.npy"))
        ref = np.interp(np.arange(est.size) * dt, np.arange(src.size) * 0.0003, src)

        def band(w):
            spectrum = np.fft.rfft(w)
            spectrum[np.fft.rfftfreq(w.size, dt) > 8.0] = 0.0
            return np.fft.irfft(spectrum, w.size)

        def correlation(a, b):
            return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))

        e, r = band(est), band(ref)
        c = correlation(e, r)
        c0 = correlation(band(np.load(os.path.join(OUT, "fwi", "wavelet.npy")).astype(np.float64)), r)
        print(f"report.py: estimated wavelet against the data's, below 8 Hz: correlation {c:.3f} "
              f"(the initial Ricker's: {c0:.3f}; "
              f"the misfit ignores amplitudes, so the estimate's scale is free: norm ratio "
              f"{np.linalg.norm(e) / np.linalg.norm(r):.3f})")

if __name__ == "__main__":
    main()
