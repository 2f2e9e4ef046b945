#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Analysis half of tools/bench: the shell scripts run the traffic, this file reads what
it left behind (ping output, iperf3 JSON, cakewg_get replies), keeps one JSON record
per run in a .jsonl file, and prints the tables and the SVG plot from those records.

Standard library only (no matplotlib here): the plot is SVG written by hand.

Subcommands:
  uapi SOCK                         stdin is a UAPI request; prints the reply body
  offloads IFNAME...                a device's offload flags (ethtool ioctls)
  snap SOCK OUT [SOCK OUT]...       cakewg_get=1 replies of several daemons into files
  lat-record FILE key=value...      appends one latency run (see cmd_lat_record)
  lat-report FILE                   tables and target verdicts of the latency suite
  svg FILE OUT topo rate load       RTT over time, cakewg vs wireguard-go
  tput-record FILE key=value...     appends one throughput run
  tput-report FILE                  medians, CPU seconds per GB and ratios
"""
import json
import math
import os
import re
import socket
import statistics
import sys

import rttplot  # tools/bench/rttplot.py, beside this file

IMPL_NAMES = {"cakewg": "cakewg", "wggo": "wireguard-go"}
LOADS = ["idle", "tcp_nup", "rrul", "udpflood"]
TOPOS = ["remote", "local"]

# Targets of the latency issue (ms, fractions).
REMOTE_DP99_MS = 5.0
LOCAL_DP99_MS = 10.0
UDPFLOOD_DP99_MS = 5.0
UDPFLOOD_LOSS_MAX = 0.01
GOODPUT_OF_SHAPED_MIN = 0.90
JAIN_MIN = 0.95
# Larger than any MTU-sized datagram of a 1500-byte underlay: a GSO super-packet.
SUPER_PACKET_MIN_BYTES = 1600
# Sizes as the shaper counts them (encapsulated: padded inner + 32 + UDP 8 + IPv4 20) for
# the bench's tunnel MTU (lib.sh TUNNEL_MTU=1420): a full TCP segment, its TCP payload
# (less IPv4 20, TCP 20 and the timestamp option 12), and a pure ACK (52 bytes, padded to
# 64).
WG_OVERHEAD_V4 = 32 + 8 + 20
DATA_WIRE_BYTES = 1420 + WG_OVERHEAD_V4
DATA_PAYLOAD_BYTES = 1420 - 20 - 20 - 12
ACK_WIRE_BYTES = 64 + WG_OVERHEAD_V4


# ---------------------------------------------------------------- small helpers
def percentile(values, p):
    """Nearest-rank percentile of a non-empty list."""
    v = sorted(values)
    k = max(0, math.ceil(p / 100.0 * len(v)) - 1)
    return v[k]


def jain(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2:
        return None
    s = sum(xs)
    sq = sum(x * x for x in xs)
    return (s * s) / (len(xs) * sq) if sq > 0 else None


def fmt(v, spec="%.1f", none="-"):
    return none if v is None else spec % v


def print_header(spec, names):
    """A table's header line, spec % names, and a line of dashes as wide under it."""
    hdr = spec % names
    print(hdr)
    print("-" * len(hdr))


def kv_args(items):
    out = {}
    for it in items:
        k, _, v = it.partition("=")
        out[k] = v
    return out


def read_jsonl(path):
    recs = []
    if not os.path.exists(path):
        return recs
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                recs.append(json.loads(line))
    return recs


def append_jsonl(path, rec):
    with open(path, "a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")


# ---------------------------------------------------------------- UAPI
def uapi_request(path, req):
    """The reply body of one UAPI request and its errno (None: no errno line)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    s.sendall(req.encode())
    buf = b""
    end = re.compile(rb"(?:^|\n)errno=-?\d+\n\n$")
    while not end.search(buf):
        try:
            d = s.recv(65536)
        except socket.timeout:
            break
        if not d:
            break
        buf += d
    s.close()
    text = buf.decode(errors="replace")
    m = re.search(r"(?:^|\n)errno=(-?\d+)\n", text)
    if not m:
        return text, None
    return text[: m.start() + (1 if m.group(0).startswith("\n") else 0)], int(m.group(1))


def cmd_uapi(argv):
    body, err = uapi_request(argv[0], sys.stdin.read())
    if err is None:
        sys.stderr.write("uapi: no errno line in the reply\n")
        return 1
    sys.stdout.write(body)
    if err != 0:
        sys.stderr.write("uapi: errno=%d\n" % err)
        return 1
    return 0


def cmd_snap(argv):
    """snap SOCK OUT [SOCK OUT]...: each daemon's cakewg_get=1 reply into its file."""
    ret = 0
    for sock, out in zip(argv[0::2], argv[1::2]):
        body, err = uapi_request(sock, "cakewg_get=1\n\n")
        with open(out, "w") as f:
            f.write(body if err == 0 else "")
        if err != 0:
            sys.stderr.write("snap: %s answered errno=%s\n" % (sock, err))
            ret = 1
    return ret


# ---------------------------------------------------------------- offloads
# ethtool ioctls (linux/ethtool.h): each fills struct ethtool_value {u32 cmd, data}.
SIOCETHTOOL = 0x8946
ETHTOOL_FLAGS = (("tx-csum", 0x16), ("tso", 0x1E), ("gso", 0x23), ("gro", 0x2B))


