/* A moderator's warning to the signed-in player (docs/community.md "Reports and moderation"):
 * every page of a signed-in player asks GET /api/moderation/notices; each warning not yet
 * acknowledged is shown at the top of the page, with the moderator's words, until the player
 * presses "I understand" (POST /api/moderation/notices/{id}/seen). For a moderator the answer
 * also counts the open reports, and the top bar gets a "Moderation" link to the queue with
 * that count; anyone else's top bar never has it.
 */

import { getJSON, postJSON } from './api.js';
import { formatDateTime, _, ngettext } from './i18n.js';

/** @typedef {import('./api-types').components['schemas']['NoticesOut']} NoticesOut */
/** @typedef {import('./api-types').components['schemas']['NoticeOut']} NoticeOut */

/** @param {NoticeOut} notice */
function show(notice) {
  const box = document.createElement('section');
  box.className = 'flash error moderation-notice';
  box.setAttribute('role', 'alert');
  box.dataset.notice = String(notice.id);
  const title = document.createElement('b');
  title.textContent = _('A moderator warns you ({when}):', { when: formatDateTime(new Date(notice.at)) });
  const words = document.createElement('p');
  words.textContent = notice.reason;
  const ok = document.createElement('button');
  ok.type = 'button';
  ok.className = 'button';
  ok.textContent = _('I understand');
  ok.addEventListener('click', async () => {
    ok.disabled = true;
    try {
      await postJSON(`/api/moderation/notices/${notice.id}/seen`, {});
      box.remove();
    } catch {
      ok.disabled = false;
    }
  });
  box.append(title, words, ok);
  const main = document.querySelector('main');
  if (main) main.before(box);
}

/** The top bar's link to the moderators' queue, after the Friends link. @param {number} open the open reports */
function moderationLink(open) {
  const nav = document.querySelector('.topbar nav');
  if (!nav || document.getElementById('nav-moderation')) return;
  const link = document.createElement('a');
  link.href = '/moderation';
  link.id = 'nav-moderation';
  link.textContent = open > 0 ? _('Moderation ({n})', { n: open }) : _('Moderation');
  link.title = ngettext('{n} open report', '{n} open reports', open);
  const friends = document.getElementById('nav-friends');
  if (friends) friends.after(link);
  else nav.prepend(link);
}

getJSON('/api/moderation/notices').then((/** @type {NoticesOut} */ found) => {
  for (const notice of found.notices) show(notice);
  if (typeof found.open_reports === 'number') moderationLink(found.open_reports);
}).catch(() => { /* signed out meanwhile, or offline: the notice waits for the next page */ });
