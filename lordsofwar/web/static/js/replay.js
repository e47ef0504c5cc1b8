/* Lords of War — the replay viewer; the entry module of replay.html (the mat and the cards drawn by
 * render.js, as on the game page).
 * Loads GET /api/games/{id}/replay = {record, positions, log} (positions[i] = after i actions,
 * the opening first) and steps through it.
 * It opens at the start (step 0; #ply=N in the address opens step N); the step controls stay
 * in view (sticky). A click on a list entry, a card name in it included, goes to that step; a
 * card name shows its card on hover and magnifies on a double-click or a right-click.
 * Hooks: #replay-first #replay-prev #replay-next #replay-last #replay-ply (range) #replay-ply-label
 *        #replay-list .replay-item[data-ply] (.current), #mat [data-square], #status, #result,
 *        #btn-panels, .deck-count (hover: the cards left, everything being public in a replay).
 * Tests and debugging: this module exports `replay` ({R, go}; tests/web/hooks.py imports it).
 */

import { ApiError, getJSON, postJSON } from './api.js';
import { $, $button, $input, h, targetOf } from './dom.js';
import { _, formatNumber, ngettext } from './i18n.js';
import {
  actionText, applyHighContrast, armyTag, cardEl, closeMagnifier, deckCount, entryEl, entrySquares, fillPanelsButton, fitCellSize, loadCards,
  logHeading, magnify, norm, renderMat, resultText, scoreEl, setHighContrast, store, BOT_TITLES,
} from './render.js';

/** @import { View, LogEntry, LogEvent, ResultEvent, GameRecord, Analysis, AnalysisDoc, ReplayDoc, Names, Seat, Colour } from './model' */
/** @typedef {{ply: number, entry: LogEntry | null, label?: string}} Ply  a step of the replay */
/**
 * @typedef {object} ReplayState
 * @property {View[]} positions positions[i]: after i actions (the opening first)
 * @property {GameRecord | null} record
 * @property {LogEntry[]} log
 * @property {Ply[]} plies
 * @property {number} ply the step shown
 * @property {boolean} flip
 * @property {number | 'fit'} zoom
 * @property {boolean} panelsHidden
 * @property {Analysis | null} analysis
 */

const unknownError = _('unknown error');
const root = /** @type {HTMLElement} */ (document.getElementById('replay'));
const gameId = Number(root.dataset.gameId);
/** @type {ReplayState} */
const R = {
  positions: [], record: null, log: [], plies: [], ply: 0, flip: false, zoom: store.get('zoom', 'fit'),
  panelsHidden: !!store.get('panelsHidden', false), analysis: null,
};

applyHighContrast();

/** @returns {Names} */
const names = () => {
  const p = (R.record && R.record.players) || {};
  return { 1: (p[1] && p[1].name) || _('player {n}', { n: 1 }), 2: (p[2] && p[2].name) || _('player {n}', { n: 2 }) };
};
const bottom = () => (R.flip ? 2 : 1);
/** A translated sentence with \u0000 in place of an element: its pieces, the element between. */
/** @param {string} text @param {HTMLElement} el */
const around = (text, el) => {
  const at = text.indexOf('\u0000');
  if (at < 0) return [el, ' ', text];
  return [text.slice(0, at), el, text.slice(at + 1)].filter((x) => x !== '');
};
// colours follow the owner: player 1 blue, player 2 red, whichever side of the screen
/** @param {Seat} p @returns {Colour} */
const colourOf = (p) => (p === 1 ? 'me' : 'opp');

