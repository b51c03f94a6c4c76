"""How a trace message carries its text: the conventions both the ingest (features) and the pure
analyses (trace pairs) read. Neutral: imports no layer package (docs/contracts.md, "Layers").

A message's ``content`` is a string, a list of parts (text, image, audio), a dict or None;
reasoning is inside ``<think>``/``<thinking>`` tags and text-mode tool calls inside
``<tool_call>`` tags (an unterminated block runs to the end of the text).
"""

from __future__ import annotations

import re

THINK_RE = re.compile(r"<think(?:ing)?>(.*?)(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)
TOOL_CALL_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL | re.IGNORECASE)


def text_of(content: object) -> str:
    """Text of a message content: str, list of parts (images -> "[image]"), dict, or None."""
    if type(content) is str:
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        out: list[str] = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict):
                kind = part.get("type")
                if kind in ("image", "image_url", "input_image"):
                    out.append("[image]")
                elif kind in ("audio", "input_audio"):
                    out.append("[audio]")
                else:
                    out.append(text_of(part.get("text", part.get("content"))))
        return "\n".join(out)
    if isinstance(content, dict):
        return text_of(content.get("text", content.get("content", content.get("value"))))
    return str(content)
