// The members page: the list (GET /users), add, and change (role, state, password, PIN, library
// access, sessionOnlyLogin, the parental rule) through the console's /web/admin/members routes.
"use strict";
const PARENTAL_LISTS = ["blockedGenres", "blockedTags", "blockedItems", "allowedItems"];

function hhmm(minute) { return String(Math.floor(minute / 60)).padStart(2, "0") + ":" + String(minute % 60).padStart(2, "0"); }

function parentalSummary(rule) {
  if (!rule) return "none";
  const parts = ["up to age " + rule.maxAge];
  for (const name of ["blockedGenres", "blockedTags"]) if ((rule[name] || []).length) parts.push("no " + rule[name].join(", "));
  if (rule.dailyLimitMinutes) parts.push(rule.dailyLimitMinutes + " min a day");
  for (const w of rule.windows || []) parts.push("days " + w.days.join(",") + " " + hhmm(w.startMinute) + "-" + hhmm(w.endMinute));
  return parts.join(" · ");
}

// The form's parental fields: shown from the member's rule, read back as the rule's fields
// (windows as the command line writes them; the server reads them as it does).
function showParental(form, rule) {
  const f = form.elements;
  f.maxAge.value = rule ? String(rule.maxAge) : "";
  for (const name of PARENTAL_LISTS) f[name].value = rule ? (rule[name] || []).join(", ") : "";
  f.dailyLimitMinutes.value = rule && rule.dailyLimitMinutes ? rule.dailyLimitMinutes : "";
  f.windows.value = rule ? (rule.windows || []).map((w) => w.days.join(",") + " " + hhmm(w.startMinute) + "-" + hhmm(w.endMinute)).join("\n") : "";
}

function readParental(form, had) {
  const f = form.elements;
  if (!f.maxAge.value) return had ? { clearParental: true } : {};
  const list = (text) => text.split(",").map((v) => v.trim()).filter(Boolean);
  const rule = { maxAge: Number(f.maxAge.value), dailyLimitMinutes: Number(f.dailyLimitMinutes.value || 0),
    windows: f.windows.value.split("\n").map((line) => line.trim()).filter(Boolean) };
  for (const name of PARENTAL_LISTS) rule[name] = list(f[name].value);
  return { parental: rule };
}

async function membersPage() {
  const libraries = await admin("/api/libraries");
  const dialog = document.getElementById("edit");
  const editForm = document.getElementById("edit-form");
  const libraryBox = document.getElementById("edit-libraries");
  for (const library of libraries) {
    libraryBox.append(el("label", {}, el("input", { type: "checkbox", name: "library", value: library.id }), " " + library.name));
  }
  let editing = null;
  let parentalTouched = false;  // the rule is sent only when changed: saving the rest leaves it as it is
  const parentalBox = document.getElementById("edit-parental");
  for (const kind of ["input", "change"]) parentalBox.addEventListener(kind, () => { parentalTouched = true; });
  const members = async () => rows("#members", await admin("/api/users"), (u) => [
    u.name + (u.policy.isDisabled ? " (disabled)" : ""), u.isAdmin ? "administrator" : "member",
    u.policy.allLibraries ? "all" : libraries.filter((l) => u.policy.accessibleLibraries.includes(l.id)).map((l) => l.name).join(", ") || "none",
    parentalSummary(u.policy.parental), button("Change", () => open(u)),
  ]);
  const open = (u) => {
    editing = u;
    editForm.reset();
    document.getElementById("edit-title").textContent = u.name;
    const p = u.policy;
    for (const [name, value] of [["admin", u.isAdmin], ["disabled", p.isDisabled], ["hidden", p.isHidden],
      ["sessionOnlyLogin", p.sessionOnlyLogin], ["allLibraries", p.allLibraries]]) editForm.elements[name].checked = !!value;
    for (const box of editForm.querySelectorAll("input[name=library]")) box.checked = (p.accessibleLibraries || []).includes(box.value);
    showParental(editForm, p.parental);
    parentalTouched = false;
    document.getElementById("edit-error").hidden = true;
    dialog.showModal();
  };
  editForm.addEventListener("submit", async (event) => {
    if (event.submitter && event.submitter.value === "cancel") return;
    event.preventDefault();
    const f = editForm.elements;
    const body = { admin: f.admin.checked, disabled: f.disabled.checked, hidden: f.hidden.checked,
      sessionOnlyLogin: f.sessionOnlyLogin.checked, clearPin: f.clearPin.checked };
    if (f.allLibraries.checked) body.allLibraries = true;
    else body.libraries = [...editForm.querySelectorAll("input[name=library]:checked")].map((b) => b.value);
    if (f.password.value) body.password = f.password.value;
    if (f.pin.value) body.pin = f.pin.value;
    if (parentalTouched) Object.assign(body, readParental(editForm, !!editing.policy.parental));
    const said = document.getElementById("edit-error");  // the page's own error box is behind the dialog
    const done = await admin("/members/" + encodeURIComponent(editing.name), { method: "PATCH", json: body })
      .catch((e) => { said.textContent = e.message; said.hidden = false; return null; });
    if (!done) return;
    dialog.close();
    notice(done.name + ": " + (done.changed.join(", ") || "nothing changed") + ".");
    await members();
  });
  const add = document.getElementById("add");
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = formJson(add);
    const made = await admin("/members", { json: { name: data.name, password: data.password || null, admin: data.admin === "on" } }).catch(() => null);
    if (!made) return;
    notice(made.name + " is added.");
    add.reset();
    await members();
  });
  await members();
}

window.ADMIN_MORE = Object.assign(window.ADMIN_MORE || {}, { "admin-members": membersPage });
