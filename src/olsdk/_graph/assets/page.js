// olsdk lineage page: draws the graph laid out by olsdk (no layout work here), on a
// canvas so that thousands of nodes stay fluid; everything user-supplied reaches the
// DOM as text nodes or attributes, never as markup.
(function () {
  "use strict";

  // The page's data (the JSON block, or what `olsdkLineage.update` was given last) and
  // what is derived from it; `load` replaces them all (see "Feeding the page live").
  const VERSION = 1;
  let DATA = null, NODES = [], EDGES = [];
  let NW = 250, NH = 46, WORLD_W = 1, WORLD_H = 1;
  const STATES = ["COMPLETE", "FAIL", "RUNNING", "ABORT", "OTHER"];
  const COLOR = {
    COMPLETE: "#2f9e44", FAIL: "#e03131", RUNNING: "#1c7ed6", ABORT: "#f59f00", OTHER: "#868e96", NONE: "#c3c8d0",
  };
  const LABEL = {
    COMPLETE: "Complete", FAIL: "Failed", RUNNING: "Running", ABORT: "Aborted", OTHER: "Other", NONE: "No runs",
  };
  const INK = "#1f2430", MUTED = "#69707d", UP = "#d9480f", DOWN = "#6741d9", FIELD = "#0c8599", MATCH = "#f59f00";
  const DATASET_FILL = "#e8f1fb", DATASET_EDGE = "#86a9d6", DATASET_ICON = "#4a78b5", DATASET_DOT = "#8fb1dc";
  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "DejaVu Sans", sans-serif';
  const $ = (id) => document.getElementById(id);

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "color") node.style.background = value; // only our own palette
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  // replaceChildren with the same flattening and null-skipping as el()
  function fill(node, ...children) {
    node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
      .map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
  }
  const stateOf = (node) => node.st || "NONE";
  const isJob = (node) => node.k === "j";
  const plural = (count, word) => `${count.toLocaleString("en")} ${word}${count === 1 ? "" : "s"}`;
  const when = (time) => (time ? time.replace("T", " ").replace(/\.\d+Z$/, " UTC") : "unknown time");
  const sum = (counts) => Object.values(counts || {}).reduce((a, b) => a + b, 0);

  // ---- graph structure ----------------------------------------------------------
  let outEdges = [], inEdges = [], GEO = [];
  // Column lineage, downstream direction: "dataset index \0 field" -> [[dataset, field]].
  let usedBy = new Map();

  function edgeGeometry(edge) {
    const s = NODES[edge[0]], t = NODES[edge[1]];
    const back = t.x <= s.x; // an edge against the flow (a cycle): drawn dashed, right to left
    const pts = [back ? s.x - NW / 2 : s.x + NW / 2, s.y];
    if (edge[2]) pts.push(...edge[2]);
    pts.push(back ? t.x + NW / 2 : t.x - NW / 2, t.y);
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < pts.length; i += 2) {
      x0 = Math.min(x0, pts[i]); x1 = Math.max(x1, pts[i]);
      y0 = Math.min(y0, pts[i + 1]); y1 = Math.max(y1, pts[i + 1]);
    }
    const bulge = back && pts.length === 4 ? 30 : 0;
    return { pts, back, bulge, x0, y0: y0, x1, y1: y1 + bulge };
  }

  function load(data) {
    DATA = data;
    NODES = data.nodes;
    EDGES = data.edges;
    NW = data.nodeSize[0];
    NH = data.nodeSize[1];
    WORLD_W = Math.max(data.size[0], NW);
    WORLD_H = Math.max(data.size[1], NH);
    outEdges = NODES.map(() => []);
    inEdges = NODES.map(() => []);
    EDGES.forEach((edge, i) => {
      outEdges[edge[0]].push(i);
      inEdges[edge[1]].push(i);
    });
    GEO = EDGES.map(edgeGeometry);
    usedBy = new Map();
    NODES.forEach((node, index) => {
      for (const row of node.cl || []) {
        if (row[1] < 0 || row[0] === null || row[4] === null) continue;
        const key = `${row[1]}\u0000${row[4]}`;
        if (!usedBy.has(key)) usedBy.set(key, []);
        usedBy.get(key).push([index, row[0]]);
      }
    });
    keyIndex = new Map(NODES.map((n, i) => [nodeKey(n), i]));
    haystack = NODES.map((n) => `${n.n}\u0000${n.ns}`.toLowerCase());
    minimapScale();
    minimapImage = null;
  }
  // a node's identity across updates: kind, namespace, name
  const nodeKey = (n) => `${n.k}\u0000${n.ns}\u0000${n.n}`;
  let keyIndex = new Map();
  let haystack = [];

  // ---- state -------------------------------------------------------------------
  const canvas = $("canvas");
  const ctx = canvas.getContext("2d");
  const minimap = $("minimap");
  const mctx = minimap.getContext("2d");
  const view = { s: 1, x: 0, y: 0 };
  let dpr = window.devicePixelRatio || 1;
  let cssW = 0, cssH = 0;
  let selected = -1;
  let selectedField = null;
  let lit = null; // {up, down, upEdges, downEdges}
  let fieldNodes = null; // datasets in the selected field's upstream
  let matches = null; // search matches
  let hovered = -1;
  let pending = false;
  let minimapImage = null;
  let fitted = true; // the view is the "Fit" one (an update keeps the whole graph in view)
  const graphApi = { version: VERSION, ready: false, renderedAt: null, frames: 0, labelsDrawn: [], nodeCount: 0, updates: 0 };
  window.olsdkLineage = graphApi; // the documented entry point (docs/graph.md, "Feeding the page live")
  window.olsdkGraph = graphApi; // the name the tests and the bench have always used

  function lineageOf(index) {
    const walk = (start, edgesOf, endOf) => {
      const nodes = new Set([start]), edges = new Set(), queue = [start];
      while (queue.length) {
        const v = queue.pop();
        for (const e of edgesOf[v]) {
          edges.add(e);
          const w = EDGES[e][endOf];
          if (!nodes.has(w)) { nodes.add(w); queue.push(w); }
        }
      }
      return [nodes, edges];
    };
    const [up, upEdges] = walk(index, inEdges, 0);
    const [down, downEdges] = walk(index, outEdges, 1);
    return { up, down, upEdges, downEdges };
  }

  // ---- drawing --------------------------------------------------------------------
  function request() {
    if (!pending) { pending = true; requestAnimationFrame(draw); }
  }

  function fitLabel(text, width, font, cacheKey, node) {
    if (node[cacheKey] !== undefined) return node[cacheKey];
    ctx.font = font;
    let label = text;
    if (ctx.measureText(text).width > width) {
      // keep the end: file and table names say the most there
      let lo = 0, hi = text.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ctx.measureText("\u2026" + text.slice(text.length - mid)).width <= width) lo = mid; else hi = mid - 1;
      }
      let tail = text.slice(text.length - lo);
      // start the kept end after a separator when there is one: "…/orders_export", not "…rs_export"
      const cut = tail.search(/[./:]/);
      if (cut >= 0 && cut < tail.length - 4) tail = tail.slice(cut + (tail[cut] === "/" ? 0 : 1));
      label = "\u2026" + tail;
    }
    node[cacheKey] = label;
    return label;
  }

  function roundRect(x, y, w, h, r) {
    ctx.beginPath();
    ctx.moveTo(x + r, y);
    ctx.arcTo(x + w, y, x + w, y + h, r);
    ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r);
    ctx.arcTo(x, y, x + w, y, r);
    ctx.closePath();
  }

  function tracePath(geo) {
    const p = geo.pts;
    ctx.moveTo(p[0], p[1]);
    for (let i = 2; i < p.length; i += 2) {
      const x0 = p[i - 2], y0 = p[i - 1], x1 = p[i], y1 = p[i + 1], dx = (x1 - x0) / 2;
      ctx.bezierCurveTo(x0 + dx, y0 + geo.bulge, x1 - dx, y1 + geo.bulge, x1, y1);
    }
  }

  function arrowHead(geo, size) {
    const p = geo.pts, x = p[p.length - 2], y = p[p.length - 1], d = geo.back ? -1 : 1;
    ctx.moveTo(x, y);
    ctx.lineTo(x - d * size, y - size * 0.55);
    ctx.lineTo(x - d * size, y + size * 0.55);
    ctx.closePath();
  }

  function strokeEdges(list, color, width, arrows) {
    if (!list.length) return;
    for (const dashed of [false, true]) {
      ctx.beginPath();
      let any = false;
      for (const i of list) {
        if (GEO[i].back === dashed) { tracePath(GEO[i]); any = true; }
      }
      if (!any) continue;
      ctx.setLineDash(dashed ? [6, 4] : []);
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.stroke();
    }
    ctx.setLineDash([]);
    if (arrows) {
      ctx.beginPath();
      for (const i of list) arrowHead(GEO[i], 8);
      ctx.fillStyle = color;
      ctx.fill();
    }
  }

  function draw() {
    pending = false;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#f6f7f9";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const s = view.s;
    ctx.setTransform(dpr * s, 0, 0, dpr * s, dpr * view.x, dpr * view.y);
    const vx0 = -view.x / s, vy0 = -view.y / s, vx1 = (cssW - view.x) / s, vy1 = (cssH - view.y) / s;
    const detailed = s * NH >= 15;
    const arrows = s >= 0.3;

    // edges: plain ones in one stroke, then the highlighted lineage on top
    const plain = [], upList = [], downList = [];
    for (let i = 0; i < GEO.length; i++) {
      const g = GEO[i];
      if (g.x1 < vx0 || g.x0 > vx1 || g.y1 < vy0 || g.y0 > vy1) continue;
      if (lit && lit.upEdges.has(i)) upList.push(i);
      else if (lit && lit.downEdges.has(i)) downList.push(i);
      else plain.push(i);
    }
    const hair = 1 / s;
    strokeEdges(plain, lit ? "#e4e7ec" : "#aab2bf", Math.max(1.3, hair), arrows);
    strokeEdges(upList, UP, Math.max(2.2, 1.6 * hair), arrows);
    strokeEdges(downList, DOWN, Math.max(2.2, 1.6 * hair), arrows);

    // nodes
    const labels = [];
    for (let i = 0; i < NODES.length; i++) {
      const n = NODES[i];
      const x = n.x - NW / 2, y = n.y - NH / 2;
      if (x > vx1 || x + NW < vx0 || y > vy1 || y + NH < vy0) continue;
      const related = !lit || lit.up.has(i) || lit.down.has(i);
      ctx.globalAlpha = related ? 1 : 0.22;
      const job = isJob(n);
      const stateColor = COLOR[stateOf(n)];
      if (!detailed) {
        ctx.fillStyle = job ? stateColor : DATASET_DOT;
        ctx.fillRect(x, y, NW, NH);
      } else {
        roundRect(x, y, NW, NH, 7);
        ctx.fillStyle = job ? "#ffffff" : DATASET_FILL;
        ctx.fill();
        ctx.lineWidth = 1.2;
        ctx.strokeStyle = job ? "#c9ced6" : DATASET_EDGE;
        ctx.stroke();
        if (job) {
          ctx.save();
          roundRect(x, y, NW, NH, 7);
          ctx.clip();
          ctx.fillStyle = stateColor;
          ctx.fillRect(x, y, 6, NH);
          ctx.restore();
          // a small gear-like mark: a ring in the state colour
          ctx.beginPath();
          ctx.arc(x + 20, n.y, 5.5, 0, Math.PI * 2);
          ctx.lineWidth = 3;
          ctx.strokeStyle = stateColor;
          ctx.stroke();
        } else {
          // a cylinder: the usual picture of stored data
          const cx = x + 19, top = n.y - 7, w = 6.5;
          ctx.beginPath();
          ctx.ellipse(cx, top, w, 2.6, 0, 0, Math.PI * 2);
          ctx.moveTo(cx - w, top);
          ctx.lineTo(cx - w, top + 13);
          ctx.ellipse(cx, top + 13, w, 2.6, 0, Math.PI, 0, true);
          ctx.lineTo(cx + w, top);
          ctx.lineWidth = 1.6;
          ctx.strokeStyle = DATASET_ICON;
          ctx.stroke();
        }
        const textX = x + 34, room = NW - 42;
        const small = `500 10.5px ${FONT}`, big = `600 12.5px ${FONT}`;
        ctx.fillStyle = MUTED;
        ctx.font = small;
        ctx.textBaseline = "middle";
        ctx.fillText(fitLabel((job ? "job \u00b7 " : "dataset \u00b7 ") + n.ns, room, small, "_l1", n), textX, n.y - 8);
        ctx.fillStyle = INK;
        ctx.font = big;
        ctx.fillText(fitLabel(n.n, room, big, "_l2", n), textX, n.y + 8);
        labels.push(n.n);
      }
      let ring = null;
      if (i === selected) ring = [INK, 2.6];
      else if (fieldNodes && fieldNodes.has(i)) ring = [FIELD, 2.6];
      else if (matches && matches.has(i)) ring = [MATCH, 2.6];
      else if (i === hovered) ring = ["#4c6ef5", 1.8];
      if (ring) {
        roundRect(x - 3, y - 3, NW + 6, NH + 6, 9);
        ctx.lineWidth = Math.max(ring[1], ring[1] / s);
        ctx.strokeStyle = ring[0];
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;
    drawMinimap();
    graphApi.frames += 1;
    graphApi.labelsDrawn = labels;
    graphApi.view = { s: view.s, x: view.x, y: view.y, detailed };
    if (!graphApi.ready) {
      graphApi.ready = true;
      graphApi.renderedAt = performance.now();
      document.documentElement.setAttribute("data-rendered", "true");
    }
  }

  // ---- minimap ---------------------------------------------------------------------
  const MW = 220, MH = 140;
  let mScale = 1, mOffX = 0, mOffY = 0;
  function minimapScale() {
    mScale = Math.min((MW - 12) / WORLD_W, (MH - 12) / WORLD_H);
    mOffX = (MW - WORLD_W * mScale) / 2;
    mOffY = (MH - WORLD_H * mScale) / 2;
  }

  function renderMinimapImage() {
    const image = document.createElement("canvas");
    image.width = MW * dpr;
    image.height = MH * dpr;
    const c = image.getContext("2d");
    c.scale(dpr, dpr);
    const w = Math.max(1.2, NW * mScale), h = Math.max(1.2, NH * mScale);
    for (const n of NODES) {
      c.fillStyle = isJob(n) ? COLOR[stateOf(n)] : DATASET_DOT;
      c.fillRect(mOffX + (n.x - NW / 2) * mScale, mOffY + (n.y - NH / 2) * mScale, w, h);
    }
    return image;
  }

  function drawMinimap() {
    mctx.setTransform(1, 0, 0, 1, 0, 0);
    mctx.clearRect(0, 0, minimap.width, minimap.height);
    if (!minimapImage) minimapImage = renderMinimapImage();
    mctx.drawImage(minimapImage, 0, 0);
    mctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const x0 = mOffX + (-view.x / view.s) * mScale, y0 = mOffY + (-view.y / view.s) * mScale;
    const w = (cssW / view.s) * mScale, h = (cssH / view.s) * mScale;
    mctx.fillStyle = "rgba(76,110,245,0.08)";
    mctx.fillRect(x0, y0, w, h);
    mctx.strokeStyle = "#4c6ef5";
    mctx.lineWidth = 1.2;
    mctx.strokeRect(x0, y0, w, h);
  }

  function minimapTo(event) {
    const rect = minimap.getBoundingClientRect();
    const wx = (event.clientX - rect.left - mOffX) / mScale, wy = (event.clientY - rect.top - mOffY) / mScale;
    view.x = cssW / 2 - wx * view.s;
    view.y = cssH / 2 - wy * view.s;
    fitted = false;
    request();
  }
  let minimapDrag = false;
  minimap.addEventListener("pointerdown", (e) => { minimapDrag = true; minimap.setPointerCapture(e.pointerId); minimapTo(e); });
  minimap.addEventListener("pointermove", (e) => { if (minimapDrag) minimapTo(e); });
  minimap.addEventListener("pointerup", () => { minimapDrag = false; });

  // ---- view ------------------------------------------------------------------------
  function resize() {
    dpr = window.devicePixelRatio || 1;
    const rect = canvas.getBoundingClientRect();
    cssW = Math.max(1, rect.width);
    cssH = Math.max(1, rect.height);
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    minimap.width = MW * dpr;
    minimap.height = MH * dpr;
    minimapImage = null;
    request();
  }

  function fit() {
    const pad = 40;
    const s = Math.min((cssW - 2 * pad) / WORLD_W, (cssH - 2 * pad) / WORLD_H, 1.15);
    view.s = Math.max(s, 0.005);
    view.x = (cssW - WORLD_W * view.s) / 2;
    view.y = (cssH - WORLD_H * view.s) / 2;
    fitted = true;
    request();
  }

  function zoomAt(factor, sx, sy) {
    const s = Math.min(4, Math.max(0.005, view.s * factor));
    view.x = sx - ((sx - view.x) * s) / view.s;
    view.y = sy - ((sy - view.y) * s) / view.s;
    view.s = s;
    fitted = false;
    request();
  }

  function centerOn(index) {
    const n = NODES[index];
    view.s = Math.max(view.s, 0.85);
    view.x = cssW / 2 - n.x * view.s;
    view.y = cssH / 2 - n.y * view.s;
    fitted = false;
    request();
  }

  function nodeAt(sx, sy) {
    const wx = (sx - view.x) / view.s, wy = (sy - view.y) / view.s;
    for (let i = NODES.length - 1; i >= 0; i--) {
      const n = NODES[i];
      if (Math.abs(wx - n.x) <= NW / 2 && Math.abs(wy - n.y) <= NH / 2) return i;
    }
    return -1;
  }

  // ---- pointer, wheel and keys -------------------------------------------------------------
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    drag = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y, moved: false };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    const rect = canvas.getBoundingClientRect();
    if (drag) {
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (drag.moved || Math.abs(dx) + Math.abs(dy) > 4) {
        drag.moved = true;
        canvas.classList.add("dragging");
        view.x = drag.vx + dx;
        view.y = drag.vy + dy;
        fitted = false;
        hideTooltip();
        request();
      }
      return;
    }
    const index = nodeAt(e.clientX - rect.left, e.clientY - rect.top);
    if (index !== hovered) {
      hovered = index;
      canvas.classList.toggle("pointing", index >= 0);
      request();
    }
    if (index >= 0) showTooltip(index, e.clientX - rect.left, e.clientY - rect.top); else hideTooltip();
  });
  canvas.addEventListener("pointerup", (e) => {
    canvas.classList.remove("dragging");
    if (drag && !drag.moved) {
      const rect = canvas.getBoundingClientRect();
      select(nodeAt(e.clientX - rect.left, e.clientY - rect.top), null, false);
    }
    drag = null;
  });
  canvas.addEventListener("pointerleave", () => { hovered = -1; hideTooltip(); request(); });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const rect = canvas.getBoundingClientRect();
    const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    zoomAt(Math.exp(-delta * 0.0015), e.clientX - rect.left, e.clientY - rect.top);
  }, { passive: false });
  canvas.addEventListener("dblclick", (e) => {
    const rect = canvas.getBoundingClientRect();
    const index = nodeAt(e.clientX - rect.left, e.clientY - rect.top);
    if (index >= 0) centerOn(index); else zoomAt(1.6, e.clientX - rect.left, e.clientY - rect.top);
  });
  $("zoom-in").addEventListener("click", () => zoomAt(1.4, cssW / 2, cssH / 2));
  $("zoom-out").addEventListener("click", () => zoomAt(1 / 1.4, cssW / 2, cssH / 2));
  $("zoom-fit").addEventListener("click", fit);
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement;
    if (e.key === "Escape") {
      if (typing) { search.value = ""; runSearch(); search.blur(); } else select(-1, null, false);
      return;
    }
    if (typing) return;
    if (e.key === "/") { e.preventDefault(); search.focus(); }
    else if (e.key === "+" || e.key === "=") zoomAt(1.4, cssW / 2, cssH / 2);
    else if (e.key === "-") zoomAt(1 / 1.4, cssW / 2, cssH / 2);
    else if (e.key === "0") fit();
  });
  window.addEventListener("resize", resize);

  const tooltip = $("tooltip");
  function showTooltip(index, sx, sy) {
    const n = NODES[index];
    fill(tooltip,
      el("div", { class: "ns" }, `${isJob(n) ? "job" : "dataset"} \u00b7 ${n.ns}`),
      el("div", null, n.n),
      isJob(n) ? el("div", { class: "ns" }, n.st ? `latest run: ${LABEL[n.st]}` : "no runs") : null,
    );
    tooltip.hidden = false;
    const left = Math.min(sx + 14, cssW - tooltip.offsetWidth - 8);
    tooltip.style.left = `${Math.max(4, left)}px`;
    tooltip.style.top = `${Math.min(sy + 16, cssH - tooltip.offsetHeight - 8)}px`;
  }
  function hideTooltip() { tooltip.hidden = true; }

  // ---- search --------------------------------------------------------------------------
  const search = $("search");
  const results = $("results");
  let resultIndexes = [];
  function runSearch() {
    const query = search.value.trim().toLowerCase();
    resultIndexes = [];
    matches = null;
    if (query) {
      matches = new Set();
      haystack.forEach((text, i) => { if (text.includes(query)) matches.add(i); });
      // names that start with the query first, then shorter names
      resultIndexes = [...matches].sort((a, b) => {
        const pa = NODES[a].n.toLowerCase().startsWith(query) ? 0 : 1, pb = NODES[b].n.toLowerCase().startsWith(query) ? 0 : 1;
        return pa - pb || NODES[a].n.length - NODES[b].n.length || a - b;
      }).slice(0, 50);
    }
    fill(results,
      ...resultIndexes.map((i, position) => el("li", {
        role: "option", class: position === 0 ? "active" : null,
        onmousedown: (e) => { e.preventDefault(); pick(i); },
      }, el("span", { class: "kind" }, isJob(NODES[i]) ? "job" : "dataset"), el("span", { class: "name" }, NODES[i].n),
        el("span", { class: "ns" }, NODES[i].ns))),
    );
    if (query && !resultIndexes.length) results.append(el("li", { class: "muted" }, "No job or dataset matches."));
    results.hidden = !query;
    request();
  }
  function pick(index) {
    results.hidden = true;
    select(index, null, true);
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", (e) => { if (e.key === "Enter" && resultIndexes.length) pick(resultIndexes[0]); });
  search.addEventListener("blur", () => { results.hidden = true; });
  search.addEventListener("focus", () => { if (search.value.trim()) results.hidden = false; });

  // ---- selection and the side panel ----------------------------------------------------------
  const panel = $("panel");

  function select(index, field, center) {
    selected = index;
    selectedField = field;
    lit = index >= 0 ? lineageOf(index) : null;
    fieldNodes = null;
    if (index >= 0 && field !== null) fieldNodes = new Set(upstreamTree(index, field).nodes);
    if (index < 0) showOverview();
    else if (isJob(NODES[index])) showJob(index);
    else showDataset(index);
    if (center && index >= 0) centerOn(index);
    request();
  }

  function nodeLink(index) {
    const n = NODES[index];
    return el("button", { class: "link", type: "button", title: `${n.ns} \u00b7 ${n.n}`, onclick: () => select(index, null, true) }, n.n);
  }

  function badge(state) {
    return el("span", { class: "badge", color: COLOR[state] }, LABEL[state]);
  }

  function neighbourList(title, indexes) {
    const unique = [...new Set(indexes)].sort((a, b) => NODES[a].n.localeCompare(NODES[b].n));
    return [
      el("h3", null, `${title} (${unique.length})`),
      unique.length ? el("ul", { class: "plain" }, unique.map((i) => el("li", null, nodeLink(i))))
        : el("div", { class: "muted" }, "none"),
    ];
  }

  function header(node) {
    return [
      el("div", { class: "kind" }, isJob(node) ? "Job" : "Dataset"),
      el("h2", null, node.n),
      el("dl", null, el("dt", null, "namespace"), el("dd", { class: "ns" }, node.ns)),
    ];
  }

  function showJob(index) {
    const n = NODES[index];
    const runs = n.runs || [];
    fill(panel,
      ...header(n),
      el("dl", null,
        el("dt", null, "latest run"), el("dd", null, n.st ? badge(n.st) : "no runs in these events"),
        el("dt", null, "runs"), el("dd", null, `${n.rt || 0}`,
          Object.entries(n.sc || {}).map(([state, count]) => el("span", { class: "muted" }, ` \u00b7 ${count} ${LABEL[state] || state}`)))),
      ...neighbourList("Reads", inEdges[index].map((e) => EDGES[e][0])),
      ...neighbourList("Writes", outEdges[index].map((e) => EDGES[e][1])),
      el("h3", null, runs.length < (n.rt || 0) ? `Runs (latest ${runs.length} of ${n.rt})` : `Runs (${runs.length})`),
      runs.length ? runs.map((run) => el("div", { class: "run" },
        el("div", { class: "head" }, el("span", { class: "dot", color: COLOR[run[1]] || COLOR.OTHER }),
          el("b", null, LABEL[run[1]] || run[1])),
        el("div", { class: "id", title: "run id" }, run[0]),
        el("div", { class: "times" }, `started ${when(run[2])} \u00b7 last event ${when(run[3])} \u00b7 ${plural(run[5], "event")}`),
        run[4] ? el("div", { class: "error", title: "error message" }, run[4]) : null,
      )) : el("div", { class: "muted" }, "This job appears in job events only."),
    );
    panel.scrollTop = 0;
  }

  function fieldsOf(node) {
    const fields = (node.f || []).map((f) => [f[0], f[1]]);
    const known = new Set(fields.map((f) => f[0]));
    for (const row of node.cl || []) {
      if (row[0] !== null && !known.has(row[0])) { known.add(row[0]); fields.push([row[0], ""]); }
    }
    return fields;
  }

  function upstreamTree(index, field) {
    const nodes = [];
    const seen = new Set();
    let budget = 300;
    const grow = (at, name, depth) => {
      const items = [];
      for (const row of NODES[at].cl || []) {
        if (row[0] !== name || budget <= 0) continue;
        budget -= 1;
        const key = `${row[1]}\u0000${row[4]}`;
        const child = { row, children: [] };
        if (row[1] >= 0) {
          nodes.push(row[1]);
          if (!seen.has(key) && depth < 10 && row[4] !== null) {
            seen.add(key);
            child.children = grow(row[1], row[4], depth + 1);
          }
        }
        items.push(child);
      }
      return items;
    };
    seen.add(`${index}\u0000${field}`);
    return { items: grow(index, field, 0), nodes };
  }

  function fieldRef(row) {
    // row: [field, upstream index, upstream namespace, upstream name, upstream field, transformation]
    const name = row[1] >= 0
      ? el("button", { class: "link", type: "button", title: `${row[2]} \u00b7 ${row[3]}`, onclick: () => select(row[1], row[4], true) }, row[3])
      : el("span", { title: row[2] }, row[3]);
    return [name, row[4] !== null ? el("b", null, ` .${row[4]}`) : null, row[5] ? el("span", { class: "tf" }, row[5]) : null];
  }

  function treeList(items) {
    return el("ul", { class: "tree" }, items.map((item) => el("li", null, fieldRef(item.row),
      item.children.length ? treeList(item.children) : null)));
  }

  function showDataset(index) {
    const n = NODES[index];
    const fields = fieldsOf(n);
    const inputsOf = new Map();
    for (const row of n.cl || []) if (row[0] !== null) inputsOf.set(row[0], (inputsOf.get(row[0]) || 0) + 1);
    const wholeDataset = (n.cl || []).filter((row) => row[0] === null);
    const fieldRows = fields.map(([name, type]) => {
      const chosen = name === selectedField;
      const row = el("div", {
        class: chosen ? "field selected" : "field", role: "button", tabindex: "0",
        onclick: () => select(index, chosen ? null : name, false),
        onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(index, chosen ? null : name, false); } },
      }, el("span", { class: "fname" }, name),
        inputsOf.has(name) ? el("span", { class: "fup", title: "input fields" }, `\u2190 ${inputsOf.get(name)}`) : null,
        el("span", { class: "ftype" }, type));
      if (!chosen) return row;
      const tree = upstreamTree(index, name);
      const users = usedBy.get(`${index}\u0000${name}`) || [];
      return [row, el("div", { style: null, class: "field-detail" },
        el("div", { class: "hint" },
          el("b", null, "Comes from"),
          tree.items.length ? treeList(tree.items) : el("div", { class: "muted" }, "no column lineage for this field"),
          users.length ? [el("b", null, "Used by"), el("ul", { class: "tree" }, users.map(([d, f]) => el("li", null,
            el("button", { class: "link", type: "button", onclick: () => select(d, f, true) }, NODES[d].n), el("b", null, ` .${f}`))))] : null,
        ))];
    });
    fill(panel,
      ...header(n),
      ...neighbourList("Written by", inEdges[index].map((e) => EDGES[e][0])),
      ...neighbourList("Read by", outEdges[index].map((e) => EDGES[e][1])),
      el("h3", null, `Fields (${fields.length})`),
      fields.length ? el("div", { class: "fields" }, fieldRows)
        : el("div", { class: "muted" }, "No schema or column lineage facet in these events."),
      fields.length && !(n.cl || []).length ? el("div", { class: "hint" }, "No column lineage (columnLineage facet) for this dataset.") : null,
      wholeDataset.length ? [el("h3", null, "Inputs affecting the whole dataset"),
        el("ul", { class: "tree" }, wholeDataset.map((row) => el("li", null, fieldRef(row))))] : null,
    );
    if (selectedField === null) panel.scrollTop = 0;
  }

  function countList(counts, limit, decorate) {
    const entries = Object.entries(counts || {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const shown = entries.slice(0, limit);
    return [
      el("div", { class: "counts" }, shown.map(([key, count]) => [
        el("span", { style: null }, decorate ? decorate(key) : key), el("span", { class: "n" }, count.toLocaleString("en"))])),
      entries.length > limit ? el("div", { class: "muted" }, `and ${entries.length - limit} more`) : null,
    ];
  }

  function showOverview() {
    const S = DATA.summary;
    const failing = NODES.map((n, i) => [n, i]).filter(([n]) => n.st === "FAIL").slice(0, 12);
    const unreadable = sum(S.unreadable);
    fill(panel,
      el("div", { class: "kind" }, "Overview"),
      el("h2", null, DATA.title),
      el("dl", null,
        el("dt", null, "events read"), el("dd", null, sum(S.events).toLocaleString("en"),
          Object.entries(S.events).map(([kind, count]) => el("span", { class: "muted" }, ` \u00b7 ${count} ${kind} event${count === 1 ? "" : "s"}`))),
        el("dt", null, "not readable"), el("dd", null, unreadable ? el("b", { style: null }, plural(unreadable, "event")) : "none"),
        el("dt", null, "generated"), el("dd", null, when(DATA.generated)),
        el("dt", null, "sources"), el("dd", null, DATA.sources.join(", ") || "\u2014")),
      el("h3", null, "Runs by state"),
      countList(S.runsByState, 10, (state) => el("span", null, el("span", { class: "dot", color: COLOR[state] || COLOR.OTHER }), ` ${LABEL[state] || state}`)),
      failing.length ? [el("h3", null, "Jobs whose latest run failed"), el("ul", { class: "plain" }, failing.map(([n, i]) => el("li", null,
        nodeLink(i), n.runs && n.runs[0] && n.runs[0][4] ? el("div", { class: "error" }, n.runs[0][4]) : null)))] : null,
      unreadable ? [el("h3", { id: "not-read" }, "Events not read"), countList(S.unreadable, 20)] : null,
      sum(S.notes) ? [el("h3", null, "Parts of events left out"), countList(S.notes, 20)] : null,
      el("h3", null, "Producers"), countList(S.producers, 10),
      el("h3", null, "Facets seen (events)"), countList(S.facetKeys, 30),
      el("div", { class: "hint" },
        "Click a job or dataset to see its runs, fields and column lineage; its upstream turns ",
        el("b", { style: null }, "orange"), " and its downstream ", el("b", null, "violet"), ". Drag to pan, scroll to zoom, ",
        el("kbd", null, "/"), " to search, ", el("kbd", null, "0"), " to fit, ", el("kbd", null, "Esc"), " to clear."),
    );
  }

  // ---- header and legend ---------------------------------------------------------------
  function renderChrome() {
    const S = DATA.summary;
    document.title = DATA.title;
    $("title").textContent = DATA.title;
    const sources = DATA.sources;
    const shortName = (source) => source.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || source;
    $("subtitle").textContent = `OpenLineage \u00b7 ${sources.length === 1 ? shortName(sources[0]) : plural(sources.length, "source")} \u00b7 ${when(DATA.generated)}`;
    $("subtitle").title = sources.join("\n");
    const jobs = NODES.filter(isJob).length;
    const unreadable = sum(S.unreadable);
    const chip = (count, word) => el("span", { class: "chip" }, el("b", null, count.toLocaleString("en")), ` ${word}`);
    fill($("stats"),
      chip(jobs, jobs === 1 ? "job" : "jobs"),
      chip(NODES.length - jobs, NODES.length - jobs === 1 ? "dataset" : "datasets"),
      chip(sum(S.runsByState), sum(S.runsByState) === 1 ? "run" : "runs"),
      (S.runsByState.FAIL || 0) ? el("span", { class: "chip" }, el("span", { class: "dot", color: COLOR.FAIL }), " ",
        el("b", null, S.runsByState.FAIL.toLocaleString("en")), " failed") : null,
      unreadable ? el("span", {
        class: "chip warn", id: "unreadable-chip", title: "events that could not be read",
        onclick: () => { select(-1, null, false); const target = $("not-read"); if (target) target.scrollIntoView(); },
      }, "\u26a0 ", el("b", null, unreadable.toLocaleString("en")), " unreadable") : null,
      chip(sum(S.events), "events"),
    );
    fill($("legend"),
      el("span", { class: "title" }, "Job: latest run"),
      [...STATES, "NONE"].map((state) => el("span", null, el("i", { class: "swatch", color: COLOR[state] }), LABEL[state])),
      el("span", { class: "title" }, "Selection"),
      el("span", null, el("i", { class: "swatch line", color: UP }), "upstream"),
      el("span", null, el("i", { class: "swatch line", color: DOWN }), "downstream"),
      el("span", null, el("i", { class: "swatch", color: DATASET_DOT }), "dataset"),
      el("span", null, el("i", { class: "swatch line", color: FIELD }), "field source"),
    );
  }

  // ---- updates ---------------------------------------------------------------------------
  // Replace the graph with new page data (same JSON shape as the embedded block), keeping
  // what the user is doing: the selected node and field (found again by kind, namespace
  // and name), the search, and the view (the selected node stays where it was on screen;
  // a view still at "Fit" fits the new graph).
  function update(data) {
    if (!data || typeof data !== "object" || data.v !== VERSION || !Array.isArray(data.nodes)) {
      throw new TypeError(`olsdkLineage.update: expected page data of version ${VERSION} (docs/graph.md, "Feeding the page live")`);
    }
    const before = selected >= 0 ? NODES[selected] : null;
    const at = before ? [view.x + before.x * view.s, view.y + before.y * view.s] : null;
    const keepField = selectedField;
    const scroll = panel.scrollTop;
    load(data);
    const index = before ? keyIndex.get(nodeKey(before)) ?? -1 : -1;
    start();
    if (fitted) fit();
    else if (index >= 0 && at) { view.x = at[0] - NODES[index].x * view.s; view.y = at[1] - NODES[index].y * view.s; }
    select(index, index >= 0 ? keepField : null, false);
    panel.scrollTop = scroll;
    if (search.value.trim()) runSearch(); else request();
    graphApi.updates += 1;
  }

  // What depends on the data but not on the user: header, legend, the empty-page notice.
  function start() {
    graphApi.nodeCount = NODES.length;
    renderChrome();
    $("empty").hidden = NODES.length > 0;
    const small = NODES.length <= 30; // a small graph fits the view: no overview map
    minimap.hidden = small;
    $("tools").classList.toggle("low", small);
  }

  graphApi.update = update;
  graphApi.data = () => DATA;
  graphApi.select = (index, field) => select(index, field === undefined ? null : field, true);
  graphApi.lineage = () => (lit ? { up: [...lit.up].map((i) => NODES[i].n), down: [...lit.down].map((i) => NODES[i].n) } : null);
  graphApi.find = (name) => NODES.findIndex((n) => n.n === name);
  graphApi.fit = fit;
  graphApi.draw = draw; // one synchronous frame (the bench times it)

  load(JSON.parse($("olsdk-data").textContent));
  start();
  showOverview();
  resize();
  fit();
})();
