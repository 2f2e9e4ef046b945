# SPDX-License-Identifier: GPL-2.0-only
"""Ping RTT of a few runs as one SVG, drawn as flent draws it: RTT over time on a
logarithmic axis, and beside it the CDF of each run's RTTs on the same logarithmic
scale, so a run around 1 ms and one around 1000 ms are both readable.

Used by tools/bench/benchlib.py (svg) and tools/demo/rtt_report.py. Standard library
only: the SVG is written by hand.

    write_svg(path, title, runs, marks=(), cdf_title="CDF")
    write_panels_svg(path, title, panels, tmax)   time series only, stacked panels
                                                  (e.g. a rate over time above the RTT)

runs: a list of dicts with
    label   the run's name in the legend
    color   an SVG colour
    points  [(seconds, rtt_ms)], the time series
    cdf     the RTTs (ms) of the CDF panel (default: those of points)
    note    text after the label in the legend, e.g. "median 0.4 ms, p99 2.1 ms"
marks: [(seconds, text)]: dashed vertical lines on the time axis ("upload starts").
"""
import math

WIDTH, HEIGHT = 980, 470
TOP, BOTTOM = 50, 360          # both panels' plot area, vertically
TS_L, TS_R = 72, 610           # RTT over time
CDF_L, CDF_R = 690, 950        # CDF
LEGEND_Y = 418
LEGEND_LINE = 20
RTT_FLOOR_MS = 0.01            # the smallest RTT the log axis shows (ping prints 3 digits)
GRID_MAJOR, GRID_MINOR, FRAME = "#bbb", "#eee", "#333"


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _text(x, y, s, anchor="middle", size=12, extra=""):
    return '<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s"%s>%s</text>' % (
        x, y, size, anchor, (" " + extra) if extra else "", _esc(s))


def _line(x1, y1, x2, y2, stroke, extra=""):
    return '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s/>' % (
        x1, y1, x2, y2, stroke, (" " + extra) if extra else "")


def _frame(left, right):
    return '<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>' % (
        left, TOP, right - left, BOTTOM - TOP, FRAME)


def _log_range(values):
    """The log axis' range: from the decade below the smallest value to the first 1, 2
    or 5 times a power of ten at or above the largest, two decades at least."""
    vals = [max(v, RTT_FLOOR_MS) for v in values] or [1.0]
    lo = 10.0 ** math.floor(math.log10(min(vals)) + 1e-9)
    top = max(max(vals), lo * 100)
    e = math.floor(math.log10(top) - 1e-9)
    hi = next(m * 10.0 ** e for m in (1, 2, 5, 10) if m * 10.0 ** e >= top * 0.9999)
    return lo, hi


def _log_pos(ms, lo, hi, a, b):
    """Where ms falls between a (at lo) and b (at hi) on a log scale."""
    ms = min(max(ms, lo), hi)
    return a + (b - a) * (math.log10(ms) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))


def _ms_label(v):
    return "%g" % v


def _log_ticks(lo, hi):
    """(value, major) for 1, 2 and 5 of every decade in [lo, hi]; labels on the majors."""
    ticks = []
    e = round(math.log10(lo))
    while 10.0 ** e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10.0 ** e
            if lo * 0.9999 <= v <= hi * 1.0001:
                ticks.append((v, m == 1))
        e += 1
    return ticks


def _time_step(tmax):
    for step in (1, 2, 5, 10, 20, 30, 60):
        if tmax / step <= 12:
            return step
    return 120


def _grid(grid, x, y, tmax, right, top, bottom):
    """A time panel's grid: a line per (value, major, labelled) of grid across it, the
    value's label on the left when labelled, and a vertical line with its label every
    time step from 0 to tmax."""
    el = []
    for v, major, label in grid:
        el.append(_line(TS_L, y(v), right, y(v), GRID_MAJOR if major else GRID_MINOR))
        if label:
            el.append(_text(TS_L - 6, y(v) + 4, _ms_label(v), anchor="end", size=11))
    step = _time_step(tmax)
    t = 0
    while t <= tmax + 1e-9:
        el.append(_line(x(t), top, x(t), bottom, GRID_MINOR))
        el.append(_text(x(t), bottom + 16, "%g" % t, size=11))
        t += step
    return el


