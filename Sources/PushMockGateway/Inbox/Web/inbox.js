// PushMock inbox: hand-written, no framework, no network beyond this gateway's control API
// (docs/control-api.md, docs/inbox.md). Untrusted text (payloads) only ever goes through
// textContent, never innerHTML.
"use strict";

const API = "/_pushmock";
// Every filter, the search box's `text` included, is evaluated by the gateway over the whole
// store (docs/queries.md): the page never filters what it loaded.
const QUERY_NAMES = ["platform", "status", "token", "topic", "project", "namespace", "where", "text"];
const PAGE_SIZE = 50;

const state = {
  records: new Map(), // seq -> record
  newest: 0,
  next: null, // cursor for older pages
  paused: false,
  held: [], // records that arrived while paused
  selected: null,
  source: null,
  categories: [],
  detailPoll: null, // timer refreshing the open detail's device and engagement
  detailRecord: null, // the record the detail shows (it may not be in the loaded list)
  detailDevice: null, // control API path of the detail's device, once found
  detailSeq: null, // the record whose message `detailMessage` picks
  detailMessage: 0, // an Expo request of several messages: which one the detail shows
};

// ---------- small helpers ----------

function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") element.className = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

const $ = (selector) => document.querySelector(selector);

async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {} };
  if (options.body !== undefined) {
    init.body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    init.headers["content-type"] = "application/json";
  }
  const response = await fetch(API + path, init);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
  if (!response.ok) {
    throw new Error((json && json.error) || `${init.method} ${path}: ${response.status}`);
  }
  return json;
}

function toast(message) {
  const element = $("#toast");
  element.textContent = message;
  element.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { element.hidden = true; }, 5000);
}

function attempt(action) {
  return async (event) => {
    if (event && event.preventDefault) event.preventDefault();
    try { await action(event); } catch (error) { toast(error.message); }
  };
}

function shortToken(token) {
  if (!token) return "";
  // Expo tokens all start with the same 18 characters; what tells them apart is in the brackets.
  const expo = /^(?:Exponent|Expo)PushToken\[(.*)\]$/.exec(token);
  if (expo) return `Expo[${expo[1].length > 10 ? `${expo[1].slice(0, 4)}…${expo[1].slice(-4)}` : expo[1]}]`;
  return token.length > 12 ? `${token.slice(0, 5)}…${token.slice(-4)}` : token;
}

function clockTime(record) {
  const text = record.time || "";
  const match = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(text);
  return match ? match[1] : text;
}

function header(headers, name) {
  for (const pair of headers || []) if (pair[0].toLowerCase() === name) return pair[1];
  return undefined;
}

// ---------- what a record says ----------

// The messages of an Expo request (one object or an array), the one for this token first;
// `index` picks one of a request of several.
function expoMessage(record, index) {
  const body = record.request.body;
  const messages = Array.isArray(body) ? body : body && Array.isArray(body.messages) ? body.messages : body ? [body] : [];
  if (index !== undefined && messages[index]) return messages[index];
  const token = record.notification && record.notification.token;
  return messages.find((m) => m && (m.to === token || (Array.isArray(m.to) && m.to.includes(token)))) || messages[0] || {};
}

// The messages of an Expo send, each with its recipients and what their tickets said. The
// tickets come in request order: message by message, each `to` (a token or a list) in order.
function expoMessages(record) {
  if (record.platform !== "expo") return [];
  const body = record.request.body;
  const list = Array.isArray(body) ? body : body && typeof body === "object" && body.to !== undefined ? [body] : [];
  const answer = record.response && record.response.body;
  const data = answer && answer.data;
  const tickets = Array.isArray(data) ? data : data ? [data] : [];
  let position = 0;
  return list.map((message, index) => {
    const to = message && Array.isArray(message.to) ? message.to : [message && message.to];
    const recipients = to.filter((token) => typeof token === "string").map((token) => {
      const ticket = tickets[position++];
      const outcome = !ticket ? "" : ticket.status === "ok" ? "ok" : (ticket.details && ticket.details.error) || "error";
      return { token, outcome };
    });
    return { index, message: message || {}, recipients };
  });
}

// "ok 2 · DeviceNotRegistered 1": what the tickets of a request of several recipients said.
function ticketSummary(messages) {
  const counts = new Map();
  for (const m of messages) for (const r of m.recipients) if (r.outcome) counts.set(r.outcome, (counts.get(r.outcome) || 0) + 1);
  return [...counts].map(([outcome, count]) => `${outcome} ${count}`).join(" · ");
}

function alertOf(aps) {
  const alert = aps && aps.alert;
  if (typeof alert === "string") return { body: alert };
  if (!alert) return {};
  return {
    title: alert.title || alert["title-loc-key"],
    subtitle: alert.subtitle || alert["subtitle-loc-key"],
    body: alert.body || alert["loc-key"],
  };
}

