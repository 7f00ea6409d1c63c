// The administrator pages: system, jobs and schedules, activity, playback and devices, members,
// keys, plugins and backups (libraries and scans: admin_libraries.js). Each asks /web/admin/api
// (the administrative API's own routes, as the signed-in administrator) or the console's own
// /web/admin routes; an error is shown as the error body's sentence.
"use strict";
const ADMIN = "/web/admin";

// The console's administrative door (static/fetch.js); an answer that lands clears an earlier error.
async function admin(path, options = {}) {
  const answer = await requestJson(ADMIN + path, options);
  hideError();
  return answer;
}

function notice(text) {
  const box = document.getElementById("notice");
  box.textContent = text; box.hidden = false;
}

function el(tag, { dataset = {}, ...props } = {}, ...children) {
  const node = document.createElement(tag);
  // "aria-label" and the like are attributes only; the rest are the element's properties.
  for (const [key, value] of Object.entries(props)) {
    if (key.includes("-")) node.setAttribute(key, value); else node[key] = value;
  }
  Object.assign(node.dataset, dataset);
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

function button(label, onClick, props = {}) {
  const b = el("button", { type: "button", ...props }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try { await onClick(); } catch (e) { /* shown */ } finally { b.disabled = false; }
  });
  return b;
}

function rows(table, items, cells, empty = "None.") {
  const body = document.querySelector(table + " tbody");
  body.replaceChildren();
  for (const item of items) body.append(el("tr", {}, ...cells(item).map((c) => el("td", {}, c))));
  if (!items.length) body.append(el("tr", {}, el("td", { colSpan: 9, className: "empty" }, empty)));
}

function when(text) { return text ? new Date(text).toLocaleString() : "–"; }
function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0; while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + " " + units[i];
}
function clock(seconds) {
  const s = Math.floor(seconds || 0);
  return Math.floor(s / 3600) + ":" + String(Math.floor(s / 60) % 60).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
}
function bar(value, max) { return el("progress", { value: value || 0, max: max || 1 }); }
function formJson(form) { return Object.fromEntries(new FormData(form).entries()); }

async function systemPage() {
  const status = await admin("/api/system/status");
  const facts = document.getElementById("status");
  const checks = (status.checks || []).map((c) => c.name + ": " + c.status).join(", ");
  for (const [name, value] of [["Status", status.status], ["Version", status.version], ["Server", status.serverName],
    ["Up for", clock(status.uptimeSeconds)], ["Started", when(status.startedAt)], ["Checks", checks]]) {
    facts.append(el("dt", {}, name), el("dd", {}, value));
  }
  const caches = (list) => rows("#caches", list, (c) => [c.name, c.fileCount, bytes(c.sizeBytes || 0),
    c.clearable ? button("Clear", () => admin("/api/system/caches/" + encodeURIComponent(c.name) + "/clear", { method: "POST" })
      .then((now) => { notice(c.name + ": cleared."); return caches(list.map((o) => (o.name === now.name ? now : o))); })) : ""]);
  caches(status.caches || []);
  const update = await admin("/api/system/update");
  const said = !update.enabled ? "not checked (turned off)" : update.available && update.latest
    ? update.latest.version + " is available" : "up to date" + (update.checkedAt ? " (checked " + when(update.checkedAt) + ")" : "");
  facts.append(el("dt", {}, "Updates"), el("dd", { id: "update" }, said));
}

async function tasksPage() {
  const jobs = async () => rows("#jobs", await admin("/api/jobs"), (j) => [
    j.title, j.state + (j.message ? " · " + j.message : ""), j.total ? bar(j.processed, j.total) : j.processed,
    j.cancellable && j.state === "running" ? button("Cancel", () => admin("/api/jobs/" + encodeURIComponent(j.id) + "/cancel", { method: "POST" }).then(jobs)) : "",
  ], "No job yet.");
  const schedules = async () => rows("#schedules", (await admin("/api/admin/schedules")).schedules, (s) => {
    const rule = el("input", { value: JSON.stringify(s.rules[0] || { trigger: "manual" }), "aria-label": "Rule of " + s.task, className: "rule" });
    const task = encodeURIComponent(s.task);
    const change = (json) => admin("/schedules/" + task, { method: "PATCH", json }).then(() => { notice(s.task + ": changed."); return schedules(); });
    return [s.task + (s.paused ? " (paused)" : ""), rule, when(s.lastRunAt) + (s.lastResult ? " · " + s.lastResult : ""), el("span", { className: "actions" },
      button("Save rule", () => { let parsed; try { parsed = JSON.parse(rule.value); } catch (e) { showError("The rule is not JSON."); throw e; } return change({ rule: parsed }); }),
      button("Run now", () => admin("/api/admin/schedules/" + task + "/run", { method: "POST" }).then(() => { notice(s.task + " started."); return jobs(); })),
      button(s.paused ? "Resume" : "Pause", () => change({ paused: !s.paused })),
      button("Default", () => change({ reset: true })))];
  });
  for (const start of document.querySelectorAll("#start-jobs button")) {
    start.addEventListener("click", () => admin("/api" + start.dataset.path, { method: "POST" })
      .then(() => { notice(start.textContent + ": started."); return jobs(); }).catch(() => null));
  }
  await Promise.all([jobs(), schedules()]);
  setInterval(() => jobs().catch(() => null), 3000);  // progress bars move while jobs run
}

