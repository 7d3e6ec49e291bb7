// The planner serve page: the scenario data lives here; every change is checked by the server
// (POST /api/check), which is the only judge. Inches, y up, facing degrees anticlockwise from +x.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const S = {
  scenario: null,   // the scenario data (as a file holds it)
  file: null,       // the file it was opened from
  board: null,      // GET from the server: shapes and positions
  report: null,     // the checker's report
  selected: null,   // unit id
  selectedModel: null,
  detailUnit: null,
  overlay: null,
  suggestion: null,
  job: null,
  events: null,
  placing: false,
  checkSeq: 0,
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function html(tag, attrs = {}, text = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  return e;
}

function message(text, error = false) {
  const m = $("message");
  m.textContent = text || "";
  m.className = "message" + (error ? " error" : "");
}

async function api(path, body, opts = {}) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": opts.type || "application/json"},
    body: opts.raw ? body : JSON.stringify(body)};
  const r = await fetch(path, init);
  if (opts.blob && r.ok) return r.blob();
  let data = null;
  try { data = await r.json(); } catch (e) { data = {error: `HTTP ${r.status}`}; }
  if (!r.ok) {
    const err = new Error(data.error || `HTTP ${r.status}`);
    err.status = r.status; err.data = data;
    throw err;
  }
  return data;
}

function fmt(v, d = 3) { return v === null || v === undefined ? "" : Number(v).toFixed(d); }

// ------------------------------------------------------------------ scenario data edits

function unitData(uid) {
  const u = S.board.units.find((x) => x.id === uid);
  if (!u || u.army < 0) return null;
  return S.scenario.armies[u.army].units[u.index];
}

function boardUnit(uid) { return S.board.units.find((x) => x.id === uid); }

function setModel(uid, index, x, y, facing) {
  const ud = unitData(uid);
  const md = ud.models[index];
  const bu = boardUnit(uid).models[index];
  const r = (v) => Math.round(v * 1e7) / 1e7;
  if (x !== null) { md.x = r(x); bu.x = md.x; }
  if (y !== null) { md.y = r(y); bu.y = md.y; }
  if (facing !== null) {
    let f = ((facing % 360) + 360) % 360;
    if (f > 180) f -= 360;
    md.facing = r(f); bu.facing = md.facing;
  }
}

// ------------------------------------------------------------------ drawing