def cmd_offloads(argv):
    """offloads IFNAME...: the offload flags of each device, one line each."""
    import array
    import fcntl
    import struct

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for name in argv:
        words = []
        for label, cmd in ETHTOOL_FLAGS:
            val = array.array("I", [cmd, 0])
            ifr = struct.pack("16sP", name.encode(), val.buffer_info()[0])
            try:
                fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
                words.append("%s %s" % (label, "on" if val[1] else "off"))
            except OSError as e:
                words.append("%s ?(%s)" % (label, os.strerror(e.errno)))
        print("%s: %s" % (name, ", ".join(words)))
    return 0


# ---------------------------------------------------------------- parsers
PING_LINE = re.compile(r"icmp_seq=(\d+) ttl=\d+ time=([\d.]+) ms(?! \(DUP)")
PING_SUM = re.compile(r"(\d+) packets transmitted, (\d+) received")


def ping_samples(text):
    """(RTT in ms by sequence number, probes sent) of one ping log's text; the probes
    sent from its summary, else the highest sequence number answered."""
    rtts = {}
    for m in PING_LINE.finditer(text):
        rtts.setdefault(int(m.group(1)), float(m.group(2)))
    m = PING_SUM.search(text)
    return rtts, int(m.group(1)) if m else max(rtts) if rtts else 0


def ping_stats(series, sent):
    """parse_ping's result from [[seconds, rtt_ms]] samples, of sent probes."""
    vals = [v for _, v in series]
    res = {"sent": sent, "received": len(vals), "loss": None, "med": None, "p99": None,
           "max": None, "series": []}
    if sent:
        res["loss"] = max(0.0, 1.0 - len(vals) / float(sent))
    if vals:
        res["med"] = statistics.median(vals)
        res["p99"] = percentile(vals, 99)
        res["max"] = max(vals)
        res["series"] = series
    return res


def parse_ping(path, interval_s):
    """RTT samples and loss of one `ping -c N -i interval` run."""
    try:
        text = open(path).read()
    except OSError:
        text = ""
    rtts, sent = ping_samples(text)
    return ping_stats([[round((seq - 1) * interval_s, 3), rtts[seq]] for seq in sorted(rtts)],
                      sent)


def parse_iperf(path):
    """Per-flow goodput (Mbit/s, receiver side) of one iperf3 -J client run."""
    if not path:
        return None
    try:
        r = json.load(open(path))
    except (OSError, ValueError) as e:
        return {"error": "no JSON (%s)" % e.__class__.__name__, "flows": [], "sum": None}
    if "error" in r and not r.get("end", {}).get("streams"):
        return {"error": r["error"], "flows": [], "sum": None}
    start = r.get("start", {}).get("test_start", {})
    blk = start.get("blksize", 0)
    flows, retrans = [], 0
    streams = r["end"].get("streams", [])
    if streams and "udp" in streams[0]:
        # iperf3 3.12 counts the omitted seconds into the client's per-stream UDP losses
        # (more lost than sent) and reports 0 bytes per stream on the server; the
        # server's sequence numbers minus its gaps are right (they add up to
        # sum_received), so per-flow goodput comes from --get-server-output.
        srv = (r.get("server_output_json") or {}).get("end", {}).get("streams", [])
        for st in srv or streams:
            u = st["udp"]
            got = max(0, u.get("packets", 0) - u.get("lost_packets", 0))
            secs = u.get("seconds") or 1.0
            flows.append(got * blk * 8 / secs / 1e6)
        if not srv:
            return {"flows": flows, "sum": sum(flows), "jain": jain(flows), "retransmits": 0,
                    "cc": None, "error": "no server output: per-flow UDP numbers unreliable"}
    for st in streams:
        if "receiver" in st:
            flows.append(st["receiver"]["bits_per_second"] / 1e6)
            retrans += st.get("sender", {}).get("retransmits", 0) or 0
    cc = r["end"].get("sender_tcp_congestion")
    return {"flows": flows, "sum": sum(flows), "jain": jain(flows), "retransmits": retrans,
            "cc": cc, "error": r.get("error")}


# The daemon's counters (src/core/counters.h) that the reports use; every other one is
# read too (uapi_ints) but not kept.
REPORTED_COUNTERS = ("backpressure_stalls", "underlay_send_errors", "shaper_late",
                     "shaper_late_ns", "underlay_starved")


def uapi_ints(lines):
    """Every key=<decimal> line of a reply, summed over repeats (a peer's counters over
    the peers)."""
    ints = {}
    for line in lines:
        k, _, v = line.rstrip("\n").partition("=")
        if v.isdigit():
            ints[k] = ints.get(k, 0) + int(v)
    return ints


def parse_cakewg_get(path):
    """Counters of interest from a `cakewg_get=1` reply (None if absent)."""
    if not path or not os.path.exists(path):
        return None
    lines = open(path).read().splitlines()
    ints = uapi_ints(lines)
    out = {"egress_drops": 0, "egress_marks": 0, "ingress_drops": 0,
           "peer_egress_drops": ints.get("egress_drops", 0), "max_network_size": 0,
           "max_pkt_len": 0, "egress_ack_drops": 0, "egress_bytes": 0, "egress_packets": 0,
           "ingress_bytes": 0, "ingress_packets": 0, "egress_options": None,
           "ingress_options": None}
    out.update((k, ints.get(k, 0)) for k in REPORTED_COUNTERS)
    for line in lines:
        k, _, v = line.partition("=")
        if k in ("cake_egress_json", "cake_ingress_json"):
            try:
                j = json.loads(v)
            except ValueError:
                continue
            side = "egress" if k.startswith("cake_egress") else "ingress"
            out[side + "_drops"] = j.get("drops", 0)
            out[side + "_bytes"] = j.get("bytes", 0)
            out[side + "_packets"] = j.get("packets", 0)
            if side == "egress":
                out["egress_marks"] = sum(t.get("ecn_mark", 0) for t in j.get("tins", []))
                out["egress_ack_drops"] = sum(t.get("ack_drops", 0) for t in j.get("tins", []))
                out["max_network_size"] = j.get("max_network_size", 0)
                # per tin, the largest unit enqueued, before any split-gso segmentation
                out["max_pkt_len"] = max([t.get("max_pkt_len", 0) for t in j.get("tins", [])]
                                         + [0])
        elif k == "cake_egress":
            out["egress_options"] = v
        elif k == "cake_ingress":
            out["ingress_options"] = v
    return out


