/* "Your decks" (/decks, decks.html): the list of the player's decks with their buttons (copy,
 * delete, export), a new deck, and the import of a deck file. Every request goes to the deck API
 * (docs/web-api.md) through js/api.js; a refused request's {"detail"} is shown in a visible
 * message, never dropped. Confirmations use window.confirm (tests: page.on("dialog")).
 *
 * Stable hooks for browser tests:
 *   #decks-page                    root
 *   #decks-table tr[data-deck="7"][data-name]   one row per deck; in it: a[href="/decks/7"] (the name),
 *                                  .deck-state.complete | .deck-state.incomplete (what is missing),
 *                                  .army-chip[data-army], .kind (standard | mercenary | draft | custom | empty),
 *                                  .deck-copy, .deck-delete (confirm), a.deck-export-text, a.deck-export-json
 *   #decks-message                 result or error of the last action (.deck-msg.ok | .error)
 *   #new-deck-form                 input[name=name] (empty: a free name from the army), select[name=army]
 *                                  (a core army, or "" for an empty deck); submit → the new deck's editor
 *   #new-deck-error                why a new deck was refused
 *   #import-form                   #import-file (file input, read into the textarea), #import-text (textarea),
 *                                  input[name=name] (optional), #import-submit; success → the new deck's editor
 *   #import-error                  the server's message (it names the line); the bad line is selected in #import-text
 */

import { $ } from './dom.js';
import { _, ngettext } from './i18n.js';
import { applyHighContrast } from './prefs.js';
import {
  FILE_LIMIT, ago, api, armyName, cardCount, clause, download, freeName, fullTime, reason, sentence, setFlash,
  showMessage, takeFlash,
} from './deck-common.js';

/** @typedef {import('./deck-common.js').DeckDetail} DeckDetail */

/**
 * @param {string} sel
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
/**
 * A form's field by its name.
 * @param {HTMLFormElement} form
 * @param {string} name
 */
const field = (form, name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));

