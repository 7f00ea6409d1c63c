// The web console's few scripts: fill the server's page shells from the player API (with the
// sign-in cookie), play in a <video> element and report progress. No framework, no other host.
"use strict";
const API = "/api/v1";
const VIDEO_TYPES = new Set(["Movie", "Episode", "Video", "MusicVideo"]);

// The player API with the cookie (static/fetch.js): errors are shown as the error body's sentence.
function api(path, options = {}) { return requestJson(API + path, options); }

function card(item) {
  const link = document.createElement("a");
  link.className = "card";
  link.href = "/web/item/" + encodeURIComponent(item.id);
  const img = document.createElement("img");
  img.loading = "lazy";  // the renditions are fetched only as cards scroll into view
  img.alt = "";
  img.width = 160; img.height = 240;
  img.src = API + "/images/items/" + encodeURIComponent(item.id) + "?fillWidth=240&fillHeight=360";
  img.onerror = () => { img.replaceWith(Object.assign(document.createElement("div"), { className: "noposter" })); };
  const name = document.createElement("span");
  name.textContent = item.type === "Episode" && item.seriesName ? item.seriesName + " · " + item.name : item.name;
  if (item.type === "Episode" && !item.seriesName && item.seriesId) name.dataset.seriesId = item.seriesId;
  link.append(img, name);
  const position = item.userData && item.userData.positionSec;
  const runtime = item.runTimeSec || (item.runtimeTicks ? item.runtimeTicks / 1e7 : 0);  // summaries say ticks
  if (position && runtime) {
    const bar = document.createElement("progress");
    bar.max = runtime; bar.value = position;
    link.append(bar);
  }
  return link;
}

function fill(container, items) {
  for (const item of items) container.append(card(item));
  if (!container.children.length && container.dataset.empty) {
    container.append(Object.assign(document.createElement("p"), { className: "empty", textContent: container.dataset.empty }));
  }
  nameSeries(container);
}

// An episode's card says its series: a summary carries the series' id only, so the names of a
// list's series come in one request (GET /items?ids=...).
function nameSeries(container) {
  const labels = [...container.querySelectorAll("span[data-series-id]")];
  const ids = [...new Set(labels.map((label) => label.dataset.seriesId))].slice(0, 200);
  if (!ids.length) return;
  api("/items?limit=200&ids=" + encodeURIComponent(ids.join(","))).then((page) => {
    const names = new Map(page.items.map((series) => [series.id, series.name]));
    for (const label of labels) {
      const series = names.get(label.dataset.seriesId);
      if (series) label.textContent = series + " · " + label.textContent;
      delete label.dataset.seriesId;
    }
  }).catch(() => null);
}

async function home() {
  api("/me/resume?limit=12").then((page) => fill(document.getElementById("resume"), page.items));
  api("/me/next-up?limit=12").then((page) => fill(document.getElementById("next-up"), page.items));
  for (const row of document.querySelectorAll(".latest")) {
    const query = "?libraryId=" + encodeURIComponent(row.dataset.library) + "&recursive=true&sort=dateAdded&order=desc&limit=12";
    api("/items" + query).then((page) => fill(row, page.items.filter((i) => i.type !== "Season" && i.type !== "Episode")));
  }
}

// The grid: sorted and filtered as GET /items allows (the form's choices stay in the address, so
// going back finds them), 60 at a time; a newer choice aborts the page still on its way.
const SHOW = { unplayed: ["isPlayed", "false"], played: ["isPlayed", "true"], favorite: ["isFavorite", "true"] };

