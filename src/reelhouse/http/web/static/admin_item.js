// An administrator on an item's page: refresh its metadata, rescan its folder, identify it by hand
// (search the library's providers, then apply a match), through the console's administrative door.
"use strict";

function adminItem(path, options) { return requestJson("/web/admin/api/items/" + encodeURIComponent(document.getElementById("item").dataset.item) + path, options); }

function said(text) { const box = document.getElementById("item-admin-said"); box.textContent = text; box.hidden = false; }

document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("item-admin");
  if (!box) return;
  const guard = (run) => async (event) => {
    event.preventDefault();
    const control = event.submitter || event.currentTarget;
    control.disabled = true;
    try { await run(); } catch (e) { /* shown by requestJson */ } finally { control.disabled = false; }
  };
  document.getElementById("item-refresh").addEventListener("click", guard(async () => {
    await adminItem("/refresh", { json: { mode: "replaceAll" } });
    said("Metadata refresh queued.");
  }));
  document.getElementById("item-rescan").addEventListener("click", guard(async () => {
    await adminItem("/rescan", { method: "POST" });
    said("Its folder is being read again.");
  }));
  const form = document.getElementById("identify");
  const found = document.getElementById("candidates");
  form.addEventListener("submit", guard(async () => {
    const query = form.elements.query.value.trim();
    const year = Number(form.elements.year.value) || undefined;
    const answer = await adminItem("/identify", { json: { query, year } });
    found.replaceChildren();
    for (const c of answer.candidates) {
      const use = Object.assign(document.createElement("button"), { type: "button", textContent: "Use this" });
      use.addEventListener("click", guard(async () => {
        await adminItem("/identify", { json: { providerId: c.providerId, providerItemId: c.providerItemId } });
        said("Identified as " + c.name + (c.year ? " (" + c.year + ")" : "") + ".");
        setTimeout(() => location.reload(), 800);
      }));
      const line = document.createElement("li");
      line.append(c.name + (c.year ? " (" + c.year + ")" : "") + " · " + c.providerId + " ", use);
      found.append(line);
    }
    if (!answer.candidates.length) said("No match found.");
  }));
});
