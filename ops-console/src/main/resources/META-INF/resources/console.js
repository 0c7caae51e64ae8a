// The operators' page: reads /api every few seconds and draws it. Every value from the API goes into the page as
// text (textContent, SVG text nodes), never as markup: team names and logs are the participants'.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const state = { refreshSeconds: 5, timer: null, route: null, deadLettersQueue: null, pendingAction: null };

function token() { return sessionStorage.getItem("operator-token"); }

async function api(path, options = {}) {
  const headers = { "Accept": "application/json", "X-Requested-With": "JavaScript" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  if (options.body) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { ...options, headers, credentials: "same-origin" });
  if (response.status === 499) {            // OIDC in the cluster: sign in through the identity provider
    window.location.assign("/login");
    throw new Error("signing in");
  }
  if (response.status === 401 || response.status === 403) {
    showSignIn(response.status === 403 ? "This identity is not an operator." : (token() ? "That token was refused." : ""));
    throw new Error("not signed in");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.error || ("HTTP " + response.status));
    error.status = response.status;
    throw error;
  }
  return body;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement("td");
    if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell === null || cell === undefined ? "–" : String(cell);
    tr.appendChild(td);
  }
  return tr;
}

function fill(tableId, rows) {
  const body = document.querySelector("#" + tableId + " tbody");
  body.replaceChildren(...rows);
}

function statusBadge(status) { return el("span", status || "?", "status " + (status || "")); }

function duration(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  if (seconds < 60) return seconds + " s";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return minutes + " min";
  return Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
}

function time(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  return date.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z").replace(/:\d\dZ$/, "Z");
}

function number(value, digits) { return value === null || value === undefined ? "–" : Number(value).toFixed(digits); }

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? "?" + text : "";
}

function showSignIn(message) {
  document.getElementById("sign-in").hidden = false;
  document.getElementById("overview").hidden = true;
  document.getElementById("detail").hidden = true;
  document.getElementById("sign-in-error").textContent = message || "";
}

// ---- overview ------------------------------------------------------------------------------------------------------

async function showOverview() {
  const filters = {
    status: document.getElementById("filter-status").value,
    track: document.getElementById("filter-track").value,
    team: document.getElementById("filter-team").value.trim(),
  };
  const [listing, backend] = await Promise.all([api("/api/submissions" + query(filters)), api("/api/backend")]);
  document.getElementById("overview").hidden = false;
  document.getElementById("detail").hidden = true;
  drawSubmissions(listing);
  drawBackend(backend);
  const problems = [...new Set([...(listing.problems || []), ...(backend.problems || [])])];
  document.getElementById("problems").textContent = problems.length ? "cannot read: " + problems.join("; ") : "";
  document.getElementById("refreshed").textContent = "as of " + time(listing.at);
}

function drawSubmissions(listing) {
  const tracks = document.getElementById("filter-track");
  const known = new Set([...tracks.options].map(option => option.value));
  for (const submission of listing.submissions) {
    if (submission.track && !known.has(submission.track)) {
      tracks.appendChild(el("option", submission.track));
      known.add(submission.track);
    }
  }
  document.getElementById("truncated").textContent = listing.truncated.length
    ? "Only the first records of " + listing.truncated.join(", ") + " were read (console.scan-limit)." : "";
  fill("submissions", listing.submissions.map(s => {
    const status = document.createElement("span");
    status.appendChild(statusBadge(s.status));
    if (s.stuck) status.appendChild(el("span", " stuck", "stuck"));
    const tr = row([s.submission_id, (s.team_name || "?") + " (" + s.team_id + ")", s.track, s.run, status,
      s.routes_total ? (s.routes_done ?? 0) + "/" + s.routes_total : "–", number(s.driving_score, 2),
      duration(s.waiting_seconds), duration(s.running_seconds), number(s.gpu_hours, 2), s.job_name
        ? s.job_name + (s.job_state ? " (" + s.job_state + ")" : "") : "–", s.pod_phase, time(s.last_progress_time)]);
    tr.className = "clickable";
    tr.dataset.submission = s.submission_id;
    tr.title = s.stuck_reason || "";
    tr.addEventListener("click", () => {
      window.location.hash = "#/submission/" + encodeURIComponent(s.submission_id)
        + query({ team: s.team_id, leaderboard: s.leaderboard });
    });
    return tr;
  }));
}