async function library() {
  const grid = document.getElementById("grid");
  const more = document.getElementById("more");
  const form = document.getElementById("filters");
  const count = document.getElementById("count");
  const chosen = new URLSearchParams(location.search);
  for (const field of form.elements) if (field.name && chosen.has(field.name)) field.value = chosen.get(field.name);
  let cursor = null;
  let pending = null;
  const query = () => {
    const params = new URLSearchParams({ libraryId: grid.dataset.library, limit: "60" });
    for (const [name, value] of new FormData(form).entries()) {
      if (!value) continue;
      if (name === "show") params.set(...SHOW[value]);
      else params.set(name, value);
    }
    return params;
  };
  async function next(fresh) {
    if (pending) pending.abort();
    pending = new AbortController();
    const params = query();
    if (!fresh && cursor) params.set("cursor", cursor);
    if (fresh) {  // the count on its own request: counting a large library must not hold the grid back
      const counting = query();
      counting.set("limit", "1"); counting.set("includeTotal", "true");
      count.textContent = "";
      api("/items?" + counting, { signal: pending.signal }).then((first) => {
        count.textContent = first.totalCount + (first.totalCount === 1 ? " item" : " items");
      }).catch(() => null);
    }
    const page = await api("/items?" + params, { signal: pending.signal });
    if (fresh) grid.replaceChildren();
    fill(grid, page.items);
    cursor = page.nextCursor || null;
    more.hidden = !cursor;
  }
  const refilter = () => {
    const kept = new URLSearchParams([...new FormData(form).entries()].filter(([, v]) => v));
    history.replaceState(null, "", location.pathname + (kept.size ? "?" + kept : ""));
    next(true).catch(() => null);
  };
  let typing = null;
  form.addEventListener("change", refilter);
  form.addEventListener("input", (event) => {
    if (event.target.type === "search" || event.target.type === "number") { clearTimeout(typing); typing = setTimeout(refilter, 300); }
  });
  form.addEventListener("submit", (event) => { event.preventDefault(); refilter(); });
  more.addEventListener("click", () => next(false).catch(() => null));
  await next(true);
}

async function itemPage() {
  const article = document.getElementById("item");
  const id = article.dataset.item;
  const item = await api("/items/" + encodeURIComponent(id));
  document.title = item.name + " · Reelhouse";
  document.getElementById("title").textContent = item.name;
  const meta = [item.type, item.productionYear, item.officialRating].filter(Boolean);
  document.getElementById("meta").textContent = meta.join(" · ");
  document.getElementById("overview").textContent = item.overview || "";
  const genres = (item.genres || []).map((g) => (typeof g === "string" ? g : g.name));
  document.getElementById("genres").textContent = genres.length ? "Genres: " + genres.join(", ") : "";
  showCast(item.people || []);
  const source = chooseVersion(item);
  fill(document.getElementById("extras"), item.extras || []);
  document.getElementById("extras").closest("section").hidden = !(item.extras || []).length;
  const state = JSON.parse(article.dataset.userData || "{}");  // the member's own state, rendered by the server
  const player = VIDEO_TYPES.has(item.type) ? setupPlayer(id, state.positionSec || 0, source) : null;
  setupMarks(id, state, player);
  if (!player) api("/items?parentId=" + encodeURIComponent(id) + "&sort=index&limit=200").then((page) => fill(document.getElementById("children"), page.items));
}

function showCast(people) {
  const list = document.getElementById("cast");
  for (const person of people.slice(0, 30)) {
    const role = person.role ? " as " + person.role : person.kind && person.kind !== "Actor" ? " (" + person.kind + ")" : "";
    list.append(Object.assign(document.createElement("li"), { textContent: person.name + role }));
  }
  document.getElementById("cast-box").hidden = !list.children.length;
}

// Versions: one per media source; the choice says which file the player streams (its own item id).
function chooseVersion(item) {
  const sources = (item.mediaSources || []).filter((s) => !s.missing);
  const choice = { itemId: item.id };
  if (sources.length < 2) return choice;
  const select = document.getElementById("version");
  for (const source of sources) select.append(new Option(source.name + " · " + source.container, source.itemId));
  select.value = sources.some((s) => s.itemId === item.id) ? item.id : sources[0].itemId;
  choice.itemId = select.value;
  select.addEventListener("change", () => { choice.itemId = select.value; });
  document.getElementById("version-box").hidden = false;
  return choice;
}

function setupMarks(id, state, player) {
  const played = document.getElementById("played");
  const favorite = document.getElementById("favorite");
  const show = (s) => {
    played.setAttribute("aria-pressed", String(!!s.played));
    played.textContent = s.played ? "Played ✓" : "Mark played";
    favorite.setAttribute("aria-pressed", String(!!s.favorite));
    favorite.textContent = s.favorite ? "Favourite ★" : "Favourite";
  };
  show(state);
  played.addEventListener("click", async () => {
    const on = played.getAttribute("aria-pressed") !== "true";
    // Watched: the playback ends first, so its stopped report cannot leave a resume point behind the mark.
    if (on && player) await player.end();
    const now = await api("/me/played/" + encodeURIComponent(id), { method: on ? "POST" : "DELETE" });
    show({ ...now });
  });
  favorite.addEventListener("click", async () => {
    const on = favorite.getAttribute("aria-pressed") !== "true";
    const now = await api("/me/favorites/" + encodeURIComponent(id), { method: on ? "POST" : "DELETE" });
    show({ ...now });
  });
}