async function activityPage() {
  const form = document.getElementById("filters");
  const more = document.getElementById("more");
  let cursor = null;
  const body = document.querySelector("#activity tbody");
  const load = async (fresh) => {
    const query = new URLSearchParams({ limit: "50" });
    for (const [key, value] of Object.entries(formJson(form))) {
      if (value) query.set(key, key === "from" || key === "to" ? new Date(value).toISOString() : value);
    }
    if (!fresh && cursor) query.set("cursor", cursor);
    const page = await admin("/api/activity?" + query);
    if (fresh) body.replaceChildren();
    for (const e of page.entries) {
      const by = e.actor.name || e.actor.kind;
      const on = [e.target.kind, e.target.name || e.target.id].filter(Boolean).join(" ");
      body.append(el("tr", {}, el("td", {}, when(e.at)), el("td", {}, e.action), el("td", {}, by), el("td", {}, on)));
    }
    cursor = page.nextCursor || null;
    more.hidden = !cursor;
  };
  form.addEventListener("submit", (event) => { event.preventDefault(); load(true).catch(() => null); });
  more.addEventListener("click", () => load(false).catch(() => null));
  await load(true);
}

async function playbackPage() {
  const sessions = async () => rows("#sessions", await admin("/api/admin/playback/sessions"), (s) => [
    s.member, [s.title, s.episode].filter(Boolean).join(" · ") || s.itemId, s.device + " · " + s.player,
    el("span", {}, bar(s.positionSec, s.durationSec), " " + clock(s.positionSec) + (s.paused ? " (paused)" : "")),
    s.stoppable ? button("Stop", () => admin("/api/admin/playback/sessions/" + encodeURIComponent(s.id) + "/stop", { method: "POST" })
      .then(() => { notice("Stop sent to " + s.device + "."); return sessions(); })) : el("span", { className: "note" }, "cannot be stopped"),
  ], "Nobody is playing.");
  const devices = async () => rows("#devices", await admin("/api/devices"), (d) => [
    d.device + " · " + d.client, d.kind + (d.notCountedReason === "notPlayed" ? " (never played: not counted)" : ""), d.userName || "", when(d.lastSeen),
    button("Sign out", () => admin("/api/devices/" + encodeURIComponent(d.id), { method: "DELETE" }).then(() => { notice(d.device + " is signed out."); return devices(); })),
  ], "No device is signed in.");
  await Promise.all([sessions(), devices(), historyPart()]);
  setInterval(() => sessions().catch(() => null), 3000);
}

// Finished playbacks, newest first (GET /admin/playback/history): filtered, paged. Calendar dates
// are read in the browser's own time zone.
async function historyPart() {
  const form = document.getElementById("history-filters");
  const more = document.getElementById("history-more");
  const body = document.querySelector("#history tbody");
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  let cursor = null;
  const load = async (fresh) => {
    const query = new URLSearchParams({ limit: "50", tz: zone });
    for (const [key, value] of Object.entries(formJson(form))) if (value) query.set(key, value);
    if (!fresh && cursor) query.set("cursor", cursor);
    const page = await admin("/api/admin/playback/history?" + query);
    if (fresh) body.replaceChildren();
    for (const r of page.records) {
      const title = [r.title, r.episode].filter(Boolean).join(" · ") || r.itemId;
      body.append(el("tr", {}, el("td", {}, when(r.at)), el("td", {}, r.member), el("td", {}, title),
        el("td", {}, r.device + " · " + r.player),
        el("td", {}, bar(r.watchedSec, r.durationSec), " " + Math.round(r.percent) + "%" + (r.finished ? " ✓" : ""))));
    }
    if (fresh && !page.records.length) body.append(el("tr", {}, el("td", { colSpan: 5, className: "empty" }, "Nothing played yet.")));
    cursor = page.nextCursor || null;
    more.hidden = !cursor;
  };
  form.addEventListener("submit", (event) => { event.preventDefault(); load(true).catch(() => null); });
  more.addEventListener("click", () => load(false).catch(() => null));
  await load(true);
}

