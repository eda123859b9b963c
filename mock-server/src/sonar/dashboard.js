// The dashboard's Sonar panel: polls GET /_mock/sonar once a second and draws the recent
// chat completions, async chat, search and embeddings calls and every async job. Everything
// from the mock is put in the page as text (never as HTML); see docs/dashboard.md.
"use strict";

(() => {
  const POLL_MS = 1000;
  let last = "";

  function cell(text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text === null || text === undefined ? "" : String(text);
    return td;
  }

  function row(...cells) {
    const tr = document.createElement("tr");
    tr.append(...cells);
    return tr;
  }

  function empty(columns, text) {
    const td = cell(text, "empty");
    td.colSpan = columns;
    return row(td);
  }

  function when(seconds) {
    return seconds ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z") : "";
  }

  function draw(panel) {
    const calls = panel.calls.map((c) => row(cell(c.at), cell(c.route), cell(c.account),
      cell(c.model), cell(c.scenario), cell(c.status, c.status >= 400 ? "refused" : null),
      cell(c.credits), cell(c.id)));
    document.getElementById("sonar-calls-body").replaceChildren(...(calls.length ? calls
      : [empty(8, "No Sonar calls yet. POST /chat/completions, /search or /v1/embeddings.")]));
    const jobs = panel.jobs.map((j) => row(cell(j.id), cell(j.account), cell(j.model),
      cell(j.scenario), cell(j.status), cell(when(j.created_at)), cell(when(j.started_at)),
      cell(when(j.completed_at || j.failed_at))));
    document.getElementById("sonar-jobs-body").replaceChildren(...(jobs.length ? jobs
      : [empty(8, "No async jobs yet. POST /async/chat/completions creates one.")]));
  }

  async function poll() {
    try {
      const response = await fetch("/_mock/sonar");
      const text = await response.text();
      if (text !== last) {
        last = text;
        draw(JSON.parse(text));
      }
    } catch (e) {
      // The main script reports a mock that does not answer.
    }
  }

  if (document.getElementById("sonar-calls-body")) {
    poll();
    setInterval(poll, POLL_MS);
  }
})();
