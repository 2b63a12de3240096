#!/usr/bin/env python3
"""trace_png.py - draws an mgpu trace file (mgpu_profile_write, MGPU_PROFILE=path) as a PNG
timeline: one row per device and stream (and per waiting host thread), one bar per span,
coloured by kind (kernel, the copy paths, wait), with each device's compute / transfer /
sync totals beside its name.

usage: python3 tools/trace_png.py TRACE.json OUT.png [--from MS] [--to MS] [--title TEXT]
Needs matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib; or pip install
matplotlib); without it the script says so and exits 2.
"""
import argparse
import json
import sys

COLOURS = {
    "kernel": "#4c72b0", "copy H2D": "#dd8452", "copy D2H": "#c44e52", "copy D2D": "#8c8c8c",
    "copy P2P": "#55a868", "copy staged": "#8172b3", "copy host": "#937860", "wait": "#e5c494",
}
TRANSFER = {"copy H2D", "copy D2H", "copy D2D", "copy P2P", "copy staged", "copy host"}


def load(path):
    """The trace's rows: {(pid, tid): [span...]}, process names, thread names."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    procs, threads, rows = {}, {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "X":
            rows.setdefault((e["pid"], e["tid"]), []).append(e)
    return procs, threads, rows


def main():
    ap = argparse.ArgumentParser(description="Draw an mgpu trace file as a PNG timeline.")
    ap.add_argument("trace")
    ap.add_argument("png")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="start of the window, ms")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="end of the window, ms")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        print("trace_png.py needs matplotlib: apt-get install python3-matplotlib (or pip install matplotlib)",
              file=sys.stderr)
        return 2
    procs, threads, rows = load(a.trace)
    if not rows:
        print("trace_png.py: %s has no spans" % a.trace, file=sys.stderr)
        return 1
    totals = {}
    for (pid, _), spans in rows.items():
        t = totals.setdefault(pid, [0.0, 0.0, 0.0])
        for e in spans:
            k = 0 if e["cat"] == "kernel" else 1 if e["cat"] in TRANSFER else 2
            t[k] += e["dur"] / 1e3
    keys = sorted(rows)
    labels = []
    for pid, tid in keys:
        name = threads.get((pid, tid), "stream %d" % tid)
        labels.append("%s | %s" % (procs.get(pid, "device %d" % pid).split(":")[0], name))
    fig, ax = plt.subplots(figsize=(14, 0.45 * len(keys) + 1.6))
    for y, key in enumerate(keys):
        for e in rows[key]:
            start, dur = e["ts"] / 1e3, e["dur"] / 1e3
            if (a.t0 is not None and start + dur < a.t0) or (a.t1 is not None and start > a.t1):
                continue
            ax.broken_barh([(start, max(dur, 1e-4))], (y - 0.4, 0.8), facecolors=COLOURS.get(e["cat"], "#333333"))
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms since mgpu_profile_start")
    if a.t0 is not None or a.t1 is not None:
        ax.set_xlim(left=a.t0, right=a.t1)
    summary = "   ".join("dev %d: compute %.1f, transfer %.1f, sync %.1f ms" % (pid, t[0], t[1], t[2])
                         for pid, t in sorted(totals.items()))
    ax.set_title((a.title + "\n" if a.title else "") + summary, fontsize=9)
    used = sorted({e["cat"] for spans in rows.values() for e in spans})
    ax.legend(handles=[Patch(color=COLOURS.get(c, "#333333"), label=c) for c in used], loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print("wrote %s: %d rows, %d spans" % (a.png, len(keys), sum(len(s) for s in rows.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
