"use strict";
// The replay page: every number comes from the embedded record (id "data"); nothing is fetched.
const D = JSON.parse(document.getElementById("data").textContent);
const N = D.steps.length; // steps 0..N-1 are decisions, step N is the end of the game
const SVG = "http://www.w3.org/2000/svg";
const PIPS = {1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [0, 2], [2, 0], [2, 2]],
  5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], 6: [[0, 0], [0, 2], [1, 0], [1, 2], [2, 0], [2, 2]]};
let at = 0;
const VALUES_TITLE = document.getElementById("values-title").textContent;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}
function setText(id, text) { document.getElementById(id).textContent = text === null ? "\u2013" : String(text); }

function drawDice(step) {
  const box = document.getElementById("dice");
  box.replaceChildren();
  box.dataset.faces = step.dice.join(" ");
  box.setAttribute("aria-label", D.words.dice + ": " + step.dice.join(" "));
  step.dice.forEach((face, i) => {
    const s = svg("svg", {viewBox: "0 0 54 54", class: "die" + (step.keeps[i] ? " kept" : ""),
      "data-face": face, "data-kept": step.keeps[i] ? "1" : "0"});
    s.appendChild(svg("rect", {x: 2, y: 2, width: 50, height: 50, rx: 9}));
    for (const [r, c] of PIPS[face]) s.appendChild(svg("circle", {cx: 13.5 * (c + 1), cy: 13.5 * (r + 1), r: 4.6}));
    box.appendChild(s);
  });
}

function drawBars(step) {
  const box = document.getElementById("bars");
  box.replaceChildren();
  if (!step.bars) { box.appendChild(el("p", {class: "legend"}, "no solver values for this game")); return; }
  const vs = step.bars.map(b => b.v);
  const hi = Math.max(...vs), lo = Math.min(...vs);
  const floor = barFloor(lo, hi);
  for (const b of step.bars) {
    const cls = ["bar"];
    if (b.action === step.action) cls.push("agent");
    if (b.action === step.best_action) cls.push("best");
    const row = el("div", {class: cls.join(" "), "data-action": b.action, "data-value": b.value});
    row.appendChild(el("span", {class: "move", title: b.move}, b.move));
    const track = el("span", {class: "track"});
    track.appendChild(el("span", {class: "fill", style: "display:block;width:" +
      (100 * (b.v - floor) / (hi - floor)).toFixed(2) + "%"}));
    row.appendChild(track);
    row.appendChild(el("span", {class: "num value"}, b.value));
    box.appendChild(row);
  }
  // the scale under the bars: where they start (not at zero) and where the longest ends
  const axis = el("div", {class: "bars-axis", id: "bars-axis", "data-floor": floor, "data-top": hi.toFixed(2)});
  axis.appendChild(el("span", {}, ""));
  const scale = el("span", {class: "scale"});
  scale.appendChild(el("span", {}, floor));
  scale.appendChild(el("span", {}, hi.toFixed(2)));
  axis.appendChild(scale);
  axis.appendChild(el("span", {}, "points"));
  box.appendChild(axis);
  box.appendChild(el("p", {class: "legend", id: "bars-floor"}, floor === 0 ? "The bars start at 0 points." :
    "The bars start at " + floor + " points, not at 0, so that small differences show: a bar's length is its " +
    "value above " + floor + "."));
}

// A round number of points below the lowest value where the bars start; 0 when the values are far from equal.
function barFloor(lo, hi) {
  if (lo < 0.25 * hi) return 0;
  const span = Math.max(hi - lo, 1);
  const unit = span <= 5 ? 1 : span <= 20 ? 5 : span <= 50 ? 10 : 50;
  return Math.max(0, Math.floor((lo - 0.08 * span) / unit) * unit);
}

