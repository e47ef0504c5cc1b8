/* The card catalogue (GET /api/cards, loaded once per page) and the drawing of a card face. */

import { getJSON, ApiError } from './api.js';
import { h } from './dom.js';
import { _ } from './i18n.js';
import { CLASS_ABBR, DIRS, RANK_ABBR, classWord, rankWord } from './words.js';

/** @import { Card, Colour, Ranged } from './model' */
/**
 * @typedef {object} CardOpts
 * @property {Colour | null} [colour] "me" (blue: you, or player 1 for a spectator) | "opp" (red)
 * @property {'bottom' | 'top'} [side] the older form of colour: "bottom" is "me", "top" "opp"
 * @property {boolean} [rot] seen from its owner's opponent's side (its front points down the screen)
 * @property {string} [extra] more classes
 * @property {false} [title] false: no tooltip
 */

/** Every card by its id, once loadCards() has run. @type {Record<string, Card>} */
export const CARDS = {};

/** @param {Card | null | undefined} c */
export const isCommand = (c) => !!c && (c.rank === 'general' || c.rank === 'command');
/** @param {string | null | undefined} id @returns {Card | null} */
export const card = (id) => (id != null && CARDS[id]) || null;
/** @param {string | null | undefined} id @returns {string} */
export const cardName = (id) => (id != null && CARDS[id] ? CARDS[id].name : id || _('a hidden card'));

/** The card catalogue (fetched once). */
export async function loadCards() {
  if (Object.keys(CARDS).length) return CARDS;
  /** @type {Card[]} */
  let list;
  try {
    list = await getJSON('/api/cards');
  } catch (e) {
    if (e instanceof ApiError) throw new Error(_('could not load the cards ({status})', { status: e.status }), { cause: e });
    throw e;
  }
  for (const c of list) CARDS[c.id] = c;
  return CARDS;
}

/**
 * A card face. opts.rot: true when the card is seen from its owner's opponent's side (its
 * front points down the screen). opts.colour: "me" (blue: you, or player 1 for a spectator)
 * | "opp" (red) — the colour follows the card's owner, never the side of the screen; the older
 * opts.side "bottom" | "top" means "me" | "opp". opts.extra: class.
 * @param {string | null | undefined} id a card id; null (or an unknown id): the back of a card
 * @param {CardOpts} [opts]
 * @returns {HTMLDivElement}
 */
export function cardEl(id, opts = {}) {
  const c = card(id);
  const colour = opts.colour || (opts.side === 'top' ? 'opp' : 'me');
  const rot = !!opts.rot;
  if (!c) {
    return h('div', { class: 'card back col-' + colour + (opts.extra ? ' ' + opts.extra : ''), 'data-card': id || null },
      h('div', { class: 'back-mark', text: '⚔' }));
  }
  const cls = ['card', 'col-' + colour, 'army-' + c.army, 'cls-' + c.class, 'rank-' + c.rank];
  if (rot) cls.push('rot');
  if (isCommand(c)) cls.push('command');
  if (opts.extra) cls.push(opts.extra);
  const e = h('div', { class: cls.join(' '), 'data-card': c.id, title: opts.title === false ? null : cardTitle(c) });
  e.append(h('div', { class: 'front-band' }));
  // attack arrows, placed by their direction on screen
  for (const [d, v] of Object.entries(c.attacks || {})) {
    if (!v) continue;
    const i = (DIRS.indexOf(d) + (rot ? 4 : 0)) % 8;
    e.append(h('div', { class: 'arrow ' + (i % 2 ? 'corner' : 'edge') + ' s' + i, style: `--a:${i * 45}deg` },
      h('span', { text: v })));
  }
  for (const d of c.moves || []) {
    const i = (DIRS.indexOf(d) + (rot ? 4 : 0)) % 8;
    e.append(h('div', { class: 'move-arrow s' + i, style: `--a:${i * 45}deg`, title: _('moves {direction}', { direction: d }) }));
  }
  const face = h('div', { class: 'face' },
    h('div', { class: 'c-name' }, h('span', { text: c.name })),
    h('div', { class: 'c-meta' },
      h('span', { class: 'c-rank', text: RANK_ABBR[c.rank] || c.rank }),
      h('span', { class: 'c-class', text: CLASS_ABBR[c.class] || c.class })),
    h('div', { class: 'c-bottom' },
      h('div', { class: 'c-def', title: _('defence') }, h('span', { text: c.defence })),
      c.ranged ? rangedEl(c.ranged, rot) : null));
  e.append(face);
  return e;
}

/**
 * @param {Ranged} r
 * @param {boolean} rot
 */
function rangedEl(r, rot) {
  const t = r.targets || [];
  const rs = t.map((p) => p[0]).concat([0]);
  const fs = t.map((p) => p[1]).concat([0]);
  const minR = Math.min(...rs), maxR = Math.max(...rs), minF = Math.min(...fs), maxF = Math.max(...fs);
  const set = new Set(t.map((p) => p[0] + ',' + p[1]));
  const nr = maxF - minF + 1, nc = maxR - minR + 1;
  const cs = Math.min(0.44, 2.15 / nr, 2.2 / nc).toFixed(3);
  const grid = h('div', { class: 'c-grid' + (rot ? ' rot' : ''), style: `grid-template-columns:repeat(${nc},${cs}em);grid-auto-rows:${cs}em` });
  for (let f = maxF; f >= minF; f--) {
    for (let x = minR; x <= maxR; x++) {
      grid.append(h('i', { class: x === 0 && f === 0 ? 'u' : set.has(x + ',' + f) ? 't' : '' }));
    }
  }
  return h('div', { class: 'c-ranged', title: _('ranged: {damage} damage', { damage: r.damage }) },
    h('div', { class: 'c-dmg' }, h('span', { text: r.damage })), grid);
}

/**
 * A card's tooltip: its name, rank, class and figures.
 * @param {Card} c
 */
export function cardTitle(c) {
  const attacks = c.attacks || {};
  const a = DIRS.filter((d) => attacks[d]).map((d) => d + ' ' + attacks[d]).join(', ');
  let s = _('{name} — {rank} {class}, defence {defence}', { name: c.name, rank: rankWord(c.rank), class: classWord(c.class), defence: c.defence })
    + (a ? '\n' + _('attacks: {list}', { list: a }) : '');
  if (c.ranged) s += '\n' + _('ranged: {damage} damage', { damage: c.ranged.damage });
  if (c.moves && c.moves.length) s += '\n' + _('moves: {list}', { list: c.moves.join(', ') });
  return s;
}

