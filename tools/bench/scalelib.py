#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The analysis half of tools/bench/scale.sh: idle peers' configuration, one JSON record
per stage (implementation x number of idle peers), and the report.

Standard library only; reads iperf3 and ping output with tools/bench/benchlib.py.

Subcommands:
  peers FIRST COUNT [endpoints]   COUNT [Peer] sections for `wg addconf`, peers FIRST..,
                                  each with a random 32-byte public key and a /32 in
                                  10.64.0.0/10 (and an endpoint in 198.18.3.0/24)
  record FILE key=value...        appends one stage (see cmd_record)
  report FILE                     the tables, the ratios and the issue's targets
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402  tools/bench/benchlib.py, beside this file

# The targets of issue #15 for a VPN server's idle peers.
TPUT_RATIO_MIN = 0.9	    # one active peer's throughput with N idle peers / with none
ADD_PING_P99_MAX_MS = 20.0  # ping through the tunnel while 20,000 peers are added
ADD_TIME_RATIO_MAX = 2.0    # cakewg's add time / wireguard-go's
PING_INTERVAL_S = 0.01	    # scale.sh pings every 10 ms during an add


def cmd_peers(argv):
    first, count = int(argv[0]), int(argv[1])
    endpoints = len(argv) > 2 and argv[2] == "endpoints"
    out = []
    for i in range(first, first + count):
        # Any 32 bytes are a public key to the daemons: they precompute the static
        # Diffie-Hellman for each as for a real one; no private key is needed.
        key = base64.b64encode(os.urandom(32)).decode()
        out.append("[Peer]\nPublicKey = %s\nAllowedIPs = 10.%d.%d.%d/32\n" % (
            key, 64 + (i >> 16), (i >> 8) & 255, i & 255))
        if endpoints:
            out.append("Endpoint = 198.18.3.%d:%d\n" % (1 + i % 250, 10000 + i // 250))
    sys.stdout.write("".join(out))
    return 0


def num(v, conv=float):
    return conv(v) if v not in (None, "") else None


def cmd_record(argv):
    """record FILE impl= peers= held= rss_kb= dump_s= up=IPERF_JSON down=IPERF_JSON
    [added= add_s= ping=PING_OUTPUT]"""
    path, a = argv[0], benchlib.kv_args(argv[1:])
    rec = {"impl": a["impl"], "peers": int(a["peers"]), "held": num(a.get("held"), int),
           "rss_kb": num(a.get("rss_kb"), int),
           "dump_s": num(a.get("dump_s")), "added": num(a.get("added"), int),
           "add_s": num(a.get("add_s"))}
    for d in ("up", "down"):
        r = benchlib.parse_iperf(a.get(d))
        rec[d] = r["sum"] if r and not r.get("error") else None
        rec[d + "_cpu_per_gb"] = cpu_per_gb(a.get(d), a.get("hz"))
    if a.get("ping"):
        p = benchlib.parse_ping(a["ping"], PING_INTERVAL_S)
        rec["ping"] = {k: p[k] for k in ("sent", "received", "loss", "med", "p99", "max")}
    benchlib.append_jsonl(path, rec)
    line = ("  %-12s %6d idle peers: up %s, down %s Mbit/s (%s, %s CPU-s/GB), RSS %s MiB, "
            "dump %s s") % (
        benchlib.IMPL_NAMES[rec["impl"]], rec["peers"], benchlib.fmt(rec["up"]),
        benchlib.fmt(rec["down"]), benchlib.fmt(rec["up_cpu_per_gb"], "%.2f"),
        benchlib.fmt(rec["down_cpu_per_gb"], "%.2f"), benchlib.fmt(mib(rec["rss_kb"])),
        benchlib.fmt(rec["dump_s"], "%.3f"))
    if rec["added"]:
        line += "; added %d in %s s, ping p99 %s ms" % (
            rec["added"], benchlib.fmt(rec["add_s"], "%.2f"),
            benchlib.fmt(rec["ping"]["p99"]) if "ping" in rec else "-")
    print(line)
    return 0


def cpu_per_gb(iperf_json, hz):
    """CPU seconds of both daemons per GB (1e9 bytes) received, from scale.sh's iperf
    JSON and the .ticks file beside it; None if either is missing."""
    try:
        ticks = int(open(iperf_json + ".ticks").read())
        got = json.load(open(iperf_json))["end"]["sum_received"]["bytes"]
    except (OSError, TypeError, ValueError, KeyError):
        return None
    return ticks / float(hz) / (got / 1e9) if got and hz else None


def mib(kb):
    return kb / 1024.0 if kb is not None else None


def held_of(r):
    """The idle peers the daemon held at a stage (wireguard-go stops at its limit)."""
    return r["held"] if r.get("held") is not None else r["peers"]


def ratio(a, b):
    return a / b if a is not None and b else None


def verdict(ok):
    return "-" if ok is None else ("met" if ok else "MISSED")


def cmd_report(argv):
    recs = benchlib.read_jsonl(argv[0])
    impls = [i for i in ("cakewg", "wggo") if any(r["impl"] == i for r in recs)]
    counts = sorted({r["peers"] for r in recs})
    at = {(r["impl"], r["peers"]): r for r in recs}
    base = {i: at.get((i, 0)) for i in impls}

    spec = "%-12s %8s %9s %9s %9s %9s %9s %12s %9s"
    benchlib.print_header(spec, ("impl", "idle", "up Mbit/s", "down", "up/0", "down/0",
                                 "RSS MiB", "B/idle peer", "dump s"))
    per_peer = {}
    for i in impls:
        for n in counts:
            r = at.get((i, n))
            if not r:
                continue
            b = base[i]
            pp = None
            held = held_of(r)
            if held and b and r["rss_kb"] is not None and b["rss_kb"] is not None:
                pp = (r["rss_kb"] - b["rss_kb"]) * 1024.0 / held
                per_peer[(i, n)] = pp
            print(spec % (benchlib.IMPL_NAMES[i], held, benchlib.fmt(r["up"]),
                          benchlib.fmt(r["down"]),
                          benchlib.fmt(ratio(r["up"], b and b["up"]), "%.2f"),
                          benchlib.fmt(ratio(r["down"], b and b["down"]), "%.2f"),
                          benchlib.fmt(mib(r["rss_kb"])), benchlib.fmt(pp, "%.0f"),
                          benchlib.fmt(r["dump_s"], "%.3f")))
    print()
    spec = "%-12s %8s %12s %12s %9s %9s"
    benchlib.print_header(spec, ("impl", "idle", "up CPU-s/GB", "down", "up/0", "down/0"))
    for i in impls:
        for n in counts:
            r = at.get((i, n))
            if not r:
                continue
            b = base[i] or {}
            print(spec % (benchlib.IMPL_NAMES[i], held_of(r),
                          benchlib.fmt(r.get("up_cpu_per_gb"), "%.2f"),
                          benchlib.fmt(r.get("down_cpu_per_gb"), "%.2f"),
                          benchlib.fmt(ratio(r.get("up_cpu_per_gb"), b.get("up_cpu_per_gb")),
                                       "%.2f"),
                          benchlib.fmt(ratio(r.get("down_cpu_per_gb"),
                                             b.get("down_cpu_per_gb")), "%.2f")))
    print()
    spec = "%-12s %8s %9s %9s %11s %9s %9s %9s"
    benchlib.print_header(spec, ("impl", "added", "to", "add s", "ping sent", "p99 ms",
                                 "max ms", "loss %"))
    for i in impls:
        for n in counts:
            r = at.get((i, n))
            if not r or not r["added"]:
                continue
            p = r.get("ping") or {}
            print(spec % (benchlib.IMPL_NAMES[i], r["added"], n, benchlib.fmt(r["add_s"], "%.2f"),
                          p.get("sent", "-"), benchlib.fmt(p.get("p99")),
                          benchlib.fmt(p.get("max")),
                          benchlib.fmt(p["loss"] * 100 if p.get("loss") is not None else None)))
    if "cakewg" not in impls:
        return 0
    print()
    print("cakewg against its targets (issue #15):")
    for n in counts:
        if not n or ("cakewg", n) not in at:
            continue
        r, b = at[("cakewg", n)], base["cakewg"]
        for d in ("up", "down"):
            q = ratio(r[d], b and b[d])
            print("  throughput %-4s with %6d idle peers / none  >= %.1f: %s  %s" % (
                d, n, TPUT_RATIO_MIN, benchlib.fmt(q, "%.2f"),
                verdict(None if q is None else q >= TPUT_RATIO_MIN)))
        print("  CPU-s per GB with %6d idle peers / none (no target): up %s, down %s" % (
            n, benchlib.fmt(ratio(r.get("up_cpu_per_gb"), b and b.get("up_cpu_per_gb")), "%.2f"),
            benchlib.fmt(ratio(r.get("down_cpu_per_gb"), b and b.get("down_cpu_per_gb")),
                         "%.2f")))
        g = at.get(("wggo", n))
        if r["added"] and n == 20000:
            p99 = (r.get("ping") or {}).get("p99")
            print("  ping p99 while adding %d peers <= %.0f ms: %s  %s" % (
                r["added"], ADD_PING_P99_MAX_MS, benchlib.fmt(p99),
                verdict(None if p99 is None else p99 <= ADD_PING_P99_MAX_MS)))
            q = ratio(r["add_s"], g and g["added"] == r["added"] and g["add_s"])
            print("  add time / wireguard-go's <= %.0f: %s  %s" % (
                ADD_TIME_RATIO_MAX, benchlib.fmt(q, "%.2f"),
                verdict(None if q is None else q <= ADD_TIME_RATIO_MAX)))
        k, w = per_peer.get(("cakewg", n)), per_peer.get(("wggo", n))
        if k is not None:
            print("  RSS per idle peer at %d, not above wireguard-go's (%s B): %s B  %s" % (
                n, benchlib.fmt(w, "%.0f"), benchlib.fmt(k, "%.0f"),
                verdict(None if w is None else k <= w)))
        if g:
            print("  wg show dump at %d: %s s, wireguard-go %s s (%s x)" % (
                n, benchlib.fmt(r["dump_s"], "%.3f"), benchlib.fmt(g["dump_s"], "%.3f"),
                benchlib.fmt(ratio(r["dump_s"], g["dump_s"]), "%.2f")))
    return 0


COMMANDS = {"peers": cmd_peers, "record": cmd_record, "report": cmd_report}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
