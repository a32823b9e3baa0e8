#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Makes an OpenPGP certificate (Ed25519, v4) whose 32-bit key id is the one
given, by searching the key's creation time: rpm names an imported key
gpg-pubkey-SHORTID-CREATED, so the test beds import this certificate with
the real `rpmkeys --import` and the database holds gpg-pubkey-1a693c5c-*, the
name AMD's key (fingerprint ...9386B48A1A693C5C) has there. It is not AMD's
key: only its short id, the part rpm's name keeps, is the same. The secret
half is thrown away.

Usage: make-short-id-key.py SHORTID USERID OUT.asc
Needs python3-cryptography and a C compiler (the search is in C)."""
import base64
import hashlib
import os
import struct
import subprocess
import sys
import tempfile
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519_OID = bytes.fromhex("2b06010401da470f01")

SEARCH_C = r"""
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* argv: hex of the hashed key prefix (0x99, length, body) with the time at
   bytes 4..7, the short id, first and last time; prints a time that fits */
int main(int argc, char **argv) {
    unsigned char buf[256]; size_t n = strlen(argv[1]) / 2;
    for (size_t i = 0; i < n; i++) sscanf(argv[1] + 2 * i, "%2hhx", &buf[i]);
    unsigned long want = strtoul(argv[2], NULL, 16);
    unsigned long lo = strtoul(argv[3], NULL, 10), hi = strtoul(argv[4], NULL, 10);
    unsigned char md[20];
    SHA_CTX c;
    for (unsigned long t = hi; t >= lo; t--) {
        buf[4] = t >> 24; buf[5] = t >> 16; buf[6] = t >> 8; buf[7] = t;
        SHA1_Init(&c);
        SHA1_Update(&c, buf, n);
        SHA1_Final(md, &c);
        if (((unsigned long)md[16] << 24 | md[17] << 16 | md[18] << 8 | md[19]) == want) {
            printf("%lu\n", t); return 0;
        }
    }
    return 1;
}
"""


def mpi(b):
    b = b.lstrip(b"\0")
    return struct.pack(">H", len(b) * 8 - (8 - b[0].bit_length())) + b


def packet(tag, body):
    assert len(body) < 192
    return bytes([0xC0 | tag, len(body)]) + body


def key_body(created, pub):
    return b"\x04" + struct.pack(">I", created) + b"\x16" + bytes([len(ED25519_OID)]) + ED25519_OID + mpi(b"\x40" + pub)


def crc24(data):
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def armor(data):
    b = base64.b64encode(data).decode()
    lines = [b[i:i + 64] for i in range(0, len(b), 64)]
    return ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(lines) + "\n="
            + base64.b64encode(struct.pack(">I", crc24(data))[1:]).decode() + "\n-----END PGP PUBLIC KEY BLOCK-----\n")


def main():
    want, uid, out = sys.argv[1].lower(), sys.argv[2].encode(), sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "search.c"), os.path.join(tmp, "search")
        with open(src, "w") as f:
            f.write(SEARCH_C)
        subprocess.run(["cc", "-O2", "-Wno-deprecated-declarations", "-o", exe, src, "-lcrypto"], check=True)
        hi, lo = int(time.time()) - 86400, 1000000000
        while True:
            sk = Ed25519PrivateKey.generate()
            pub = sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
            body = key_body(0, pub)
            prefix = b"\x99" + struct.pack(">H", len(body)) + body
            p = subprocess.run([exe, prefix.hex(), want, str(lo), str(hi)], capture_output=True, text=True)
            if p.returncode == 0:
                created = int(p.stdout)
                break
    body = key_body(created, pub)
    fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(body)) + body).digest()
    assert fpr[-4:].hex() == want
    hashed = (bytes([5, 2]) + struct.pack(">I", created) + bytes([2, 27, 0x03])
              + bytes([22, 33, 4]) + fpr)
    head = bytes([4, 0x13, 22, 8]) + struct.pack(">H", len(hashed)) + hashed
    unhashed = bytes([9, 16]) + fpr[-8:]
    data = (b"\x99" + struct.pack(">H", len(body)) + body + b"\xb4" + struct.pack(">I", len(uid)) + uid
            + head + b"\x04\xff" + struct.pack(">I", len(head)))
    digest = hashlib.sha256(data).digest()
    sig = sk.sign(digest)
    sigbody = head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2] + mpi(sig[:32]) + mpi(sig[32:])
    cert = packet(6, body) + packet(13, uid) + packet(2, sigbody)
    with open(out + ".tmp", "w") as f:
        f.write(armor(cert))
    os.replace(out + ".tmp", out)
    print("%s created %d (%08x)" % (fpr.hex().upper(), created, created))


if __name__ == "__main__":
    main()