def _time_panel(runs, marks, lo, hi):
    tmax = max((t for r in runs for t, _ in r["points"]), default=1.0) or 1.0
    x = lambda t: TS_L + (TS_R - TS_L) * t / tmax
    y = lambda ms: _log_pos(ms, lo, hi, BOTTOM, TOP)
    grid = [(v, major, major or math.isclose(v, hi) or hi / lo <= 100)
            for v, major in _log_ticks(lo, hi)]
    el = _grid(grid, x, y, tmax, TS_R, TOP, BOTTOM)
    for t, label in marks:
        el.append(_line(x(t), TOP, x(t), BOTTOM, "#666", 'stroke-dasharray="4 3"'))
        el.append(_text(x(t) + 4, TOP + 14, label, anchor="start", size=11,
                        extra='fill="#444"'))
    for r in runs:
        pts = " ".join("%.1f,%.1f" % (x(t), y(ms)) for t, ms in r["points"])
        el.append('<polyline fill="none" stroke="%s" stroke-width="1.3" '
                  'stroke-linejoin="round" points="%s"/>' % (r["color"], pts))
    el.append(_frame(TS_L, TS_R))
    el.append(_text((TS_L + TS_R) / 2, BOTTOM + 34, "time since the first ping (s)"))
    mid = (TOP + BOTTOM) / 2
    el.append(_text(18, mid, "ping RTT (ms, log scale)",
                    extra='transform="rotate(-90 18 %.1f)"' % mid))
    return el


def _cdf_panel(runs, lo, hi, cdf_title):
    x = lambda ms: _log_pos(ms, lo, hi, CDF_L, CDF_R)
    y = lambda f: BOTTOM - (BOTTOM - TOP) * f
    el = []
    for v, major in _log_ticks(lo, hi):
        el.append(_line(x(v), TOP, x(v), BOTTOM, GRID_MAJOR if major else GRID_MINOR))
        if major:
            el.append(_text(x(v), BOTTOM + 16, _ms_label(v), size=11))
    for pct in range(0, 101, 25):
        el.append(_line(CDF_L, y(pct / 100.0), CDF_R, y(pct / 100.0), GRID_MINOR))
        el.append(_text(CDF_L - 6, y(pct / 100.0) + 4, "%d" % pct, anchor="end", size=11))
    for r in runs:
        vals = sorted(r.get("cdf", [ms for _, ms in r["points"]]))
        if not vals:
            continue
        n = len(vals)
        pts = ["%.1f,%.1f" % (x(vals[0]), y(0.0))]
        for i, v in enumerate(vals):  # a step up at every sample
            pts.append("%.1f,%.1f" % (x(v), y(i / n)))
            pts.append("%.1f,%.1f" % (x(v), y((i + 1) / n)))
        el.append('<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>' % (
            r["color"], " ".join(pts)))
    el.append(_frame(CDF_L, CDF_R))
    el.append(_text((CDF_L + CDF_R) / 2, BOTTOM + 34, "ping RTT (ms, log scale)"))
    mid = (TOP + BOTTOM) / 2
    el.append(_text(CDF_L - 34, mid, "pings at or below (%)",
                    extra='transform="rotate(-90 %.1f %.1f)"' % (CDF_L - 34, mid)))
    el.append(_text((CDF_L + CDF_R) / 2, TOP - 8, cdf_title, size=12,
                    extra='font-weight="bold"'))
    return el


def _legend(runs):
    el = []
    for i, r in enumerate(runs):
        ly = LEGEND_Y + i * LEGEND_LINE
        el.append(_line(TS_L, ly - 4, TS_L + 28, ly - 4, r["color"], 'stroke-width="3"'))
        label = r["label"] + (": " + r["note"] if r.get("note") else "")
        el.append(_text(TS_L + 36, ly, label, anchor="start", size=12))
    return el


def write_svg(path, title, runs, marks=(), cdf_title="CDF"):
    """Writes the plot of runs (see the module's doc) to path."""
    values = [ms for r in runs for _, ms in r["points"]]
    values += [ms for r in runs for ms in r.get("cdf", [])]
    lo, hi = _log_range(values)
    height = max(HEIGHT, LEGEND_Y + LEGEND_LINE * len(runs))
    el = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
          'viewBox="0 0 %d %d" font-family="sans-serif">' % (WIDTH, height, WIDTH, height),
          '<rect width="100%" height="100%" fill="white"/>',
          _text(WIDTH / 2, 24, title, size=15, extra='font-weight="bold"')]
    el += _time_panel(runs, marks, lo, hi)
    el += _cdf_panel(runs, lo, hi, cdf_title)
    el += _legend(runs)
    el.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(el) + "\n")