function setupPlayer(id, resumeAt, source = { itemId: id }) {
  const box = document.getElementById("player-box");
  const video = document.getElementById("video");
  const play = document.getElementById("play");
  play.hidden = false;
  play.textContent = resumeAt > 0 ? "Resume" : "Play";
  let session = null;
  let timer = null;
  let control = null;
  // Every report goes through this one chain, in order: a stop is sent only after the start was
  // answered and every earlier progress report landed, so none of them arrives after it.
  let reports = Promise.resolve();
  const send = (path, body, taken = (answer) => answer) => {
    const next = reports.then(() => api("/sessions/playing" + path, { json: body })).then(taken);
    reports = next.catch(() => null);
    return next;
  };
  const report = () => {
    if (session) send("/progress", { sessionId: session, positionSec: video.currentTime, paused: video.paused }).catch(() => null);
  };
  play.addEventListener("click", async () => {
    box.hidden = false;
    play.hidden = true;
    const from = video.src ? video.currentTime : resumeAt;  // again after a stop: where it stands
    if (!video.src) {
      video.src = API + "/videos/" + encodeURIComponent(source.itemId) + "/stream";
      video.addEventListener("loadedmetadata", () => { if (resumeAt > 0) video.currentTime = resumeAt; }, { once: true });
      video.addEventListener("error", () => { document.getElementById("cannot-play").hidden = false; });
    }
    video.play().catch(() => { /* autoplay refused or unplayable: the controls remain */ });
    control = control || remoteControl();
    send("", { itemId: id, positionSec: from, paused: false }, (answer) => {
      session = answer.sessionId;  // in the chain: a stop waiting on it finds the session
      timer = setInterval(report, 5000);
    }).catch(() => null);  // shown by api()
  });
  // The remote-control socket (the cookie signs it in): an administrator's Stop ends the playback here.
  const remoteControl = () => {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + API + "/sessions/socket");
    socket.addEventListener("message", (event) => {
      let message = {};
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (message.type === "ping") socket.send(JSON.stringify({ type: "pong" }));
      if (message.type === "stop" && message.sessionId === session) {
        end().then(() => {
          document.getElementById("stopped-note").hidden = false;
          play.textContent = "Resume";
          play.hidden = false;  // the member may go on: a new playback from where it stopped
        }).catch(() => null);
      }
    });
    socket.addEventListener("close", () => { control = null; });
    return socket;
  };
  video.addEventListener("pause", report);
  // Ending: the playback stops where it stands (the member resumes there next time), after every
  // report already on its way; nothing is reported for this session afterwards.
  const end = async () => {
    await reports;  // the start, if it is on its way, is answered first
    if (!session) return;
    const ending = session;
    session = null;  // first: the pause below reports nothing more for this session
    clearInterval(timer);
    video.pause();
    await send("/stopped", { sessionId: ending, positionSec: video.currentTime, paused: true });
  };
  window.addEventListener("pagehide", () => {
    if (control) control.close();
    if (!session) return;
    clearInterval(timer);
    const body = JSON.stringify({ sessionId: session, positionSec: video.currentTime, paused: true });
    session = null;
    fetch(API + "/sessions/playing/stopped", { method: "POST", keepalive: true, credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body });
  });
  return { end };
}

// Search as you type: results under the bar on every page, the newest query's only.
function searchAsYouType() {
  const input = document.getElementById("search");
  const panel = document.getElementById("search-results");
  if (!input || !panel) return;
  let pending = null;
  let timer = null;
  const run = async () => {
    const q = input.value.trim();
    if (pending) pending.abort();
    if (!q) { panel.hidden = true; panel.replaceChildren(); return; }
    pending = new AbortController();
    let found;
    try { found = await api("/search?limit=12&q=" + encodeURIComponent(q), { signal: pending.signal }); } catch (e) { return; }
    panel.replaceChildren();
    fill(panel, found.items);
    if (!found.items.length) panel.append(Object.assign(document.createElement("p"), { className: "empty", textContent: "Nothing matches “" + q + "”." }));
    panel.hidden = false;
  };
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 150); });
  input.addEventListener("keydown", (event) => { if (event.key === "Escape") { input.value = ""; run(); } });
  if (input.value) run();
}

const PAGES = { home, library, item: itemPage };
document.addEventListener("DOMContentLoaded", () => {
  searchAsYouType();
  const run = PAGES[document.body.dataset.page];
  if (run) run().catch(() => { /* shown by api() */ });
});