/** @param {HTMLElement} root */
function decksPage(root) {
  /** @type {{names?: string[], count?: number, limit?: number}} */
  const data = JSON.parse((/** @type {HTMLElement | null} */ ($('#decks-data')) || { textContent: '' }).textContent || '{}');
  const names = data.names || [];
  const msg = $('#decks-message');

  const flash = takeFlash();
  if (flash) {
    showMessage(msg, flash.text, flash.kind);
    if (flash.highlight) {
      const row = $(`#decks-table tr[data-deck="${flash.highlight}"]`);
      if (row) { row.classList.add('fresh'); row.scrollIntoView({ block: 'nearest' }); }
    }
  }
  for (const t of $$('time[datetime]', root)) {
    t.textContent = ago(t.getAttribute('datetime'));
    t.title = _('last changed {time}', { time: fullTime(t.getAttribute('datetime') || '') });
  }

  // --- the list's buttons
  const table = $('#decks-table');
  if (table) {
    table.addEventListener('click', async (ev) => {
      const btn = /** @type {HTMLButtonElement | null} */ (/** @type {Element} */ (ev.target).closest('button, a.deck-export-text, a.deck-export-json'));
      if (!btn) return;
      const row = /** @type {HTMLTableRowElement} */ (btn.closest('tr[data-deck]'));
      const id = row.dataset.deck, name = row.dataset.name || '';
      if (btn.classList.contains('deck-export-text') || btn.classList.contains('deck-export-json')) {
        ev.preventDefault();
        try {
          const file = await download(btn.getAttribute('href') || '');
          showMessage(msg, _('Downloaded “{name}” as {file}.', { name, file }), 'ok');
        } catch (e) { showMessage(msg, _('Could not export “{name}”: {reason}', { name, reason: clause(reason(e)) }), 'error'); }
      } else if (btn.classList.contains('deck-copy')) {
        btn.disabled = true;
        try {
          /** @type {DeckDetail} */
          const doc = await api('POST', `/api/decks/${id}/copy`, {});
          setFlash(_('Copied “{name}” to “{copy}”.', { name, copy: doc.name }), 'ok', { highlight: doc.id });
          location.reload();
        } catch (e) {
          btn.disabled = false;
          showMessage(msg, _('Could not copy “{name}”: {reason}', { name, reason: clause(reason(e)) }), 'error');
        }
      } else if (btn.classList.contains('deck-delete')) {
        if (!window.confirm(_('Delete the deck “{name}”? This cannot be undone.', { name }))) return;
        btn.disabled = true;
        try {
          await api('DELETE', `/api/decks/${id}`);
          row.remove();
          const i = names.indexOf(name);
          if (i >= 0) names.splice(i, 1);
          const count = $('#decks-count');
          if (count) count.textContent = ngettext('{n} of {limit} deck', '{n} of {limit} decks', data.limit || 0, { n: names.length, limit: data.limit });
          if (!$('#decks-table tbody tr')) { setFlash(_('Deleted the deck “{name}”.', { name }), 'ok'); location.reload(); return; }
          showMessage(msg, _('Deleted the deck “{name}”.', { name }), 'ok');
        } catch (e) {
          btn.disabled = false;
          showMessage(msg, _('Could not delete “{name}”: {reason}', { name, reason: clause(reason(e)) }), 'error');
        }
      }
    });
  }

  // --- new deck
  const form = /** @type {HTMLFormElement | null} */ ($('#new-deck-form'));
  const formError = $('#new-deck-error');
  if (form) {
    // the button stays disabled until this handler is attached: a click on a page still
    // loading would otherwise submit the form natively and reload the list
    /** @type {HTMLButtonElement} */ ($('#new-deck-submit')).disabled = false;
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      formError.hidden = true;
      const army = field(form, 'army').value;
      let name = field(form, 'name').value.replace(/\s+/g, ' ').trim();
      if (!name) name = freeName(names, army ? _('{army} deck', { army: armyName(army) }) : _('New deck'));
      const submit = /** @type {HTMLButtonElement} */ ($('#new-deck-submit'));
      submit.disabled = true;
      try {
        /** @type {DeckDetail} */
        const doc = await api('POST', '/api/decks', army ? { name, army } : { name });
        setFlash(army ? _('Created “{name}” from the {army} standard deck: click a card to swap it.', { name: doc.name, army: armyName(army) })
          : _('Created the empty deck “{name}”: add cards from the browser.', { name: doc.name }), 'ok');
        location.href = `/decks/${doc.id}`;
      } catch (e) {
        submit.disabled = false;
        formError.textContent = _('The deck was not created: {reason}', { reason: clause(reason(e)) });
        formError.hidden = false;
      }
    });
  }

  // --- import
  const imp = /** @type {HTMLFormElement | null} */ ($('#import-form'));
  if (imp) {
    const text = /** @type {HTMLTextAreaElement} */ ($('#import-text'));
    const fileInput = /** @type {HTMLInputElement} */ ($('#import-file'));
    const impError = $('#import-error');
    const err = (/** @type {string} */ m) => { impError.textContent = m; impError.hidden = false; };
    const read = (/** @type {File | null | undefined} */ file) => {
      impError.hidden = true;
      if (!file) return;
      if (file.size > FILE_LIMIT * 4) { err(_('The file {file} is too big ({size} kB): a deck file is at most {limit} kB.', { file: file.name, size: Math.round(file.size / 1024), limit: Math.round(FILE_LIMIT / 1024) })); return; }
      const reader = new FileReader();
      reader.onload = () => { text.value = String(reader.result || ''); text.scrollTop = 0; };
      reader.onerror = () => err(_('The file {file} could not be read.', { file: file.name }));
      reader.readAsText(file);
    };
    fileInput.addEventListener('change', () => read(fileInput.files && fileInput.files[0]));
    const drop = $('#import-drop');
    drop.addEventListener('dragover', (ev) => { if (ev.dataTransfer && [...ev.dataTransfer.types].includes('Files')) { ev.preventDefault(); drop.classList.add('dragging'); } });
    drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
    drop.addEventListener('drop', (ev) => {
      drop.classList.remove('dragging');
      if (ev.dataTransfer && ev.dataTransfer.files.length) { ev.preventDefault(); read(ev.dataTransfer.files[0]); }
    });
    text.addEventListener('input', () => { impError.hidden = true; });
    imp.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      impError.hidden = true;
      /** @type {{text: string, name?: string}} */
      const body = { text: text.value };
      const name = field(imp, 'name').value.replace(/\s+/g, ' ').trim();
      if (name) body.name = name;
      if (!body.text.trim()) { err(_('Nothing to import: choose a deck file or paste one in the box.')); return; }
      if (body.text.length > FILE_LIMIT) { err(ngettext('The file was not imported: it is too long ({n} character, at most {limit}).', 'The file was not imported: it is too long ({n} characters, at most {limit}).', body.text.length, { limit: FILE_LIMIT })); return; }
      const submit = /** @type {HTMLButtonElement} */ ($('#import-submit'));
      submit.disabled = true;
      try {
        /** @type {DeckDetail} */
        const doc = await api('POST', '/api/decks/import', body);
        setFlash(doc.complete ? _('Imported “{name}” ({cards}, complete).', { name: doc.name, cards: cardCount(doc.cards.length) })
          : _('Imported “{name}” ({cards}).', { name: doc.name, cards: cardCount(doc.cards.length) }), 'ok');
        location.href = `/decks/${doc.id}`;
      } catch (e) {
        submit.disabled = false;
        err(sentence(reason(e)));
        selectLine(text, reason(e));
        impError.scrollIntoView({ block: 'nearest' });
      }
    });
  }
}

/**
 * Select the line an error names ("line 3: ...") in the textarea, so the player sees it.
 * @param {HTMLTextAreaElement} textarea
 * @param {string} message
 */
function selectLine(textarea, message) {
  // the server's "line {line}" in the page's language: the words before the number, then the number
  const before = _('line {line}', { line: '\u0000' }).split('\u0000')[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp('(?:^|[^\\p{L}])' + before + '(\\d+)', 'u').exec(message || '');
  if (!m) return;
  const n = Number(m[1]);
  const lines = textarea.value.split('\n');
  if (n < 1 || n > lines.length) return;
  let start = 0;
  for (let i = 0; i < n - 1; i++) start += lines[i].length + 1;
  const end = start + lines[n - 1].length;
  textarea.focus({ preventScroll: true });
  textarea.setSelectionRange(start, end);
  const lh = parseFloat(getComputedStyle(textarea).lineHeight) || 18;
  textarea.scrollTop = Math.max(0, (n - 3) * lh);
}

applyHighContrast();
const list = document.getElementById('decks-page');
if (list) decksPage(list);
