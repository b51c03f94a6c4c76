"""Model repos: base weights, RL checkpoints with rl_config.json, and an unfinished upload."""

from __future__ import annotations

import json
import struct
from datetime import datetime, timedelta

from .constants import ALPHA_TRACES, BASE, JOB_NAMES, ORG, UPLOADING, hf_url
from .hubfiles import HubWriter

CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 4096,
    "model_type": "qwen3",
    "num_attention_heads": 32,
    "num_hidden_layers": 36,
    "torch_dtype": "bfloat16",
    "vocab_size": 151936,
}


def safetensors_placeholder(repo_id: str) -> bytes:
    """A real, loadable safetensors file holding one 2x2 F32 tensor (the weights are fake)."""
    header = {
        "__metadata__": {"format": "pt", "demo_repo": repo_id},
        "demo.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
    }
    blob = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)  # the format pads the header to 8-byte alignment
    return struct.pack("<Q", len(blob)) + blob + struct.pack("<4f", 1.0, 0.5, -0.5, 0.25)


def _card(repo_id: str, base: str | None, body: str) -> str:
    front = ["---", "license: apache-2.0", "library_name: transformers"]
    if base:
        front += [f"base_model: {base}", "tags:", "- reinforcement-learning", "- rldelta-demo"]
    return "\n".join(front + ["---", "", f"# {repo_id}", "", body, ""])


def write_base(hub: HubWriter, mtime: datetime) -> None:
    hub.write(BASE, "model", "model.safetensors", safetensors_placeholder(BASE), mtime)
    hub.write_json(BASE, "model", "config.json", CONFIG, mtime)
    hub.write(BASE, "model", "README.md", _card(BASE, None, "Demo base model (SFT). Placeholder weights."), mtime)


def write_rl(hub: HubWriter, repo_id: str, mtime: datetime) -> None:
    job = JOB_NAMES[repo_id]
    traces = f"{ORG}/{job}"
    note = "" if traces == ALPHA_TRACES else " (not uploaded for this run)"
    body = (
        f"RL checkpoint trained from [{BASE}](https://huggingface.co/{BASE}) with SkyRL "
        f"(job `{job}`).\n\n## Training Traces\n\nRollouts: [{traces}]({hf_url(traces)}){note}\n\n"
        "## Training logs\n\nRaw SkyRL chain logs are under `training_logs/`."
    )
    hub.write(repo_id, "model", "model.safetensors", safetensors_placeholder(repo_id), mtime)
    hub.write_json(repo_id, "model", "config.json", CONFIG, mtime)
    hub.write(repo_id, "model", "README.md", _card(repo_id, BASE, body), mtime)
    hub.write_json(repo_id, "model", "rl_config.json", rl_config(repo_id, job), mtime)


def rl_config(repo_id: str, job: str) -> dict:
    """The serialized RLJobConfig shape (docs/formats.md, the RL config); the secret field stays empty."""
    return {
        "job_name": job,
        "experiments_dir": f"/scratch/experiments/{job}",
        "cluster_name": "demo-cluster",
        "skyrl_entrypoint": "skyrl_train.entrypoints.main_base",
        "skyrl_hydra_args": [
            "trainer.algorithm.advantage_estimator=grpo",
            "trainer.epochs=1",
            "generator.n_samples_per_prompt=4",
            "trainer.ckpt_interval=10",
        ],
        "model_path": BASE,
        "train_data": [f"{ORG}/terminal-train-tasks"],
        "val_data": [f"{ORG}/terminal-bench-mini"],
        "num_nodes": 2,
        "gpus_per_node": 8,
        "tensor_parallel_size": 1,
        "agent_name": "terminus-2",
        "harbor_env": "daytona",
        "pinggy_token": None,
        "trace_upload_enabled": job == "rl-alpha",
        "trace_upload_repo_org": ORG,
        "trace_upload_episodes": "last",
        "export_path": f"/scratch/experiments/{job}/exports",
        "hf_repo": repo_id,
    }


def write_uploading(hub: HubWriter, mtime: datetime) -> None:
    # README only: the upload has not pushed weights yet, so the checkpoint sensor must skip it.
    body = f"Upload in progress from [{BASE}](https://huggingface.co/{BASE}); weights follow."
    hub.write(UPLOADING, "model", "README.md", _card(UPLOADING, BASE, body), mtime + timedelta(hours=1))