QDISC_DROPS = re.compile(r"\(dropped (\d+),")


def tun_dropped(path):
    """Drops so far at a TUN device: its qdisc's, plus the link's tx_dropped (the ring
    between the kernel and the daemon), from a tun_drops_snap file."""
    text = open(path).read()
    n = sum(int(x) for x in QDISC_DROPS.findall(text))
    for line in text.splitlines():
        if line.startswith("LINK "):
            try:
                n += json.loads(line[5:])[0]["stats64"]["tx"]["dropped"]
            except (ValueError, LookupError):
                pass
    return n


def tunq_drops(before, after):
    """Packets dropped at the client's TUN device (qdisc and ring) between two snapshots."""
    try:
        return tun_dropped(after) - tun_dropped(before)
    except (OSError, TypeError):
        return None


# Where a queue can stand, by interface name after the run's prefix (tools/bench/lib.sh).
QUEUE_PLACES = {
    "c": "client veth", "rs": "router->server", "rc": "router->client", "s": "server veth",
    "kc": "client TUN", "gc": "client TUN", "ks": "server TUN", "gs": "server TUN",
}


def parse_queues(path, prefix, port_c, port_s):
    """{place: [bytes per sample]} from a queue_sampler file: qdisc backlogs, and the UDP
    socket memory in use (send: sk_wmem, receive: sk_rmem) of both daemons' sockets."""
    places = {}
    try:
        text = open(path).read()
    except (OSError, TypeError):
        return places
    for block in text.split("\n@ ")[0:]:
        side = None
        sample = {}
        for line in block.splitlines():
            if line.startswith("Q "):
                side = None
                try:
                    qds = json.loads(line[2:])
                except ValueError:
                    continue
                for q in qds:
                    dev = q.get("dev", "")
                    if not dev.startswith(prefix):
                        continue
                    place = QUEUE_PLACES.get(dev[len(prefix):])
                    if place:
                        sample[place] = sample.get(place, 0) + q.get("backlog", 0)
            elif line.startswith("U "):
                side = line[2:].strip()
            elif side and ":" in line:
                f = line.split()
                if len(f) < 5 or not re.match(r"^[0-9A-F]+:[0-9A-F]{4}$", f[1]):
                    continue
                port = int(f[1].split(":")[1], 16)
                if port != (port_c if side == "c" else port_s):
                    continue
                tx, rx = (int(x, 16) for x in f[4].split(":"))
                who = "client" if side == "c" else "server"
                sample[who + " UDP send"] = sample.get(who + " UDP send", 0) + tx
                sample[who + " UDP recv"] = sample.get(who + " UDP recv", 0) + rx
        if not sample:
            continue
        for k, v in sample.items():
            places.setdefault(k, []).append(v)
    return places


def sched_delta(before, after):
    """{"run_s", "wait_s"}: CPU time of the daemons' threads and their time runnable but
    waiting for a CPU, between two daemon_sched snapshots."""
    try:
        r0, w0 = (int(x) for x in before.split())
        r1, w1 = (int(x) for x in after.split())
    except (AttributeError, ValueError):
        return None
    return {"run_s": (r1 - r0) / 1e9, "wait_s": (w1 - w0) / 1e9}


def cake_delta(before, after):
    if not before or not after:
        return None
    d = {}
    for k in ("egress_drops", "egress_marks", "ingress_drops", "peer_egress_drops",
              "egress_ack_drops", "egress_bytes", "egress_packets", "ingress_bytes",
              "ingress_packets") + REPORTED_COUNTERS:
        d[k] = after[k] - before[k]
    d["max_network_size"] = after["max_network_size"]
    d["max_pkt_len_before"] = before["max_pkt_len"]
    d["max_pkt_len"] = after["max_pkt_len"]
    d["egress_options"] = after["egress_options"]
    d["ingress_options"] = after["ingress_options"]
    return d


# ---------------------------------------------------------------- latency records
def qdisc_dropped(path):
    """The 'dropped N' of the first qdisc in a `tc -s qdisc show` file, or None."""
    if not path or not os.path.exists(path):
        return None
    m = re.search(r"dropped (\d+)", open(path).read())
    return int(m.group(1)) if m else None


def qdisc_drops_delta(before, after):
    b, a = qdisc_dropped(before), qdisc_dropped(after)
    return None if a is None else a - (b or 0)


