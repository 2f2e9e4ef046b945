#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Summarise the demo's two ping runs (unshaped, CAKE) as a table and an SVG plot.

usage: rtt_report.py UNSHAPED.ping CAKE.ping UNSHAPED.iperf CAKE.iperf OUT.svg

A .ping file is `ping -D -i 0.05` output: 2 s idle, then a bulk upload. Standard
library only.
"""
import re
import sys

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


def svg(runs, out):
    width, height, left, bottom, top, right = 760, 360, 60, 40, 30, 20
    tmax = max((t for pts, _, _ in runs for t, _, _ in pts), default=1.0)
    ymax = max((r for pts, _, _ in runs for _, _, r in pts), default=1.0) * 1.05
    sx = lambda t: left + (width - left - right) * t / tmax
    sy = lambda r: height - bottom - (height - bottom - top) * r / ymax
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="14">Ping RTT through the tunnel during a '
        f"4-stream upload (20 Mbit/s bottleneck, 4 MB FIFO)</text>",
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" '
        f'y2="{height - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
        f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">time (s)</text>',
        f'<text x="14" y="{height / 2}" transform="rotate(-90 14 {height / 2})" '
        f'text-anchor="middle">RTT (ms)</text>',
    ]
    for i in range(6):
        r = ymax * i / 5
        parts.append(f'<text x="{left - 6}" y="{sy(r) + 4}" text-anchor="end">{r:.0f}</text>')
        parts.append(f'<line x1="{left}" y1="{sy(r)}" x2="{width - right}" y2="{sy(r)}" '
                     f'stroke="#ddd"/>')
    for i in range(int(tmax) + 1):
        parts.append(f'<text x="{sx(i)}" y="{height - bottom + 16}" '
                     f'text-anchor="middle">{i}</text>')
    for k, (pts, name, color) in enumerate(runs):
        path = " ".join(f"{sx(t):.1f},{sy(r):.1f}" for t, _, r in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                     f'stroke-width="1.5"/>')
        parts.append(f'<text x="{width - right - 200}" y="{top + 18 + 16 * k}" '
                     f'fill="{color}">{name}</text>')
    parts.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(parts) + "\n")


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
        runs.append((pts, name, color))
    svg(runs, out)


if __name__ == "__main__":
    main()
