#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Sends handshake initiations with a valid mac1 (and no mac2) to a WireGuard responder
and counts the cookie replies that come back to them.

The first initiations put the responder under load (it then answers every one with a
cookie reply instead of a handshake); their contents are random, so none completes.

Usage: initiation_flood.py RESPONDER_PUBKEY_FILE ADDR PORT COUNT LISTEN_SECONDS
Prints: "<sent> <cookie replies received>".
"""
import base64
import hashlib
import os
import socket
import struct
import sys
import time

MESSAGE_HANDSHAKE_INITIATION = 1
MESSAGE_HANDSHAKE_COOKIE = 3
INITIATION_BODY_LEN = 116  # what mac1 covers: header, index, ephemeral, static, time
COOKIE_REPLY_LEN = 64
MAC_LEN = 16
LABEL_MAC1 = b"mac1----"


def main():
    pub_file, addr, port, count, listen = sys.argv[1:6]
    pub = base64.b64decode(open(pub_file).read().strip())
    mac1_key = hashlib.blake2s(LABEL_MAC1 + pub).digest()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.connect((addr, int(port)))
    sent = 0
    for i in range(int(count)):
        body = struct.pack("<II", MESSAGE_HANDSHAKE_INITIATION, i + 1)
        body += os.urandom(INITIATION_BODY_LEN - len(body))
        mac1 = hashlib.blake2s(body, key=mac1_key, digest_size=MAC_LEN).digest()
        s.send(body + mac1 + bytes(MAC_LEN))
        sent += 1
    got = set()
    end = time.monotonic() + float(listen)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            msg = s.recv(2048)
        except socket.timeout:
            break
        if len(msg) == COOKIE_REPLY_LEN and msg[0] == MESSAGE_HANDSHAKE_COOKIE:
            got.add(struct.unpack_from("<I", msg, 4)[0])  # our sender index
    print(sent, len(got))


if __name__ == "__main__":
    main()
