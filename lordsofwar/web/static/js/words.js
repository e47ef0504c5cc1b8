/* The words of the rules' data in the page's language: ranks, classes, armies, directions, the
 * built-in bots' names, and the small words used inside other sentences. Card names, squares,
 * card ids and the notation stay as they are. */

import { ARMIES, BOTS } from './facts.js';
import { _ } from './i18n.js';

/** @typedef {Record<string, string>} Words  the words of the data's keys (an unknown key: undefined) */
/** @import { GamePlayer } from './model' */

/** The eight directions, clockwise from the front. */
export const DIRS = ['F', 'FR', 'R', 'BR', 'B', 'BL', 'L', 'FL'];
export const FILES = 'abcdefg';
/** @type {Words} */
export const RANK_ABBR = { general: _('GEN'), command: _('CMD'), special: _('SPC'), elite: _('ELT'), veteran: _('VET'), regular: _('REG'), recruit: _('RCT') };
// the rules' words for the classes (the same English words as lordsofwar/i18n.py CLASSES)
/** @type {Words} */
export const CLASS_ABBR = { infantry: _('Infantry'), cavalry: _('Cavalry'), berserker: _('Berserker'), spear: _('Spear'), ranged: _('Ranged') };
// the armies' names ("Orcs") and their words inside a sentence ("army: custom orcs"): the server's
// (js/facts.js)
/** @type {Words} */
export const ARMY_NAMES = Object.fromEntries(ARMIES.map((a) => [a.name, a.label]));
/** @type {Words} */
export const ARMY_WORDS = Object.fromEntries(ARMIES.map((a) => [a.name, a.word]));
/** @type {Words} */
export const RANK_WORDS = { general: _('general'), command: _('command'), special: _('special'), elite: _('elite'), veteran: _('veteran'), regular: _('regular'), recruit: _('recruit') };
/** @type {Words} */
export const CLASS_WORDS = { infantry: _('infantry'), cavalry: _('cavalry'), berserker: _('berserker'), spear: _('spear'), ranged: _('ranged') };
/** @type {Words} */
export const DIR_NAMES = { F: _('front'), FR: _('front-right'), R: _('right'), BR: _('back-right'), B: _('back'), BL: _('back-left'), L: _('left'), FL: _('front-left') };
/** @param {string} k */
export const rankWord = (k) => RANK_WORDS[k] || k;
/** @param {string} k */
export const classWord = (k) => CLASS_WORDS[k] || k;
/**
 * An army label ("orcs", "custom orcs", "mercenary") inside a sentence.
 * @param {string | null | undefined} army
 * @returns {string}
 */
export function armyWords(army) {
  if (!army) return '';
  if (ARMY_WORDS[army]) return ARMY_WORDS[army];
  if (army === 'mercenary') return _('mercenary');
  const m = /^custom (.+)$/.exec(army);
  return m ? _('custom {army}', { army: ARMY_WORDS[m[1]] || m[1] }) : army;
}
/**
 * An army label as a name of its own ("Orcs", "Custom orcs", "Mercenary").
 * @param {string} army
 */
export function armyLabel(army) {
  if (ARMY_NAMES[army]) return ARMY_NAMES[army];
  if (army === 'mercenary') return _('Mercenary');
  const m = /^custom (.+)$/.exec(army);
  return m ? _('Custom {army}', { army: ARMY_WORDS[m[1]] || m[1] }) : army.replace(/^./, (c) => c.toUpperCase());
}
// a built-in bot by its level's name in the page's language (its account's name is English), and
// the level alone ("Veteran", as in "estimated by the Veteran bot"): the server's (js/facts.js)
/** @type {Words} */
export const BOT_NAMES = Object.fromEntries(BOTS.map((b) => [b.name, b.player_name]));
/** @type {Words} */
export const BOT_TITLES = Object.fromEntries(BOTS.map((b) => [b.name, b.title]));
/**
 * A player's name as the page shows it: a built-in bot by its level's name.
 * @param {GamePlayer | null | undefined} pl
 * @param {number} p
 * @returns {string}
 */
export const shownName = (pl, p) => (pl && ((pl.bot && BOT_NAMES[pl.bot]) || pl.name)) || playerWord(p);
// words used inside other sentences: called on their own, where pybabel sees them
export const theUnit = _('the unit');
export const unknownWord = _('unknown');
export const noneWord = _('none');
/**
 * @param {string} from
 * @param {string} to
 */
export const shotAt = (from, to) => _('{from} at {to}', { from, to });
/** "player 2" @param {number} p */
export const playerWord = (p) => _('player {n}', { n: p });

/**
 * A translated sentence cut at its placeholders: its text between them and the values of `args`
 * (an array value is spread). Not filled by _() itself, so that a value may be a node (for h()) or
 * a card part of a log segment: nodes(_('Defence {defence}'), { defence: h('b', ...) }).
 * @template {object} T
 * @param {string} text
 * @param {Record<string, string | number | null | undefined | T | (string | T)[]>} [args]
 * @returns {(string | T)[]}
 */
export function pieces(text, args) {
  /** @type {(string | T)[]} */
  const out = [];
  /** @param {unknown} v */
  const add = (v) => out.push(v !== null && typeof v === 'object' ? /** @type {T} */ (v) : String(v));
  String(text).split(/(\{\w+\})/).forEach((s, i) => {
    if (i % 2 === 0) { if (s) out.push(s); return; }
    const k = s.slice(1, -1);
    if (!args || !Object.prototype.hasOwnProperty.call(args, k)) out.push(s);
    else {
      const v = args[k];
      if (Array.isArray(v)) v.forEach(add);
      else add(v);
    }
  });
  return out;
}
export const nodes = pieces;