function draw() {
  const svg = $("board");
  svg.innerHTML = "";
  if (!S.board) return;
  const W = S.board.battlefield.width, D = S.board.battlefield.depth;
  svg.setAttribute("viewBox", `-1 -1 ${W + 2} ${D + 4}`);
  const defs = el("defs", {}, svg);
  const mk = el("marker", {id: "arrowhead", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 4, markerHeight: 4,
    orient: "auto-start-reverse"}, defs);
  el("path", {d: "M0,0 L10,5 L0,10 z", fill: "#6a1b9a"}, mk);
  const clip = el("clipPath", {id: "table-clip"}, defs);
  el("rect", {x: 0, y: 0, width: W, height: D}, clip);
  const world = el("g", {id: "world", transform: `matrix(1 0 0 -1 0 ${D})`}, svg);
  const labels = el("g", {id: "labels"}, svg);
  const placed = [];  // the labels' boxes so far (terrain, then units): each new one is moved clear of them
  el("rect", {id: "battlefield", class: "table-area", x: 0, y: 0, width: W, height: D}, world);
  const colour = {};
  for (const p of S.board.players) colour[p.player] = p.colour;
  for (const z of S.board.zones) {
    el("polygon", {id: `zone-${z.id}`, class: "zone", points: z.polygon.map((p) => p.join(",")).join(" "),
      fill: colour[z.player] || "#888", stroke: colour[z.player] || "#888"}, world);
  }
  const blocking = new Set();
  const detail = S.report && S.detailUnit ? S.report.units.find((u) => u.unit === S.detailUnit) : null;
  if (detail) for (const f of detail.findings) for (const b of f.evidence.blocking_features || []) blocking.add(b);
  for (const t of S.board.terrain) {
    const cls = "terrain " + t.kind + (blocking.has(t.id) ? " blocking-hit" : "");
    const pieces = t.pieces || [t.footprint];
    pieces.forEach((piece, k) => {
      el("polygon", {id: k === 0 ? `terrain-${t.id}` : `terrain-${t.id}-${k}`, class: cls,
        points: piece.map((p) => p.join(",")).join(" ")}, world);
    });
    for (const wall of t.walls || []) {
      el("polygon", {class: "wall", points: wall.map((p) => p.join(",")).join(" ")}, world);
    }
    const cx = t.footprint.reduce((a, p) => a + p[0], 0) / t.footprint.length;
    const cy = t.footprint.reduce((a, p) => a + p[1], 0) / t.footprint.length;
    const txt = el("text", {class: "label", x: cx, y: D - cy, "text-anchor": "middle"}, labels);
    txt.textContent = (t.name || t.id) + (t.height ? ` (${t.height}")` : "");
    placeLabel(txt, cx, D - cy, W, placed);
  }
  for (const o of S.board.objectives) {
    el("circle", {id: `objective-${o.id}`, class: "objective", cx: o.x, cy: o.y, r: 0.4}, world);
  }
  drawOverlay(world);
  const illegal = new Set((S.report ? S.report.units : []).filter((u) => !u.legal).map((u) => u.unit));
  for (const u of S.board.units) {
    if (!u.on_battlefield) continue;
    const g = el("g", {id: `unit-${u.id}`, "data-unit": u.id}, world);
    let sx = 0, sy = 0, n = 0, top = -1e9;
    for (const m of u.models) {
      if (m.x === null || m.y === null) continue;
      const cls = "base" + (illegal.has(u.id) ? " illegal" : "") + (S.selected === u.id ? " selected" : "");
      const attrs = {id: `base-${u.id}-${m.id}`, class: cls, fill: u.colour, "data-unit": u.id, "data-model": m.index};
      let shape;
      const b = m.base;
      if (b.kind === "circle") {
        shape = el("circle", {...attrs, cx: m.x, cy: m.y, r: b.a}, g);
      } else if (b.kind === "ellipse") {
        shape = el("ellipse", {...attrs, cx: m.x, cy: m.y, rx: b.a, ry: b.b,
          transform: `rotate(${m.facing} ${m.x} ${m.y})`}, g);
      } else {
        shape = el("rect", {...attrs, x: m.x - b.a, y: m.y - b.b, width: 2 * b.a, height: 2 * b.b,
          transform: `rotate(${m.facing} ${m.x} ${m.y})`}, g);
      }
      shape.addEventListener("mousedown", startDrag);
      const rad = m.facing * Math.PI / 180;
      el("line", {class: "facing", x1: m.x, y1: m.y, x2: m.x + Math.cos(rad) * b.a, y2: m.y + Math.sin(rad) * b.a}, g);
      sx += m.x; sy += m.y; n += 1; top = Math.max(top, m.y + Math.max(b.a, b.b));
    }
    if (n) {
      const txt = el("text", {id: `label-${u.id}`, class: "label", x: sx / n, y: D - top - 0.3, "text-anchor": "middle"}, labels);
      txt.textContent = u.label || u.id;
      placeLabel(txt, sx / n, D - top - 0.3, W, placed);
    }
  }
  if (detail) {
    let k = 0;
    for (const f of detail.findings) {
      const line = f.evidence.sight_line;
      if (line && line.length >= 2) {
        el("polyline", {id: `sightline-clear-${detail.unit}-${k++}`, class: "sight-clear",
          points: line.map((p) => p.join(",")).join(" ")}, world);
      }
    }
  }
  if (S.suggestion) {
    for (const u of S.suggestion.units || []) {
      for (const mv of u.moves || []) {
        el("line", {class: "arrow", x1: mv.from_x, y1: mv.from_y, x2: mv.to_x, y2: mv.to_y}, world);
        const t = el("text", {class: "arrow-text", x: (mv.from_x + mv.to_x) / 2, y: D - (mv.from_y + mv.to_y) / 2}, labels);
        t.textContent = `${fmt(mv.distance_in, 2)}"`;
      }
    }
  }
  // 12" scale bar below the table
  const sb = el("g", {id: "scalebar"}, svg);
  el("line", {class: "scalebar", x1: 0, y1: D + 1.6, x2: 12, y2: D + 1.6}, sb);
  for (const x of [0, 6, 12]) el("line", {class: "scalebar", x1: x, y1: D + 1.1, x2: x, y2: D + 2.1}, sb);
  const st = el("text", {class: "scalebar-text", x: 12.5, y: D + 1.9}, sb);
  st.textContent = `12"   (battlefield ${W}" x ${D}")`;
}

