/* The lobby keeps itself current: it asks /api/lobby every few seconds and, when challenges or
 * games changed, fetches the page again and swaps in the new lists (the new-game form is left
 * alone). While the player is choosing a deck in an accept form, a notice offers the refresh
 * instead.
 *
 * When a challenge of yours is accepted, a notice says so (with a link to the game) and the tab
 * title starts with "Challenge accepted", once per challenge. After a refused new-game form, the
 * server sends the form back as it was posted (#posted-form), and its choices are restored.
 *
 * In the new-game form, the "Your deck" choice follows the custom-deck options: a deck that is
 * not complete, or uses an army the invitation does not allow, cannot be chosen, and the note
 * under it says why. (The server checks again when the invitation is posted.)
 *
 * The lobby page's module (lobby.html).
 */

import { _ } from './i18n.js';
import { armyWords } from './words.js';

/** @typedef {import('./api-types').components['schemas']['Lobby']} Lobby */
/** @typedef {import('./api-types').components['schemas']['Accepted']} Accepted */

const notice = document.getElementById('lobby-changed');
// a deck chosen in an accept form, not yet sent: a refresh would undo the choice
const busy = () => [...document.querySelectorAll('.accept-form select')].some((s) => /** @type {HTMLSelectElement} */ (s).value !== '');

