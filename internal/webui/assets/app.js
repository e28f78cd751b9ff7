// toolwarden admin panel: a client of the REST API (/v1). Hand-written, no
// framework and no build step. Every value from the server reaches the page
// as text (textContent), never as HTML.
"use strict";

const $ = (sel, root) => (root || document).querySelector(sel);

// h builds an element: h("button", {class: "x", onclick: fn}, "text", child).
function h(tag, attrs, ...children) {
  const svg = tag.startsWith("svg:");
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// ---- secrets: a last line of defence for what the panel shows ----
const SECRET_PATTERNS = [
  /\btw_[0-9a-f]{12}_[0-9a-f]{16,}\b/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\bsk-[A-Za-z0-9_-]{20,}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /((?:password|passwd|secret|token|api[_-]?key)\s*[=:]\s*)(["']?)[^\s"']{4,}\2/gi,
  /(Authorization:\s*Bearer\s+)\S+/gi,
];
function redact(s) {
  if (typeof s !== "string") return s;
  for (const re of SECRET_PATTERNS) {
    s = s.replace(re, (m, pre) => (typeof pre === "string" && m.startsWith(pre) ? pre + "[REDACTED]" : "[REDACTED]"));
  }
  return s;
}

// ---- API ----
const session = { role: "", name: "", keyID: "", csrf: "", expires: "" };

class APIError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || "the server answered " + status);
    this.status = status; this.code = e.code || ""; this.field = e.field || ""; this.body = body || {};
  }
}

