/* The classic scripts' words in the page's language, for the scripts not yet converted to modules
 * (the modules import js/i18n.js instead; this file goes with the last classic script).
 * The scripts' words in the page's language (docs/i18n.md). A page in German or Polish loads its
 * `js` catalogue first, /i18n/de.legacy.js (cached by the browser: its URL changes with the catalogue),
 * which sets window.LOW_I18N_DATA = {"lang": "de", "messages": {msgid: msgstr | [plural forms]}}.
 * English loads none: the scripts are written in it.
 *
 *   _('Turn {turn}', { turn: 3 })            → "Zug 3"
 *   ngettext('{n} game waiting', '{n} games waiting', n, { n })
 *
 * Placeholders are {name}; a string the catalogue lacks is shown as written. Loaded before every
 * other script of the site; `pybabel extract` finds the strings in the calls of _ and ngettext.
 */
(function () {
  'use strict';
  const data = window.LOW_I18N_DATA || {};
  const lang = data.lang || document.documentElement.lang || 'en';
  const messages = data.messages || {};
  function fill(text, args) {
    if (!args) return text;
    return text.replace(/\{(\w+)\}/g, (m, k) => (Object.prototype.hasOwnProperty.call(args, k) ? String(args[k]) : m));
  }
  function pluralIndex(n) {
    if (lang === 'pl') {
      if (n === 1) return 0;
      const d = n % 10, h = n % 100;
      return d >= 2 && d <= 4 && (h < 12 || h > 14) ? 1 : 2;
    }
    return n === 1 ? 0 : 1;
  }
  window._ = function (text, args) {
    const t = messages[text];
    return fill(typeof t === 'string' && t ? t : text, args);
  };
  window.ngettext = function (singular, plural, n, args) {
    const forms = messages[singular];
    let text;
    if (Array.isArray(forms) && forms.length) text = forms[Math.min(pluralIndex(n), forms.length - 1)];
    else text = n === 1 ? singular : plural;
    return fill(text, Object.assign({ n }, args || {}));
  };
  window.LOW_LANG = lang;
})();
/* The rules engine's reasons a game ended (English data in records and the API) as sentences in the
 * page's language, the players by name where `names` ({1: 'alice', 2: 'bob'}) has them: the same
 * list as lordsofwar/i18n.py's result_reason. An unknown reason is shown as it is. */
(function () {
  'use strict';
  const P = 'player ([12])';
  const REASONS = [
    [/^(\d+) command units eliminated$/, (n) => ngettext('{n} command unit eliminated', '{n} command units eliminated', n)],
    [/^(\d+) units eliminated$/, (n) => ngettext('{n} unit eliminated', '{n} units eliminated', n)],
    [/^no unit eliminated in (\d+) turns$/, (n) => ngettext('no unit eliminated in {n} turn', 'no unit eliminated in {n} turns', n)],
    [new RegExp('^' + P + ' resigned$'), (p) => _('{player} resigned', { player: p })],
    [new RegExp('^' + P + ' ran out of time$'), (p) => _('{player} ran out of time', { player: p })],
    [new RegExp('^' + P + ' missed the turn deadline$'), (p) => _('{player} missed the turn deadline', { player: p })],
    [/^draw agreed$/, () => _('draw agreed')],
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
  window.reasonText = function (reason, names) {
    const text = String(reason || '');
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
  };
})();
