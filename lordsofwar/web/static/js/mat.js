/* The battle mat: squares and their names, and the drawing of a position (#mat). */

import { cardEl } from './cards.js';
import { $, h } from './dom.js';
import { _ } from './i18n.js';
import { FILES } from './words.js';

/** @import { View, Seat, Unit, LogEntry, LogEvent, Colour } from './model' */
/** @typedef {{square: string, card: string, owner: Seat}} Ghost  an eliminated unit fading out */
/**
 * @typedef {object} MatOpts
 * @property {View} view a position or a player's view of it
 * @property {Seat} [bottom] the player at the bottom of the screen (1)
 * @property {Seat} [home] the player whose units are drawn in "my" colour (you, or player 1; bottom)
 * @property {number} [cell] a square's size in px (90)
 * @property {Map<string, string>} [targets] square → "move" | "shoot" | ...: legal destinations
 * @property {Map<string, string[]>} [sources] square → the kinds of action of the unit there
 * @property {string | null} [selected] the selected unit's square
 * @property {Set<string>} [last] squares changed in the last turn
 * @property {Set<string> | null} [hinted] squares of a hint or of the analysis' preferred action
 * @property {Ghost[]} [ghosts] eliminated units fading out
 * @property {Set<string>} [fresh] squares whose units come in with an animation
 * @property {string[]} [extraSquares] squares the drawn area must include (unbordered mat)
 */

/**
 * "d3" | "-1,3" → [x, y]
 * @param {string | [number, number]} s
 * @returns {[number, number]}
 */
export function parseSq(s) {
  if (Array.isArray(s)) return s;
  const m = /^([a-g])([1-6])$/.exec(s);
  if (m) return [FILES.indexOf(m[1]), Number(m[2]) - 1];
  const p = String(s).split(',');
  return [Number(p[0]), Number(p[1])];
}
/** @param {number} x @param {number} y */
export function onMat(x, y) { return x >= 0 && x <= 6 && y >= 0 && y <= 5; }
/** @param {number} x @param {number} y @returns {string} */
export function sqName(x, y) { return onMat(x, y) ? FILES[x] + (y + 1) : x + ',' + y; }
/** A square's name as the mat writes it ("d3", "-1,3"). @param {string | [number, number]} s */
export const norm = (s) => { const [x, y] = parseSq(s); return sqName(x, y); };

/**
 * Draw the mat into `root`.
 * o.view (position or view), o.bottom (player at the bottom of the screen), o.home (player whose
 * units are drawn in "my" colour: you, or player 1; default o.bottom), o.cell (px),
 * o.targets: Map square → "move"|"shoot"|... (legal destinations), o.sources: Map square → [kinds],
 * o.selected: square, o.last: Set of squares, o.ghosts: [{square, card, owner}],
 * o.fresh: Set of squares (animate in), o.extraSquares: squares to include in the bounding box.
 * @param {HTMLElement} root
 * @param {MatOpts} o
 */
