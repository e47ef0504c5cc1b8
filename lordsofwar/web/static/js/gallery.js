/* The card gallery (/learn/cards): each card's face drawn large by the site's renderer, the
 * filters applied at once (the server renders the same filtering for a page without scripts),
 * and the filter state kept in the address so that a filtered view can be linked. */

import { cardEl, loadCards } from './cards.js';
import { $, $$, ready } from './dom.js';
import { _, ngettext } from './i18n.js';
import { closeMagnifier, magnify } from './magnifier.js';

/** @typedef {{army: string, rank: string, class: string, q: string}} Filters */

const FIELDS = /** @type {const} */ (['army', 'rank', 'class', 'q']);

/**
 * The filters as the form holds them.
 * @param {HTMLFormElement} form
 * @returns {Filters}
 */
function readForm(form) {
  const data = new FormData(form);
  /** @param {string} k */
  const v = (k) => String(data.get(k) || '');
  return { army: v('army'), rank: v('rank'), class: v('class'), q: v('q').trim() };
}

/**
 * Whether a gallery entry passes the filters (as the server's `matches`: the text is looked for,
 * case aside, in the card's name and id).
 * @param {HTMLElement} li
 * @param {Filters} f
 */
export function passes(li, f) {
  const d = li.dataset;
  const q = f.q.toLowerCase();
  return (!f.army || d.army === f.army) && (!f.rank || d.rank === f.rank) && (!f.class || d.class === f.class)
    && (!q || (d.name || '').toLowerCase().includes(q) || (d.card || '').includes(q));
}

/**
 * Show the entries that pass, say how many, and put the filters in the address.
 * @param {HTMLFormElement} form
 */
function apply(form) {
  const f = readForm(form);
  const items = $$('#gallery > li');
  let shown = 0;
  for (const li of items) {
    const ok = passes(li, f);
    li.hidden = !ok;
    if (ok) shown++;
  }
  const count = $('#gallery-count');
  count.dataset.shown = String(shown);
  count.textContent = ngettext('{n} card of {total} shown', '{n} cards of {total} shown', shown, { n: shown, total: items.length });
  $('#gallery-empty').hidden = shown > 0;
  const params = new URLSearchParams();
  for (const k of FIELDS) if (f[k]) params.set(k, f[k]);
  const query = params.toString();
  history.replaceState(null, '', location.pathname + (query ? '?' + query : ''));
}

ready(async () => {
  const form = /** @type {HTMLFormElement} */ ($('#gallery-filters'));
  form.addEventListener('submit', (ev) => { ev.preventDefault(); apply(form); });
  form.addEventListener('change', () => apply(form));
  $('#f-q').addEventListener('input', () => apply(form));
  $('#f-clear').addEventListener('click', (ev) => {
    ev.preventDefault();
    form.reset();
    for (const k of FIELDS) /** @type {HTMLInputElement | HTMLSelectElement} */ (form.elements.namedItem(k)).value = '';
    apply(form);
  });
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') closeMagnifier(); });
  try {
    await loadCards();
  } catch (e) {
    $('#gallery-count').textContent = e instanceof Error ? e.message : _('could not load the cards');
    return;
  }
  for (const btn of $$('#gallery .gc-face')) {
    const id = btn.dataset.card || '';
    btn.append(cardEl(id, { colour: 'me', title: false, extra: 'gallery-card' }));
    btn.addEventListener('click', () => magnify(id, { colour: 'me' }));
  }
  document.body.classList.add('gallery-drawn');
});