/** One item per position after the opening: its log entry (or the bare action). */
function buildPlies() {
  const actions = (R.record && R.record.actions) || [];
  const withAction = R.log.filter((e) => e.action != null);
  const without = R.log.filter((e) => e.action == null);
  /** @type {Ply[]} */
  const plies = [{ ply: 0, entry: null, label: _('Opening position') }];
  for (let i = 1; i < R.positions.length; i++) {
    let entry;
    if (i <= actions.length) {
      entry = withAction[i - 1] && withAction[i - 1].action === actions[i - 1] ? withAction[i - 1] : null;
      if (!entry) {
        const pos = R.positions[i - 1];
        const p = (pos.turn_state && pos.turn_state.decider) || pos.to_move;
        entry = { n: i, turn: pos.turn, player: p, action: actions[i - 1], events: [] };
      }
    } else {
      const result = R.positions[i].result; // the position's result: the result event's fields
      /** @type {LogEvent[]} */
      const events = result ? [/** @type {ResultEvent} */ ({ type: 'result', ...result })] : [];
      entry = without.shift() || { n: i, turn: R.positions[i].turn, player: null, action: null, events };
    }
    plies.push({ ply: i, entry });
  }
  R.plies = plies;
}

/** @param {View} v */
function cellSize(v) {
  if (R.zoom !== 'fit') return Number(R.zoom) || 90;
  return fitCellSize(root, v, 0.7 + 0.7 + 0.12, 44);
}

/** @param {boolean} [fromList] the step was chosen in the list (which then keeps still) */
function render(fromList) {
  const pos = R.positions[R.ply];
  if (!pos) return;
  root.classList.remove('loading');
  const N = names(), b = bottom();
  const it = R.plies[R.ply];
  /** @type {Set<string>} */
  const last = it.entry ? entrySquares(it.entry) : new Set();
  /** @type {import('./mat.js').Ghost[]} */
  const ghosts = [];
  if (it.entry) for (const ev of it.entry.events || []) if (ev.type === 'eliminated') ghosts.push({ square: ev.square, card: ev.card, owner: ev.owner });
  // status + result first (they take height the fit needs)
  const over = R.ply === R.positions.length - 1 && (pos.result || (R.record && R.record.result));
  const st = $('#status');
  const mover = (pos.turn_state && pos.turn_state.decider) || pos.to_move;
  st.textContent = R.ply === 0 ? _('Opening · {name} to deploy', { name: N[mover] }) : over ? _('Game over')
    : _('Turn {turn} · {name} to act', { turn: pos.turn, name: N[mover] });
  st.className = 'status' + (over ? ' over' : '');
  const res = $('#result');
  if (over) {
    const r = pos.result || /** @type {GameRecord} */ (R.record).result;
    res.className = 'result-banner';
    res.replaceChildren(h('strong', { text: resultText(r, N, null) }));
    res.hidden = false;
  } else res.hidden = true;
  let cell = cellSize(pos);
  // step p shows the decision of action p (what was played to get here): its preferred squares
  // beside the played action's own (lit as the last action's)
  const judged = decisionAt(R.ply);
  const hinted = judged && !judged.forced && judged.squares ? new Set(judged.squares.map(norm)) : null;
  const opts = { view: pos, bottom: b, home: 1, cell, last, ghosts, hinted };
  renderMat($('#mat'), opts);
  if (R.zoom === 'fit') { const c2 = cellSize(pos); if (c2 !== cell) { cell = c2; renderMat($('#mat'), { ...opts, cell }); } }
  root.style.setProperty('--cell', cell + 'px');
  const zr = $input('#zoom'); if (zr && document.activeElement !== zr) zr.value = String(cell);
  const rootTop = root.getBoundingClientRect().top + window.scrollY;
  root.style.setProperty('--avail-h', Math.max(320, window.innerHeight - rootTop - 18) + 'px');
  // hands: everything is public in a replay
  /** @param {Seat} p */
  const hand = (p) => ((pos.players || {})[p] || {}).hand || [];
  $('#hand-bottom').replaceChildren(...hand(b).map((id, i) => {
    const e = cardEl(id, { colour: colourOf(b), extra: 'replay-card' }); e.dataset.index = String(i); e.addEventListener('click', () => magnify(id, { colour: colourOf(b) })); return e;
  }));
  $('#hand-top').replaceChildren(...hand(3 - b).map((id, i) => {
    const e = cardEl(id, { colour: colourOf(3 - b), rot: true, extra: 'opp-card face' }); e.dataset.index = String(i); e.addEventListener('click', () => magnify(id, { colour: colourOf(3 - b) })); return e;
  }));
  $('#hand-bottom').dataset.player = String(b);
  $('#hand-top').dataset.player = String(3 - b);
  panel($('#panel-bottom'), b, 'bottom', pos, mover);
  panel($('#panel-top'), 3 - b, 'top', pos, mover);
  root.classList.toggle('panels-hidden', R.panelsHidden);
  fillPanelsButton($('#btn-panels'), pos, [3 - b, b], N, 1, R.panelsHidden);
  // controls
  $input('#replay-ply').max = String(R.positions.length - 1);
  $input('#replay-ply').value = String(R.ply);
  $('#replay-ply-label').textContent = `${R.ply} / ${R.positions.length - 1}`;
  $button('#replay-first').disabled = $button('#replay-prev').disabled = R.ply === 0;
  $button('#replay-last').disabled = $button('#replay-next').disabled = R.ply === R.positions.length - 1;
  renderAnalysis();
  for (const el of root.querySelectorAll('.replay-item')) {
    if (!(el instanceof HTMLElement)) continue;
    const cur = Number(el.dataset.ply) === R.ply;
    el.classList.toggle('current', cur);
    if (cur && !fromList) { // scroll the list only when the step is out of its view; a click in it keeps it still
      const list = $('#replay-list');
      const lr = list.getBoundingClientRect(), er = el.getBoundingClientRect();
      if (er.top < lr.top || er.bottom > lr.bottom) list.scrollTop += er.top - lr.top - list.clientHeight / 2 + er.height / 2;
    }
  }
}

