#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Analysis half of tools/bench/autorate.sh: traces, the shaper-rate sampler, one JSON
record per run, the report with its target verdicts and the plots. The parsers (ping,
iperf3, UAPI) are benchlib.py's; the plot's axes and style are rttplot.py's.

Standard library only.

Subcommands:
  trace FILE [SECONDS]              the trace's steps: "seconds up_kbit down_kbit rtt_ms"
  trace-info FILE [SECONDS]         "seconds mean_up mean_down peak_up peak_down min_up
                                    min_down rtt" (kbit/s; rtt 1 if it sets a base RTT)
  sample CAKEWG IFNAME OUT INTERVAL until killed: the egress and ingress shaper rates
                                    from `cakewg show --json IFNAME`, one line per sample
  record FILE key=value...          appends one run (see cmd_record)
  idle FILE TRACE VARIANT           the idle median of that trace and variant (ms), 0 if
                                    none was recorded
  report FILE...                    the tables and the target verdicts (the rounds of
                                    autorate.sh --rounds pooled: see pooled(); several
                                    files are pooled as rounds of one run)
  svg FILE DIR                      DIR/autorate-TRACE-LOAD.svg for every trace and load
"""
import json
import os
import re
import subprocess
import sys
import time

import benchlib
import rttplot

VARIANTS = ["wggo", "unlimited", "fixed", "autorate", "oracle", "late"]
VARIANT_NAMES = {"wggo": "wireguard-go", "unlimited": "cakewg unlimited",
                 "fixed": "cakewg fixed at the mean", "autorate": "cakewg autorate",
                 "oracle": "cakewg oracle", "late": "cakewg oracle 1 RTT late"}
VARIANT_COLORS = {"wggo": "#d0432b", "unlimited": "#e39b2d", "fixed": "#7a4fb3",
                  "autorate": "#1f6fb4", "oracle": "#2e9b4a",
                  "late": "#6fbf73"}
LOADS = ["tcp_nup", "tcp_ndown", "rrul"]
LOAD_DIRS = {"tcp_nup": ("up",), "tcp_ndown": ("down",), "rrul": ("up", "down")}
STEADY_TRACE = "steady"

# The targets of issue #13 (ms above the idle median, fractions).
P99_ADDED_MAX_MS = 15.0
LOSS_MAX = 0.01
GOODPUT_OF_MEAN_MIN = 0.80
STEADY_P99_ADDED_MAX_MS = 10.0
STEADY_GOODPUT_OF_FIXED_MIN = 0.90


# ---------------------------------------------------------------- traces
def read_trace(path, max_s=None):
    """[(seconds, up_kbit, down_kbit, rtt_ms)] of a trace file, cut at max_s seconds."""
    steps, total = [], 0.0
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) not in (3, 4):
            raise ValueError("%s:%d: want seconds up_mbit down_mbit [base_rtt_ms]" % (path, n))
        secs, up, down = (float(x) for x in line[:3])
        rtt = float(line[3]) if len(line) == 4 else 0.0
        if secs <= 0 or up <= 0 or down <= 0 or rtt < 0:
            raise ValueError("%s:%d: seconds and rates must be positive" % (path, n))
        if max_s is not None and total + secs > max_s:
            secs = max_s - total
        if secs <= 0:
            break
        steps.append((secs, int(up * 1000), int(down * 1000), rtt))
        total += secs
    if not steps:
        raise ValueError("%s: no steps" % path)
    return steps


def trace_info(steps):
    total = sum(s[0] for s in steps)
    mean = lambda i: int(sum(s[0] * s[i] for s in steps) / total)
    return {"seconds": total, "mean_up": mean(1), "mean_down": mean(2),
            "peak_up": max(s[1] for s in steps), "peak_down": max(s[2] for s in steps),
            "min_up": min(s[1] for s in steps), "min_down": min(s[2] for s in steps),
            "rtt": int(any(s[3] for s in steps))}


def max_seconds(argv):
    return float(argv[1]) if len(argv) > 1 and argv[1] else None


def cmd_trace(argv):
    for secs, up, down, rtt in read_trace(argv[0], max_seconds(argv)):
        print("%g %d %d %g" % (secs, up, down, rtt))
    return 0


def cmd_trace_info(argv):
    i = trace_info(read_trace(argv[0], max_seconds(argv)))
    print("%g %d %d %d %d %d %d %d" % (i["seconds"], i["mean_up"], i["mean_down"],
                                       i["peak_up"], i["peak_down"], i["min_up"],
                                       i["min_down"], i["rtt"]))
    return 0


# ---------------------------------------------------------------- the shaper's rate
def shaper_rate(inst):
    """Bits/s of one instance of `cakewg show --json`'s cake member: the autorate
    controller's current rate when it reports one, else the shaper's bandwidth; None
    for unlimited or no instance."""
    stats = (inst or {}).get("stats") or {}
    ar = stats.get("autorate")
    if isinstance(ar, dict) and isinstance(ar.get("rate"), (int, float)):
        return ar["rate"] * 8
    bw = (stats.get("options") or {}).get("bandwidth")
    return bw * 8 if isinstance(bw, (int, float)) and bw > 0 else None


def cmd_sample(argv):
    """sample CAKEWG IFNAME OUT INTERVAL: "epoch egress_bps ingress_bps" ("-": none)."""
    cakewg, ifname, out, iv = argv[0], argv[1], argv[2], float(argv[3])
    with open(out, "a") as f:
        while True:
            t = time.time()
            try:
                p = subprocess.run([cakewg, "show", "--json", ifname], capture_output=True,
                                   timeout=2, check=False)
                cake = json.loads(p.stdout).get("cake") or {}
                e, i = shaper_rate(cake.get("egress")), shaper_rate(cake.get("ingress"))
                f.write("%.3f %s %s\n" % (t, "-" if e is None else "%d" % e,
                                          "-" if i is None else "%d" % i))
                f.flush()
            except (subprocess.SubprocessError, ValueError, AttributeError):
                pass
            time.sleep(max(0.0, iv - (time.time() - t)))


def read_columns(path):
    rows = []
    if not path or not os.path.exists(path):
        return rows
    for line in open(path):
        f = line.split()
        if f:
            rows.append(f)
    return rows


def opt_float(s):
    return None if s == "-" else float(s)


# ---------------------------------------------------------------- records
PING_STAMPED = re.compile(r"^\[([\d.]+)\] .*icmp_seq=(\d+) .*time=([\d.]+) ms", re.M)


def stamped_ping(path, interval_s, t0, window_s):
    """benchlib.parse_ping's result for a `ping -D` log, on t0's clock and within its
    window: each sample at its send time (its reply's stamp less its RTT), as ping's own
    interval drifts under load (52 ms for 50, 1.2 s over a 30 s trace, which put the
    plots' delay peaks before the drops that caused them and counted 1.2 s of idle
    pings after the load); a lost probe at the time its neighbours' sends imply. Only the
    probes sent within window_s of t0 count. None without a stamped reply."""
    try:
        text = open(path).read()
    except OSError:
        return None
    rtts, sent = benchlib.ping_samples(text)
    sends = {}
    for m in PING_STAMPED.finditer(text):
        sends.setdefault(int(m.group(2)), float(m.group(1)) - float(m.group(3)) / 1e3 - t0)
    if not sends:
        return None
    first = min(sends)
    at, known = sends[first] - (first - 1) * interval_s, first
    kept, counted = [], 0
    for seq in range(1, max(sent, max(sends)) + 1):
        if seq in sends:
            at, known = sends[seq], seq
        t = at + (seq - known) * interval_s
        if t > window_s:
            break
        counted += 1
        if seq in sends and seq in rtts:
            kept.append([round(t, 3), rtts[seq]])
    return benchlib.ping_stats(kept, counted)


def cmd_record(argv):
    """record FILE trace= load= variant= round= t0= seconds= mean_up= mean_down= ping=
    interval= window= up= down= link= rates= error=: ping is a `ping -D` log, of which the
    probes sent within window seconds of t0 count; link is the trace player's log ("epoch
    up_kbit down_kbit rtt_ms" per step), rates the sampler's file; times are kept relative
    to t0; round is the round of --rounds (1 by default)."""
    path, a = argv[0], benchlib.kv_args(argv[1:])
    t0 = float(a["t0"])
    interval = float(a.get("interval", "0.05"))
    ping = a.get("ping", "")
    stamped = stamped_ping(ping, interval, t0, float(a.get("window", "inf")))
    rec = {"trace": a["trace"], "load": a["load"], "variant": a["variant"],
           "round": int(a.get("round", "1")), "seconds": float(a["seconds"]),
           "mean_up": int(a["mean_up"]) / 1000.0, "mean_down": int(a["mean_down"]) / 1000.0,
           "error": a.get("error") or None,
           "ping": stamped if stamped is not None else benchlib.parse_ping(ping, interval),
           "up": benchlib.parse_iperf(a.get("up")), "down": benchlib.parse_iperf(a.get("down")),
           "link": [[round(float(f[0]) - t0, 3), int(f[1]) / 1000.0, int(f[2]) / 1000.0,
                     float(f[3])] for f in read_columns(a.get("link"))],
           "rates": [[round(float(f[0]) - t0, 3)] + [
               None if opt_float(x) is None else opt_float(x) / 1e6 for x in f[1:3]]
               for f in read_columns(a.get("rates"))],
           "loadavg": a.get("loadavg", "")}
    benchlib.append_jsonl(path, rec)
    if rec["error"]:
        sys.stdout.write("  FAILED: %s\n" % rec["error"])
        return 0
    p = rec["ping"]
    up, down = benchlib.sums(rec)
    sys.stdout.write("  ping med %s p99 %s ms loss %s%%; up %s down %s Mbit/s\n" % (
        benchlib.fmt(p["med"], "%.2f"), benchlib.fmt(p["p99"], "%.2f"),
        benchlib.fmt(None if p["loss"] is None else 100 * p["loss"], "%.1f"),
        benchlib.fmt(up), benchlib.fmt(down)))
    return 0


def pooled(recs):
    """The records with the rounds of each trace, load and variant (autorate.sh --rounds)
    made one: the ping statistics of all their probes together (a p99 over one 30 s run
    is its 6th-worst probe, and one build's runs spread over 10-20 ms of it), the mean
    of the goodputs, the first round's samples for the plots; "runs" holds the rounds
    that ran, "failed" counts those that could not be set up. One round stays as it is."""
    groups = {}
    for r in recs:
        groups.setdefault((r["trace"], r["load"], r["variant"]), []).append(r)
    out = []
    for runs in groups.values():
        ok = [r for r in runs if not r["error"]]
        m = dict((ok or runs)[0], runs=ok, failed=len(runs) - len(ok))
        if len(ok) > 1:
            series = [x for r in ok for x in r["ping"]["series"]]
            m["ping"] = benchlib.ping_stats(series, sum(r["ping"]["sent"] or 0 for r in ok))
            m["ping"]["series"] = ok[0]["ping"]["series"]
            for side in ("up", "down"):
                sums = [r[side]["sum"] for r in ok
                        if r.get(side) and r[side].get("sum") is not None]
                if sums:
                    m[side] = dict(ok[0][side] or {}, sum=sum(sums) / len(sums), error=None)
        out.append(m)
    return out


def idle_of(recs, r):
    """The idle median of r's trace and variant (ms), or None."""
    i = benchlib.find(recs, trace=r["trace"], load="idle", variant=r["variant"])
    return i["ping"]["med"] if i and not i["error"] else None


def cmd_idle(argv):
    i = idle_of(benchlib.read_jsonl(argv[0]), {"trace": argv[1], "variant": argv[2]})
    print("%.3f" % (i or 0))
    return 0


def added(recs, r, stat):
    base, v = idle_of(recs, r), r["ping"][stat]
    return None if base is None or v is None else v - base


def share(r, side):
    x = r.get(side)
    mean = r["mean_" + side]
    return x["sum"] / mean if x and x.get("sum") is not None and mean else None


def targets(recs, r):
    """[(name, ok)] of one run: issue #13's targets; on the steady trace, the stricter
    p99 and the goodput against the fixed shaper's (the fixed-optimal one)."""
    steady = r["trace"] == STEADY_TRACE
    lim = STEADY_P99_ADDED_MAX_MS if steady else P99_ADDED_MAX_MS
    d99 = added(recs, r, "p99")
    loss = r["ping"]["loss"]
    out = [("p99<=+%g" % lim, None if d99 is None else d99 <= lim),
           ("loss<%g%%" % (100 * LOSS_MAX), None if loss is None else loss < LOSS_MAX)]
    fixed = benchlib.find(recs, trace=r["trace"], load=r["load"], variant="fixed")
    for side in LOAD_DIRS[r["load"]]:
        s = share(r, side)
        out.append(("%s>=%.2f" % (side, GOODPUT_OF_MEAN_MIN),
                    None if s is None else s >= GOODPUT_OF_MEAN_MIN))
        if steady:
            f = fixed.get(side) if fixed and not fixed["error"] else None
            x = r.get(side)
            ok = None
            if f and f.get("sum") and x and x.get("sum") is not None:
                ok = x["sum"] >= STEADY_GOODPUT_OF_FIXED_MIN * f["sum"]
            out.append(("%s>=%.2f fixed" % (side, STEADY_GOODPUT_OF_FIXED_MIN), ok))
    return out


def verdicts(tg):
    return " ".join("%s %s" % (n, {True: "met", False: "MISSED", None: "n/a"}[ok])
                    for n, ok in tg)


def order_key(r):
    return (r["trace"], LOADS.index(r["load"]) if r["load"] in LOADS else -1,
            VARIANTS.index(r["variant"]))


def read_runs(paths):
    """The records of one or more runs.jsonl, in order: with several, each file's runs
    are rounds of one run for pooled() (an A/B: each build's runs, made in turn with the
    other's)."""
    return [r for path in paths for r in benchlib.read_jsonl(path)]


def cmd_report(argv):
    recs = pooled(read_runs(argv))
    if not recs:
        print("no runs recorded")
        return 1
    f = benchlib.fmt
    print("Per trace and load: ping every 50 ms through the tunnel while the trace plays;")
    print("added50/added99 = ping median/p99 minus the idle median of the same trace and")
    print("variant (ms); up/down = goodput (iperf3 receiver) as a share of the trace's mean")
    print("capacity in that direction (the tbf counts the tunnel's overhead, so about 0.95")
    print("is the ceiling). Targets: p99 <= idle + %g ms (steady: + %g), loss < %g%%, goodput"
          % (P99_ADDED_MAX_MS, STEADY_P99_ADDED_MAX_MS, 100 * LOSS_MAX))
    print(">= %.2f of the mean capacity; steady: also >= %.2f of the fixed shaper's goodput."
          % (GOODPUT_OF_MEAN_MIN, STEADY_GOODPUT_OF_FIXED_MIN))
    print("Under rrul each direction also carries the other's ACKs: on an asymmetric trace")
    print("the downloads' ACKs take a large share of the uplink, and the oracle's up share")
    print("is what can be reached.")
    spec = "%-9s %-9s %-26s %7s %8s %8s %6s %6s %6s  %s"
    benchlib.print_header(spec, ("trace", "load", "variant", "idle", "added50", "added99",
                                 "loss%", "up", "down", "targets"))
    met = {}
    for r in sorted((r for r in recs if r["load"] != "idle"), key=order_key):
        name = VARIANT_NAMES.get(r["variant"], r["variant"])
        m = met.setdefault(r["variant"], [0, 0, 0])
        m[2] += r["failed"]  # runs, not rows: with --rounds a row may fail in some rounds
        if not r["runs"]:
            print(spec % (r["trace"], r["load"], name, "-", "-", "-", "-", "-", "-",
                          "FAILED: " + r["error"]))
            continue
        p = r["ping"]
        tg = targets(recs, r)
        m[0] += sum(ok is True for _, ok in tg)
        m[1] += sum(ok is False for _, ok in tg)
        print(spec % (
            r["trace"], r["load"], name, f(idle_of(recs, r), "%.2f"),
            f(added(recs, r, "med"), "%+.1f"), f(added(recs, r, "p99"), "%+.1f"),
            f(None if p["loss"] is None else 100 * p["loss"], "%.1f"),
            f(share(r, "up"), "%.2f"), f(share(r, "down"), "%.2f"), verdicts(tg)))
        for side in ("up", "down"):
            x = r.get(side)
            if x and x.get("error"):
                print("    %s: iperf3 error: %s" % (side, x["error"]))
    print()
    print("Targets met / missed per variant (the targets are autorate's; the other rows are")
    print("there to compare; failed = the variant could not be set up):")
    for v in VARIANTS:
        if v in met:
            print("  %-26s met %3d, missed %3d, failed runs %d" % (
                VARIANT_NAMES[v], met[v][0], met[v][1], met[v][2]))
    for r in recs:
        if r["load"] == "idle" and r["error"]:
            print("idle %s %s: FAILED: %s" % (r["trace"], r["variant"], r["error"]))
    print_rounds(recs)
    print_following(recs)
    return 0


def print_rounds(recs):
    """Each round's own p99 and goodput, where runs were repeated (--rounds)."""
    rows = [r for r in sorted(recs, key=order_key)
            if r["load"] != "idle" and len(r["runs"]) + r["failed"] > 1]
    if not rows:
        return
    print()
    print("Rounds (--rounds): the table above pools each row's rounds: its ping statistics")
    print("are those of all their probes together, its goodput their mean. Each round's own")
    print("added99 (ms) and goodput (up/down share), in the order they ran:")
    spec = "%-9s %-9s %-26s %6s  %s"
    benchlib.print_header(spec, ("trace", "load", "variant", "rounds", "added99; goodput"))
    for r in rows:
        each = []
        for x in r["runs"]:  # in the order they ran, as recorded
            g = "/".join(benchlib.fmt(share(x, side), "%.2f") for side in LOAD_DIRS[x["load"]])
            each.append("%s; %s" % (benchlib.fmt(added(recs, x, "p99"), "%+.1f"), g))
        failed = ", %d failed" % r["failed"] if r["failed"] else ""
        if not each:
            failed = "%d failed: %s" % (r["failed"], r["error"])
        print(spec % (r["trace"], r["load"], VARIANT_NAMES.get(r["variant"], r["variant"]),
                      len(r["runs"]), "  ".join(each) + failed))


# ---------------------------------------------------------------- following the link
RISE_MIN = 1.5  # a step of the capacity by this factor or more is a rise
RISE_REACHED = 0.8  # ... reached when the shaper's rate is this share of the new capacity


def capacity_at(link, t, col):
    """The trace player's capacity (Mbit/s, column col: 1 up, 2 down) at time t."""
    c = link[0][col]
    for step in link:
        if step[0] > t:
            break
        c = step[col]
    return c


def following(r, side):
    """How one run's shaper followed the link in one direction, from the sampled rates:
    (follow, over, rises): the time-means of min(rate, capacity) and of the rate above
    it, as shares of the capacity, and the seconds from each rise of the capacity (by
    RISE_MIN or more) to the rate's reaching RISE_REACHED of it (the rise's whole length
    if it never did). None without samples."""
    col = 1 if side == "up" else 2
    link, seconds = r["link"], r["seconds"]
    pts = [(x[0], x[col]) for x in r["rates"] if x[col] is not None and 0 <= x[0] < seconds]
    if not link or not pts:
        return None
    caps = [capacity_at(link, t, col) for t, _ in pts]
    total = sum(caps)
    follow = sum(min(v, c) for (_, v), c in zip(pts, caps)) / total
    over = sum(max(0.0, v - c) for (_, v), c in zip(pts, caps)) / total
    rises = []
    for i in range(1, len(link)):
        if link[i][col] < RISE_MIN * link[i - 1][col]:
            continue
        t0, cap = link[i][0], link[i][col]
        t1 = link[i + 1][0] if i + 1 < len(link) else seconds
        hit = [t for t, v in pts if t0 <= t < t1 and v >= RISE_REACHED * cap]
        rises.append((hit[0] if hit else t1) - t0)
    return follow, over, rises


def following_rounds(r, side):
    """following() over each round of r (see pooled()): the means of follow and over,
    every round's rises; None if no round has samples."""
    each = [x for x in (following(x, side) for x in r["runs"]) if x is not None]
    if not each:
        return None
    return (sum(x[0] for x in each) / len(each), sum(x[1] for x in each) / len(each),
            [t for x in each for t in x[2]])


def print_following(recs):
    rows = [r for r in sorted(recs, key=order_key)
            if r["variant"] == "autorate" and r["load"] != "idle" and not r["error"]]
    if not rows:
        return
    print()
    print("How autorate's shaper followed the link (its rate from `cakewg show --json`")
    print("every 200 ms): follow and over = the time-means of min(rate, capacity) and of")
    print("the rate above the capacity, as shares of it; rise = the seconds from each")
    rounds = any(len(r["runs"]) > 1 for r in rows)
    print("rise of the capacity by %gx or more to the rate's reaching %g of it (mean, max)%s"
          % (RISE_MIN, RISE_REACHED, ";" if rounds else "."))
    if rounds:
        print("with --rounds, the means over the rounds and every round's rises.")
    spec = "%-9s %-9s %-5s %7s %6s %6s %9s %8s"
    benchlib.print_header(spec, ("trace", "load", "side", "follow", "over", "rises",
                                 "rise mean", "rise max"))
    for r in rows:
        for side in LOAD_DIRS.get(r["load"], ()):
            fl = following_rounds(r, side)
            if fl is None:
                print(spec % (r["trace"], r["load"], side, "-", "-", "-", "-", "-"))
                continue
            follow, over, rises = fl
            print(spec % (r["trace"], r["load"], side, "%.3f" % follow, "%.3f" % over,
                          len(rises), "%.2f s" % (sum(rises) / len(rises)) if rises else "-",
                          "%.2f s" % max(rises) if rises else "-"))


# ---------------------------------------------------------------- plots
def step_points(pts, seconds):
    """[(t, v)] samples as a step line: each value holds until the next sample, the last
    one until seconds."""
    out = []
    for t, v in pts:
        if out:
            out.append((t, out[-1][1]))
        out.append((t, v))
    if out:
        out.append((max(seconds, out[-1][0]), out[-1][1]))
    return out


def cmd_svg(argv):
    recs = pooled(benchlib.read_jsonl(argv[0]))  # plots: each variant's first round
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    pairs = sorted({(r["trace"], r["load"]) for r in recs if r["load"] != "idle"},
                   key=lambda p: (p[0], LOADS.index(p[1]) if p[1] in LOADS else -1))
    for trace, load in pairs:
        runs = sorted((r for r in recs if r["trace"] == trace and r["load"] == load
                       and not r["error"]), key=order_key)
        if not runs:
            continue
        seconds = max(r["seconds"] for r in runs)
        panels = []
        for side, col in (("up", 1), ("down", 2)):
            if side not in LOAD_DIRS[load]:
                continue
            link = next((r["link"] for r in runs if r["link"]), [])
            series = [{"label": "link capacity", "color": "#000", "width": 2.2,
                       "points": step_points([(x[0], x[col]) for x in link], seconds)}]
            for r in runs:
                pts = step_points([(x[0], x[col]) for x in r["rates"]], seconds)
                if any(v is not None for _, v in pts):
                    series.append({"label": VARIANT_NAMES[r["variant"]],
                                   "color": VARIANT_COLORS[r["variant"]], "points": pts})
            panels.append({"kind": "rate", "title": "%s: the shaper's rate against the link's "
                           "capacity (wireguard-go and unlimited have no shaper)" % side,
                           "ylabel": "%s Mbit/s" % side, "series": series})
        rtt = []
        for r in runs:
            p = r["ping"]
            rtt.append({"label": VARIANT_NAMES[r["variant"]],
                        "color": VARIANT_COLORS[r["variant"]], "points": p["series"],
                        "note": "p99 %s ms above idle, loss %s%%" % (
                            benchlib.fmt(added(recs, r, "p99"), "%+.0f"),
                            benchlib.fmt(100 * (p["loss"] or 0), "%.1f"))})
        panels.append({"kind": "rtt", "title": "ping RTT", "ylabel": "RTT (ms, log)",
                       "series": rtt})
        out = os.path.join(outdir, "autorate-%s-%s.svg" % (trace, load))
        rttplot.write_panels_svg(out, "Trace %s under %s: the shaper's rate and the RTT "
                                 "(x: seconds since the start)" % (trace, load), panels, seconds)
        os.chmod(out, 0o644)
        print("plot:      %s" % out)
    return 0


COMMANDS = {"trace": cmd_trace, "trace-info": cmd_trace_info, "sample": cmd_sample,
            "record": cmd_record, "idle": cmd_idle, "report": cmd_report, "svg": cmd_svg}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.stderr.write(__doc__)
        sys.exit(2)
    try:
        sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
    except ValueError as e:
        sys.stderr.write("arbench: %s\n" % e)
        sys.exit(2)
