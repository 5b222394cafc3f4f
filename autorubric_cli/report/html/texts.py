"""What the HTML report and the labelling page show of an item's texts: its submission, query
and reference, read from its record (docs/reference/experiment-directory.md: records keep what
was graded, so a directory moved or copied without its dataset still shows every item).

Records written before they kept the submission are the one case that reads the dataset: its
texts are shown when it is still at its path and unchanged (SHA-256 of the run), and a note
says why they are not otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autorubric_cli.core.conversation import as_given
from autorubric_cli.core.items import GivenSubmission
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import Manifest, sha256_file
from autorubric_cli.loading.dataset import iter_items

TEXT_CAP = 20_000
"""Characters kept of one text (submission, reason, ...); the rest is cut and marked."""


def cut(text: str | None) -> str | None:
    if text is None or len(text) <= TEXT_CAP:
        return text
    return text[:TEXT_CAP] + f" … [cut: {len(text) - TEXT_CAP:,} more characters]"


def cut_texts(value: Any) -> Any:
    """A JSON value with every string in it cut as `cut` does."""
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, list):
        return [cut_texts(v) for v in value]
    if isinstance(value, dict):
        return {k: cut_texts(v) for k, v in value.items()}
    return value


def final_turns(submission: GivenSubmission) -> list[dict[str, Any]]:
    """The submission as the turns that end a transcript after a context: a conversation's
    messages, or one assistant message (a text, with its thinking as `reasoning`)."""
    if isinstance(submission, list):
        return submission
    if isinstance(submission, dict):
        turn = {"role": "assistant", "content": submission.get("output")}
        thinking = submission.get("thinking")
        return [turn | {"reasoning": thinking}] if thinking is not None else [turn]
    return [{"role": "assistant", "content": submission}]


def shown_texts(
    submission: GivenSubmission,
    query: str | None,
    reference: str | None,
    context: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """What a page shows of an item: `q` (query), `ref` (reference submission, when there is
    one), and `conv` (a conversation's messages as given; with a context, the context's turns
    then the submission as the final assistant turn, as the judges saw it, `ctx` counting the
    context's turns) or `sub` and `th` (the text and its thinking); long texts cut."""
    fields: dict[str, Any] = {"q": cut(query)}
    if reference is not None:
        fields["ref"] = cut(reference)
    if context is not None:
        fields["conv"] = cut_texts([*context, *final_turns(submission)])
        fields["ctx"] = len(context)
    elif isinstance(submission, list):
        fields["conv"] = cut_texts(submission)
    elif isinstance(submission, dict):
        fields["sub"], fields["th"] = cut(submission.get("output")), cut(submission.get("thinking"))
    else:
        fields["sub"], fields["th"] = cut(submission), None
    return fields


def item_texts(
    records: Iterable[ItemRecord], manifest: Manifest, rubric: Rubric
) -> tuple[dict[str, Any], str | None]:
    """id -> the item's `shown_texts`, from its record; from the dataset for older records
    (with a note saying why they are missing when the dataset cannot give them)."""
    texts: dict[str, Any] = {}
    older: set[str] = set()
    for record in records:
        if record.submission is None:
            older.add(record.id)
        else:
            texts[record.id] = shown_texts(
                record.submission, record.query, record.reference_submission, record.context
            )
    if not older:
        return texts, None
    found, reason = dataset_texts(manifest, rubric, older)
    if reason is None:
        return texts | found, None
    if not texts:
        return texts, f"submissions are not shown: {reason}"
    return texts, (
        f"the submissions of {plural(len(older), 'item')} recorded by an older version are not "
        "shown: "
        f"{reason}"
    )


def dataset_texts(
    manifest: Manifest, rubric: Rubric, ids: set[str]
) -> tuple[dict[str, Any], str | None]:
    """id -> `shown_texts` from the experiment's dataset, when it is unchanged; when it is gone
    or changed, the reason instead of the wrong text."""
    path = Path(manifest.dataset.path)
    if not path.is_file():
        return {}, f"the dataset {path} is not there"
    try:
        if sha256_file(path) != manifest.dataset.sha256:
            return {}, f"the dataset {path} changed since the run"
        texts = {}
        for item in iter_items(path, rubric, manifest.dataset_fields):
            if item.id in ids:
                given = item.submission.as_given()
                context = None if item.context is None else as_given(item.context)
                texts[item.id] = shown_texts(given, item.query, item.reference_submission, context)
    except (InputError, OSError) as exc:
        return {}, f"the dataset cannot be read ({exc})"
    return texts, None
