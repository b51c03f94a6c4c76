"""Talking to a `dagster dev` webserver from the tests: a free loopback port, a GraphQL query, and
waiting until the code location has loaded."""

import json
import socket
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
