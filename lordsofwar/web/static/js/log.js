/* The battle log: a log entry's events in words, its line with card names that show their card,
 * the turn headings, and the result of a game in words. */

import { card, cardName, cardTitle } from './cards.js';
import { h } from './dom.js';
import { _, abortText, reasonText } from './i18n.js';
import { hidePreview, magnify, showPreview } from './magnifier.js';
import { pieces, playerWord } from './words.js';

/** @import { LogEntry, Names, Result, Seat, Colour } from './model' */
/** @typedef {{card: string, sq?: string}} CardPart  a card named in a log line */
/** @typedef {{text: string, cls: string}} TextPart  words that stand out (a class of their own) */
/** @typedef {string | CardPart | TextPart} Part */
/**
 * @typedef {object} EntryOpts
 * @property {Seat | null} [home] the player shown in "my" colour
 * @property {Seat | null} [bottom] the older name of home
 * @property {string} [cls] more classes
 * @property {'magnify' | 'none'} [cardClick] what a click on a card name does
 * @property {(p: Seat) => Colour} [colourOf] the colour of a player's cards
 */
/** @typedef {{key?: string, turn?: number}} HeadingState */

/**
 * Readable parts of a log entry: an array of {text | card, cls}. names: {1: "alice", 2: "bob"}.
 * @param {LogEntry} entry
 * @param {Names | null} [names]
 * @returns {Part[][]} one list of parts per event
 */
export function describeEntry(entry, names) {
  /** @param {Seat | null | undefined} p */
  const pn = (p) => (names && p != null && names[p]) || (p ? playerWord(p) : _('nobody'));
  /** @type {Part[][]} */
  const parts = [];
  /** @param {string | undefined} id @param {string} [sq] @returns {CardPart} */
  const C = (id, sq) => ({ card: String(id), sq });
  for (const ev of entry.events || []) {
    /** @type {Part[]} */
    const seg = [];
    /**
     * @param {string} text
     * @param {Record<string, string | number | null | undefined | CardPart | (string | CardPart)[]>} args
     */
    const say = (text, args) => seg.push(...pieces(text, args));
    switch (ev.type) {
      case 'deploy': say(ev.forced ? _('{player} deploys {card} on {square} (forced)') : _('{player} deploys {card} on {square}'),
        { player: pn(ev.player), card: C(ev.card), square: ev.square }); break;
      case 'shot': say(ev.declared ? _('{card} ({from}) declares a shot at {target} ({square}) for {damage}') : _('{card} ({from}) shoots {target} ({square}) for {damage}'),
        { card: C(ev.card), from: ev.from, target: C(ev.target_card), square: ev.target, damage: ev.damage }); break;
      case 'eliminated': { // the words before the card stand out
        const p = pieces(_('eliminated: {card} ({square})'), { card: C(ev.card), square: ev.square });
        const first = p.findIndex((x) => typeof x !== 'string');
        p.forEach((x, i) => seg.push(i < first && typeof x === 'string' ? { text: x, cls: 'elim' } : x));
        break;
      }
      case 'advance': say(_('berserker {card} advances {from} → {to}'), { card: C(ev.card), from: ev.from, to: ev.to }); break;
      case 'move': say(_('{card} moves {from} → {to}'), { card: C(ev.card), from: ev.from, to: ev.to }); break;
      case 'recall': say(_('{player} recalls {card} from {square}'), { player: pn(ev.player), card: C(ev.card), square: ev.square }); break;
      case 'draw': seg.push(_('{player} draws a card', { player: pn(ev.player) })); break;
      case 'pass': seg.push(_('{player} passes', { player: pn(ev.player) })); break;
      case 'extra_turn': seg.push({ text: _('extra turn for {player}', { player: pn(ev.player) }), cls: 'extra' }); break;
      case 'reveal': say(_("{player}'s hand is revealed: {cards}"),
        { player: pn(ev.player), cards: ev.hand.flatMap((id, i) => { const c = id == null ? '?' : C(id); return i ? [', ', c] : [c]; }) }); break;
      case 'resign': seg.push({ text: _('{player} resigns', { player: pn(ev.player) }), cls: 'res' }); break;
      case 'timeout': seg.push({ text: _('{player} is out of time', { player: pn(ev.player) }), cls: 'res' }); break;
      case 'draw_agreed': seg.push({ text: _('both players agree to a draw'), cls: 'res' }); break;
      case 'abort': seg.push({ text: _('{player} aborted the game', { player: pn(ev.player) }), cls: 'res' }); break;
      case 'result': seg.push({ text: ev.winner ? _('{player} wins — {reason}', { player: pn(ev.winner), reason: reasonText(ev, names) })
        : _('Draw — {reason}', { reason: reasonText(ev, names) }), cls: 'res' }); break;
      default: { // a kind this client does not know yet (a newer server)
        const other = /** @type {{type: string, player?: Seat}} */ (/** @type {unknown} */ (ev));
        seg.push(other.player ? _('{event} ({player})', { event: other.type, player: pn(other.player) }) : other.type);
      }
    }
    parts.push(seg);
  }
  if (!parts.length && entry.action) parts.push([_('{player}: {action}', { player: pn(entry.player), action: entry.action })]);
  return parts;
}

/**
 * An action in words: "deploy orcs:07 d3" → "deploy Orc Warriors on d3".
 * @param {string} a
 */
export function actionText(a) {
  const p = String(a).split(' ');
  switch (p[0]) {
    case 'deploy': return _('deploy {card} on {square}', { card: cardName(p[1]), square: p[2] });
    case 'shoot': return _('shoot from {from} at {to}', { from: p[1], to: p[2] });
    case 'move': return _('move {from} → {to}', { from: p[1], to: p[2] });
    case 'advance': return _('advance {from} → {to}', { from: p[1], to: p[2] });
    case 'recall': return _('recall the unit on {square}', { square: p[1] });
    case 'draw': return _('draw a card');
    case 'pass': return _('pass');
    default: return String(a);
  }
}

