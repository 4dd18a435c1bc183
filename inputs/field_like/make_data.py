#!/usr/bin/env python3
"""Makes the "field" data of the field-like example (inputs/field_like/README.md).

Run from the repository root (run.sh does): python3 inputs/field_like/make_data.py PWAVE
  1. cuts the true model, 4000 m x 1500 m of Marmousi at 4 m (x from 4400 m), out of
     ../shared/data/marmousi_vp.bin: out/field_like/true_vp_4m.npy, and its every fourth sample
     (the inversion's 16 m grid): out/field_like/true_vp_16m.npy; the initial model is that
     smoothed by a 200 m Gaussian below the sea, the sea kept at 1500 m/s:
     out/field_like/initial_vp_16m.npy;
  2. writes the source wavelet pwave is not told: a 7 Hz Ricker rotated by -70 degrees of phase,
     delayed 0.12 s, amplitude 3 (out/field_like/source_wavelet.npy, at 0.3 ms);
  3. runs `PWAVE run inputs/field_like/data.yaml` (4 m grid, 0.3 ms, streamer, SEG-Y output);
  4. adds band-limited (3-30 Hz) Gaussian noise, 5 % of each gather's RMS amplitude, and moves
     the line into survey coordinates (origin 431250 E, 6512700 N, azimuth 62 degrees, in
     centimetres with SourceGroupScalar -100; elevations left as pwave wrote them), then
     writes out/field_like/observed.segy.
Needs numpy only.
"""
import os
import struct
import subprocess
import sys

import numpy as np

OUT = "out/field_like"
MARMOUSI = os.path.join("..", "shared", "data", "marmousi_vp.bin")
ORIGIN = (431250.0, 6512700.0)  # survey coordinates (m) of model x = 0
AZIMUTH = 62.0                  # degrees clockwise from north: the line's direction
NOISE = 0.05                    # noise RMS / gather RMS
SEED = 2026


def gaussian_smooth(v, sigma_cells):
    """Separable Gaussian of standard deviation sigma_cells, edges extended."""
    r = int(np.ceil(3 * sigma_cells))
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma_cells) ** 2)
    k /= k.sum()
    for axis in (0, 1):
        padded = np.pad(v, [(r, r) if a == axis else (0, 0) for a in (0, 1)], mode="edge")
        v = np.apply_along_axis(lambda line: np.convolve(line, k, mode="valid"), axis, padded)
    return v


def true_model():
    v = np.fromfile(MARMOUSI, dtype="<f4").reshape(2301, 751)  # [x][z] at 4 m
    crop = v[1100:2101, 0:376].T.copy()                        # [z][x]: 376 x 1001
    np.save(os.path.join(OUT, "true_vp_4m.npy"), crop)
    coarse = crop[::4, ::4].astype(np.float64)
    np.save(os.path.join(OUT, "true_vp_16m.npy"), coarse.astype(np.float32))
    # The initial model: the true one smoothed by a 200 m Gaussian below the sea, the sea kept
    # at 1500 m/s (its depth known, as from a survey's echo sounder).
    water = coarse == 1500.0
    initial = gaussian_smooth(np.where(water, coarse[~water].min(), coarse), 200.0 / 16.0)
    initial[water] = 1500.0
    np.save(os.path.join(OUT, "initial_vp_16m.npy"), initial.astype(np.float32))


def source_wavelet(dt=0.0003, nt=6667, f=7.0, delay=0.12, phase_deg=-70.0, amplitude=3.0):
    t = np.arange(nt) * dt - delay
    a = (np.pi * f * t) ** 2
    ricker = (1.0 - 2.0 * a) * np.exp(-a)
    spectrum = np.fft.rfft(ricker)
    spectrum *= np.exp(1j * np.deg2rad(phase_deg))  # a constant phase rotation
    spectrum[0] = spectrum[0].real
    w = amplitude * np.fft.irfft(spectrum, nt)
    np.save(os.path.join(OUT, "source_wavelet.npy"), w.astype(np.float64))


def band_limited_noise(rng, shape, dt, f_low=3.0, f_high=30.0):
    n = rng.standard_normal(shape)
    spectrum = np.fft.rfft(n, axis=-1)
    f = np.fft.rfftfreq(shape[-1], dt)
    spectrum[..., (f < f_low) | (f > f_high)] = 0.0
    n = np.fft.irfft(spectrum, shape[-1], axis=-1)
    return n / np.sqrt(np.mean(n ** 2))


def field_segy(src, dst):
    raw = bytearray(open(src, "rb").read())
    dt = struct.unpack(">H", raw[3216:3218])[0] * 1e-6
    ns = struct.unpack(">H", raw[3220:3222])[0]
    fmt = struct.unpack(">H", raw[3224:3226])[0]
    if fmt != 5:
        sys.exit(f"make_data.py: {src}: sample format {fmt}, expected 5 (IEEE float, big-endian)")
    size = 240 + 4 * ns
    count = (len(raw) - 3600) // size
    traces = np.frombuffer(raw, dtype=">f4", count=count * (ns + 60), offset=3600)
    traces = traces.reshape(count, ns + 60)[:, 60:].astype(np.float64)

    def header(i, byte, fmt=">i"):
        o = 3600 + i * size + byte - 1
        return struct.unpack(fmt, raw[o:o + struct.calcsize(fmt)])[0]

    def set_header(i, byte, value, fmt=">i"):
        o = 3600 + i * size + byte - 1
        raw[o:o + struct.calcsize(fmt)] = struct.pack(fmt, value)

    records = np.array([header(i, 9) for i in range(count)])
    rng = np.random.default_rng(SEED)
    noisy = traces.copy()
    for r in np.unique(records):
        rows = records == r
        rms = np.sqrt(np.mean(traces[rows] ** 2))
        noisy[rows] += NOISE * rms * band_limited_noise(rng, traces[rows].shape, dt)

    sin_a, cos_a = np.sin(np.deg2rad(AZIMUTH)), np.cos(np.deg2rad(AZIMUTH))
    for i in range(count):
        scalar = header(i, 71, ">h")
        unit = (-1.0 / scalar) if scalar < 0 else float(scalar or 1)
        for bx, by in ((73, 77), (81, 85)):  # (SourceX, SourceY), (GroupX, GroupY)
            x = header(i, bx) * unit           # model x; pwave wrote depth in Y (2D)
            set_header(i, bx, int(round((ORIGIN[0] + x * sin_a) * 100.0)))
            set_header(i, by, int(round((ORIGIN[1] + x * cos_a) * 100.0)))
        set_header(i, 71, -100, ">h")
        o = 3600 + i * size + 240
        raw[o:o + 4 * ns] = noisy[i].astype(">f4").tobytes()
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(raw)
    os.replace(tmp, dst)
    print(f"make_data.py: {dst}: {count} traces in {len(np.unique(records))} gathers, "
          f"{ns} samples at {dt * 1e3:g} ms, noise {NOISE:g} of each gather's RMS")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 inputs/field_like/make_data.py PATH_TO_PWAVE")
    os.makedirs(OUT, exist_ok=True)
    true_model()
    source_wavelet()
    subprocess.run([sys.argv[1], "run", "inputs/field_like/data.yaml"], check=True)
    field_segy(os.path.join(OUT, "data", "receivers.segy"), os.path.join(OUT, "observed.segy"))


if __name__ == "__main__":
    main()
