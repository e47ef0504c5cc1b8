/* The magnified card (#magnify) and the small pop-up beside a card name or a counter (#hover-pop). */

import { cardEl, card, isCommand } from './cards.js';
import { $, h } from './dom.js';
import { _ } from './i18n.js';
import { DIRS, DIR_NAMES, armyWords, classWord, nodes, rankWord } from './words.js';

/** @import { Colour } from './model' */

/** Closes the magnified card and gives the focus back (null while none is shown). */
/** @type {(() => void) | null} */
let closer = null;

/**
 * The magnify overlay (in #magnify, created on demand on pages without one).
 * @param {string | null | undefined} id
 * @param {{colour?: Colour | null, side?: 'bottom' | 'top'}} [opts]
 */
export function magnify(id, opts = {}) {
  const c = card(id);
  if (!c) return;
  let ov = /** @type {HTMLElement | null} */ (document.getElementById('magnify'));
  if (!ov) { ov = h('div', { id: 'magnify', class: 'magnify' }); document.body.append(ov); }
  const overlay = ov;
  const DIRN = DIR_NAMES;
  const arrows = c.attacks || {};
  const attacks = DIRS.filter((d) => arrows[d]).map((d) => h('li', null, h('b', { text: arrows[d] }), ' ' + DIRN[d]));
  ov.replaceChildren(h('div', { class: 'magnify-box', role: 'dialog', 'aria-label': c.name },
    h('div', { class: 'magnify-card' }, cardEl(c.id, { colour: opts.colour, side: opts.side, title: false })),
    h('div', { class: 'magnify-info' },
      h('h2', { text: c.name }),
      h('p', { class: 'mi-sub', text: [armyWords(c.army), isCommand(c) ? _('{rank} (command unit)', { rank: rankWord(c.rank) }) : rankWord(c.rank), classWord(c.class)].join(' · ') }),
      h('p', null, nodes(_('Defence {defence}'), { defence: h('b', { text: c.defence }) })),
      attacks.length ? h('div', null, _('Attacks'), h('ul', { class: 'mi-attacks' }, attacks)) : h('p', { text: _('No attack arrows') }),
      c.ranged ? h('p', null, nodes(_('Ranged weapon: {damage} damage on the marked squares (forward is up)'), { damage: h('b', { text: c.ranged.damage }) })) : null,
      c.moves && c.moves.length ? h('p', { text: _('Moves: {list}', { list: c.moves.map((d) => DIRN[d]).join(', ') }) }) : null,
      h('p', { class: 'mi-id', text: c.id }),
      h('button', { class: 'btn', type: 'button', id: 'magnify-close', text: _('Close') }))));
  const before = document.activeElement;
  overlay.hidden = false;
  closer = () => {
    overlay.hidden = true;
    closer = null;
    if (before instanceof HTMLElement && before !== document.body && before.isConnected) before.focus({ preventScroll: true });
  };
  overlay.onclick = closer;
  $('#magnify-close', overlay).focus({ preventScroll: true });
}

/** Close the magnified card (Escape) if one is shown; whether one was. */
export function closeMagnifier() {
  const m = document.getElementById('magnify');
  if (!m || m.hidden) return false;
  if (closer) closer(); else m.hidden = true;
  return true;
}

/**
 * A card shown while the pointer rests on its name (#hover-pop).
 * @param {Element} anchor
 * @param {string} id
 * @param {Colour | null} [colour]
 */
export function showPreview(anchor, id, colour) {
  const pop = /** @type {HTMLElement | null} */ (document.getElementById('hover-pop'));
  if (!pop || !card(id)) return;
  pop.replaceChildren(h('div', { class: 'hp-preview' }, cardEl(id, { colour: colour || 'me', title: false, extra: 'preview' }),
    h('div', { class: 'hp-hint', text: _('double-click or right-click: magnify') })));
  pop.hidden = false;
  pop.style.width = '';
  placePop(pop, anchor, 'side');
}
export function hidePreview() { const pop = document.getElementById('hover-pop'); if (pop) pop.hidden = true; }

/**
 * Fill and show #hover-pop with `show` while the pointer rests on `el` or it has the focus.
 * @template {HTMLElement} E
 * @param {E} el
 * @param {() => void} show
 * @returns {E}
 */
export function hoverPop(el, show) {
  el.addEventListener('mouseenter', show);
  el.addEventListener('focus', show);
  el.addEventListener('mouseleave', hidePreview);
  el.addEventListener('blur', hidePreview);
  return el;
}

/**
 * Put the (absolute) pop beside `anchor`: to its left if there is room, else right, else below.
 * @param {HTMLElement} pop
 * @param {Element} anchor
 * @param {'side' | 'below'} how
 */
export function placePop(pop, anchor, how) {
  const r = anchor.getBoundingClientRect();
  const pw = pop.offsetWidth, ph = pop.offsetHeight;
  let left, top;
  if (how === 'side') {
    left = r.left - pw - 10;
    if (left < 8) left = r.right + 10;
    if (left + pw > window.innerWidth - 8) left = Math.max(8, Math.min(r.left, window.innerWidth - pw - 8));
    top = Math.min(r.top, window.innerHeight - ph - 8);
  } else {
    left = Math.max(8, Math.min(r.left, window.innerWidth - pw - 8));
    top = r.bottom + 6;
    if (top + ph > window.innerHeight - 8) top = Math.max(8, r.top - ph - 6);
  }
  pop.style.left = left + window.scrollX + 'px';
  pop.style.top = Math.max(8, top) + window.scrollY + 'px';
}

