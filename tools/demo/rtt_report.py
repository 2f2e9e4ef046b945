#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Summarise the demo's two ping runs (unshaped, CAKE) as a table and an SVG plot.

usage: rtt_report.py UNSHAPED.ping CAKE.ping UNSHAPED.iperf CAKE.iperf OUT.svg

A .ping file is `ping -D -i 0.05` output: 2 s idle, then a bulk upload. The plot
(tools/bench/rttplot.py) shows RTT over time on a log scale and the CDF of the RTTs
under load. Standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rttplot  # noqa: E402 (tools/bench/rttplot.py)

IDLE_SECS = 1.8  # pings before the upload starts (the demo waits 2 s)
LINE = re.compile(r"^\[(\d+\.\d+)\].*icmp_seq=(\d+).*time=([\d.]+) ms")


def load(path):
    """[(seconds since first ping, seq, rtt_ms)], highest seq sent."""
    pts, t0, last_seq = [], None, 0
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            t, seq, rtt = float(m.group(1)), int(m.group(2)), float(m.group(3))
            t0 = t if t0 is None else t0
            pts.append((t - t0, seq, rtt))
            last_seq = max(last_seq, seq)
    sent = re.search(r"(\d+) packets transmitted", open(path).read())
    return pts, int(sent.group(1)) if sent else last_seq


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def goodput(path):
    text = open(path).read()
    m = re.findall(r"\[SUM\].*?([\d.]+) ([KMG])bits/sec.*receiver", text)
    if not m:
        m = re.findall(r"\s([\d.]+) ([KMG])bits/sec.*receiver", text)
    if not m:
        return float("nan")
    value, unit = m[-1]
    return float(value) * {"K": 1e-3, "M": 1.0, "G": 1e3}[unit]


def summary(pts, sent):
    idle = [r for t, _, r in pts if t < IDLE_SECS]
    load = [r for t, _, r in pts if t >= IDLE_SECS + 0.5]
    loss = 100.0 * (1 - len(pts) / sent) if sent else float("nan")
    return idle, load, loss


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    un_ping, cake_ping, un_iperf, cake_iperf, out = sys.argv[1:]
    runs = []
    print(f"{'':24}{'idle p50':>10}{'load p50':>10}{'load p99':>10}{'loss %':>8}"
          f"{'goodput Mbit/s':>16}")
    for name, ping, iperf, color in (("no shaping", un_ping, un_iperf, "#c0392b"),
                                     ("CAKE bandwidth 19mbit", cake_ping, cake_iperf,
                                      "#2471a3")):
        pts, sent = load(ping)
        idle, loaded, loss = summary(pts, sent)
        print(f"{name:24}{pct(idle, .5):10.1f}{pct(loaded, .5):10.1f}"
              f"{pct(loaded, .99):10.1f}{loss:8.1f}{goodput(iperf):16.1f}")
        runs.append({"label": name, "color": color, "points": [(t, r) for t, _, r in pts],
                     "cdf": loaded, "note": f"under load median {pct(loaded, .5):.1f} ms, "
                     f"p99 {pct(loaded, .99):.1f} ms, loss {loss:.1f}%"})
    rttplot.write_svg(out, "Ping RTT through the tunnel during a 4-stream upload "
                      "(20 Mbit/s bottleneck, 4 MB FIFO)", runs,
                      marks=[(IDLE_SECS, "upload starts")], cdf_title="CDF of the pings under load")


if __name__ == "__main__":
    main()