// One model both previews draw from; `messageIndex` picks a message of an Expo request of
// several.
function notificationModel(record, messageIndex) {
  const n = record.notification || {};
  const model = { app: n.topic || n.project || "", token: n.token, deepLinks: [], notes: [] };
  const body = record.request.body;
  if (record.platform === "apns" && body && typeof body === "object") {
    const aps = body.aps || {};
    Object.assign(model, alertOf(aps));
    model.badge = aps.badge;
    model.sound = typeof aps.sound === "object" && aps.sound ? aps.sound.name : aps.sound;
    model.criticalSound = typeof aps.sound === "object" && aps.sound && aps.sound.critical === 1;
    model.category = aps.category;
    model.mutable = aps["mutable-content"] === 1;
    model.silent = aps["content-available"] === 1 && !aps.alert;
    model.interruption = aps["interruption-level"];
    model.image = imageURL(body.image || body["image-url"] || body.imageUrl || (body.fcm_options && body.fcm_options.image) || (body.data && body.data.image));
    model.threadId = aps["thread-id"];
    model.pushType = n.pushType || header(record.request.headers, "apns-push-type");
    model.priority = n.priority;
  } else if (record.platform === "fcm" && body && body.message) {
    const message = body.message;
    const common = message.notification || {};
    const android = message.android || {};
    const androidNotification = android.notification || {};
    const aps = (message.apns && message.apns.payload && message.apns.payload.aps) || {};
    const apsAlert = alertOf(aps);
    model.title = androidNotification.title || common.title || apsAlert.title || (message.data && message.data.title);
    model.body = androidNotification.body || common.body || apsAlert.body || (message.data && message.data.body);
    model.subtitle = apsAlert.subtitle;
    model.image = imageURL(androidNotification.image || common.image || (message.apns && message.apns.fcm_options && message.apns.fcm_options.image));
    model.channel = androidNotification.channel_id;
    model.category = androidNotification.click_action || aps.category || (message.data && message.data.category);
    model.badge = androidNotification.notification_count !== undefined ? androidNotification.notification_count : aps.badge;
    model.sound = androidNotification.sound || aps.sound;
    model.mutable = aps["mutable-content"] === 1 || Boolean(androidNotification.image || common.image);
    model.silent = !message.notification && !message.android?.notification && !aps.alert;
    model.interruption = aps["interruption-level"];
    model.androidPriority = android.priority || androidNotification.notification_priority;
    model.priority = n.priority;
    if (message.webpush && message.webpush.fcm_options && message.webpush.fcm_options.link) model.deepLinks.push(message.webpush.fcm_options.link);
  } else if (record.platform === "expo") {
    const message = expoMessage(record, messageIndex);
    if (messageIndex !== undefined && Array.isArray(message.to) === false && typeof message.to === "string") model.token = message.to;
    model.title = message.title;
    model.subtitle = message.subtitle;
    model.body = message.body;
    model.badge = message.badge;
    model.sound = typeof message.sound === "object" && message.sound ? message.sound.name : message.sound;
    model.criticalSound = typeof message.sound === "object" && message.sound && message.sound.critical;
    model.channel = message.channelId;
    model.category = message.categoryId;
    model.mutable = Boolean(message.mutableContent);
    model.image = imageURL(message.richContent && message.richContent.image);
    model.interruption = message.interruptionLevel;
    model.androidPriority = message.priority;
    // Expo's own word (default, normal, high): it maps to a different APNs and FCM priority each.
    model.priority = message.priority || "default";
    model.silent = !message.title && !message.body && Boolean(message._contentAvailable);
  }
  // An Expo message's links are its own, not its batch's.
  collectLinks(record.platform === "expo" && messageIndex !== undefined ? expoMessage(record, messageIndex) : body, model.deepLinks, 0);
  model.deepLinks = [...new Set(model.deepLinks)];
  return model;
}

// An image the previews may load: an absolute http(s) or data: URL. Anything else (an object,
// a number, a relative path) would make the browser ask the gateway itself, and the gateway
// records what it is asked (such a request was listed as a push).
function imageURL(value) {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return ["https:", "http:", "data:"].includes(url.protocol) ? url.href : null;
  } catch (_) {
    return null;
  }
}

// Deep links a payload carries: URL-like strings and values of link-like keys.
function collectLinks(value, out, depth) {
  if (!value || depth > 8) return;
  if (Array.isArray(value)) { value.forEach((v) => collectLinks(v, out, depth + 1)); return; }
  if (typeof value !== "object") return;
  for (const [key, child] of Object.entries(value)) {
    if (typeof child === "string") {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(child) && !/^https?:\/\/.*\.(png|jpe?g|gif|webp)(\?|$)/i.test(child) && !child.startsWith("data:")) out.push(child);
      else if (/(^|_)(deep_?link|link|url|deepLinkPath|route)$/i.test(key) && child.startsWith("/")) out.push(child);
    } else {
      collectLinks(child, out, depth + 1);
    }
  }
}

function statusClass(status) {
  if (status >= 200 && status < 300) return "ok";
  if (status === 0 || status >= 500) return "bad";
  return "warn";
}

function reasonOf(record) {
  const response = record.response || {};
  if (response.reason) return response.reason;
  const body = response.body;
  if (body && body.error && body.error.status) return body.error.status;
  if (body && Array.isArray(body.data)) {
    const failed = body.data.find((ticket) => ticket.status === "error");
    if (failed) return (failed.details && failed.details.error) || failed.message;
  }
  return "";
}

function findingsOf(record) { return (record.notification && record.notification.lint) || []; }

// Contracts checked at intake record their violations among the findings, with codes
// `contract.<name>.<keyword>` (docs/payload-contracts.md); the rest is the linter's.
function isContractFinding(finding) { return typeof finding.code === "string" && finding.code.startsWith("contract."); }

function lintOf(record) { return findingsOf(record).filter((f) => !isContractFinding(f)); }

function contractOf(record) { return findingsOf(record).filter(isContractFinding); }

// ---------- list ----------

function queryFromURL() {
  const params = new URLSearchParams(location.search);
  // Links made before the search went to the gateway said `q`.
  if (!params.has("text") && params.get("q")) params.set("text", params.get("q"));
  const form = $("#filters");
  for (const name of QUERY_NAMES) {
    const field = form.elements[name];
    if (field) field.value = params.get(name) || "";
  }
  return params;
}

function apiQuery() {
  const params = new URLSearchParams(location.search);
  if (!params.has("text") && params.get("q")) params.set("text", params.get("q"));
  const out = new URLSearchParams();
  for (const name of QUERY_NAMES) for (const value of params.getAll(name)) if (value) out.append(name, value);
  return out;
}