function drawOverlay(world) {
  const o = S.overlay;
  if (!o) return;
  const g = el("g", {id: `overlay-${o.kind}-${o.unit}`, "clip-path": "url(#table-clip)"}, world);
  const colours = {"legal": "#00c853", "legal-hidden": "#c6ff00"};
  o.layers.forEach((layer, i) => {
    const c = colours[layer.id] || ["#d50000", "#ff9100"][i % 2];
    for (const poly of layer.polygons) {
      const d = poly.map((ring) => "M" + ring.map((p) => p.join(",")).join("L") + "Z").join(" ");
      el("path", {class: "overlay", "data-layer": layer.id, d, "fill-rule": "evenodd", fill: c, stroke: c}, g);
    }
  });
  if (o.cells && o.cells.length) {
    const c = o.cell_in;
    for (const [x, y, v] of o.cells) {
      const red = Math.round(255 * v), green = Math.round(200 * (1 - v));
      el("rect", {class: "overlay", x: x - c / 2, y: y - c / 2, width: c, height: c,
        fill: o.kind === "threat" ? "#d50000" : `rgb(${red},${green},40)`, stroke: "none"}, g);
    }
  }
}

// ------------------------------------------------------------------ panels

function verdictOf(uid) {
  const bu = boardUnit(uid);
  if (bu && bu.on_battlefield && bu.models.some((m) => m.x === null)) return ["not placed", ""];
  if (bu && !bu.on_battlefield) return [bu.setup, ""];
  const r = S.report && S.report.units.find((u) => u.unit === uid);
  if (!r) return ["-", ""];
  return r.legal ? ["legal", "legal"] : ["ILLEGAL", "illegal"];
}

function placeLabel(txt, cx, y, W, placed) {
  // a unit's label wholly on the battlefield (its middle moved in from an edge) and clear of the
  // labels drawn before it (moved up a line at a time, at most 6 lines)
  const w = (txt.getComputedTextLength ? txt.getComputedTextLength() : 0) + 0.3;  // and the glyphs' overhang
  const x = w >= W ? W / 2 : Math.min(Math.max(cx, w / 2), W - w / 2);
  const h = 1.2;  // a line of the label's 1.1px font
  let top = y;
  for (let k = 0; k < 6 && placed.some((b) => x - w / 2 < b.x1 && b.x0 < x + w / 2 && top - h < b.y1 && b.y0 < top); k++) {
    top -= h;
  }
  txt.setAttribute("x", x);
  txt.setAttribute("y", top);
  placed.push({x0: x - w / 2, x1: x + w / 2, y0: top - h, y1: top});
}

function hasUnits() {
  return (S.scenario.armies || []).some((a) => (a.units || []).length);
}

function unplaced() {
  // units on the battlefield with a model without a position: not checked (the command line's exit 2)
  return (S.board ? S.board.units : []).filter((u) => u.on_battlefield && u.models.some((m) => m.x === null || m.y === null));
}

