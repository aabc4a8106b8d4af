"""Test vectors for analyze's PELT (TestPeltMatchesRuptures), made by a peer.

The peer is ruptures (Truong, Oudre and Vayatis, "Selective review of offline
change point detection methods", Signal Processing 167, 2020), from PyPI:

    python3 -m venv venv && venv/bin/pip install ruptures==1.1.10
    venv/bin/python vectors.py > vectors.json

Its Pelt runs with jump=1 (every point a candidate), each case's min_size and
penalty, on three costs: ruptures' own CostL2 (checks the search alone), and
two written here as BaseCost subclasses with the formulas of
analyze/changes_pelt.go, computed directly from the segment's values (not
from prefix sums): binomial, -2 (E ln(E/N) + (N-E) ln(1-E/N)) / disp over
the segment's errors E among N requests, and Poisson, -2 (X ln(X/m) - X) /
disp over its X requests in m intervals. The series are drawn from a fixed
seed and written into the vectors with the breakpoints, so the Go test needs
neither Python nor ruptures.
"""
import json
import math
import sys

import numpy as np
import ruptures as rpt


def xlogy(x, y):
    return 0.0 if x == 0 else x * math.log(y)


class CostBinomial(rpt.base.BaseCost):
    model = "binomial"
    min_size = 1

    def __init__(self, disp=1.0):
        self.disp = disp

    def fit(self, signal):
        self.signal = signal
        return self

    def error(self, start, end):
        e = float(self.signal[start:end, 0].sum())
        n = float(self.signal[start:end, 1].sum())
        if n == 0:
            return 0.0
        return -2 * (xlogy(e, e / n) + xlogy(n - e, (n - e) / n)) / self.disp


class CostPoisson(rpt.base.BaseCost):
    model = "poisson"
    min_size = 1

    def __init__(self, disp=1.0):
        self.disp = disp

    def fit(self, signal):
        self.signal = signal
        return self

    def error(self, start, end):
        x = float(self.signal[start:end].sum())
        m = float(end - start)
        return -2 * (xlogy(x, x / m) - x) / self.disp


def steps(rng, n, levels):
    """Cut n points into len(levels) pieces at random places."""
    cuts = sorted(rng.choice(np.arange(5, n - 5), size=len(levels) - 1, replace=False))
    out = np.empty(n)
    for i, lv in enumerate(levels):
        lo = 0 if i == 0 else cuts[i - 1]
        hi = n if i == len(levels) - 1 else cuts[i]
        out[lo:hi] = lv
    return out


def main():
    rng = np.random.default_rng(39)
    cases = []
    for i in range(36):
        kind = ["binomial", "poisson", "l2"][i % 3]
        n = int(rng.integers(20, 160))
        levels = rng.uniform(0.2, 1.0, size=int(rng.integers(1, 5)))
        shape = steps(rng, n, levels)
        min_size = int([1, 2, 3, 5][i % 4])
        disp = 1.0 if kind == "l2" else [1.0, 2.5][(i // 3) % 2]
        case = {"name": f"{kind}-{i}", "kind": kind, "min_size": min_size, "disp": disp}
        if kind == "binomial":
            judged = rng.integers(0, 300, size=n)
            errors = rng.binomial(judged, 0.3 * shape)
            case["errors"], case["judged"] = errors.tolist(), judged.tolist()
            cost, signal = CostBinomial(disp), np.column_stack([errors, judged])
            pen = 2 * math.log(n)
        elif kind == "poisson":
            counts = rng.poisson(40 * shape)
            case["counts"] = counts.tolist()
            cost, signal = CostPoisson(disp), counts.astype(float)
            pen = 2 * math.log(n)
        else:
            y = shape + rng.normal(0, 0.15, size=n)
            y = np.round(y, 6)
            case["values"] = y.tolist()
            cost, signal = rpt.costs.CostL2(), y
            pen = 0.15 ** 2 * 2 * math.log(n)
        if i % 5 == 4:
            pen *= 4  # a larger penalty: fewer points
        case["penalty"] = pen
        algo = rpt.Pelt(custom_cost=cost, min_size=min_size, jump=1).fit(signal)
        case["bkps"] = [int(b) for b in algo.predict(pen=pen)]
        cases.append(case)
    json.dump({"ruptures": rpt.__version__, "cases": cases}, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