/**
 * @param {HTMLElement} el
 * @param {Seat} p
 * @param {'top' | 'bottom'} side
 * @param {View} pos
 * @param {Seat | null | undefined} mover
 */
function panel(el, p, side, pos, mover) {
  const N = names();
  const vp = (pos.players || {})[p] || {};
  const deck = Array.isArray(vp.deck) ? vp.deck.length : vp.deck;
  const active = !pos.result && mover === p;
  el.className = 'player-panel side-' + side + ' col-' + colourOf(p) + (active ? ' active' : '') + (pos.result && pos.result.winner === p ? ' winner' : '');
  el.dataset.player = String(p);
  const cards = Array.isArray(vp.deck) ? vp.deck : null;
  const deckEl = deckCount(p, cards ? { cards, includes_hand: false } : null, { count: deck, colour: colourOf(p), name: N[p] });
  el.replaceChildren(
    h('div', { class: 'pp-head' }, h('span', { class: 'pp-dot' }),
      h('div', { class: 'pp-id' }, h('span', { class: 'pp-name', text: N[p] }),
        h('span', { class: 'pp-tags' }, h('span', { class: 'tag pnum', text: _('P{n}', { n: p }) }),
          armyTag(vp.army)))),
    h('div', { class: 'pp-body' },
      scoreEl(pos, p, N, { home: 1, warn: p !== 1 }),
      h('div', { class: 'pp-counts' },
        deckEl,
        h('span', { class: 'hand-count' }, ...around(_('{n} hand', { n: '\u0000' }), h('b', { text: (vp.hand || []).length }))),
        h('span', { class: 'to-move' + (active ? '' : ' idle'), 'aria-hidden': active ? null : 'true', text: _('to move') }))));
}

function buildList() {
  const N = names();
  const list = $('#replay-list');
  const frag = document.createDocumentFragment();
  const heads = {};
  for (const it of R.plies) {
    const e = it.entry;
    const head = e ? logHeading(e, N, heads) : null;
    if (head) frag.append(head);
    // a click anywhere on the entry, a card name included, jumps to its step; a card name
    // shows its card on hover and magnifies on a double-click or a right-click
    const body = e ? entryEl(e, N, { home: 1, cardClick: 'none', colourOf }) : h('div', { class: 'log-entry', text: it.label });
    body.classList.add('ri-body');
    frag.append(h('div', { class: 'replay-item', 'data-ply': it.ply, role: 'button', tabindex: '-1', title: _('go to step {n}', { n: it.ply }), onclick: () => go(it.ply, true) },
      h('span', { class: 'ri-n', text: it.ply }), body));
  }
  list.replaceChildren(frag);
}

