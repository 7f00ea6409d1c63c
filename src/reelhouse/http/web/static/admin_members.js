// The members page: the list (GET /users), add, and change (role, state, password, PIN, library
// access, sessionOnlyLogin) through the console's /web/admin/members routes.
"use strict";

async function membersPage() {
  const libraries = await admin("/api/libraries");
  const dialog = document.getElementById("edit");
  const editForm = document.getElementById("edit-form");
  const libraryBox = document.getElementById("edit-libraries");
  for (const library of libraries) {
    libraryBox.append(el("label", {}, el("input", { type: "checkbox", name: "library", value: library.id }), " " + library.name));
  }
  let editing = null;
  const members = async () => rows("#members", await admin("/api/users"), (u) => [
    u.name + (u.policy.isDisabled ? " (disabled)" : ""), u.isAdmin ? "administrator" : "member",
    u.policy.allLibraries ? "all" : libraries.filter((l) => u.policy.accessibleLibraries.includes(l.id)).map((l) => l.name).join(", ") || "none",
    button("Change", () => open(u)),
  ]);
  const open = (u) => {
    editing = u;
    editForm.reset();
    document.getElementById("edit-title").textContent = u.name;
    const p = u.policy;
    for (const [name, value] of [["admin", u.isAdmin], ["disabled", p.isDisabled], ["hidden", p.isHidden],
      ["sessionOnlyLogin", p.sessionOnlyLogin], ["allLibraries", p.allLibraries]]) editForm.elements[name].checked = !!value;
    for (const box of editForm.querySelectorAll("input[name=library]")) box.checked = (p.accessibleLibraries || []).includes(box.value);
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
    const done = await admin("/members/" + encodeURIComponent(editing.name), { method: "PATCH", json: body }).catch(() => null);
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
