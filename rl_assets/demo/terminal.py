"""Terminus-2 style agent traces (docs/formats.md, exported rows): think blocks, bash tool calls, terminal output.

A trace is driven by a Style (how much the agent thinks, how often its commands fail, how often it
writes code fences or self-corrections). The demo's built-in behaviour changes are nothing but
two Styles: the base model's and the RL checkpoint's.

Two random streams feed a trace: `r` (side-specific: thinking, commands, ending) and `shape`
(side-independent, keyed by the task and attempt only): which turns quote a code fence or carry a
self-correction. Callers give base and post-RL traces of one (task, attempt) the same number of
actions and the same `shape` stream, and every ending has the same turn structure, so code fences,
self-corrections and tool calls are equal pair by pair, by construction, at every scale.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

PROMPT = "root@box:/app# "
# Neutral thoughts: no self-correction phrase and no error marker can appear by accident.
THOUGHTS = (
    "I should look at the directory layout before changing anything.",
    "The tests in tests/ describe what the output must look like.",
    "The script reads its input path from the first argument.",
    "I need to confirm the config file has the expected keys.",
    "Running the check command will tell me whether the fix works.",
    "The log shows the worker starting, so the service itself is fine.",
    "Next I will inspect the data file to see how many rows it holds.",
    "The task wants the result written to output.txt in /app.",
    "A small change to the script should be enough here.",
    "I will keep the existing file structure and only edit what is needed.",
    "The expected output format is one record per line.",
    "Before finishing, I want the test suite to pass.",
)
SCOUT = (
    (
        "ls -la\n",
        "total 24\ndrwxr-xr-x 1 root root 4096 May 20 02:00 .\n"
        "-rw-r--r-- 1 root root  512 May 20 02:00 README.md\n"
        "-rw-r--r-- 1 root root 1201 May 20 02:00 solve.py",
    ),
    ("cat README.md\n", "# Task\nFollow the instructions in the task description. Tests live in tests/."),
    ("pwd\n", "/app"),
    ("ls tests/\n", "test_outputs.py"),
    ("head -n 5 solve.py\n", "import sys\n\n\ndef main():\n    return 0"),
)
OK = (
    ("wc -l data.csv\n", "1042 data.csv"),
    ("grep -rn TODO solve.py\n", "17:    # TODO: handle the empty input case"),
    ("python3 solve.py --check\n", "check passed: 12 records processed"),
    ("sed -i 's/old_value/new_value/' config.ini\n", ""),
    ("chmod +x run.sh\n", ""),
    ("git status --short\n", " M solve.py\n?? output.txt"),
    ("python3 -m pytest -q tests/\n", "....                                     [100%]\n4 passed in 0.41s"),
    ("cat output.txt\n", "42 rows written"),
    ("tail -n 3 /var/log/app.log\n", "INFO starting worker\nINFO worker ready\nINFO done"),
    ("find . -name '*.json' | head\n", "./data/schema.json\n./data/sample.json"),
)
ERR = (
    ("pyhton3 solve.py\n", "bash: pyhton3: command not found"),
    ("jq .items data/sample.json\n", "bash: jq: command not found"),
    (
        "python3 fix.py\n",
        'Traceback (most recent call last):\n  File "/app/fix.py", line 3, in <module>\n'
        "    import yaml\nModuleNotFoundError: No module named 'yaml'",
    ),
    ("cat config/settings.ini\n", "cat: config/settings.ini: No such file or directory"),
    ("cd build && make\n", "bash: cd: build: No such file or directory"),
    (
        "python3 solve.py data/missing.csv\n",
        'Traceback (most recent call last):\n  File "/app/solve.py", line 9, in <module>\n    open(sys.argv[1])\n'
        "FileNotFoundError: [Errno 2] No such file or directory: 'data/missing.csv'",
    ),
)
SELF_CORRECTIONS = (
    "Let me try again with a simpler command.",
    "That didn't work as planned, so I will check the path.",
    "On second thought, the config needs to be read first.",
)
XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


@dataclass(frozen=True)
class Style:
    think_words: float  # mean words inside <think> per agent turn
    error_p: float  # chance that a non-scouting command fails
    fence_p: float = 0.15  # chance an analysis quotes the command in a ``` fence
    selfcorr_p: float = 0.2  # chance an analysis contains a self-correction phrase


def instruction(task: str) -> str:
    tools = [
        {"name": "bash_command", "parameters": {"keystrokes": "string", "duration": "number"}},
        {"name": "mark_task_complete", "parameters": {}},
    ]
    return (
        f"<tools>{json.dumps(tools)}</tools>\n\nYou are an AI assistant tasked with solving command-line "
        f"tasks in a Linux environment.\n\nTask `{task}`: {task.replace('-', ' ')} in /app so that the tests in "
        f"tests/ pass.\n\nCurrent terminal state:\n{PROMPT}"
    )


def draw_actions(r: random.Random, style: Style, scout: list[tuple[str, str]], n: int) -> list[tuple[str, str]]:
    """`scout` commands first (never failing, shared across sides), then drawn commands."""
    acts = list(scout)
    while len(acts) < n:
        acts.append(r.choice(ERR if r.random() < style.error_p else OK))
    return acts


def tool_call(name: str, args: dict) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"


def marks(shape: random.Random, style: Style, n_turns: int) -> list[tuple[bool, bool]]:
    """(code fence?, self-correction?) per agent turn, drawn from the side-independent stream."""
    return [(shape.random() < style.fence_p, shape.random() < style.selfcorr_p) for _ in range(n_turns)]


def agent_turn(
    r: random.Random,
    style: Style,
    keystrokes: str | None,
    extra: str = "",
    *,
    fence: bool = False,
    selfcorr: bool = False,
) -> str:
    n = max(4, round(r.gauss(style.think_words, style.think_words * 0.2)))
    analysis = "Analysis: " + r.choice(THOUGHTS)
    if keystrokes and fence:
        analysis += f"\n```bash\n{keystrokes.strip()}\n```"
    if selfcorr:
        analysis += " " + r.choice(SELF_CORRECTIONS)
    if extra:
        analysis += " " + extra
    call = (
        tool_call("bash_command", {"keystrokes": keystrokes, "duration": 0.1})
        if keystrokes
        else tool_call("mark_task_complete", {})
    )
    return f"<think>{think_text(r, n)}</think>\n{analysis}\n{call}"


def think_text(r: random.Random, n_words: int) -> str:
    out: list[str] = []
    while sum(len(t.split()) for t in out) < n_words:
        out.append(r.choice(THOUGHTS))
    return " ".join(out)


def observation(keystrokes: str, output: str) -> str:
    shown = f"{output}\n" if output else ""
    return f"New Terminal Output:\n\n{PROMPT}{keystrokes}{shown}{PROMPT}"


def conversation(
    r: random.Random,
    style: Style,
    task: str,
    actions: list[tuple[str, str]],
    ending: str,
    shape: random.Random,
    xss: bool = False,
) -> list[dict]:
    """ending: "complete" (a final mark_task_complete turn), "cut" (a final bash turn whose terminal
    output is not exported, as in real timeout / context-length traces: the trace ends on an agent
    turn without a completion call, i.e. a premature stop), "infra" (the sandbox died after the
    first command; ends on its observation). "complete" and "cut" both have len(actions) + 1 agent
    turns and len(actions) observations; code fences are only drawn on the observed commands.
    `shape` is the side-independent stream (see the module docstring)."""
    turn_marks = marks(shape, style, len(actions) + 1)
    msgs = [{"role": "user", "content": instruction(task)}]
    if ending == "infra":
        actions = actions[:1]
    for i, (keys, out) in enumerate(actions):
        fence, selfcorr = turn_marks[i]
        msgs.append(
            {
                "role": "assistant",
                "content": agent_turn(r, style, keys, XSS if xss and i == 0 else "", fence=fence, selfcorr=selfcorr),
            }
        )
        msgs.append({"role": "user", "content": observation(keys, out)})
    if ending in ("complete", "cut"):
        last = None if ending == "complete" else draw_actions(r, style, [], 1)[0][0]
        msgs.append({"role": "assistant", "content": agent_turn(r, style, last, selfcorr=turn_marks[-1][1])})
    return msgs


def action_keys(messages: list[dict]) -> list[str]:
    """The agent's tool-call sequence: bash keystrokes, or the tool name for other tools."""
    out = []
    for m in messages:
        if m["role"] != "assistant":
            continue
        for block in m["content"].split("<tool_call>\n")[1:]:
            call = json.loads(block.split("\n</tool_call>")[0])
            out.append(call["arguments"].get("keystrokes") or call["name"])
    return out