def cmd_lat_record(argv):
    """lat-record FILE topo= rate= load= impl= variant= ping= interval= up= down=
    cake_c0= cake_c1= cake_s0= cake_s1= shaped= note="""
    path, a = argv[0], kv_args(argv[1:])
    rec = {
        "topo": a["topo"], "rate": int(a["rate"]), "load": a["load"], "impl": a["impl"],
        "variant": a.get("variant", "default"), "note": a.get("note", ""),
        "shaped": float(a["shaped"]) if a.get("shaped") else None,
        "duration": float(a.get("duration", 0)),
        "ping": parse_ping(a["ping"], float(a.get("interval", "0.05"))),
        "up": parse_iperf(a.get("up")), "down": parse_iperf(a.get("down")),
        "cake_client": cake_delta(parse_cakewg_get(a.get("cake_c0")),
                                  parse_cakewg_get(a.get("cake_c1"))),
        "cake_server": cake_delta(parse_cakewg_get(a.get("cake_s0")),
                                  parse_cakewg_get(a.get("cake_s1"))),
        "tunq_drops": tunq_drops(a.get("tunq0"), a.get("tunq1")),
        "tbf_drops": qdisc_drops_delta(a.get("tbf0"), a.get("tbf1")),
        "queues": parse_queues(a.get("queues"), a.get("prefix", ""),
                               int(a.get("port_c") or 0), int(a.get("port_s") or 0)),
        "sched": sched_delta(a.get("sched0"), a.get("sched1")),
        "loadavg": a.get("loadavg", ""),
    }
    append_jsonl(path, rec)
    p = rec["ping"]
    sys.stdout.write("  ping med %s p99 %s ms loss %s%%; up %s down %s Mbit/s\n" % (
        fmt(p["med"], "%.2f"), fmt(p["p99"], "%.2f"),
        fmt(None if p["loss"] is None else 100 * p["loss"], "%.1f"),
        fmt(rec["up"]["sum"] if rec["up"] else None),
        fmt(rec["down"]["sum"] if rec["down"] else None)))
    return 0


def find(recs, **kw):
    for r in recs:
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def idle_med(recs, r):
    """The idle RTT the load is compared with: the median of the idle run. (Its p99 is
    a poor reference on a shared host: one scheduling hiccup among a few hundred
    probes moves it by tens of ms, and a higher reference would flatter the load.)"""
    idle = find(recs, topo=r["topo"], rate=r["rate"], load="idle", impl=r["impl"],
                variant="default")
    return idle["ping"]["med"] if idle and idle["ping"]["med"] is not None else None


def added(recs, r, stat):
    """The ping's median or p99 (stat "med" or "p99") minus the idle median, or None."""
    base = idle_med(recs, r)
    v = r["ping"][stat]
    return None if base is None or v is None else v - base


def dp99(recs, r):
    return added(recs, r, "p99")


def sums(r):
    up = r["up"]["sum"] if r.get("up") else None
    dn = r["down"]["sum"] if r.get("down") else None
    return up, dn


def jains(r):
    return [x["jain"] for x in (r.get("up"), r.get("down")) if x and x.get("jain") is not None]


def print_matrix(recs):
    print("Matrix: ping every 50 ms through the tunnel (client -> server), RTT in ms;")
    print("dp99 = p99 under load minus the idle median (same topology, rate, implementation);")
    print("goodput = iperf3 receiver side, Mbit/s; Jain over the flows of each direction;")
    print("drops e/i = cakewg's CAKE drops egress/ingress (client), stalls = times its underlay")
    print("socket was full (backpressure); tunq = drops at the client TUN device (its qdisc and")
    print("the ring the daemon reads), i.e. packets the daemon did not take in time.")
    fmt_row = "%-6s %4s %-8s %-12s %7s %7s %7s %5s %6s %6s %11s %11s %7s %6s"
    print_header(fmt_row, ("topo", "Mbit", "load", "impl", "med", "p99", "dp99", "loss%",
                           "up", "down", "Jain up/dn", "drops e/i", "stalls", "tunq"))
    order = {(t, l): (i, j) for i, t in enumerate(TOPOS) for j, l in enumerate(LOADS)}
    rows = [r for r in recs if r["variant"] == "default"]
    rows.sort(key=lambda r: (r["rate"], order.get((r["topo"], r["load"]), (9, 9)),
                             r["impl"] != "cakewg"))
    for r in rows:
        p = r["ping"]
        up, dn = sums(r)
        ju = r["up"]["jain"] if r.get("up") else None
        jd = r["down"]["jain"] if r.get("down") else None
        c = r.get("cake_client")
        drops = "%d/%d" % (c["egress_drops"], c["ingress_drops"]) if c else "-"
        stalls = str(c["backpressure_stalls"]) if c else "-"
        print(fmt_row % (
            r["topo"], r["rate"], r["load"], IMPL_NAMES[r["impl"]], fmt(p["med"], "%.2f"),
            fmt(p["p99"], "%.2f"), fmt(dp99(recs, r), "%+.1f"),
            fmt(None if p["loss"] is None else 100 * p["loss"], "%.1f"), fmt(up), fmt(dn),
            "%s/%s" % (fmt(ju, "%.2f"), fmt(jd, "%.2f")), drops, stalls,
            fmt(r.get("tunq_drops"), "%d")))
        for side in ("up", "down"):
            x = r.get(side)
            if x and x.get("error"):
                print("       %s: iperf3 error: %s" % (side, x["error"]))
    print()


def verdict(ok):
    return "n/a " if ok is None else ("PASS" if ok else "MISS")


