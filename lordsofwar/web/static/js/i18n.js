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

/* The rules engine's reasons a game ended (English data in records and the API) as sentences in the
 * page's language, the players by name where `names` ({1: 'alice', 2: 'bob'}) has them: the same
 * list as lordsofwar/i18n.py's result_reason. An unknown reason is shown as it is. */
const P = 'player ([12])';
/** @type {[RegExp, (x?: any) => string][]} */
const REASONS = [
  [/^(\d+) command units eliminated$/, (n) => ngettext('{n} command unit eliminated', '{n} command units eliminated', n)],
  [/^(\d+) units eliminated$/, (n) => ngettext('{n} unit eliminated', '{n} units eliminated', n)],
  [/^no unit eliminated in (\d+) turns$/, (n) => ngettext('no unit eliminated in {n} turn', 'no unit eliminated in {n} turns', n)],
  [new RegExp('^' + P + ' resigned$'), (p) => _('{player} resigned', { player: p })],
  [new RegExp('^' + P + ' ran out of time$'), (p) => _('{player} ran out of time', { player: p })],
  [new RegExp('^' + P + ' missed the turn deadline$'), (p) => _('{player} missed the turn deadline', { player: p })],
  [/^draw agreed$/, () => _('draw agreed')],
  [new RegExp('^aborted by ' + P + '$'), (p) => _('{player} aborted the game', { player: p })],
  [/^neither player can deploy, draw or recall$/, () => _('neither player can deploy, draw or recall')],
  [new RegExp('^both reached a threshold; ' + P + ' reached the command threshold$'),
    (p) => _('both reached a threshold; {player} reached the command threshold', { player: p })],
  [new RegExp('^both reached the unit threshold; ' + P + ' eliminated more units$'),
    (p) => _('both reached the unit threshold; {player} eliminated more units', { player: p })],
  [new RegExp('^both reached the unit threshold; ' + P + ' eliminated more command units$'),
    (p) => _('both reached the unit threshold; {player} eliminated more command units', { player: p })],
  [new RegExp('^both reached the command threshold; ' + P + ' eliminated more units$'),
    (p) => _('both reached the command threshold; {player} eliminated more units', { player: p })],
  [new RegExp('^both reached the command threshold; ' + P + ' eliminated more command units$'),
    (p) => _('both reached the command threshold; {player} eliminated more command units', { player: p })],
  [/^both reached the unit threshold with equal units and command units$/,
    () => _('both reached the unit threshold with equal units and command units')],
  [/^both reached the command threshold with equal units and command units$/,
    () => _('both reached the command threshold with equal units and command units')],
];

/**
 * Why a game ended, in the page's language.
 * @param {string | null | undefined} reason the engine's English reason
 * @param {Record<number, string> | null} [names] the players' names by number
 * @returns {string}
 */
export function reasonText(reason, names) {
  const text = String(reason || '');
  if (text.startsWith('aborted: ')) { // an early ending that aborted the game (rules.engine.ABORTED)
    return _('game aborted: {reason}', { reason: reasonText(text.slice('aborted: '.length), names) });
  }
  for (const [re, f] of REASONS) {
    const m = re.exec(text);
    if (!m) continue;
    if (re.source.includes('(\\d+)')) return f(Number(m[1]));
    if (m[1]) {
      const p = Number(m[1]);
      return f((names && names[p]) || _('player {n}', { n: p }));
    }
    return f();
  }
  return text;
}
