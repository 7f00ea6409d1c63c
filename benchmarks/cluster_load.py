"""Several nodes on one PostgreSQL database (issue 28): throughput, failover, cross-node event delay.

    .venv/bin/python benchmarks/cluster_load.py [--videos 300] [--seconds 15] [--clients 16]

One run, on one machine (so the figures are ratios within the run):

1. 1, 2 and 3 nodes on one schema and one media tree; the same load of
   item pages (``GET /items``) and original images (``GET /images/items/{id}``)
   spread round-robin over the nodes by ``--clients`` concurrent clients.
   Reported: requests/s (and as a ratio to one node) and the servers'
   CPU-seconds per request (utime + stime of every node, from /proc).
   On 2 cores the ceiling is the CPU, which the nodes and this load
   generator share: more nodes cannot add CPU, so the ratio shows the cost
   of clustering (per-request CPU), not a speed-up.
2. Failover: the library's leader killed with -9; seconds until
   ``GET /system/status`` on another node shows a new leader.
3. Event delay: one event stream on the leader and one on another node;
   a scan on the leader; for each event, its arrival on the other node
   minus its arrival on the leader (p50/p99, ms). Both nodes read events
   back from the database, so this is the extra delay a remote node adds.

Needs PostgreSQL (``--database``, default the test server); a schema of
its own is created and dropped.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tree import write_library

SERVING = re.compile(rb"serving on (http://[\d.]+:\d+)/api/v1")
ENV = {"REELHOUSE_CLUSTER__LEASE_SECONDS": "10"}


class Node:
    def __init__(self, root: Path, index: int, database_url: str) -> None:
        self.log_path = root / f"node{index}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_")} | ENV
        argv = [sys.executable, "-m", "reelhouse", "serve", "--bind", "127.0.0.1:0",
                "--data-dir", str(root / f"node{index}"), "--database", database_url]
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, env=env)
        self.url = ""

    async def started(self) -> str:
        with trio.fail_after(60):
            while not (match := SERVING.search(self.log_path.read_bytes())):
                if self.process.poll() is not None:
                    raise RuntimeError(self.log_path.read_text())
                await trio.sleep(0.1)
        self.url = match.group(1).decode()
        return self.url

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def switches(self) -> int:
        """Context switches of every thread so far (the event loop waiting, threads handing work over)."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                lines = (task / "status").read_text().splitlines()
            except OSError:
                continue  # a thread that ended meanwhile
            total += sum(int(line.split()[1]) for line in lines if "ctxt_switches" in line)
        return total

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()


async def load(urls: list[str], key: str, paths: list[str], seconds: float, clients: int) -> int:
    done = 0
    stop_at = trio.current_time() + seconds

    async def client(index: int) -> None:
        nonlocal done
        sessions = [httpx.AsyncClient(base_url=f"{u}/api/v1", headers={"Authorization": f"Bearer {key}"})
                    for u in urls]
        try:
            i = index
            while trio.current_time() < stop_at:
                answer = await sessions[i % len(sessions)].get(paths[i % len(paths)])
                assert answer.status_code == 200, answer.text
                done += 1
                i += 1
        finally:
            for session in sessions:
                await session.aclose()

    async with trio.open_nursery() as nursery:
        for index in range(clients):
            nursery.start_soon(client, index)
    return done


async def status(url: str, key: str) -> dict[str, Any]:
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as client:
        return dict((await client.get(f"{url}/api/v1/system/status")).json())


async def leader(url: str, key: str, library_id: str) -> str | None:
    for node in (await status(url, key))["nodes"]:
        if library_id in node["librariesLed"]:
            return str(node["address"])
    return None


async def event_arrivals(url: str, key: str, arrivals: dict[int, float], opened: trio.Event) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(timeout=None) as client, client.stream(
            "GET", f"{url}/api/v1/scans/events", headers=headers) as response:
        async for line in response.aiter_lines():
            if line.startswith(": stream open"):
                opened.set()
            if line.startswith("id: "):
                arrivals[int(line[4:])] = time.monotonic()


