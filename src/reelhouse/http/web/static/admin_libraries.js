// The libraries page: create (with options), rename or change folders, edit options (the update hints
// shown), scan quick or full, cancel, confirm missing, metadata and upkeep actions, delete, errors;
// live progress from the scan event stream (GET /scans/events: a snapshot per library, then every change).
"use strict";
const SCAN_EVENTS = ["scan.snapshot", "scan.queued", "scan.started", "scan.progress", "scan.paused",
  "scan.completed", "scan.failed", "scan.cancelled"];
const HINTS = {
  rescanSuggested: "A full scan is suggested for the new options.",
  nfoSyncSuggested: "Writing the local metadata files again is suggested.",
  remoteReadsSuggested: "Reading remote sources again is suggested.",
  scrapeRequeueSuggested: "Fetching metadata again for the items it failed on is suggested.",
};

// Bulk actions on the items in an attention state (POST /libraries/{id}/attention-actions).
const ATTENTION = {
  reidentify: "Identify again (needs identifying)", rescrape: "Scrape again (scrape failed or not queued)",
  reprobe: "Read media information again (unread)", dropMissing: "Remove missing items now",
};

function scanLine(status) {
  const box = el("div", { className: "scan" });
  const counts = [status.processed + (status.total ? " of " + status.total : "") + " processed",
    status.added != null ? status.added + " added" : "", status.changed != null ? status.changed + " changed" : "",
    status.missing ? status.missing + " missing" : "", status.errors ? status.errors + " errors" : ""].filter(Boolean);
  box.append(el("span", { className: "state", dataset: { state: status.state } }, status.state),
    status.state === "running" || status.state === "cancelling" ? bar(status.processed, status.total || status.processed + 1) : "",
    el("span", { className: "meta" }, " " + counts.join(", ") + (status.message ? " · " + status.message : "")));
  return box;
}

function libraryCard(library, reload) {
  const id = encodeURIComponent(library.id);
  const card = el("article", { className: "library", id: "library-" + library.id, dataset: { library: library.id } });
  const status = el("div", { className: "status" }, "Waiting for the scan stream…");
  const options = el("textarea", { className: "options", rows: 4, value: JSON.stringify(library.options || {}, null, 1), "aria-label": "Options of " + library.name });
  const hints = el("ul", { className: "hints" });
  const act = (path, said) => admin("/api/libraries/" + id + path, { method: "POST" }).then(() => notice(library.name + ": " + said));
  const attention = el("select", { "aria-label": "Action on the items needing attention" },
    ...Object.entries(ATTENTION).map(([value, label]) => el("option", { value }, label)));
  const name = el("input", { value: library.name, maxLength: 200, "aria-label": "Name of " + library.name, name: "name" });
  const folders = el("textarea", { rows: 2, value: (library.paths || []).join("\n"), "aria-label": "Folders of " + library.name, name: "paths" });
  card.append(
    el("h2", {}, library.name), el("p", { className: "meta" }, library.collectionType + " · " + (library.paths || []).join(", ")),
    status,
    el("div", { className: "actions" },
      button("Quick scan", () => act("/scan", "scan started.")),
      button("Full scan", () => admin("/api/libraries/" + id + "/scan", { json: { mode: "full" } }).then(() => notice(library.name + ": full scan started."))),
      button("Cancel scan", () => act("/cancel-scan", "cancelling.")),
      button("Confirm missing", () => admin("/api/libraries/" + id + "/confirm-missing", { method: "POST" })
        .then((answer) => notice(library.name + ": " + (answer && answer.message ? answer.message : "missing items confirmed."))))),
    el("details", { className: "more" }, el("summary", {}, "Metadata and upkeep"), el("div", { className: "actions" },
      button("Refresh missing metadata", () => admin("/api/libraries/" + id + "/refresh", { json: { mode: "missing" } })
        .then(() => notice(library.name + ": metadata refresh queued."))),
      button("Rescrape unmatched", () => admin("/api/libraries/" + id + "/rescrape", { method: "POST" })
        .then((r) => notice(library.name + ": " + r.queued + " queued, " + r.skipped + " skipped."))),
      button("Scrape what was never scraped", () => admin("/api/libraries/" + id + "/scrape-requeue", { method: "POST" })
        .then((r) => notice(library.name + ": " + r.queued + " queued, " + r.skipped + " skipped."))),
      attention,
      button("Run on the items needing it", () => admin("/api/libraries/" + id + "/attention-actions", { json: { action: attention.value } })
        .then((r) => notice(library.name + ": " + r.count + " items taken (see Jobs)."))),
      button("Regenerate covers", () => act("/covers/regenerate", "covers made again.")),
      button("Write NFO files", () => act("/nfo-sync", "writing NFO files (see Jobs).")),
      button("Delete library", async () => {
        if (!confirm("Delete " + library.name + "? Its items and settings go; the files stay on disk.")) return;
        await admin("/api/libraries/" + id, { method: "DELETE" });
        notice(library.name + " is deleted.");
        await reload();
      }))),
    el("details", { className: "more" }, el("summary", {}, "Name and folders"), el("div", { className: "form" },
      el("label", {}, "Name ", name), el("label", {}, "Folders (one per line) ", folders),
      button("Save name and folders", async () => {
        const paths = folders.value.split("\n").map((p) => p.trim()).filter(Boolean);
        const same = paths.join("\n") === (library.paths || []).join("\n");
        const changed = await admin("/libraries/" + id, { method: "PATCH", json: { name: name.value, paths: same ? null : paths } });
        notice(changed.name + ": saved." + (same ? "" : " A full scan of the new folders has started."));
        await reload();
      }))),
    el("details", { className: "more" }, el("summary", {}, "Options"), options, hints,
      button("Save options", async () => {
        let changed;
        try { changed = JSON.parse(options.value); } catch (e) { showError("The options are not JSON."); throw e; }
        const updated = await admin("/api/libraries/" + id + "/options", { method: "PATCH", json: changed });
        hints.replaceChildren(...Object.entries(HINTS).filter(([k]) => updated[k]).map(([, text]) => el("li", {}, text)));
        options.value = JSON.stringify(updated.options || changed, null, 1);  // as the server keeps them
        notice(library.name + ": options saved." + (hints.children.length ? "" : " Nothing more to do."));
      })));
  return { card, name: library.name, show: (s) => status.replaceChildren(scanLine(s)) };
}

