#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Counts the IP packets on one interface, for the namespace end-to-end tests.

    capture.py IFACE [--udp-port PORT | --tcp | --proto N] [--direction out|in|any]
               [--limit BYTES] [--seconds S] [--ready FILE]

Opens an AF_PACKET socket on IFACE (Ethernet or a TUN device without link header),
reads only the headers of every packet (MSG_TRUNC) and, on SIGTERM/SIGINT or after S
seconds, prints one JSON object:

  packets      packets that matched the filter
  max_len      the largest IP packet on the wire (a GSO packet counts as its largest
               segment: IP + transport header + gso_size, from the PACKET_VNET_HDR)
  over         packets whose wire length exceeds --limit
  frags        IPv4/IPv6 fragments (an oversized datagram the kernel had to cut)
  gso          GSO packets seen (the tap sees them before any segmentation)
  ecn          [Not-ECT, ECT(1), ECT(0), CE] counts of the IP header's ECN field
  ecn_segs     the same, a GSO packet counted as the segments it carries (a receiver
               that coalesces CE segments (GRO) writes fewer, larger CE packets)
  dscp         {DSCP value: count}
  kernel_drops packets the socket lost (PACKET_STATISTICS); then counts are a sample

--ready FILE is created once the socket is bound, so a caller can wait for it.
Python 3 standard library only; run it as root inside the namespace.
"""
import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
ETH_P_8021Q = 0x8100
ARPHRD_ETHER = 1
ETH_HLEN = 14
SOL_PACKET = 263
PACKET_STATISTICS = 6
PACKET_VNET_HDR = 15
PACKET_OUTGOING = 4
VNET_HDR_LEN = 10
VNET_GSO_NONE = 0
HEAD_BYTES = 256
IPPROTO_TCP = 6
IPPROTO_UDP = 17
IPV6_FRAGMENT = 44
IPV4_MF = 0x2000
IPV4_OFFSET_MASK = 0x1FFF
UDP_HDR_LEN = 8
RCVBUF_BYTES = 32 << 20


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("iface")
    ap.add_argument("--udp-port", type=int, help="only UDP with this source or destination port")
    ap.add_argument("--tcp", action="store_true", help="only TCP")
    ap.add_argument("--proto", type=int, help="only this IP protocol (1: ICMP, 58: ICMPv6)")
    ap.add_argument("--direction", choices=("out", "in", "any"), default="any")
    ap.add_argument("--limit", type=int, default=0, help="count packets longer than this")
    ap.add_argument("--seconds", type=float, default=60.0, help="stop after this long")
    ap.add_argument("--ready", help="create this file once capturing")
    return ap.parse_args()


class Counts:
    def __init__(self, limit):
        self.limit = limit
        self.packets = 0
        self.max_len = 0
        self.over = 0
        self.frags = 0
        self.gso = 0
        self.ecn = [0, 0, 0, 0]
        self.ecn_segs = [0, 0, 0, 0]
        self.dscp = {}

    def add(self, wire_len, tos, frag, gso, segs):
        self.packets += 1
        self.max_len = max(self.max_len, wire_len)
        if self.limit and wire_len > self.limit:
            self.over += 1
        self.frags += frag
        self.gso += gso
        self.ecn[tos & 3] += 1
        self.ecn_segs[tos & 3] += segs
        self.dscp[tos >> 2] = self.dscp.get(tos >> 2, 0) + 1

    def report(self, drops):
        return {
            "packets": self.packets, "max_len": self.max_len, "over": self.over,
            "frags": self.frags, "gso": self.gso, "ecn": self.ecn, "ecn_segs": self.ecn_segs,
            "dscp": {str(k): v for k, v in sorted(self.dscp.items())},
            "kernel_drops": drops,
        }


def ip_header(pkt):
    """(version, tos, ip_hdr_len, total_len, proto, is_fragment) or None."""
    if len(pkt) < 1:
        return None
    ver = pkt[0] >> 4
    if ver == 4 and len(pkt) >= 20:
        ihl = (pkt[0] & 0xF) * 4
        tot, frag = struct.unpack_from("!H2xH", pkt, 2)
        is_frag = bool(frag & (IPV4_MF | IPV4_OFFSET_MASK))
        return 4, pkt[1], ihl, tot, pkt[9], is_frag
    if ver == 6 and len(pkt) >= 40:
        tos = (struct.unpack_from("!H", pkt, 0)[0] >> 4) & 0xFF
        plen = struct.unpack_from("!H", pkt, 4)[0]
        nxt = pkt[6]
        return 6, tos, 40, 40 + plen, nxt, nxt == IPV6_FRAGMENT
    return None


def l4_len(pkt, off, proto):
    if proto == IPPROTO_UDP:
        return UDP_HDR_LEN
    if proto == IPPROTO_TCP and len(pkt) >= off + 13:
        return (pkt[off + 12] >> 4) * 4
    return 0


def ports(pkt, off):
    if len(pkt) < off + 4:
        return None, None
    return struct.unpack_from("!HH", pkt, off)


def handle(c, args, view, n, hatype):
    vnet = view[:VNET_HDR_LEN]
    gso_type, gso_size = vnet[1], struct.unpack_from("<H", vnet, 4)[0]
    pkt = view[VNET_HDR_LEN:n]
    if hatype == ARPHRD_ETHER:
        if len(pkt) < ETH_HLEN:
            return
        etype = struct.unpack_from("!H", pkt, 12)[0]
        off = ETH_HLEN
        if etype == ETH_P_8021Q and len(pkt) >= ETH_HLEN + 4:
            etype = struct.unpack_from("!H", pkt, 16)[0]
            off += 4
        if etype not in (ETH_P_IP, ETH_P_IPV6):
            return
        pkt = pkt[off:]
    hdr = ip_header(pkt)
    if not hdr:
        return
    _, tos, ihl, tot, proto, is_frag = hdr
    if args.tcp and proto != IPPROTO_TCP or args.proto is not None and proto != args.proto:
        return
    if args.udp_port is not None:
        # A later fragment has no ports: every UDP fragment counts (the underlay of a
        # test carries nothing else), so that oversized datagrams cannot hide.
        if proto != IPPROTO_UDP and not is_frag:
            return
        if not is_frag and args.udp_port not in ports(pkt, ihl):
            return
    wire, segs = tot, 1
    gso = gso_type != VNET_GSO_NONE and gso_size > 0
    if gso:
        hdrs = ihl + l4_len(pkt, ihl, proto)
        wire = min(tot, hdrs + gso_size)
        segs = max(1, -(-(tot - hdrs) // gso_size))
    c.add(wire, tos, int(is_frag), int(gso), segs)


def main():
    args = parse_args()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, RCVBUF_BYTES)  # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF_BYTES)
    s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    s.bind((args.iface, ETH_P_ALL))
    s.setblocking(False)
    if args.ready:
        with open(args.ready, "w"):
            pass
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    c = Counts(args.limit)
    buf = bytearray(HEAD_BYTES)
    view = memoryview(buf)
    end = time.monotonic() + args.seconds
    drops = 0
    while not stop and time.monotonic() < end:
        try:
            select.select([s], [], [], 0.2)
        except InterruptedError:
            continue
        while True:
            try:
                n, addr = s.recvfrom_into(buf, HEAD_BYTES, socket.MSG_TRUNC)
            except (BlockingIOError, InterruptedError):
                break
            pkttype, hatype = addr[2], addr[3]
            out = pkttype == PACKET_OUTGOING
            if args.direction == "out" and not out or args.direction == "in" and out:
                continue
            handle(c, args, view, min(n, HEAD_BYTES), hatype)
    # struct tpacket_stats { unsigned int tp_packets, tp_drops; }
    _, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    json.dump(c.report(drops), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