def target_rows(recs, r):
    """(target text, measured text, ok, wireguard-go's value) for one cakewg record."""
    out = []
    go = find(recs, topo=r["topo"], rate=r["rate"], load=r["load"], impl="wggo",
              variant="default")
    d = dp99(recs, r)
    gd = dp99(recs, go) if go else None
    p = r["ping"]
    if r["load"] in ("tcp_nup", "rrul"):
        lim = REMOTE_DP99_MS if r["topo"] == "remote" else LOCAL_DP99_MS
        out.append(("ping p99 - idle median <= %g ms" % lim, fmt(d, "%+.1f ms"),
                    None if d is None else d <= lim, fmt(gd, "%+.1f ms")))
    if r["load"] == "udpflood":
        loss = p["loss"]
        gl = go["ping"]["loss"] if go else None
        out.append(("ping loss < %g%%" % (100 * UDPFLOOD_LOSS_MAX),
                    fmt(None if loss is None else 100 * loss, "%.1f%%"),
                    None if loss is None else loss < UDPFLOOD_LOSS_MAX,
                    fmt(None if gl is None else 100 * gl, "%.1f%%")))
        out.append(("ping p99 - idle median <= %g ms" % UDPFLOOD_DP99_MS, fmt(d, "%+.1f ms"),
                    None if d is None else d <= UDPFLOOD_DP99_MS, fmt(gd, "%+.1f ms")))
    if r["topo"] == "remote" and r["load"] in ("tcp_nup", "rrul") and r["shaped"]:
        need = GOODPUT_OF_SHAPED_MIN * r["shaped"]
        for side in ("up", "down"):
            x = r.get(side)
            if not x:
                continue
            gx = go.get(side) if go else None
            out.append(("goodput %s >= %.1f Mbit/s (90%% of %.1f)" % (side, need, r["shaped"]),
                        fmt(x["sum"], "%.1f"), None if x["sum"] is None else x["sum"] >= need,
                        fmt(gx["sum"] if gx else None, "%.1f")))
    if r["load"] in ("tcp_nup", "rrul", "udpflood"):
        for side in ("up", "down"):
            x = r.get(side)
            if not x:
                continue
            gx = go.get(side) if go else None
            out.append(("Jain %s >= %.2f" % (side, JAIN_MIN), fmt(x.get("jain"), "%.3f"),
                        None if x.get("jain") is None else x["jain"] >= JAIN_MIN,
                        fmt(gx.get("jain") if gx else None, "%.3f")))
    return out


def print_targets(recs):
    print("Targets (cakewg; the last column is wireguard-go in the same run for reference):")
    spec = "%-6s %4s %-8s  %-40s %12s  %-4s %14s"
    print_header(spec, (
        "topo", "Mbit", "load", "target", "cakewg", "", "wireguard-go"))
    npass = nmiss = 0
    rows = [r for r in recs if r["variant"] == "default" and r["impl"] == "cakewg"]
    order = {(t, l): (i, j) for i, t in enumerate(TOPOS) for j, l in enumerate(LOADS)}
    rows.sort(key=lambda r: (r["rate"], order.get((r["topo"], r["load"]), (9, 9))))
    for r in rows:
        for text, meas, ok, gov in target_rows(recs, r):
            npass += ok is True
            nmiss += ok is False
            print(spec % (
                r["topo"], r["rate"], r["load"], text, meas, verdict(ok), gov))
    print("targets met: %d, missed: %d" % (npass, nmiss))
    print()


def ack_model(nbytes, npkts):
    """(data packets, ACKs) among npkts packets of nbytes, as full segments and pure ACKs."""
    if not npkts or not nbytes:
        return None
    data = (nbytes - npkts * ACK_WIRE_BYTES) / float(DATA_WIRE_BYTES - ACK_WIRE_BYTES)
    data = min(max(data, 0.0), float(npkts))
    return data, npkts - data


def print_goodput_ceiling(recs):
    """What rrul's goodput can reach through a shaper that also carries the other
    direction's ACKs: the shaped rate times the share of its bytes that were this
    direction's full segments, times their payload share."""
    spec = "%4s %-4s %7s %13s %10s %8s %8s %7s"
    lines = []
    for r in sorted(recs, key=lambda r: r["rate"]):
        c = r.get("cake_client")
        if (r["variant"] != "default" or r["impl"] != "cakewg" or r["topo"] != "remote"
                or r["load"] != "rrul" or not r.get("shaped") or not c):
            continue
        for side, inst in (("up", "egress"), ("down", "ingress")):
            m = ack_model(c.get(inst + "_bytes", 0), c.get(inst + "_packets", 0))
            x = r.get(side)
            if not m or not m[0] or not x:
                continue
            data, acks = m
            nbytes = float(c[inst + "_bytes"])
            lines.append(spec % (
                r["rate"], side, fmt(r["shaped"]), fmt(acks / data, "%.2f"),
                fmt(100.0 * acks * ACK_WIRE_BYTES / nbytes, "%.1f%%"),
                fmt(r["shaped"] * data * DATA_PAYLOAD_BYTES / nbytes), fmt(x["sum"]),
                fmt(GOODPUT_OF_SHAPED_MIN * r["shaped"])))
    if not lines:
        return
    print("Goodput ceiling under rrul behind the remote bottleneck (cakewg): each shaper also")
    print("carries the other direction's ACKs. Its bytes and packets (the client's egress")
    print("instance for up, its ingress instance for down), split into %d-byte segments with"
          % DATA_WIRE_BYTES)
    print("%d bytes of TCP payload and %d-byte pure ACKs, give the ACK share and the ceiling ="
          % (DATA_PAYLOAD_BYTES, ACK_WIRE_BYTES))
    print("shaped x segment share of the bytes x %d/%d:" % (DATA_PAYLOAD_BYTES, DATA_WIRE_BYTES))
    print_header(spec, ("Mbit", "dir", "shaped", "ACKs/segment", "ACK bytes", "ceiling",
                        "goodput", "target"))
    for line in lines:
        print(line)
    print("(an upper bound: segments shorter than full size, and what the ingress instance")
    print("drops, which its shaper counts too, lower it further)")
    print()


