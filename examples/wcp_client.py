#!/usr/bin/env python3
"""Drive Handscope from a script over the Waveform Control Protocol (docs/wcp.md).

Standard library only. Starts `handscope serve` on the dot-product kernel (or connects to a
running server on it with --connect HOST:PORT), sets a breakpoint on the product
`a[i] * b[i]` being 20, runs to it until no more hits, reads the product and its operands at
each hit and checks them against Python's own arithmetic, then checks the result in the run
report and shuts the server down.

    python3 examples/wcp_client.py [--handscope PATH] [--connect HOST:PORT --token-file FILE]
                                   [--transcript]

The server serves only clients that greet with its session token: the one it prints when
it starts (read here from the server started), or the one it wrote to `--wcp-token-file`.

Exit status 0 when every check holds.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "kernels", "dot.c")
# The kernel's first `// RUN:` line: dot(a, b, n), which `handscope serve` runs.
A = [1, 2, 3, 4, 5, 6, 7, 8]
B = [8, 7, 6, 5, 4, 3, 2, 1]
N = 8


class Wcp:
    """A WCP connection: JSON messages, each ended by a NUL byte."""

    def __init__(self, addr, token, show=False):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        self.buf = b""
        self.events = []
        self.show = show
        self.token = token

    def send(self, msg):
        if self.show:
            print("->", json.dumps(msg))
        self.sock.sendall(json.dumps(msg).encode() + b"\0")

    def recv(self):
        while b"\0" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        frame, self.buf = self.buf.split(b"\0", 1)
        msg = json.loads(frame)
        if self.show:
            print("<-", json.dumps(msg))
        return msg

    def reply(self):
        """The next message that is not an event (events are kept in self.events)."""
        while True:
            msg = self.recv()
            if msg.get("type") != "event":
                return msg
            self.events.append(msg)

    def greet(self, events=()):
        self.send(
            {"type": "greeting", "version": "0", "commands": list(events), "token": self.token}
        )
        return self.reply()

    def command(self, name, **fields):
        self.send(dict(type="command", command=name, **fields))
        r = self.reply()
        if r.get("type") == "error":
            raise RuntimeError(f"{name}: {r['error']}: {r['message']}")
        return r


def start_server(handscope):
    """Starts `handscope serve` on the kernel; returns the process, its address and token."""
    proc = subprocess.Popen(
        [handscope, "serve", KERNEL, "--wcp", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    found = []
    for prefix in ("WCP: listening on ", "WCP: token "):
        line = proc.stdout.readline().strip()
        if not line.startswith(prefix):
            proc.kill()
            sys.exit(f"handscope serve did not start: {line!r}")
        found.append(line[len(prefix):])
    return proc, found[0], found[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--handscope", default=os.environ.get("HANDSCOPE") or shutil.which("handscope"))
    ap.add_argument("--connect", help="HOST:PORT of a running `handscope serve` on dot.c")
    ap.add_argument("--token-file", help="with --connect: the server's --wcp-token-file")
    ap.add_argument("--transcript", action="store_true", help="print every message")
    args = ap.parse_args()

    proc = None
    if args.connect:
        addr = args.connect
        if not args.token_file:
            sys.exit("--connect needs --token-file FILE (the server's --wcp-token-file)")
        with open(args.token_file) as f:
            token = f.read().strip()
    else:
        if not args.handscope:
            sys.exit("no handscope binary: pass --handscope PATH or set HANDSCOPE")
        proc, addr, token = start_server(args.handscope)
    try:
        w = Wcp(addr, token, show=args.transcript)
        greeting = w.greet(events=["run_finished"])
        assert greeting["type"] == "greeting" and greeting["version"] == "0", greeting
        assert "handscope.run_to" in greeting["commands"], greeting

        # Find the 64-bit multiplier (`(long long)a[i] * b[i]`) and its channels.
        items = w.command("handscope.list_items")
        types = {c["id"]: c["data_type"] for c in items["channels"]}
        (mul,) = [n for n in items["nodes"] if n["op"] == "muli" and types[n["outputs"][0]] == "i64"]
        out = mul["outputs"][0]
        w.command("add_variables", variables=[out] + mul["inputs"])
        bp = w.command(
            "handscope.set_breakpoint",
            breakpoint={"kind": "value", "channel": out, "op": "==", "value": 20},
        )
        print(f"breakpoint: {bp['id']}")

        expected = [(A[i], B[i]) for i in range(N) if A[i] * B[i] == 20]  # (4, 5), (5, 4)
        seen, last = [], -1
        while True:
            hit = w.command("handscope.run_to")
            if not hit["hit"]:
                break
            assert hit["cycle"] > last, (hit, last)
            last = hit["cycle"]
            vals = w.command("handscope.get_values", ids=[out] + mul["inputs"] + [mul["id"]])
            product, x, y, node = vals["values"]
            assert product["state"] == "transfer" and product["data"] == 20, product
            assert x["valid"] and y["valid"] and node["fires"], vals
            assert x["data"] * y["data"] == product["data"], vals
            seen.append((x["data"], y["data"]))
            print(f"cycle {hit['cycle']}: {out} = {x['data']} * {y['data']} = {product['data']}")
        assert seen == expected, (seen, expected)

        report = w.command("handscope.run_report")["report"]
        assert report["status"] == "done", report["status"]
        result = report["outputs"]["ret"][0]["value"]
        assert result == sum(x * y for x, y in zip(A, B)), result
        print(f"dot(a, b, {N}) = {result} after {report['cycles']} cycles")

        w.command("shutdown")
    finally:
        if proc is not None:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise
    if proc is not None and proc.returncode != 0:
        sys.exit(f"handscope serve exited with {proc.returncode}")
    print("ok")


if __name__ == "__main__":
    main()
