// The seed's way, for the scale benchmark: read the NDJSON log line by line
// with JSON.parse, as the seed's own scripts do, cut each run into windows
// of 40 requests in file order, take the control run's mean ok share as the
// baseline, and count the falsified windows of each run for four margins
// (in floating point, as the seed computes). Prints one line per margin:
// margin baseline control_falsified control_windows experiment_falsified
// experiment_windows.
//   node bench/falsification.mjs LOG.ndjson
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

const size = 40;
const margins = [0, 0.05, 0.1, 0.2];
const runs = { control: { ok: 0, n: 0, shares: [] }, experiment: { ok: 0, n: 0, shares: [] } };

const lines = createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  const r = JSON.parse(line);
  if (r.record) continue;
  const run = runs[r.run];
  if (!run) continue;
  run.n += r.count ?? 1;
  if (r.outcome === "ok") run.ok += r.count ?? 1;
  if (run.n === size) {
    run.shares.push(run.ok / run.n);
    run.ok = 0;
    run.n = 0;
  }
}
for (const run of Object.values(runs)) if (run.n > 0) run.shares.push(run.ok / run.n);
const c = runs.control.shares, e = runs.experiment.shares;
const baseline = c.reduce((a, b) => a + b, 0) / c.length;
for (const m of margins) {
  const below = (xs) => xs.filter((s) => s < baseline - m).length;
  console.log([m, baseline.toFixed(4), below(c), c.length, below(e), e.length].join(" "));
}