function row(record, fresh) {
  const model = notificationModel(record);
  const status = record.response.status;
  const lint = lintOf(record);
  const contract = contractOf(record);
  const checks = [];
  if (lint.length) {
    const worst = lint.some((l) => l.severity === "error") ? "bad" : "warn";
    checks.push(h("span", { class: `badge ${worst}`, title: lint.map((l) => l.code).join(", ") }, `lint ${lint.length}`));
  }
  if (contract.length) {
    checks.push(h("span", { class: "badge bad contract", title: contract.map((c) => `${c.code}${c.field ? ` ${c.field}` : ""}: ${c.message}`).join("; ") },
      contract.length === 1 ? "contract" : `contract ${contract.length}`));
  }
  if (record.annotations && record.annotations.fault) checks.push(h("span", { class: "badge warn", title: record.annotations.fault }, "fault"));
  const title = model.title || model.body || (model.silent ? "(background)" : record.request.path);
  // An Expo request of several recipients: how many, and what their tickets said.
  const messages = expoMessages(record);
  const expoRecipients = messages.flatMap((m) => m.recipients);
  const many = expoRecipients.length > 1;
  const tokenText = many ? `${expoRecipients.length} recipients` : shortToken(model.token);
  const tokenTitle = many ? expoRecipients.map((r) => r.token).join("\n") : model.token || "";
  const reason = many && status === 200 ? ticketSummary(messages) : reasonOf(record);
  const tr = h("tr", {
    tabindex: "0",
    "data-seq": record.seq,
    "aria-selected": String(state.selected === record.seq),
    class: fresh ? "fresh" : null,
    onclick: () => select(record.seq),
    onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(record.seq); } },
  },
    h("td", {}, h("time", { datetime: record.time, title: record.time }, clockTime(record))),
    h("td", {}, record.platform),
    h("td", { class: "app", title: model.app }, model.app),
    h("td", { class: "token", title: tokenTitle }, tokenText),
    h("td", { class: "title", title }, title),
    h("td", { class: "status", title: `${status} ${reason}`.trim() }, h("span", { class: `badge ${statusClass(status)}` }, String(status)), " ", reason),
    h("td", {}, model.priority !== undefined ? String(model.priority) : ""),
    h("td", {}, checks),
  );
  return tr;
}

function renderList() {
  const rows = $("#rows");
  const records = [...state.records.values()].sort((a, b) => b.seq - a.seq);
  rows.replaceChildren(...records.map((r) => row(r, false)));
  $("#empty").hidden = records.length > 0;
  $("#older").hidden = state.next === null;
}

function addLive(record) {
  if (state.records.has(record.seq)) return;
  state.records.set(record.seq, record);
  state.newest = Math.max(state.newest, record.seq);
  const rows = $("#rows");
  rows.prepend(row(record, true));
  $("#empty").hidden = true;
}

async function loadFirstPage() {
  const query = apiQuery();
  query.set("limit", String(PAGE_SIZE));
  const page = await api(`/recordings?${query}`);
  state.records.clear();
  for (const record of page.records) state.records.set(record.seq, record);
  state.newest = page.records.length ? page.records[0].seq : state.newest;
  state.next = page.next === undefined ? null : page.next;
  renderList();
}

async function loadOlder() {
  if (state.next === null) return;
  const query = apiQuery();
  query.set("limit", String(PAGE_SIZE));
  query.set("after", String(state.next));
  const page = await api(`/recordings?${query}`);
  for (const record of page.records) state.records.set(record.seq, record);
  state.next = page.next === undefined ? null : page.next;
  renderList();
}

function setLive(text) { $("#live-state").textContent = text; }

function connect() {
  if (state.source) state.source.close();
  const query = apiQuery();
  query.set("after", String(state.newest));
  const source = new EventSource(`${API}/recordings/stream?${query}`);
  state.source = source;
  source.addEventListener("open", () => setLive(state.paused ? `Paused (${state.held.length} waiting)` : "Live"));
  source.addEventListener("error", () => {
    // The gateway went away (restarted, perhaps with a new store): start over once it is back,
    // from a fresh first page, rather than resume after a sequence number that may be gone.
    setLive("Reconnecting…");
    source.close();
    if (state.source !== source) return;
    state.source = null;
    setTimeout(async () => {
      try { await loadFirstPage(); connect(); } catch (_) { connect(); }
    }, 1000);
  });
  source.addEventListener("record", (event) => {
    let record;
    try { record = JSON.parse(event.data); } catch (_) { return; }
    if (state.paused) {
      state.held.push(record);
      setLive(`Paused (${state.held.length} waiting)`);
      return;
    }
    addLive(record);
  });
  // Someone cleared the recordings (another tab, `pushmock recordings clear`, a test's reset):
  // what this page shows is gone from the store, so it starts over from the first page.
  source.addEventListener("cleared", async () => {
    state.held = [];
    state.selected = null;
    stopDetailPoll();
    try { await loadFirstPage(); } catch (_) { /* the stream's error handler reconnects */ }
  });
}

function togglePause() {
  state.paused = !state.paused;
  const button = $("#pause");
  button.setAttribute("aria-pressed", String(state.paused));
  button.textContent = state.paused ? "Resume" : "Pause";
  if (!state.paused) {
    const held = state.held.splice(0);
    held.forEach(addLive);
    setLive("Live");
  } else {
    setLive("Paused (0 waiting)");
  }
}

async function applyFilters(event) {
  if (event) event.preventDefault();
  const form = $("#filters");
  const params = new URLSearchParams();
  for (const name of QUERY_NAMES) {
    const value = form.elements[name].value.trim();
    if (value) params.set(name, value);
  }
  const search = params.toString();
  history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
  await loadFirstPage();
  connect();
}

// ---------- detail ----------

function select(seq) {
  location.hash = `#/r/${seq}`;
}

function markSelected() {
  for (const tr of document.querySelectorAll("#rows tr")) {
    tr.setAttribute("aria-selected", String(Number(tr.dataset.seq) === state.selected));
  }
}

function actionsFor(model, record) {
  if (!model.category) return [];
  const app = model.app;
  const found = state.categories.find((c) => c.id === model.category && c.app === app)
    || state.categories.find((c) => c.id === model.category && !c.app);
  return found ? found.actions : [];
}

