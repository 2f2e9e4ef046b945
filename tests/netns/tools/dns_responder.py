#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A tiny DNS responder for the namespace tests: UDP only, one question per query.

Usage: dns_responder.py ADDR PORT ZONEFILE

ZONEFILE is read again for every query, so a test moves a name by rewriting it (write a
new file and rename it over the old one). Each line is "NAME A|AAAA ADDRESS"; a name with
records of the other type only gets an empty answer (NODATA), any other name NXDOMAIN.
Nothing is cached (TTL 0). Ready once it prints "ready".
"""
import ipaddress
import socket
import struct
import sys

TYPES = {"A": 1, "AAAA": 28}


def records(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[1] in TYPES:
                    out.append((parts[0].lower().rstrip("."), TYPES[parts[1]], parts[2]))
    except FileNotFoundError:
        pass
    return out


def question(msg):
    """(name, qtype, end offset of the question) or None."""
    pos, labels = 12, []
    while pos < len(msg):
        n = msg[pos]
        if n == 0:
            pos += 1
            break
        if n & 0xC0:
            return None
        labels.append(msg[pos + 1:pos + 1 + n].decode("ascii", "replace"))
        pos += 1 + n
    if pos + 4 > len(msg):
        return None
    qtype, _ = struct.unpack("!HH", msg[pos:pos + 4])
    return ".".join(labels).lower(), qtype, pos + 4


def answer(msg, zone):
    if len(msg) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    q = question(msg) if qd == 1 else None
    if q is None:
        return struct.pack("!HHHHHH", qid, 0x8181, 0, 0, 0, 0)  # FORMERR
    name, qtype, end = q
    rr = [r for r in zone if r[0] == name]
    hits = [r for r in rr if r[1] == qtype]
    rcode = 0 if rr else 3  # NXDOMAIN when the name has no record at all
    rd = flags & 0x0100
    head = struct.pack("!HHHHHH", qid, 0x8400 | rd | 0x0080 | rcode, 1, len(hits), 0, 0)
    body = b""
    for _, t, addr in hits:
        data = ipaddress.ip_address(addr).packed
        body += struct.pack("!HHHIH", 0xC00C, t, 1, 0, len(data)) + data
    return head + msg[12:end] + body


def main():
    addr, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, port))
    print("ready", flush=True)
    while True:
        msg, peer = s.recvfrom(4096)
        reply = answer(msg, records(path))
        if reply:
            s.sendto(reply, peer)


if __name__ == "__main__":
    main()