function panels() {
  const v = $("verdict");
  const todo = unplaced();
  if (todo.length) {  // never LEGAL while units have no positions; violations of the placed ones still show
    const bad = S.report && !S.report.legal ? `ILLEGAL (${S.report.violations.length}), ` : "";
    v.textContent = `${bad}units to place (${todo.length})`;
    v.className = "verdict " + (bad ? "illegal" : "to-place");
  } else if (S.report) {
    v.textContent = S.report.legal ? "LEGAL" : `ILLEGAL (${S.report.violations.length})`;
    v.className = "verdict " + (S.report.legal ? "legal" : "illegal");
  } else { v.textContent = "-"; v.className = "verdict"; }
  $("file-name").textContent = S.file || (S.scenario ? "new scenario (not saved)" : "no scenario open");
  const list = $("units");
  list.innerHTML = "";
  for (const u of (S.board ? S.board.units : [])) {
    const [word, cls] = verdictOf(u.id);
    const row = html("div", {class: `unit-row ${cls}${S.selected === u.id ? " sel" : ""}`, id: `unit-row-${u.id}`,
      "data-unit": u.id});
    const cb = html("input", {type: "checkbox", class: "mark", "data-unit": u.id, title: "mark to plan"});
    cb.checked = !!(unitData(u.id) || {}).place;
    cb.addEventListener("click", (e) => { e.stopPropagation(); markUnit(u.id, cb.checked); });
    row.appendChild(cb);
    row.appendChild(html("span", {style: `color:${u.colour}`}, "\u25CF"));
    row.appendChild(html("span", {}, `${u.id}`));
    row.appendChild(html("span", {class: "v", id: `verdict-${u.id}`}, word));
    row.addEventListener("click", () => { select(u.id); showDetails(u.id); });
    list.appendChild(row);
  }
  const vio = $("violations");
  vio.innerHTML = "";
  const vs = S.report ? S.report.violations : [];
  if (!vs.length) { vio.textContent = "none"; vio.className = "muted"; }
  else vio.className = "";
  for (const x of vs) {
    const d = html("div", {class: "violation", "data-unit": x.unit, "data-rule": x.rule},
      `${x.unit}: [${x.rule}] ${x.message}`);
    d.addEventListener("click", () => { select(x.unit); showDetails(x.unit); });
    vio.appendChild(d);
  }
  selectedPanel();
  detailsPanel();
  const us = $("overlay-unit"), keep = us.value;
  us.innerHTML = "";
  for (const u of (S.board ? S.board.units : [])) us.appendChild(html("option", {value: u.id}, u.id));
  if (keep) us.value = keep;
  if (S.selected) us.value = S.selected;
  for (const id of ["roster-player", "plan-player"]) {
    const sel = $(id), keepP = sel.value;
    sel.innerHTML = "";
    for (const a of (S.scenario ? S.scenario.armies : [])) sel.appendChild(html("option", {value: a.player}, a.player));
    if (keepP && [...sel.options].some((o) => o.value === keepP)) sel.value = keepP;
  }
  if (S.selected && boardUnit(S.selected) && !S.planPlayerChosen) $("plan-player").value = boardUnit(S.selected).player;
}

function selectedPanel() {
  const box = $("model-table");
  box.innerHTML = "";
  if (!S.selected || !S.board) { $("selected").textContent = "click a base (drag: whole unit; tick below to move one model)"; return; }
  const u = boardUnit(S.selected);
  if (!u) return;
  $("selected").textContent = `${u.id} (${u.label}), player ${u.player}, set-up ${u.setup}`;
  const t = html("table");
  t.appendChild(html("tr", {})).innerHTML = "<th>model</th><th>x</th><th>y</th><th>facing</th>";
  for (const m of u.models) {
    const tr = html("tr", {class: "model-row"});
    tr.appendChild(html("td", {}, m.id));
    for (const [k, val] of [["x", m.x], ["y", m.y], ["facing", m.facing]]) {
      const td = html("td");
      const inp = html("input", {id: `model-${k}-${u.id}-${m.index}`, value: val === null ? "" : String(val),
        inputmode: "decimal"});
      inp.addEventListener("change", () => typedCoordinate(u.id, m.index, k, inp.value));
      td.appendChild(inp);
      tr.appendChild(td);
    }
    t.appendChild(tr);
  }
  box.appendChild(t);
}

function detailsPanel() {
  const box = $("details");
  $("detail-unit").textContent = S.detailUnit || "-";
  box.innerHTML = "";
  if (!S.detailUnit || !S.report) { box.textContent = "click a unit or a violation"; box.className = "muted"; return; }
  box.className = "";
  const r = S.report.units.find((u) => u.unit === S.detailUnit);
  if (!r) { box.textContent = "not checked (not placed, or off the table)"; return; }
  const t = html("table", {id: "findings"});
  t.appendChild(html("tr")).innerHTML = "<th>rule</th><th></th><th>measured</th><th>requirement</th><th>margin</th>";
  for (const f of r.findings) {
    const tr = html("tr", {class: f.passed ? "ok" : "fail", "data-rule": f.rule});
    tr.appendChild(html("td", {}, f.rule));
    tr.appendChild(html("td", {}, f.passed ? "ok" : "FAIL"));
    tr.appendChild(html("td", {class: "num"}, f.measured_text));
    tr.appendChild(html("td", {}, f.required));
    tr.appendChild(html("td", {class: "num"}, f.margin_text));
    t.appendChild(tr);
    const ev = f.evidence || {};
    const why = [f.message];
    if (ev.blocking_features && ev.blocking_features.length) why.push(`blocked by ${ev.blocking_features.join(", ")} (outlined)`);
    if (ev.seen_by) why.push(`seen by ${ev.seen_by}`);
    if (ev.sight_line) why.push("clear sight line drawn in green");
    const tr2 = html("tr", {class: (f.passed ? "ok" : "fail") + " why"});
    const td = html("td", {colspan: "5"}, why.join("; "));
    tr2.appendChild(td);
    t.appendChild(tr2);
  }
  box.appendChild(t);
}

