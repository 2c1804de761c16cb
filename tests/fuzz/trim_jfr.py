#!/usr/bin/env python3
"""Trims a JDK Flight Recorder file to a small seed for fuzz_jfr_reader:
the first chunk only, its metadata cut to the classes the kept events and
pools need (annotations and settings dropped), its pools to those classes,
and at most KEEP events of each type fgprof reads.
Usage: trim_jfr.py IN.jfr OUT.jfr [KEEP]"""
import struct
import sys

EVENTS = ("jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.JavaMonitorEnter", "jdk.ThreadPark",
          "fgagent.KernelEvent")


def varint(b, pos):
    v = 0
    for i in range(9):
        c = b[pos]
        pos += 1
        if i == 8:
            return v | c << 56, pos
        v |= (c & 0x7F) << (7 * i)
        if not c & 0x80:
            return v, pos
    return v, pos


def enc(v):
    out = bytearray()
    for i in range(8):
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v & 0xFF)
    return bytes(out)


def record(type_id, body):
    # size covers itself: try growing widths until it fits
    t = enc(type_id)
    for w in range(1, 6):
        size = w + len(t) + len(body)
        s = enc(size)
        if len(s) == w:
            return s + t + body
        if len(s) < w:  # pad a varint to width w
            s = bytes(c | 0x80 for c in s[:-1]) + bytes([s[-1] | 0x80]) + b"\x80" * (w - len(s) - 1) + b"\x00"
            return s + t + body
    raise ValueError


def rd_string(b, pos):
    e = b[pos]
    pos += 1
    if e in (0, 1):
        return ("" if e == 1 else None), pos
    if e == 2:
        _, pos = varint(b, pos)
        return None, pos
    n, pos = varint(b, pos)
    if e == 3:
        return b[pos:pos + n].decode("utf-8", "replace"), pos + n
    if e == 5:
        return b[pos:pos + n].decode("latin-1"), pos + n
    s = []
    for _ in range(n):
        u, pos = varint(b, pos)
        s.append(chr(u & 0xFFFF) if not 0xD800 <= (u & 0xFFFF) < 0xE000 else "?")
    return "".join(s), pos


def wr_string(s):
    if s is None:
        return b"\x00"
    d = s.encode("utf-8", "replace")
    return b"\x03" + enc(len(d)) + d


class Elem:
    def __init__(self, name, attrs, children):
        self.name, self.attrs, self.children = name, attrs, children


def rd_elem(b, pos, strings):
    n, pos = varint(b, pos)
    na, pos = varint(b, pos)
    attrs = []
    for _ in range(na):
        k, pos = varint(b, pos)
        v, pos = varint(b, pos)
        attrs.append((strings[k], strings[v]))
    nc, pos = varint(b, pos)
    children = []
    for _ in range(nc):
        e, pos = rd_elem(b, pos, strings)
        children.append(e)
    return Elem(strings[n], attrs, children), pos