# ---------------------------------------------------------------- stacked time panels
PANEL_H, PANEL_GAP = 190, 62   # each panel's plot height, and the room under it
PANELS_R = 950                 # no CDF beside them: the full width


def _lin_ticks(hi):
    """Ticks 0..hi at 1, 2 or 5 times a power of ten, at most 6 intervals."""
    e = math.floor(math.log10(hi)) if hi > 0 else 0
    for m in (0.1, 0.2, 0.5, 1, 2, 5, 10):
        step = m * 10.0 ** e
        if hi / step <= 6:
            break
    n = int(math.ceil(hi / step - 1e-9))
    return [i * step for i in range(n + 1)]


def _series_panel(panel, top, tmax):
    """One panel of write_panels_svg: its grid, axes, polylines and legend; returns the
    elements and the y below its legend."""
    bottom = top + PANEL_H
    x = lambda t: TS_L + (PANELS_R - TS_L) * min(max(t, 0.0), tmax) / tmax
    values = [v for s in panel["series"] for _, v in s["points"] if v is not None]
    el = []
    if panel["kind"] == "rtt":
        lo, hi = _log_range(values)
        y = lambda v: _log_pos(v, lo, hi, bottom, top)
        grid = [(v, major, major or math.isclose(v, hi) or hi / lo <= 100)
                for v, major in _log_ticks(lo, hi)]
    else:
        ticks = _lin_ticks(max(values + [1.0]) * 1.05)
        hi = ticks[-1]
        y = lambda v: bottom - (bottom - top) * min(max(v, 0.0), hi) / hi
        grid = [(v, True, True) for v in ticks]
    el += _grid(grid, x, y, tmax, PANELS_R, top, bottom)
    for s in panel["series"]:
        pts = " ".join("%.1f,%.1f" % (x(t), y(v)) for t, v in s["points"] if v is not None)
        el.append('<polyline fill="none" stroke="%s" stroke-width="%.1f" '
                  'stroke-linejoin="round" points="%s"/>' % (s["color"], s.get("width", 1.3),
                                                              pts))
    el.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>' % (
        TS_L, top, PANELS_R - TS_L, PANEL_H, FRAME))
    el.append(_text(TS_L, top - 8, panel["title"], anchor="start", size=12,
                    extra='font-weight="bold"'))
    mid = (top + bottom) / 2
    el.append(_text(18, mid, panel["ylabel"], extra='transform="rotate(-90 18 %.1f)"' % mid))
    ly = bottom + 36
    for s in panel["series"]:
        el.append(_line(TS_L, ly - 4, TS_L + 28, ly - 4, s["color"], 'stroke-width="3"'))
        el.append(_text(TS_L + 36, ly, s["label"] + (": " + s["note"] if s.get("note") else ""),
                        anchor="start", size=12))
        ly += LEGEND_LINE
    return el, ly


def write_panels_svg(path, title, panels, tmax):
    """Time series panels stacked over one time axis 0..tmax seconds, each with its
    legend under it. panels: dicts with kind ("rtt": a logarithmic axis in ms, as
    write_svg's; "rate": a linear one from 0), title, ylabel and series (label, color,
    points [(seconds, value or None)], optional width and note)."""
    tmax = tmax or 1.0
    el, y = [], TOP
    for p in panels:
        pe, y = _series_panel(p, y, tmax)
        el += pe
        y += PANEL_GAP - LEGEND_LINE
    height = int(y - PANEL_GAP + LEGEND_LINE + 10)
    head = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" font-family="sans-serif">' % (WIDTH, height, WIDTH, height),
            '<rect width="100%" height="100%" fill="white"/>',
            _text(WIDTH / 2, 24, title, size=15, extra='font-weight="bold"')]
    with open(path, "w") as f:
        f.write("\n".join(head + el + ["</svg>"]) + "\n")