function select(uid, modelIndex = null) {
  S.selected = uid;
  S.selectedModel = modelIndex;
  draw();
  panels();
}

function showDetails(uid) {
  S.detailUnit = uid;
  draw();
  detailsPanel();
}

// ------------------------------------------------------------------ check after every change

async function check() {
  if (!S.scenario) return;
  const seq = ++S.checkSeq;
  document.body.dataset.pending = String(seq);  // tests wait for checked === pending
  if (!hasUnits()) {
    // nothing to judge (the API's 400, the command line's exit 2): no verdict, not LEGAL
    S.report = null;
    message("no units to check yet: add armies with units (import a roster)");
    draw();
    panels();
    document.body.dataset.checked = String(seq);
    return;
  }
  try {
    const r = await api("/api/check", {scenario: S.scenario, file: S.file});
    if (seq !== S.checkSeq) return;  // a newer change is being checked
    S.board = r.board;
    S.report = r.report;
    const todo = unplaced();
    if (todo.length) message(`${todo.length} unit(s) to place (no positions yet): ${todo.map((u) => u.id).join(", ")}`);
    else message(S.report.legal ? "legal: every rule checked passed" :
      `illegal: ${S.report.violations.map((v) => `${v.unit} [${v.rule}]`).join(", ")}`);
  } catch (e) {
    if (seq !== S.checkSeq) return;
    S.report = null;
    message(e.message, true);
  }
  draw();
  panels();
  document.body.dataset.checked = String(seq);
}

function typedCoordinate(uid, index, key, text) {
  const v = Number(text);
  if (text.trim() === "" || !Number.isFinite(v)) { message(`${key} must be a number, got "${text}"`, true); return; }
  const bu = boardUnit(uid).models[index];
  if (key !== "facing" && (bu.x === null || bu.y === null)) {
    setModel(uid, index, key === "x" ? v : (bu.x ?? v), key === "y" ? v : (bu.y ?? v), null);
  } else {
    setModel(uid, index, key === "x" ? v : null, key === "y" ? v : null, key === "facing" ? v : null);
  }
  check();
}

function markUnit(uid, on) {
  const ud = unitData(uid);
  if (on) ud.place = true; else delete ud.place;
  check();
}

// ------------------------------------------------------------------ drag, rotate, place

function toWorld(evt) {
  const g = $("world");
  const pt = $("board").createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  return pt.matrixTransform(g.getScreenCTM().inverse());
}

let drag = null;

function startDrag(evt) {
  evt.preventDefault();
  const uid = evt.target.dataset.unit, mi = Number(evt.target.dataset.model);
  const p = toWorld(evt);
  const u = boardUnit(uid);
  const one = $("drag-model").checked;
  const models = one ? [u.models[mi]] : u.models.filter((m) => m.x !== null);
  drag = {uid, p0: p, moved: false, start: models.map((m) => ({index: m.index, x: m.x, y: m.y}))};
  S.selected = uid; S.selectedModel = mi; S.detailUnit = uid;
  window.addEventListener("mousemove", onDrag);
  window.addEventListener("mouseup", endDrag, {once: true});
}

function onDrag(evt) {
  if (!drag) return;
  const p = toWorld(evt);
  const dx = p.x - drag.p0.x, dy = p.y - drag.p0.y;
  if (Math.abs(dx) + Math.abs(dy) > 0.02) drag.moved = true;
  for (const s of drag.start) setModel(drag.uid, s.index, s.x + dx, s.y + dy, null);
  draw();
}