function drawCards(cards, step) {
  const table = document.getElementById("cards");
  table.replaceChildren();
  const multi = D.players.length > 1;
  const head = el("thead"), hr = el("tr");
  hr.appendChild(el("th", {}, ""));
  D.players.forEach((p, s) => {
    hr.appendChild(el("th", {class: step && step.seat === s ? "acting" : "", colspan: 1}, multi ? p : "Score"));
    if (step && step.seat === s) hr.appendChild(el("th", {}, "Now"));
  });
  head.appendChild(hr);
  table.appendChild(head);
  const body = el("tbody");
  cards[0].forEach((row0, r) => {
    const tr = el("tr", {class: row0.kind === "sum" || row0.kind === "total" ? row0.kind : ""});
    if (step && row0.action !== undefined) {
      if (row0.action === step.action) tr.classList.add("chosen");
      if (row0.action === step.best_action) tr.classList.add("optimal");
    }
    tr.appendChild(el("th", {}, row0.label));
    cards.forEach((card, s) => {
      const row = card[r];
      tr.appendChild(el("td", {class: "box " + row.kind, "data-seat": s}, row.box));
      if (step && step.seat === s) {
        const now = row.now === undefined || row.now === null ? "" : row.now;
        tr.appendChild(el("td", {class: "now" + (now === "x" ? " forbidden" : "")}, now));
      }
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
}

function series(seat) {
  const pts = [];
  D.steps.forEach((s, i) => {
    if (s.seat === seat) pts.push({i: i, total: s.total, expected: s.expected, turn: s.turn});
  });
  pts.push({i: N, total: D.end.totals[seat], expected: D.end.totals[seat], turn: null});
  return pts;
}

// The running total and the expected final score of one player, one point per decision, the turns marked below.
function drawChart(seat) {
  const c = document.getElementById("chart");
  c.replaceChildren();
  const pts = series(seat);
  const top = Math.max(D.optimal || 0, ...pts.map(p => Math.max(p.total, p.expected || 0))) * 1.05 || 1;
  const L = 64, R = 1190, B = 200;
  const X = k => L + (R - L) * k / Math.max(1, pts.length - 1);
  const Y = v => B - 188 * v / top;
  const label = (x, y, text, attrs) => {
    const t = svg("text", Object.assign({x: x, y: y}, attrs || {}));
    t.textContent = text;
    c.appendChild(t);
  };
  for (let v = 0; v <= top; v += 50) {
    c.appendChild(svg("line", {x1: L, x2: R, y1: Y(v), y2: Y(v), stroke: "var(--line)", "stroke-width": 1}));
    label(L - 6, Y(v) + 4, v, {"text-anchor": "end"});
  }
  pts.forEach((q, k) => {  // a tick and the turn's number at its first decision, "end" at the end
    if (k > 0 && q.turn !== null && q.turn === pts[k - 1].turn) return;
    c.appendChild(svg("line", {x1: X(k), x2: X(k), y1: B, y2: B + 6, stroke: "var(--muted)", "stroke-width": 1}));
    label(X(k), B + 19, q.turn === null ? "end" : q.turn, {"text-anchor": q.turn === null ? "end" : "middle",
                                                            class: "turn"});
  });
  label((L + R) / 2, B + 42, D.words.turn.toLowerCase() + " (one point per decision)",
        {"text-anchor": "middle", class: "axis-title", id: "chart-x"});
  label(16, B / 2, "points", {"text-anchor": "middle", class: "axis-title", id: "chart-y",
                              transform: "rotate(-90 16 " + B / 2 + ")"});
  if (D.optimal !== null) {
    c.appendChild(svg("line", {x1: L, x2: R, y1: Y(D.optimal), y2: Y(D.optimal), stroke: "var(--best)",
      "stroke-dasharray": "6 4", "stroke-width": 1.5}));
  }
  const line = (key, colour) => {
    const p = pts.filter(q => q[key] !== null).map(q => X(pts.indexOf(q)) + "," + Y(q[key])).join(" ");
    c.appendChild(svg("polyline", {points: p, fill: "none", stroke: colour, "stroke-width": 2}));
  };
  line("total", "var(--ink)");
  if (D.optimal !== null) line("expected", "var(--best)");
  const k = pts.findIndex(q => q.i === at);
  if (k >= 0) c.appendChild(svg("line", {x1: X(k), x2: X(k), y1: 8, y2: B, stroke: "var(--agent)", "stroke-width": 2}));
}

// The end screen: each player's final score and expected points lost, and the costliest decisions with links.
function drawEnd() {
  const box = document.getElementById("end");
  const table = el("table", {id: "end-scores"});
  const head = el("tr");
  for (const h of ["", "score", D.end.regret[0] !== null ? D.words.regret_total : null]) {
    if (h !== null) head.appendChild(el("th", {class: h ? "num" : ""}, h));
  }
  table.appendChild(head);
  D.players.forEach((p, s) => {
    const tr = el("tr", {class: D.end.winners.includes(p) && D.players.length > 1 ? "winner" : ""});
    tr.appendChild(el("th", {}, p));
    tr.appendChild(el("td", {class: "num"}, D.end.totals[s] + " points"));
    if (D.end.regret[s] !== null) tr.appendChild(el("td", {class: "num regret"}, D.end.regret[s]));
    table.appendChild(tr);
  });
  const lines = [table];
  if (D.players.length > 1) lines.push(el("p", {}, "Winner: " + D.end.winners.join(", ")));
  if (D.optimal_value !== null) {
    lines.push(el("p", {class: "muted"}, D.words.optimal_value + " " + D.optimal_value +
      " points from the start of a game."));
  }
  box.replaceChildren(...lines);
  document.getElementById("values-title").textContent = "The costliest decisions";
  const list = document.getElementById("bars");
  if (D.end.regret[0] === null) {
    list.replaceChildren(el("p", {class: "legend"}, "no solver values for this game: no decision's cost is known"));
    return;
  }
  if (!D.end.costliest.length) {
    list.replaceChildren(el("p", {}, "No decision lost expected points: every one was optimal."));
    return;
  }
  const ol = el("ol", {id: "costliest"});
  for (const d of D.end.costliest) {
    const li = el("li", {"data-step": d.step, "data-regret": d.regret});
    const a = el("a", {href: "#decision-" + (d.step + 1)}, (D.players.length > 1 ? d.player + ", " : "") +
      D.words.turn.toLowerCase() + " " + d.turn + ", " + D.words.roll.toLowerCase() + " " + d.roll + " (decision " +
      (d.step + 1) + ")");
    a.addEventListener("click", e => { e.preventDefault(); show(d.step); });
    li.appendChild(a);
    li.appendChild(el("div", {class: "lost"}, d.regret + " expected points lost"));
    li.appendChild(el("div", {class: "agent"}, "played: " + d.move + " (" + d.value + ")"));
    li.appendChild(el("div", {class: "best"}, "optimal: " + d.best_move + " (" + d.best_value + ")"));
    ol.appendChild(li);
  }
  list.replaceChildren(ol, el("p", {class: "legend"}, "In parentheses: the expected final score after the move. " +
    "A link shows that decision."));
}

function show(k) {
  at = Math.max(0, Math.min(N, k));
  const end = at === N;
  document.getElementById("first").disabled = document.getElementById("prev").disabled = at === 0;
  document.getElementById("next").disabled = document.getElementById("last").disabled = end;
  document.body.dataset.step = at;
  document.getElementById("end").hidden = !end;
  document.getElementById("now").hidden = end;
  if (end) {
    setText("position", D.words.game_over + " (" + N + " decisions)");
    setText("who", D.words.final_score);
    drawEnd();
    document.getElementById("values-legend").hidden = true;
    drawCards(D.end.cards, null);
    drawChart(0);
    return;
  }
  const s = D.steps[at];
  setText("position", "Decision " + (at + 1) + " of " + N);
  setText("who", (D.players.length > 1 ? s.player + " \u2013 " : "") + D.words.turn + " " + s.turn + "/" +
    D.num_categories + ", " + D.words.roll + " " + s.roll + " (" + D.words.rolls_left + ": " + s.rolls_left + ")");
  drawDice(s);
  const agent = document.getElementById("agent-move");
  agent.textContent = s.move;
  agent.dataset.action = s.action;
  const best = document.getElementById("best-move");
  best.textContent = s.best_move === null ? "\u2013" : s.best_move;
  best.dataset.action = s.best_action === null ? "" : s.best_action;
  setText("agent-value", s.value);
  setText("best-value", s.best_value);
  setText("regret", s.regret);
  document.getElementById("regret").classList.toggle("zero", s.regret === "0.00");
  setText("total", s.total);
  setText("expected", s.best_value);
  setText("optimal", D.optimal_value);
  setText("regret-sum", s.regret_sum);
  document.getElementById("values-title").textContent = VALUES_TITLE;
  document.getElementById("values-legend").hidden = false;
  drawBars(s);
  drawCards(s.cards, s);
  drawChart(s.seat);
}

document.getElementById("title").textContent = D.title;
document.getElementById("subtitle").textContent = D.players.join(" vs ") + " \u2013 " + D.words.seed + " " + D.seed +
  (D.match !== null && D.match !== undefined ? " \u2013 match " + D.match + ", game " + D.game : "") +
  (D.optimal_value !== null ? " \u2013 " + D.words.optimal_value + ": " + D.optimal_value : "");
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev").addEventListener("click", () => show(at - 1));
document.getElementById("next").addEventListener("click", () => show(at + 1));
document.getElementById("last").addEventListener("click", () => show(N));
document.addEventListener("keydown", e => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const to = {ArrowRight: at + 1, ArrowDown: at + 1, PageDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1,
    PageUp: at - 1, Home: 0, End: N}[e.key];
  if (to === undefined) return;
  e.preventDefault();
  show(to);
});
// "#decision-K" (a link of the end screen, or a bookmark) shows decision K
const fromHash = () => {
  const m = /^#decision-(\d+)$/.exec(location.hash);
  return m ? Number(m[1]) - 1 : null;
};
window.addEventListener("hashchange", () => { if (fromHash() !== null) show(fromHash()); });
show(fromHash() === null ? 0 : fromHash());
