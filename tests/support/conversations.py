"""A small hand-written conversation dataset (support chats, an agent run with several tool
calls, a reasoning model's turns) and a rubric for it, for the tests that run conversations
through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(1)>"
AGENT_ID = "agent-refund"

RUBRIC = """\
name: support-conversations
criteria:
  - name: resolved
    requirement: "The assistant resolves the customer's problem by the end of the conversation"
    weight: 10
  - name: polite
    requirement: "Every assistant turn is polite"
    weight: 4
  - name: turns
    requirement: "Is the number of exchange turns appropriate?"
    weight: 6
    scale_type: ordinal
    options:
      - {label: "Too many", value: 0.0}
      - {label: "About right", value: 1.0}
grader:
  judges:
    - {model: simulated/careful, id: careful, params: {accuracy: 0.9, seed: 1}}
    - {model: simulated/hasty, id: hasty, params: {accuracy: 0.7, seed: 2}}
  seed: 7
"""


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def support_chat(number: int) -> dict[str, Any]:
    return {
        "id": f"chat-{number}",
        "query": "Help with a late parcel",
        "submission": [
            {"role": "system", "content": "You are a friendly support agent."},
            {"role": "user", "content": f"Where is my parcel {number}? It is a week late."},
            {"role": "assistant", "content": "Sorry for the wait. Let me check that for you."},
            {"role": "user", "content": "Thanks."},
            {"role": "assistant", "content": f"Parcel {number} arrives tomorrow before noon."},
        ],
        "ground_truth": {"resolved": "MET", "polite": "MET"},
    }


def agent_run() -> dict[str, Any]:
    """An agent with three tool calls (two in one turn); one tool result holds markup."""
    return {
        "id": AGENT_ID,
        "submission": {
            "messages": [
                {"role": "developer", "content": "You are a refund agent. Use the tools."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "My order 1182 arrived broken, photo attached."},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
                    ],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "reasoning": "look the order up first",
                    "tool_calls": [call("c1", "get_order", {"id": 1182})],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": f'{{"status": "delivered", "note": "{XSS_SCRIPT} {XSS_IMG}"}}',
                },
                {
                    "role": "assistant",
                    "content": "I will issue a replacement and a refund of the shipping.",
                    "tool_calls": [
                        call("c2", "create_replacement", {"order": 1182}),
                        call("c3", "refund_shipping", {"order": 1182, "amount": 4.99}),
                    ],
                },
                {"role": "tool", "tool_call_id": "c2", "content": "replacement R-77 created"},
                {"role": "tool", "tool_call_id": "c3", "content": "refunded 4.99"},
                {"role": "assistant", "content": "Done: replacement R-77 ships today."},
            ]
        },
        "ground_truth": {"resolved": "MET"},
    }


def reasoning_turns() -> dict[str, Any]:
    return {
        "id": "reasoning-1",
        "query": "Is 1182 a prime number?",
        "submission": [
            {"role": "user", "content": "Is 1182 a prime number?"},
            {
                "role": "assistant",
                "thinking": "1182 is even, so it is divisible by 2.",
                "content": "No: 1182 is even (1182 = 2 x 591).",
            },
            {"role": "user", "content": "And 591?"},
            {
                "role": "assistant",
                "reasoning": "5+9+1 = 15, divisible by 3: 591 = 3 x 197.",
                "content": "591 = 3 x 197, so it is not prime either.",
            },
        ],
    }


def conversation_rows(chats: int = 3) -> list[dict[str, Any]]:
    """`chats` support chats, the agent run, the reasoning turns and one plain-text item."""
    rows = [support_chat(n) for n in range(1, chats + 1)]
    rows += [agent_run(), reasoning_turns()]
    rows.append({"id": "plain-1", "submission": "A plain answer: the parcel arrives tomorrow."})
    return rows


def write_conversations(directory: Path, chats: int = 3) -> tuple[Path, Path]:
    """(rubric, dataset) written under `directory`."""
    rubric = directory / "conversations.yaml"
    rubric.write_text(RUBRIC)
    data = directory / "conversations.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in conversation_rows(chats)))
    return rubric, data