function marks(model) {
  const list = [];
  if (model.badge !== undefined && model.badge !== null) list.push(h("span", { class: "badge", title: "Badge count" }, `badge ${model.badge}`));
  if (model.sound) list.push(h("span", { class: "badge", title: "Sound" }, `♪ ${model.sound}`));
  if (model.criticalSound || model.interruption === "critical") list.push(h("span", { class: "badge bad" }, "critical"));
  if (model.interruption === "time-sensitive") list.push(h("span", { class: "badge warn" }, "time-sensitive"));
  if (model.interruption === "passive") list.push(h("span", { class: "badge" }, "passive"));
  if (model.channel) list.push(h("span", { class: "badge", title: "Android notification channel" }, `channel ${model.channel}`));
  if (model.androidPriority) list.push(h("span", { class: "badge" }, `priority ${model.androidPriority}`));
  if (model.category) list.push(h("span", { class: "badge", title: "Category" }, `category ${model.category}`));
  if (model.silent) list.push(h("span", { class: "badge" }, "background (not shown)"));
  return list;
}

function hiddenNotes(model) {
  const notes = [];
  notes.push("Notifications turned off for the app (iOS settings, Android 13+ POST_NOTIFICATIONS denied): nothing of this is shown, no sound, no badge"
    + (model.silent ? "; the background update still reaches the app." : "; data and background updates still reach the app."));
  if (model.interruption === "critical" || model.criticalSound) {
    notes.push("Quiet hours / Focus / Do Not Disturb: a critical alert still shows and plays its sound (needs Apple's critical-alerts entitlement).");
  } else if (model.interruption === "time-sensitive") {
    notes.push("Quiet hours / Focus: time-sensitive breaks through if the user allows it for the app; otherwise delivered quietly to Notification Center.");
  } else {
    notes.push("Quiet hours / Focus / Do Not Disturb: delivered silently to Notification Center (iOS) or the shade without heads-up or sound (Android, unless the channel bypasses DND).");
  }
  if (model.image && !model.mutable) notes.push("The image needs mutable-content (a notification service extension downloads it); without it iOS shows no image.");
  return notes;
}

function iosPreview(model, actions, record) {
  const image = model.image && model.mutable ? h("img", { class: "preview-image", src: model.image, alt: "Notification image" }) : null;
  return h("figure", { class: "phone ios", "aria-label": "iOS lock screen preview" },
    h("div", { class: "caption" }, "iOS lock screen"),
    h("div", { class: "clock", "aria-hidden": "true" }, clockTime(record).slice(0, 5)),
    h("div", { class: "card" },
      h("div", { class: "head" }, h("span", { class: "icon", "aria-hidden": "true" }), h("span", {}, model.app || "App"), h("span", { class: "when" }, "now")),
      model.title ? h("div", { class: "preview-title" }, model.title) : null,
      model.subtitle ? h("div", { class: "preview-subtitle" }, model.subtitle) : null,
      model.body ? h("div", { class: "preview-body" }, model.body) : null,
      !model.title && !model.body ? h("div", { class: "preview-body hint" }, model.silent ? "(background update: nothing shown)" : "(no alert text)") : null,
      image),
    actions.length ? h("div", { class: "actions", role: "group", "aria-label": "iOS actions" },
      actions.map((a) => h("button", { type: "button", class: a.destructive ? "destructive action" : "action", "data-action": a.id }, a.title))) : null,
    h("div", { class: "marks" }, marks(model)));
}

function androidPreview(model, actions) {
  const image = model.image ? h("img", { class: "preview-image", src: model.image, alt: "Notification image" }) : null;
  return h("figure", { class: "phone android", "aria-label": "Android notification shade preview" },
    h("div", { class: "caption" }, "Android notification shade"),
    h("div", { class: "card" },
      h("div", { class: "head" }, h("span", { class: "icon", "aria-hidden": "true" }), h("span", {}, model.app || "App"), h("span", {}, "· now")),
      model.title ? h("div", { class: "preview-title" }, model.title) : null,
      model.body ? h("div", { class: "preview-body" }, model.body) : null,
      !model.title && !model.body ? h("div", { class: "preview-body hint" }, model.silent ? "(data message: nothing shown)" : "(no text)") : null,
      image,
      actions.length ? h("div", { class: "actions", role: "group", "aria-label": "Android actions" },
        actions.slice(0, 3).map((a) => h("button", { type: "button", class: "action", "data-action": a.id }, a.title))) : null),
    h("div", { class: "marks" }, marks(model)));
}

function facts(pairs) {
  return h("dl", { class: "facts" }, pairs.filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== "").flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]));
}

function redactedHeaders(headers) {
  return (headers || []).map(([name, value]) => `${name}: ${name.toLowerCase() === "authorization" ? "<redacted>" : value}`).join("\n");
}

