#!/usr/bin/env python3
"""Where a rewind analysis spends its time on the Spark cluster, from the
Connect server's event log (issue 36 §6: no single-task bottleneck).

    bench/sparkstages.py [--slots N] [--last] [--brief] EVENTLOG [SESSION]

EVENTLOG is a Spark event log file (plain, or .zstd through zstd -dc), or
an eventlog_v2_* folder. The cluster writes one when `.ci/spark up` runs
with REWIND_SPARK_CONF=$'spark.eventLog.enabled=true\\nspark.eventLog.dir=file:///DIR'.
Each rewind command is one Connect session; without SESSION every session is
summed up in turn, with SESSION (a prefix of its id) only that one.

For a session it prints its wall time (the first operation's start to the
last one's end) and how that time splits by how many tasks ran at once on
the workers (0: the driver plans, schedules, collects or waits on the
client; 1: one task alone, where a second worker has nothing to take; 2 or
more: the workers share the work). Then each operation (each of rewind's
Spark statements) and its stages: tasks, wall time, the tasks' summed run
time and the longest task. A stage of one task that takes long is a
single-task bottleneck (an unpartitioned window, a global sort, a single
partition); a stage whose longest task is most of its wall time with many
tasks is skewed.

--slots N adds, per session, the time the plan allows on N one-core workers
that have cores of their own, from a log of one worker: each stage's tasks
(their measured times, one after the other on the one worker) are placed
longest first on N slots, and the driver's time between them is kept as it
was. This is what the plan's partitioning allows, apart from the cores this
machine lacks (bench/README.md, "One worker against two: where the cores
go"). --last summarises the newest session only; --brief prints one line
per session.
"""
import collections
import json
import os
import subprocess
import sys


def lines(path):
    if os.path.isdir(path):
        parts = sorted(f for f in os.listdir(path) if f.startswith("events_"))
        for p in parts:
            yield from lines(os.path.join(path, p))
        return
    if path.endswith(".zstd"):
        out = subprocess.run(["zstd", "-dcq", path], capture_output=True).stdout
        data = out.decode("utf-8", "replace")
    else:
        with open(path, encoding="utf-8", errors="replace") as f:
            data = f.read()
    for line in data.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            pass  # a log still being written ends mid-line


OP = "org.apache.spark.sql.connect.service.SparkListenerConnectOperation"


def load(path):
    ops = {}  # operationId -> dict
    stage_op = {}  # stage id -> operationId
    stages = {}  # stage id -> its submission and completion times
    tasks = collections.defaultdict(list)  # stage id -> [(launch, finish, run ms)]
    cpu = collections.Counter()  # stage id -> the tasks' CPU ms
    gc = collections.Counter()  # stage id -> the tasks' GC ms
    for e in lines(path):
        ev = e["Event"]
        if ev == OP + "Started":
            ops[e["operationId"]] = {
                "session": e["sessionId"],
                "start": e["eventTime"],
                "end": e["eventTime"],
                "text": e.get("statementText", ""),
            }
        elif ev.startswith(OP) and e.get("operationId") in ops:
            o = ops[e["operationId"]]
            o["end"] = max(o["end"], e["eventTime"])
        elif ev == "SparkListenerJobStart":
            tags = e.get("Properties", {}).get("spark.job.tags", "")
            op = next((t.split("_Operation_")[1] for t in tags.split(",") if "_Operation_" in t), None)
            for s in e["Stage IDs"]:
                stage_op[s] = op
        elif ev == "SparkListenerStageCompleted":
            i = e["Stage Info"]
            stages[i["Stage ID"]] = {"submit": i.get("Submission Time"), "done": i.get("Completion Time")}
        elif ev == "SparkListenerTaskEnd":
            t = e["Task Info"]
            m = e.get("Task Metrics") or {}
            tasks[e["Stage ID"]].append((t["Launch Time"], t["Finish Time"], m.get("Executor Run Time", 0)))
            cpu[e["Stage ID"]] += m.get("Executor CPU Time", 0) / 1e6  # ns
            gc[e["Stage ID"]] += m.get("JVM GC Time", 0)
    return ops, stage_op, stages, tasks, cpu, gc


