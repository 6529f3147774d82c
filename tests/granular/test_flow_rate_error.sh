#!/usr/bin/env bash
# The flow rate's standard error (scripts/discharge_rate.py fit_rate, batch means) and the errors of
# Beverloo's fit (scripts/beverloo.py fit_across), on synthetic discharges whose spread is known:
#  - 2,000 discharges of 19 frames over 0.3 s (the Beverloo sweep's window) whose rate W = 40 g/s
#    fluctuates by 10% with a correlation time of 0.01 s (an AR(1) process frame to frame; a silo's
#    per-frame rate fluctuates by 5-9% and is correlated over a frame or two, docs/GRANULAR.md): the
#    mean reported error lies within 20% of the fitted W's spread over the discharges (the sample
#    spread of 2,000 is known to 1.6%; batch means of 5 blocks, 4 degrees of freedom, read low by 6% on
#    average, and by more where the rate stays correlated over a block: 0.7 at 0.03 s). The error from
#    the line's residuals alone reads about 6x low on such data (0.17): the test fails on it;
#  - fit_across's errors of the exponent, C and k are their spreads over 2,000 sweeps of five orifices
#    whose W scatter by their stated errors (within 10%), and its estimates are unbiased where the W are
#    exact (Beverloo's law with C = 0.58, k = 1.5: the exponent 2.5, C and k to 1e-9).
# Arguments: signorini binary, scratch dir.
source "$(dirname "$0")/../cli/cli_lib.sh" "$@"
scripts=$(cd "$(dirname "$0")/../../scripts" && pwd)

section "standard errors of the flow rate and of Beverloo's fit on synthetic discharges"
SCRIPTS=$scripts "$PY" - <<'PY' && pass "batch-means errors and the fit's errors match the spread" || fail "flow-rate errors"
import os, sys
import numpy as np
sys.path.insert(0, os.environ['SCRIPTS'])
from discharge_rate import fit_rate, line_fit
from beverloo import fit_across

rng = np.random.default_rng(7)
n_runs, frames, W, rel, tau = 2000, 19, 0.040, 0.10, 0.01
t = 0.4 + np.arange(frames) * (0.3 / (frames - 1))
h = t[1] - t[0]
phi = np.exp(-h / tau)
fits, errs, line_errs = [], [], []
for _ in range(n_runs):
    x = np.empty(frames)
    x[0] = rng.normal()
    for k in range(1, frames):
        x[k] = phi * x[k - 1] + np.sqrt(1 - phi * phi) * rng.normal()
    m = np.concatenate(([0.0], np.cumsum(W * (1 + rel * x[1:]) * h)))
    w, _, err, n, _ = fit_rate(t, m, (t[0], t[-1]))
    fits.append(w); errs.append(err); line_errs.append(line_fit(t, m)[2])
spread = np.std(fits, ddof=1)
ratio, line_ratio = np.mean(errs) / spread, np.mean(line_errs) / spread
print(f"    W = {np.mean(fits) * 1e3:.3f} g/s (true {W * 1e3:g}), spread over {n_runs} discharges {spread * 1e3:.3f} g/s; "
      f"mean batch-means error {np.mean(errs) * 1e3:.3f} (ratio {ratio:.2f}), line residuals' {np.mean(line_errs) * 1e3:.3f} (ratio {line_ratio:.2f})")
ok = 0.8 <= ratio <= 1.2 and abs(np.mean(fits) / W - 1) < 3 * spread / np.sqrt(n_runs) / W

d, C, kk, rho, g = 0.002, 0.58, 1.5, 1450.0, 9.81
D = d * np.array([5, 6, 8, 10, 12])
W_law = C * rho * np.sqrt(g) * (D - kk * d) ** 2.5
rows = lambda Ws, es: [dict(D=Di, d=d, W=Wi, err=ei, rho_b=rho, g=g) for Di, Wi, ei in zip(D, Ws, es)]
exact = fit_across(rows(W_law, 0.02 * W_law), 1.5)
print(f"    exact law: exponent {exact[0]:.12f}, C {exact[1]:.12f}, k {exact[2]:.12f}")
ok &= abs(exact[0] - 2.5) < 1e-9 and abs(exact[1] - C) < 1e-9 and abs(exact[2] - kk) < 1e-9
errors = np.array([0.05, 0.04, 0.02, 0.02, 0.02]) * W_law
draws = np.array([fit_across(rows(W_law + errors * rng.normal(size=5), errors), 1.5)[:3] for _ in range(n_runs)])
stated = np.array(fit_across(rows(W_law, errors), 1.5)[5])
spreads = draws.std(axis=0, ddof=1)
print("    fit over noisy sweeps: spread / stated error of exponent, C, k: " + ", ".join(f"{r:.3f}" for r in spreads / stated))
ok &= bool(np.all(np.abs(spreads / stated - 1) < 0.10))
raise SystemExit(0 if ok else 1)
PY
finish