// --- the analysis (docs/bots.md): graph, preferred action, mistakes -------------------------

/** @param {number} p */
const pct = (p) => Math.round(100 * p) + '%';

/**
 * The decision of action `ply` (step `ply` is the position after it; decisions[i].n = i + 1),
 * none at the opening or after the last action.
 * @param {number} ply
 */
function decisionAt(ply) {
  const A = R.analysis;
  if (!A || ply < 1) return null;
  const d = A.decisions[ply - 1];
  return d && d.n === ply ? d : null;
}

/** The decision that led to the current step: what was played to get here and what the bot preferred. */
function renderAnalysis() {
  const A = R.analysis;
  const best = $('#analysis-best');
  if (!A) { best.hidden = true; return; }
  const at = Math.min(R.ply, A.graph.length - 1);
  for (const now of root.querySelectorAll('#analysis-graph .now')) {
    now.setAttribute('x1', String(xOf(at))); now.setAttribute('x2', String(xOf(at)));
  }
  const d = decisionAt(R.ply);
  const N = names();
  best.hidden = false;
  delete best.dataset.best;
  delete best.dataset.n;
  if (!d) {
    best.className = 'analysis-best';
    best.textContent = R.ply === 0
      ? _('Step through the game: at each step the analysis says what was played to get there and what the bot preferred instead.')
      : _('The game is over.');
    return;
  }
  best.className = 'analysis-best' + (d.verdict ? ' ' + d.verdict : '');
  best.dataset.n = String(d.n);
  const say = actionText;
  if (d.forced) { best.textContent = _('{name} had one legal action: {action}.', { name: N[d.player], action: say(d.played) }); return; }
  const same = d.best === d.played;
  // an action with the bot's win probability after it, when there is one
  /** @param {string} action @param {number | null | undefined} p */
  const withWin = (action, p) => (p == null ? action : _('{action} (win {pct})', { action, pct: pct(p) }));
  const args = { name: N[d.player], best: withWin(say(d.best), d.win_best), played: withWin(say(d.played), d.win_played) };
  best.textContent = same
    ? _("{name} played the bot's choice: {action}.", { name: N[d.player], action: withWin(say(d.played), d.win_best) })
    : d.verdict === 'mistake' ? _('Bot preferred: {best}; {name} played {played} — a mistake.', args)
      : d.verdict === 'blunder' ? _('Bot preferred: {best}; {name} played {played} — a blunder.', args)
        : _('Bot preferred: {best}; {name} played {played}.', args);
  best.dataset.best = d.best;
}

// the graph's drawing in its own units: the plot (the line's area) inside margins that hold the
// axes' tick labels (the axes' names and the legend are HTML around it)
const GW = 320, GH = 146, PL = 38, PR = 8, PT = 8, PB = 24;
// the verdicts' thresholds in win probability points (lordsofwar.bots.analysis MISTAKE, BLUNDER)
const MISTAKE_POINTS = 10, BLUNDER_POINTS = 25;
const R_MISTAKE = 4, R_BLUNDER = 5.5;
/** @param {number} i */
function xOf(i) { const n = Math.max(1, (R.analysis ? R.analysis.graph.length : 2) - 1); return PL + (GW - PL - PR) * i / n; }
/** @param {number} p */
function yOf(p) { return PT + (GH - PT - PB) * (1 - p); }
/** A few round step numbers from 0 to `last` for the x axis. @param {number} last */
function stepTicks(last) {
  const every = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500].find((k) => last / k <= 5) || Math.ceil(last / 5);
  /** @type {number[]} */
  const out = [];
  for (let i = 0; i <= last; i += every) out.push(i);
  return out;
}

/**
 * A small drawing of one of the graph's marks for its legend.
 * @param {'line' | 'mistake' | 'blunder' | 'now'} what
 */
