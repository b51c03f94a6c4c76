"""A run killed mid-way (SIGKILL, no cleanup) and re-run repeats no completed call."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from resources.llm import LLMResource
from rl_assets.values.llm_types import LLMRequest
from support.llm_server import LLMServer, as_json

ROOT = Path(__file__).resolve().parents[2]
N = 24

CHILD = textwrap.dedent("""
    import sys
    sys.path[:0] = [{root!r}, {tests!r}, {here!r}]
    from test_llm_resume import make_resource, requests
    make_resource(sys.argv[1], sys.argv[2]).session("annotate", "org/model").run(requests())
""")


def requests():
    def interpret(key):
        return lambda obj: {key: obj}

    return [
        LLMRequest(
            [f"k{i:02d}"],
            [{"role": "user", "content": f"item {i:02d}"}],
            "t",
            {"type": "object"},
            interpret(f"k{i:02d}"),
            label=f"item {i:02d}",
        )
        for i in range(N)
    ]


def make_resource(base_url, cache_root):
    return LLMResource(
        base_url=base_url,
        api_key="k",
        annotator_model="gpt-5.1",
        concurrency=2,
        backoff_base_s=0.01,
        timeout_s=5,
        cache_root=cache_root,
    )


def test_killed_run_resumes_without_repeating_completed_calls(tmp_path):
    with LLMServer(latency=0.1, responder=lambda body: as_json({"echo": body["messages"][-1]["content"]})) as srv:
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD.format(root=str(ROOT), tests=str(ROOT / "tests"), here=str(Path(__file__).resolve().parent)),
                srv.base_url,
                str(tmp_path),
            ],
            cwd=tmp_path,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while srv.calls < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(child.pid, signal.SIGKILL)  # no finally blocks, no atexit: a real crash
        child.wait()
        first = srv.calls
        assert 8 <= first < N, "the child must be killed half-way"

        resource = make_resource(srv.base_url, str(tmp_path))
        client = resource.session("annotate", "org/model")
        done_before = {f"item {i:02d}" for i in range(N) if client.cache.get(f"k{i:02d}") is not None}
        assert len(done_before) >= 6
        out = client.run(requests())

        resumed = [r["messages"][-1]["content"] for r in srv.requests[first:]]
        assert not set(resumed) & done_before  # no completed call was repeated
        assert len(resumed) == N - len(done_before)
        assert all(v.status in ("cached", "fresh") for v in out.values())
        assert sum(v.status == "cached" for v in out.values()) == len(done_before)
        # The ledger kept whole lines from the killed run as well as the resumed one.
        assert len(client.ledger.read()) >= srv.calls - 2