// --- the new-game form's deck choice ---------------------------------------------------------
const form = /** @type {HTMLFormElement | null} */ (document.getElementById('new-game-form'));
const deckSelect = /** @type {HTMLSelectElement | null} */ (document.getElementById('creator-deck'));
const deckNote = document.getElementById('creator-deck-note');
// an option's deck name, without the note a previous check added to it
const plainName = (/** @type {HTMLOptionElement} */ opt) => {
  if (opt.dataset.name === undefined) opt.dataset.name = opt.textContent || '';
  return opt.dataset.name;
};
function deckFit() {
  if (!form || !deckSelect) return;
  const custom = /** @type {HTMLInputElement} */ (form.querySelector('input[name=custom_decks]')).checked;
  const allowed = new Set([...form.querySelectorAll('input[name=custom_armies]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value));
  /** @type {string[]} */
  const why = [];
  deckSelect.disabled = !custom;
  for (const opt of deckSelect.options) {
    if (!opt.value) continue;
    const missing = opt.dataset.missing;
    const outside = (opt.dataset.armies || '').split(' ').filter((a) => a && !allowed.has(a));
    let problem = null;
    if (missing) problem = _('not complete: it needs {n} more', { n: missing });
    else if (outside.length) problem = _('uses {armies} cards, which this game would not allow', { armies: outside.map(armyWords).join(', ') });
    opt.disabled = !!problem;
    const bare = plainName(opt);
    opt.textContent = problem ? _('{deck} (does not fit)', { deck: bare }) : bare;
    if (problem) why.push(_('{deck}: {problem}', { deck: bare, problem }));
  }
  if (deckSelect.selectedOptions[0] && deckSelect.selectedOptions[0].disabled) deckSelect.value = '';
  if (deckNote && deckSelect.options.length > 1) {
    deckNote.textContent = !custom ? _('Allow custom decks to play one of yours.')
      : why.length ? _('Not available: {reasons}.', { reasons: why.join('; ') }) : '';
  }
}
// --- a refused form comes back with its choices --------------------------------------------------
const posted = document.getElementById('posted-form');
if (form && posted) {
  /** @type {Record<string, string | string[]>} */
  let values;
  try { values = JSON.parse(posted.textContent || ''); } catch (e) { values = {}; }
  for (const el of /** @type {Iterable<HTMLInputElement>} */ (form.elements)) {
    if (!el.name || el.name === 'csrf') continue;
    const v = values[el.name];
    if (el.type === 'checkbox') el.checked = Array.isArray(v) ? v.includes(el.value) : ['on', '1', 'true'].includes(v);
    else if (v === undefined) continue;
    else if (el.type === 'radio') el.checked = el.value === v;
    else el.value = String(v);
  }
}
if (form && deckSelect) {
  form.addEventListener('change', deckFit);
  deckFit();
}
// --- games against bots are casual -------------------------------------------------------------
const rated = /** @type {HTMLInputElement | null} */ (document.getElementById('rated'));
let ratedWanted = rated ? rated.checked : false;
function ratedFit() {
  if (!form || !rated) return;
  const against = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name=against]:checked'));
  const bot = !!(against && against.value.startsWith('bot:'));
  if (!bot && !rated.disabled) ratedWanted = rated.checked;
  rated.disabled = bot;
  rated.checked = bot ? false : ratedWanted;
  /** @type {HTMLElement} */ (rated.parentElement).title = bot ? _('Games against bots are casual.')
    : _("A rated game changes both players' ratings in the pool of its time control (live or turn-based).");
}
if (form && rated) {
  form.addEventListener('change', ratedFit);
  ratedFit();
}
// --- hints: only against a bot -----------------------------------------------------------------
const hints = /** @type {HTMLInputElement | null} */ (document.getElementById('hints'));
function hintsFit() {
  if (!form || !hints) return;
  const against = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name=against]:checked'));
  const bot = !!(against && against.value.startsWith('bot:'));
  hints.disabled = !bot;
  if (!bot) hints.checked = false;
}
if (form && hints) {
  form.addEventListener('change', hintsFit);
  hintsFit();
}

// --- "your challenge was accepted" --------------------------------------------------------------
const acceptedNote = document.getElementById('challenge-accepted');
const baseTitle = document.title;
/** @returns {number[]} */
const told = () => { try { return JSON.parse(localStorage.getItem('low.accepted') || '[]'); } catch (e) { return []; } };
/** @param {Accepted[]} list */
function tellAccepted(list) {
  if (!acceptedNote || !Array.isArray(list)) return;
  const known = told();
  const fresh = list.filter((a) => !known.includes(a.invitation));
  if (!fresh.length) return;
  acceptedNote.replaceChildren();
  for (const a of fresh) {
    const line = document.createElement('span');
    line.className = 'accepted-line';
    // the whole sentence is translated; the link takes the place of {link}
    const link = document.createElement('a');
    link.href = '/games/' + a.game;
    link.textContent = _('open game {id}', { id: a.game });
    const text = a.by ? _('{name} accepted your challenge: {link}', { name: a.by, link: '\u0000' })
      : _('Your opponent accepted your challenge: {link}', { link: '\u0000' });
    const at = text.indexOf('\u0000');
    if (at < 0) line.append(text, ' ', link);
    else {
      if (at > 0) line.append(text.slice(0, at));
      line.append(link);
      if (text.slice(at + 1)) line.append(text.slice(at + 1));
    }
    line.append(' ');
    acceptedNote.append(line);
  }
  acceptedNote.hidden = false;
  document.title = _('Challenge accepted · {title}', { title: baseTitle });
  try { localStorage.setItem('low.accepted', JSON.stringify(known.concat(fresh.map((a) => a.invitation)).slice(-200))); } catch (e) { /* private mode */ }
}
const acceptedData = document.getElementById('accepted-data');
if (acceptedData) { try { tellAccepted(JSON.parse(acceptedData.textContent || '')); } catch (e) { /* malformed: ignore */ } }

// --- keeping the lists current ------------------------------------------------------------------
/** @typedef {{id: number, status: string, your_turn?: boolean, turns?: number}} Listed */
const key = (/** @type {Lobby} */ d) => JSON.stringify(/** @type {Listed[][]} */ ([d.open, d.incoming, d.outgoing, d.your_turn, d.running, d.watch]).map(
  (list) => (list || []).map((x) => [x.id, x.status, x.your_turn, x.turns]),
));
/** @type {string | null} */
let last = null;
async function swapLists() {
  const r = await fetch(location.pathname, { credentials: 'same-origin', cache: 'no-store' });
  if (!r.ok) return false;
  const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
  const fresh = doc.querySelector('.lobby-grid > .column');
  const here = document.querySelector('.lobby-grid > .column');
  if (!fresh || !here) return false;
  here.replaceWith(document.importNode(fresh, true));
  return true;
}
async function poll() {
  try {
    const r = await fetch('/api/lobby', { credentials: 'same-origin', cache: 'no-store' });
    if (r.ok) {
      const data = /** @type {Lobby} */ (await r.json());
      tellAccepted(data.accepted);
      const k = key(data);
      if (last === null) last = k;
      else if (k !== last) {
        if (busy()) { if (notice) notice.hidden = false; }
        else if (await swapLists()) last = k;
      }
    }
  } catch (e) { /* offline for a moment: try again later */ }
  setTimeout(poll, document.hidden ? 15000 : 4000);
}
poll();