function pretty(value) {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

// The recipients a record reached: its token, or those a topic, condition or Expo batch
// resolved to.
function recipientsOf(record) {
  const n = record.notification || {};
  if (n.token) return [n.token];
  return Array.isArray(n.resolvedTokens) ? n.resolvedTokens : [];
}

// The devices the detail can show: the selected message's accepted recipients for an Expo
// request of several messages, else every recipient of the record.
function detailRecipients(record) {
  const messages = expoMessages(record);
  if (messages.length > 1) {
    const message = messages[state.detailMessage] || messages[0];
    return message.recipients.filter((r) => r.outcome === "ok").map((r) => r.token);
  }
  return recipientsOf(record);
}

async function deviceFor(record) {
  const token = detailRecipients(record)[0];
  const service = ["apns", "fcm", "expo"].includes(record.platform) ? record.platform : null;
  if (!token || !service) return null;
  // Look in the list first: asking for an unknown device would be a 404.
  const list = await api(`/devices?service=${service}`).catch(() => null);
  const known = list && list.devices.find((d) => d.token === token || d.token === token.toLowerCase());
  if (!known) return null;
  return api(`/devices/${service}/${encodeURIComponent(known.token)}`).catch(() => null);
}

const ENGAGEMENT_EVENTS = ["displayed", "opened", "dismissed", "action"];

// What the device did with this record: its notification there and the timeline lines about it.
function deviceView(record, device) {
  if (!device) return { device: null, delivery: null, timeline: [], engagement: [] };
  const delivery = (device.notifications || []).find((n) => n.sequence === record.seq) || null;
  const timeline = (device.timeline || []).filter((e) => e.sequence === record.seq || (delivery && e.id === delivery.id));
  return { device, delivery, timeline, engagement: timeline.filter((e) => ENGAGEMENT_EVENTS.includes(e.event)) };
}

function describeEvent(e) {
  const what = e.event === "action" ? `action ${e.action}` : e.event;
  return `${what} at ${e.at}${e.reason ? ` (${e.reason})` : ""}`;
}

// The simulated user's side: the device, its permission, what happened to this notification
// after delivery (docs/engagement.md), and buttons that do it through the control API.
function engagementSection(record, view, actions, canShow) {
  const { device, delivery, timeline, engagement } = view;
  const section = h("section", { id: "engagement", "aria-labelledby": "engagement-title" }, h("h3", { id: "engagement-title" }, "Device and engagement"));
  if (!device) {
    section.append(h("p", { class: "hint" }, "No simulated device received it (the service refused it, or it is not a push)."));
    return section;
  }
  const recipients = detailRecipients(record);
  if (recipients.length > 1) {
    const what = expoMessages(record).length > 1 ? "message" : "request";
    section.append(h("p", { class: "hint" }, `This ${what} reached ${recipients.length} devices; this is the first (${shortToken(device.token)}). The others are on the Devices page.`));
  }
  const path = `/devices/${device.service}/${encodeURIComponent(device.token)}`;
  const permission = device.permission || "granted";
  const permissionSelect = h("select", { id: "engagement-permission", "aria-label": "Notification permission on this device" },
    ["granted", "provisional", "denied"].map((p) => h("option", { value: p, selected: p === permission }, p)));
  permissionSelect.addEventListener("change", attempt(async () => {
    await api(path, { method: "PATCH", body: { permission: permissionSelect.value } });
    await refreshEngagement(record.seq);
  }));
  section.append(facts([
    ["Device", `${device.connectivity} (${device.service})`],
    ["On the device", delivery ? `${delivery.status}${delivery.reason ? ` (${delivery.reason})` : ""}${delivery.shown ? ", shown" : ""}` : "not on the device"],
    ["Notification id", delivery && delivery.id],
  ]), h("p", {}, h("label", {}, "Permission ", permissionSelect), " ",
    permission === "denied" ? h("span", { class: "badge bad" }, "nothing is displayed") : permission === "provisional" ? h("span", { class: "badge warn" }, "quietly, to Notification Center") : null));

  const engaged = delivery && delivery.engagement ? delivery.engagement : null;
  const summary = engaged
    ? h("p", { id: "engagement-state" }, h("span", { class: `badge ${engaged === "dismissed" ? "warn" : "ok"}` }, engaged === "action" ? `action ${delivery.action}` : engaged),
      ` at ${delivery.engagedAt}`, delivery.displayedAt ? ` · displayed by the app at ${delivery.displayedAt}` : "")
    : h("p", { id: "engagement-state", class: "hint" }, delivery && delivery.displayedAt ? `Displayed by the app at ${delivery.displayedAt}; not opened yet.` : "No engagement yet: nobody opened, dismissed or acted on it.");
  section.append(summary);
  if (delivery && delivery.planned) section.append(h("p", { class: "hint" }, `The behaviour model plans ${delivery.planned} at ${delivery.plannedAt}.`));
  section.append(h("ol", { class: "notes", id: "engagement-events", "aria-label": "Engagement events" },
    engagement.map((e) => h("li", { "data-event": e.event }, h("span", { class: "badge" }, e.event === "action" ? `action ${e.action}` : e.event), ` ${e.at}${e.reason ? ` — ${e.reason}` : ""}`))));

  // Engaging is possible while the notification is on screen and nothing final happened yet;
  // the gateway has the last word (409 with the reason otherwise, shown as a toast).
  const engageable = delivery && delivery.status === "delivered" && !delivery.engagement && permission !== "denied" && canShow;
  if (engageable) {
    const engage = (verb, body) => attempt(async () => {
      await api(`${path}/notifications/${encodeURIComponent(delivery.id)}/${verb}`, { method: "POST", body: body || {} });
      await refreshEngagement(record.seq);
    });
    section.append(h("div", { class: "toolbar", role: "group", "aria-label": "Act as the user" },
      h("button", { type: "button", "data-engage": "open", onclick: engage("open") }, "Open"),
      h("button", { type: "button", "data-engage": "dismiss", onclick: engage("dismiss") }, "Dismiss"),
      actions.map((a) => h("button", { type: "button", "data-engage": "action", "data-action": a.id, onclick: engage("action", { action: a.id }) }, `Action: ${a.title}`)),
      delivery.displayedAt ? null : h("button", { type: "button", "data-engage": "display", title: "The app displayed it itself (a local notification)", onclick: engage("display") }, "Displayed by app")));
  }

  if (timeline.length) {
    section.append(h("h4", {}, "Device timeline"),
      h("ol", { class: "notes", "aria-label": "Device timeline" }, timeline.map((e) => h("li", {}, `${e.at} ${e.event}${e.action ? ` ${e.action}` : ""}${e.reason ? ` (${e.reason})` : ""}${e.connectivity ? ` → ${e.connectivity}` : ""}`))));
  }
  return section;
}

function stopDetailPoll() {
  if (state.detailPoll) clearInterval(state.detailPoll);
  state.detailPoll = null;
}

// Re-reads the device and redraws the engagement section when something changed: engagement
// may come from anywhere (the buttons, `pushmock device open`, the behaviour model).
async function refreshEngagement(seq) {
  if (state.selected !== seq) return;
  const record = state.records.get(seq) || state.detailRecord;
  if (!record || record.seq !== seq) return;
  // The device is known once the detail found it: read it directly rather than list every
  // device each second; if it was forgotten meanwhile, look it up again.
  let device = null;
  if (state.detailDevice) device = await api(state.detailDevice).catch(() => null);
  if (!device) device = await deviceFor(record);
  if (state.selected !== seq) return;
  state.detailDevice = device ? `/devices/${device.service}/${encodeURIComponent(device.token)}` : null;
  const view = deviceView(record, device);
  const signature = JSON.stringify([device && device.permission, device && device.connectivity, view.delivery, view.timeline]);
  const current = $("#engagement");
  if (current && current.dataset.signature === signature) return;
  const model = notificationModel(record, detailMessageIndex(record));
  const section = engagementSection(record, view, actionsFor(model, record), Boolean(model.title || model.body || model.subtitle));
  section.dataset.signature = signature;
  if (current) current.replaceWith(section);
}

// The message of an Expo request of several the detail shows; `undefined` for other records.
function detailMessageIndex(record) {
  return expoMessages(record).length > 1 ? state.detailMessage : undefined;
}

// An Expo request of several messages: each message with its recipients and their tickets; a
// click shows that message in the previews and the sections below.
function messagesSection(record, messages) {
  const pick = (index) => { state.detailMessage = index; showDetail(record.seq); };
  return h("section", { "aria-labelledby": "messages-title" },
    h("h3", { id: "messages-title" }, `Messages (${messages.length}) · showing [${state.detailMessage}]`),
    h("table", { class: "messages", id: "expo-messages", "aria-label": "Messages of this request" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Title"), h("th", {}, "Recipients"))),
      h("tbody", {}, messages.map((m) => h("tr", {
        tabindex: "0",
        "data-message": String(m.index),
        "aria-selected": String(m.index === state.detailMessage),
        onclick: () => pick(m.index),
        onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pick(m.index); } },
      },
        h("td", {}, `[${m.index}]`),
        h("td", {}, m.message.title || m.message.body || "(no text)"),
        h("td", {}, m.recipients.map((r) => h("span", { class: "recipient", title: r.token },
          shortToken(r.token), " ", h("span", { class: `badge ${r.outcome === "ok" ? "ok" : "bad"}` }, r.outcome || "?")))))))));
}

