"""Photos a second and the 95th-percentile answer time of `mahjong-lens serve`, at 1, 4, 8 and
16 clients each posting a photo to /api/scan as soon as the last answer came.

    python benchmarks/bench_serve.py                        # examples/hand.jpg, 20 s a client count
    python benchmarks/bench_serve.py --exe .venv/bin/mahjong-lens --seconds 10 --clients 1 8

The server is started here on a free loopback port and stopped at the end; every request
goes to 127.0.0.1 only, and each client count runs for a bounded time.
"""
from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _multipart(photo: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [f"--{boundary}\r\nContent-Disposition: form-data; name=\"rules\"\r\n\r\nrode-draak\r\n",
             f"--{boundary}\r\nContent-Disposition: form-data; name=\"win\"\r\n\r\nself_drawn\r\n",
             f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n"
             "Content-Type: image/jpeg\r\n\r\n"]
    body = "".join(parts).encode() + photo + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def _post(url: str, body: bytes, kind: str) -> float:
    started = time.perf_counter()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": kind}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        json.loads(answer.read())
    return time.perf_counter() - started


def run_clients(url: str, body: bytes, kind: str, clients: int, seconds: float) -> tuple[int, list[float]]:
    times: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        while time.perf_counter() < deadline:
            took = _post(url, body, kind)
            with lock:
                times.append(took)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(times), [len(times) / (time.perf_counter() - started)] + sorted(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", default=shutil.which("mahjong-lens") or "mahjong-lens")
    parser.add_argument("--photo", type=Path, default=REPO / "examples" / "hand.jpg")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each client count runs")
    args = parser.parse_args(argv)
    port = _free_port()
    with tempfile.TemporaryDirectory() as work:
        server = subprocess.Popen([args.exe, "serve", "--port", str(port), "--database", f"{work}/b.db"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        url = f"http://127.0.0.1:{port}/api/scan"
        body, kind = _multipart(args.photo.read_bytes())
        try:
            for _ in range(300):
                try:
                    _post(url, body, kind)  # the first also loads the model
                    break
                except OSError:
                    time.sleep(0.1)
            print(f"{'clients':>8} {'photos/s':>9} {'median s':>9} {'p95 s':>7} {'answers':>8}")
            results = {}
            for clients in args.clients:
                count, figures = run_clients(url, body, kind, clients, args.seconds)
                rate, times = figures[0], figures[1:]
                p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
                results[clients] = {"photos_per_second": round(rate, 2), "median_s": round(statistics.median(times), 3),
                                    "p95_s": round(p95, 3), "answers": count}
                print(f"{clients:>8} {rate:>9.2f} {statistics.median(times):>9.3f} {p95:>7.3f} {count:>8}", flush=True)
        finally:
            server.terminate()
            server.communicate(timeout=30)
    base = results.get(args.clients[0], {}).get("photos_per_second") or 1
    print(json.dumps({"results": results, "speedup_vs_first": {c: round(r["photos_per_second"] / base, 2)
                                                               for c, r in results.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