export function renderMat(root, o) {
  const view = o.view;
  const bottom = o.bottom || 1;
  const home = o.home || bottom;
  /** @param {Seat} owner @returns {Colour} */
  const colourOf = (owner) => (owner === home ? 'me' : 'opp');
  const unbordered = view.variant && view.variant.mat === 'unbordered';
  /** @type {Map<string, Unit>} */
  const units = new Map();
  for (const u of view.board || []) units.set(norm(u.square), u);
  let minX = 0, maxX = 6, minY = 0, maxY = 5;
  if (unbordered) {
    for (const [x, y] of [...units.keys()].map(parseSq)) {
      minX = Math.min(minX, x - 1); maxX = Math.max(maxX, x + 1);
      minY = Math.min(minY, y - 1); maxY = Math.max(maxY, y + 1);
    }
    for (const [x, y] of (o.extraSquares || []).map(parseSq)) {
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
  }
  const cols = maxX - minX + 1, rows = maxY - minY + 1;
  const cell = o.cell || 90;
  /** @param {number} x @param {number} y @returns {[number, number]} */
  const pos = (x, y) => bottom === 1 ? [x - minX, maxY - y] : [maxX - x, y - minY];
  root.style.setProperty('--cell', cell + 'px');
  root.style.setProperty('--cols', String(cols));
  root.style.setProperty('--rows', String(rows));
  root.classList.toggle('unbordered', !!unbordered);
  root.dataset.bottom = String(bottom);
  const frag = document.createDocumentFragment();
  /** @type {Map<string, string>} */
  const targets = o.targets || new Map();
  /** @type {Map<string, string[]>} */
  const sources = o.sources || new Map();
  /** @type {Set<string>} */
  const last = o.last || new Set();
  /** @type {Set<string>} */
  const fresh = o.fresh || new Set();
  const shotDmg = (view.turn_state && view.turn_state.shot_damage) || {};
  /** @type {Record<string, number>} */
  const dmg = {};
  for (const [k, v] of Object.entries(shotDmg)) dmg[norm(k)] = v;
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const name = sqName(x, y);
      const [cx, cy] = pos(x, y);
      const u = units.get(name);
      const cls = ['sq', (x + y) % 2 ? 'light' : 'dark'];
      if (!onMat(x, y)) cls.push('off');
      if (u) cls.push('occupied');
      if (targets.has(name)) cls.push('target', 'target-' + targets.get(name));
      const kinds = sources.get(name);
      if (kinds) cls.push('source', ...kinds.map((k) => 'can-' + k));
      if (o.selected === name) cls.push('selected');
      if (last.has(name)) cls.push('last');
      if (o.hinted && o.hinted.has(name)) cls.push('hinted');
      const opening = !u && view.turn <= 2 && onMat(x, y) ? { c3: '1', e4: '2' }[name] : undefined;
      if (opening) cls.push('has-opening');
      const sq = h('div', { class: cls.join(' '), 'data-square': name, 'data-col': cx, 'data-row': cy, style: `left:${cx * cell}px;top:${cy * cell}px` });
      if (onMat(x, y)) {
        if (bottom === 1 ? y === 0 : y === 5) sq.append(h('span', { class: 'coord file', text: FILES[x] }));
        if (bottom === 1 ? x === 0 : x === 6) sq.append(h('span', { class: 'coord rank', text: y + 1 }));
        if (opening) sq.append(h('span', { class: 'opening', text: opening }));
      }
      if (u) {
        const ce = cardEl(u.card, { colour: colourOf(u.owner), rot: u.owner !== bottom, extra: 'unit' + (fresh.has(name) ? ' fresh' : '') });
        ce.dataset.owner = String(u.owner);
        sq.append(ce);
        if (dmg[name]) sq.append(h('span', { class: 'dmg-badge', title: _('{damage} shot damage this turn', { damage: dmg[name] }), text: '−' + dmg[name] }));
      }
      if (targets.has(name)) sq.append(h('span', { class: 'tmark' }));
      frag.append(sq);
    }
  }
  for (const g of o.ghosts || []) {
    const n = norm(g.square);
    if (units.has(n)) continue;
    const [x, y] = parseSq(n);
    if (x < minX || x > maxX || y < minY || y > maxY) continue;
    const [cx, cy] = pos(x, y);
    const ge = h('div', { class: 'ghost', style: `left:${cx * cell}px;top:${cy * cell}px` },
      cardEl(g.card, { colour: colourOf(g.owner), rot: g.owner !== bottom, title: false }));
    frag.append(ge);
  }
  // declared shots: shooter → target
  const shots = (view.turn_state && view.turn_state.shots) || {};
  const entries = Object.entries(shots);
  if (entries.length) {
    const NS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('class', 'shots');
    svg.setAttribute('width', String(cols * cell));
    svg.setAttribute('height', String(rows * cell));
    svg.innerHTML = '<defs><marker id="shot-head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="shot-head"/></marker></defs>';
    for (const [from, to] of entries) {
      const [ax, ay] = pos(...parseSq(from));
      const [bx, by] = pos(...parseSq(to));
      const line = document.createElementNS(NS, 'line');
      const c1 = [(ax + 0.5) * cell, (ay + 0.5) * cell], c2 = [(bx + 0.5) * cell, (by + 0.5) * cell];
      const len = Math.hypot(c2[0] - c1[0], c2[1] - c1[1]) || 1;
      const k = (cell * 0.3) / len;
      line.setAttribute('x1', String(c1[0] + (c2[0] - c1[0]) * k)); line.setAttribute('y1', String(c1[1] + (c2[1] - c1[1]) * k));
      line.setAttribute('x2', String(c2[0] - (c2[0] - c1[0]) * k)); line.setAttribute('y2', String(c2[1] - (c2[1] - c1[1]) * k));
      line.setAttribute('class', 'shot-line');
      line.setAttribute('marker-end', 'url(#shot-head)');
      svg.append(line);
    }
    frag.append(svg);
  }
  root.replaceChildren(frag);
  root.style.width = cols * cell + 'px';
  root.style.height = rows * cell + 'px';
  return { cols, rows, minX, maxX, minY, maxY };
}

/**
 * Squares a log entry changed (added to `out`).
 * @param {LogEntry} entry
 * @param {Set<string>} [out]
 */
export function entrySquares(entry, out) {
  const squares = out || new Set();
  for (const ev of entry.events || []) for (const sq of eventSquares(ev)) squares.add(norm(sq));
  return squares;
}

/**
 * The squares one event names (lordsofwar.rules.events.squares): where a unit was deployed,
 * eliminated or recalled, where one moved or advanced from and to, a shot's shooter and target.
 * @param {LogEvent} ev
 * @returns {string[]}
 */
export function eventSquares(ev) {
  switch (ev.type) {
    case 'deploy': case 'eliminated': case 'recall': return [ev.square];
    case 'advance': case 'move': return [ev.from, ev.to];
    case 'shot': return [ev.from, ev.target];
    default: return [];
  }
}

/**
 * The cell size (px) at which the mat, the hands (handF cells high in all) and the rest of the
 * board column fit the window; on a phone, the width alone decides.
 * @param {HTMLElement} root the page's root (holding .board-col)
 * @param {View | null} v
 * @param {number} handF
 * @param {number} least
 */
export function fitCellSize(root, v, handF, least) {
  const wrap = $('#mat-wrap');
  let cols = 7, rows = 6;
  if (v && v.variant && v.variant.mat === 'unbordered') {
    const m = $('#mat'); cols = Number(m.style.getPropertyValue('--cols')) || 9; rows = Number(m.style.getPropertyValue('--rows')) || 8;
  }
  const byW = Math.floor((((wrap && wrap.clientWidth) || window.innerWidth) - 4) / cols);
  if (window.innerWidth < 760) return Math.max(40, Math.min(130, byW));
  const col = $('.board-col', root);
  const top = col.getBoundingClientRect().top + window.scrollY;
  let fixed = 0;
  for (const ch of col.children) {
    if (ch.id === 'mat-wrap' || ch.classList.contains('hand-row') || (ch instanceof HTMLElement && ch.hidden)) continue;
    fixed += ch.getBoundingClientRect().height;
  }
  const avail = window.innerHeight - top - fixed - 56;
  return Math.max(least, Math.min(140, byW, Math.floor(avail / (rows + handF))));
}