function endDrag() {
  window.removeEventListener("mousemove", onDrag);
  const d = drag;
  drag = null;
  if (!d) return;
  if (d.moved) {  // keep the formation; positions to 0.01"
    for (const s of d.start) {
      const m = boardUnit(d.uid).models[s.index];
      setModel(d.uid, s.index, Math.round(m.x * 100) / 100, Math.round(m.y * 100) / 100, null);
    }
    check();
  } else { draw(); panels(); }
}

function rotateSelected(deg) {
  if (!S.selected) { message("select a unit first", true); return; }
  const u = boardUnit(S.selected);
  const placed = u.models.filter((m) => m.x !== null);
  if (!placed.length) return;
  const one = $("drag-model").checked && S.selectedModel !== null;
  const ms = one ? [u.models[S.selectedModel]] : placed;
  const cx = ms.reduce((a, m) => a + m.x, 0) / ms.length, cy = ms.reduce((a, m) => a + m.y, 0) / ms.length;
  const r = deg * Math.PI / 180, c = Math.cos(r), s = Math.sin(r);
  for (const m of ms) {
    const dx = m.x - cx, dy = m.y - cy;
    setModel(u.id, m.index, cx + dx * c - dy * s, cy + dx * s + dy * c, m.facing + deg);
  }
  check();
}

function placeAt(evt) {
  if (!S.placing || !S.selected) return;
  S.placing = false;
  $("board").style.cursor = "";
  const p = toWorld(evt);
  const u = boardUnit(S.selected);
  const size = Math.max(...u.models.map((m) => 2 * Math.max(m.base.a, m.base.b))) + 0.5;
  const perRow = Math.min(10, u.models.length);
  u.models.forEach((m, i) => {
    const row = Math.floor(i / perRow), col = i % perRow;
    setModel(u.id, m.index, p.x + (col - (perRow - 1) / 2) * size, p.y - row * size, 90);
  });
  check();
}

// ------------------------------------------------------------------ overlays, suggest, plan

async function showOverlay() {
  const unit = $("overlay-unit").value, kind = $("overlay-kind").value;
  try {
    message(`computing the ${kind} overlay of ${unit}...`);
    S.overlay = await api("/api/overlay", {scenario: S.scenario, file: S.file, kind, unit});
    $("overlay-legend").textContent = S.overlay.label || S.overlay.layers.map((l) => l.label).join("; ");
    message("");
  } catch (e) { message(e.message, true); }
  draw();
}

async function suggest() {
  const units = S.report ? [...new Set(S.report.violations.map((v) => v.unit))] : [];
  if (!units.length) { $("suggest-status").textContent = "no illegal unit"; return; }
  $("suggest-status").textContent = "searching the nearest legal positions...";
  try {
    S.suggestion = await api("/api/suggest", {scenario: S.scenario, file: S.file, units});
    $("suggest-status").textContent = S.suggestion.units.map(
      (u) => `${u.unit_id}: ${u.status}, ${fmt(u.total_move_in, 2)}" in all`).join("; ");
    $("suggest-apply").disabled = false;
  } catch (e) { $("suggest-status").textContent = e.message; S.suggestion = null; }
  draw();
}

function applySuggestion() {
  if (!S.suggestion) return;
  // a move names its own unit: a unit's suggestion also moves the characters joined to it
  for (const u of S.suggestion.units) {
    for (const mv of u.moves) {
      const bu = boardUnit(mv.unit_id);
      const m = bu && bu.models.find((x) => x.id === mv.model_id);
      if (m) setModel(mv.unit_id, m.index, mv.to_x, mv.to_y, mv.to_facing);
    }
  }
  S.suggestion = null;
  $("suggest-apply").disabled = true;
  check();
}

function markedUnits() {
  const player = $("plan-player").value;
  return S.board.units.filter((u) => (unitData(u.id) || {}).place && u.on_battlefield &&
    (!player || u.player === player)).map((u) => u.id);
}

