/* Lords of War — the rules guide ("How to play", /learn/rules); the entry module of guide.html.
 * The text is the server's; this module draws each diagram (figure.guide-diagram[data-diagram])
 * from the page's JSON data block (#guide-data, written by lordsofwar.learn.guide.drawn) with the
 * game's own mat (renderMat) and cards: the position as the acting player sees it, with the
 * squares it marks (hinted, and the legal destinations lit), the action it illustrates (on its
 * squares: .guide-action when the rules allow it, .guide-refused when they refuse it), the card
 * being deployed, and for an allowed action the mat after it with the eliminated units greyed.
 * Hooks: .guide-boards[data-drawn] once drawn; .guide-mat[data-stage="before"|"after"];
 *        [data-square] squares (.hinted, .target, .guide-action, .guide-refused, .guide-lost).
 * Tests and debugging: this module exports `guide` ({data, drawn}).
 */

import { $$, h, ready } from './dom.js';
import { _ } from './i18n.js';
import { cardEl, cardName, loadCards, norm, renderMat } from './render.js';

/** @import { View, Seat } from './model' */
/**
 * One diagram as the server sends it.
 * @typedef {object} Diagram
 * @property {View} view the position shown, as the acting player sees it
 * @property {Seat} you the acting player (at the bottom of the mat)
 * @property {string[]} hinted squares the text points at
 * @property {string[]} targets legal destinations, lit
 * @property {string} [action] the action the diagram illustrates (notation)
 * @property {string[]} [squares] the squares the action names
 * @property {boolean} [legal] whether the rules allow it
 * @property {string} [card] the card it deploys
 * @property {View} [after] the position after it (allowed actions only)
 * @property {{square: string, card: string, owner: Seat}[]} [ghosts] the units it eliminated
 */

/** @type {Record<string, Diagram>} */
const data = JSON.parse(document.getElementById('guide-data')?.textContent || '{}');
/** @type {Set<string>} the diagrams drawn */
const drawn = new Set();

/** @param {View} v the columns the mat of this view spans */
function columns(v) {
  if (!v.variant || v.variant.mat !== 'unbordered') return 7;
  let lo = 0, hi = 6;
  for (const u of v.board || []) {
    const x = Number(/^-?\d+/.test(u.square) ? u.square.split(',')[0] : 'abcdefg'.indexOf(u.square[0]));
    lo = Math.min(lo, x - 1); hi = Math.max(hi, x + 1);
  }
  return hi - lo + 1;
}

/**
 * A square's cell on a drawn mat.
 * @param {HTMLElement} mat
 * @param {string} sq
 */
const cell = (mat, sq) => /** @type {HTMLElement | null} */ (mat.querySelector(`[data-square="${norm(sq)}"]`));

/**
 * One mat of a diagram.
 * @param {Diagram} d
 * @param {'before' | 'after'} stage
 * @param {number} size the cell size in px
 */
function mat(d, stage, size) {
  const root = h('div', { class: 'mat guide-mat', 'data-stage': stage });
  const view = stage === 'after' && d.after ? d.after : d.view;
  const extra = d.squares || [];
  if (stage === 'before') {
    /** @type {Map<string, string>} */
    const targets = new Map(d.targets.map((s) => [norm(s), 'deploy']));
    renderMat(root, { view, bottom: d.you, home: d.you, cell: size, targets, hinted: new Set(d.hinted.map(norm)), extraSquares: extra });
    for (const sq of extra) {
      const c = cell(root, sq);
      if (!c) continue;
      c.classList.add(d.legal ? 'guide-action' : 'guide-refused');
      c.append(h('span', { class: 'guide-mark', 'aria-hidden': 'true', text: d.legal ? '✓' : '✗' }));
    }
  } else {
    renderMat(root, { view, bottom: d.you, home: d.you, cell: size, ghosts: d.ghosts || [], extraSquares: extra });
    for (const g of d.ghosts || []) {
      const c = cell(root, g.square);
      if (c && !c.classList.contains('occupied')) c.classList.add('guide-lost');
    }
  }
  return root;
}

/**
 * Draw one diagram into its figure.
 * @param {HTMLElement} fig
 */
function draw(fig) {
  const id = fig.dataset.diagram || '';
  const d = data[id];
  const box = /** @type {HTMLElement | null} */ (fig.querySelector('.guide-boards'));
  if (!d || !box) return;
  const cols = Math.max(columns(d.view), d.after ? columns(d.after) : 0);
  // side by side where the width allows (before, the card, after), else one above the other
  const width = box.clientWidth || fig.clientWidth || 320;
  const mats = d.after ? 2 : 1;
  const beside = Math.floor((width - 60 * mats) / mats / cols);
  const size = Math.max(30, Math.min(60, beside >= 40 ? beside : Math.floor((width - 16) / cols)));
  const parts = [];
  const hand = d.card
    ? h('div', { class: 'guide-card' },
      h('span', { class: 'guide-stage-title', text: d.legal ? _('Card deployed:') : _('Card to deploy:') }),
      h('div', { class: 'guide-card-face', style: `--cs:${size}px` }, cardEl(d.card, { colour: 'me' })),
      h('span', { class: 'guide-card-name', text: cardName(d.card) }))
    : null;
  parts.push(h('div', { class: 'guide-stage' },
    d.after ? h('p', { class: 'guide-stage-title', text: _('Before') }) : null, mat(d, 'before', size), hand));
  if (d.action && !d.legal) parts.push(h('p', { class: 'guide-verdict refused', text: _('Not allowed: {action}', { action: d.action }) }));
  if (d.after) {
    const lost = (d.ghosts || []).map((g) => _('{card} on {square}', { card: cardName(g.card), square: g.square })).join(', ');
    parts.push(h('div', { class: 'guide-stage' }, h('p', { class: 'guide-stage-title', text: _('After') }), mat(d, 'after', size),
      h('p', { class: 'guide-lost-list', text: lost ? _('Eliminated: {units}', { units: lost }) : _('Nothing is eliminated.') })));
  }
  box.replaceChildren(...parts);
  box.dataset.drawn = '1';
  drawn.add(id);
}

ready(() => {
  const figures = /** @type {HTMLElement[]} */ ($$('figure.guide-diagram'));
  loadCards()
    .then(() => { for (const f of figures) draw(f); })
    .catch((e) => {
      for (const f of figures) {
        const box = f.querySelector('.guide-boards');
        if (box) box.replaceChildren(h('p', { class: 'guide-loading', text: _('Could not draw the example: {error}', { error: e instanceof Error ? e.message : String(e) }) }));
      }
    });
});

export const guide = { data, drawn };
