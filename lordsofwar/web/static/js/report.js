/* Reporting a player to the moderators from their profile (#report-form, docs/community.md
 * "Reports and moderation"): POST /api/reports with the reason chosen and the player's own words;
 * the answer (or the refusal: one open report per player, so many an hour) is said in #report-status.
 * `sendReport` is the one request, for any page that reports (a chat message's id, or a player).
 */

import { ApiError, postJSON } from './api.js';
import { $ } from './dom.js';
import { _ } from './i18n.js';

/** @typedef {import('./api-types').components['schemas']['PlayerReport'] | import('./api-types').components['schemas']['MessageReport']} ReportIn */
/** @typedef {import('./api-types').components['schemas']['ReportOut']} ReportOut */

/**
 * Send a report; resolves to the sentence to show (thanks, or why it was refused).
 * @param {ReportIn} body
 * @returns {Promise<{ok: boolean, text: string}>}
 */
export async function sendReport(body) {
  try {
    /** @type {ReportOut} */
    await postJSON('/api/reports', body);
    return { ok: true, text: _('Thank you: the moderators will look at your report.') };
  } catch (e) {
    if (e instanceof ApiError && e.detail) return { ok: false, text: e.detail.charAt(0).toUpperCase() + e.detail.slice(1) };
    return { ok: false, text: _('The server could not be reached; nothing changed.') };
  }
}

const form = /** @type {HTMLFormElement | null} */ (document.getElementById('report-form'));
if (form) {
  const status = $('#report-status');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('button'));
    button.disabled = true;
    const said = await sendReport({
      reason: /** @type {ReportIn['reason']} */ (String(data.get('reason'))),
      text: String(data.get('text') || ''),
      player: form.dataset.player || '',
    });
    status.textContent = said.text;
    button.disabled = false;
    if (said.ok) form.reset();
  });
}
