"""A tiny Inspect AI task for the tests that read Inspect logs: `inspect eval` runs it with the
offline `mockllm/model`. A solver adds a reasoning assistant turn with a tool call and its tool
result before the model's reply, so the log holds every kind of message the reader converts."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
)
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver, system_message
from inspect_ai.tool import ToolCall


@solver
def looked_up() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        call = ToolCall(id="call_1", function="lookup", arguments={"q": state.input_text})
        state.messages.append(
            ChatMessageAssistant(
                content=[
                    ContentReasoning(reasoning="I should check the table first."),
                    ContentText(text="Looking it up."),
                ],
                tool_calls=[call],
            )
        )
        state.messages.append(
            ChatMessageTool(content="42", tool_call_id="call_1", function="lookup")
        )
        return state

    return solve


@task
def conversations() -> Task:
    return Task(
        dataset=[
            Sample(
                id="six-sevens",
                input="What is six times seven?",
                target="42",
                metadata={"topic": "math"},
            ),
            Sample(id=2, input=[ChatMessageUser(content="Say hi")], target=["hi", "hello"]),
        ],
        solver=[system_message("Be brief."), looked_up(), generate()],
        scorer=match(),
    )