async function plan() {
  const units = markedUnits();
  if (!units.length) { $("plan-status").textContent = `tick units of player ${$("plan-player").value} to plan first`; return; }
  $("plan-status").textContent = "";
  $("plan-status").className = "";
  $("plan-progress").textContent = "starting the planner...";
  let job;
  try {
    job = await api("/api/plan", {scenario: S.scenario, file: S.file, units,
      time_limit: Number($("plan-time").value) || 10});
  } catch (e) { $("plan-progress").textContent = ""; $("plan-status").textContent = e.message; return; }
  S.job = job.job;
  $("plan-cancel").disabled = false;
  $("plan").disabled = true;
  const es = new EventSource(job.events);
  S.events = es;
  es.addEventListener("progress", (e) => {
    const p = JSON.parse(e.data);
    $("plan-progress").textContent =
      `objective ${fmt(p.objective)}, bound ${p.bound === null ? "-" : fmt(p.bound)}, ${fmt(p.elapsed_s, 1)} s`;
  });
  const finish = () => { $("plan-progress").textContent = ""; es.close(); S.events = null; S.job = null; $("plan-cancel").disabled = true; $("plan").disabled = false; };
  es.addEventListener("result", (e) => {
    finish();
    const r = JSON.parse(e.data);
    let text = `status: ${r.status}`;
    if (r.status === "feasible" && r.gap != null) text += ` (gap ${(100 * r.gap).toFixed(2)}%)`;
    if (r.limit) text += ` (limit: ${r.limit}, not a proof over the rules)`;
    if (r.objective !== null && r.objective !== undefined) text += `, objective ${fmt(r.objective)}`;
    if (r.conflicts && r.conflicts.length) text += "; conflicting rules: " + r.conflicts.map((c) => `${c.units.join(", ")}: ${c.rules.join(", ")} (${c.message})`).join("; ");
    if (r.violations) text += "; " + r.violations.map((v) => `${v.unit} [${v.rule}]`).join(", ");
    text += `. ${r.message || ""}`;
    $("plan-status").textContent = text;
    $("plan-status").className = r.status === "optimal" || r.status === "feasible" ? "ok" : "fail";
    if (r.scenario_data) {  // the planned units stand now: no longer marked
      S.scenario = r.scenario_data;
      const placed = new Set((r.placements || []).map((p) => p.unit));
      for (const a of S.scenario.armies) for (const u of a.units) if (placed.has(u.id)) delete u.place;
      check();
    }
  });
  for (const kind of ["error", "internal", "cancelled"]) {
    es.addEventListener(kind, (e) => {
      finish();
      const r = JSON.parse(e.data);
      $("plan-status").textContent = kind === "cancelled" ? `status: cancelled after ${fmt(r.elapsed_s, 1)} s` : r.error;
    });
  }
}

async function cancelPlan() {
  if (!S.job) return;
  try { await api(`/api/plan/${S.job}/cancel`, {}); } catch (e) { message(e.message, true); }
}

// ------------------------------------------------------------------ files

function loaded(r) {
  S.scenario = r.scenario; S.file = r.file; S.board = r.board; S.report = r.report;
  S.selected = null; S.detailUnit = null; S.overlay = null; S.suggestion = null; S.planPlayerChosen = false;
  $("overlay-legend").textContent = "";
  if (!hasUnits()) message("no units to check yet: add armies with units (import a roster)");
  else if (unplaced().length) message(`opened: ${unplaced().length} unit(s) to place (no positions yet)`);
  else if (!S.report) message("opened (not checked: no checker for this ruleset)");
  else message(S.report.legal ? "legal: every rule checked passed" : `illegal: ${S.report.violations.length} violations`);
  draw(); panels();
  document.body.dataset.loaded = S.file || "new";
}

async function openFile(path) {
  delete document.body.dataset.loaded;
  try { loaded(await api("/api/load", {path})); } catch (e) { message(e.message, true); }
}

async function save() {
  const path = $("save-path").value.trim();
  if (!S.scenario) return;
  const body = {scenario: S.scenario, file: S.file, path};
  try {
    let r;
    try { r = await api("/api/save", body); } catch (e) {
      if (e.status !== 409) throw e;
      if (!window.confirm(`${e.message}\n\nWrite over it?`)) { message("not saved"); return; }
      r = await api("/api/save", {...body, overwrite: true});
    }
    S.file = r.file;  // the header names the file the scenario is now in
    panels();
    message(`saved to ${r.file}`);
  } catch (e) { message(e.message, true); }
}