function drawBackend(backend) {
  document.getElementById("gpu-running").textContent = backend.gpu_pods.running;
  document.getElementById("gpus-running").textContent = backend.gpu_pods.gpus_running;
  document.getElementById("gpu-pending").textContent = backend.gpu_pods.pending;
  document.getElementById("gpus-pending").textContent = backend.gpu_pods.gpus_pending;
  fill("queues", backend.queues.map(q => {
    const button = el("button", "Dead letters");
    button.type = "button";
    button.disabled = !q.dead_letters;
    button.addEventListener("click", () => openDeadLetters(q.name));
    const reasons = Object.entries(q.reasons || {}).map(([reason, count]) => reason + " ×" + count).join(", ");
    const age = q.oldest_message_age === null || q.oldest_message_age === undefined ? "–"
      : el("span", duration(Math.round(q.oldest_message_age)), q.oldest_message_age >= 900 ? "stuck" : "");
    if (q.oldest_message_age_at) age.title = "CloudWatch, the minute from " + time(q.oldest_message_age_at);
    const tr = row([q.name, q.error ? el("span", q.error, "problem") : q.visible, q.in_flight, q.delayed, age,
      q.dead_letters, time(q.oldest_dead_letter), reasons || "–", button]);
    tr.dataset.queue = q.name;
    return tr;
  }));
  fill("stuck", backend.stuck.map(s => row([s.submission_id, s.team_name, s.track, statusBadge(s.status),
    el("span", s.stuck_reason, "stuck")])));
  drawDays(backend.days);
}

/** GPU-hours per day as bars, with the count of ended submissions under each day. */
function drawDays(days) {
  const box = document.getElementById("days-chart");
  if (!days.length) {
    box.replaceChildren(el("p", "No submission ended in the window.", "note"));
    return;
  }
  const width = Math.max(320, days.length * 64), height = 150, bottom = 34, top = 16;
  const max = Math.max(...days.map(d => d.gpu_hours), 0.001);
  const chart = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "GPU-hours per day" });
  chart.appendChild(svg("line", { x1: 0, y1: height - bottom, x2: width, y2: height - bottom, class: "axis" }));
  days.forEach((day, i) => {
    const x = i * 64 + 12, barHeight = (height - bottom - top) * day.gpu_hours / max;
    chart.appendChild(svg("rect", { x, y: height - bottom - barHeight, width: 40, height: Math.max(barHeight, 1),
      class: "bar" }, undefined));
    chart.appendChild(svg("text", { x: x + 20, y: height - bottom - barHeight - 3, "text-anchor": "middle" },
      day.gpu_hours.toFixed(2)));
    chart.appendChild(svg("text", { x: x + 20, y: height - bottom + 13, "text-anchor": "middle" }, day.day.slice(5)));
    chart.appendChild(svg("text", { x: x + 20, y: height - bottom + 27, "text-anchor": "middle", class: "muted" },
      day.finished + "✓ " + day.failed + "✗ " + day.cancelled + "⊘"));
  });
  box.replaceChildren(chart);
}

async function openDeadLetters(queue) {
  state.deadLettersQueue = queue;
  const letters = await api("/api/dead-letters/" + encodeURIComponent(queue));
  document.getElementById("dead-letters").hidden = false;
  document.getElementById("dead-letters-queue").textContent = queue;
  fill("dead-letters-table", letters.map(letter => {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = letter.message_id;
    return row([box, letter.message_id, letter.reason, letter.error, time(letter.dead_lettered_at),
      el("code", letter.body)]);
  }));
}

async function redrive(all) {
  const queue = state.deadLettersQueue;
  const chosen = [...document.querySelectorAll("#dead-letters-table input:checked")].map(box => box.value);
  if (!all && !chosen.length) return;
  try {
    const result = await api("/api/dead-letters/" + encodeURIComponent(queue) + "/redrive", {
      method: "POST", body: JSON.stringify(all ? { all: true } : { message_ids: chosen }) });
    document.getElementById("problems").textContent = result.message;
  } catch (e) {
    document.getElementById("problems").textContent = e.message;
  }
  await openDeadLetters(queue);
}

// ---- one submission ------------------------------------------------------------------------------------------------