async function librariesPage() {
  const box = document.getElementById("libraries");
  const shown = new Map();
  const latest = new Map();  // the stream's last status of each library, also for cards drawn later
  const errors = async () => {
    const found = await admin("/api/scans/errors");
    const names = new Map([...shown.entries()].map(([id, view]) => [id, view.name]));
    rows("#scan-errors", found.slice(0, 100), (e) => [names.get(e.libraryId) || e.libraryId, e.path, e.error], "No scan error.");
  };
  const libraries = async () => {
    const list = await admin("/api/libraries");
    box.replaceChildren();
    shown.clear();
    if (!list.length) box.append(el("p", { className: "empty" }, "No library yet: add one below."));
    for (const library of list) {
      const view = libraryCard(library, libraries);
      shown.set(library.id, view);
      box.append(view.card);
      if (latest.has(library.id)) view.show(latest.get(library.id));
    }
  };
  const stream = new EventSource(ADMIN + "/api/scans/events");
  const take = (event) => {
    const status = JSON.parse(event.data);
    latest.set(status.libraryId, status);
    const view = shown.get(status.libraryId);
    if (view) view.show(status);
    if (["scan.completed", "scan.failed"].includes(event.type)) errors().catch(() => null);
  };
  for (const name of SCAN_EVENTS) stream.addEventListener(name, take);
  window.addEventListener("pagehide", () => stream.close());
  const form = document.getElementById("create");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = formJson(form);
    const body = { name: data.name, paths: data.paths.split("\n").map((p) => p.trim()).filter(Boolean),
      collectionType: data.collectionType, realtimeMonitor: data.realtimeMonitor === "on" };
    if (data.options.trim()) {
      try { body.options = JSON.parse(data.options); } catch (e) { showError("The options are not JSON."); return; }
    }
    const created = await admin("/api/libraries", { json: body }).catch(() => null);
    if (!created) return;
    notice(created.name + " is added; its first scan has started.");
    form.reset();
    await libraries();
  });
  await Promise.all([libraries(), errors()]);
}

window.ADMIN_MORE = Object.assign(window.ADMIN_MORE || {}, { "admin-libraries": librariesPage });