async function showDetail(seq) {
  stopDetailPoll();
  state.detailDevice = null;
  if (state.detailSeq !== seq) {
    state.detailSeq = seq;
    state.detailMessage = 0;
  }
  state.selected = seq;
  markSelected();
  const detail = $("#detail");
  let record = state.records.get(seq);
  if (!record) {
    try { record = await api(`/recordings/${seq}`); } catch (error) { detail.replaceChildren(h("p", { class: "empty" }, error.message)); return; }
  }
  state.detailRecord = record;
  state.categories = (await api("/categories").catch(() => ({ categories: [] }))).categories || [];
  const messages = expoMessages(record);
  const model = notificationModel(record, detailMessageIndex(record));
  const actions = actionsFor(model, record);
  const lint = lintOf(record);
  const contract = contractOf(record);
  const device = await deviceFor(record);
  state.detailDevice = device ? `/devices/${device.service}/${encodeURIComponent(device.token)}` : null;
  const view = deviceView(record, device);

  const engagement = engagementSection(record, view, actions, Boolean(model.title || model.body || model.subtitle));
  engagement.dataset.signature = JSON.stringify([device && device.permission, device && device.connectivity, view.delivery, view.timeline]);
  const parts = [
    h("h3", { id: "detail-title" }, `#${record.seq} · ${record.platform} · ${record.request.method} ${record.request.path}`),
    messages.length > 1 ? messagesSection(record, messages) : null,
    h("div", { class: "previews" }, iosPreview(model, actions, record), androidPreview(model, actions)),
    h("h3", {}, "What would hide it"),
    h("ul", { class: "notes" }, hiddenNotes(model).map((n) => h("li", {}, n))),
    h("h3", {}, "Delivery"),
    facts([
      ["Time (gateway clock)", record.time],
      ["Status", `${record.response.status} ${messages.length > 1 && record.response.status === 200 ? ticketSummary(messages) : reasonOf(record)}`],
      ["App / topic", model.app],
      ["Token", model.token],
      ["Push type", model.pushType],
      ["Priority", model.priority],
      ["Environment", record.environment],
      ["Collapse id", record.notification && record.notification.collapseID],
      ["Latency", `${record.latencyMicroseconds} µs`],
    ]),
    engagement,
  ];
  parts.push(h("h3", {}, `Lint (${lint.length})`),
    lint.length ? h("ul", { class: "notes", "aria-label": "Lint findings" }, lint.map((l) => h("li", {},
      h("span", { class: `badge ${l.severity === "error" ? "bad" : "warn"}` }, l.severity), ` ${l.code}: ${l.message} `,
      l.field ? h("code", {}, l.field) : null, l.source ? h("span", { class: "hint" }, ` — source: ${l.source}`) : null))) : h("p", { class: "hint" }, "No findings."));
  parts.push(h("h3", {}, `Contract violations (${contract.length})`),
    contract.length ? h("ul", { class: "notes", id: "contract-violations", "aria-label": "Contract violations" }, contract.map((c) => h("li", {},
      h("span", { class: "badge bad" }, "contract"), ` ${c.code}: ${c.message} `,
      c.field ? h("code", {}, c.field) : null, c.source ? h("span", { class: "hint" }, ` — ${c.source}`) : null)))
      : h("p", { class: "hint" }, "None (contracts are checked at intake when installed: serve --contracts, PUT /_pushmock/contracts)."));
  parts.push(h("h3", {}, "Deep links"),
    model.deepLinks.length ? h("ul", { class: "notes", "aria-label": "Deep links" }, model.deepLinks.map((link) => {
      let resolved = link;
      try { const url = new URL(link, "app://local"); resolved = `${url.protocol}//${url.host} → path ${url.pathname}${url.search}`; } catch (_) { /* keep as is */ }
      return h("li", {}, h("code", {}, link), h("span", { class: "hint" }, ` (${resolved})`));
    })) : h("p", { class: "hint" }, "None in the payload."));
  if (record.annotations && Object.keys(record.annotations).length) {
    parts.push(h("h3", {}, "Annotations"), facts(Object.entries(record.annotations)));
  }
  parts.push(
    h("details", { open: true }, h("summary", {}, "Request"),
      h("pre", { "aria-label": "Request headers" }, `${record.request.method} ${record.request.path}\n${redactedHeaders(record.request.headers)}`),
      h("pre", { "aria-label": "Request body" }, record.request.body !== undefined ? pretty(record.request.body) : record.request.bodyText || record.request.bodyBase64 || "(empty)")),
    h("details", { open: true }, h("summary", {}, "Response"),
      h("pre", { "aria-label": "Response" }, `${record.response.status}\n${redactedHeaders(record.response.headers)}${record.response.body !== undefined ? `\n\n${pretty(record.response.body)}` : ""}`)),
  );
  if (record.auth) parts.push(h("details", {}, h("summary", {}, "Authentication"), h("pre", {}, pretty(record.auth))));
  if (state.selected !== seq) return;
  detail.replaceChildren(...parts.filter((part) => part));
  if (device) {
    state.detailPoll = setInterval(() => { refreshEngagement(seq).catch(() => { /* the next tick retries */ }); }, 1000);
  }
}

