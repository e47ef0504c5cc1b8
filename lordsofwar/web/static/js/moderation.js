/* The moderators' page (/moderation, docs/community.md "Reports and moderation"): each open
 * report's form posts one action to POST /api/moderation/actions. What the server did is said in
 * #moderation-status; the reports it settled leave the page (a sanction settles every open report
 * about the player, a dismissal only its own) and the count of open reports follows.
 */

import { ApiError, postJSON } from './api.js';
import { $, $$ } from './dom.js';
import { _, ngettext } from './i18n.js';

/** @typedef {import('./api-types').components['schemas']['WarnIn'] | import('./api-types').components['schemas']['MuteIn'] | import('./api-types').components['schemas']['BanIn'] | import('./api-types').components['schemas']['CloseIn'] | import('./api-types').components['schemas']['LiftIn'] | import('./api-types').components['schemas']['DismissIn']} ActionIn */
/** @typedef {import('./api-types').components['schemas']['ActionOut']} ActionOut */

const status = $('#moderation-status');
const count = $('#open-count');

/** @param {unknown} e */
function refusal(e) {
  if (e instanceof ApiError && e.detail) return e.detail.charAt(0).toUpperCase() + e.detail.slice(1);
  return _('The server could not be reached; nothing changed.');
}

/** @param {string} text */
function say(text) {
  status.textContent = text;
  status.focus();
}

/** @param {ActionOut} done */
function doneText(done) {
  switch (done.action) {
    case 'warn': return _('{name} is warned.', { name: done.player });
    case 'mute': return _('{name} is muted.', { name: done.player });
    case 'ban': return _('{name} is banned and signed out everywhere.', { name: done.player });
    case 'close': return _('The account is closed; it is now {name}.', { name: done.player });
    case 'lift': return _('The mute or ban of {name} is lifted.', { name: done.player });
    default: return _('The report is dismissed.');
  }
}

/** Remove the reports the action settled and show how many stay open. */
function settle(/** @type {HTMLElement} */ article, /** @type {string} */ action) {
  const gone = action === 'dismiss' ? [article]
    : action === 'lift' ? [] : $$('article.report').filter((a) => a.dataset.player === article.dataset.player);
  for (const a of gone) a.remove();
  const left = Math.max(0, Number(count.dataset.open || '0') - gone.length);
  count.dataset.open = String(left);
  count.textContent = ngettext('{n} open report', '{n} open reports', left);
  $('#no-reports').hidden = $$('article.report').length > 0;
}

for (const form of /** @type {HTMLFormElement[]} */ ($$('form.moderation-form'))) {
  const article = /** @type {HTMLElement} */ (form.closest('article'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const action = /** @type {ActionIn['action']} */ (String(data.get('action')));
    if (action === 'close' && !window.confirm(_('Close the account of {name}? This cannot be undone.', { name: form.dataset.player || '' }))) return;
    /** @type {Record<string, string | number | null>} */
    const body = { action, player: form.dataset.player || '', reason: String(data.get('reason') || '') };
    if (action !== 'lift') body.report = Number(form.dataset.report);
    if (action === 'mute') body.hours = Number(data.get('hours'));
    if (action === 'ban') body.days = data.get('days') ? Number(data.get('days')) : null;
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('button'));
    button.disabled = true;
    try {
      /** @type {ActionOut} */
      const done = await postJSON('/api/moderation/actions', body);
      settle(article, action);
      say(doneText(done));
    } catch (err) {
      say(refusal(err));
    } finally {
      button.disabled = false;
    }
  });
}
