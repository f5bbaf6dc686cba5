// olsdk lineage page: draws the graph laid out by olsdk (no layout work here), on a
// canvas so that thousands of nodes stay fluid; everything user-supplied reaches the
// DOM as text nodes or attributes, never as markup.
(function () {
  "use strict";

  // The page's data (the JSON block, or what `olsdkLineage.update` was given last) and
  // what is derived from it; `load` replaces them all (see "Feeding the page live").
  const VERSION = 2;
  let DATA = null, NODES = [], EDGES = [];
  let NW = 250, NH = 46, WORLD_W = 1, WORLD_H = 1;
  const STATES = ["COMPLETE", "FAIL", "RUNNING", "ABORT", "OTHER"];
  const COLOR = {
    COMPLETE: "#2f9e44", FAIL: "#e03131", RUNNING: "#1c7ed6", ABORT: "#f59f00", OTHER: "#868e96", NONE: "#c3c8d0",
  };
  const LABEL = {
    COMPLETE: "Complete", FAIL: "Failed", RUNNING: "Running", ABORT: "Aborted", OTHER: "Other", NONE: "No runs",
  };
  const PARENT_LINK = "#7c8594";
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
  // parent job -> child job links (the parent run facet), their geometry, and per node its links
  let PARENTS = [], PGEO = [], parentLinks = [], childLinks = [];
  // "parent job index \0 parent run id" -> [[child job index, run]]: the runs a run started
  let childRuns = null;
  // Column lineage, downstream direction: "dataset index \0 field" -> [[dataset, field]].
  let usedBy = null;

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
    PARENTS = data.parents || [];
    PGEO = PARENTS.map(edgeGeometry);
    parentLinks = NODES.map(() => []);
    childLinks = NODES.map(() => []);
    PARENTS.forEach((link, i) => {
      childLinks[link[0]].push(i);
      parentLinks[link[1]].push(i);
    });
    childRuns = usedBy = haystack = null; // made when first needed (the first frame does not wait for them)
    const degree = NODES.map((_, i) => inEdges[i].length + outEdges[i].length + parentLinks[i].length + childLinks[i].length);
    ORDER = NODES.map((_, i) => i).sort((a, b) => degree[b] - degree[a] || NODES[a].n.length - NODES[b].n.length || a - b);
    minimapScale();
    minimapImage = null;
  }
  // a node's identity across updates: kind, namespace, name
  const nodeKey = (n) => `${n.k}\u0000${n.ns}\u0000${n.n}`;
  let haystack = null; // "name \0 namespace", lower case, for search

  function grouped(rowsOf, keyOf, valueOf) {
    const map = new Map();
    NODES.forEach((node, index) => {
      for (const row of rowsOf(node)) {
        const key = keyOf(row);
        if (key === null) continue;
        if (!map.has(key)) map.set(key, []);
        map.get(key).push(valueOf(index, row));
      }
    });
    return map;
  }
  function runsStartedBy(key) {
    if (!childRuns) childRuns = grouped((n) => n.runs || [], (run) => (run.length < 8 ? null : `${run[6]}\u0000${run[7]}`), (i, run) => [i, run]);
    return childRuns.get(key) || [];
  }
  function fieldUsers(key) {
    if (!usedBy) {
      usedBy = grouped((n) => n.cl || [], (row) => (row[1] < 0 || row[0] === null || row[4] === null ? null : `${row[1]}\u0000${row[4]}`),
        (i, row) => [i, row[0]]);
    }
    return usedBy.get(key) || [];
  }

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
  let lit = null; // {up, down, upEdges, downEdges, family, familyLinks}
  let fieldNodes = null; // datasets in the selected field's upstream
  let matches = null; // search matches
  let hovered = -1;
  let pending = false;
  let minimapImage = null;
  let fitted = true; // the view is the "Fit" one (an update keeps the whole graph in view)
  const graphApi = { version: VERSION, ready: false, renderedAt: null, frames: 0, labelsDrawn: [], nodeCount: 0, updates: 0 };
  window.olsdkLineage = graphApi; // the documented entry point (docs/how-to/graph.md, "Feeding the page live")
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
    // a job's parent and child jobs are not its data lineage, but they are shown with it
    const familyLinks = new Set([...parentLinks[index], ...childLinks[index]]);
    const family = new Set([...familyLinks].flatMap((k) => [PARENTS[k][0], PARENTS[k][1]]));
    return { up, down, upEdges, downEdges, family, familyLinks };
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

  function strokeLinks(list, color, width, arrows) {
    if (!list.length) return;
    ctx.beginPath();
    for (const i of list) tracePath(PGEO[i]);
    ctx.setLineDash([width * 1.2, width * 2.6]);
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.stroke();
    ctx.setLineDash([]);
    if (arrows) {
      ctx.beginPath();
      for (const i of list) arrowHead(PGEO[i], 7);
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
    // parent run -> child job: dotted, dark when the selection is one of the two
    const links = [], litLinks = [];
    for (let i = 0; i < PGEO.length; i++) {
      const g = PGEO[i];
      if (g.x1 < vx0 || g.x0 > vx1 || g.y1 < vy0 || g.y0 > vy1) continue;
      (lit && lit.familyLinks.has(i) ? litLinks : links).push(i);
    }
    strokeLinks(links, lit ? "#dee2e6" : PARENT_LINK, Math.max(1.4, hair), arrows);
    strokeLinks(litLinks, INK, Math.max(2, 1.4 * hair), arrows);
    graphApi.parentsDrawn = links.length + litLinks.length;

    // nodes; zoomed out, plain boxes, one path per colour and fade (a fill per box cost most of a frame)
    const labels = [];
    const boxes = new Map();
    const rings = []; // drawn over the boxes
    for (let i = 0; i < NODES.length; i++) {
      const n = NODES[i];
      const x = n.x - NW / 2, y = n.y - NH / 2;
      if (x > vx1 || x + NW < vx0 || y > vy1 || y + NH < vy0) continue;
      const related = !lit || lit.up.has(i) || lit.down.has(i) || lit.family.has(i);
      ctx.globalAlpha = related ? 1 : 0.22;
      const job = isJob(n);
      const stateColor = COLOR[stateOf(n)];
      if (!detailed) {
        const bucket = `${job ? stateColor : DATASET_DOT}${related ? "" : " faded"}`;
        if (!boxes.has(bucket)) boxes.set(bucket, []);
        boxes.get(bucket).push(x, y);
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
          if (n.pb) { // events stored with spec problems: a warning corner
            ctx.beginPath();
            ctx.moveTo(x + NW - 16, y + 3);
            ctx.lineTo(x + NW - 3, y + 3);
            ctx.lineTo(x + NW - 3, y + 16);
            ctx.closePath();
            ctx.fillStyle = "#f08c00";
            ctx.fill();
          }
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
      if (ring) rings.push([x, y, ring, related]);
    }
    for (const [bucket, corners] of boxes) {
      ctx.globalAlpha = bucket.endsWith(" faded") ? 0.22 : 1;
      ctx.fillStyle = bucket.split(" ")[0];
      ctx.beginPath();
      for (let k = 0; k < corners.length; k += 2) ctx.rect(corners[k], corners[k + 1], NW, NH);
      ctx.fill();
    }
    for (const [x, y, ring, related] of rings) {
      ctx.globalAlpha = related ? 1 : 0.22;
      roundRect(x - 3, y - 3, NW + 6, NH + 6, 9);
      ctx.lineWidth = Math.max(ring[1], ring[1] / s);
      ctx.strokeStyle = ring[0];
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    const labelStart = performance.now();
    if (!detailed) placeLabels(labels);
    graphApi.labelMs = performance.now() - labelStart; // the bench reports it
    drawMinimap();
    graphApi.frames += 1;
    graphApi.labelsDrawn = labels;
    graphApi.view = { s: view.s, x: view.x, y: view.y, detailed };
    graphApi.labelPx = detailed ? Math.min(12.5 * view.s, 12.5) : LABEL_PX; // the size names are drawn at, on screen
    if (!graphApi.ready) {
      graphApi.ready = true;
      graphApi.renderedAt = performance.now();
      document.documentElement.setAttribute("data-rendered", "true");
      setTimeout(() => { // after the first frame is shown; the mark includes the outline's style and layout
        buildOutline();
        void tree.offsetHeight;
        graphApi.outlineAt = performance.now();
      }, 0);
    }
  }

  // ---- names at small zoom -----------------------------------------------------------------
  // Below the zoom where names fit in the boxes (as at "Fit" on a few dozen nodes), names are
  // drawn at a fixed, readable size on a pill edged in the node's colour: the selection, the
  // hovered node and search matches first, then the most connected nodes, each where it
  // covers no other name and no box big enough to see; a name too long for its place keeps
  // its end ("\u2026revenue_by_country"), and one with no place is left to the tooltip.
  const LABEL_PX = 11, LABEL_FONT = `600 ${LABEL_PX}px ${FONT}`, LABEL_H = 17, LABEL_PAD = 6, LABEL_MAX = 230;
  const LABEL_WIDTHS = [LABEL_MAX, 170, 130, 100, 76, 56];
  const CELL = 64;
  let ORDER = []; // node indexes, most connected first

  function placeLabels(labels) {
    const s = view.s;
    const cut = (graphApi.labelsCut = []);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const grid = new Map();
    const rects = [];
    const cells = (r, visit) => {
      const cx1 = Math.floor(r[2] / CELL), cy1 = Math.floor(r[3] / CELL);
      for (let cx = Math.floor(r[0] / CELL); cx <= cx1; cx++) {
        for (let cy = Math.floor(r[1] / CELL); cy <= cy1; cy++) if (visit(cx * 65536 + cy)) return true;
      }
      return false;
    };
    const add = (r) => {
      rects.push(r);
      const index = rects.length - 1;
      cells(r, (key) => { const list = grid.get(key); if (list) list.push(index); else grid.set(key, [index]); return false; });
    };
    const overlaps = (r) => cells(r, (key) => (grid.get(key) || []).some((k) => {
      const o = rects[k];
      return o[4] !== r[4] && o[0] < r[2] && r[0] < o[2] && o[1] < r[3] && r[1] < o[3];
    }));
    const inView = (n) => {
      const sx = view.x + n.x * s, sy = view.y + n.y * s;
      return sx >= 0 && sx <= cssW && sy >= 0 && sy <= cssH;
    };
    if (s * NH >= 5) { // boxes one can see stay visible: names go around them
      NODES.forEach((n, i) => {
        if (!inView(n)) return;
        const sx = view.x + n.x * s, sy = view.y + n.y * s;
        add([sx - (NW * s) / 2 - 2, sy - (NH * s) / 2 - 1, sx + (NW * s) / 2 + 2, sy + (NH * s) / 2 + 1, i]);
      });
    }
    for (const id of ["legend", "tools", "minimap"]) { // the overlays: names stay clear of them
      const box = $(id);
      if (box.hidden) continue;
      const b = box.getBoundingClientRect(), c = canvas.getBoundingClientRect();
      add([b.left - c.left, b.top - c.top, b.right - c.left, b.bottom - c.top, -1]);
    }
    const first = [];
    if (selected >= 0) first.push(selected);
    if (hovered >= 0) first.push(hovered);
    if (matches) first.push(...[...matches].slice(0, 200));
    ctx.font = LABEL_FONT;
    ctx.textBaseline = "middle";
    ctx.textAlign = "center";
    // where a name may go: on its node, else in rows above and below it (joined by a short line)
    const rise = (NH * s) / 2 + LABEL_H / 2 + 3, row = LABEL_H + 3;
    const rows = [0, -rise, rise];
    if (NODES.length <= 1000) for (let k = 1; k <= 8; k++) rows.push(-rise - k * row, rise + k * row);
    const dense = NODES.length > 1000; // fewer tries: a frame of 5,000 nodes stays fast
    const rooms = dense ? [LABEL_MAX, 110] : LABEL_WIDTHS;
    const seen = new Set();
    let tried = 0;
    const rectAt = (cx, cy, width, i) => [cx - width / 2 - LABEL_PAD, cy - LABEL_H / 2, cx + width / 2 + LABEL_PAD, cy + LABEL_H / 2, i];
    const free = (r) => r[0] >= 0 && r[2] <= cssW && r[1] >= 0 && r[3] <= cssH && !overlaps(r);
    for (const i of first.concat(ORDER)) {
      if (seen.has(i) || labels.length >= 400 || tried >= (dense ? 800 : 3000)) continue;
      seen.add(i);
      const n = NODES[i];
      if (!inView(n)) continue;
      tried += 1;
      const sx = view.x + n.x * s, sy = view.y + n.y * s;
      // a generous guess of the width first; the exact one (measureText) only for a name that has a place
      if (!dense && n._lw === undefined) { ctx.font = LABEL_FONT; n._lw = ctx.measureText(n.n).width; }
      const guess = n._lw !== undefined ? n._lw : n.n.length * 7.2;
      let placed = null;
      for (const room of rooms) {
        if (room !== rooms[0] && guess <= room) break; // a shorter room only cuts a name that did not fit
        const width = Math.min(guess, room);
        const shifts = rows.length > 3 ? [0, -width / 3, width / 3, (-2 * width) / 3, (2 * width) / 3] : [0];
        for (const dy of room === LABEL_MAX ? rows : rows.slice(0, 3)) {
          for (const dx of dy === 0 ? [0] : shifts) {
            if (!free(rectAt(sx + dx, sy + dy, width, i))) continue;
            if (n._lw === undefined) { ctx.font = LABEL_FONT; n._lw = ctx.measureText(n.n).width; }
            const exact = Math.min(n._lw, room), r = rectAt(sx + dx, sy + dy, exact, i);
            if (exact > width && !free(r)) continue;
            placed = [r, dx, dy, exact < n._lw ? fitLabel(n.n, exact, LABEL_FONT, `_p${room}`, n) : n.n];
            break;
          }
          if (placed) break;
        }
        if (placed) break;
      }
      if (!placed) continue;
      const [r, dx, dy, text] = placed;
      add(r);
      const related = !lit || lit.up.has(i) || lit.down.has(i) || lit.family.has(i);
      ctx.globalAlpha = related ? 1 : 0.35;
      const edge = i === selected ? INK : isJob(n) ? COLOR[stateOf(n)] : DATASET_EDGE;
      if (dy !== 0) { // a line from the name to its box
        ctx.beginPath();
        ctx.moveTo(sx + dx, dy < 0 ? r[3] : r[1]);
        ctx.lineTo(sx, sy + (dy < 0 ? -1 : 1) * (NH * s) / 2);
        ctx.lineWidth = 1;
        ctx.strokeStyle = edge;
        ctx.stroke();
      }
      roundRect(r[0], r[1], r[2] - r[0], r[3] - r[1], LABEL_H / 2);
      ctx.fillStyle = "rgba(255,255,255,0.94)";
      ctx.fill();
      ctx.lineWidth = i === selected ? 2.4 : 1.6;
      ctx.strokeStyle = edge;
      ctx.stroke();
      ctx.fillStyle = INK;
      ctx.font = LABEL_FONT;
      ctx.fillText(text, sx + dx, sy + dy + 0.5);
      labels.push(n.n);
      if (text !== n.n) cut.push(n.n);
    }
    ctx.globalAlpha = 1;
    ctx.textAlign = "start";
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
  // The header wraps onto more lines when its chips need them (an update can add one):
  // the canvas then changes size without the window doing so.
  if (typeof ResizeObserver === "function") new ResizeObserver(() => resize()).observe(canvas);

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
  // By name or namespace of a job or dataset, and by field name. The list under the box
  // (an ARIA combobox: arrows move, Enter goes) holds the best 50 nodes and 50 fields; the
  // outline keeps only what matches; the canvas rings it.
  const search = $("search");
  const results = $("results");
  let resultItems = []; // [node index, field name or null]
  let activeResult = -1;

  function rankByName(query, name) {
    return (name.toLowerCase().startsWith(query) ? 0 : 1) * 1e6 + name.length;
  }

  function runSearch() {
    const query = search.value.trim().toLowerCase();
    resultItems = [];
    matches = null;
    let fieldHits = null; // node index -> matching field names
    if (query) {
      matches = new Set();
      if (!haystack) haystack = NODES.map((n) => `${n.n}\u0000${n.ns}`.toLowerCase());
      haystack.forEach((text, i) => { if (text.includes(query)) matches.add(i); });
      const nodes = [...matches].sort((a, b) => rankByName(query, NODES[a].n) - rankByName(query, NODES[b].n) || a - b);
      fieldHits = new Map();
      const fields = [];
      NODES.forEach((node, i) => {
        if (isJob(node)) return;
        for (const [name] of fieldsOf(node)) {
          if (!name.toLowerCase().includes(query)) continue;
          fields.push([i, name]);
          if (!fieldHits.has(i)) fieldHits.set(i, []);
          fieldHits.get(i).push(name);
          matches.add(i);
        }
      });
      fields.sort((a, b) => rankByName(query, a[1]) - rankByName(query, b[1]) || a[0] - b[0]);
      resultItems = [...nodes.slice(0, 50).map((i) => [i, null]), ...fields.slice(0, 50)];
    }
    activeResult = resultItems.length ? 0 : -1;
    fill(results, resultItems.map(([i, field], position) => el("li", {
      id: `result-${position}`, role: "option", "aria-selected": position === activeResult ? "true" : "false",
      class: position === activeResult ? "active" : null,
      onmousedown: (e) => { e.preventDefault(); pick(position); },
    }, el("span", { class: "kind" }, field !== null ? "field" : isJob(NODES[i]) ? "job" : "dataset"),
      el("span", { class: "name" }, field !== null ? field : NODES[i].n),
      el("span", { class: "ns" }, field !== null ? NODES[i].n : NODES[i].ns))));
    if (query && !resultItems.length) {
      results.append(el("li", { role: "option", "aria-disabled": "true", class: "muted" }, "No job, dataset or field matches."));
    }
    showResults(Boolean(query));
    filterOutline(query ? matches : null, fieldHits);
    request();
  }

  function showResults(open) {
    results.hidden = !open;
    search.setAttribute("aria-expanded", String(open));
    if (open && activeResult >= 0) search.setAttribute("aria-activedescendant", `result-${activeResult}`);
    else search.removeAttribute("aria-activedescendant");
  }

  function moveActive(step) {
    if (!resultItems.length) return;
    const items = results.children;
    items[activeResult].classList.remove("active");
    items[activeResult].setAttribute("aria-selected", "false");
    activeResult = (activeResult + step + resultItems.length) % resultItems.length;
    items[activeResult].classList.add("active");
    items[activeResult].setAttribute("aria-selected", "true");
    items[activeResult].scrollIntoView({ block: "nearest" });
    showResults(true);
  }

  // A node: its details, the focus on their heading. A field: its column lineage, the focus on it.
  function pick(position) {
    const [index, field] = resultItems[position];
    showResults(false);
    select(index, field, true);
    focusPanel(field);
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); moveActive(e.key === "ArrowDown" ? 1 : -1); }
    else if (e.key === "Enter" && activeResult >= 0) { e.preventDefault(); pick(activeResult); }
  });
  search.addEventListener("blur", () => showResults(false));
  search.addEventListener("focus", () => { if (search.value.trim()) showResults(true); });

  // ---- the outline: every job and dataset as text, to read, find and reach by keyboard ----
  // An ARIA tree: "Jobs" and "Datasets", their namespaces, then each node (its name, and a
  // job's latest run state). One item is tabbable at a time (roving tabindex): arrows move,
  // Right and Left open and close, Home and End, typing jumps to a name, Enter selects the
  // node and moves the focus to its details (Esc there comes back). Built after the first
  // frame (5,000 nodes take tens of milliseconds), rebuilt on each update.
  const tree = $("tree");
  let rows = []; // document order: {el, ul, label, parent, node (-1: a group), open, key, filtered}
  let rowOfNode = [];
  let currentRow = -1;
  let selectedRow = -1;
  let outlineBuilt = false;
  const closedGroups = new Set(); // group keys, kept across updates
  let typed = "", typedAt = 0;

  const collate = new Intl.Collator("en", { numeric: true }).compare; // transform_9 before transform_10

  function groupRow(label, count, level, parent, key) {
    const li = document.createElement("li");
    li.setAttribute("role", "treeitem");
    li.setAttribute("aria-level", String(level));
    li.className = `group level${level}`;
    const id = `outline-g${rows.length}`;
    const head = document.createElement("span");
    head.className = "ohead";
    head.id = id;
    const name = document.createElement("span");
    name.className = "oname";
    name.textContent = label;
    const number = document.createElement("span");
    number.className = "ocount";
    number.textContent = count.toLocaleString("en");
    head.append(name, " ", number);
    li.setAttribute("aria-labelledby", id);
    const ul = document.createElement("ul");
    ul.setAttribute("role", "group");
    li.append(head, ul);
    const open = !closedGroups.has(key);
    li.setAttribute("aria-expanded", String(open));
    ul.hidden = !open;
    li.dataset.row = String(rows.length);
    rows.push({ el: li, ul, label: label.toLowerCase(), parent, node: -1, open, key, filtered: false });
    return rows[rows.length - 1];
  }

  function buildOutline() {
    const hadFocus = tree.contains(document.activeElement);
    const currentKey = currentRow >= 0 ? rows[currentRow].key : null;
    rows = [];
    rowOfNode = new Array(NODES.length).fill(-1);
    currentRow = selectedRow = -1;
    const top = document.createDocumentFragment();
    for (const [kind, title] of [["j", "Jobs"], ["d", "Datasets"]]) {
      const byNamespace = new Map();
      NODES.forEach((node, i) => {
        if (node.k !== kind) return;
        if (!byNamespace.has(node.ns)) byNamespace.set(node.ns, []);
        byNamespace.get(node.ns).push(i);
      });
      if (!byNamespace.size) continue;
      const kindRow = rows.length;
      const outer = groupRow(title, [...byNamespace.values()].reduce((a, l) => a + l.length, 0), 1, -1, kind);
      top.append(outer.el);
      for (const ns of [...byNamespace.keys()].sort(collate)) {
        const nsRow = rows.length;
        const group = groupRow(ns, byNamespace.get(ns).length, 2, kindRow, `${kind}\u0000${ns}`);
        group.ul.style.containIntrinsicBlockSize = `auto ${byNamespace.get(ns).length * 21}px`; // until it is first laid out
        outer.ul.append(group.el);
        const members = byNamespace.get(ns).sort((a, b) => collate(NODES[a].n, NODES[b].n));
        for (const i of members) {
          const node = NODES[i];
          const li = document.createElement("li");
          li.setAttribute("role", "treeitem");
          li.setAttribute("aria-level", "3");
          li.className = "leaf";
          li.dataset.row = String(rows.length);
          const name = document.createElement("span");
          name.className = "oname";
          name.textContent = node.n;
          li.append(name);
          if (kind === "j") {
            const state = document.createElement("span");
            state.className = `ostate ${stateOf(node)}`; // "Complete": a dot only, the word for screen readers
            const word = document.createElement("span");
            word.className = "oword";
            word.textContent = LABEL[stateOf(node)];
            state.append(word);
            li.append(" ", state);
            if (node.pb) li.append(el("span", { class: "oflag", title: "events stored with spec problems" }, `\u26a0 ${plural(node.pb, "event")} with spec problems`));
          }
          group.ul.append(li);
          rowOfNode[i] = rows.length;
          rows.push({ el: li, ul: null, label: node.n.toLowerCase(), parent: nsRow, node: i, open: false, key: nodeKey(node), filtered: false });
        }
      }
    }
    tree.replaceChildren(top);
    outlineBuilt = true;
    const again = currentKey === null ? -1 : rows.findIndex((r) => r.key === currentKey);
    setCurrent(again >= 0 ? again : rows.length ? 0 : -1, hadFocus);
    markSelected();
    if (search.value.trim()) runSearch();
    document.documentElement.setAttribute("data-outline", "ready");
  }

  function rowVisible(r) {
    for (let row = rows[r], first = true; ; row = rows[row.parent], first = false) {
      if (row.filtered || (!first && !row.open)) return false;
      if (row.parent < 0) return true;
    }
  }

  function step(from, direction) {
    for (let r = from + direction; r >= 0 && r < rows.length; r += direction) if (rowVisible(r)) return r;
    return from;
  }

  function setCurrent(r, focus) {
    if (currentRow >= 0 && rows[currentRow]) rows[currentRow].el.removeAttribute("tabindex");
    currentRow = r;
    if (r < 0) return;
    rows[r].el.tabIndex = 0;
    if (focus) {
      rows[r].el.focus({ preventScroll: true });
      rows[r].el.scrollIntoView({ block: "nearest" });
    }
  }

  function setOpen(r, open) {
    const row = rows[r];
    row.open = open;
    row.el.setAttribute("aria-expanded", String(open));
    row.ul.hidden = !open;
    if (open) closedGroups.delete(row.key); else closedGroups.add(row.key);
  }

  function markSelected() {
    if (selectedRow >= 0 && rows[selectedRow]) rows[selectedRow].el.removeAttribute("aria-selected");
    selectedRow = selected >= 0 && outlineBuilt ? rowOfNode[selected] : -1;
    if (selectedRow < 0) return;
    const row = rows[selectedRow];
    row.el.setAttribute("aria-selected", "true");
    for (let p = row.parent; p >= 0; p = rows[p].parent) if (!rows[p].open) setOpen(p, true);
    if (!tree.contains(document.activeElement)) setCurrent(selectedRow, false);
    if (!row.filtered && !$("outline").hidden) row.el.scrollIntoView({ block: "nearest" });
  }

  // Keep the rows of matching nodes (and their groups); a dataset that matched by a field says which.
  function filterOutline(matched, fieldHits) {
    if (!outlineBuilt) return;
    let shown = 0;
    const groupShown = new Array(rows.length).fill(false);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      if (row.node < 0) continue;
      const keep = matched === null || matched.has(row.node);
      row.filtered = !keep;
      row.el.hidden = !keep;
      let hint = row.el.querySelector(".ofield");
      const names = keep && fieldHits ? fieldHits.get(row.node) : null;
      if (names) {
        if (!hint) { hint = el("span", { class: "ofield" }); row.el.append(hint); }
        hint.textContent = ` field ${names.slice(0, 3).join(", ")}${names.length > 3 ? ", \u2026" : ""}`;
      } else if (hint) hint.remove();
      if (keep) {
        shown += 1;
        for (let p = row.parent; p >= 0; p = rows[p].parent) groupShown[p] = true;
      }
    }
    for (let r = 0; r < rows.length; r++) {
      if (rows[r].node >= 0) continue;
      rows[r].filtered = matched !== null && !groupShown[r];
      rows[r].el.hidden = rows[r].filtered;
    }
    const total = NODES.length.toLocaleString("en");
    $("outline-count").textContent = matched === null ? `${total} in all` : `${shown.toLocaleString("en")} of ${total} match`;
    if (currentRow >= 0 && !rowVisible(currentRow)) {
      const first = rows.findIndex((_, r) => rowVisible(r));
      setCurrent(first >= 0 ? first : 0, false);
    }
  }

  function typeAhead(char) {
    const now = performance.now();
    typed = now - typedAt < 800 ? typed + char.toLowerCase() : char.toLowerCase();
    typedAt = now;
    const from = typed.length > 1 ? currentRow : currentRow + 1;
    for (let k = 0; k < rows.length; k++) {
      const r = (from + k) % rows.length;
      if (rows[r].label.startsWith(typed) && rowVisible(r)) { setCurrent(r, true); return; }
    }
  }

  tree.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || currentRow < 0) return;
    const row = rows[currentRow];
    const group = row.node < 0;
    if (e.key === "ArrowDown") setCurrent(step(currentRow, 1), true);
    else if (e.key === "ArrowUp") setCurrent(step(currentRow, -1), true);
    else if (e.key === "Home") setCurrent(step(-1, 1), true);
    else if (e.key === "End") setCurrent(step(rows.length, -1), true);
    else if (e.key === "ArrowRight" && group) {
      if (!row.open) setOpen(currentRow, true); else setCurrent(step(currentRow, 1), true);
    } else if (e.key === "ArrowLeft") {
      if (group && row.open) setOpen(currentRow, false);
      else if (row.parent >= 0) setCurrent(row.parent, true);
    } else if (e.key === "Enter" || e.key === " ") {
      if (group) setOpen(currentRow, !row.open);
      else { select(row.node, null, true); focusPanel(null); }
    } else if (e.key.length === 1 && e.key !== "/" && e.key !== " ") typeAhead(e.key);
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  tree.addEventListener("click", (e) => {
    const li = e.target.closest("li[data-row]");
    if (!li) return;
    const r = Number(li.dataset.row);
    setCurrent(r, true);
    if (rows[r].node < 0) setOpen(r, !rows[r].open);
    else select(rows[r].node, null, true);
  });
  $("outline-toggle").addEventListener("click", () => {
    const outline = $("outline");
    outline.hidden = !outline.hidden;
    $("outline-toggle").setAttribute("aria-expanded", String(!outline.hidden));
    resize();
  });

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
    markSelected();
    request();
  }

  // After a change made from the keyboard: the focus goes to the field's button when there
  // is one, else to the details' heading (the element that had it was replaced).
  function focusPanel(field) {
    let target = null;
    if (field !== null) target = [...panel.querySelectorAll("button.field")].find((b) => b.dataset.field === field) || null;
    (target || panel.querySelector("h2")).focus();
  }
  panel.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || currentRow < 0 || $("outline").hidden) return;
    e.preventDefault();
    e.stopPropagation();
    setCurrent(currentRow, true); // back where the user came from, the selection kept
  });

  function goTo(index, field) {
    select(index, field, true);
    focusPanel(field);
  }

  function nodeLink(index) {
    const n = NODES[index];
    return el("button", { class: "link", type: "button", title: `${n.ns} \u00b7 ${n.n}`, onclick: () => goTo(index, null) }, n.n);
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
      el("h2", { tabindex: "-1" }, node.n),
      el("dl", null, el("dt", null, "namespace"), el("dd", { class: "ns" }, node.ns)),
    ];
  }

  // How long a run took, from its first to its latest event.
  function took(run) {
    const ms = Date.parse(run[3]) - Date.parse(run[2]);
    if (!run[2] || !run[3] || !(ms >= 0)) return "";
    if (ms < 1000) return `${ms} ms`;
    if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
    const minutes = Math.round(ms / 60000);
    return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  }

  const RUNS_SHOWN = 50; // rows shown at first; "Show all" shows the rest of the history
  let allRunsOf = -1; // the job whose whole history is shown

  function runItem(index, run) {
    const children = runsStartedBy(`${index}\u0000${run[0]}`);
    return el("li", { class: "run" },
      el("div", { class: "head" }, el("span", { class: "dot", color: COLOR[run[1]] || COLOR.OTHER }),
        el("b", null, LABEL[run[1]] || run[1]),
        el("span", { class: "times" }, `${when(run[2])}${took(run) ? ` \u00b7 took ${took(run)}` : ""} \u00b7 ${plural(run[5], "event")}`)),
      el("div", { class: "id", title: "run id" }, run[0]),
      run.length >= 8 ? el("div", { class: "rel" }, "parent run ", el("span", { class: "id" }, run[7]), " of ", nodeLink(run[6])) : null,
      children.length ? el("div", { class: "rel" }, `started ${plural(children.length, "run")}: `,
        children.map(([child, childRun], k) => [k ? ", " : "", nodeLink(child), ` (${(LABEL[childRun[1]] || childRun[1]).toLowerCase()})`])) : null,
      run[4] ? el("div", { class: "error", title: "error message" }, run[4]) : null,
    );
  }

  function runHistory(index) {
    const n = NODES[index];
    const runs = n.runs || [];
    if (!runs.length) return [el("h3", null, "Run history"), el("div", { class: "muted" }, "This job appears in job events only.")];
    const all = allRunsOf === index || runs.length <= RUNS_SHOWN;
    const shown = all ? runs : runs.slice(0, RUNS_SHOWN);
    return [
      el("h3", { id: "run-history" }, runs.length < (n.rt || 0) ? `Run history (latest ${runs.length.toLocaleString("en")} of ${n.rt.toLocaleString("en")})` : `Run history (${plural(runs.length, "run")})`),
      // oldest to latest, one mark a run: the pattern of failures at a glance (the list says the same)
      el("div", { class: "strip", "aria-hidden": "true" },
        runs.slice().reverse().map((run) => el("span", { color: COLOR[run[1]] || COLOR.OTHER, title: `${LABEL[run[1]] || run[1]} \u00b7 ${when(run[2])}` }))),
      el("ol", { class: "runs", "aria-labelledby": "run-history" }, shown.map((run) => runItem(index, run))),
      all ? null : el("button", { type: "button", class: "more", onclick: () => {
        allRunsOf = index;
        showJob(index);
        panel.querySelectorAll("ol.runs > li")[RUNS_SHOWN].querySelector(".id").scrollIntoView({ block: "nearest" });
      } }, `Show all ${runs.length.toLocaleString("en")} runs`),
    ];
  }

  function showJob(index) {
    const n = NODES[index];
    if (allRunsOf !== index) allRunsOf = -1;
    const parents = parentLinks[index].map((k) => PARENTS[k][0]), children = childLinks[index].map((k) => PARENTS[k][1]);
    const top = panel.scrollTop;
    fill(panel,
      ...header(n),
      el("dl", null,
        el("dt", null, "latest run"), el("dd", null, n.st ? badge(n.st) : "no runs in these events"),
        el("dt", null, "runs"), el("dd", null, `${n.rt || 0}`,
          Object.entries(n.sc || {}).map(([state, count]) => el("span", { class: "muted" }, ` \u00b7 ${count} ${LABEL[state] || state}`))),
        n.pb ? [el("dt", null, "spec problems"), el("dd", { class: "flag" }, `\u26a0 ${plural(n.pb, "event")} stored with problems`)] : null),
      parents.length ? neighbourList("Parent jobs", parents) : null,
      children.length ? neighbourList("Child jobs", children) : null,
      ...neighbourList("Reads", inEdges[index].map((e) => EDGES[e][0])),
      ...neighbourList("Writes", outEdges[index].map((e) => EDGES[e][1])),
      ...runHistory(index),
    );
    panel.scrollTop = allRunsOf === index ? top : 0;
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
      ? el("button", { class: "link", type: "button", title: `${row[2]} \u00b7 ${row[3]}`, onclick: () => goTo(row[1], row[4]) }, row[3])
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
    const fieldRows = fields.map(([name, type], position) => {
      const chosen = name === selectedField;
      const row = el("button", {
        type: "button", class: chosen ? "field selected" : "field", "aria-expanded": String(chosen),
        "aria-controls": chosen ? `field-detail-${position}` : null, "data-field": name,
        onclick: () => { select(index, chosen ? null : name, false); focusPanel(name); },
      }, el("span", { class: "fname" }, name),
        inputsOf.has(name) ? el("span", { class: "fup", title: "input fields" }, `\u2190 ${inputsOf.get(name)}`) : null,
        el("span", { class: "ftype" }, type));
      if (!chosen) return row;
      const tree = upstreamTree(index, name);
      const users = fieldUsers(`${index}\u0000${name}`);
      return [row, el("div", { class: "field-detail", id: `field-detail-${position}`, role: "region", "aria-label": `column lineage of ${name}` },
        el("div", { class: "hint" },
          el("b", null, "Comes from"),
          tree.items.length ? treeList(tree.items) : el("div", { class: "muted" }, "no column lineage for this field"),
          users.length ? [el("b", null, "Used by"), el("ul", { class: "tree" }, users.map(([d, f]) => el("li", null,
            el("button", { class: "link", type: "button", onclick: () => goTo(d, f) }, NODES[d].n), el("b", null, ` .${f}`))))] : null,
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

  // A server that validates what it stores (olsdk serve) says which rules events broke, by
  // producer, and flags each job with events stored with problems (`pb`).
  function specProblems(S) {
    const byProducer = Object.entries(S.specProblemsByProducer || {}).sort((a, b) => sum(b[1]) - sum(a[1]));
    const flagged = NODES.map((n, i) => [n, i]).filter(([n]) => n.pb).sort((a, b) => b[0].pb - a[0].pb).slice(0, 12);
    return [
      el("h3", { id: "spec-problems" }, "Stored with spec problems"),
      el("div", { class: "muted" }, "Events that break the OpenLineage spec but could be read, by rule:"),
      countList(S.specProblems, 20),
      byProducer.length ? [el("h4", null, "By producer"), byProducer.slice(0, 10).map(([producer, rules]) => [
        el("div", { class: "counts" }, el("b", null, producer), el("span", { class: "n" }, sum(rules).toLocaleString("en"))),
        el("div", { class: "nested" }, countList(rules, 10))])] : null,
      flagged.length ? [el("h4", null, "Jobs with such events"), el("ul", { class: "plain" }, flagged.map(([n, i]) => el("li", null,
        nodeLink(i), el("span", { class: "muted" }, ` \u00b7 ${plural(n.pb, "event")}`))))] : null,
    ];
  }

  function showOverview() {
    const S = DATA.summary;
    const failing = NODES.map((n, i) => [n, i]).filter(([n]) => n.st === "FAIL").slice(0, 12);
    const unreadable = sum(S.unreadable);
    fill(panel,
      el("div", { class: "kind" }, "Overview"),
      el("h2", { tabindex: "-1" }, DATA.title),
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
      sum(S.specProblems) ? specProblems(S) : null,
      sum(S.notes) ? [el("h3", null, "Parts of events left out"), countList(S.notes, 20)] : null,
      el("h3", null, "Producers"), countList(S.producers, 10),
      el("h3", null, "Facets seen (events)"), countList(S.facetKeys, 30),
      el("div", { class: "hint" },
        "Click a job or dataset, or pick it in the outline, to see its runs, fields and column lineage; its upstream turns ",
        el("b", { style: null }, "orange"), " and its downstream ", el("b", null, "violet"), ". Drag to pan, scroll to zoom, ",
        el("kbd", null, "/"), " to search jobs, datasets and fields (", el("kbd", null, "Tab"), " from there into the outline: arrows, ",
        el("kbd", null, "Enter"), "), ", el("kbd", null, "0"), " to fit, ", el("kbd", null, "Esc"), " to clear."),
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
      unreadable ? el("button", {
        type: "button", class: "chip warn", id: "unreadable-chip", title: "events that could not be read",
        onclick: () => { select(-1, null, false); const target = $("not-read"); if (target) target.scrollIntoView(); },
      }, "\u26a0 ", el("b", null, unreadable.toLocaleString("en")), " unreadable") : null,
      sum(S.specProblems) ? el("button", {
        type: "button", class: "chip warn", id: "spec-chip", title: "events stored with spec problems",
        onclick: () => { select(-1, null, false); const target = $("spec-problems"); if (target) target.scrollIntoView(); },
      }, "\u26a0 ", el("b", null, sum(S.specProblems).toLocaleString("en")), " spec problems") : null,
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
      PARENTS.length ? el("span", null, el("i", { class: "swatch dotted" }), "parent run \u2192 job") : null,
    );
  }

  // ---- updates ---------------------------------------------------------------------------
  // Replace the graph with new page data (same JSON shape as the embedded block), keeping
  // what the user is doing: the selected node and field (found again by kind, namespace
  // and name), the search, and the view (the selected node stays where it was on screen;
  // a view still at "Fit" fits the new graph).
  function update(data) {
    if (!data || typeof data !== "object" || data.v !== VERSION || !Array.isArray(data.nodes)) {
      throw new TypeError(`olsdkLineage.update: expected page data of version ${VERSION} (docs/how-to/graph.md, "Feeding the page live")`);
    }
    const before = selected >= 0 ? NODES[selected] : null;
    const at = before ? [view.x + before.x * view.s, view.y + before.y * view.s] : null;
    const keepField = selectedField;
    const scroll = panel.scrollTop;
    // focus in the details: on a field's button (its name), else on what is replaced (the heading)
    const panelFocus = panel.contains(document.activeElement) ? document.activeElement.dataset.field ?? null : undefined;
    load(data);
    const key = before ? nodeKey(before) : null;
    const index = key === null ? -1 : NODES.findIndex((n) => nodeKey(n) === key);
    start();
    if (fitted) fit();
    else if (index >= 0 && at) { view.x = at[0] - NODES[index].x * view.s; view.y = at[1] - NODES[index].y * view.s; }
    select(index, index >= 0 ? keepField : null, false);
    if (panelFocus !== undefined) focusPanel(index >= 0 ? panelFocus : null);
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
    if (outlineBuilt) buildOutline();
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
