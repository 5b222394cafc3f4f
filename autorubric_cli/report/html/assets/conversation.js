// A conversation submission (chat-format messages) drawn as turns, for the report and the
// labelling page (inlined after dom.js). Every string goes in through textContent.
var autorubricConversation = (function () {
  "use strict";
  var el = autorubricEl;
  var PARTS = { image_url: "image", input_image: "image", image: "image", input_audio: "audio",
    audio: "audio", video: "video", video_url: "video", file: "file", input_file: "file", document: "file" };
  var LONG_LINES = 12, LONG_CHARS = 1200;  // a longer tool result is folded
  var TEXT_PARTS = { text: "text", input_text: "text", output_text: "text", refusal: "refusal" };

  function str(v) { return typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v, null, 2); }
  function partText(part) {
    if (typeof part === "string") return part;
    if (!part || typeof part !== "object") return "";
    if (TEXT_PARTS[part.type]) return str(part[TEXT_PARTS[part.type]]);
    return "[" + (PARTS[part.type] || part.type || "part") + "]";
  }
  // The text of a message: its content (a string, or parts: non-text parts as [image] ...), or
  // the refusal of an assistant that gave no content.
  function isRefusal(m) { return (m.content === null || m.content === undefined) && typeof m.refusal === "string"; }
  function contentText(m) {
    if (Array.isArray(m.content)) return m.content.map(partText).join("\n");
    return isRefusal(m) ? m.refusal : str(m.content);
  }
  function calls(m) { return Array.isArray(m.tool_calls) ? m.tool_calls : []; }
  function callName(call) { return str((call.function || {}).name || call.name) || "(unnamed)"; }
  // Arguments as given; JSON (a string holding it, or an object) shown indented, or on one line.
  function argumentsText(call, indent) {
    var args = (call.function || {}).arguments;
    if (args === undefined) args = call.arguments;
    if (typeof args === "string") {
      try { args = JSON.parse(args); } catch (e) { return args; }
    }
    return args === undefined ? "" : JSON.stringify(args, null, indent);
  }
  function oneLine(text, max) {
    var flat = text.replace(/\s+/g, " ").trim();
    return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
  }
  function thinkingOf(m) {
    var found = [m.reasoning, m.thinking, m.reasoning_content].filter(function (t) { return t !== null && t !== undefined; });
    return found.length ? str(found[0]) : "";
  }

  // The messages of a submission when it is a conversation, else null.
  function messagesOf(sub) {
    if (Array.isArray(sub)) return sub;
    if (sub && typeof sub === "object" && Array.isArray(sub.messages)) return sub.messages;
    return null;
  }
  function counts(messages) {
    return { turns: messages.length, calls: messages.reduce(function (n, m) { return n + calls(m || {}).length; }, 0) };
  }
  function plural(n, word) { return String(n).replace(/\B(?=(\d{3})+$)/g, ",") + " " + word + (n === 1 ? "" : "s"); }
  function summary(messages) {
    var c = counts(messages);
    return plural(c.turns, "turn") + " · " + plural(c.calls, "tool call");
  }
  // Every text of the conversation in one string, for search.
  function searchText(messages) {
    return messages.map(function (m) {
      m = m || {};
      return [contentText(m), thinkingOf(m)].concat(calls(m).map(function (c) {
        return callName(c) + " " + argumentsText(c, 0);
      })).join("\n");
    }).join("\n");
  }

  function callBox(call) {
    var id = call.id ? " (" + call.id + ")" : "";
    return el("details", { cls: "tool-call", "data-call-id": str(call.id) }, [
      el("summary", {}, [el("span", { cls: "tool-name", text: "tool call · " + callName(call) }),
        el("span", { cls: "tool-args-line", text: oneLine(argumentsText(call, 0), 90) + id })]),
      el("pre", { cls: "tool-args", text: argumentsText(call, 2) })]);
  }
  function answered(m, byId) {
    var id = str(m.tool_call_id);
    var call = byId[id];
    if (call) return "result of " + callName(call) + " (" + id + ")";
    if (m.name) return "result of " + str(m.name) + (id ? " (" + id + ")" : "");
    return id ? "result of call " + id + " (no such call above)" : "tool result";
  }
  // A tool result: shown when short, folded to its size and first line when long.
  function toolResult(text) {
    var pre = el("pre", { cls: "turn-text tool-result", text: text || "(no content)" });
    var lines = text.split("\n").length;
    if (lines <= LONG_LINES && text.length <= LONG_CHARS) return pre;
    return el("details", { cls: "tool-output" }, [
      el("summary", {}, [el("span", { cls: "tool-size", text: "output · " + plural(lines, "line") + " · " + plural(text.length, "character") }),
        el("span", { cls: "tool-args-line", text: oneLine(text.split("\n")[0], 80) })]), pre]);
  }
  function turn(m, i, byId, final) {
    m = m || {};
    var role = str(m.role) || "?";
    var shown = role === "developer" ? "system" : role;
    var head = [el("span", { cls: "turn-n", text: String(i + 1) }), el("span", { cls: "role", text: shown })];
    if (role !== shown) head.push(el("span", { cls: "turn-note", text: "(developer)" }));
    if (m.name && role !== "tool") head.push(el("span", { cls: "turn-name", text: str(m.name) }));
    if (role === "tool") head.push(el("span", { cls: "turn-note answers", text: answered(m, byId) }));
    if (isRefusal(m)) head.push(el("span", { cls: "turn-note", text: "(refusal)" }));
    if (i === final) head.push(el("span", { cls: "turn-final", text: "final turn" }));
    var box = el("div", { cls: "turn role-" + shown + (i === final ? " final" : ""), "data-turn": String(i + 1), "data-role": shown }, [el("div", { cls: "turn-head" }, head)]);
    var thinking = thinkingOf(m);
    if (thinking) {
      box.appendChild(el("details", { cls: "thinking" }, [
        el("summary", { text: "thinking (" + plural(thinking.trim().split(/\s+/).length, "word") + ")" }),
        el("pre", { text: thinking })]));
    }
    var text = contentText(m);
    if (role === "tool") box.appendChild(toolResult(text));
    else if (text || !calls(m).length) box.appendChild(el("pre", { cls: "turn-text", text: text || "(no content)" }));
    calls(m).forEach(function (c) { byId[str(c.id)] = c; box.appendChild(callBox(c)); });
    return box;
  }
  // The conversation as a list of turns, numbered, with their roles; the last assistant turn
  // (what a final_turn criterion grades) is marked.
  function render(messages) {
    var byId = {}, final = -1;
    messages.forEach(function (m, i) { if (m && m.role === "assistant") final = i; });
    return el("div", { cls: "conversation" }, messages.map(function (m, i) { return turn(m, i, byId, final); }));
  }
  return { messagesOf: messagesOf, counts: counts, summary: summary, searchText: searchText, render: render };
})();