function legendKey(what) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 22 12');
  svg.setAttribute('class', 'win-graph wg-key');
  svg.setAttribute('aria-hidden', 'true');
  const e = document.createElementNS(NS, what === 'line' || what === 'now' ? 'line' : 'circle');
  /** @type {Record<string, string | number>} */
  const attrs = what === 'line' ? { x1: 1, x2: 21, y1: 6, y2: 6, class: 'wg-line' }
    : what === 'now' ? { x1: 11, x2: 11, y1: 0, y2: 12, class: 'wg-now' }
      : { cx: 11, cy: 6, r: what === 'blunder' ? R_BLUNDER : R_MISTAKE, class: 'wg-' + what };
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  svg.append(e);
  return svg;
}

/** @param {Analysis} A */
function drawAnalysis(A) {
  R.analysis = A;
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${GW} ${GH}`);
  svg.setAttribute('class', 'win-graph');
  const N = names();
  const level = BOT_TITLES[A.level] || A.level;
  /** @type {Record<number, Record<string, number>>} */
  const counts = { 1: { mistake: 0, blunder: 0 }, 2: { mistake: 0, blunder: 0 } };
  for (const d of A.decisions) if (d.verdict) counts[d.player][d.verdict]++;
  const text = [1, 2].map((p) => {
    // each sentence on its own: a call inside another's arguments is not seen by pybabel
    const mistakes = ngettext('{n} mistake', '{n} mistakes', counts[p].mistake);
    const blunders = ngettext('{n} blunder', '{n} blunders', counts[p].blunder);
    return _('{mistakes} and {blunders} by {name}', { mistakes, blunders, name: N[p] });
  }).join('; ');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', _("{name}'s win probability over the game, by the {level} bot: {summary}", { name: N[1], level, summary: text }));
  /** @param {string} tag @param {Record<string, string | number>} attrs @param {string} [content] */
  const add = (tag, attrs, content) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (content != null) e.textContent = content;
    svg.append(e);
    return e;
  };
  const last = A.graph.length - 1;
  add('rect', { x: PL, y: PT, width: GW - PL - PR, height: GH - PT - PB, class: 'wg-bg' });
  // the y axis: player 1's win probability, 0 at the foot, 100% at the top
  for (const v of [0, 0.5, 1]) {
    if (v === 0.5) add('line', { x1: PL, x2: GW - PR, y1: yOf(v), y2: yOf(v), class: 'wg-half' });
    add('text', { x: PL - 4, y: yOf(v), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'wg-tick wg-ytick' }, formatNumber(v, { style: 'percent' }));
  }
  // the x axis: the steps, a few of them numbered
  for (const i of stepTicks(last)) {
    add('line', { x1: xOf(i), x2: xOf(i), y1: GH - PB, y2: GH - PB + 4, class: 'wg-tickmark' });
    add('text', { x: xOf(i), y: GH - 6, 'text-anchor': i === 0 ? 'start' : 'middle', class: 'wg-tick wg-xtick' }, formatNumber(i));
  }
  const pts = A.graph.map((p, i) => `${xOf(i).toFixed(1)},${yOf(p).toFixed(1)}`).join(' ');
  add('polyline', { points: pts, class: 'wg-line' });
  const hw = Math.max(2, (xOf(1) - xOf(0)) / 2);
  A.graph.forEach((p, i) => {
    const hit = add('rect', { x: xOf(i) - hw, y: PT, width: 2 * hw, height: GH - PT - PB, class: 'wg-hit', 'data-ply': i });
    hit.addEventListener('click', () => go(i));
    const t = document.createElementNS(NS, 'title'); t.textContent = _('step {n}: {name} {pct}', { n: i, name: N[1], pct: pct(p) }); hit.append(t);
  });
  for (const d of A.decisions) {
    if (!d.verdict) continue;
    const dot = add('circle', { cx: xOf(d.n), cy: yOf(A.graph[d.n]), r: d.verdict === 'blunder' ? R_BLUNDER : R_MISTAKE, class: 'wg-' + d.verdict, 'data-ply': d.n });
    dot.addEventListener('click', () => go(d.n));
    const t = document.createElementNS(NS, 'title'); const targs = { name: N[d.player], n: d.n, played: d.played, drop: Math.round(100 * Number(d.drop)), best: d.best };
    t.textContent = d.verdict === 'blunder' ? _('blunder by {name} at step {n}: {played} (−{drop}); bot preferred {best}', targs)
      : d.verdict === 'mistake' ? _('mistake by {name} at step {n}: {played} (−{drop}); bot preferred {best}', targs)
        : `${d.verdict} by ${N[d.player]} at step ${d.n}: ${d.played} (−${Math.round(100 * Number(d.drop))}); bot preferred ${d.best}`; dot.append(t);
  }
  add('line', { x1: xOf(Math.min(R.ply, last)), x2: xOf(Math.min(R.ply, last)), y1: PT, y2: GH - PB, class: 'wg-now now' });
  // the axes' names and the legend, in the page's words, around the drawing
  const legend = h('ul', { class: 'wg-legend' },
    h('li', { class: 'wg-legend-line' }, legendKey('line'), h('span', { text: _("{name}'s win probability, as estimated by the {level} bot", { name: N[1], level }) })),
    h('li', { class: 'wg-legend-mistake' }, legendKey('mistake'), h('span', { text: _('mistake (−{n} points or more)', { n: MISTAKE_POINTS }) })),
    h('li', { class: 'wg-legend-blunder' }, legendKey('blunder'), h('span', { text: _('blunder (−{n} points or more)', { n: BLUNDER_POINTS }) })),
    h('li', { class: 'wg-legend-now' }, legendKey('now'), h('span', { text: _('the step shown') })));
  const box = $('#analysis-graph');
  box.replaceChildren(
    h('p', { class: 'wg-ytitle', text: _("{name}'s win probability", { name: N[1] }) }),
    svg,
    h('p', { class: 'wg-xtitle', text: _('step (actions played)') }),
    legend);
  box.hidden = false;
  const sum = $('#analysis-summary');
  sum.textContent = text + '.';
  sum.hidden = false;
  // the move list: "?" on a mistake, "??" on a blunder
  for (const d of A.decisions) {
    if (!d.verdict) continue;
    const item = root.querySelector(`.replay-item[data-ply="${d.n}"]`);
    if (!item || item.querySelector('.ri-mark')) continue;
    item.classList.add('marked-' + d.verdict);
    const margs = { drop: Math.round(100 * Number(d.drop)), best: d.best };
    const mtitle = d.verdict === 'blunder' ? _('blunder: −{drop} points; the bot preferred {best}', margs)
      : d.verdict === 'mistake' ? _('mistake: −{drop} points; the bot preferred {best}', margs)
        : `${d.verdict}: −${margs.drop} points; the bot preferred ${d.best}`;
    item.append(h('span', { class: 'ri-mark ' + d.verdict, title: mtitle, text: d.verdict === 'blunder' ? '??' : '?' }));
  }
  $('#btn-analyse').hidden = true;
  $('#analysis-intro').hidden = true;
  $('#analysis-progress').hidden = true;
  // the viewer's own marked decisions become exercises (/learn/mistakes/{game})
  const seat = Number($('#analysis').dataset.seat || 0);
  $('#analysis-practise').hidden = !A.decisions.some((d) => d.verdict && d.player === seat);
  render();
}

/** @param {AnalysisDoc} doc */
function showProgress(doc) {
  $('#btn-analyse').hidden = true;
  $('#analysis-progress').hidden = false;
  const bar = /** @type {HTMLProgressElement} */ ($('#analysis-bar'));
  bar.max = Math.max(1, /** @type {number} */ (doc.total));
  bar.value = /** @type {number} */ (doc.done);
  $('#analysis-count').textContent = _('Analysing: {done} of {total} actions', { done: doc.done, total: doc.total });
}

async function pollAnalysis() {
  for (;;) {
    /** @type {AnalysisDoc} */
    let doc;
    try {
      doc = await getJSON(`/api/games/${gameId}/analysis`);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (e.status === 404) {
        if ($('#analysis').dataset.signedIn === 'yes') { $('#btn-analyse').hidden = false; $('#analysis-intro').hidden = false; }
        else { $('#analysis-intro').hidden = false; $('#analysis-intro').textContent = _('Sign in to have this game analysed.'); }
        return;
      }
      doc = /** @type {AnalysisDoc} */ (e.body);
    }
    if (doc.status === 'done' && doc.result) { drawAnalysis(doc.result); return; }
    if (doc.status === 'failed') { $('#analysis-count').textContent = _('The analysis failed: {error}', { error: doc.error || unknownError }); $('#analysis-progress').hidden = false; return; }
    showProgress(doc);
    await new Promise((ok) => setTimeout(ok, 1000));
  }
}

async function analyse() {
  $button('#btn-analyse').disabled = true;
  /** @type {AnalysisDoc} */
  let doc;
  try {
    doc = await postJSON(`/api/games/${gameId}/analysis`, {});
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    $button('#btn-analyse').disabled = false;
    $('#analysis-count').textContent = e.detail || _('failed ({status})', { status: e.status }); $('#analysis-progress').hidden = false; return;
  }
  $button('#btn-analyse').disabled = false;
  showProgress(doc);
  pollAnalysis();
}
$('#btn-analyse').addEventListener('click', analyse);

/**
 * Show step `ply` (kept within the game).
 * @param {number} ply
 * @param {boolean} [fromList]
 */
function go(ply, fromList) {
  R.ply = Math.max(0, Math.min(R.positions.length - 1, ply));
  render(fromList);
}

$('#replay-first').addEventListener('click', () => go(0));
$('#replay-prev').addEventListener('click', () => go(R.ply - 1));
$('#replay-next').addEventListener('click', () => go(R.ply + 1));
$('#replay-last').addEventListener('click', () => go(R.positions.length - 1));
$input('#replay-ply').addEventListener('input', () => go(Number($input('#replay-ply').value)));
$('#btn-flip').addEventListener('click', () => { R.flip = !R.flip; render(); });
$('#btn-panels').addEventListener('click', () => { R.panelsHidden = !R.panelsHidden; store.set('panelsHidden', R.panelsHidden); render(); });
$('#btn-contrast').addEventListener('click', () => setHighContrast(!document.body.classList.contains('hc')));
$('#btn-fit').addEventListener('click', () => { R.zoom = 'fit'; store.set('zoom', 'fit'); render(); });
$input('#zoom').addEventListener('input', () => { R.zoom = Number($input('#zoom').value); store.set('zoom', R.zoom); render(); });
$('#mat').addEventListener('click', (e) => {
  const u = /** @type {HTMLElement | null} */ (targetOf(e).closest('.unit'));
  if (u) magnify(u.dataset.card, { colour: colourOf(Number(u.dataset.owner)) });
});
document.addEventListener('keydown', (e) => {
  const target = targetOf(e);
  if (target.closest && target.closest('input:not([type=range]), textarea')) return;
  if (e.key === 'Escape' && closeMagnifier()) return;
  if (e.key === 'ArrowRight' || e.key === 'ArrowDown') { e.preventDefault(); go(R.ply + 1); }
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') { e.preventDefault(); go(R.ply - 1); }
  else if (e.key === 'Home') { e.preventDefault(); go(0); }
  else if (e.key === 'End') { e.preventDefault(); go(R.positions.length - 1); }
});
/** @type {ReturnType<typeof setTimeout> | undefined} */
let t;
window.addEventListener('resize', () => { clearTimeout(t); t = setTimeout(() => { if (R.zoom === 'fit') render(); }, 80); });

(async function start() {
  try {
    await loadCards();
    /** @type {ReplayDoc} */
    const data = await getJSON(`/api/games/${gameId}/replay`);
    R.record = data.record || {};
    R.positions = data.positions || [];
    R.log = data.log || [];
    if (!R.positions.length) throw new Error(_('the replay has no positions'));
    buildPlies();
    buildList();
    const m = /(?:^|[#&])ply=(\d+)/.exec(location.hash);
    go(m ? Number(m[1]) : 0); // the replay opens at the start
    pollAnalysis();
  } catch (e) {
    $('#status').textContent = _('Could not load the replay: {error}', { error: e instanceof Error ? e.message : String(e) });
  }
})();

/** The replay's state and its step control, for the browser tests and debugging. */
export const replay = { R, go };