def print_seeds(recs):
    seeds = [r for r in recs if r["variant"] != "default"
             and not r["variant"].startswith("backpressure=")]
    if not seeds:
        return
    print("Side by side (cakewg; the ping is the competing sparse flow; added50/added99 =")
    print("median/p99 minus the idle median; maxlen = the largest packet CAKE has been")
    print("handed since the daemon started, before split-gso cuts it; up/down = goodput,")
    print("Mbit/s; ack drops = the client's egress CAKE's ACK filter):")
    spec = "%-28s %-6s %4s %-8s %7s %7s %8s %8s %7s %7s %9s %7s %9s %6s"
    print_header(spec, (
        "variant", "topo", "Mbit", "load", "med", "p99", "added50", "added99", "up", "down",
        "maxlen B", "drops", "ack drops", "stalls"))
    for r in seeds:
        p = r["ping"]
        a50, a99 = added(recs, r, "med"), added(recs, r, "p99")
        c = r.get("cake_client") or {}
        up, down = sums(r)
        print(spec % (
            r["variant"], r["topo"], r["rate"], r["load"], fmt(p["med"], "%.2f"),
            fmt(p["p99"], "%.2f"), fmt(a50, "%+.2f"), fmt(a99, "%+.2f"), fmt(up), fmt(down),
            c.get("max_pkt_len", "-"), c.get("egress_drops", "-"),
            c.get("egress_ack_drops", "-"), c.get("backpressure_stalls", "-")))
        if r.get("note"):
            print("    note: %s" % r["note"])
        if r["variant"] in ("split-gso", "no-split-gso") and c:
            biggest = c.get("max_pkt_len", 0)
            if biggest <= SUPER_PACKET_MIN_BYTES:
                print("    no GSO super-packet has reached CAKE so far (largest %d B): split-gso"
                      " and no-split-gso cannot differ in this run" % biggest)
            elif r["variant"] == "no-split-gso":
                print("    GSO super-packets reach CAKE (largest so far %d B); here each one is"
                      " a single CAKE unit, cut into segments after dequeue" % biggest)
    print()


def print_backpressure(recs):
    rows = [r for r in recs if r["variant"] == "default" and r["topo"] == "local"
            and r["load"] != "idle"]
    if not rows:
        return
    print("Backpressure (local bottleneck, cakewg Cake = unlimited, client side counters):")
    spec = "%4s %-8s %-12s %8s %8s %10s %11s %9s %8s %10s"
    print_header(spec, (
        "Mbit", "load", "impl", "p99", "dp99", "CAKE drops", "CAKE marks", "stalls",
        "starved", "send errs"))
    rows.sort(key=lambda r: (r["rate"], LOADS.index(r["load"]), r["impl"] != "cakewg"))
    for r in rows:
        c = r.get("cake_client")
        print(spec % (
            r["rate"], r["load"], IMPL_NAMES[r["impl"]], fmt(r["ping"]["p99"], "%.2f"),
            fmt(dp99(recs, r), "%+.1f"), c["egress_drops"] if c else "-",
            c["egress_marks"] if c else "-", c["backpressure_stalls"] if c else "-",
            c["underlay_starved"] if c else "-", c["underlay_send_errors"] if c else "-"))
    print("stalls = times the underlay socket held its byte limit and CAKE waited for it;")
    print("starved = of those, the ones that ended with the socket empty (the link may have")
    print("idled while the daemon was late to refill it: the limit then grows).")
    print()
    seeds = [r for r in recs if r["variant"].startswith("backpressure=")]
    if not seeds:
        print("With vs without backpressure: not run (needs --topology local with the idle load,")
        print("and seeds).")
        print()
        return
    print("With vs without backpressure (cakewg, local bottleneck; underlay_limit=auto is the")
    print("learnt byte limit, off a 7 MiB send buffer as wireguard-go's; below = the client")
    print("veth's tbf backlog median/max in ms, tbf drops = datagrams lost under the socket):")
    spec = "%-20s %4s %-8s %8s %8s %7s %10s %8s %10s %10s"
    print_header(spec, (
        "variant", "Mbit", "load", "p99", "dp99", "up", "CAKE drops", "stalls", "below ms",
        "tbf drops"))
    for r in seeds:
        c = r.get("cake_client") or {}
        up, _ = sums(r)
        xs = (r.get("queues") or {}).get("client veth")
        to_ms = 8.0 / (r["rate"] * 1e6) * 1e3
        below = "%.0f/%.0f" % (statistics.median(xs) * to_ms, max(xs) * to_ms) if xs else "-"
        print(spec % (
            r["variant"], r["rate"], r["load"], fmt(r["ping"]["p99"], "%.2f"),
            fmt(dp99(recs, r), "%+.1f"), fmt(up), c.get("egress_drops", "-"),
            c.get("backpressure_stalls", "-"), below, fmt(r.get("tbf_drops"), "%d")))
    print()


