/* The scripts' words in the page's language (docs/i18n.md).
 *
 * A page in German or Polish names its `js` catalogue in <link rel="modulepreload" id="catalogue"
 * href="/i18n/de.js?v=HASH"> (the browser fetches it at once, in parallel with the modules): an ES module, `export default {"lang": "de", "messages": {msgid: msgstr | [plural forms]}}`, kept
 * by the browser for a year (its URL changes with the catalogue). This module imports it before any
 * module that imports this one runs (a top-level await), so the words are there from the start.
 * English names none: the scripts are written in it.
 *
 *   _('Turn {turn}', { turn: 3 })            → "Zug 3"
 *   ngettext('{n} game waiting', '{n} games waiting', n, { n })
 *   pgettext('deck', 'empty')                → the word for an empty deck ("pusta")
 *
 * Placeholders are {name}; a string the catalogue lacks is shown as written. `pybabel extract`
 * finds the strings in the calls of _, ngettext and pgettext (babel-js.cfg, scripts/i18n).
 */

/** @typedef {Record<string, string | number | null | undefined>} Args */
/** @typedef {{lang?: string, messages?: Record<string, string | string[]>}} Catalogue */

const link = /** @type {HTMLLinkElement | null} */ (document.getElementById('catalogue'));
const url = link ? link.href : '';
/** @type {Catalogue} */
let data = {};
if (url) {
  try {
    data = (await import(url)).default || {};
  } catch (e) {
    console.error('the catalogue of the page language could not be loaded:', e); // the words stay English
  }
}

/** The page's language ("en", "de", "pl"). */
export const lang = data.lang || document.documentElement.lang || 'en';
const messages = data.messages || {};

/**
 * @param {string} text
 * @param {Args} [args]
 */
function fill(text, args) {
  if (!args) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (Object.prototype.hasOwnProperty.call(args, k) ? String(args[k]) : m));
}

/** @param {number} n */
function pluralIndex(n) {
  if (lang === 'pl') {
    if (n === 1) return 0;
    const d = n % 10, h = n % 100;
    return d >= 2 && d <= 4 && (h < 12 || h > 14) ? 1 : 2;
  }
  return n === 1 ? 0 : 1;
}

/**
 * `text` in the page's language, its {placeholders} filled from `args`.
 * @param {string} text
 * @param {Args} [args]
 */
export function _(text, args) {
  const t = messages[text];
  return fill(typeof t === 'string' && t ? t : text, args);
}

/**
 * The form of a sentence for the number `n` ({n} is filled in too).
 * @param {string} singular
 * @param {string} plural
 * @param {number} n
 * @param {Args} [args]
 */
export function ngettext(singular, plural, n, args) {
  const forms = messages[singular];
  let text;
  if (Array.isArray(forms) && forms.length) text = forms[Math.min(pluralIndex(n), forms.length - 1)];
  else text = n === 1 ? singular : plural;
  return fill(text, Object.assign({ n }, args || {}));
}

/**
 * `text` in the page's language where the same English word needs another translation in the
 * given context (the catalogue keys it as "context\u0004text", as gettext does).
 * @param {string} context
 * @param {string} text
 * @param {Args} [args]
 */
export function pgettext(context, text, args) {
  const t = messages[context + '\u0004' + text];
  return fill(typeof t === 'string' && t ? t : text, args);
}

/**
 * A number as the page's language writes it ("12,25" in German and Polish).
 * @param {number} n
 * @param {Intl.NumberFormatOptions} [options]
 */
export function formatNumber(n, options) {
  return n.toLocaleString(lang, options);
}

/**
 * A date and time as the page's language writes it.
 * @param {Date | number} when
 */
export function formatDateTime(when) {
  return new Date(when).toLocaleString(lang);
}

/**
 * A result's code and facts (lordsofwar/rules/result.py): the API's `result`, a log's result event.
 * @typedef {{winner?: number | null, reason?: string | null, termination?: string | null, count?: number | null,
 *   player?: number | null, threshold?: string | null, ending?: string | null}} ResultCode
 */

/**
 * Why a game ended, in the page's language, written from the result's code and facts (the same
 * sentences as lordsofwar/i18n.py's result_reason), the players by name where `names`
 * ({1: 'alice', 2: 'bob'}) has them. A result without a code (an older server's) is said by its
 * English `reason` as it is.
 * @param {ResultCode | null | undefined} result
 * @param {Record<number, string> | null} [names] the players' names by number
 * @returns {string}
 */
export function reasonText(result, names) {
  if (!result || !result.termination) return String((result && result.reason) || '');
  /** @param {number | null | undefined} p */
  const who = (p) => playerName(p, names);
  const n = result.count || 0;
  const byCommands = result.threshold === 'commands';
  switch (result.termination) {
    case 'units': return ngettext('{n} unit eliminated', '{n} units eliminated', n);
    case 'commands': return ngettext('{n} command unit eliminated', '{n} command units eliminated', n);
    case 'both_command_threshold':
      return _('both reached a threshold; {player} reached the command threshold', { player: who(result.winner) });
    case 'more_units':
      return byCommands
        ? _('both reached the command threshold; {player} eliminated more units', { player: who(result.winner) })
        : _('both reached the unit threshold; {player} eliminated more units', { player: who(result.winner) });
    case 'more_commands':
      return byCommands
        ? _('both reached the command threshold; {player} eliminated more command units', { player: who(result.winner) })
        : _('both reached the unit threshold; {player} eliminated more command units', { player: who(result.winner) });
    case 'equal':
      return byCommands
        ? _('both reached the command threshold with equal units and command units')
        : _('both reached the unit threshold with equal units and command units');
    case 'no_progress': return ngettext('no unit eliminated in {n} turn', 'no unit eliminated in {n} turns', n);
    case 'no_action': return _('neither player can deploy, draw or recall');
    case 'resignation': return _('{player} resigned', { player: who(result.player) });
    case 'timeout': return _('{player} ran out of time', { player: who(result.player) });
    case 'deadline': return _('{player} missed the turn deadline', { player: who(result.player) });
    case 'draw_agreed': return _('draw agreed');
    case 'aborted':
      return result.ending ? _('game aborted: {reason}', { reason: abortText(result, names) }) : abortText(result, names);
    default: return String(result.reason || result.termination);
  }
}

/**
 * What aborted a game (`termination` 'aborted'), in the page's language: the ending that came
 * first ("bob resigned"), or who aborted it ("bob aborted the game"). The banner and the result
 * line (log.js resultText) both say it this way.
 * @param {ResultCode} result
 * @param {Record<number, string> | null} [names]
 * @returns {string}
 */
export function abortText(result, names) {
  if (result.ending) return reasonText({ termination: result.ending, player: result.player, winner: null }, names);
  return _('{player} aborted the game', { player: playerName(result.player, names) });
}

/**
 * A player of a result by name where `names` has it, else "player 2".
 * @param {number | null | undefined} p
 * @param {Record<number, string> | null | undefined} names
 */
function playerName(p, names) {
  return (p && names && names[p]) || _('player {n}', { n: p || '?' });
}