def concurrency(spans, lo, hi):
    """ms of [lo, hi] with 0, 1 and 2+ of the (start, end) spans running."""
    ev = []
    for a, b in spans:
        a, b = max(a, lo), min(b, hi)
        if a < b:
            ev += [(a, 1), (b, -1)]
    ev.sort()
    out = collections.Counter()
    n, t = 0, lo
    for x, d in ev:
        out[min(n, 2)] += x - t
        n, t = n + d, x
    out[min(n, 2)] += hi - t
    return out


def first_line(text):
    body = text.replace("\\n", " ").replace("\n", " ")
    for key in ("sql: \"", "query: \""):
        if key in body:
            body = body.split(key, 1)[1]
            break
    return " ".join(body.split())[:70]


def makespan(durations, slots):
    """the longest-first list schedule of durations on slots."""
    load = [0] * slots
    for d in sorted(durations, reverse=True):
        i = load.index(min(load))
        load[i] += d
    return max(load) if load else 0


def main():
    args = sys.argv[1:]
    slots, last, brief = 0, False, False
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--slots" and args:
            slots = int(args.pop(0))
        elif a == "--last":
            last = True
        elif a == "--brief":
            brief = True
        else:
            sys.exit(__doc__)
    if not args:
        sys.exit(__doc__)
    ops, stage_op, stages, tasks, cpu, gc = load(args[0])
    want = args[1] if len(args) > 1 else ""
    sessions = collections.defaultdict(list)
    for oid, o in sorted(ops.items(), key=lambda kv: kv[1]["start"]):
        if o["session"].startswith(want):
            sessions[o["session"]].append(oid)
    by_op = collections.defaultdict(list)
    for s, op in stage_op.items():
        by_op[op].append(s)
    items = list(sessions.items())
    if last:
        items = items[-1:]
    for sid, oids in items:
        lo = min(ops[o]["start"] for o in oids)
        hi = max(ops[o]["end"] for o in oids)
        mine = [s for o in oids for s in by_op[o]]
        c = concurrency([(a, b) for s in mine for a, b, _ in tasks[s]], lo, hi)
        wall = hi - lo
        run = sum(r for s in mine for _, _, r in tasks[s])
        print(f"session {sid[:8]}: {wall / 1000:.2f} s; tasks at once: 0 {c[0] / 1000:.2f} s, "
              f"1 {c[1] / 1000:.2f} s, 2+ {c[2] / 1000:.2f} s; tasks' run time {run / 1000:.2f} s, "
              f"CPU {sum(cpu[s] for s in mine) / 1000:.2f} s, GC {sum(gc[s] for s in mine) / 1000:.2f} s", end="")
        if slots:
            serial = sum(b - a for s in mine for a, b, _ in tasks[s])
            spread = sum(makespan([b - a for a, b, _ in tasks[s]], slots) for s in mine)
            t = wall - serial + spread
            print(f"; on {slots} slots {t / 1000:.2f} s ({wall / max(t, 1):.2f}x)", end="")
        print()
        if brief:
            continue
        for o in oids:
            op = ops[o]
            ss = sorted(by_op[o])
            if not ss and op["end"] - op["start"] < 200:
                continue
            print(f"  {(op['end'] - op['start']) / 1000:7.2f} s  {first_line(op['text'])}")
            for s in ss:
                st = stages.get(s, {})
                ts = tasks[s]
                if not ts:
                    continue
                w = (st.get("done") or max(b for _, b, _ in ts)) - (st.get("submit") or min(a for a, _, _ in ts))
                longest = max(b - a for a, b, _ in ts)
                flag = ""
                if len(ts) == 1 and w >= 1000:
                    flag = "  <- one task"
                elif len(ts) > 1 and w >= 1000 and longest > 0.75 * w and longest > 2 * sum(r for _, _, r in ts) / len(ts):
                    flag = "  <- skewed"
                print(f"           stage {s:4d}: {len(ts):4d} tasks, {w / 1000:7.2f} s wall, "
                      f"{sum(r for _, _, r in ts) / 1000:7.2f} s run, longest {longest / 1000:6.2f} s{flag}")


if __name__ == "__main__":
    main()
