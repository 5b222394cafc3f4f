"""Conversation submissions on the HTML report and the labelling page, in a real headless
Chromium (Debian's `chromium`): turns with their roles, tool calls and thinking folded, tool
results with the call they answer, markup shown as text, turn and tool-call counts in the rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from html_support import cli, parse
from playwright.sync_api import Browser, Locator

from autorubric_cli.report.html.items import decode_payload
from tests.support.browser import Watched, headless_chromium
from tests.support.conversations import (
    AGENT_RUN,
    LONG_RESULT,
    PLAIN_ID,
    REFUSAL_ID,
    SUPPORT_CHAT_DEVELOPER,
    XSS_ID,
    XSS_IMG,
    XSS_SCRIPT,
    agent_run_with_markup,
    view_rows,
    write_dataset,
)

AGENT_ROLES = ["system", "user", "assistant", "tool", "assistant", "tool", "tool", "assistant"]


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("conversations")
    rubric, data = write_dataset(tmp, view_rows())
    out = tmp / "exp"
    result = cli("run", rubric, data, "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    labelled = cli("label", out)
    assert labelled.exit_code == 0, labelled.output
    return out


@pytest.fixture(scope="module")
def browser(experiment: Path) -> Iterator[Browser]:
    with headless_chromium() as browser:
        yield browser


@pytest.fixture
def report(browser: Browser, experiment: Path) -> Iterator[Watched]:
    watched = Watched(browser, (experiment / "report.html").as_uri(), "body[data-items-ready]")
    yield watched
    watched.page.close()


@pytest.fixture
def label(browser: Browser, experiment: Path) -> Iterator[Watched]:
    watched = Watched(browser, (experiment / "label.html").as_uri(), "body[data-ready]")
    yield watched
    watched.page.close()


def test_the_pages_carry_the_conversation_as_given(experiment: Path) -> None:
    rows = {r["id"]: r for r in parse(experiment / "report.html").items()}
    assert rows["agent-1"]["conv"] == AGENT_RUN
    assert rows[XSS_ID]["conv"] == agent_run_with_markup()
    assert rows["support-2"]["conv"] == SUPPORT_CHAT_DEVELOPER  # given as {"messages": [...]}
    assert "sub" not in rows["agent-1"] and "conv" not in rows[PLAIN_ID]
    assert rows[PLAIN_ID]["sub"].startswith("A plain answer")
    page = (experiment / "label.html").read_text()
    payload = page.split('id="label-data">', 1)[1].split("<", 1)[0]
    labels = {r["id"]: r for r in decode_payload(payload.strip())}
    assert labels["support-2"]["conv"] == SUPPORT_CHAT_DEVELOPER
    assert labels[PLAIN_ID]["sub"].startswith("A plain answer")


def turns(box: Locator) -> list[str]:
    return [str(t.get_attribute("data-role")) for t in box.locator(".turn").all()]


def check_agent_run(box: Locator) -> None:
    """The agent run drawn as turns: roles in order, calls folded, results with their call,
    the tool result's markup as text and no element made from it."""
    assert turns(box) == AGENT_ROLES
    heads = box.locator(".turn-head").all_inner_texts()
    assert heads[0].split() == ["1", "SYSTEM"]
    assert "result of search_flights (call_search)" in heads[3]
    assert "result of send_email (call_mail)" in heads[6]
    assert heads[7].split() == ["8", "ASSISTANT", "final", "turn"]
    assert box.locator(".turn.final").count() == 1
    calls = box.locator("details.tool-call")
    assert calls.count() == 3
    assert all(not c.evaluate("d => d.open") for c in calls.all())
    names = calls.locator("summary .tool-name").all_inner_texts()
    assert names == [
        "tool call · search_flights",
        "tool call · book_flight",
        "tool call · send_email",
    ]
    line = calls.nth(0).locator("summary .tool-args-line").inner_text()
    assert line == '{"from":"OSL","to":"FCO","date":"2026-05-03"} (call_search)'
    calls.nth(2).locator("summary").click()  # arguments given as an object
    assert json.loads(calls.nth(2).locator("pre.tool-args").inner_text()) == {
        "subject": "Your booking"
    }
    folded = box.locator(".turn").nth(6).locator("details.tool-output")  # the 40-line log
    assert not folded.evaluate("d => d.open")
    assert folded.locator("summary").inner_text().startswith("output · 40 lines · ")
    folded.locator("summary").click()
    assert folded.locator("pre.tool-result").inner_text() == LONG_RESULT
    assert box.locator("details.tool-output").count() == 1  # short results are shown
    result = box.locator("pre.tool-result").first.inner_text()
    assert XSS_SCRIPT in result and XSS_IMG in result
    assert box.locator("script, img").count() == 0