async function showDetail(id, params) {
  const view = await api("/api/submissions/" + encodeURIComponent(id) + query(params));
  document.getElementById("overview").hidden = true;
  document.getElementById("detail").hidden = false;
  const s = view.summary;
  document.getElementById("detail-id").textContent = s.submission_id;
  document.getElementById("detail-team").textContent = (s.team_name || "?") + " (team " + s.team_id + ")";
  const cancel = document.getElementById("cancel-button"), resume = document.getElementById("resume-button");
  cancel.disabled = !!view.cancel;
  cancel.title = view.cancel || "Cancel on EvalAI, as the participant's cancel would";
  resume.disabled = !!view.resume;
  resume.title = view.resume || "Resume on EvalAI: a new run that keeps the routes already driven";
  const summary = document.getElementById("detail-summary");
  summary.replaceChildren();
  const facts = [["status", statusBadge(s.status)], ["EvalAI", view.eval_ai_status], ["track", s.track],
    ["leaderboard", s.leaderboard], ["run", s.run + " (resumes: " + view.resumes + ")"],
    ["routes", s.routes_total ? (s.routes_done ?? 0) + "/" + s.routes_total : "–"],
    ["driving score", number(s.driving_score ?? view.accuracies.driving_score, 3)],
    ["waited for capacity", duration(s.waiting_seconds)], ["ran", duration(s.running_seconds)],
    ["GPU-hours", number(s.gpu_hours, 3)], ["instance", (view.instance_type || "–") + ", " + (view.worker_pairs ?? "?")
      + " pairs"], ["Job", s.job_name ? s.job_name + (s.job_state ? " (" + s.job_state + ")" : "") : "–"],
    ["pod", podsText(view)], ["last progress", time(s.last_progress_time)],
    ["stuck", s.stuck_reason || "no"], ["cannot read", (view.problems || []).join("; ") || "–"]];
  for (const [term, value] of facts) {
    summary.appendChild(el("dt", term));
    const dd = document.createElement("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
    dd.id = "detail-" + term.toLowerCase().replace(/[^a-z]+/g, "-");
    summary.appendChild(dd);
  }
  drawTimeline(view);
  drawRoutes(view);
  fill("pairs", view.pairs.map(p => row([pairName(p), p.state, p.attempt, p.crashes, p.agent, p.simulator])));
  drawWhatRan(view.what_ran);
  document.getElementById("failure-reason").textContent = view.failure_reason || "";
  const accuracies = document.getElementById("accuracies");
  accuracies.replaceChildren();
  for (const [name, value] of Object.entries(view.accuracies || {})) {
    accuracies.appendChild(el("dt", name.replace(/_/g, " ")));
    accuracies.appendChild(el("dd", number(value, 3)));
  }
  fill("history", view.history.map(h => row([time(h.at), h.run, statusBadge(h.status), h.by, h.detail])));
  fill("evalai-updates", view.eval_ai_updates.map(h => row([time(h.at), h.run, h.status, h.detail])));
  document.getElementById("logs").replaceChildren(...view.logs.map(log => {
    const box = el("div", undefined, "log");
    box.appendChild(el("h4", (log.pod == null ? "" : "pod " + log.pod + " · ") + log.container));
    box.appendChild(el("pre", log.tail));
    return box;
  }));
  document.getElementById("refreshed").textContent = "as of " + new Date().toISOString().slice(11, 19) + "Z";
}

/** The run's pod, or each index's newest pod in a run of several pods. */
function podsText(view) {
  const pods = view.pods && view.pods.length > 1 ? view.pods : view.pod ? [view.pod] : [];
  return pods.map(p => (p.index == null ? "" : p.index + ": ") + p.name + " " + p.phase).join("; ") || "–";
}

/** A pair as the page names it: "2", or "pod 1 · 2" in a run of several pods. */
function pairName(p) {
  return p.pod == null ? String(p.pair) : "pod " + p.pod + " · " + p.pair;
}

/** The current run's software versions and every pod's containers by digest (none before its first pod started). */
function drawWhatRan(ran) {
  const versions = document.getElementById("versions");
  versions.replaceChildren();
  const names = { leaderboard: "Leaderboard commit", scenario_runner: "ScenarioRunner", carla_python_api:
    "CARLA PythonAPI", carla_server: "CARLA server" };
  for (const [name, value] of Object.entries((ran && ran.versions) || {})) {
    versions.appendChild(el("dt", names[name] || name));
    versions.appendChild(el("dd", value));
  }
  fill("images", ((ran && ran.images) || []).map(i => row([i.pod, i.container, i.image, i.digest])));
}

/** The runs of the submission (waiting, pending, running, ended) and the current run's pairs with their status files. */
function drawTimeline(view) {
  const box = document.getElementById("timeline");
  const runs = view.runs;
  const now = Date.now();
  const stamps = [];
  for (const r of runs) for (const t of [r.submitted_at, r.pending_at, r.running_at, r.ended_at]) if (t) stamps.push(Date.parse(t));
  for (const p of view.pairs) for (const e of p.events) if (e.at) stamps.push(Date.parse(e.at));
  if (!stamps.length) {
    box.replaceChildren(el("p", "Nothing to draw yet.", "note"));
    return;
  }
  const start = Math.min(...stamps), end = Math.max(...stamps, runs.some(r => !r.ended_at) ? now : 0);
  const span = Math.max(end - start, 1000), left = 90, width = 860, lane = 22;
  const lanes = runs.length + view.pairs.length;
  const height = lanes * lane + 30;
  const x = t => left + (Date.parse(t) - start) / span * (width - left - 10);
  const chart = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "timeline of the runs and pairs" });
  runs.forEach((r, i) => {
    const y = i * lane + 4;
    chart.appendChild(svg("text", { x: 4, y: y + 13 }, "run " + r.run));
    const phases = [["SUBMITTED", r.submitted_at], ["PENDING", r.pending_at], ["RUNNING", r.running_at],
      [r.outcome || "END", r.ended_at]].filter(p => p[1]);
    phases.forEach(([name, at], k) => {
      if (name === (r.outcome || "END") && k === phases.length - 1 && r.ended_at) {
        chart.appendChild(svg("rect", { x: x(at) - 2, y, width: 4, height: 16, class: r.outcome || "muted" }));
        chart.appendChild(svg("text", { x: x(at) + 5, y: y + 13 }, r.outcome || ""));
        return;
      }
      const to = k + 1 < phases.length ? x(phases[k + 1][1]) : x(new Date(end).toISOString());
      chart.appendChild(svg("rect", { x: x(at), y, width: Math.max(to - x(at), 2), height: 16, class: name }));
    });
  });
  const runStart = runs.length ? runs[runs.length - 1].running_at : null;
  view.pairs.forEach((p, j) => {
    const y = (runs.length + j) * lane + 4;
    chart.appendChild(svg("text", { x: 4, y: y + 13 }, (p.pod == null ? "pair " : "p" + p.pod + " pair ") + p.pair
      + " · " + p.state));
    const done = p.events.filter(e => e.file.endsWith(".done")).map(e => e.at).sort().pop();
    const from = runStart || (p.events[0] && p.events[0].at);
    if (from) {
      const to = done ? x(done) : (p.state === "running" ? x(new Date(end).toISOString()) : x(from));
      chart.appendChild(svg("rect", { x: x(from), y: y + 4, width: Math.max(to - x(from), 2), height: 8, class: "pair" }));
    }
    for (const e of p.events) {
      if (!e.at) continue;
      const crash = e.file.includes(".crash");
      chart.appendChild(svg("circle", { cx: x(e.at), cy: y + 8, r: 5, class: crash ? "crash" : "done" }));
      chart.lastChild.appendChild(svg("title", {}, e.file + " " + time(e.at)));
    }
  });
  chart.appendChild(svg("text", { x: left, y: height - 6, class: "muted" }, time(new Date(start).toISOString())));
  chart.appendChild(svg("text", { x: width - 10, y: height - 6, "text-anchor": "end", class: "muted" },
    time(new Date(end).toISOString())));
  box.replaceChildren(chart);
}

