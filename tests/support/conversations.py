"""A hand-written conversation dataset: support chats, an agent run with several tool calls, a
reasoning model's turns. Shared by the conversation tests, the fuzz seeds and the prompt-caching
bench, so each reads the same transcripts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SUPPORT_CHAT: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a refund agent for Acme. Be brief and kind."},
    {"role": "user", "content": "My order 1182 arrived broken."},
    {"role": "assistant", "content": "I am sorry to hear that. Was it the blue kettle?"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Yes, here is a photo."},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    },
    {"role": "assistant", "content": "Thank you. I have issued a replacement; it ships today."},
]

SUPPORT_CHAT_DEVELOPER: list[dict[str, Any]] = [
    {"role": "developer", "content": "Answer in French only."},
    {"role": "user", "content": "Where is my parcel?", "name": "claire"},
    {"role": "assistant", "content": "Votre colis arrive demain."},
    {"role": "user", "content": "Merci !"},
    {"role": "assistant", "content": "Avec plaisir."},
]

AGENT_RUN: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a travel agent with tools."},
    {"role": "user", "content": "Book the cheapest flight from Oslo to Rome on 3 May."},
    {
        "role": "assistant",
        "content": "Searching flights.",
        "tool_calls": [
            {
                "id": "call_search",
                "type": "function",
                "function": {
                    "name": "search_flights",
                    "arguments": json.dumps({"from": "OSL", "to": "FCO", "date": "2026-05-03"}),
                },
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_search",
        "content": json.dumps([{"flight": "SK4711", "eur": 129}, {"flight": "FR201", "eur": 89}]),
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_book",
                "type": "function",
                "function": {"name": "book_flight", "arguments": '{"flight": "FR201"}'},
            },
            {
                "id": "call_mail",
                "type": "function",
                "function": {"name": "send_email", "arguments": {"subject": "Your booking"}},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_book", "content": '{"booking": "PNR-77"}'},
    {"role": "tool", "tool_call_id": "call_mail", "content": "sent"},
    {"role": "assistant", "content": "Booked FR201 for 89 EUR, reference PNR-77; details emailed."},
]

REASONING_TURNS: list[dict[str, Any]] = [
    {"role": "user", "content": "Is 221 prime?"},
    {
        "role": "assistant",
        "reasoning": "221 = 13 * 17, so it is not prime.",
        "content": "No: 221 is 13 times 17.",
    },
    {"role": "user", "content": "And 223?"},
    {
        "role": "assistant",
        "thinking": "Check primes up to 14: 2 3 5 7 11 13 do not divide 223.",
        "content": "Yes, 223 is prime.",
    },
]

CONVERSATIONS: dict[str, list[dict[str, Any]]] = {
    "support-1": SUPPORT_CHAT,
    "support-2": SUPPORT_CHAT_DEVELOPER,
    "agent-1": AGENT_RUN,
    "reasoning-1": REASONING_TURNS,
}


def rows() -> list[dict[str, Any]]:
    """The dataset's records: the list form, and one `{"messages": ...}` object."""
    out = []
    for position, (item_id, messages) in enumerate(CONVERSATIONS.items()):
        submission: Any = {"messages": messages} if position == 1 else messages
        out.append({"id": item_id, "submission": submission, "query": "Grade the assistant."})
    return out


def jsonl_text() -> str:
    return "".join(json.dumps(r) + "\n" for r in rows())


def message_texts(messages: list[dict[str, Any]]) -> list[str]:
    """Every text a judge must see, in order: each message's reasoning, text, and tool calls
    (name and arguments)."""
    found = []
    for message in messages:
        for key in ("reasoning", "thinking"):
            if message.get(key):
                found.append(message[key])
        content = message.get("content")
        if isinstance(content, str):
            found.append(content)
        elif isinstance(content, list):
            found.extend(p["text"] for p in content if p.get("type") == "text")
        for call in message.get("tool_calls") or ():
            arguments = call["function"].get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, separators=(",", ":"))
            found += [f'<tool_call id="{call["id"]}" name="{call["function"]["name"]}">', arguments]
    return found


# --- the pages' view of conversations: a rubric, one agent run whose tool result holds markup,
# and one plain-text item beside the conversations ------------------------------------------

XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(1)>"
XSS_ID = "agent-xss"
PLAIN_ID = "plain-1"

RUBRIC = """\
name: support-conversations
criteria:
  - name: resolved
    requirement: "The assistant resolves the user's problem by the end of the conversation"
    weight: 10
  - name: polite
    requirement: "The final reply is polite"
    weight: 4
    scope: final_turn
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


LONG_RESULT = "\n".join(f"smtp: line {n} of the mail server's log" for n in range(1, 41))


def agent_run_with_markup() -> list[dict[str, Any]]:
    """The agent run, its first tool result holding a script tag and an onerror attribute, its
    last one a 40-line log."""
    messages = json.loads(json.dumps(AGENT_RUN))
    messages[3]["content"] = json.dumps({"flight": "FR201", "note": f"{XSS_SCRIPT} {XSS_IMG}"})
    messages[6]["content"] = LONG_RESULT
    return messages


REFUSAL_ID = "refusal-1"
REFUSAL: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Push my recording and the contract to main."},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "file", "file": {"file_id": "file-1"}},
        ],
    },
    {"role": "assistant", "content": None, "refusal": "I cannot push to main."},
]


def view_rows() -> list[dict[str, Any]]:
    """`rows()`, the agent run with markup, a refusal, and a plain-text item."""
    return [
        *rows(),
        {"id": XSS_ID, "submission": agent_run_with_markup()},
        {"id": REFUSAL_ID, "submission": REFUSAL},
        {"id": PLAIN_ID, "submission": "A plain answer: the parcel arrives tomorrow."},
    ]


def write_dataset(directory: Path, records: list[dict[str, Any]]) -> tuple[Path, Path]:
    """(rubric, dataset) written under `directory`: RUBRIC and the records as JSONL."""
    rubric = directory / "conversations.yaml"
    rubric.write_text(RUBRIC)
    data = directory / "conversations.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    return rubric, data