def test_the_report_draws_a_conversation_as_turns(report: Watched) -> None:
    page = report.page
    page.click(f"tr.item-row[data-id={XSS_ID}]")
    detail = page.locator(f"tr.detail-row[data-detail-for={XSS_ID}]")
    assert "Conversation · 8 turns · 3 tool calls" in detail.locator("h4").all_inner_texts()
    check_agent_run(detail.locator(".conversation"))
    # a final_turn criterion says what it grades on a conversation, as the labelling page does
    scopes = detail.locator(".crit-scope")
    assert scopes.count() == 1 and scopes.inner_text().startswith("scope: final turn")
    assert detail.locator("tr.criterion-row[data-criterion=polite] .crit-scope").count() == 1
    page.click(f"tr.item-row[data-id={PLAIN_ID}]")
    plain = page.locator(f"tr.detail-row[data-detail-for={PLAIN_ID}]")
    assert plain.locator("tr.criterion-row").count() == 3
    assert plain.locator(".crit-scope").count() == 0  # a text is graded whole
    page.wait_for_timeout(200)
    assert report.dialogs == [] and report.errors == []


def test_the_item_rows_count_turns_and_tool_calls(report: Watched) -> None:
    page = report.page
    counts = {
        str(r.get_attribute("data-id")): r.locator("td.turns").inner_text()
        for r in page.locator("tr.item-row").all()
    }
    assert counts == {
        "support-1": "5 turns · 0 tool calls",
        "support-2": "5 turns · 0 tool calls",
        "agent-1": "8 turns · 3 tool calls",
        "reasoning-1": "4 turns · 0 tool calls",
        XSS_ID: "8 turns · 3 tool calls",
        REFUSAL_ID: "2 turns · 0 tool calls",
        PLAIN_ID: "",
    }
    page.click("th[data-col=turns]")
    ids = [r.get_attribute("data-id") for r in page.locator("tr.item-row").all()]
    assert ids[0] == REFUSAL_ID and ids[-3:] == ["agent-1", XSS_ID, PLAIN_ID]
    page.fill("#search", "send_email")  # a tool name is searched too
    found = [r.get_attribute("data-id") for r in page.locator("tr.item-row").all()]
    assert found == ["agent-1", XSS_ID]


def test_thinking_is_folded_media_and_developer_are_marked_plain_text_is_a_block(
    report: Watched,
) -> None:
    page = report.page
    page.click("tr.item-row[data-id=support-1]")
    chat = page.locator("tr.detail-row[data-detail-for=support-1] .turn")
    assert chat.nth(3).locator("pre").inner_text() == "Yes, here is a photo.\n[image]"
    page.click(f"tr.item-row[data-id={REFUSAL_ID}]")
    refusal = page.locator(f"tr.detail-row[data-detail-for={REFUSAL_ID}] .turn")
    assert refusal.nth(0).locator("pre").inner_text().endswith("\n[audio]\n[file]")
    assert refusal.nth(1).locator(".turn-head").inner_text().split() == [
        "2",
        "ASSISTANT",
        "(refusal)",
        "final",
        "turn",
    ]
    assert refusal.nth(1).locator("pre").inner_text() == "I cannot push to main."
    page.click("tr.item-row[data-id=support-2]")
    heads = page.locator("tr.detail-row[data-detail-for=support-2] .turn-head")
    assert heads.nth(0).inner_text().split() == ["1", "SYSTEM", "(developer)"]
    assert heads.nth(1).inner_text().split() == ["2", "USER", "claire"]  # the `name` given
    page.click("tr.item-row[data-id=reasoning-1]")
    box = page.locator("tr.detail-row[data-detail-for=reasoning-1] .conversation")
    assert turns(box) == ["user", "assistant", "user", "assistant"]
    folded = box.locator("details.thinking")
    assert folded.count() == 2
    assert not any(d.evaluate("d => d.open") for d in folded.all())
    for d in folded.all():
        d.locator("summary").click()
    assert folded.locator("pre").all_inner_texts() == [
        "221 = 13 * 17, so it is not prime.",  # `reasoning`
        "Check primes up to 14: 2 3 5 7 11 13 do not divide 223.",  # `thinking`
    ]
    page.click(f"tr.item-row[data-id={PLAIN_ID}]")
    plain = page.locator(f"tr.detail-row[data-detail-for={PLAIN_ID}]")
    assert plain.locator(".conversation").count() == 0
    assert plain.locator("pre.submission").inner_text().startswith("A plain answer")


def test_the_labelling_page_draws_a_conversation_as_turns(label: Watched) -> None:
    page = label.page
    page.evaluate(f"window.autorubricLabel.openId({json.dumps(XSS_ID)})")
    assert page.locator("#submission").is_hidden()
    assert page.inner_text("#submission-counts") == "8 turns · 3 tool calls"
    check_agent_run(page.locator("#conversation-box"))
    assert page.locator("#item script, #item img").count() == 0
    scopes = page.locator(".criterion .scope")
    assert scopes.count() == 1 and "final turn" in scopes.inner_text()
    assert page.locator(".criterion[data-criterion=polite] .scope").count() == 1
    page.evaluate(f"window.autorubricLabel.openId({json.dumps(PLAIN_ID)})")
    assert page.locator("#conversation-box").is_hidden()
    assert page.inner_text("#submission").startswith("A plain answer")
    assert page.inner_text("#submission-counts") == ""
    assert page.locator(".criterion .scope").count() == 0  # a text is graded whole
    page.wait_for_timeout(200)
    assert label.dialogs == [] and label.errors == []
