"""INDEX.md lines that link a checkpoint to the run lineage of each RL job it is a member of."""

from __future__ import annotations

import os


def index_links(model_id: str, folder: str | os.PathLike[str], lineages: list[tuple[str, list[str], str]]) -> list[str]:
    """One line per (job, members in step order, lineage.md path); links relative to the INDEX.md `folder`."""
    return [
        f"Run lineage: [{job}]({os.path.relpath(report, folder)}) — checkpoint "
        f"{members.index(model_id) + 1} of {len(members)} of the job, in training-step order"
        for job, members, report in lineages
        if model_id in members
    ]