def print_queues(recs):
    rows = [r for r in recs if r["variant"] == "default" and r["load"] != "idle"
            and r.get("queues")]
    if not rows:
        return
    print("Where the queues stood (sampled every 0.5 s while the load ran): median/max of each")
    print("place, in ms of the bottleneck rate (bytes x 8 / rate). UDP send/recv = the socket")
    print("memory in use (truesize, so more than the payload); a sent datagram stays charged")
    print("to its socket while it waits in the qdiscs below, so 'UDP send' overlaps the veth/tbf")
    print("backlogs and is not added into the sum. Places under 1 ms left out.")
    order = {(t, l): (i, j) for i, t in enumerate(TOPOS) for j, l in enumerate(LOADS)}
    rows.sort(key=lambda r: (r["rate"], order.get((r["topo"], r["load"]), (9, 9)),
                             r["impl"] != "cakewg"))
    for r in rows:
        parts = []
        total = 0.0
        for place in sorted(r["queues"]):
            xs = r["queues"][place]
            to_ms = 8.0 / (r["rate"] * 1e6) * 1e3
            m, mx = statistics.median(xs) * to_ms, max(xs) * to_ms
            if not place.endswith("UDP send"):
                total += m
            if mx >= 1.0:
                parts.append("%s %.0f/%.0f" % (place, m, mx))
        base = idle_med(recs, r)
        rest = None
        if base is not None and r["ping"]["med"] is not None:
            rest = r["ping"]["med"] - base - total
        print("%-6s %4d %-8s %-12s %s" % (r["topo"], r["rate"], r["load"], IMPL_NAMES[r["impl"]],
                                         "; ".join(parts) if parts else "(none >= 1 ms)"))
        sc = r.get("sched")
        cpu = ("; daemons on a CPU %.2f s, waiting for one %.2f s" % (sc["run_s"], sc["wait_s"])
               if sc else "")
        c = r.get("cake_client") or {}
        late = ("; client shaper late %d times, %.1f ms forgiven" % (
            c["shaper_late"], c["shaper_late_ns"] / 1e6) if c.get("shaper_late") else "")
        print("%33s rest = ping median - idle median - sum of the medians: %s ms%s%s" % (
            "", fmt(rest, "%.0f"), cpu, late))
    print("(rest: delay that no sampled kernel queue shows: inside the daemons - CAKE, Go")
    print("channels, the TUN ring - or waiting for a CPU. The daemons' CPU and run-queue")
    print("times are summed over both ends and all threads, for the whole run incl. warm-up.")
    print("Shaper late: how often cakewg's egress shaper found its schedule over 2 ms behind")
    print("the clock, and the time it did not repay in a burst.)")
    print()


def cmd_lat_report(argv):
    recs = read_jsonl(argv[0])
    if not recs:
        print("no runs recorded")
        return 1
    print_matrix(recs)
    print_targets(recs)
    print_goodput_ceiling(recs)
    print_queues(recs)
    print_seeds(recs)
    print_backpressure(recs)
    return 0


# ---------------------------------------------------------------- SVG
COLORS = {"cakewg": "#1f6fb4", "wggo": "#d0432b"}


def cmd_svg(argv):
    path, out, topo, rate, load = argv[0], argv[1], argv[2], int(argv[3]), argv[4]
    recs = read_jsonl(path)
    runs = []
    for impl in ("cakewg", "wggo"):
        r = find(recs, topo=topo, rate=rate, load=load, impl=impl, variant="default")
        if r and r["ping"]["series"]:
            p = r["ping"]
            runs.append({"label": IMPL_NAMES[impl], "color": COLORS[impl],
                         "points": [(t, v) for t, v in p["series"]],
                         "note": "median %.1f ms, p99 %.1f ms, loss %.1f%%" % (
                             p["med"], p["p99"], 100 * (p["loss"] or 0))})
    if not runs:
        sys.stderr.write("svg: no %s/%d/%s runs with ping samples\n" % (topo, rate, load))
        return 1
    rttplot.write_svg(out, "Ping RTT through the tunnel under %s, %s bottleneck %d Mbit/s "
                      "(bloated tbf)" % (load, topo, rate), runs)
    return 0


# ---------------------------------------------------------------- throughput
def cmd_tput_record(argv):
    """tput-record FILE impl= dir= round= json= ticks= hz="""
    path, a = argv[0], kv_args(argv[1:])
    rec = {"impl": a["impl"], "dir": a["dir"], "round": int(a["round"]),
           "streams": int(a.get("streams", 1)),
           "cpu_s": int(a["ticks"]) / float(a["hz"]), "loadavg": a.get("loadavg", "")}
    try:
        r = json.load(open(a["json"]))
        e = r["end"]
        s = e.get("sum_received") or e.get("sum")
        rec["bytes"] = s["bytes"]
        rec["seconds"] = s["seconds"]
        rec["mbit"] = s["bits_per_second"] / 1e6
        rec["retransmits"] = e.get("sum_sent", {}).get("retransmits", 0)
        rec["cc"] = e.get("sender_tcp_congestion")
        rec["error"] = r.get("error")
    except (OSError, ValueError, KeyError) as ex:
        rec.update(bytes=0, seconds=0, mbit=None, retransmits=None, cc=None,
                   error="iperf3 gave no result (%s)" % ex.__class__.__name__)
    rec["cpu_per_gb"] = rec["cpu_s"] / (rec["bytes"] / 1e9) if rec["bytes"] else None
    rec["sched"] = sched_delta(a.get("sched0"), a.get("sched1"))
    append_jsonl(path, rec)
    print("  %-12s %-4s x%d round %d: %s Mbit/s, %.2f CPU-s (both daemons, %s cores busy, "
          "%s s waiting for a CPU), %s CPU-s/GB%s" % (
              IMPL_NAMES[rec["impl"]], rec["dir"], rec["streams"], rec["round"], fmt(rec["mbit"]),
              rec["cpu_s"],
              fmt(rec["cpu_s"] / rec["seconds"] if rec["seconds"] else None, "%.2f"),
              fmt(rec["sched"]["wait_s"] if rec["sched"] else None, "%.2f"),
              fmt(rec["cpu_per_gb"], "%.2f"),
              "" if not rec["error"] else "  ERROR " + rec["error"]))
    return 0


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    return a / b if a is not None and b else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