async def main(args: argparse.Namespace) -> None:
    schema = f"bench_cluster_{uuid.uuid4().hex[:10]}"
    database_url = f"{args.database}?schema={schema}"
    with tempfile.TemporaryDirectory(prefix="cluster-load-") as tmp:
        root = Path(tmp)
        write_library(root / "media", "movies", args.videos)
        nodes: list[Node] = []
        try:
            await run_phases(root, database_url, nodes, args)
        finally:
            for node in nodes:
                node.stop(signal.SIGKILL)
            with psycopg.connect(args.database, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def run_phases(root: Path, database_url: str, nodes: list[Node], args: argparse.Namespace) -> None:
    nodes.append(Node(root, 0, database_url))
    await nodes[0].started()
    created_key = await trio.run_process([sys.executable, "-m", "reelhouse", "--data-dir", str(root / "node0"),
                                          "--database", database_url, "apikey", "create", "bench"],
                                         capture_stdout=True, capture_stderr=True)  # fmt: skip
    key = created_key.stdout.decode().split()[-1]
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=f"{nodes[0].url}/api/v1", headers=headers, timeout=120) as client:
        created = await client.post("/libraries", json={"name": "Films", "paths": [str(root / "media")],
                                                        "collectionType": "movies"})
        library_id = created.json()["id"]
        while (await client.get("/scans/status")).json()[0]["state"] != "completed":
            await trio.sleep(0.5)
        items = (await client.get("/items", params={"libraryId": library_id, "limit": 100})).json()["items"]
    paths = [f"/items?libraryId={library_id}&limit=40", *(f"/images/items/{i['id']}" for i in items[:20])]
    single = None
    for count in (1, 2, 3):
        while len(nodes) < count:
            nodes.append(Node(root, len(nodes), database_url))
            await nodes[-1].started()
        # What the nodes spend idle (heartbeats, lease rounds, polls, the loop watchdog) over the
        # same time, so that the per-request figure is the requests' own.
        idle_before = sum(n.cpu_seconds() for n in nodes)
        await trio.sleep(args.seconds)
        idle = sum(n.cpu_seconds() for n in nodes) - idle_before
        cpu_before = sum(n.cpu_seconds() for n in nodes)
        switches_before = sum(n.switches() for n in nodes)
        done = await load([n.url for n in nodes], key, paths, args.seconds, args.clients)
        cpu = sum(n.cpu_seconds() for n in nodes) - cpu_before
        switches = sum(n.switches() for n in nodes) - switches_before
        rate = done / args.seconds
        single = single or rate
        print(f"{count} node(s): {rate:.0f} req/s ({rate / single:.2f}x one node), "
              f"{cpu / done * 1000:.2f} ms server CPU per request ({(cpu - idle) / done * 1000:.2f} ms "
              f"less the nodes' idle {idle / args.seconds * 100:.1f}% CPU), "
              f"{switches / done:.1f} context switches per request; load average {os.getloadavg()[0]:.1f}")
    await cross_node_events(nodes, key, library_id)
    await failover(nodes, key, library_id)


async def cross_node_events(nodes: list[Node], key: str, library_id: str) -> None:
    lead = await leader(nodes[0].url, key, library_id)
    local = next(n for n in nodes if n.url == lead)
    remote = next(n for n in nodes if n.url != lead)
    at_local: dict[int, float] = {}
    at_remote: dict[int, float] = {}
    async with trio.open_nursery() as nursery:
        opened = [trio.Event(), trio.Event()]
        nursery.start_soon(event_arrivals, local.url, key, at_local, opened[0])
        nursery.start_soon(event_arrivals, remote.url, key, at_remote, opened[1])
        for event in opened:
            await event.wait()
        async with httpx.AsyncClient(base_url=f"{remote.url}/api/v1", headers={"Authorization": f"Bearer {key}"},
                                     timeout=60) as client:
            for _ in range(3):
                await client.post(f"/libraries/{library_id}/scan", json={"mode": "full"})
                while (await client.get("/scans/status")).json()[0]["state"] == "running":
                    await trio.sleep(0.2)
        await trio.sleep(2)
        nursery.cancel_scope.cancel()
    delays = sorted((at_remote[seq] - at_local[seq]) * 1000 for seq in at_local if seq in at_remote)
    if delays:
        p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
        print(f"cross-node event delay over {len(delays)} events: p50 {statistics.median(delays):.1f} ms, "
              f"p99 {p99:.1f} ms")


async def failover(nodes: list[Node], key: str, library_id: str) -> None:
    lead = await leader(nodes[0].url, key, library_id)
    victim = next(n for n in nodes if n.url == lead)
    survivor = next(n for n in nodes if n.url != lead)
    victim.stop(signal.SIGKILL)
    killed = time.monotonic()
    with trio.fail_after(120):
        while (now_leader := await leader(survivor.url, key, library_id)) in (None, lead):
            await trio.sleep(0.1)
    print(f"failover after kill -9 of the leader: {time.monotonic() - killed:.1f} s (new leader {now_leader})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="postgresql://root@127.0.0.1:5432/test")
    parser.add_argument("--videos", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", type=int, default=16)
    trio.run(main, parser.parse_args())
