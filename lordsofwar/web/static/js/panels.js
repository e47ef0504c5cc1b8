/* The player panels: the score rings (Yucata's eliminated-count display), the panels' show/hide
 * button, the army tag and the deck counter with what may be known of the cards left. */

import { card, cardEl, isCommand } from './cards.js';
import { h } from './dom.js';
import { DECK } from './facts.js';
import { _, ngettext, pgettext } from './i18n.js';
import { hoverPop, placePop } from './magnifier.js';
import { armyLabel, armyWords, nodes } from './words.js';

/** @import { View, Seat, Names, Colour, DeckInfo } from './model' */

/**
 * The score of `player` = what they eliminated = the opponent's lost cards: the command units
 * (inner ring) and all units (outer ring) against what wins. warn: colour the rings by how close
 * the player is to winning (an opponent's), else green (your own).
 * @param {View} view
 * @param {Seat} player
 * @param {boolean} warn
 */
export function scoreOf(view, player, warn) {
  const lost = ((view.players || {})[3 - player] || {}).lost || [];
  const cmd = lost.filter((id) => isCommand(card(id))).length;
  const units = lost.length;
  const v = view.variant || {};
  const cNeed = v.commands_to_win || 4, uNeed = v.units_to_win || 20;
  /** @param {number} f */
  const level = (f) => (f >= 0.75 ? 'red' : f >= 0.5 ? 'yellow' : 'ok');
  const cf = Math.min(1, cmd / cNeed), uf = Math.min(1, units / uNeed);
  /** @param {number} r @param {number} f @param {string} cls */
  const ring = (r, f, cls) => {
    const C = 2 * Math.PI * r;
    return `<circle class="track" r="${r}" cx="20" cy="20"/><circle class="val ${cls}" r="${r}" cx="20" cy="20" stroke-dasharray="${(f * C).toFixed(2)} ${C.toFixed(2)}"/>`;
  };
  const svg = `<svg viewBox="0 0 40 40" class="rings" aria-hidden="true">${ring(16, uf, 'outer ' + (warn ? level(uf) : 'mine'))}${ring(9.5, cf, 'inner ' + (warn ? level(cf) : 'mine'))}</svg>`;
  return { lost, cmd, units, cNeed, uNeed, svg };
}

/**
 * The score in words (the rings' aria-label and title).
 * @param {string} player
 * @param {number} cmd
 * @param {number} cNeed
 * @param {number} units
 * @param {number} uNeed
 */
export function eliminatedWords(player, cmd, cNeed, units, uNeed) {
  return _('eliminated by {player}: {cmd} of {cneed} command units, {units} of {uneed} units', { player, cmd, cneed: cNeed, units, uneed: uNeed });
}

/**
 * A player panel's score: the rings and the counts; on hover or focus, the cards eliminated.
 * @param {View} view
 * @param {Seat} player
 * @param {Names} names
 * @param {{warn?: boolean, home?: Seat | null, bottom?: Seat | null}} [opts] warn (true): colour the
 *   rings by the danger; home: the player shown in "my" colour
 */
export function scoreEl(view, player, names, opts = {}) {
  const opp = 3 - player;
  const { lost, cmd, units, cNeed, uNeed, svg } = scoreOf(view, player, opts.warn !== false);
  const e = h('div', { class: 'score', tabindex: '0', 'aria-label': eliminatedWords(names[player], cmd, cNeed, units, uNeed) });
  e.innerHTML = svg;
  e.append(h('div', { class: 'score-nums' },
    h('span', { class: 'sn-cmd', title: _('command units eliminated / needed') }, h('b', { text: cmd }), '/' + cNeed, h('small', { text: ' ' + _('cmd') })),
    h('span', { class: 'sn-units', title: _('units eliminated (all ranks) / needed') }, h('b', { text: units }), '/' + uNeed, h('small', { text: ' ' + _('units') }))));
  const show = () => {
    const pop = /** @type {HTMLElement | null} */ (document.getElementById('hover-pop'));
    if (!pop) return;
    pop.replaceChildren(h('div', { class: 'hp-title', text: _('Eliminated by {player} ({units})', { player: names[player], units }) }),
      lost.length ? h('div', { class: 'hp-cards' }, lost.map((id) => cardEl(id, { colour: opp === (opts.home || opts.bottom || 1) ? 'me' : 'opp', extra: 'mini' }))) : h('div', { class: 'hp-none', text: _('none yet') }));
    pop.hidden = false;
    const r = e.getBoundingClientRect();
    const pw = Math.min(360, window.innerWidth - 16);
    pop.style.width = pw + 'px';
    let left = r.left + window.scrollX - pw - 8;
    if (left < 8) left = Math.min(r.left + window.scrollX, window.innerWidth - pw - 8);
    pop.style.left = left + 'px';
    pop.style.top = r.top + window.scrollY + 'px';
  };
  return hoverPop(e, show);
}

/**
 * The show/hide button of the player panels (#btn-panels): it carries both players' rings, so
 * the counters stay in view while the panels are hidden. order: [top player, bottom player].
 * @param {HTMLElement | null} btn
 * @param {View} view
 * @param {Seat[]} order
 * @param {Names} names
 * @param {Seat} home
 * @param {boolean} hidden
 */