/** A run whose routes are claimed: each attempt at a route, on the lane of the pair that drove it, by how it ended. */
function drawRoutes(view) {
  const box = document.getElementById("routes");
  const attempts = view.routes || [];
  if (!attempts.length) {
    box.replaceChildren(el("p", "This run's routes are not claimed, or none was claimed yet.", "note"));
    return;
  }
  const now = Date.now();
  const ends = attempts.map(a => a.ended ? Date.parse(a.ended) : now);
  const start = Math.min(...attempts.map(a => Date.parse(a.started))), end = Math.max(...ends);
  const lanes = [...new Set(attempts.map(a => a.lane))];
  const span = Math.max(end - start, 1000), left = 120, width = 860, lane = 22;
  const height = lanes.length * lane + 30;
  const x = t => left + (t - start) / span * (width - left - 10);
  const chart = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "route attempts by pair" });
  lanes.forEach((name, i) => chart.appendChild(svg("text", { x: 4, y: i * lane + 17 }, name)));
  attempts.forEach((a, k) => {
    const y = lanes.indexOf(a.lane) * lane + 4, from = x(Date.parse(a.started)), to = x(ends[k]);
    const bar = svg("rect", { x: from, y, width: Math.max(to - from, 2), height: 16,
      class: "attempt " + a.outcome });
    bar.appendChild(svg("title", {}, "route " + a.route_id + " rep " + a.repetition + ": " + a.outcome
      + (a.reason ? " (" + a.reason + ")" : "") + ", " + time(a.started) + " to " + (a.ended ? time(a.ended) : "now")
      + (a.node ? ", node " + a.node : "") + (a.gpu ? ", GPU " + a.gpu : "")
      + (a.sim_speed != null ? ", sim speed " + number(a.sim_speed, 2) : "")));
    chart.appendChild(bar);
    if (to - from > 24) chart.appendChild(svg("text", { x: from + 3, y: y + 13, class: "label" }, a.route_id));
  });
  chart.appendChild(svg("text", { x: left, y: height - 6, class: "muted" }, time(new Date(start).toISOString())));
  chart.appendChild(svg("text", { x: width - 10, y: height - 6, "text-anchor": "end", class: "muted" },
    time(new Date(end).toISOString())));
  box.replaceChildren(chart);
}