async function api(method, path, body, opts) {
  opts = opts || {};
  const headers = { Accept: "application/json" };
  if (method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = session.csrf;
  let payload;
  if (body instanceof Blob || body instanceof ArrayBuffer) {
    payload = body; headers["Content-Type"] = opts.contentType || "application/octet-stream";
  } else if (body !== undefined) {
    payload = JSON.stringify(body); headers["Content-Type"] = "application/json";
  }
  let resp;
  try {
    resp = await fetch(path, { method, headers, body: payload, credentials: "same-origin", cache: "no-store" });
  } catch (e) {
    throw new APIError(0, { error: { message: "cannot reach the toolwarden server (" + e.message + "); check that it runs and retry" } });
  }
  const text = await resp.text();
  let data = null;
  if (text) { try { data = JSON.parse(text); } catch (_) { data = { raw: text }; } }
  if (resp.status === 401 && !opts.noSignIn) { signedOut((data && data.error && data.error.message) || "your session ended; sign in again"); }
  if (!resp.ok) throw new APIError(resp.status, data);
  return data;
}

function toast(msg, isError) {
  const d = h("div", { class: isError ? "error-toast" : "" }, msg);
  $("#toast").append(d);
  setTimeout(() => d.remove(), 6000);
}

function fmtTime(s) {
  if (!s) return "—";
  const d = new Date(s);
  if (isNaN(d)) return s;
  if (d.getFullYear() < 1971) return "—"; // a zero time: not recorded
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
function timeEl(s) { return h("time", { datetime: s || "" }, fmtTime(s)); }
function badge(kind, v) { return v ? h("span", { class: "badge " + kind + "-" + v }, v.replace(/_/g, " ")) : h("span", { class: "muted" }, "—"); }
function errorBox(e) { return h("p", { class: "error", role: "alert" }, e.message || String(e)); }
function empty(msg) { return h("div", { class: "empty" }, msg); }
const TERMINAL = new Set(["completed", "failed", "cancelled", "hard_timeout", "orphaned", "blocked"]);
const STATUSES = ["queued", "running", "pending_review", "completed", "failed", "cancelled", "hard_timeout", "orphaned", "blocked"];
const rank = { agent: 1, reviewer: 2, admin: 3 };
const allows = (need) => (rank[session.role] || 0) >= rank[need];

// ---- evidence highlighting ----
// highlight renders content with every finding's evidence marked, found on
// the finding's line first and anywhere else when it is not there.
function highlight(content, findings) {
  content = redact(content || "");
  const ranges = [];
  const lines = content.split("\n");
  const lineStart = [];
  let off = 0;
  for (const l of lines) { lineStart.push(off); off += l.length + 1; }
  for (const f of findings || []) {
    const ev = redact(f.evidence || "");
    if (!ev) continue;
    let at = -1;
    if (f.line > 0 && f.line <= lines.length) {
      const i = lines[f.line - 1].indexOf(ev);
      if (i >= 0) at = lineStart[f.line - 1] + i;
    }
    if (at < 0) at = content.indexOf(ev);
    if (at >= 0) ranges.push([at, at + ev.length, f.rule_id]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const pre = h("pre", { class: "content", "aria-label": "content with evidence highlighted" });
  let pos = 0;
  for (const [s, e, rule] of ranges) {
    if (s < pos) continue;
    pre.append(content.slice(pos, s));
    pre.append(h("mark", { title: rule }, content.slice(s, e)));
    pos = e;
  }
  pre.append(content.slice(pos));
  return pre;
}

function reportView(rep, content) {
  if (!rep) return empty("No safety report.");
  const findings = rep.findings || [];
  return h("div", { class: "report" },
    h("dl", { class: "meta" },
      h("dt", {}, "Decision"), h("dd", {}, badge("d", rep.decision), rep.blocked ? " (blocked)" : ""),
      h("dt", {}, "Risk"), h("dd", {}, rep.risk_level || "none"),
      h("dt", {}, "Summary"), h("dd", {}, redact(rep.summary || "")),
      h("dt", {}, "Scan"), h("dd", { class: "mono" }, (rep.scan_id || "") + " · " + (rep.elapsed_ms != null ? rep.elapsed_ms.toFixed(1) + " ms" : ""))),
    content !== undefined ? [h("h3", {}, "Content"), highlight(content, findings)] : null,
    h("h3", {}, "Findings (" + findings.length + ")"),
    findings.length === 0 ? empty("No findings: nothing risky was found.") :
      h("div", { class: "table-wrap" }, h("table", { class: "findings" },
        h("thead", {}, h("tr", {}, ["Rule", "Decision", "Risk", "Where", "Evidence", "Message"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, findings.map((f) => h("tr", {},
          h("td", { class: "mono" }, f.rule_id), h("td", {}, badge("d", f.decision)), h("td", {}, f.risk_level),
          h("td", {}, f.line ? "line " + f.line + (f.column ? ":" + f.column : "") : "—"),
          h("td", {}, h("code", {}, redact(f.evidence || ""))),
          h("td", {}, redact(f.message || ""), f.recommendation ? h("div", { class: "muted" }, redact(f.recommendation)) : null)))))));
}

// ---- pages ----
const PAGES = [
  { id: "overview", title: "Overview", need: "reviewer", render: pageOverview },
  { id: "executions", title: "Executions", need: "agent", render: pageExecutions },
  { id: "review", title: "Review queue", need: "reviewer", render: pageReview },
  { id: "plugins", title: "Plugins", need: "admin", render: pagePlugins },
  { id: "policy", title: "Policy", need: "reviewer", render: pagePolicy },
  { id: "audit", title: "Audit", need: "reviewer", render: pageAudit },
  { id: "keys", title: "Keys", need: "admin", render: pageKeys },
  { id: "playground", title: "Playground", need: "agent", render: pagePlayground },
];

let cleanup = [];
function onLeave(fn) { cleanup.push(fn); }

function route() {
  for (const fn of cleanup) { try { fn(); } catch (_) { /* leaving anyway */ } }
  cleanup = [];
  const main = $("#main");
  main.replaceChildren();
  if (!session.role) { pageSignIn(main); return; }
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  let page = PAGES.find((p) => p.id === parts[0] && allows(p.need));
  if (!page) page = PAGES.find((p) => allows(p.need));
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.page === page.id) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  document.title = page.title + " · toolwarden";
  main.dataset.page = page.id;
  page.render(main, parts.slice(1));
}

function renderChrome() {
  const nav = $("#nav");
  nav.replaceChildren(...(session.role ? PAGES.filter((p) => allows(p.need)).map((p) => h("a", { href: "#/" + p.id, "data-page": p.id }, p.title)) : []));
  $("#who").hidden = !session.role;
  $("#who-name").textContent = session.name || session.keyID;
  $("#who-role").textContent = session.role;
}

function signedOut(msg) {
  const was = session.role;
  Object.assign(session, { role: "", name: "", keyID: "", csrf: "" });
  renderChrome();
  if (was) { route(); if (msg) toast(msg, true); }
}

function setSession(s) {
  Object.assign(session, { role: s.role, name: s.name, keyID: s.key_id, csrf: s.csrf_token, expires: s.expires_at });
  renderChrome();
}

function pageSignIn(main) {
  document.title = "Sign in · toolwarden";
  main.dataset.page = "signin";
  const msg = h("p", { class: "field-error", id: "signin-error", role: "alert" });
  const input = h("input", { id: "signin-key", type: "password", name: "key", autocomplete: "off", required: true,
    spellcheck: "false", "aria-describedby": "signin-help signin-error" });
  const form = h("form", { class: "card signin", onsubmit: async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    try {
      const s = await api("POST", "/ui/session", { key: input.value }, { noSignIn: true });
      input.value = "";
      setSession(s);
      route();
    } catch (e) { msg.textContent = e.message; input.focus(); }
  } },
  h("h1", {}, "Sign in to toolwarden"),
  h("label", { for: "signin-key" }, "API key", input),
  h("p", { id: "signin-help", class: "muted" }, "Use an admin or reviewer key (agents see only their own executions). The key is exchanged for a session cookie and is not stored in this browser."),
  msg,
  h("button", { type: "submit", id: "signin-submit" }, "Sign in"));
  main.append(form);
  input.focus();
}

// ---- Overview ----
function svgBars(title, items, opts) {
  opts = opts || {};
  const w = 440, rowH = 22, hgt = Math.max(1, items.length) * rowH + 10;
  const max = Math.max(1, ...items.map((i) => i.value));
  const svg = h("svg:svg", { class: "chart", viewBox: "0 0 " + w + " " + hgt, width: "100%", role: "img", "aria-label": title });
  svg.append(h("svg:title", {}, title));
  items.forEach((it, i) => {
    const y = 5 + i * rowH, bw = Math.round((w - 260) * it.value / max);
    svg.append(h("svg:text", { x: 0, y: y + 14 }, it.label.length > 30 ? it.label.slice(0, 29) + "…" : it.label, h("svg:title", {}, it.label)));
    svg.append(h("svg:rect", { x: 215, y: y + 3, width: Math.max(bw, 1), height: rowH - 8, fill: it.color || "#0b5cad", rx: 2 }));
    svg.append(h("svg:text", { x: 221 + bw, y: y + 14 }, String(it.value)));
  });
  return svg;
}
const DECISION_COLOURS = { allow: "#1a7f37", needs_human_review: "#b07100", deny: "#b3261e" };

function svgTimeline(title, buckets) {
  // buckets: [{label, allow, needs_human_review, deny}]
  const w = 360, hgt = 150, base = 125;
  const max = Math.max(1, ...buckets.map((b) => b.allow + b.needs_human_review + b.deny));
  const bw = (w - 30) / Math.max(1, buckets.length);
  const svg = h("svg:svg", { class: "chart", viewBox: "0 0 " + w + " " + hgt, width: "100%", role: "img", "aria-label": title });
  svg.append(h("svg:title", {}, title));
  svg.append(h("svg:line", { x1: 25, y1: base, x2: w, y2: base, class: "axis" }));
  svg.append(h("svg:text", { x: 0, y: 12 }, String(max)));
  buckets.forEach((b, i) => {
    let y = base;
    for (const d of ["allow", "needs_human_review", "deny"]) {
      const bh = Math.round(110 * b[d] / max);
      if (bh > 0) { y -= bh; svg.append(h("svg:rect", { x: 28 + i * bw, y, width: Math.max(bw - 2, 1), height: bh, fill: DECISION_COLOURS[d] }, h("svg:title", {}, b.label + ": " + b[d] + " " + d))); }
    }
    if (i % Math.ceil(buckets.length / 6) === 0) svg.append(h("svg:text", { x: 28 + i * bw, y: base + 16 }, b.label));
  });
  return svg;
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  const i = Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

async function pageOverview(main) {
  main.append(h("h1", {}, "Overview"));
  const grid = h("div", { class: "grid" });
  const status = h("p", { class: "muted" }, "Loading…");
  main.append(status, grid);
  const card = (title, ...body) => h("section", { class: "card", "aria-label": title }, h("h2", {}, title), ...body);
  let execs = [], scans = null;
  try {
    execs = (await api("GET", "/v1/executions?limit=1000")).executions || [];
  } catch (e) { main.append(errorBox(e)); }
  try { scans = (await api("GET", "/v1/scans?limit=1000", undefined, { noSignIn: true })).scans || []; } catch (_) { scans = null; }
  // One shape for both sources: time, decision, rule ids, scan latency.
  const reports = scans
    ? scans.map((s) => ({ timestamp: s.time, decision: s.decision, rules: s.rule_ids || [], elapsed_ms: s.safety_report ? s.safety_report.elapsed_ms : undefined }))
    : execs.map((e) => e.safety_report).filter(Boolean).map((r) => ({ timestamp: r.timestamp, decision: r.decision, rules: (r.findings || []).map((f) => f.rule_id), elapsed_ms: r.elapsed_ms }));
  status.textContent = "From the newest " + reports.length + (scans ? " scans" : " executions' scans") + " and " + execs.length + " executions; times in your time zone.";
  // Decisions over time: 12 hourly buckets ending now.
  const now = Date.now(), hour = 3600e3, buckets = [];
  for (let i = 11; i >= 0; i--) {
    const start = new Date(now - (i + 1) * hour);
    buckets.push({ from: start.getTime(), label: start.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }), allow: 0, needs_human_review: 0, deny: 0 });
  }
  for (const r of reports) {
    const t = new Date(r.timestamp).getTime();
    const b = buckets.find((b) => t >= b.from && t < b.from + hour);
    if (b && b[r.decision] !== undefined) b[r.decision]++;
  }
  grid.append(card("Decisions over time (last 12 hours)", svgTimeline("Decisions per hour: allow, review, deny", buckets),
    h("p", { class: "muted" }, "green allow · amber review · red deny")));
  const rules = {};
  for (const r of reports) for (const id of r.rules) rules[id] = (rules[id] || 0) + 1;
  const top = Object.entries(rules).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([label, value]) => ({ label, value }));
  grid.append(card("Top rules", top.length ? svgBars("Findings per rule", top) : empty("No findings yet.")));
  const byStatus = STATUSES.map((s) => ({ label: s.replace(/_/g, " "), value: execs.filter((e) => e.status === s).length })).filter((x) => x.value > 0);
  grid.append(card("Executions by status", byStatus.length ? svgBars("Executions per status", byStatus) : empty("No executions yet.")));
  const queued = execs.filter((e) => e.status === "queued").length, running = execs.filter((e) => e.status === "running").length;
  const held = execs.filter((e) => e.status === "pending_review").length;
  grid.append(card("Queue depth", svgBars("Queue depth", [{ label: "queued", value: queued }, { label: "running", value: running }, { label: "awaiting review", value: held, color: "#b07100" }])));
  const ms = reports.map((r) => r.elapsed_ms).filter((x) => typeof x === "number").sort((a, b) => a - b);
  const p50 = percentile(ms, 50), p99 = percentile(ms, 99);
  grid.append(card("Scan latency", ms.length ? svgBars("Scan latency in milliseconds", [{ label: "p50 (ms)", value: +p50.toFixed(2) }, { label: "p99 (ms)", value: +p99.toFixed(2) }]) : empty("No scans yet.")));
  const health = h("dl", { class: "meta", id: "health" });
  grid.append(card("Health", health));
  for (const [name, path] of [["Service", "/healthz"], ["Readiness", "/readyz"]]) {
    let text = "", ok = false;
    try { const r = await fetch(path, { cache: "no-store" }); ok = r.ok; const t = await r.text(); text = (ok ? "ok" : "failing") + (t && !ok ? ": " + t.slice(0, 300) : ""); } catch (e) { text = "unreachable: " + e.message; }
    health.append(h("dt", {}, name), h("dd", { class: ok ? "d-allow" : "d-deny" }, text));
  }
  if (allows("admin")) {
    try {
      const ps = (await api("GET", "/v1/plugins", undefined, { noSignIn: true })).plugins || [];
      for (const p of ps) health.append(h("dt", {}, "Plugin " + p.name), h("dd", { class: p.status === "error" ? "d-deny" : "" }, (p.status || "loaded") + (p.active_digest ? " · " + p.active_digest.slice(0, 19) : "")));
    } catch (_) { health.append(h("dt", {}, "Plugins"), h("dd", { class: "muted" }, "this server has no plugin API")); }
  }
}

// ---- Executions ----
function filtersFromHash(args) {
  const q = new URLSearchParams(args.join("/").startsWith("?") ? args.join("/").slice(1) : "");
  return q;
}

function execRow(e, selected) {
  const rep = e.safety_report || {};
  return h("tr", { "data-id": e.execution_id, class: selected ? "selected" : "" },
    h("td", {}, timeEl(e.created_at)),
    h("td", {}, h("a", { href: "#/executions/" + encodeURIComponent(e.execution_id), class: "mono" }, e.execution_id.slice(0, 12))),
    h("td", {}, e.tool_name || "—"),
    h("td", { class: "status" }, badge("s", e.status)),
    h("td", {}, badge("d", rep.decision)),
    h("td", { class: "mono" }, e.conversation_id || "—"),
    h("td", { class: "mono" }, e.owner_key_id || "—"),
    h("td", { class: "mono" }, redact((e.content || "").split("\n")[0].slice(0, 60))));
}

function execTable(list, selectedID) {
  return h("div", { class: "table-wrap" }, h("table", { class: "executions" },
    h("thead", {}, h("tr", {}, ["Created", "Execution", "Tool", "Status", "Decision", "Conversation", "Agent", "Content"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, list.map((e) => execRow(e, e.execution_id === selectedID)))));
}

// liveStream opens the events stream with the filters and calls onChange
// (debounced) on every change; closed when the page is left.
function liveStream(params, onChange, indicator) {
  const q = new URLSearchParams();
  for (const k of ["status", "conversation_id", "agent"]) if (params.get(k)) q.set(k, params.get(k));
  const es = new EventSource("/v1/executions/events?" + q.toString());
  let timer = null;
  es.addEventListener("ready", () => { if (indicator) indicator.textContent = "● live"; });
  es.addEventListener("execution", () => { clearTimeout(timer); timer = setTimeout(onChange, 250); });
  es.onerror = () => { if (indicator) indicator.textContent = "○ reconnecting…"; };
  onLeave(() => { es.close(); clearTimeout(timer); });
  return es;
}

function pageExecutions(main, args) {
  if (args[0] && !args[0].startsWith("?")) return pageExecution(main, args[0]);
  const params = filtersFromHash(args);
  main.append(h("h1", {}, "Executions"));
  const live = h("span", { class: "live", "aria-live": "polite" }, "");
  const inputs = {};
  const field = (name, label, el) => { inputs[name] = el; el.id = "f-" + name; el.name = name; el.value = params.get(name) || ""; return h("label", { for: el.id }, label, el); };
  const form = h("form", { class: "card row", role: "search", "aria-label": "Filter executions", onsubmit: (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const [k, el] of Object.entries(inputs)) if (el.value.trim()) q.set(k, el.value.trim());
    location.hash = "#/executions/?" + q.toString();
  } },
  field("status", "Status", h("select", {}, h("option", { value: "" }, "any"), STATUSES.map((s) => h("option", { value: s }, s.replace(/_/g, " "))))),
  field("conversation_id", "Conversation", h("input", { type: "text", placeholder: "conversation id" })),
  allows("reviewer") ? field("agent", "Agent (key id)", h("input", { type: "text", placeholder: "key id" })) : null,
  field("tool", "Tool", h("input", { type: "text", placeholder: "tool name" })),
  h("button", { type: "submit" }, "Apply filters"),
  params.get("conversation_id") ? h("button", { type: "button", class: "danger", id: "cancel-conversation", onclick: () => cancelConversation(params.get("conversation_id"), load) }, "Cancel conversation") : null,
  live);
  const out = h("div", { id: "exec-list", "aria-live": "polite" });
  main.append(form, out);
  let cursor = "", history = [];
  async function load() {
    const q = new URLSearchParams({ limit: "25" });
    for (const k of ["status", "conversation_id", "agent"]) if (params.get(k)) q.set(k, params.get(k));
    if (cursor) q.set("cursor", cursor);
    try {
      const page = await api("GET", "/v1/executions?" + q.toString());
      let list = page.executions || [];
      const tool = params.get("tool");
      if (tool) list = list.filter((e) => e.tool_name === tool);
      out.replaceChildren(list.length ? execTable(list) : empty(params.toString() ? "No executions match these filters." : "No executions yet. Agents create them with POST /v1/executions or the MCP tools; try the Playground to scan without running."),
        h("div", { class: "pager" },
          h("button", { type: "button", class: "secondary", disabled: !history.length, onclick: () => { cursor = history.pop() || ""; load(); } }, "Previous page"),
          h("button", { type: "button", class: "secondary", disabled: !page.next_cursor, onclick: () => { history.push(cursor); cursor = page.next_cursor; load(); } }, "Next page"),
          tool ? h("span", { class: "muted" }, "tool filter applies to the page shown") : null));
    } catch (e) { out.replaceChildren(errorBox(e)); }
  }
  load();
  liveStream(params, () => { if (!cursor) load(); }, live);
}

async function cancelConversation(conv, after) {
  if (!confirm("Cancel every unfinished execution of conversation " + conv + "?")) return;
  try {
    const r = await api("POST", "/v1/conversations/" + encodeURIComponent(conv) + "/cancel", { reason: "cancelled from the panel" });
    toast("Cancelled " + r.cancelled.length + " execution(s) of " + conv);
    if (after) after();
  } catch (e) { toast(e.message, true); }
}

function pageExecution(main, id) {
  const head = h("h1", {}, "Execution ", h("span", { class: "mono" }, id));
  const body = h("div", {});
  main.append(h("p", {}, h("a", { href: "#/executions" }, "← All executions")), head, body);
  let timer = null, outOffset = 0;
  onLeave(() => clearTimeout(timer));
  const outBox = h("div", { id: "full-output" });
  async function loadOutput(offset) {
    try {
      const o = await api("GET", "/v1/executions/" + encodeURIComponent(id) + "/output?offset=" + offset + "&limit=65536");
      outOffset = offset;
      outBox.replaceChildren(h("pre", { "aria-label": "full output" }, redact(o.data || "") || "(no output)"),
        h("div", { class: "pager" },
          h("button", { type: "button", class: "secondary", disabled: offset === 0, onclick: () => loadOutput(Math.max(0, outOffset - 65536)) }, "Previous page"),
          h("span", { class: "muted" }, "bytes " + o.offset + "–" + (o.offset + (o.data || "").length) + " of " + o.size),
          h("button", { type: "button", class: "secondary", disabled: o.eof, onclick: () => loadOutput(outOffset + 65536) }, "Next page")));
    } catch (e) { outBox.replaceChildren(errorBox(e)); }
  }
  async function load() {
    let e;
    try { e = await api("GET", "/v1/executions/" + encodeURIComponent(id) + "?partial_output_max_bytes=65536"); } catch (err) { body.replaceChildren(errorBox(err)); return; }
    const done = TERMINAL.has(e.status);
    const actions = h("div", { class: "row" });
    if (!done) actions.append(h("button", { type: "button", class: "danger", id: "cancel-execution", onclick: async () => {
      try { await api("POST", "/v1/executions/" + encodeURIComponent(id) + "/cancel", { reason: "cancelled from the panel by " + (session.name || session.keyID) }); toast("Cancel requested"); load(); } catch (err) { toast(err.message, true); }
    } }, "Cancel execution"));
    if (e.conversation_id) actions.append(h("button", { type: "button", class: "secondary", onclick: () => cancelConversation(e.conversation_id, load) }, "Cancel conversation " + e.conversation_id));
    if (e.status === "pending_review" && allows("reviewer")) actions.append(h("a", { href: "#/review" }, "Decide in the review queue"));
    body.replaceChildren(
      h("section", { class: "card" },
        h("dl", { class: "meta" },
          h("dt", {}, "Status"), h("dd", { id: "exec-status" }, badge("s", e.status), e.status_reason ? " — " + redact(e.status_reason) : ""),
          h("dt", {}, "Tool"), h("dd", {}, e.tool_name || "—"),
          h("dt", {}, "Conversation"), h("dd", { class: "mono" }, e.conversation_id || "—"),
          h("dt", {}, "Agent"), h("dd", { class: "mono" }, e.owner_key_id || "—"),
          h("dt", {}, "Created"), h("dd", {}, timeEl(e.created_at)),
          h("dt", {}, "Started"), h("dd", {}, timeEl(e.started_at)),
          h("dt", {}, "Ended"), h("dd", {}, timeEl(e.ended_at)),
          h("dt", {}, "Exit code"), h("dd", {}, e.exit_code == null ? "—" : String(e.exit_code)),
          h("dt", {}, "Isolation"), h("dd", {}, e.isolation_backend || "—"),
          h("dt", {}, "Cleanup"), h("dd", {}, (e.cleanup || "—") + (e.cleanup_detail ? ": " + e.cleanup_detail : "")),
          e.env_names && e.env_names.length ? [h("dt", {}, "Environment"), h("dd", { class: "mono" }, e.env_names.join(", ") + " (values never shown)")] : null),
        actions),
      h("section", { class: "card" }, h("h2", {}, "Safety report"), reportView(e.safety_report, e.content)),
      done ? h("section", { class: "card" }, h("h2", {}, "Result"),
        e.error ? h("p", { class: "error" }, redact(e.error)) : null,
        h("pre", { id: "result" }, redact(e.result || "") || "(empty)"),
        h("h2", {}, "Full output"), outBox)
        : h("section", { class: "card" }, h("h2", {}, "Partial output ", h("span", { class: "live" }, "● streaming")),
          h("pre", { id: "partial-output", "aria-live": "off" }, redact(e.partial_output || "") || "(nothing yet)"),
          e.partial_output_truncated ? h("p", { class: "muted" }, "showing the newest part of " + e.partial_output_bytes + " bytes") : null));
    if (done) loadOutput(0);
    else timer = setTimeout(load, 1000);
  }
  load();
}

// ---- Review queue ----
function pageReview(main) {
  main.append(h("h1", {}, "Review queue"),
    h("p", { class: "muted" }, "Keys: ", h("span", { class: "kbd" }, "j"), "/", h("span", { class: "kbd" }, "k"), " move, ",
      h("span", { class: "kbd" }, "a"), " approve, ", h("span", { class: "kbd" }, "r"), " reject (a reason is required), ",
      h("span", { class: "kbd" }, "/"), " focus the reason."));
  const live = h("span", { class: "live" });
  const listBox = h("div", { id: "review-list" });
  const detail = h("div", { id: "review-detail" });
  main.append(live, h("div", { class: "split" }, h("section", { class: "card", "aria-label": "held executions" }, listBox), h("section", { class: "card", "aria-label": "selected execution" }, detail)));
  let items = [], sel = 0;
  const reason = h("textarea", { id: "review-reason", rows: 2, "aria-describedby": "review-reason-error" });
  reason.classList.add("reason");
  const reasonErr = h("p", { class: "field-error", id: "review-reason-error", role: "alert" });
  async function decide(approve) {
    const e = items[sel];
    if (!e) return;
    if (!approve && !reason.value.trim()) { reasonErr.textContent = "Say why it is rejected: the agent and the audit trail see the reason."; reason.focus(); return; }
    try {
      await api("POST", "/v1/executions/" + encodeURIComponent(e.execution_id) + (approve ? "/approve" : "/reject"), { reason: reason.value.trim() });
      toast((approve ? "Approved " : "Rejected ") + e.execution_id.slice(0, 12));
      reason.value = ""; reasonErr.textContent = "";
      await load();
    } catch (err) { reasonErr.textContent = err.message; }
  }
  function show() {
    const selID = items[sel] && items[sel].execution_id;
    listBox.replaceChildren(items.length ? h("div", { class: "table-wrap" }, h("table", { class: "executions" },
      h("thead", {}, h("tr", {}, ["Held since", "Execution", "Agent", "Risk"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, items.map((e) => h("tr", { "data-id": e.execution_id, class: e.execution_id === selID ? "selected" : "", "aria-selected": e.execution_id === selID ? "true" : "false" },
        h("td", {}, timeEl(e.created_at)), h("td", { class: "mono" }, e.execution_id.slice(0, 12)),
        h("td", { class: "mono" }, e.owner_key_id || "—"), h("td", {}, (e.safety_report || {}).risk_level || "—")))))) : empty("Nothing awaits review. Held executions appear here as soon as an agent submits one."));
    for (const tr of listBox.querySelectorAll("tbody tr")) tr.addEventListener("click", () => { sel = items.findIndex((x) => x.execution_id === tr.dataset.id); show(); });
    const e = items[sel];
    if (!e) { detail.replaceChildren(empty("Select a held execution.")); return; }
    detail.replaceChildren(h("h2", {}, "Execution ", h("span", { class: "mono" }, e.execution_id)),
      h("p", {}, "Agent ", h("span", { class: "mono" }, e.owner_key_id || "—"), " · tool ", e.tool_name || "—", " · ", timeEl(e.created_at)),
      reportView(e.safety_report, e.content),
      h("label", { for: "review-reason" }, "Reason (recorded with your key)", reason), reasonErr,
      h("div", { class: "row" },
        h("button", { type: "button", id: "approve", onclick: () => decide(true) }, "Approve (a)"),
        h("button", { type: "button", id: "reject", class: "danger", onclick: () => decide(false) }, "Reject (r)")));
  }
  async function load() {
    try {
      const keep = items[sel] && items[sel].execution_id;
      items = (await api("GET", "/v1/executions?status=pending_review&limit=100")).executions || [];
      items.reverse(); // oldest first: first come, first judged
      sel = Math.max(0, items.findIndex((x) => x.execution_id === keep));
      show();
    } catch (e) { listBox.replaceChildren(errorBox(e)); }
  }
  const keys = (ev) => {
    if (ev.target === reason) { if (ev.key === "Escape") reason.blur(); return; }
    if (ev.target.matches("input, textarea, select") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "j" || ev.key === "ArrowDown") { sel = Math.min(items.length - 1, sel + 1); show(); ev.preventDefault(); }
    else if (ev.key === "k" || ev.key === "ArrowUp") { sel = Math.max(0, sel - 1); show(); ev.preventDefault(); }
    else if (ev.key === "a") { decide(true); ev.preventDefault(); }
    else if (ev.key === "r") { decide(false); ev.preventDefault(); }
    else if (ev.key === "/") { reason.focus(); ev.preventDefault(); }
  };
  document.addEventListener("keydown", keys);
  onLeave(() => document.removeEventListener("keydown", keys));
  load();
  liveStream(new URLSearchParams({ status: "pending_review" }), load, live);
}

// ---- Keys ----
function pageKeys(main) {
  main.append(h("h1", {}, "API keys"));
  const shown = h("div", { id: "new-token" });
  const name = h("input", { id: "key-name", type: "text", required: true, placeholder: "e.g. ci-agent" });
  const role = h("select", { id: "key-role" }, ["agent", "reviewer", "admin"].map((r) => h("option", { value: r }, r)));
  const err = h("p", { class: "field-error", role: "alert" });
  const list = h("div", { id: "key-list" });
  main.append(h("form", { class: "card row", "aria-label": "Create a key", onsubmit: async (ev) => {
    ev.preventDefault(); err.textContent = "";
    try {
      const r = await api("POST", "/v1/keys", { name: name.value.trim(), role: role.value });
      name.value = "";
      const tok = h("div", { class: "secret", id: "token-value", tabindex: "0" }, r.token);
      shown.replaceChildren(h("section", { class: "card", role: "alert" },
        h("h2", {}, "Key " + r.key.name + " (" + r.key.role + ") created"),
        h("p", {}, "Copy the token now: it is shown once and cannot be read again."), tok,
        h("div", { class: "row" },
          h("button", { type: "button", onclick: async () => { try { await navigator.clipboard.writeText(r.token); toast("Copied"); } catch (_) { toast("Select the token and copy it", true); } } }, "Copy"),
          h("button", { type: "button", class: "secondary", onclick: () => shown.replaceChildren() }, "I stored it — hide"))));
      load();
    } catch (e) { err.textContent = e.message + (e.field ? " (" + e.field + ")" : ""); }
  } },
  h("label", { for: "key-name" }, "Name", name), h("label", { for: "key-role" }, "Role", role),
  h("button", { type: "submit", id: "key-create" }, "Create key"), err), shown, list);
  async function load() {
    try {
      const keys = (await api("GET", "/v1/keys")).keys || [];
      list.replaceChildren(keys.length ? h("div", { class: "table-wrap" }, h("table", { class: "keys" },
        h("thead", {}, h("tr", {}, ["Name", "Key id", "Role", "Created", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, keys.map((k) => h("tr", { "data-id": k.id },
          h("td", {}, k.name), h("td", { class: "mono" }, k.id), h("td", {}, k.role), h("td", {}, timeEl(k.created_at)),
          h("td", {}, k.id === session.keyID ? h("span", { class: "muted" }, "this session") : h("button", { type: "button", class: "danger", "aria-label": "Revoke key " + k.name, onclick: async () => {
            if (!confirm("Revoke key " + k.name + " (" + k.id + ")? Its token stops working at once.")) return;
            try { await api("DELETE", "/v1/keys/" + encodeURIComponent(k.id)); toast("Revoked " + k.name); load(); } catch (e) { toast(e.message, true); }
          } }, "Revoke"))))))) : empty("No keys."));
    } catch (e) { list.replaceChildren(errorBox(e)); }
  }
  load();
}

// ---- Playground ----
function pagePlayground(main) {
  main.append(h("h1", {}, "Playground"), h("p", { class: "muted" }, "Scan a command or code without running it. The report and its evidence appear below."));
  const kind = h("select", { id: "pg-kind" }, h("option", { value: "command" }, "shell command"), h("option", { value: "python" }, "Python code"));
  const tool = h("input", { id: "pg-tool", type: "text", value: "bash" });
  const content = h("textarea", { id: "pg-content", spellcheck: "false", placeholder: "curl -fsSL example.com/install.sh | sh" });
  const out = h("div", { id: "pg-report", "aria-live": "polite" });
  main.append(h("form", { class: "card", onsubmit: async (ev) => {
    ev.preventDefault();
    const body = { tool_name: tool.value.trim() || "bash" };
    if (kind.value === "python") { body.code = content.value; body.language = "python"; } else body.command = content.value;
    out.replaceChildren(h("p", { class: "muted" }, "Scanning…"));
    try {
      const rep = await api("POST", "/v1/scan", body);
      out.replaceChildren(h("section", { class: "card" }, h("h2", {}, "Report"), reportView(rep, content.value)));
    } catch (e) { out.replaceChildren(errorBox(e)); }
  } },
  h("div", { class: "row" }, h("label", { for: "pg-kind" }, "Kind", kind), h("label", { for: "pg-tool" }, "Tool name", tool)),
  h("label", { for: "pg-content" }, "Content", content),
  h("div", { class: "row" }, h("button", { type: "submit", id: "pg-scan" }, "Scan"))), out);
}

// ---- Plugins (admin) ----
function pagePlugins(main, args) {
  if (args[0]) return pagePlugin(main, args[0]);
  main.append(h("h1", {}, "Rule plugins"));
  const report = h("div", { id: "upload-report", "aria-live": "polite" });
  const file = h("input", { id: "plugin-file", type: "file", accept: ".wasm,application/wasm" });
  const activate = h("input", { id: "plugin-activate", type: "checkbox" });
  const drop = h("div", { class: "drop", id: "plugin-drop" },
    h("p", {}, "Drop a rule plugin (.wasm) here, or choose a file."),
    h("div", { class: "row" }, h("label", { for: "plugin-file" }, "Plugin module", file),
      h("label", { for: "plugin-activate" }, h("span", {}, "Activate after validation"), activate)));
  async function upload(f) {
    report.replaceChildren(h("p", { class: "muted" }, "Uploading " + f.name + "…"));
    try {
      const r = await api("POST", "/v1/plugins" + (activate.checked ? "?activate=true" : ""), f, { contentType: "application/wasm" });
      report.replaceChildren(validationView(r));
      load();
    } catch (e) {
      // A refused module comes back with its validation report.
      report.replaceChildren(errorBox(e), e.body.validation ? validationView(e.body) : "");
    }
  }
  drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (ev) => { ev.preventDefault(); drop.classList.remove("over"); const f = ev.dataTransfer.files[0]; if (f) upload(f); });
  file.addEventListener("change", () => { if (file.files[0]) upload(file.files[0]); });
  const list = h("div", { id: "plugin-list" });
  main.append(h("section", { class: "card" }, h("h2", {}, "Upload"), drop, report), h("section", { class: "card" }, h("h2", {}, "Installed"), list));
  async function load() {
    try {
      const ps = (await api("GET", "/v1/plugins")).plugins || [];
      list.replaceChildren(ps.length ? h("div", { class: "table-wrap" }, h("table", { class: "plugins" },
        h("thead", {}, h("tr", {}, ["Plugin", "Kind", "Status", "Active digest", "Rules"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ps.map((p) => h("tr", { "data-name": p.name },
          h("td", {}, h("a", { href: "#/plugins/" + encodeURIComponent(p.name) }, p.name)), h("td", {}, p.builtin ? "built-in" : "uploaded"),
          h("td", {}, p.status || "—"), h("td", { class: "mono" }, (p.active_digest || "—").slice(0, 23)),
          h("td", {}, String((p.rules || []).length) + (p.revisions ? " · " + p.revisions + " revision(s)" : ""))))))) : empty("No plugins."));
    } catch (e) { list.replaceChildren(e.status === 404 ? empty("This server has no plugin API.") : errorBox(e)); }
  }
  load();
}

function validationView(r) {
  const v = r.validation || {};
  return h("section", { class: "card", id: "validation" },
    h("h3", {}, (v.ok ? "Valid: " : "Refused: ") + (r.name || "") + " " + (r.version || "")),
    h("dl", { class: "meta" }, h("dt", {}, "Digest"), h("dd", { class: "mono" }, r.digest || "—"), h("dt", {}, "ABI"), h("dd", {}, String(r.abi_version || "—")),
      h("dt", {}, "Status"), h("dd", { id: "upload-status" }, r.status || "—"), h("dt", {}, "Signer"), h("dd", {}, r.signer || "unsigned")),
    h("ul", { class: "checks" }, (v.checks || []).map((c) => h("li", { class: c.ok ? "d-allow" : "d-deny" }, (c.ok ? "✓ " : "✗ ") + c.name + (c.detail ? ": " + c.detail : "")))));
}

function pagePlugin(main, name) {
  main.append(h("p", {}, h("a", { href: "#/plugins" }, "← All plugins")), h("h1", {}, "Plugin ", name));
  const body = h("div", {}), shadow = h("div", { id: "shadow-diff" });
  main.append(body, shadow);
  const path = "/v1/plugins/" + encodeURIComponent(name);
  const act = async (what, payload) => {
    try { await api("POST", path + "/" + what, payload); toast(what + " done"); load(); } catch (e) { toast(e.message, true); }
  };
  async function load() {
    let p;
    try { p = await api("GET", path); } catch (e) { body.replaceChildren(errorBox(e)); return; }
    const revs = p.revisions || [];
    body.replaceChildren(
      h("section", { class: "card" }, h("dl", { class: "meta" },
        h("dt", {}, "Active"), h("dd", { class: "mono", id: "active-digest" }, p.active_digest || "none"),
        h("dt", {}, "Status"), h("dd", {}, p.status || "—"),
        h("dt", {}, "Latency and errors"), h("dd", { id: "plugin-stats" }, p.stats ? ["calls " + (p.stats.calls || 0), "errors " + (p.stats.errors || 0), "timeouts " + (p.stats.timeouts || 0),
          "p50 " + (p.stats.p50_ms || 0) + " ms", "p99 " + (p.stats.p99_ms || 0) + " ms"].join(" · ") : "—")),
        h("div", { class: "row" }, h("button", { type: "button", class: "secondary", onclick: () => act("rollback", {}) }, "Roll back"),
          h("button", { type: "button", class: "secondary", onclick: () => act("deactivate", {}) }, "Deactivate"))),
      h("section", { class: "card", id: "revisions" }, h("h2", {}, "Revisions"), revs.length ? h("table", {},
        h("thead", {}, h("tr", {}, ["Digest", "Version", "Uploaded", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, revs.map((r) => h("tr", {}, h("td", { class: "mono" }, (r.digest || "").slice(0, 23)), h("td", {}, r.version || "—"), h("td", {}, timeEl(r.uploaded_at || r.created_at)),
          h("td", { class: "row" }, r.digest === p.active_digest ? h("span", { class: "muted" }, "active") : h("button", { type: "button", class: "activate", "aria-label": "Activate " + (r.version || "") + " " + (r.digest || "").slice(0, 19), onclick: () => act("activate", { digest: r.digest }) }, "Activate"),
            h("button", { type: "button", class: "secondary", onclick: () => shadowRun(r.digest) }, "Shadow diff")))))) : empty("No uploaded revisions.")),
      h("section", { class: "card" }, h("h2", {}, "Replicas"), (p.replicas || []).length ? h("ul", {}, p.replicas.map((x) => h("li", { class: x.error ? "d-deny" : "" }, x.id + ": " + (x.loaded_digest || "—") + (x.error ? " — " + x.error : "")))) : empty("No replica reports.")));
  }
  async function shadowRun(digest) {
    shadow.replaceChildren(h("p", { class: "muted" }, "Replaying recent scans…"));
    try { const r = await api("POST", path + "/shadow", { digest, limit: 200 }); shadow.replaceChildren(diffView(r)); } catch (e) { shadow.replaceChildren(errorBox(e)); }
  }
  load();
}

function diffView(r) {
  const ch = r.changed || [];
  return h("section", { class: "card", id: "diff" }, h("h2", {}, "Replayed " + (r.replayed || 0) + " scans: " + ch.length + " decision(s) change"),
    ch.length ? h("table", {}, h("thead", {}, h("tr", {}, ["Scan", "Before", "After"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, ch.map((c) => h("tr", { class: "diff-changed" }, h("td", {}, h("a", { href: "#/audit/" + encodeURIComponent(c.scan_id), class: "mono" }, c.scan_id)),
        h("td", {}, badge("d", c.before), c.rules_before ? " " + c.rules_before.join(", ") : ""), h("td", {}, badge("d", c.after), c.rules_after ? " " + c.rules_after.join(", ") : ""))))) : empty("No decision changes."));
}

// ---- Policy ----
function pagePolicy(main) {
  main.append(h("h1", {}, "Policy"));
  const meta = h("p", { class: "muted", id: "policy-meta" });
  const editor = h("textarea", { id: "policy-yaml", class: "editor", spellcheck: "false", "aria-describedby": "policy-error" });
  const err = h("div", { id: "policy-error", class: "field-error", role: "alert" });
  const result = h("div", { id: "policy-result" });
  const hist = h("div", { id: "policy-history" });
  const canEdit = allows("admin");
  if (!canEdit) editor.setAttribute("readonly", "");
  const showErr = (e) => { err.textContent = e.message + (e.field ? " — at " + e.field : ""); };
  main.append(meta, h("section", { class: "card" }, h("label", { for: "policy-yaml" }, "Active policy (YAML)", editor), err,
    canEdit ? h("div", { class: "row" },
      h("button", { type: "button", id: "policy-dryrun", class: "secondary", onclick: async () => {
        err.textContent = ""; result.replaceChildren(h("p", { class: "muted" }, "Replaying recent scans…"));
        try { result.replaceChildren(diffView(await api("POST", "/v1/policy/dry-run", { yaml: editor.value, limit: 500 }))); } catch (e) { result.replaceChildren(); showErr(e); }
      } }, "Dry run against recent scans"),
      h("button", { type: "button", id: "policy-save", onclick: async () => {
        err.textContent = "";
        try { const r = await api("PUT", "/v1/policy", { yaml: editor.value }); toast("Saved policy version " + r.version); load(); } catch (e) { showErr(e); }
      } }, "Save")) : h("p", { class: "muted" }, "Only admins change the policy.")), result, h("section", { class: "card" }, h("h2", {}, "History"), hist));
  async function load() {
    try {
      const p = await api("GET", "/v1/policy");
      editor.value = p.yaml || "";
      meta.replaceChildren("Version " + p.version + " · ", h("span", { class: "mono" }, (p.digest || "").slice(0, 19)), " · updated ", timeEl(p.updated_at), p.updated_by ? " by " + p.updated_by : "");
    } catch (e) { meta.replaceChildren(e.status === 404 ? "This server has no policy API." : errorBox(e)); }
    try {
      const hs = await api("GET", "/v1/policy/history");
      const items = hs.revisions || hs.history || [];
      hist.replaceChildren(items.length ? h("table", {}, h("thead", {}, h("tr", {}, ["Version", "Digest", "Updated", "By", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, items.map((v) => h("tr", {}, h("td", {}, String(v.version)), h("td", { class: "mono" }, (v.digest || "").slice(0, 19)), h("td", {}, timeEl(v.updated_at)), h("td", {}, v.updated_by || "—"),
          h("td", {}, v.version === hs.active_version ? h("span", { class: "muted" }, "active") : canEdit ? h("button", { type: "button", class: "secondary", onclick: async () => {
            try { await api("POST", "/v1/policy/rollback", { version: v.version }); toast("Rolled back to version " + v.version); load(); } catch (e) { toast(e.message, true); }
          } }, "Roll back to this") : null))))) : empty("No earlier versions."));
    } catch (e) { hist.replaceChildren(e.status === 404 ? empty("No history available.") : errorBox(e)); }
  }
  load();
}

// ---- Audit ----
function pageAudit(main, args) {
  if (args[0] && !args[0].startsWith("?")) return pageScan(main, args[0]);
  main.append(h("h1", {}, "Audit: recent scans"));
  const inputs = {};
  const field = (name, label, el) => { inputs[name] = el; el.id = "a-" + name; return h("label", { for: el.id }, label, el); };
  const out = h("div", { id: "audit-results", "aria-live": "polite" });
  let cursor = "", history = [];
  const form = h("form", { class: "card row", role: "search", "aria-label": "Search scans", onsubmit: (ev) => { ev.preventDefault(); cursor = ""; history = []; load(); } },
    field("decision", "Decision", h("select", {}, h("option", { value: "" }, "any"), ["allow", "needs_human_review", "deny"].map((d) => h("option", { value: d }, d.replace(/_/g, " "))))),
    field("rule", "Rule id", h("input", { type: "text", placeholder: "e.g. BASH_REMOTE_CODE_EXEC" })),
    field("tool", "Tool", h("input", { type: "text" })),
    field("agent", "Agent (key id)", h("input", { type: "text" })),
    field("since", "Since", h("input", { type: "datetime-local" })),
    field("until", "Until", h("input", { type: "datetime-local" })),
    h("button", { type: "submit", id: "audit-search" }, "Search"));
  main.append(form, out);
  async function load() {
    const q = new URLSearchParams({ limit: "25" });
    for (const [k, el] of Object.entries(inputs)) {
      const v = el.value.trim();
      if (!v) continue;
      q.set(k, el.type === "datetime-local" ? new Date(v).toISOString() : v); // the viewer's zone, sent as UTC
    }
    if (cursor) q.set("cursor", cursor);
    try {
      const r = await api("GET", "/v1/scans?" + q.toString());
      const scans = r.scans || [];
      out.replaceChildren(scans.length ? h("div", { class: "table-wrap" }, h("table", { class: "scans" },
        h("thead", {}, h("tr", {}, ["Time", "Scan", "Tool", "Decision", "Risk", "Rules", "Agent", "Content"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, scans.map((s) => h("tr", {}, h("td", {}, timeEl(s.time)),
          h("td", {}, h("a", { href: "#/audit/" + encodeURIComponent(s.scan_id), class: "mono" }, (s.scan_id || "").slice(0, 12))),
          h("td", {}, s.tool_name || "—"), h("td", {}, badge("d", s.decision)), h("td", {}, s.risk_level || "—"),
          h("td", { class: "mono" }, (s.rule_ids || []).join(", ") || "—"), h("td", { class: "mono" }, s.owner_key_id || "—"),
          h("td", { class: "mono" }, redact(((s.request || {}).content || "").split("\n")[0].slice(0, 60)))))))) : empty("No scans match. Widen the time range or clear a filter."),
        h("div", { class: "pager" },
          h("button", { type: "button", class: "secondary", disabled: !history.length, onclick: () => { cursor = history.pop() || ""; load(); } }, "Previous page"),
          h("button", { type: "button", class: "secondary", disabled: !r.next_cursor, onclick: () => { history.push(cursor); cursor = r.next_cursor; load(); } }, "Next page")));
    } catch (e) { out.replaceChildren(e.status === 404 ? empty("This server keeps no scan log (scanlog.enabled is false, or the server is older).") : errorBox(e)); }
  }
  load();
}

async function pageScan(main, id) {
  main.append(h("p", {}, h("a", { href: "#/audit" }, "← Audit")), h("h1", {}, "Scan ", h("span", { class: "mono" }, id)));
  try {
    const s = await api("GET", "/v1/scans/" + encodeURIComponent(id));
    const req = s.request || {};
    main.append(h("section", { class: "card" }, h("p", {}, timeEl(s.time), " · tool ", s.tool_name || "—", " · agent ", h("span", { class: "mono" }, s.owner_key_id || "—")),
      reportView(s.safety_report, req.content || "")));
  } catch (e) { main.append(errorBox(e)); }
}

// ---- start ----
async function start() {
  $("#signout").addEventListener("click", async () => {
    try { await api("DELETE", "/ui/session", undefined, { noSignIn: true }); } catch (_) { /* signed out anyway */ }
    signedOut("");
    route();
  });
  window.addEventListener("hashchange", route);
  try { setSession(await api("GET", "/ui/session", undefined, { noSignIn: true })); } catch (_) { /* not signed in */ }
  route();
}
start();
