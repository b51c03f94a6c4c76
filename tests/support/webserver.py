"""Talking to a `dagster dev` webserver from the tests: a free loopback port, a GraphQL query, and
waiting until the code location has loaded."""

import json
import random
import socket
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port_pair() -> int:
    """A port p with p and p + 1 both free (the UI and, at p + 1, the reports server `make ui` starts),
    taken below the kernel's ephemeral range. free_port's ports come from that range, where any
    outgoing connection of the suite (PostgreSQL, S3, HTTP clients on the other xdist worker) may be
    handed p + 1 while a minutes-long demo runs: that happened once in `make test`."""
    low = 32768  # Linux's default start of the ephemeral range
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as fh:
            low = int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    pick = random.Random()
    for _ in range(200):
        port = pick.randrange(max(1024, low - 12000), low - 1)
        if _bindable(port) and _bindable(port + 1):
            return port
    raise RuntimeError(f"no two free adjacent loopback ports below {low}")


def graphql(port, query):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/graphql",
        data=json.dumps({"query": query}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.loads(resp.read())["data"]


def wait_for_graph(port, seconds: float = 180) -> bool:
    """True once the webserver answers with the asset graph (the code location has loaded)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if graphql(port, "{ assetNodes { id } }")["assetNodes"]:
                return True
        except Exception:
            pass
        time.sleep(0.5)
    return False


def run_demo(env: dict, cwd, scale: str = "0.3"):
    """`rldelta demo --run --scale <scale>` in a child with `env` (its RLDELTA_HOME/DAGSTER_HOME name the
    instance); fails the test with the output's tail unless the demo got as far as comparing models."""
    import subprocess
    import sys
    from pathlib import Path

    rldelta = Path(sys.executable).with_name("rldelta")
    done = subprocess.run(
        [str(rldelta), "demo", "--run", "--scale", scale], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    assert "== comparing models" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    return done