export function fillPanelsButton(btn, view, order, names, home, hidden) {
  if (!btn) return;
  const parts = order.map((p) => {
    const sc = scoreOf(view, p, p !== home);
    const rings = h('span', { class: 'pb-rings' });
    const e = h('span', { class: 'pb-score col-' + (p === home ? 'me' : 'opp'), 'data-player': p },
      rings, h('span', { class: 'pb-nums', text: `${sc.cmd}/${sc.cNeed} · ${sc.units}/${sc.uNeed}` }));
    rings.innerHTML = sc.svg;
    e.title = eliminatedWords(names[p], sc.cmd, sc.cNeed, sc.units, sc.uNeed);
    return e;
  });
  btn.replaceChildren(h('span', { class: 'pb-label', text: (hidden ? '▸ ' : '▾ ') + _('Players') }), ...parts);
  btn.setAttribute('aria-pressed', hidden ? 'false' : 'true');
  btn.removeAttribute('aria-label');
  const scores = parts.map((e) => e.title).join('; ');
  btn.title = hidden ? _('Show the player panels (the rings: command units and units eliminated): {scores}', { scores })
    : _('Hide the player panels (the rings: command units and units eliminated): {scores}', { scores });
}

/** The ranks, general first (the server's, js/facts.js). */
export const RANK_ORDER = DECK.ranks;
/** Cards in rank order (general first), then by id. @param {string} a @param {string} b */
export const byRank = (a, b) => {
  const ca = card(a), cb = card(b);
  return (RANK_ORDER.indexOf(ca ? ca.rank : '') - RANK_ORDER.indexOf(cb ? cb.rank : '')) || String(a).localeCompare(String(b));
};

/** Whether an army label names a mercenary or custom deck rather than a standard army. */
/** @param {string | null | undefined} army */
export const isCustomArmy = (army) => /^(mercenary|custom )/.test(army || '');

/**
 * The army tag of a player panel (the army, or "Mercenary" / "Custom orcs"), or null.
 * @param {string | null | undefined} army
 */
export function armyTag(army) {
  return army ? h('span', { class: 'tag army' + (isCustomArmy(army) ? ' custom' : ''), title: _('army: {army}', { army: armyWords(army) }), text: armyLabel(army) }) : null;
}

/**
 * The deck counter of player `p`'s panel (.deck-count); it lists, on hover or focus, what the
 * viewer may know of the cards left: info = {cards: [...], includes_hand: bool} (server's
 * deck_cards) or null (only the count). opts: {count, own (the viewer's own deck) | name (the
 * player's name), colour, army}.
 * @param {Seat} p
 * @param {DeckInfo | null} info
 * @param {{count?: number | null, own?: boolean, name?: string, colour?: Colour, army?: string | null}} opts
 */
export function deckCount(p, info, opts) {
  const own = !!opts.own, name = opts.name;
  /** @param {number | null | undefined} count */
  const deckWords = (count) => {
    const n = /** @type {number} */ (count);
    return own ? ngettext('Your deck: {n} card left', 'Your deck: {n} cards left', n)
      : ngettext("{player}'s deck: {n} card left", "{player}'s deck: {n} cards left", n, { player: name });
  };
  const el = h('span', { class: 'deck-count has-pop', 'data-player': p, tabindex: '0' },
    h('i', { class: 'mini-back' }), nodes(_('{count} deck'), { count: h('b', { text: opts.count != null ? opts.count : '?' }) }));
  const show = () => {
    const pop = /** @type {HTMLElement | null} */ (document.getElementById('hover-pop'));
    if (!pop) return;
    let title, body;
    if (info && Array.isArray(info.cards)) {
      const cards = [...info.cards].sort(byRank);
      const n = cards.length;
      title = !info.includes_hand ? deckWords(n)
        : own ? ngettext('Your deck or hand: {n} card (the hand is hidden)', 'Your deck or hand: {n} cards (the hand is hidden)', n)
          : ngettext("{player}'s deck or hand: {n} card (the hand is hidden)", "{player}'s deck or hand: {n} cards (the hand is hidden)", n, { player: name });
      body = cards.length ? h('div', { class: 'hp-cards deck-cards' }, cards.map((id) => cardEl(id, { colour: opts.colour, extra: 'mini', title: false })))
        : h('div', { class: 'hp-none', text: pgettext('deck', 'empty') }); // a deck's "empty" (Polish "pusta")
    } else {
      title = deckWords(opts.count);
      body = h('div', { class: 'hp-none', text: opts.army ? _('A {army} deck: which cards it holds is not known.', { army: armyWords(opts.army) }) : _('Which cards it holds is not known.') });
    }
    pop.replaceChildren(h('div', { class: 'hp-title', text: title }),
      body, h('div', { class: 'hp-note', text: _('In no particular order.') }));
    pop.hidden = false;
    pop.style.width = Math.min(560, window.innerWidth - 16) + 'px';
    placePop(pop, el, 'side');
  };
  return hoverPop(el, show);
}

