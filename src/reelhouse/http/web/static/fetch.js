// The one way the console's scripts call the server (console.js for members, admin*.js for
// administrators): JSON in and out with the sign-in cookie, a 401 back to the sign-in page, and
// any other failure shown as the error body's sentence (its "message") in the page's #error box.
"use strict";

async function requestJson(url, options = {}) {
  const { json, ...rest } = options;
  const init = { credentials: "same-origin", ...rest, headers: { Accept: "application/json", ...(rest.headers || {}) } };
  if (json !== undefined) {
    init.method = init.method || "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  }
  const response = await fetch(url, init);
  if (response.status === 401) { location.href = "/web/login"; throw new Error("signed out"); }
  if (!response.ok) {
    let message = "The server answered " + response.status + ".";
    try { message = (await response.json()).message || message; } catch (e) { /* not JSON */ }
    showError(message);
    throw new Error(message);
  }
  return response.status === 204 ? null : response.json();
}

function showError(message) {
  const box = document.getElementById("error");
  if (box) { box.textContent = message; box.hidden = false; }
}

function hideError() {
  const box = document.getElementById("error");
  if (box) box.hidden = true;
}
