/* The scripts' words in the page's language (docs/i18n.md). The page embeds the `js` catalogue of
 * its language in <script type="application/json" id="i18n-catalogue">: {"lang": "de",
 * "messages": {msgid: msgstr | [plural forms]}}. English embeds none: the scripts are written in it.
 *
 *   _('Turn {turn}', { turn: 3 })            → "Zug 3"
 *   ngettext('{n} game waiting', '{n} games waiting', n, { n })
 *
 * Placeholders are {name}; a string the catalogue lacks is shown as written. Loaded before every
 * other script of the site; `pybabel extract` finds the strings in the calls of _ and ngettext.
 */
(function () {
  'use strict';
  let lang = document.documentElement.lang || 'en';
  let messages = {};
  const el = document.getElementById('i18n-catalogue');
  if (el) {
    try {
      const data = JSON.parse(el.textContent);
      lang = data.lang || lang;
      messages = data.messages || {};
    } catch (e) { /* a broken catalogue: English */ }
  }
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
  // The language menu of the top bar: a choice sends its form at once (its button is for no-script).
  document.addEventListener('DOMContentLoaded', () => {
    const select = document.getElementById('language-select');
    if (!select || !select.form) return;
    const go = select.form.querySelector('.language-go');
    if (go) go.hidden = true;
    select.addEventListener('change', () => select.form.submit());
  });
})();
