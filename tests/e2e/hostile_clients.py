#!/usr/bin/env python3
"""Hostile clients for tests/e2e/apiserver_hostile.bats: what another local user (without the
token) or a careless one (with it) can do to the local API server. Loopback only, every action
bounded in time and bytes.

  hold PORT --idle N --slow N --every S --for S   idle TCP connects and TLS heads sent a line at a time;
                                                  prints how many the server had closed when done
  headers PORT --bytes N [--line N]               one TLS request head of N bytes; prints the status
  watches PORT TOKEN --count N                    N watches over TLS; prints "open", then closes them all
                                                  at once when its stdin ends (as interrupted clients)
  flood PORT --count N --path P                   N requests without the token; prints the statuses seen
  deep PORT TOKEN                                 requests nested to the JSON depth limit; prints
                                                  "<status> <name>" per request
"""
import argparse
import socket
import ssl
import sys
import time

MAX_DEPTH = 10000  # the server's JSON depth limit (apiserver/body_limits.hpp)


def tls_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # loopback, and these clients are not after the server's identity
    return ctx


def connect(port, tls=True, timeout=10):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return tls_context().wrap_socket(sock) if tls else sock


def status_of(reply):
    parts = reply.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[0].startswith(b"HTTP/1.") and parts[1].isdigit() else 0


def read_answer(conn, wait=10):
    """What the server sends until it closes or `wait` passes; b"" on a reset."""
    conn.settimeout(wait)
    out = b""
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            out += chunk
    except (socket.timeout, OSError):
        pass
    return out


def hold(args):
    idle = [connect(args.port, tls=False) for _ in range(args.idle)]
    slow = []
    for _ in range(args.slow):
        c = connect(args.port)
        c.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\n")
        slow.append(c)
    print("holding", flush=True)
    end = time.monotonic() + args.__dict__["for"]
    line = 0
    while time.monotonic() < end:
        for c in slow:
            try:
                c.sendall(b"X-Slow-%d: y\r\n" % line)
            except OSError:
                pass
        line += 1
        time.sleep(min(args.every, max(0.0, end - time.monotonic())))
    closed = 0
    for c in idle + slow:
        c.setblocking(False)
        try:
            closed += c.recv(1) == b""
        except ssl.SSLWantReadError:
            pass
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        c.close()
    print("closed by the server:", closed, flush=True)


def headers(args):
    conn = connect(args.port)
    conn.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n")
    line = b"X-Pad: " + b"a" * (args.line - 9) + b"\r\n"
    block = line * max(1, 65536 // len(line))
    sent = 0
    conn.settimeout(0.0)
    reply = b""
    while sent < args.bytes and not reply:
        try:
            reply = conn.recv(65536)
        except (ssl.SSLWantReadError, BlockingIOError):
            pass
        except OSError:
            break
        if reply:
            break
        try:
            conn.settimeout(10)
            conn.sendall(block)
            conn.settimeout(0.0)
            sent += len(block)
        except OSError:
            break
    if not reply:
        reply = read_answer(conn, 5)
    print(status_of(reply), sent, flush=True)


def watches(args):
    conns = []
    for _ in range(args.count):
        c = connect(args.port)
        c.sendall(b"GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n"
                  b"Authorization: Bearer " + args.token.encode() + b"\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = c.recv(4096)
            if not chunk:
                break
            head += chunk
        if status_of(head) != 200:
            print("a watch was refused:", head[:200], flush=True)
            sys.exit(1)
        conns.append(c)
    print("open", flush=True)
    sys.stdin.read()
    for c in conns:
        c.close()


def flood(args):
    seen = {}
    for _ in range(args.count):
        c = connect(args.port)
        c.sendall(b"GET " + args.path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        code = status_of(read_answer(c, 5))
        seen[code] = seen.get(code, 0) + 1
        c.close()
    print(" ".join("%d:%d" % kv for kv in sorted(seen.items())), flush=True)


def nested_maps(levels):
    """{"a":{"a":...{}}}, `levels` maps (strings: json.dumps would recurse past Python's limit)."""
    return '{"a":' * (levels - 1) + "{}" + "}" * (levels - 1)


def deep(args):
    token = args.token
    ns = "/api/v1/namespaces/default"
    d = lambda used: nested_maps(MAX_DEPTH - used)
    requests = [
        ("strategic-configmap", "PATCH", ns + "/configmaps/deep", "application/strategic-merge-patch+json",
         '{"data":' + d(1) + "}"),
        ("strategic-pod", "PATCH", ns + "/pods/deep", "application/strategic-merge-patch+json",
         '{"spec":' + d(1) + "}"),
        ("merge-configmap", "PATCH", ns + "/configmaps/deep", "application/merge-patch+json",
         '{"data":' + d(1) + "}"),
        ("json-patch", "PATCH", ns + "/configmaps/deep", "application/json-patch+json",
         '[{"op":"add","path":"/data/x","value":' + d(2) + "}]"),
        ("apply-configmap", "PATCH", ns + "/configmaps/deep?fieldManager=deep", "application/apply-patch+yaml",
         '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":' + d(1) + "}"),
        ("create-secret", "POST", ns + "/secrets", "application/json",
         '{"metadata":{"name":"deep-secret"},"data":' + d(1) + "}"),
        ("create-pod", "POST", ns + "/pods", "application/json",
         '{"metadata":{"name":"deep-pod"},"spec":' + d(1) + "}"),
        ("create-pytorchjob", "POST", "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs", "application/json",
         '{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"deep"},"spec":' + d(1) + "}"),
        ("create-trainjob", "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs",
         "application/json",
         '{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"deep"},"spec":'
         + d(1) + "}"),
        ("one-level-too-deep", "PATCH", ns + "/configmaps/deep", "application/strategic-merge-patch+json",
         '{"data":' + nested_maps(MAX_DEPTH) + "}"),
    ]
    for name, method, path, content_type, body in requests:
        c = connect(args.port, timeout=60)
        data = body.encode()
        c.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\n"
                   "Content-Length: %d\r\nConnection: close\r\n\r\n" % (method, path, token, content_type,
                                                                      len(data))).encode() + data)
        print(status_of(read_answer(c, 60)), name, flush=True)
        c.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("hold")
    h.add_argument("port", type=int)
    h.add_argument("--idle", type=int, default=100)
    h.add_argument("--slow", type=int, default=100)
    h.add_argument("--every", type=float, default=2.0)
    h.add_argument("--for", type=float, default=10.0)
    x = sub.add_parser("headers")
    x.add_argument("port", type=int)
    x.add_argument("--bytes", type=int, default=64 << 20)
    x.add_argument("--line", type=int, default=8000)
    w = sub.add_parser("watches")
    w.add_argument("port", type=int)
    w.add_argument("token")
    w.add_argument("--count", type=int, default=100)
    f = sub.add_parser("flood")
    f.add_argument("port", type=int)
    f.add_argument("--count", type=int, default=500)
    f.add_argument("--path", default="/api/v1/namespaces")
    d = sub.add_parser("deep")
    d.add_argument("port", type=int)
    d.add_argument("token")
    args = p.parse_args()
    {"hold": hold, "headers": headers, "watches": watches, "flood": flood, "deep": deep}[args.cmd](args)


if __name__ == "__main__":
    main()
