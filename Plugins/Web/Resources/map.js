'use strict';
(() => {
// Everything is kept in Web Mercator "world" units ([0,1] across the map) in doubles, and drawn in
// "local" units relative to an origin near the data (pixels at zoom 20): the browser composes SVG
// transforms in float32, which would blur street-level detail if coordinates were absolute.
const C = 40075016.686, K = 268435456, MAXPTS = 5000, MAXLOG = 500, NS = 'http://www.w3.org/2000/svg';
const TOPICS = 'location.,obs.fix.,region.,visit.,beacon.,status.';
// In case the server names its SSE events: EventSource only hands named events to matching listeners.
const NAMED = ['location.update', 'location.significant', 'location.paused', 'location.resumed', 'location.status',
  'obs.fix', 'region.condition', 'region.enter', 'region.exit', 'region.state', 'region.dwell', 'visit.arrival',
  'visit.departure', 'beacon.enter', 'beacon.exit', 'beacon.state', 'beacon.range', 'status.plugin', 'status.drops'];
const COLORS = ['#d9480f', '#7048e8', '#0c8599', '#c2255c', '#5c940d', '#1864ab', '#e67700', '#862e9c'];
const WORD = {satisfied: 'inside', unsatisfied: 'outside', unknown: 'unknown'};
const BWORD = {satisfied: 'in range', unsatisfied: 'out of range', unknown: 'unknown'};

const $ = id => document.getElementById(id);
const svg = $('map'), gWorld = $('world'), gLayers = $('layers'), gTiles = $('tiles'), gFences = $('fences'),
  gTracks = $('tracks'), gAcc = $('accs'), gVisits = $('visits'), gPos = $('positions'), logEl = $('log');
const token = new URLSearchParams(location.search).get('token');
const api = p => token ? p + (p.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : p;
const clamp = (v, a, b) => Math.max(a, Math.min(b, v));
const num = v => typeof v === 'number' && isFinite(v);
const wx = lon => (lon + 180) / 360;
const wy = lat => { const s = Math.sin(clamp(lat, -85.0511, 85.0511) * Math.PI / 180); return 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI); };
const latOf = y => Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180 / Math.PI;
const mPerWorld = lat => C * Math.cos(lat * Math.PI / 180);
const ms = iso => { const t = Date.parse(iso); return isNaN(t) ? Date.now() : t; };
const hms = t => { const d = new Date(typeof t === 'number' ? t : Date.parse(t)); return isNaN(d) ? '--:--:--' : d.toISOString().slice(11, 19); };
const stamp = t => { const d = new Date(t); return isNaN(d) ? String(t) : d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC'; };
// The day once when both ends fall on it: 2010-08-05 14:23:59 – 16:23:49 UTC.
const span = (a, b) => { const x = stamp(a), y = stamp(b); return x.slice(0, 19) + ' – ' + (x.slice(0, 10) === y.slice(0, 10) ? y.slice(11) : y); };
const fmtM = m => !num(m) ? '' : m < 10 ? m.toFixed(1) + ' m' : m < 1000 ? Math.round(m) + ' m' : (m / 1000).toFixed(2) + ' km';
const fmtDur = s => !num(s) ? '' : s < 90 ? Math.round(s) + ' s' : s < 5400 ? Math.round(s / 60) + ' min' : (s / 3600).toFixed(1) + ' h';

function svgEl(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

let cfg = {title: 'Locus', tile_url: '', attribution: '', recording: null};
let O = null, Oprov = false;
const tiles = new Map();
// The tile layer may need an origin before any data exists; the first real datum replaces that
// guess so the precision lands where the data is.
function origin(x, y, real) {
  if (O && !(Oprov && real)) return;
  O = [x, y]; Oprov = !real;
  for (const t of tiles.values()) t.remove();
  tiles.clear();
}
const lx = x => ((x - O[0]) * K).toFixed(1), ly = y => ((y - O[1]) * K).toFixed(1);

const fences = new Map(), sources = new Map(), visits = new Map(), beacons = new Map();
const colors = new Map(), stdSeen = new Set(), lastLogT = new Map(), seen = new Set();
const view = {x: 0.5, y: 0.5, z: 2};
const dirty = {fences: new Set(), tracks: new Set(), visits: new Set(), data: false, lists: true, record: true};
let userMoved = false, fitted = false, wantFit = false, fitUntil = 0, streaming = false, selected = null, inv = 0, pending = false;

const colorOf = s => { if (!colors.has(s)) colors.set(s, COLORS[colors.size % COLORS.length]); return colors.get(s); };
const fkey = (m, r) => m + '/' + r;
const nameOf = f => (f.def && f.def.properties && f.def.properties.name) || (f.props && f.props.name) || '';
const label = (id, name) => name && name !== id ? `${id} (${name})` : id;

function schedule() {
  if (pending) return;
  pending = true;
  // rAF alone stalls in background tabs and some headless runs; the timeout guarantees a draw.
  requestAnimationFrame(frame);
  setTimeout(frame, 120);
}
function frame() { if (pending) render(); }

function dataChanged() {
  dirty.data = true;
  // The view follows the data only while the first burst (history replay) arrives.
  if (streaming && !fitUntil) fitUntil = performance.now() + 4000;
  schedule();
}

// ---- model updates ----

function addPoint(src, t, lat, lon, acc, std, speed) {
  if (!src || !num(lat) || !num(lon)) return false;
  if (std) stdSeen.add(src); else if (stdSeen.has(src)) return false;
  let s = sources.get(src);
  if (!s) { s = {name: src, pts: [], std: false}; sources.set(src, s); }
  // The raw feed's points would zigzag against the filtered track: the standard service replaces them.
  if (std && !s.std) { s.std = true; s.pts = []; }
  const x = wx(lon), y = wy(lat);
  origin(x, y, true);
  const p = {t, x, y, lat, acc, speed}, pts = s.pts;
  // The /state snapshot gives the newest fix first; the history replay then fills in older ones.
  let i = pts.length;
  while (i > 0 && pts[i - 1].t > t) i--;
  if (i > 0 && pts[i - 1].t === t) pts[i - 1] = p; else pts.splice(i, 0, p);
  if (pts.length > MAXPTS) pts.splice(0, pts.length - MAXPTS);
  dirty.tracks.add(s); dirty.lists = true;
  dataChanged();
  return true;
}

function getFence(m, r) {
  const k = fkey(m, r);
  let f = fences.get(k);
  if (!f) { f = {key: k, monitor: m, region: r, def: null, props: null, devs: new Map(), el: null, bb: null}; fences.set(k, f); }
  return f;
}
function setDef(f, def) {
  f.def = def;
  if (f.el) { f.el.remove(); f.el = null; }
  f.bb = null;
  dirty.fences.add(f); dirty.lists = dirty.record = true;
  if (def) dataChanged(); else schedule();
}
function removeFence(k) {
  const f = fences.get(k);
  if (!f) return;
  if (f.el) f.el.remove();
  fences.delete(k);
  if (selected === k) selected = null;
  dirty.lists = dirty.record = true;
  schedule();
}
function setDev(f, dev, state, last) {
  // A per-device fence is listed without a device until one is seen; that placeholder is not a device.
  if (dev) { const z = f.devs.get(''); if (z && !z.last) f.devs.delete(''); }
  f.devs.set(dev, {state: state || 'unknown', last});
  dirty.fences.add(f); dirty.lists = dirty.record = true;
  schedule();
}
function fenceState(f) {
  let st = 'unknown';
  for (const d of f.devs.values()) {
    if (d.state === 'satisfied') return 'satisfied';
    if (d.state === 'unsatisfied') st = 'unsatisfied';
  }
  return st;
}
function lastOf(f) {
  let last = null, dev = '';
  for (const [d, x] of f.devs) if (x.last && (!last || ms(x.last.time) > ms(last.time))) { last = x.last; dev = d; }
  return {last, dev};
}

function addVisit(p) {
  if (!p || !p.source || !num(p.lat) || !num(p.lon)) return;
  const k = p.source + '|' + p.arrival;
  let v = visits.get(k);
  if (!v) { v = {source: p.source, arrival: p.arrival, departure: null, el: null}; visits.set(k, v); }
  v.x = wx(p.lon); v.y = wy(p.lat);
  if (p.departure) v.departure = p.departure;
  origin(v.x, v.y, true);
  dirty.visits.add(v);
  dataChanged();
}

function getBeacon(m, b) {
  const k = m + '/' + b;
  let x = beacons.get(k);
  if (!x) { x = {monitor: m, beacon: b, state: 'unknown', props: null, range: null}; beacons.set(k, x); }
  dirty.lists = true; schedule();
  return x;
}

function applyState(st) {
  for (const r of st.regions || []) {
    if (!r || r.region == null) continue;
    const f = getFence(r.monitor || '', r.region);
    if (r.definition) setDef(f, r.definition);
    const ev = r.last_event || null;
    if (ev && ev.payload && ev.payload.properties && !f.props) f.props = ev.payload.properties;
    setDev(f, r.device || '', r.state || (ev && ev.payload && ev.payload.state), ev);
  }
  for (const r of st.beacons || []) {
    if (!r || r.beacon == null) continue;
    const b = getBeacon(r.monitor || '', r.beacon), ev = r.last_event;
    b.state = r.state || 'unknown';
    if (ev && ev.payload) {
      if (ev.payload.properties) b.props = ev.payload.properties;
      if (ev.type === 'beacon.range') b.range = ev.payload.beacons || [];
    }
  }
  for (const l of st.locations || []) {
    const p = (l && l.payload) || {};
    addPoint(l.source || p.source, ms(l.time), p.lat, p.lon, p.h_accuracy, !/^obs\.fix/.test(l.topic || ''), p.speed);
  }
  for (const v of st.visits || []) addVisit(v && v.payload);
}

// ---- events ----

function onEvent(msg) {
  let m;
  try { m = JSON.parse(msg.data); } catch (e) { return; }
  if (!m || typeof m !== 'object') return;
  setStatus(true);
  const env = m.envelope || {}, topic = m.topic || '', p = env.payload || {};
  const type = env.type || topic.split('.').slice(0, 2).join('.');
  const time = env.time || new Date().toISOString();
  // A reconnect (or a fresh EventSource after a hard failure) may replay history we already applied.
  const k = topic + '|' + env.producer + '|' + env.seq + '|' + time;
  if (seen.has(k)) return;
  seen.add(k);
  if (seen.size > 20000) seen.delete(seen.values().next().value);
  streaming = true;
  apply(type, topic, time, p, env);
}

function apply(type, topic, time, p, env) {
  const seg = topic.split('.'), last = seg[seg.length - 1];
  const ev = {topic, type, time, payload: p};
  let text = '';
  if (type === 'location.update' || type === 'obs.fix') {
    const src = p.source || last, std = type === 'location.update';
    if (!std && stdSeen.has(src)) return;
    addPoint(src, ms(time), p.lat, p.lon, p.h_accuracy, std, p.speed);
    // Fixes come every second; one log line per 10 s of event time per source is plenty.
    const t = ms(time), prev = lastLogT.get(src);
    if (prev != null && Math.abs(t - prev) < 10000) return;
    lastLogT.set(src, t);
    text = src + (num(p.h_accuracy) ? ` ±${fmtM(p.h_accuracy)}` : '') + (num(p.speed) ? ` ${p.speed.toFixed(1)} m/s` : '') +
      (num(p.lat) ? '' : ' (no fix)');
  } else if (type === 'region.condition') {
    const mon = p.monitor || env.producer || '', id = p.region || seg[2] || '';
    if (p.removed) removeFence(fkey(mon, id));
    else {
      const f = getFence(mon, id);
      setDef(f, {geometry: p.geometry, radius: p.radius, properties: p.properties, notify_on_entry: p.notify_on_entry,
        notify_on_exit: p.notify_on_exit, dwell: p.dwell, origin: p.origin});
      if (!f.devs.size) setDev(f, '', 'unknown', null);
    }
    text = `${p.removed ? 'removed' : 'defined'} ${label(id, p.properties && p.properties.name)}`;
  } else if (/^region\.(enter|exit|state|dwell)$/.test(type)) {
    const f = getFence(p.monitor || env.producer || '', p.region || seg[2] || '');
    if (p.properties) f.props = p.properties;
    setDev(f, p.device || '', p.state, ev);
    text = `${type.slice(7)} ${label(f.region, nameOf(f))}` + (type === 'region.state' ? ` → ${WORD[p.state] || p.state}` : '') +
      (type === 'region.dwell' && num(p.dwell) ? ` ${fmtDur(p.dwell)}` : '') + (p.device ? ` · ${p.device}` : '');
  } else if (type === 'visit.arrival' || type === 'visit.departure') {
    addVisit(p);
    text = `${type.slice(6)} ${p.source || ''}` + (num(p.duration) ? ` after ${fmtDur(p.duration)}` : '');
  } else if (type === 'beacon.range') {
    const b = getBeacon(p.monitor || env.producer || '', p.beacon || seg[2] || '');
    b.range = Array.isArray(p.beacons) ? p.beacons : [];
    if (p.properties) b.props = p.properties;
    const n = b.range[0];
    text = `${b.beacon}: ${b.range.length} heard` + (n ? `, nearest ${n.proximity} ${fmtM(n.distance)}` : '');
  } else if (/^beacon\./.test(type)) {
    const b = getBeacon(p.monitor || env.producer || '', p.beacon || seg[2] || '');
    if (p.state) b.state = p.state;
    if (p.properties) b.props = p.properties;
    if (type === 'beacon.exit') b.range = null;
    text = `${type.slice(7)} ${label(b.beacon, b.props && b.props.name)}` + (type === 'beacon.state' ? ` → ${BWORD[p.state] || p.state}` : '');
  } else if (type === 'status.drops') {
    text = `dropped ${num(p.dropped) ? p.dropped : JSON.stringify(p.dropped || '')}`;
  } else if (type === 'status.plugin') {
    text = `${p.plugin || last} ${p.state || ''}` + (p.reason ? `: ${p.reason}` : '');
  }
  log(type, last, time, text);
}

function log(type, seg, time, text) {
  const li = el('li', 'event');
  li.dataset.type = type;
  li.append(el('time', '', hms(time)), el('b', '', type), el('span', 'seg', seg));
  if (text) li.append(el('span', 'sum', text));
  logEl.insertBefore(li, logEl.firstChild);
  while (logEl.childElementCount > MAXLOG) logEl.lastElementChild.remove();
}

// `locus view` serves a finished recording: its stream is complete, not live.
function setStatus(live) {
  const s = $('status'), rec = cfg.recording, cls = !live ? 'down' : rec ? 'recording' : 'live';
  if (s.className === cls) return;
  s.className = cls;
  s.textContent = !live ? 'reconnecting…' : rec ? 'recording' + (rec.from ? ' ' + span(rec.from, rec.to) : '') : 'live';
}

function connect() {
  const es = new EventSource(api('/events?topics=' + TOPICS + '&history=1'));
  es.onopen = () => setStatus(true);
  es.onmessage = onEvent;
  for (const t of NAMED) es.addEventListener(t, onEvent);
  es.onerror = () => {
    setStatus(false);
    // CLOSED means the browser gave up (e.g. an HTTP error status); it retries by itself otherwise.
    if (es.readyState === 2) { es.close(); setTimeout(connect, 5000); }
  };
}

// ---- drawing ----

function mapSize() {
  const r = svg.getBoundingClientRect();
  return [r.width || 300, r.height || 300];
}

function buildFence(f) {
  const g = f.def.geometry || {}, c = g.coordinates;
  let e, bb;
  if (g.type === 'Point' && Array.isArray(c) && num(c[0]) && num(c[1])) {
    const x = wx(c[0]), y = wy(c[1]);
    origin(x, y, true);
    const rw = (num(f.def.radius) && f.def.radius > 0 ? f.def.radius : 5) / mPerWorld(c[1]);
    e = svgEl('circle', {cx: lx(x), cy: ly(y), r: (rw * K).toFixed(1)});
    bb = [x - rw, y - rw, x + rw, y + rw];
  } else if ((g.type === 'Polygon' || g.type === 'MultiPolygon') && Array.isArray(c)) {
    bb = [Infinity, Infinity, -Infinity, -Infinity];
    let d = '';
    for (const poly of g.type === 'Polygon' ? [c] : c) for (const ring of poly || []) {
      let first = true;
      for (const q of ring || []) {
        if (!q || !num(q[0]) || !num(q[1])) continue;
        const x = wx(q[0]), y = wy(q[1]);
        origin(x, y, true);
        bb = [Math.min(bb[0], x), Math.min(bb[1], y), Math.max(bb[2], x), Math.max(bb[3], y)];
        d += (first ? 'M' : 'L') + lx(x) + ' ' + ly(y);
        first = false;
      }
      if (!first) d += 'Z';
    }
    if (!d) return;
    e = svgEl('path', {d, 'fill-rule': 'evenodd'});
  } else return;
  e.setAttribute('class', 'fence');
  e.setAttribute('data-region', f.region);
  e.setAttribute('data-monitor', f.monitor);
  e.setAttribute('vector-effect', 'non-scaling-stroke');
  svgEl('title', {}, e);
  e._key = f.key;
  e._area = (bb[2] - bb[0]) * (bb[3] - bb[1]);
  // Smaller fences on top so a fence inside a bigger one stays tappable.
  let before = null;
  for (const o of gFences.children) if (o._area < e._area) { before = o; break; }
  gFences.insertBefore(e, before);
  f.el = e; f.bb = bb;
}

// A track is broken where the device cannot have gone straight from one point to the next:
// time went back or jumped by more than GAP_MS (a logger switched off, a receiver's clock
// glitch), or the step, less both points' accuracy, is faster than the device said it was
// going (twice the larger reported speed, plus SLACK m/s) or, without speeds, faster than
// sound. A looping replay starts each pass one tick after the last fix, so its event time goes
// on while the position goes back to the start: the demo's walker "moves" 4.6 km in 15 s at a
// reported 1 m/s. Points are kept in time order: points that came with an earlier time than
// the ones before them are drawn apart from those unless they fit in between.
const GAP_MS = 60000, SLACK = 50, MAX_SPEED = 340;
function joins(a, b) {
  const dt = b.t - a.t;
  if (!(dt >= 0 && dt <= GAP_MS)) return false;
  const m = Math.hypot(b.x - a.x, b.y - a.y) * mPerWorld((a.lat + b.lat) / 2) - (a.acc || 0) - (b.acc || 0);
  const said = [a.speed, b.speed].filter(num), limit = said.length ? 2 * Math.max(...said) + SLACK : MAX_SPEED;
  return m <= limit * Math.max(dt / 1000, 1);
}

function drawTrack(s) {
  if (!s.line) {
    const c = colorOf(s.name), a = {'data-source': s.name, 'vector-effect': 'non-scaling-stroke'};
    s.line = svgEl('path', Object.assign({class: 'track', stroke: c}, a), gTracks);
    s.acc = svgEl('circle', Object.assign({class: 'accuracy', fill: c, stroke: c, r: 0}, a), gAcc);
    s.dot = svgEl('circle', Object.assign({class: 'position', fill: c, r: 6 * inv}, a), gPos);
    svgEl('title', {}, s.dot).textContent = s.name;
  }
  const pts = s.pts;
  // A point alone between two breaks is drawn as a dot (a zero-length line with round caps).
  let d = '', prev = null, alone = false;
  for (const p of pts) {
    const join = prev && joins(prev, p);
    if (!join && alone) d += 'l0 0';
    d += (join ? 'L' : 'M') + lx(p.x) + ' ' + ly(p.y);
    alone = !join; prev = p;
  }
  if (alone) d += 'l0 0';
  s.line.setAttribute('d', d);
  const q = pts[pts.length - 1];
  if (!q) return;
  for (const c of [s.acc, s.dot]) { c.setAttribute('cx', lx(q.x)); c.setAttribute('cy', ly(q.y)); }
  s.acc.setAttribute('r', num(q.acc) && q.acc > 0 ? (q.acc / mPerWorld(q.lat) * K).toFixed(1) : 0);
}

function drawVisit(v) {
  if (!v.el) {
    v.el = svgEl('circle', {class: 'visit', 'data-source': v.source, fill: colorOf(v.source), r: 5 * inv,
      'vector-effect': 'non-scaling-stroke'}, gVisits);
    v.title = svgEl('title', {}, v.el);
  }
  v.el.setAttribute('cx', lx(v.x));
  v.el.setAttribute('cy', ly(v.y));
  v.el.classList.toggle('open', !v.departure);
  v.title.textContent = `${v.arrival} – ${v.departure || ''}`;
}

function fit(W, H) {
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (x, y) => { b[0] = Math.min(b[0], x); b[1] = Math.min(b[1], y); b[2] = Math.max(b[2], x); b[3] = Math.max(b[3], y); };
  for (const f of fences.values()) if (f.bb) { add(f.bb[0], f.bb[1]); add(f.bb[2], f.bb[3]); }
  for (const s of sources.values()) for (const p of s.pts) add(p.x, p.y);
  for (const v of visits.values()) add(v.x, v.y);
  if (!(b[0] <= b[2])) return;
  fitted = true;
  const aw = Math.max(W - Math.min(100, W * 0.15), 40), ah = Math.max(H - Math.min(80, H * 0.15), 40);
  const z = Math.log2(Math.min(aw / ((b[2] - b[0]) * 256), ah / ((b[3] - b[1]) * 256)));
  view.z = isFinite(z) ? clamp(z, 2, 18) : 17;
  view.x = (b[0] + b[2]) / 2; view.y = (b[1] + b[3]) / 2;
}

function applyView(W, H) {
  view.x = clamp(view.x, -0.5, 1.5); view.y = clamp(view.y, 0, 1);
  const P = 256 * 2 ** view.z, s = P / K;
  if (!O && cfg.tile_url) origin(view.x, view.y, false);
  if (O) {
    const t = `matrix(${s} 0 0 ${s} ${((O[0] - view.x) * P + W / 2).toFixed(2)} ${((O[1] - view.y) * P + H / 2).toFixed(2)})`;
    gWorld.setAttribute('transform', t);
    gLayers.setAttribute('transform', t);
  }
  // Dots keep their size on screen while the layer under them scales.
  if (K / P !== inv) {
    inv = K / P;
    for (const c of gPos.children) c.setAttribute('r', 6 * inv);
    for (const c of gVisits.children) c.setAttribute('r', 5 * inv);
  }
  drawTiles(W, H, P);
  drawGrid(W, H, P);
  drawScale(P);
}

function drawTiles(W, H, P) {
  if (!cfg.tile_url || !O) return;
  const z = clamp(Math.round(view.z), 0, 19), n = 2 ** z;
  const x0 = Math.floor((view.x - W / 2 / P) * n), x1 = Math.floor((view.x + W / 2 / P) * n);
  const y0 = Math.max(0, Math.floor((view.y - H / 2 / P) * n)), y1 = Math.min(n - 1, Math.floor((view.y + H / 2 / P) * n));
  const want = new Set();
  if ((x1 - x0 + 1) * (y1 - y0 + 1) <= 200) {
    // Half a pixel of overlap hides the hairline seams between scaled images.
    const size = (K / n + 0.5 * K / P).toFixed(1);
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) {
      const k = z + '/' + x + '/' + y;
      want.add(k);
      if (tiles.has(k)) continue;
      const xx = ((x % n) + n) % n;
      const url = cfg.tile_url.replace('{z}', z).replace('{x}', xx).replace('{y}', y)
        .replace('{s}', 'abc'[(xx + y) % 3]).replace('{r}', '');
      const img = svgEl('image', {x: lx(x / n), y: ly(y / n), width: size, height: size, preserveAspectRatio: 'none', href: url}, gTiles);
      img.addEventListener('error', () => img.setAttribute('visibility', 'hidden'));
      tiles.set(k, img);
    }
  }
  for (const [k, img] of tiles) if (!want.has(k)) { img.remove(); tiles.delete(k); }
}

function drawGrid(W, H, P) {
  const g = $('grid');
  if (cfg.tile_url) { g.setAttribute('d', ''); return; }
  const step = 2 ** -Math.floor(Math.log2(P / 90));
  const x0 = view.x - W / 2 / P, y0 = view.y - H / 2 / P;
  let d = '';
  for (let x = Math.ceil(x0 / step) * step; x < x0 + W / P; x += step) d += `M${((x - x0) * P).toFixed(1)} 0V${H}`;
  for (let y = Math.ceil(y0 / step) * step; y < y0 + H / P; y += step) d += `M0 ${((y - y0) * P).toFixed(1)}H${W}`;
  g.setAttribute('d', d);
}

function drawScale(P) {
  const mpp = mPerWorld(latOf(view.y)) / P, max = mpp * 120;
  const pow = 10 ** Math.floor(Math.log10(max)), f = max / pow, m = +((f >= 5 ? 5 : f >= 2 ? 2 : 1) * pow).toPrecision(1);
  const sc = $('scale');
  sc.style.width = (m / mpp).toFixed(0) + 'px';
  sc.firstChild.textContent = m >= 1000 ? m / 1000 + ' km' : m + ' m';
}

function render() {
  pending = false;
  const [W, H] = mapSize();
  for (const f of dirty.fences) {
    if (fences.get(f.key) !== f) continue;
    if (!f.el && f.def) buildFence(f);
    if (!f.el) continue;
    const st = fenceState(f);
    f.el.setAttribute('data-state', st);
    f.el.classList.toggle('selected', selected === f.key);
    f.el.firstChild.textContent = `${label(f.region, nameOf(f))}: ${WORD[st]}`;
  }
  dirty.fences.clear();
  for (const s of dirty.tracks) drawTrack(s);
  dirty.tracks.clear();
  for (const v of dirty.visits) drawVisit(v);
  dirty.visits.clear();
  if (wantFit || (dirty.data && !userMoved && performance.now() < fitUntil)) fit(W, H);
  wantFit = dirty.data = false;
  applyView(W, H);
  if (dirty.lists) { dirty.lists = false; drawLists(); }
  if (dirty.record) { dirty.record = false; drawRecord(); }
}

function pill(state, words) {
  return el('span', 'pill ' + (state || 'unknown'), (words || WORD)[state] || state || 'unknown');
}

function drawLists() {
  const su = $('sources');
  su.textContent = '';
  for (const s of sources.values()) {
    const q = s.pts[s.pts.length - 1], li = el('li', 'src');
    li.dataset.source = s.name;
    const sw = el('span', 'sw');
    sw.style.background = colorOf(s.name);
    li.append(sw, el('b', '', s.name), el('span', 'muted', q ? ` ${hms(q.t)}` + (num(q.acc) ? ` ±${fmtM(q.acc)}` : '') : ''));
    su.append(li);
  }
  $('nosources').hidden = sources.size > 0;

  const ru = $('regions');
  ru.textContent = '';
  const fs = [...fences.values()].sort((a, b) => (a.monitor + a.region).localeCompare(b.monitor + b.region));
  for (const f of fs) {
    const st = fenceState(f), li = el('li', 'region' + (selected === f.key ? ' selected' : ''));
    li.dataset.region = f.region; li.dataset.monitor = f.monitor; li.dataset.state = st;
    li.tabIndex = 0;
    li.append(el('span', 'sw ' + st), el('span', 'nm', label(f.region, nameOf(f))), pill(st));
    if (!f.def) li.append(el('span', 'muted', ' no shape'));
    li.onclick = () => { select(f.key); if (f.bb) { view.x = (f.bb[0] + f.bb[2]) / 2; view.y = (f.bb[1] + f.bb[3]) / 2; moved(); } };
    li.onkeydown = e => { if (e.key === 'Enter') li.onclick(); };
    ru.append(li);
  }
  $('noregions').hidden = fences.size > 0;

  const bu = $('beacons');
  bu.textContent = '';
  const bs = [...beacons.values()].sort((a, b) => (a.monitor + a.beacon).localeCompare(b.monitor + b.beacon));
  for (const b of bs) {
    const li = el('li', 'beacon');
    li.dataset.beacon = b.beacon; li.dataset.monitor = b.monitor; li.dataset.state = b.state;
    const head = el('div', 'row');
    head.append(el('b', 'nm', label(b.beacon, b.props && b.props.name)), pill(b.state, BWORD));
    li.append(head);
    if (b.range) {
      const ul = el('ul', 'ranges');
      if (!b.range.length) ul.append(el('li', 'muted', 'none heard lately'));
      for (const e of b.range) {
        const r = el('li');
        const id = beaconId(e);
        r.title = id.full;
        r.append(el('span', 'prox ' + (e.proximity || 'unknown'), e.proximity || 'unknown'), el('span', 'dist', fmtM(e.distance)),
          el('span', 'bid', id.short), el('span', 'muted', num(e.rssi) ? ` ${e.rssi} dBm` : ''));
        ul.append(r);
      }
      li.append(ul);
    }
    bu.append(li);
  }
  $('nobeacons').hidden = beacons.size > 0;
}

function beaconId(e) {
  if (e.uuid) return {short: `${e.uuid.slice(0, 8)}… ${e.major}/${e.minor}`, full: `${e.uuid} ${e.major}/${e.minor}`};
  if (e.beacon_id) return {short: e.beacon_id.slice(0, 10) + '…', full: e.beacon_id};
  if (e.namespace) return {short: `${e.namespace.slice(0, 6)}…/${e.instance}`, full: `${e.namespace}/${e.instance}`};
  const a = e.address || e.format || '?';
  return {short: a, full: a};
}

function drawRecord() {
  const box = $('record'), f = selected && fences.get(selected);
  box.textContent = '';
  if (!f) { box.hidden = true; return; }
  box.hidden = false;
  const close = el('button', 'close', '×');
  close.type = 'button';
  close.setAttribute('aria-label', 'Close');
  close.onclick = () => select(null);
  const st = fenceState(f), {last, dev} = lastOf(f), p = (last && last.payload) || {}, d = f.def;
  box.append(close, el('h3', '', nameOf(f) || f.region));
  const dl = el('dl');
  const row = (k, v) => { if (v != null && v !== '') dl.append(el('dt', '', k), el('dd', '', String(v))); };
  row('id', f.region);
  row('name', nameOf(f));
  row('monitor', f.monitor);
  row('state', `${WORD[st]} (${st})`);
  if (last) row('last event', `${last.type} at ${stamp(last.time)}` + (dev ? ` · ${dev}` : ''));
  if (num(p.confidence)) row('confidence', (p.confidence * 100).toFixed(p.confidence > 0.99 && p.confidence < 1 ? 2 : 0) + ' %');
  if (num(p.distance)) row('to boundary', `${fmtM(Math.abs(p.distance))} ${p.distance >= 0 ? 'inside' : 'outside'}`);
  if (d) {
    const g = d.geometry || {};
    row('shape', g.type === 'Point' ? `circle, r ${fmtM(d.radius)}` : (g.type || '?').toLowerCase());
    if (num(d.dwell)) row('dwell', fmtDur(d.dwell));
    row('notify', [d.notify_on_entry !== false && 'entry', d.notify_on_exit !== false && 'exit'].filter(Boolean).join(', ') || 'none');
    row('origin', d.origin);
  } else row('shape', 'unknown (not drawn)');
  box.append(dl);
  const devs = [...f.devs.entries()].filter(([k]) => k);
  if (devs.length) {
    box.append(el('h4', '', 'Devices'));
    const ul = el('ul', 'devs');
    for (const [k, x] of devs.sort((a, b) => a[0].localeCompare(b[0]))) {
      const li = el('li'), q = (x.last && x.last.payload) || {};
      li.append(el('b', '', k), pill(x.state),
        el('span', 'muted', (x.last ? ` ${x.last.type.replace('region.', '')} ${hms(x.last.time)}` : '') +
          (num(q.distance) ? ` · ${fmtM(Math.abs(q.distance))} ${q.distance >= 0 ? 'in' : 'out'}` : '')));
      ul.append(li);
    }
    box.append(ul);
  }
}

function select(k) {
  const old = selected && fences.get(selected);
  selected = k;
  if (old) dirty.fences.add(old);
  if (k && fences.get(k)) dirty.fences.add(fences.get(k));
  dirty.lists = dirty.record = true;
  schedule();
}

// ---- interaction ----

function moved() { userMoved = true; schedule(); }
function zoomAt(px, py, z) {
  const [W, H] = mapSize();
  z = clamp(z, 1, 21);
  const P0 = 256 * 2 ** view.z, P1 = 256 * 2 ** z;
  view.x += (px - W / 2) / P0 - (px - W / 2) / P1;
  view.y += (py - H / 2) / P0 - (py - H / 2) / P1;
  view.z = z;
  moved();
}
function zoomCenter(dz) { const [W, H] = mapSize(); zoomAt(W / 2, H / 2, view.z + dz); }

const ptrs = new Map();
let tapAt = null;
svg.addEventListener('pointerdown', e => {
  if (e.button > 0) return;
  try { svg.setPointerCapture(e.pointerId); } catch (err) { /* already released */ }
  ptrs.set(e.pointerId, [e.clientX, e.clientY]);
  tapAt = ptrs.size === 1 ? {x: e.clientX, y: e.clientY, target: e.target} : null;
});
svg.addEventListener('pointermove', e => {
  const p = ptrs.get(e.pointerId);
  if (!p) return;
  const q = [e.clientX, e.clientY];
  if (ptrs.size === 1) {
    // Finger jitter during a tap must not count as a pan (or it would swallow the fence tap).
    if (tapAt && Math.hypot(q[0] - tapAt.x, q[1] - tapAt.y) < 6) return;
    tapAt = null;
    const P = 256 * 2 ** view.z;
    view.x -= (q[0] - p[0]) / P; view.y -= (q[1] - p[1]) / P;
    ptrs.set(e.pointerId, q);
    moved();
  } else if (ptrs.size === 2) {
    const a = [...ptrs.values()];
    ptrs.set(e.pointerId, q);
    const b = [...ptrs.values()];
    const mid = v => [(v[0][0] + v[1][0]) / 2, (v[0][1] + v[1][1]) / 2];
    const dist = v => Math.hypot(v[0][0] - v[1][0], v[0][1] - v[1][1]);
    const m0 = mid(a), m1 = mid(b), r = svg.getBoundingClientRect();
    if (dist(a) > 0) zoomAt(m0[0] - r.left, m0[1] - r.top, view.z + Math.log2(dist(b) / dist(a)));
    const P = 256 * 2 ** view.z;
    view.x -= (m1[0] - m0[0]) / P; view.y -= (m1[1] - m0[1]) / P;
    moved();
  }
});
const endPtr = e => {
  if (!ptrs.delete(e.pointerId)) return;
  if (e.type === 'pointerup' && tapAt && !ptrs.size) {
    const t = tapAt.target, f = t && t.closest && t.closest('.fence');
    select(f ? f._key : null);
  }
  if (!ptrs.size) tapAt = null;
};
svg.addEventListener('pointerup', endPtr);
svg.addEventListener('pointercancel', endPtr);
svg.addEventListener('wheel', e => {
  e.preventDefault();
  const r = svg.getBoundingClientRect();
  const d = e.deltaY * (e.deltaMode === 1 ? 0.05 : e.deltaMode === 2 ? 1 : 0.002);
  zoomAt(e.clientX - r.left, e.clientY - r.top, view.z - clamp(d, -1, 1));
}, {passive: false});
svg.addEventListener('dblclick', e => {
  const r = svg.getBoundingClientRect();
  zoomAt(e.clientX - r.left, e.clientY - r.top, view.z + 1);
});
svg.addEventListener('keydown', e => {
  const P = 256 * 2 ** view.z, step = 80 / P;
  const k = {'+': () => zoomCenter(1), '=': () => zoomCenter(1), '-': () => zoomCenter(-1),
    ArrowLeft: () => { view.x -= step; moved(); }, ArrowRight: () => { view.x += step; moved(); },
    ArrowUp: () => { view.y -= step; moved(); }, ArrowDown: () => { view.y += step; moved(); },
    Escape: () => select(null)}[e.key];
  if (k) { e.preventDefault(); k(); }
});
$('zin').onclick = () => zoomCenter(1);
$('zout').onclick = () => zoomCenter(-1);
$('zfit').onclick = () => { wantFit = true; schedule(); };
// Until the user takes over, a resize (phone rotation, sidebar reflow) refits rather than crops.
const resized = () => { if (!userMoved && fitted) wantFit = true; schedule(); };
new ResizeObserver(resized).observe($('mapwrap'));

// ---- start ----

async function getJSON(path) {
  const r = await fetch(api(path), {cache: 'no-store'});
  if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
  return r.json();
}

async function start() {
  const [W] = mapSize();
  view.z = clamp(Math.log2(W / 256), 1, 4);
  schedule();
  try { Object.assign(cfg, await getJSON('/config.json')); } catch (e) { /* defaults: no tiles, offline */ }
  cfg.tile_url = typeof cfg.tile_url === 'string' ? cfg.tile_url.trim() : '';
  const title = cfg.title || 'Locus';
  $('title').textContent = title;
  document.title = title;
  const at = $('attrib');
  at.textContent = cfg.attribution || '';
  at.hidden = !cfg.tile_url || !cfg.attribution;
  svg.classList.toggle('tiled', !!cfg.tile_url);
  for (let delay = 1000; ; delay = Math.min(delay * 2, 15000)) {
    try { applyState(await getJSON('/state')); break; } catch (e) {
      $('status').title = String(e.message || e);
      await new Promise(r => setTimeout(r, delay));
    }
  }
  $('status').title = '';
  if (!userMoved) wantFit = true;
  render();
  document.body.dataset.ready = '1';
  connect();
}
start();
})();