// ---------- devices and tokens ----------

async function renderDevices() {
  const { devices } = await api("/devices");
  const rows = devices.map((d) => {
    const select = h("select", { "aria-label": `Connectivity of ${d.service} device ${shortToken(d.token)}`, "data-token": d.token },
      ["online", "idle", "offline"].map((c) => h("option", { value: c, selected: c === d.connectivity }, c)));
    select.addEventListener("change", attempt(async () => {
      await api(`/devices/${d.service}/${encodeURIComponent(d.token)}`, { method: "PATCH", body: { connectivity: select.value } });
      await renderDevices();
    }));
    const permission = h("select", { "aria-label": `Notification permission of ${d.service} device ${shortToken(d.token)}`, "data-permission-token": d.token },
      ["granted", "provisional", "denied"].map((p) => h("option", { value: p, selected: p === (d.permission || "granted") }, p)));
    permission.addEventListener("change", attempt(async () => {
      await api(`/devices/${d.service}/${encodeURIComponent(d.token)}`, { method: "PATCH", body: { permission: permission.value } });
      await renderDevices();
    }));
    return h("tr", {},
      h("td", {}, d.service),
      h("td", { class: "token", title: d.token }, shortToken(d.token)),
      h("td", {}, select),
      h("td", {}, permission),
      h("td", {}, Object.entries(d.counts || {}).map(([k, v]) => `${k} ${v}`).join(", ")),
      h("td", {}, (d.showing || []).length),
      h("td", {}, h("button", { type: "button", "aria-label": `Forget device ${shortToken(d.token)}`,
        onclick: attempt(async () => { await api(`/devices/${d.service}/${encodeURIComponent(d.token)}`, { method: "DELETE" }); await renderDevices(); }) }, "Forget")));
  });
  $("#device-rows").replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", { colspan: "7", class: "empty" }, "No simulated device yet."))]));
  await renderTokens();
}

async function renderTokens() {
  const lists = await Promise.all([
    api("/apns/tokens").then((r) => ({ service: "apns", list: r.tokens || r })).catch(() => ({ service: "apns", list: [] })),
    api("/fcm/tokens").then((r) => ({ service: "fcm", list: r.tokens || r })).catch(() => ({ service: "fcm", list: [] })),
    api("/expo/tokens").then((r) => ({ service: "expo", list: r.tokens || r })).catch(() => ({ service: "expo", list: [] })),
  ]);
  const rows = [];
  for (const { service, list } of lists) {
    for (const t of Array.isArray(list) ? list : []) {
      const token = t.token;
      const path = `/${service}/tokens/${encodeURIComponent(token)}`;
      rows.push(h("tr", {},
        h("td", {}, service),
        h("td", { class: "token", title: token }, shortToken(token)),
        h("td", {}, t.bundleId || t.project || ""),
        h("td", {}, t.state || ""),
        h("td", {},
          h("button", { type: "button", "data-token-action": "unregister", "data-token": token, "aria-label": `Unregister ${service} token ${shortToken(token)}`,
            onclick: attempt(async () => { await api(path, { method: "PATCH", body: { state: "unregistered" } }); await renderTokens(); }) }, "Unregister"), " ",
          h("button", { type: "button", "aria-label": `Reactivate ${service} token ${shortToken(token)}`,
            onclick: attempt(async () => { await api(path, { method: "PATCH", body: { state: "active" } }); await renderTokens(); }) }, "Reactivate"), " ",
          h("button", { type: "button", "aria-label": `Rotate ${service} token ${shortToken(token)}`,
            onclick: attempt(async () => { await api(`${path}/rotate`, { method: "POST", body: {} }); await renderTokens(); }) }, "Rotate"), " ",
          h("button", { type: "button", "aria-label": `Forget ${service} token ${shortToken(token)}`,
            onclick: attempt(async () => { await api(path, { method: "DELETE" }); await renderTokens(); }) }, "Forget"))));
    }
  }
  $("#token-rows").replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", { colspan: "5", class: "empty" }, "No registered token (unknown tokens are accepted as valid)."))]));
}

// ---------- faults ----------

async function renderFaults() {
  const [rules, presets] = await Promise.all([api("/faults"), api("/faults/presets")]);
  const list = Array.isArray(rules) ? rules : rules.faults || rules.rules || [];
  $("#fault-rows").replaceChildren(...(list.length ? list.map((entry) => {
    const rule = entry.rule || entry;
    return h("tr", {},
      h("td", {}, rule.id || ""),
      h("td", {}, h("code", {}, JSON.stringify(rule))),
      h("td", {}, entry.matches ?? ""),
      h("td", {}, entry.fired ?? ""),
      h("td", {}, h("button", { type: "button", "aria-label": `Delete fault rule ${rule.id}`,
        onclick: attempt(async () => { await api(`/faults/${encodeURIComponent(rule.id)}`, { method: "DELETE" }); await renderFaults(); }) }, "Delete")));
  }) : [h("tr", {}, h("td", { colspan: "5", class: "empty" }, "No fault rule: every request gets the real service's answer."))]));
  const select = $("#preset-select");
  const names = Object.keys(presets || {});
  if (select.options.length !== names.length) {
    select.replaceChildren(...names.map((name) => h("option", { value: name }, name)));
  }
  const describe = () => { const p = presets[select.value]; $("#preset-summary").textContent = typeof p === "string" ? p : JSON.stringify(p); };
  select.onchange = describe;
  describe();
}