function askAction(action) {
  state.pendingAction = action;
  document.getElementById("confirm").hidden = false;
  document.getElementById("confirm-text").textContent = action === "cancel"
    ? "Cancel this submission on EvalAI?" : "Resume this failed submission?";
}

async function doAction() {
  const action = state.pendingAction;
  document.getElementById("confirm").hidden = true;
  const route = state.route;
  const message = document.getElementById("action-message");
  try {
    const result = await api("/api/submissions/" + encodeURIComponent(route.id) + "/" + action + query(route.params),
      { method: "POST" });
    message.className = "ok";
    message.textContent = result.outcome === "done" ? result.message : "Nothing to do: " + result.message;
  } catch (e) {
    message.className = "refused";
    message.textContent = e.message;
  }
  await refresh();
}

// ---- routing and refresh -------------------------------------------------------------------------------------------

function currentRoute() {
  const match = window.location.hash.match(/^#\/submission\/([0-9]+)(\?.*)?$/);
  if (!match) return { view: "overview" };
  const params = Object.fromEntries(new URLSearchParams(match[2] || ""));
  return { view: "detail", id: match[1], params: { team: params.team, leaderboard: params.leaderboard } };
}

async function refresh() {
  clearTimeout(state.timer);
  try {
    if (!document.getElementById("operator").textContent) {
      const me = await api("/api/operator");
      state.refreshSeconds = me.refresh_seconds || 5;
      document.getElementById("operator").textContent = "operator " + me.name;
      document.getElementById("sign-in").hidden = true;
    }
    state.route = currentRoute();
    if (state.route.view === "detail") await showDetail(state.route.id, state.route.params);
    else await showOverview();
  } catch (e) {
    if (e.message !== "not signed in" && e.message !== "signing in") {
      document.getElementById("problems").textContent = e.message;
    }
  }
  state.timer = setTimeout(refresh, state.refreshSeconds * 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("sign-in-form").addEventListener("submit", event => {
    event.preventDefault();
    sessionStorage.setItem("operator-token", document.getElementById("token").value.trim());
    document.getElementById("token").value = "";
    document.getElementById("operator").textContent = "";
    refresh();
  });
  for (const id of ["filter-status", "filter-track", "filter-team"]) {
    document.getElementById(id).addEventListener("input", refresh);
  }
  document.getElementById("filters").addEventListener("submit", event => event.preventDefault());
  document.getElementById("cancel-button").addEventListener("click", () => askAction("cancel"));
  document.getElementById("resume-button").addEventListener("click", () => askAction("resume"));
  document.getElementById("confirm-yes").addEventListener("click", doAction);
  document.getElementById("confirm-no").addEventListener("click", () => { document.getElementById("confirm").hidden = true; });
  document.getElementById("redrive-chosen").addEventListener("click", () => redrive(false));
  document.getElementById("redrive-all").addEventListener("click", () => redrive(true));
  document.getElementById("dead-letters-close").addEventListener("click", () => {
    document.getElementById("dead-letters").hidden = true;
  });
  window.addEventListener("hashchange", () => {
    document.getElementById("action-message").textContent = "";
    refresh();
  });
  refresh();
});