/**
 * A log entry as one line of text (for screen readers).
 * @param {LogEntry} entry
 * @param {Names | null} [names]
 */
export function describeText(entry, names) {
  return describeEntry(entry, names).map((seg) => seg.map((p) => typeof p === 'string' ? p : 'card' in p ? cardName(p.card) : p.text).join('')).join('; ');
}

/**
 * The owner of card `id` as a log entry tells it, or null.
 * @param {string} id
 * @param {LogEntry} e
 * @returns {Seat | null}
 */
export function ownerInEntry(id, e) {
  for (const ev of e.events || []) {
    switch (ev.type) {
      case 'shot': // the shooter is the acting player's, its target the other's
        if (ev.card === id) return e.player || null;
        if (ev.target_card === id) return e.player ? 3 - e.player : null;
        break;
      case 'deploy': case 'recall': if (ev.card === id) return ev.player; break;
      case 'eliminated': case 'advance': case 'move': if (ev.card === id) return ev.owner; break;
      default: break;
    }
  }
  return null;
}

/**
 * One log entry. opts.home: the player shown in "my" colour; opts.cls: extra class;
 * opts.cardClick: "magnify" (default: a click on a card name magnifies it) or "none" (the
 * click goes to the entry: the replay list jumps to its step; magnify is a double-click or a
 * right-click there). A card name always shows the card on hover. opts.colourOf(player):
 * "me" | "opp", the colour of that player's cards.
 * @param {LogEntry} entry
 * @param {Names | null} names
 * @param {EntryOpts} [opts]
 */
export function entryEl(entry, names, opts = {}) {
  const segs = describeEntry(entry, names);
  const body = h('span', { class: 'le-text' });
  const clickMagnifies = opts.cardClick !== 'none';
  segs.forEach((seg, i) => {
    const s = h('span', { class: 'le-seg' });
    for (const p of seg) {
      if (typeof p === 'string') s.append(p);
      else if ('card' in p) {
        const id = p.card;
        const owner = ownerInEntry(id, entry);
        const colour = opts.colourOf && owner ? opts.colourOf(owner) : null;
        const known = card(id);
        const ref = h('span', { class: 'cardref', 'data-card': id, text: cardName(id),
          'aria-label': known ? cardTitle(known) : null });
        const zoom = () => { hidePreview(); magnify(id, { colour }); };
        if (clickMagnifies) ref.addEventListener('click', (e) => { e.stopPropagation(); zoom(); });
        ref.addEventListener('dblclick', (e) => { e.preventDefault(); zoom(); });
        ref.addEventListener('contextmenu', (e) => { e.preventDefault(); zoom(); });
        ref.addEventListener('mouseenter', () => showPreview(ref, id, colour));
        ref.addEventListener('mouseleave', hidePreview);
        s.append(ref);
      } else s.append(h('span', { class: p.cls || '', text: p.text }));
    }
    if (i) body.append(h('span', { class: 'le-sep', text: ' · ' }));
    body.append(s);
  });
  const home = opts.home || opts.bottom;
  const who = entry.player ? (home && entry.player === home ? 'me' : 'opp') : 'none';
  return h('div', { class: 'log-entry who-' + who + (opts.cls ? ' ' + opts.cls : ''), 'data-n': entry.n },
    h('span', { class: 'le-turn', title: _('turn {turn}', { turn: entry.turn }), text: entry.turn != null ? entry.turn : '' }), body);
}

/**
 * The heading line above a log entry, or null when it belongs under the previous one: a new
 * heading whenever the turn or the acting player changes, so that an action of the player who
 * is not to move (a resignation, a timeout, accepting a draw, a berserker choice) is never
 * shown under the other player's turn heading. state: {key} carried from entry to entry.
 * @param {LogEntry} e
 * @param {Names | null} names
 * @param {HeadingState} state
 */
export function logHeading(e, names, state) {
  if (e.turn == null) return null;
  const key = e.turn + ':' + (e.player || '');
  if (key === state.key) return null;
  const sameTurn = state.turn === e.turn;
  state.key = key; state.turn = e.turn;
  const who = e.player ? ((names && names[e.player]) || playerWord(e.player)) : null;
  const ending = e.action == null && (e.events || []).some((ev) => ev.type === 'result');
  const args = { turn: e.turn, player: who };
  const text = who
    ? (ending ? _('Turn {turn} · {player} · end of the game', args) : _('Turn {turn} · {player}', args))
    : (ending ? _('Turn {turn} · end of the game', args) : _('Turn {turn}', args));
  return h('div', { class: 'log-turn' + (sameTurn ? ' same-turn' : '') + (ending ? ' ending' : ''), 'data-player': e.player || null, text });
}


/**
 * A game's result in words, from `you`'s side where given ("You won · ...").
 * @param {Result | null | undefined} result
 * @param {Names | null} names
 * @param {Seat | null} you
 */
export function resultText(result, names, you) {
  if (!result) return '';
  if (result.termination === 'aborted') return _('Game aborted · {reason}', { reason: abortText(result, names) }); // no result
  const why = reasonText(result, names);
  if (result.winner == null) return _('Draw · {reason}', { reason: why });
  const w = (names && names[result.winner]) || playerWord(result.winner);
  if (you) return result.winner === you ? _('You won · {reason}', { reason: why }) : _('You lost · {reason}', { reason: why });
  return _('{player} wins · {reason}', { player: w, reason: why });
}