// ---------- clock ----------

async function renderClock(reading) {
  const clock = reading || await api("/clock");
  $("#clock-reading").textContent = clock.now;
  $("#clock-frozen").textContent = clock.frozen ? "frozen" : "running";
}

// ---------- categories ----------

async function renderCategories() {
  const { categories } = await api("/categories");
  state.categories = categories;
  $("#category-list").replaceChildren(...(categories.length ? categories.map((c) => h("li", {},
    h("code", {}, c.id), c.app ? ` (${c.app})` : "", ": ", c.actions.map((a) => a.title).join(" · "), " ",
    h("button", { type: "button", "aria-label": `Remove category ${c.id}`,
      onclick: attempt(async () => { await api(`/categories/${encodeURIComponent(c.id)}`, { method: "DELETE" }); await renderCategories(); }) }, "Remove")))
    : [h("li", { class: "hint" }, "None declared.")]));
}

// ---------- pages, theme, keys ----------

const PAGES = ["inbox", "devices", "faults", "clock", "categories"];

async function route() {
  const hash = location.hash || "#/";
  const recordMatch = /^#\/r\/(\d+)$/.exec(hash);
  const page = recordMatch ? "inbox" : (hash.slice(2) || "inbox");
  for (const name of PAGES) $(`#page-${name}`).hidden = name !== page;
  for (const link of document.querySelectorAll(".bar nav a")) {
    if (link.dataset.page === page) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  try {
    if (page === "devices") await renderDevices();
    if (page === "faults") await renderFaults();
    if (page === "clock") await renderClock();
    if (page === "categories") await renderCategories();
    if (recordMatch) await showDetail(Number(recordMatch[1]));
    else stopDetailPoll();
  } catch (error) {
    toast(error.message);
  }
}

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  $("#theme").setAttribute("aria-pressed", String(theme === "dark"));
}

function initialTheme() {
  let stored = null;
  try { stored = localStorage.getItem("pushmock-theme"); } catch (_) { stored = null; }
  if (stored) return stored;
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function moveSelection(step) {
  const rows = [...document.querySelectorAll("#rows tr")];
  if (!rows.length) return;
  let index = rows.findIndex((tr) => tr === document.activeElement);
  if (index < 0) index = rows.findIndex((tr) => Number(tr.dataset.seq) === state.selected);
  const next = rows[Math.max(0, Math.min(rows.length - 1, index + step))];
  next.focus();
}

function onKey(event) {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
  if (event.key === "Escape") {
    if (typing) { event.target.blur(); return; }
    if (location.hash.startsWith("#/r/")) { history.replaceState(null, "", `${location.pathname}${location.search}#/`); state.selected = null; stopDetailPoll(); markSelected(); $("#detail").replaceChildren(h("p", { class: "empty" }, "Select a recording.")); }
    return;
  }
  if (typing || event.metaKey || event.ctrlKey || event.altKey) return;
  if (event.key === "/") { event.preventDefault(); $("#filters").elements.text.focus(); }
  else if (event.key === "j" || event.key === "ArrowDown") { if ($("#page-inbox").hidden) return; event.preventDefault(); moveSelection(1); }
  else if (event.key === "k" || event.key === "ArrowUp") { if ($("#page-inbox").hidden) return; event.preventDefault(); moveSelection(-1); }
}

async function start() {
  applyTheme(initialTheme());
  $("#theme").addEventListener("click", () => {
    const theme = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
    applyTheme(theme);
    try { localStorage.setItem("pushmock-theme", theme); } catch (_) { /* private mode */ }
  });
  queryFromURL();
  $("#filters").addEventListener("submit", attempt(applyFilters));
  $("#reset-filters").addEventListener("click", attempt(async () => { $("#filters").reset(); await applyFilters(); }));
  $("#pause").addEventListener("click", togglePause);
  $("#older").addEventListener("click", attempt(loadOlder));
  $("#clear").addEventListener("click", attempt(async () => {
    await api("/recordings", { method: "DELETE" });
    state.records.clear(); state.next = null; state.selected = null; stopDetailPoll();
    renderList();
    $("#detail").replaceChildren(h("p", { class: "empty" }, "Cleared."));
  }));
  $("#faults-clear").addEventListener("click", attempt(async () => { await api("/faults", { method: "DELETE" }); await renderFaults(); }));
  $("#preset-form").addEventListener("submit", attempt(async () => {
    const form = $("#preset-form");
    const parameters = form.elements.parameters.value.trim() || "{}";
    JSON.parse(parameters);
    await api(`/faults/presets/${encodeURIComponent(form.elements.preset.value)}`, { method: "POST", body: parameters });
    await renderFaults();
  }));
  for (const button of document.querySelectorAll("[data-clock]")) {
    button.addEventListener("click", attempt(async () => renderClock(await api(`/clock/${button.dataset.clock}`, { method: "POST", body: {} }))));
  }
  $("#clock-advance").addEventListener("submit", attempt(async () => renderClock(await api("/clock/advance", { method: "POST", body: { by: $("#clock-advance").elements.by.value } }))));
  $("#clock-set").addEventListener("submit", attempt(async () => renderClock(await api("/clock/set", { method: "POST", body: { to: $("#clock-set").elements.to.value } }))));
  $("#category-form").addEventListener("submit", attempt(async () => {
    const text = $("#category-form").elements.category.value;
    JSON.parse(text);
    await api("/categories", { method: "POST", body: text });
    await renderCategories();
  }));
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", route);
  try { await loadFirstPage(); } catch (error) { toast(error.message); }
  connect();
  await route();
}

document.addEventListener("DOMContentLoaded", start);
