// The mock's dashboard: polls GET /_mock/overview and the journal once a second and draws them.
// Everything from the mock is put in the page as text (never as HTML). Buttons POST to the
// control API; see docs/dashboard.md.
"use strict";

const POLL_MS = 1000;
const JOURNAL_PAGE = 200;

// el("tag", {attr: value, onclick: fn}, child, ...): an element; strings become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function notice(text, isError) {
  const box = document.getElementById("notice");
  box.textContent = text;
  box.classList.toggle("error", Boolean(isError));
}

// POSTs JSON to the control API (or sends `method`) and reports what it answered.
async function act(url, body, method) {
  try {
    const response = await fetch(url, method === "DELETE" ? { method } : {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body === undefined ? "{}" : JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) notice(answer.error || `${url} answered ${response.status}`, true);
    else notice(answer.message || describe(answer), false);
  } catch (e) {
    notice(`The mock did not answer: ${e}`, true);
  }
  await poll();
}

function describe(answer) {
  if (answer.credits !== undefined) return `Account ${answer.account} has ${answer.credits} credits.`;
  if (answer.now) return `Virtual time is ${answer.now}.`;
  if (answer.status) return `Response ${answer.response_id} is ${answer.status}.`;
  if (answer.removed !== undefined) return `Removed ${answer.removed} fault${answer.removed === 1 ? "" : "s"}.`;
  return "Done.";
}

// --- overview ---------------------------------------------------------------------------------

let lastOverview = "";

async function poll() {
  const live = document.getElementById("live");
  try {
    const response = await fetch("/_mock/overview");
    const text = await response.text();
    live.textContent = "live";
    live.classList.remove("stale");
    if (text !== lastOverview) {
      lastOverview = text;
      draw(JSON.parse(text));
    }
  } catch (e) {
    live.textContent = "the mock is not answering";
    live.classList.add("stale");
  }
}

function draw(o) {
  document.getElementById("mcp-url").textContent = o.mcp_url;
  document.getElementById("base-url").textContent = o.base_url;
  drawClock(o.clock);
  drawAccounts(o.accounts);
  drawThreads(o.threads);
  drawTasks(o.tasks);
  drawResponses(o.responses);
  drawFaults(o.faults || []);
}

function drawClock(clock) {
  document.getElementById("clock-now").textContent = clock.now;
  const mode = clock.mode === "manual" ? "manual (moves only when advanced)"
    : `scaled ×${clock.mode.scaled} (runs by itself)`;
  document.getElementById("clock-mode").textContent = mode;
}

function drawAccounts(accounts) {
  const rows = accounts.map((a) => {
    const refused = a.refused_before_send;
    return el("tr", { dataset: { account: a.id } },
      el("td", {}, el("strong", {}, a.id), ` ${a.name || ""}`),
      el("td", {}, a.plan_label || a.plan),
      el("td", { class: a.credits <= 0 ? "refused" : null }, a.credits),
      el("td", {}, `${a.spent_since_top_up} / ${a.spending_limit ?? "no limit"}`),
      el("td", {}, a.quota_exhausted_until ? `used up until ${a.quota_exhausted_until}` : "available"),
      el("td", { class: refused ? "refused" : null }, refused ? `refused: ${refused}` : "sent"),
      el("td", {},
        el("button", { type: "button", class: "top-up",
          onclick: () => act(`/_mock/accounts/${encodeURIComponent(a.id)}/top-up`) },
          `Top up ${a.top_up_credits}`), " ",
        el("button", { type: "button", class: "reset",
          onclick: () => act(`/_mock/accounts/${encodeURIComponent(a.id)}/reset`) }, "Reset")));
  });
  document.getElementById("accounts-body").replaceChildren(...rows);
}

// Thread cards are redrawn only when their data changed, so a half-filled answer form
// survives the polls around it.
const drawnThreads = new Map();

function drawThreads(threads) {
  const list = document.getElementById("threads-list");
  document.getElementById("threads-empty").hidden = threads.length > 0;
  const seen = new Set();
  const desired = [];
  // Newest first.
  for (const thread of [...threads].reverse()) {
    seen.add(thread.thread_id);
    const key = JSON.stringify(thread);
    let drawn = drawnThreads.get(thread.thread_id);
    if (!drawn || drawn.key !== key) {
      const node = threadCard(thread);
      if (drawn) drawn.node.replaceWith(node);
      drawn = { key, node };
      drawnThreads.set(thread.thread_id, drawn);
    }
    desired.push(drawn.node);
  }
  for (const id of [...drawnThreads.keys()]) {
    if (!seen.has(id)) drawnThreads.delete(id);
  }
  // Moving a node would take the keyboard focus away from it: reorder only when needed.
  const current = [...list.children];
  if (current.length !== desired.length || current.some((node, i) => node !== desired[i])) {
    list.replaceChildren(...desired);
  }
}

function badge(value) {
  return value ? el("span", { class: `badge ${value}` }, value) : "—";
}

function threadCard(t) {
  const base = `/_mock/threads/${encodeURIComponent(t.thread_id)}/actions`;
  const send = (body) => act(base, body);
  const stoppable = t.task_status === "working" || t.task_status === "input_required";
  return el("article", {
    class: `thread${t.waiting_on.length ? " waiting" : ""}`,
    dataset: { thread: t.thread_id, scenario: t.scenario },
    "aria-label": `Thread ${t.scenario}`,
  },
  el("h3", {}, `${t.scenario} `, el("code", {}, t.thread_id)),
  el("dl", {},
    el("dt", {}, "Owner"), el("dd", {}, t.owner),
    el("dt", {}, "Thread status"), el("dd", { class: "thread-status" }, t.status),
    el("dt", {}, "task_status"), el("dd", { class: "task-status" }, badge(t.task_status)),
    el("dt", {}, "Latest event"), el("dd", { class: "event" }, t.event || "—"),
    el("dt", {}, "Turns"), el("dd", {}, t.entries),
    t.current_step && [el("dt", {}, "Step in progress"), el("dd", {}, t.current_step)],
    t.wake_at && [el("dt", {}, "Wakes at"), el("dd", {}, t.wake_at)],
    t.last_message && [el("dt", {}, `Last message (${t.last_message.role})`),
      el("dd", { class: "last-message" }, clip(t.last_message.text, 600))]),
  t.waiting_on.map((w) => waitingBlock(t, w, send)),
  el("p", {},
    stoppable && el("button", { type: "button", class: "stop", onclick: () => send({ action: "stop" }) }, "Stop"),
    " ", el("a", { href: t.stop_url }, "stop page")));
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function waitingBlock(t, w, send) {
  const box = (title, ...body) => el("div", { class: "wait", dataset: { kind: w.kind } },
    el("strong", {}, title), ...body);
  switch (w.kind) {
    case "question": return box("Waits on an answer", questionForm(w, send));
    case "confirm": {
      const reason = el("input", { name: "reason", placeholder: "note (optional)", size: 30,
        "aria-label": "Note sent with the decision" });
      const decide = (action) => send({ action, request_id: w.request_id,
        reason: reason.value || undefined });
      return box("Waits on an approval",
        el("p", {}, `Computer wants to: ${w.action}`),
        el("div", { class: "inline" }, reason,
          el("button", { type: "button", class: "approve", onclick: () => decide("approve") }, "Approve"),
          el("button", { type: "button", class: "deny", onclick: () => decide("deny") }, "Deny")));
    }
    case "sign_in": return box(`Waits on a sign-in to ${w.display_name}`,
      el("p", { class: "inline" },
        el("button", { type: "button", class: "sign-in",
          onclick: () => send({ action: "sign_in", request_id: w.request_id }) },
          `Finish the ${w.display_name} sign-in`),
        el("a", { href: w.url, target: "_blank", rel: "noopener" }, "open its page")));
    case "form": return box(`Waits on a page only Perplexity shows: ${w.title}`,
      el("p", {}, el("a", { href: w.url, target: "_blank", rel: "noopener" }, "Open the form"),
        " — then continue the thread from the host."));
    case "credits": return box("Waits on credits",
      el("p", { class: "inline" },
        el("button", { type: "button", class: "top-up",
          onclick: () => act(`/_mock/accounts/${encodeURIComponent(t.owner)}/top-up`) },
          `Top up ${t.owner}`),
        el("a", { href: w.url, target: "_blank", rel: "noopener" }, "billing page"),
        " — then continue the thread from the host."));
    default: return box(`Waits on ${w.kind}`);
  }
}

// One form for a set of questions: choices as radio buttons (checkboxes when several may be
// picked), free text otherwise. Enter submits; Tab moves between the fields.
function questionForm(w, send) {
  const fields = w.questions.map((q, i) => {
    const name = `answer-${w.request_id}-${i}`;
    if (q.options.length === 0) {
      return el("p", {}, el("label", {}, `${q.question} `,
        el("input", { name, dataset: { question: q.id }, required: true, size: 40 })));
    }
    const type = q.allow_multiple ? "checkbox" : "radio";
    return el("fieldset", { dataset: { question: q.id, multiple: q.allow_multiple ? "1" : "0" } },
      el("legend", {}, q.question),
      q.options.map((option, j) => el("label", {},
        el("input", { type, name, value: option, required: type === "radio" && j === 0 }),
        ` ${option} `)));
  });
  const form = el("form", { class: "answer-form", dataset: { request: w.request_id } }, fields,
    el("button", { type: "submit", class: "answer" }, "Answer"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const answers = {};
    w.questions.forEach((q, i) => {
      const name = `answer-${w.request_id}-${i}`;
      const inputs = [...form.querySelectorAll(`[name="${CSS.escape(name)}"]`)];
      if (q.options.length === 0) answers[q.id] = inputs[0].value;
      else if (q.allow_multiple) answers[q.id] = inputs.filter((x) => x.checked).map((x) => x.value);
      else answers[q.id] = (inputs.find((x) => x.checked) || {}).value;
    });
    send({ action: "answer", request_id: w.request_id, answers });
  });
  return form;
}

function drawTasks(tasks) {
  const rows = tasks.map((t) => el("tr", { dataset: { task: t.task_id } },
    el("td", {}, el("code", {}, t.task_id)), el("td", {}, t.account),
    el("td", {}, el("code", {}, t.thread_id)),
    el("td", {}, badge(t.last_polled_status)), el("td", {}, t.last_polled_message || ""),
    el("td", {}, t.created_at), el("td", {}, t.last_updated_at)));
  document.getElementById("tasks-body").replaceChildren(...(rows.length ? rows
    : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No MCP tasks (clients on 2026-07-28 with the tasks extension create them)."))]));
}

function drawResponses(responses) {
  const rows = responses.map((r) => el("tr", { dataset: { response: r.id } },
    el("td", {}, el("code", {}, r.id)), el("td", {}, r.account), el("td", {}, r.scenario),
    el("td", {}, badge(r.status)),
    el("td", {}, el("ul", {}, (r.output || []).map((item) => el("li", {}, outputItem(item))))),
    el("td", {}, !r.terminal && el("button", { type: "button", class: "cancel",
      onclick: () => act(`/_mock/responses/${encodeURIComponent(r.id)}/cancel`) }, "Cancel"))));
  document.getElementById("responses-body").replaceChildren(...(rows.length ? rows
    : [el("tr", {}, el("td", { colspan: 6, class: "empty" }, "No Agent API responses yet."))]));
}

function drawFaults(faults) {
  const rows = faults.map((f) => el("tr", { dataset: { fault: f.id } },
    el("td", {}, el("code", {}, f.id)), el("td", {}, el("code", { class: "fault-spec" }, f.spec)),
    el("td", { class: "fault-hits" }, f.hits),
    el("td", { class: "fault-remaining" }, f.remaining ?? "until removed"), el("td", {}, f.from),
    el("td", {}, el("button", { type: "button", class: "remove-fault",
      "aria-label": `Remove ${f.id}`,
      onclick: () => act(`/_mock/faults?id=${encodeURIComponent(f.id)}`, undefined, "DELETE") },
    "Remove"))));
  document.getElementById("faults-body").replaceChildren(...(rows.length ? rows
    : [el("tr", {}, el("td", { colspan: 6, class: "empty" }, "No faults in force."))]));
}

function outputItem(item) {
  const text = (item.content || []).map((c) => c.text || "").join(" ");
  const what = item.name || item.server_label || text || item.summary?.map((s) => s.text).join(" ") || "";
  return `${item.type}${item.status ? ` (${item.status})` : ""}${what ? `: ${clip(what, 160)}` : ""}`;
}

// --- journal ----------------------------------------------------------------------------------

let journalNext = 0;
let journalFilter = "";
const journalRows = new Map();

function filterQuery(form) {
  const params = new URLSearchParams();
  for (const name of ["path", "method", "status"]) {
    const value = form.elements[name].value.trim();
    if (value) params.set(name, value);
  }
  return params.toString();
}

async function pollJournal() {
  const query = `since=${journalNext}&limit=${JOURNAL_PAGE}${journalFilter ? `&${journalFilter}` : ""}`;
  let text;
  try {
    const response = await fetch(`/_mock/journal?${query}`);
    text = await response.text();
    if (!response.ok) {
      notice(JSON.parse(text).error || `the journal answered ${response.status}`, true);
      return;
    }
  } catch (e) {
    return;
  }
  const list = document.getElementById("journal-list");
  let inProgress = null;
  for (const line of text.split("\n")) {
    if (!line) continue;
    const item = JSON.parse(line);
    if (item.dropped !== undefined) {
      list.append(el("p", { class: "hint" }, `${item.dropped} exchanges before #${item.before_seq} were dropped from the journal.`));
      continue;
    }
    const node = exchangeRow(item);
    const old = journalRows.get(item.seq);
    if (old) old.replaceWith(node); else list.append(node);
    journalRows.set(item.seq, node);
    // An exchange still streaming is read again until it ends.
    if (item.status === 0 && inProgress === null) inProgress = item.seq;
    journalNext = Math.max(journalNext, item.seq + 1);
  }
  if (inProgress !== null) journalNext = inProgress;
  document.getElementById("journal-count").textContent = `${journalRows.size} shown`;
}

function exchangeRow(x) {
  const open = journalRows.get(x.seq)?.open;
  const status = x.status === 0 ? "…" : String(x.status);
  const query = x.query ? `?${x.query}` : "";
  const rpc = x.request_body && typeof x.request_body === "object" && x.request_body.method
    ? ` ${x.request_body.method}${x.request_body.params?.name ? ` ${x.request_body.params.name}` : ""}` : "";
  const pretty = (v) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));
  // Fields with nothing in them are left out of a journal line.
  const events = x.sse_events || [];
  return el("details", { class: "exchange", open, dataset: { seq: x.seq } },
    el("summary", {}, `#${x.seq} ${x.virtual_time} `, el("strong", {}, x.method), ` ${x.path}${query} `,
      el("span", { class: `status-${status[0]}` }, status), rpc,
      events.length ? ` (${events.length} SSE events)` : ""),
    el("h4", {}, "Request headers"), el("pre", {}, pretty(x.request_headers)),
    x.request_body != null && [el("h4", {}, `Request body (${x.request_body_length} bytes${x.request_body_truncated ? ", cut" : ""})`),
      el("pre", {}, pretty(x.request_body))],
    el("h4", {}, "Response headers"), el("pre", {}, pretty(x.response_headers)),
    x.response_body != null && [el("h4", {}, `Response body (${x.response_body_length} bytes${x.response_body_truncated ? ", cut" : ""})`),
      el("pre", {}, pretty(x.response_body))],
    events.length > 0 && [el("h4", {}, "Server-sent events"),
      el("ol", {}, events.map((e) => el("li", {}, el("small", {}, e.virtual_time), el("pre", {}, pretty(e.data)))))]);
}

function restartJournal() {
  journalNext = 0;
  journalRows.clear();
  document.getElementById("journal-list").replaceChildren();
  pollJournal();
}

// --- wiring -----------------------------------------------------------------------------------

function start() {
  const filter = document.getElementById("journal-filter");
  if (location.pathname === "/_mock/journal") {
    document.body.classList.add("journal-only");
    // The page's own query string is the first filter: /_mock/journal?path=/v1/*
    const params = new URLSearchParams(location.search);
    for (const name of ["path", "method", "status"]) {
      if (params.get(name)) filter.elements[name].value = params.get(name);
    }
  }
  journalFilter = filterQuery(filter);
  filter.addEventListener("submit", (event) => {
    event.preventDefault();
    journalFilter = filterQuery(filter);
    restartJournal();
  });
  filter.addEventListener("reset", () => setTimeout(() => {
    journalFilter = "";
    restartJournal();
  }));
  const advance = (ms) => act("/_mock/clock/advance", { ms });
  document.querySelectorAll("[data-advance]").forEach((button) =>
    button.addEventListener("click", () => advance(Number(button.dataset.advance))));
  document.getElementById("advance-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const ms = Number(document.getElementById("advance-ms").value);
    if (ms > 0) advance(ms); else notice("Enter a number of milliseconds to advance by.", true);
  });
  document.getElementById("reset-all").addEventListener("click", () => {
    act("/_mock/reset").then(restartJournal);
  });
  poll();
  pollJournal();
  setInterval(poll, POLL_MS);
  setInterval(pollJournal, POLL_MS);
}

document.addEventListener("DOMContentLoaded", start);