# The throughput issue's targets (cakewg against upstream wireguard-go).
TPUT_RATIO_TARGET = 1.5
TPUT_CPU_PER_GBIT_TARGET = 0.55


def cmd_tput_report(argv):
    recs = read_jsonl(argv[0])
    for r in recs:
        r.setdefault("streams", 1)
    print("%-5s %3s %5s  %-12s %10s %8s %10s %8s %5s" % (
        "dir", "-P", "round", "impl", "Mbit/s", "CPU-s", "CPU-s/GB", "retrans", "cc"))
    for r in sorted(recs, key=lambda r: (r["dir"] != "up", r["streams"], r["round"], r["impl"])):
        print("%-5s %3d %5d  %-12s %10s %8.2f %10s %8s %5s%s" % (
            r["dir"], r["streams"], r["round"], IMPL_NAMES[r["impl"]], fmt(r["mbit"]),
            r["cpu_s"], fmt(r["cpu_per_gb"], "%.2f"), fmt(r["retransmits"], "%d"),
            r["cc"] or "-", "  ERROR " + r["error"] if r.get("error") else ""))
    print()
    print("Medians over the rounds; ratio = cakewg / wireguard-go (goodput: higher is better;")
    print("CPU-s/GB: lower is better). 'paired' = median of the per-round ratios, each from")
    print("two runs next to each other in time. CPU-s/Gbit = CPU-s/GB / 8 (DESIGN.md's unit).")
    spec = "%-5s %3s %12s %12s %7s %7s | %14s %14s %7s %7s"
    print_header(spec, (
        "dir", "-P", "cakewg Mb/s", "wg-go Mb/s", "ratio", "paired", "cakewg CPUs/GB",
        "wg-go CPUs/GB", "ratio", "paired"))
    per_gbit, paired_all, cpu_cases = [], [], []
    for d in ("up", "down"):
        for n in sorted({r["streams"] for r in recs}):
            rs = [r for r in recs if r["dir"] == d and r["streams"] == n]
            if not rs:
                continue
            by = {i: [r for r in rs if r["impl"] == i] for i in ("cakewg", "wggo")}
            gk, gg = med([r["mbit"] for r in by["cakewg"]]), med([r["mbit"] for r in by["wggo"]])
            ck = med([r["cpu_per_gb"] for r in by["cakewg"]])
            cg = med([r["cpu_per_gb"] for r in by["wggo"]])
            pr_g, pr_c = [], []
            for rnd in sorted({r["round"] for r in rs}):
                k = find(by["cakewg"], round=rnd)
                g = find(by["wggo"], round=rnd)
                if k and g:
                    pr_g.append(ratio(k["mbit"], g["mbit"]))
                    pr_c.append(ratio(k["cpu_per_gb"], g["cpu_per_gb"]))
            paired_all.append(med(pr_g))
            print(spec % (
                d, n, fmt(gk), fmt(gg), fmt(ratio(gk, gg), "%.2f"), fmt(med(pr_g), "%.2f"),
                fmt(ck, "%.2f"), fmt(cg, "%.2f"), fmt(ratio(ck, cg), "%.2f"),
                fmt(med(pr_c), "%.2f")))
            per_gbit.append("%s -P %d: cakewg %s, wireguard-go %s CPU-s/Gbit" % (
                d, n, fmt(ck / 8 if ck else None, "%.2f"), fmt(cg / 8 if cg else None, "%.2f")))
            cpu_cases.append(ck / 8 if ck else None)
    for line in per_gbit:
        print(line)
    gm = geomean(paired_all)
    print("geometric mean of the paired throughput ratios over the %d cases: %s (target >= %.1f "
          "against upstream wireguard-go: %s)" % (
              len(paired_all), fmt(gm, "%.2f"), TPUT_RATIO_TARGET,
              "met" if gm and gm >= TPUT_RATIO_TARGET else "missed"))
    worst = max((c for c in cpu_cases if c is not None), default=None)
    print("cakewg's highest CPU-s per Gbit (both daemons): %s (target <= %.2f: %s)" % (
        fmt(worst, "%.2f"), TPUT_CPU_PER_GBIT_TARGET,
        "met" if worst is not None and worst <= TPUT_CPU_PER_GBIT_TARGET else "missed"))
    return 0


COMMANDS = {
    "uapi": cmd_uapi,
    "offloads": cmd_offloads,
    "snap": cmd_snap,
    "lat-record": cmd_lat_record,
    "lat-report": cmd_lat_report,
    "svg": cmd_svg,
    "tput-record": cmd_tput_record,
    "tput-report": cmd_tput_report,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