def wr_elem(e, index):
    out = bytearray(enc(index(e.name)) + enc(len(e.attrs)))
    for k, v in e.attrs:
        out += enc(index(k)) + enc(index(v))
    out += enc(len(e.children))
    for c in e.children:
        out += wr_elem(c, index)
    return bytes(out)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    keep = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    b = open(src, "rb").read()
    size, meta = struct.unpack(">Q", b[8:16])[0], struct.unpack(">Q", b[24:32])[0]
    b = b[:size]
    # metadata
    msize, p = varint(b, meta)
    _, p = varint(b, p)
    head = []
    for _ in range(3):
        v, p = varint(b, p)
        head.append(v)
    ns, p = varint(b, p)
    strings = []
    for _ in range(ns):
        s, p = rd_string(b, p)
        strings.append(s)
    root, _ = rd_elem(b, p, strings)
    classes = {}
    for e in root.children:
        if e.name == "metadata":
            for c in e.children:
                if c.name == "class":
                    classes[int(dict(c.attrs)["id"])] = c
    by_name = {dict(c.attrs)["name"]: i for i, c in classes.items()}
    events = {by_name[n] for n in EVENTS if n in by_name}
    # events and pools
    evs, cps = [], []
    counts = {}
    at = 68
    while at < size:
        es, q = varint(b, at)
        t, q = varint(b, q)
        if t == 1:
            cps.append((at, es))
        elif t in events and counts.get(t, 0) < keep:
            counts[t] = counts.get(t, 0) + 1
            evs.append(b[at:at + es])
        at += es
    need = set(events)
    pools = []  # (type, raw entries bytes, count)
    for at, es in cps:
        q = varint(b, varint(b, at)[1])[1]
        for _ in range(3):
            _, q = varint(b, q)
        q += 1
        npools, q = varint(b, q)
        # entries cannot be delimited without the class layouts: keep whole pools of each type
        pools.append((at, es))
    # keep every class a kept event or a pool of a needed class refers to, by closure
    def close():
        todo = list(need)
        while todo:
            c = classes.get(todo.pop())
            if not c:
                continue
            for f in c.children:
                if f.name == "field":
                    t = int(dict(f.attrs)["class"])
                    if t not in need:
                        need.add(t)
                        todo.append(t)
    close()
    for n in ("java.lang.String", "jdk.types.Symbol", "java.lang.Class", "jdk.types.Method", "jdk.types.StackTrace",
              "jdk.types.FrameType", "java.lang.Thread", "long", "int", "byte", "boolean", "short", "char", "float",
              "double"):
        if n in by_name:
            need.add(by_name[n])
    close()
    # checkpoints: keep only the pools of needed classes; a pool is delimited by parsing with the layouts
    layouts = {}
    for i, c in classes.items():
        a = dict(c.attrs)
        fields = [dict(f.attrs) for f in c.children if f.name == "field"]
        layouts[i] = (a["name"], fields)
    prims = {"long": "v", "int": "v", "short": "v", "char": "v", "byte": "b", "boolean": "b", "float": "f",
             "double": "d", "java.lang.String": "s"}

    def skip(t, q, depth=0):
        name, fields = layouts[t]
        k = prims.get(name)
        if k == "v":
            return varint(b, q)[1]
        if k == "b":
            return q + 1
        if k == "f":
            return q + 4
        if k == "d":
            return q + 8
        if k == "s":
            return rd_string(b, q)[1]
        for f in fields:
            n = 1
            if f.get("dimension", "0") != "0":
                n, q = varint(b, q)
            for _ in range(n):
                q = varint(b, q)[1] if f.get("constantPool") == "true" else skip(int(f["class"]), q, depth + 1)
        return q

    new_pools = {}
    for at, es in cps:
        q = varint(b, varint(b, at)[1])[1]
        for _ in range(3):
            _, q = varint(b, q)
        q += 1
        npools, q = varint(b, q)
        for _ in range(npools):
            t, q = varint(b, q)
            n, q = varint(b, q)
            entries = []
            for _ in range(n):
                s = q
                _, q = varint(b, q)
                q = skip(t, q)
                entries.append(b[s:q])
            if t in need:
                new_pools.setdefault(t, []).extend(entries)
    body = bytearray(enc(0) + enc(0) + enc(0) + b"\x01" + enc(len(new_pools)))
    for t, entries in new_pools.items():
        body += enc(t) + enc(len(entries)) + b"".join(entries)
    checkpoint = record(1, bytes(body))
    # metadata: needed classes, without annotations and settings
    for e in root.children:
        if e.name == "metadata":
            e.children = [c for c in e.children if c.name == "class" and int(dict(c.attrs)["id"]) in need]
            for c in e.children:
                c.children = [f for f in c.children if f.name == "field"]
                for f in c.children:
                    f.children = []
        else:
            e.children = []
    table, idx = [], {}

    def index(s):
        if s not in idx:
            idx[s] = len(table)
            table.append(s)
        return idx[s]

    tree = wr_elem(root, index)
    mbody = bytearray(b"".join(enc(v) for v in head) + enc(len(table)))
    for s in table:
        mbody += wr_string(s)
    mbody += tree
    metadata = record(0, bytes(mbody))
    out = bytearray(b[:68])
    cp_at = len(out)
    out += checkpoint
    for e in evs:
        out += e
    meta_at = len(out)
    out += metadata
    out[8:16] = struct.pack(">Q", len(out))
    out[16:24] = struct.pack(">Q", cp_at)
    out[24:32] = struct.pack(">Q", meta_at)
    open(dst, "wb").write(out)


main()