async function download(path, body, name) {
  try {
    const blob = await api(path, {scenario: S.scenario, file: S.file, ...body}, {blob: true});
    const a = html("a", {href: URL.createObjectURL(blob), download: name});
    document.body.appendChild(a); a.click(); a.remove();
  } catch (e) { message(e.message, true); }
}

async function importRoster() {
  const f = $("roster-file").files[0];
  if (!f) { message("choose a roster file (.ros, .rosz; a 40k list .txt, .json)", true); return; }
  const player = $("roster-player").value;
  const q = new URLSearchParams({player, ruleset: S.scenario.ruleset, filename: f.name,
    embark: $("roster-embark").checked, id_prefix: `${player}-`});
  if ($("roster-base").value.trim()) q.set("default_base", $("roster-base").value.trim());
  try {
    const r = await api(`/api/import-roster?${q}`, await f.arrayBuffer(), {raw: true, type: "application/octet-stream"});
    const army = S.scenario.armies.find((a) => a.player === player);
    if (army) army.units = r.army.units; else S.scenario.armies.push(r.army);
    $("roster-status").textContent = `imported ${r.units} units (${r.models} models) from ${r.file} for ${player}` +
      (r.warnings.length ? `; warnings: ${r.warnings.join("; ")}` : "") + "; tick units and plan, or place them";
    check();
  } catch (e) { $("roster-status").textContent = ""; message(e.message, true); }
}

async function newScenario() {
  try {
    loaded(await api("/api/new", {ruleset: $("new-ruleset").value, map: $("new-map").value,
      players: [$("new-player-a").value, $("new-player-b").value]}));
  } catch (e) { message(e.message, true); }
}

async function loadMaps() {
  try {
    const r = await api(`/api/maps?ruleset=${encodeURIComponent($("new-ruleset").value)}`);
    const s = $("new-map");
    s.innerHTML = "";
    for (const m of r.maps) s.appendChild(html("option", {value: m}, m));
  } catch (e) { message(e.message, true); }
}

async function init() {
  $("open").addEventListener("click", () => openFile($("open-path").value.trim()));
  $("bundled").addEventListener("change", () => { if ($("bundled").value) openFile($("bundled").value); });
  $("new").addEventListener("click", newScenario);
  $("new-ruleset").addEventListener("change", loadMaps);
  $("roster-import").addEventListener("click", importRoster);
  $("rot-left").addEventListener("click", () => rotateSelected(15));
  $("rot-right").addEventListener("click", () => rotateSelected(-15));
  $("place-click").addEventListener("click", () => {
    if (!S.selected) { message("select a unit in the list first", true); return; }
    S.placing = true; $("board").style.cursor = "crosshair"; message(`click the board to place ${S.selected}`);
  });
  $("board").addEventListener("click", placeAt);
  $("overlay-show").addEventListener("click", showOverlay);
  $("overlay-clear").addEventListener("click", () => { S.overlay = null; $("overlay-legend").textContent = ""; draw(); });
  $("suggest").addEventListener("click", suggest);
  $("suggest-apply").addEventListener("click", applySuggestion);
  $("plan").addEventListener("click", plan);
  $("plan-player").addEventListener("change", () => { S.planPlayerChosen = true; });
  $("plan-cancel").addEventListener("click", cancelPlan);
  $("save").addEventListener("click", save);
  $("dl-svg").addEventListener("click", () => download("/api/render", {format: "svg"}, "battlefield.svg"));
  $("dl-png").addEventListener("click", () => download("/api/render", {format: "png"}, "battlefield.png"));
  $("dl-html").addEventListener("click", () => download("/api/ruling", {format: "html"}, "ruling.html"));
  $("dl-md").addEventListener("click", () => download("/api/ruling", {format: "markdown"}, "ruling.md"));
  try {
    const rs = await api("/api/rulesets");
    for (const r of rs) if (r.checker) $("new-ruleset").appendChild(html("option", {value: r.id}, `${r.id}: ${r.name}`));
    await loadMaps();
    const sc = await api("/api/scenarios");
    for (const b of sc.bundled) $("bundled").appendChild(html("option", {value: b.path}, b.name));
    if (sc.initial) await openFile(sc.initial);
  } catch (e) { message(e.message, true); }
  document.body.dataset.ready = "1";
}

init();