async function keysPage() {
  const form = document.getElementById("create");
  const keys = async () => rows("#keys", (await admin("/keys/list")).items, (k) => [
    k.name, when(k.createdAt), when(k.lastUsedAt), k.revokedAt ? "revoked " + when(k.revokedAt) : "active",
    k.revokedAt ? "" : button("Revoke", () => admin("/keys/" + encodeURIComponent(k.id), { method: "DELETE" }).then(() => { notice(k.name + " is revoked."); return keys(); })),
  ], "No key yet.");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const created = await admin("/keys", { json: formJson(form) }).catch(() => null);
    if (!created) return;
    document.getElementById("new-key-value").textContent = created.key;  // shown this once
    document.getElementById("new-key").hidden = false;
    form.reset();
    await keys();
  });
  await keys();
}

async function pluginsPage() {
  const box = document.getElementById("plugins");
  const plugins = async () => {
    box.replaceChildren();
    for (const p of await admin("/api/plugins/installed")) {
      const id = encodeURIComponent(p.id);
      const change = (json, said) => admin("/plugins/" + id, { method: "PATCH", json }).then(() => { notice(said); return plugins(); });
      const key = el("input", { placeholder: "setting", "aria-label": "Setting of " + p.name });
      const value = el("input", { placeholder: "value (never shown back)", type: "password", autocomplete: "off", "aria-label": "Value" });
      const missing = (p.missingRequired || []).length ? " · missing: " + p.missingRequired.join(", ") : "";
      box.append(el("article", { className: "plugin" },
        el("h3", {}, p.name + " " + p.version), el("p", { className: "meta" }, p.status + missing),
        el("div", { className: "actions" },
          button(p.enabled ? "Disable" : "Enable", () => change({ enabled: !p.enabled }, p.name + (p.enabled ? " disabled." : " enabled."))),
          key, value, button("Set", () => change({ settings: { [key.value]: value.value } }, p.name + ": " + key.value + " set.")),
          !p.bundled && p.status !== "not_installed" ? button("Remove", () => admin("/plugins/" + id, { method: "DELETE" })
            .then(() => { notice(p.name + " is removed (its settings are kept)."); return plugins(); })) : "")));
    }
  };
  const install = document.getElementById("install");
  install.addEventListener("submit", async (event) => {
    event.preventDefault();
    const done = await admin("/plugins", { json: formJson(install) }).catch(() => null);
    if (done) { notice(done.id + " " + (done.version || "") + " is installed."); install.reset(); await plugins(); }
  });
  await Promise.all([plugins(), backupsPart()]);
}

// Backups: make one now; restore one when the server next starts (a running server's database is
// never replaced under it), withdraw that until then; the last restore's outcome.
async function backupsPart() {
  const state = document.getElementById("restore-state");
  const backups = async () => {
    const found = await admin("/backups/list");
    const last = found.lastRestore;
    const said = found.pendingRestore ? found.pendingRestore + " is restored when the server next starts."
      : last ? "The last restore, " + when(last.at) + ": " + (last.ok ? "" : "failed: ") + last.message : "";
    state.textContent = said; state.hidden = !said;
    if (found.pendingRestore) state.append(" ", button("Withdraw", () => admin("/backups/restore", { method: "DELETE" })
      .then(() => { notice("The restore is withdrawn."); return backups(); })));
    rows("#backups", found.items.slice().reverse(), (b) => [b.name, bytes(b.size), when(b.createdAt),
      found.pendingRestore ? "" : button("Restore at next start", () => admin("/backups/" + encodeURIComponent(b.name) + "/restore", { method: "POST" })
        .then((answer) => { notice(answer.message); return backups(); }))], "No backup yet.");
  };
  document.getElementById("backup").addEventListener("click", async () => {
    notice("Backing up…");
    const made = await admin("/backups", { method: "POST" }).catch(() => null);
    if (made) { notice("Wrote " + made.name + "."); await backups(); }
  });
  await backups();
}

const ADMIN_PAGES = {
  "admin-system": systemPage, "admin-tasks": tasksPage, "admin-activity": activityPage,
  "admin-playback": playbackPage, "admin-keys": keysPage, "admin-plugins": pluginsPage,
};
document.addEventListener("DOMContentLoaded", () => {
  const run = ADMIN_PAGES[document.body.dataset.page] || (window.ADMIN_MORE || {})[document.body.dataset.page];
  if (run) run().catch(() => { /* shown by admin() */ });
});
