# SPDX-License-Identifier: GPL-2.0-only
"""Cost centres of the two cakewg daemons from `perf report --sort pid,dso,sym` output.

profile.py DIR PIDS REPORT IPERF_JSON TICKS HZ: PIDS is "PID,PID" (the two daemons), TICKS
their utime+stime over the iperf3 run in clock ticks of HZ. Prints each cost centre's share
of the daemons' samples and its CPU-seconds per Gbit of goodput, then the hottest symbols.
"""
import json
import re
import sys

LINE = re.compile(r"^\s*([\d.]+)%\s+(-?\d+):(\S.*?)\s{2,}(\S+)\s+\[([.k])\]\s+(.*?)\s*$")

# (name, user or kernel, test on (dso, sym)), first match wins.
CENTRES = [
    ("crypto: ChaCha20-Poly1305", "u",
     lambda d, s: "sodium" in d or "crypto" in d or re.search(r"chacha|poly1305|salsa", s)),
    ("CAKE (enqueue, dequeue, COBALT, hashing)", "u",
     lambda d, s: re.match(r"(cake|cobalt)_", s) and not re.search(r"gso|gro|csum", s)),
    ("GSO / GRO / offload", "u", lambda d, s: re.search(r"gso|gro|offload|vnet", s)),
    ("checksums", "u", lambda d, s: "csum" in s or "checksum" in s),
    ("copies (memcpy/memmove)", "u", lambda d, s: re.search(r"mem(cpy|move)", s)),
    ("cakewg, the rest", "u", lambda d, s: "cakewg" in d),
    ("libc / libev, the rest", "u", lambda d, s: True),
    ("kernel: TUN read/write", "k", lambda d, s: re.match(r"tun_|__tun", s)),
    ("kernel: copies to/from user", "k",
     lambda d, s: re.search(r"copy_(to|from)_user|copy_user|_copy_to_iter|_copy_from_iter|"
                            r"copyout|copyin|rep_movs|memcpy|memmove|copy_page", s)),
    ("kernel: checksums", "k", lambda d, s: "csum" in s),
    ("kernel: UDP / IP / veth / skb", "k",
     lambda d, s: re.search(r"udp|^ip_|^ip6_|^__ip|inet|ipv6|veth|netif|napi|^dev_|__dev_|"
                            r"skb|sock|gro|gso|net_rx|nf_|fib|neigh|__netif|tcp", s)),
    ("kernel: syscall entry/exit", "k",
     lambda d, s: re.search(r"entry_SYSCALL|syscall|__x64_sys|__sys_|do_syscall|"
                            r"exit_to_user|syscall_exit", s)),
    ("kernel: scheduling / wake-ups / epoll", "k",
     lambda d, s: re.search(r"sched|wake|futex|ep_|epoll|switch|idle|hrtimer|timer|"
                            r"finish_task|__schedule|native_write_msr|pv_", s)),
    ("kernel: memory (slab, pages)", "k",
     lambda d, s: re.search(r"slab|kmalloc|kfree|kmem|page|alloc|free|memcg|rmqueue", s)),
    ("kernel: the rest", "k", lambda d, s: True),
]


def main():
    direction, pids, report, iperf, ticks, hz = sys.argv[1:7]
    pids = set(int(p) for p in pids.split(","))
    cpu_s = int(ticks) / int(hz)
    end = json.load(open(iperf))["end"]
    gbit = end["sum_received"]["bytes"] * 8 / 1e9
    totals = {name: 0.0 for name, _, _ in CENTRES}
    syms = {}
    daemon = 0.0
    for line in open(report):
        m = LINE.match(line)
        if not m:
            continue
        pct, pid, _comm, dso, space, sym = m.groups()
        if int(pid) not in pids:
            continue
        pct = float(pct)
        daemon += pct
        for name, where, test in CENTRES:
            if (where == "k") == (space == "k") and test(dso, sym):
                totals[name] += pct
                break
        if sym.startswith("0x"):  # no symbol table (libsodium's internals): name the library
            key = "%s (unresolved symbols)" % dso
        else:
            key = ("[k] " if space == "k" else "") + sym + ("" if space == "k" else "  (%s)" % dso)
        syms[key] = syms.get(key, 0.0) + pct
    if daemon <= 0:
        sys.exit("profile.py: no samples of the daemons %s in %s" % (sorted(pids), report))
    per_gbit = cpu_s / gbit if gbit else float("nan")
    print("-- %s: %.2f Gbit/s goodput, daemons %.2f CPU-s = %.3f CPU-s per Gbit (both ends)"
          % (direction, gbit / float(end["sum_received"]["seconds"]), cpu_s, per_gbit))
    print("%-44s %7s %12s" % ("cost centre", "share", "CPU-s/Gbit"))
    for where in ("u", "k"):
        sub = 0.0
        for name, w, _ in CENTRES:
            if w != where:
                continue
            share = totals[name] / daemon
            sub += share
            print("%-44s %6.1f%% %12.3f" % (name, 100 * share, share * per_gbit))
        print("%-44s %6.1f%% %12.3f" % ("  = user space" if where == "u" else "  = kernel",
                                         100 * sub, sub * per_gbit))
    print("hottest symbols of the daemons (share of their samples):")
    for key, pct in sorted(syms.items(), key=lambda kv: -kv[1])[:25]:
        print("  %5.1f%%  %s" % (100 * pct / daemon, key))


main()
