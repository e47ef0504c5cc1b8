/* Lords of War — the deck pages: "Your decks" (/decks) and the deck editor (/decks/{id}).
 *
 * Plain ES2020, no build step. Both pages load game.js first: the editor draws cards with
 * window.LoW, and both use its DOM helpers. Every request goes to the deck
 * API (docs/web-api.md) with the X-CSRF-Token header; a refused request's {"detail"} is shown in a
 * visible message, never dropped. Confirmations use window.confirm (tests: page.on("dialog")).
 *
 * Stable hooks for browser tests:
 *   "Your decks" (/decks):
 *     #decks-page                    root
 *     #decks-table tr[data-deck="7"][data-name]   one row per deck; in it: a[href="/decks/7"] (the name),
 *                                    .deck-state.complete | .deck-state.incomplete (what is missing),
 *                                    .army-chip[data-army], .kind (standard | mercenary | draft | custom | empty),
 *                                    .deck-copy, .deck-delete (confirm), a.deck-export-text, a.deck-export-json
 *     #decks-message                 result or error of the last action (.deck-msg.ok | .error)
 *     #new-deck-form                 input[name=name] (empty: a free name from the army), select[name=army]
 *                                    (a core army, or "" for an empty deck); submit → the new deck's editor
 *     #new-deck-error                why a new deck was refused
 *     #import-form                   #import-file (file input, read into the textarea), #import-text (textarea),
 *                                    input[name=name] (optional), #import-submit; success → the new deck's editor
 *     #import-error                  the server's message (it names the line); the bad line is selected in #import-text
 *   The editor (/decks/{id}):
 *     #deck-editor[data-deck-id]     root
 *     #deck-name                     the name field
 *     #deck-save (Ctrl+S)            PUT with the current version; #deck-dirty shown while there are unsaved
 *                                    changes (leaving the page then asks first); #deck-saved "Saved"
 *     #deck-revert #deck-undo #deck-redo #deck-copy #deck-export-text #deck-export-json #deck-delete (confirm)
 *     #deck-reset-army + #deck-reset  start again from a core army's standard deck ("" = empty), after a confirm
 *     #deck-status                   "Complete: 36 of 36" (class complete), or "34 of 36 · missing 2 veteran cards"
 *                                    (class short), or what is over (class over)
 *     #deck-message                  the last action's message, floating at the bottom (.deck-msg.ok | .error |
 *                                    .info; ok fades after 5 s, an error stays until closed), e.g. the refusal
 *                                    "The elite rank is full (4 of 4): take an elite card out before adding Quillshot."
 *     #deck-ranks .rank-group[data-rank="command"]   one per rank (class full | short | over), heading
 *                                    .rank-head: .rn "Command" (shown in capitals by CSS), .rc "3 / 5";
 *                                    .deck-card[data-card="orcs:07"][data-index]
 *                                    (click: select it for a swap, .selected; double click: magnify),
 *                                    .deck-card .remove-card (take it out), .slot-empty (a missing card: click
 *                                    shows that rank in the browser)
 *     #card-browser                  the browser: #card-search (name or id, any case), #filter-army,
 *                                    #filter-rank, #filter-class ("all" = no filter), #browser-sort,
 *                                    #browser-merge (checked, the default: identical printed copies shown once;
 *                                    remembered in localStorage), #browser-clear,
 *                                    #browser-count, #browser-swap (shown while a deck card is selected, with
 *                                    buttons [data-act="magnify"|"remove"|"cancel"])
 *     #browser-results .browser-card[data-card][data-ids]   one per card (or per identical face: data-card is its
 *                                    first id, data-ids all of them: find any id with [data-ids~="templars:24"]);
 *                                    click the card: magnify; .add-card adds it (of a merged face, the copy the
 *                                    deck holds fewest of)
 *                                    (or, while a deck card of the same rank is selected, swaps it in: class .swap
 *                                    on the card); .in-deck the number already in the deck; class .rank-full
 *     #deck-stats[data-state="ready"|"pending"][data-cards="36"]   the statistics of the cards on screen:
 *                                    [data-stat="armies"|"cards"|"defence"|"command"|"ranged"|"ranged-damage"|
 *                                    "support"|"classes"|"attack"], class bars .st-bar[data-class="ranged"] .num,
 *                                    the compass svg .cp-val[data-dir="F"] (attack per direction)
 *     window.LoWDecks.editor.state() {id, name, version, cards, dirty, selected, analysis}
 */
(function () {
  'use strict';

  const RANKS = ['general', 'command', 'special', 'elite', 'veteran', 'regular', 'recruit'];
  const NEED = { general: 1, command: 5, special: 4, elite: 4, veteran: 6, regular: 8, recruit: 8 };
  const DECK_SIZE = 36;
  const NAME_LIMIT = 40;
  const FILE_LIMIT = 32 * 1024;
  const CLASSES = ['infantry', 'cavalry', 'berserker', 'spear', 'ranged'];
  // the shared renderer and DOM helpers of game.js, loaded before this file on both pages
  const { h, $, DIRS, RANK_ABBR } = window.LoW;
  const FLASH_KEY = 'low.decks.flash';

  // ---------------------------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------------------------

  const SVG = 'http://www.w3.org/2000/svg';
  function s(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const cap = (w) => (w ? w[0].toUpperCase() + w.slice(1) : w);
  // the data's keys in the page's language (lordsofwar/i18n.py ARMIES, RANKS, CLASSES): as names
  // ("Orcs", "Elite") and as words inside a sentence ("orcs", "elite")
  const ARMY_NAMES = {
    dwarves: _('Dwarves'), elves: _('Elves'), lizardmen: _('Lizardmen'),
    orcs: _('Orcs'), templars: _('Templars'), undead: _('Undead'),
  };
  const RANK_NAMES = {
    general: _('General'), command: _('Command'), special: _('Special'), elite: _('Elite'),
    veteran: _('Veteran'), regular: _('Regular'), recruit: _('Recruit'),
  };
  const ARMY_WORDS = {
    dwarves: _('dwarves'), elves: _('elves'), lizardmen: _('lizardmen'),
    orcs: _('orcs'), templars: _('templars'), undead: _('undead'),
  };
  const RANK_WORDS = {
    general: _('general'), command: _('command'), special: _('special'), elite: _('elite'),
    veteran: _('veteran'), regular: _('regular'), recruit: _('recruit'),
  };
  const CLASS_WORDS = {
    infantry: _('infantry'), cavalry: _('cavalry'), berserker: _('berserker'), spear: _('spear'), ranged: _('ranged'),
  };
  /** "a veteran card", "an elite card" */
  const A_RANK_CARD = {
    general: _('a general card'), command: _('a command card'), special: _('a special card'), elite: _('an elite card'),
    veteran: _('a veteran card'), regular: _('a regular card'), recruit: _('a recruit card'),
  };
  const armyName = (k) => ARMY_NAMES[k] || cap(k);
  const rankName = (k) => RANK_NAMES[k] || cap(k);
  const armyWord = (k) => ARMY_WORDS[k] || k;
  const rankWord = (k) => RANK_WORDS[k] || k;
  const classWord = (k) => CLASS_WORDS[k] || k;
  const aRankCard = (k) => A_RANK_CARD[k] || `${/^[aeiou]/i.test(k) ? 'an' : 'a'} ${k} card`;
  /** "2 veteran cards" */
  function rankCards(rank, n) {
    switch (rank) {
      case 'general': return ngettext('{n} general card', '{n} general cards', n);
      case 'command': return ngettext('{n} command card', '{n} command cards', n);
      case 'special': return ngettext('{n} special card', '{n} special cards', n);
      case 'elite': return ngettext('{n} elite card', '{n} elite cards', n);
      case 'veteran': return ngettext('{n} veteran card', '{n} veteran cards', n);
      case 'regular': return ngettext('{n} regular card', '{n} regular cards', n);
      case 'recruit': return ngettext('{n} recruit card', '{n} recruit cards', n);
      default: return `${n} ${rank} card${n === 1 ? '' : 's'}`;
    }
  }
  const cardCount = (n) => ngettext('{n} card', '{n} cards', n);
  /** A translated sentence with \u0000 in place of an element: its pieces, the element between. */
  const around = (text, el) => {
    const at = text.indexOf('\u0000');
    if (at < 0) return [text, ' ', el];
    return [text.slice(0, at), el, text.slice(at + 1)].filter((x) => x !== '');
  };
  /** A server message ("you already have a deck called 'x'") as a sentence. */
  const sentence = (m) => cap(clause(m));
  /** The same, to follow a colon ("Not saved: you already have..."). */
  const clause = (m) => { m = String(m || '').trim(); return !m || /[.!?]$/.test(m) ? m : m + '.'; };
  const numOf = (id) => parseInt(String(id).split(':')[1], 10) || 0;

  class ApiError extends Error {
    constructor(status, message, code) { super(message); this.status = status; this.code = code || null; }
  }

  function csrfToken() {
    const m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute('content') : '';
  }

  /** JSON request to the API; a refusal throws ApiError with the server's detail. */
  async function api(method, url, body) {
    const opts = { method, credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } };
    if (method !== 'GET') opts.headers['X-CSRF-Token'] = csrfToken();
    if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
    let r;
    try {
      r = await fetch(url, opts);
    } catch (e) {
      throw new ApiError(0, _('the server could not be reached: check your connection and try again'));
    }
    const text = await r.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!r.ok) {
      let detail = data && typeof data.detail === 'string' ? data.detail : _('the server answered {status} {text}', { status: r.status, text: r.statusText || '' }).trim();
      if (r.status === 401) detail = _('you are signed out: sign in again (in another tab, to keep this page) and retry');
      throw new ApiError(r.status, detail, data && typeof data.code === 'string' ? data.code : null);
    }
    return data;
  }

  /** Download an export through fetch, so that a refusal shows as a message, not a broken file. */
  async function download(url) {
    let r;
    try {
      r = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      throw new ApiError(0, _('the server could not be reached: check your connection and try again'));
    }
    if (!r.ok) {
      let detail = _('the server answered {status}', { status: r.status });
      try { const d = await r.json(); if (d && typeof d.detail === 'string') detail = d.detail; } catch (e) { /* not JSON */ }
      throw new ApiError(r.status, detail, data && typeof data.code === 'string' ? data.code : null);
    }
    const cd = r.headers.get('Content-Disposition') || '';
    const star = /filename\*=UTF-8''([^;]+)/i.exec(cd);
    const m = /filename="?([^";]+)"?/i.exec(cd);
    let name = m ? m[1] : 'deck.txt';
    if (star) { try { name = decodeURIComponent(star[1]); } catch (e) { /* keep the plain name */ } }
    const blob = await r.blob();
    const href = URL.createObjectURL(blob);
    const a = h('a', { href, download: name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(href), 4000);
    return name;
  }

  /** A message that survives a page change (shown by the next deck page). */
  function setFlash(text, kind, extra) {
    try { sessionStorage.setItem(FLASH_KEY, JSON.stringify({ text, kind: kind || 'ok', ...(extra || {}) })); } catch (e) { /* private mode */ }
  }
  function takeFlash() {
    try {
      const v = sessionStorage.getItem(FLASH_KEY);
      sessionStorage.removeItem(FLASH_KEY);
      return v ? JSON.parse(v) : null;
    } catch (e) { return null; }
  }

  /** Show a message in a .deck-msg box; ok and info messages fade after a while. */
  function showMessage(box, text, kind, extra) {
    if (!box) return;
    clearTimeout(box._timer);
    box.className = 'deck-msg ' + (kind || 'ok');
    const close = h('button', { type: 'button', class: 'msg-close', 'aria-label': _('Close'), title: _('Close'), text: '×', onclick: () => { box.hidden = true; } });
    box.replaceChildren(close, h('span', { class: 'msg-text', text }), extra || '');
    box.hidden = false;
    if (kind !== 'error') box._timer = setTimeout(() => { box.hidden = true; }, kind === 'info' ? 9000 : 5000);
  }
  function hideMessage(box) { if (box) { clearTimeout(box._timer); box.hidden = true; } }

  /** ISO time → "just now", "5 min ago", "yesterday", "12 Mar 2025". Naive times are UTC. */
  function ago(iso) {
    if (!iso) return '';
    const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : iso + 'Z');
    if (Number.isNaN(t)) return iso.slice(0, 10);
    const sec = Math.max(0, (Date.now() - t) / 1000);
    if (sec < 45) return _('just now');
    if (sec < 3600) return _('{n} min ago', { n: Math.round(sec / 60) });
    if (sec < 86400) return ngettext('{n} hour ago', '{n} hours ago', Math.round(sec / 3600));
    if (sec < 2 * 86400) return _('yesterday');
    if (sec < 7 * 86400) return ngettext('{n} day ago', '{n} days ago', Math.floor(sec / 86400));
    return new Date(t).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  }
  const fullTime = (iso) => {
    const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : iso + 'Z');
    return Number.isNaN(t) ? iso : new Date(t).toLocaleString(window.LOW_LANG || undefined);
  };

  /** The first ``n`` characters of ``s``, counted as the server counts them (code points: an
   * emoji is never cut in half). */
  const cut = (s, n) => Array.from(s).slice(0, n).join('');

  /** ``base``, or ``base (2)``... whichever none of ``names`` takes (as the server picks copies' names). */
  function freeName(names, base) {
    base = cut(base.replace(/\s+/g, ' ').trim(), NAME_LIMIT);
    const taken = new Set(names.map((n) => n.toLowerCase()));
    if (!taken.has(base.toLowerCase())) return base;
    for (let n = 2; n < 200; n++) {
      const suffix = ` (${n})`;
      const name = cut(base, NAME_LIMIT - suffix.length) + suffix;
      if (!taken.has(name.toLowerCase())) return name;
    }
    return base;
  }

  // ---------------------------------------------------------------------------------------------
  // "Your decks"
  // ---------------------------------------------------------------------------------------------

  function decksPage(root) {
    const data = JSON.parse(($('#decks-data') || {}).textContent || '{}');
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
      t.title = _('last changed {time}', { time: fullTime(t.getAttribute('datetime')) });
    }

    // --- the list's buttons
    const table = $('#decks-table');
    if (table) {
      table.addEventListener('click', async (ev) => {
        const btn = ev.target.closest('button, a.deck-export-text, a.deck-export-json');
        if (!btn) return;
        const row = btn.closest('tr[data-deck]');
        const id = row.dataset.deck, name = row.dataset.name;
        if (btn.classList.contains('deck-export-text') || btn.classList.contains('deck-export-json')) {
          ev.preventDefault();
          try {
            const file = await download(btn.getAttribute('href'));
            showMessage(msg, _('Downloaded “{name}” as {file}.', { name, file }), 'ok');
          } catch (e) { showMessage(msg, _('Could not export “{name}”: {reason}', { name, reason: clause(e.message) }), 'error'); }
        } else if (btn.classList.contains('deck-copy')) {
          btn.disabled = true;
          try {
            const doc = await api('POST', `/api/decks/${id}/copy`, {});
            setFlash(_('Copied “{name}” to “{copy}”.', { name, copy: doc.name }), 'ok', { highlight: doc.id });
            location.reload();
          } catch (e) {
            btn.disabled = false;
            showMessage(msg, _('Could not copy “{name}”: {reason}', { name, reason: clause(e.message) }), 'error');
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
            if (count) count.textContent = _('{n} of {limit} decks', { n: names.length, limit: data.limit });
            if (!$('#decks-table tbody tr')) { setFlash(_('Deleted the deck “{name}”.', { name }), 'ok'); location.reload(); return; }
            showMessage(msg, _('Deleted the deck “{name}”.', { name }), 'ok');
          } catch (e) {
            btn.disabled = false;
            showMessage(msg, _('Could not delete “{name}”: {reason}', { name, reason: clause(e.message) }), 'error');
          }
        }
      });
    }

    // --- new deck
    const form = $('#new-deck-form');
    const formError = $('#new-deck-error');
    if (form) {
      // the button stays disabled until this handler is attached: a click on a page still
      // loading would otherwise submit the form natively and reload the list
      $('#new-deck-submit').disabled = false;
      form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        formError.hidden = true;
        const army = form.elements.army.value;
        let name = form.elements.name.value.replace(/\s+/g, ' ').trim();
        if (!name) name = freeName(names, army ? _('{army} deck', { army: armyName(army) }) : _('New deck'));
        const submit = $('#new-deck-submit');
        submit.disabled = true;
        try {
          const doc = await api('POST', '/api/decks', army ? { name, army } : { name });
          setFlash(army ? _('Created “{name}” from the {army} standard deck: click a card to swap it.', { name: doc.name, army: armyName(army) })
            : _('Created the empty deck “{name}”: add cards from the browser.', { name: doc.name }), 'ok');
          location.href = `/decks/${doc.id}`;
        } catch (e) {
          submit.disabled = false;
          formError.textContent = _('The deck was not created: {reason}', { reason: clause(e.message) });
          formError.hidden = false;
        }
      });
    }

    // --- import
    const imp = $('#import-form');
    if (imp) {
      const text = $('#import-text');
      const fileInput = $('#import-file');
      const impError = $('#import-error');
      const err = (m) => { impError.textContent = m; impError.hidden = false; };
      const read = (file) => {
        impError.hidden = true;
        if (!file) return;
        if (file.size > FILE_LIMIT * 4) { err(_('The file {file} is too big ({size} kB): a deck file is at most 32 kB.', { file: file.name, size: Math.round(file.size / 1024) })); return; }
        const reader = new FileReader();
        reader.onload = () => { text.value = String(reader.result || ''); text.scrollTop = 0; };
        reader.onerror = () => err(_('The file {file} could not be read.', { file: file.name }));
        reader.readAsText(file);
      };
      fileInput.addEventListener('change', () => read(fileInput.files[0]));
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
        const body = { text: text.value };
        const name = imp.elements.name.value.replace(/\s+/g, ' ').trim();
        if (name) body.name = name;
        if (!body.text.trim()) { err(_('Nothing to import: choose a deck file or paste one in the box.')); return; }
        if (body.text.length > FILE_LIMIT) { err(_('The file was not imported: it is too long ({n} characters, at most {limit}).', { n: body.text.length, limit: FILE_LIMIT })); return; }
        const submit = $('#import-submit');
        submit.disabled = true;
        try {
          const doc = await api('POST', '/api/decks/import', body);
          setFlash(doc.complete ? _('Imported “{name}” ({cards}, complete).', { name: doc.name, cards: cardCount(doc.cards.length) })
            : _('Imported “{name}” ({cards}).', { name: doc.name, cards: cardCount(doc.cards.length) }), 'ok');
          location.href = `/decks/${doc.id}`;
        } catch (e) {
          submit.disabled = false;
          err(sentence(e.message));
          selectLine(text, e.message);
          impError.scrollIntoView({ block: 'nearest' });
        }
      });
    }
  }

  /** Select the line an error names ("line 3: ...") in the textarea, so the player sees it. */
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

  // ---------------------------------------------------------------------------------------------
  // The deck editor
  // ---------------------------------------------------------------------------------------------

  async function editor(root) {
    const LoW = window.LoW;
    const deck = JSON.parse($('#deck-data').textContent);
    const ARMIES = JSON.parse(($('#deck-armies') || {}).textContent || '[]');
    const msg = $('#deck-message');
    const statusEl = $('#deck-status');
    const nameInput = $('#deck-name');

    const S = {
      id: deck.id,
      version: deck.version,
      name: deck.name,
      cards: deck.cards.slice(),
      saved: { name: deck.name, cards: deck.cards.slice() },
      savedStats: deck.analysis ? deck.analysis.stats : null,
      analysis: deck.analysis || null,
      analysed: deck.cards.join(','),
      seq: 0,
      selected: null, // index in S.cards of the card picked for a swap
      prevRank: null, // the rank filter before a selection changed it
      undo: [],
      redo: [],
      busy: false,
      leaving: false,
      savedAt: null,
    };
    window.LoWDecks = window.LoWDecks || {};
    window.LoWDecks.editor = {
      state: () => ({ id: S.id, name: S.name, version: S.version, cards: S.cards.slice(), dirty: dirty(), selected: S.selected, analysis: S.analysis }),
    };

    const flash = takeFlash();
    if (flash) showMessage(msg, flash.text, flash.kind);

    try {
      await LoW.loadCards();
    } catch (e) {
      statusEl.textContent = _('The cards could not be loaded: reload the page.');
      statusEl.className = 'deck-status over';
      showMessage(msg, sentence(e.message), 'error');
      return;
    }
    const CARDS = LoW.CARDS;
    const card = (id) => CARDS[id] || null;
    const ALL = Object.values(CARDS).sort((a, b) => armyIndex(a.army) - armyIndex(b.army) || numOf(a.id) - numOf(b.id));
    function armyIndex(a) { const i = ARMIES.indexOf(a); return i < 0 ? 99 : i; }
    const cmpDeck = (x, y) => {
      const a = card(x), b = card(y);
      if (!a || !b) return x < y ? -1 : x > y ? 1 : 0;
      return RANKS.indexOf(a.rank) - RANKS.indexOf(b.rank) || (a.army < b.army ? -1 : a.army > b.army ? 1 : 0)
        || numOf(x) - numOf(y) || (x < y ? -1 : x > y ? 1 : 0);
    };
    const sorted = (ids) => ids.slice().sort(cmpDeck);
    const standardDeck = (army) => ALL.filter((c) => c.army === army).map((c) => c.id);
    const counts = (ids) => { const n = {}; for (const r of RANKS) n[r] = 0; for (const id of ids) { const c = card(id); if (c) n[c.rank]++; } return n; };
    const sameCards = (a, b) => a.length === b.length && sorted(a).join(',') === sorted(b).join(',');
    const dirty = () => S.name.replace(/\s+/g, ' ').trim() !== S.saved.name || !sameCards(S.cards, S.saved.cards);
    const cardLabel = (c) => _('{card} ({army}, {rank} {unitclass})', { card: c.name, army: armyWord(c.army), rank: rankWord(c.rank), unitclass: classWord(c.class) });

    /** What the server's add_problem says, with a/an: why ``id`` cannot join ``ids``, or null. */
    function addProblem(ids, id) {
      const c = card(id);
      const have = counts(ids)[c.rank], need = NEED[c.rank];
      if (have >= need) return _('The {rank} rank is full ({have} of {need}): take {a_card} out before adding {card}.', { rank: rankWord(c.rank), have, need, a_card: aRankCard(c.rank), card: c.name });
      return null;
    }
    function missing(ids) {
      const n = counts(ids);
      return RANKS.filter((r) => n[r] < NEED[r]).map((r) => rankCards(r, NEED[r] - n[r]));
    }
    function overs(ids) {
      const n = counts(ids);
      return RANKS.filter((r) => n[r] > NEED[r]).map((r) => _('{cards} ({over} over the {need} allowed)', { cards: rankCards(r, n[r]), over: n[r] - NEED[r], need: NEED[r] }));
    }
    function standardOf(ids) {
      if (ids.length !== DECK_SIZE) return null;
      const key = sorted(ids).join(',');
      for (const a of ARMIES) if (sorted(standardDeck(a)).join(',') === key) return a;
      return null;
    }
    const armiesOf = (ids) => [...new Set(ids.map((id) => (card(id) || {}).army).filter(Boolean))].sort((a, b) => armyIndex(a) - armyIndex(b));

    // --- the browser's faces: one per card, or one per identical printed face -----------------
    const faceKey = (c) => JSON.stringify([c.army, c.name, c.rank, c.class, c.defence, DIRS.map((d) => (c.attacks || {})[d] || 0), c.ranged, c.moves]);
    const FACES = { all: ALL.map((c) => ({ ids: [c.id], card: c })), merged: [] };
    {
      const seen = new Map();
      for (const c of ALL) {
        const k = faceKey(c);
        if (seen.has(k)) seen.get(k).ids.push(c.id);
        else { const f = { ids: [c.id], card: c }; seen.set(k, f); FACES.merged.push(f); }
      }
    }

    // --- elements ---------------------------------------------------------------------------------
    const ranksEl = $('#deck-ranks');
    const resultsEl = $('#browser-results');
    const statsEl = $('#deck-stats');
    const swapBar = $('#browser-swap');
    const F = {
      q: $('#card-search'), army: $('#filter-army'), rank: $('#filter-rank'), cls: $('#filter-class'),
      sort: $('#browser-sort'), merge: $('#browser-merge'),
    };
    try { F.merge.checked = localStorage.getItem('low.decks.merge') !== 'false'; } catch (e) { /* private mode */ }

    // ---------------------------------------------------------------------------------------------
    // Changing the deck
    // ---------------------------------------------------------------------------------------------

    function commit(ids, opts = {}) {
      S.undo.push(S.cards.slice());
      if (S.undo.length > 300) S.undo.shift();
      S.redo = [];
      S.cards = sorted(ids);
      S.selected = opts.keepSelection ? S.selected : null;
      changed(opts.fresh);
    }

    function changed(fresh) {
      renderDeck(fresh);
      renderStatus();
      renderSelection();
      updateBrowser();
      updateChrome();
      scheduleAnalyse();
    }

    function addCard(id) {
      const c = card(id);
      if (!c) return;
      const sel = S.selected !== null ? card(S.cards[S.selected]) : null;
      if (sel && sel.rank === c.rank) {
        const out = S.cards[S.selected];
        const ids = S.cards.slice();
        ids.splice(S.selected, 1, id);
        const outCard = card(out);
        commit(ids, { fresh: id });
        showMessage(msg, out === id ? _('{card} stays.', { card: c.name })
          : _('Swapped {out} ({out_army}) for {card} ({army}).', { out: outCard.name, out_army: armyWord(outCard.army), card: c.name, army: armyWord(c.army) }), 'ok');
        return;
      }
      const problem = addProblem(S.cards, id);
      if (problem) {
        showMessage(msg, problem + ' ' + _('Or click {a_card} in the deck to swap it for this one.', { a_card: aRankCard(c.rank) }), 'error');
        const g = $(`.rank-group[data-rank="${c.rank}"]`, ranksEl);
        if (g) { g.classList.remove('nudge'); void g.offsetWidth; g.classList.add('nudge'); setTimeout(() => g.classList.remove('nudge'), 1600); }
        return;
      }
      hideMessage(msg);
      commit(S.cards.concat([id]), { fresh: id });
    }

    /** Which id a face adds: the copy the deck holds fewest of (so a standard deck can be rebuilt). */
    function pickId(ids) {
      let best = ids[0], fewest = Infinity;
      for (const id of ids) {
        const n = S.cards.filter((x) => x === id).length;
        if (n < fewest) { fewest = n; best = id; }
      }
      return best;
    }

    function removeAt(index) {
      const id = S.cards[index];
      if (id === undefined) return;
      const ids = S.cards.slice();
      ids.splice(index, 1);
      const c = card(id);
      commit(ids);
      showMessage(msg, _('Took out {card}.', { card: c ? c.name : id }), 'ok', h('button', { type: 'button', class: 'small', style: 'margin-left:.6rem', text: _('Undo'), onclick: undo }));
    }

    function undo() {
      if (!S.undo.length) return;
      S.redo.push(S.cards.slice());
      S.cards = S.undo.pop();
      S.selected = null;
      hideMessage(msg);
      changed();
    }
    function redo() {
      if (!S.redo.length) return;
      S.undo.push(S.cards.slice());
      S.cards = S.redo.pop();
      S.selected = null;
      hideMessage(msg);
      changed();
    }

    function select(index) {
      if (index === null || S.selected === index) { clearSelection(true); return; }
      const c = card(S.cards[index]);
      if (!c) return;
      if (S.selected === null) S.prevRank = F.rank.value;
      S.selected = index;
      F.rank.value = c.rank;
      renderDeck();
      renderSelection();
      renderBrowser(true);
    }
    function clearSelection(restore) {
      if (S.selected === null) return;
      S.selected = null;
      if (restore && S.prevRank !== null) F.rank.value = S.prevRank;
      S.prevRank = null;
      renderDeck();
      renderSelection();
      renderBrowser();
    }

    // ---------------------------------------------------------------------------------------------
    // Drawing the deck
    // ---------------------------------------------------------------------------------------------

    function renderDeck(fresh) {
      const n = counts(S.cards);
      const groups = [];
      const target = S.selected !== null ? (card(S.cards[S.selected]) || {}).rank : (F.rank.value !== 'all' ? F.rank.value : null);
      for (const r of RANKS) {
        const state = n[r] > NEED[r] ? 'over' : n[r] === NEED[r] ? 'full' : 'short';
        const slots = h('div', { class: 'slots' });
        S.cards.forEach((id, i) => {
          const c = card(id);
          if ((c ? c.rank : null) !== r) return;
          const el = h('div', {
            class: 'deck-card' + (i === S.selected ? ' selected' : '') + (fresh && id === fresh ? ' fresh' : ''),
            'data-card': id, 'data-index': i, 'data-army': c.army,
          },
          LoW.cardEl(id, { side: 'bottom' }),
          h('i', { class: 'army-mark', title: armyName(c.army) }),
          // the focusable part: a transparent button over the card (a control holding the card's
          // text, or the remove button, would be named by neither)
          h('button', { type: 'button', class: 'dc-pick', 'aria-pressed': i === S.selected ? 'true' : 'false',
            'aria-label': _('{card}: select to swap', { card: cardLabel(c) }) }),
          h('button', { type: 'button', class: 'remove-card', title: _('Take out {card}', { card: c.name }), 'aria-label': _('Take out {card}', { card: c.name }), text: '×' }));
          slots.append(el);
        });
        for (let k = n[r]; k < NEED[r]; k++) {
          slots.append(h('button', { type: 'button', class: 'slot-empty', 'data-slot-rank': r, title: _('A missing {rank} card: show the {rank} cards', { rank: rankWord(r) }) },
            '+', h('span', { text: RANK_ABBR[r] })));
        }
        groups.push(h('section', { class: `rank-group ${state}` + (target === r ? ' target' : ''), 'data-rank': r, 'aria-label': _('{rank}: {n} of {need}', { rank: rankName(r), n: n[r], need: NEED[r] }) },
          h('h3', { class: 'rank-head' }, h('span', { class: 'rn', text: rankName(r) }), h('span', { class: 'rc', text: `${n[r]} / ${NEED[r]}` })),
          slots));
      }
      const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest('.deck-card');
      const focusIndex = focused ? Number(focused.dataset.index) : null;
      ranksEl.replaceChildren(...groups);
      if (focusIndex !== null) {
        const again = $(`.deck-card[data-index="${Math.min(focusIndex, S.cards.length - 1)}"]`, ranksEl);
        if (again) again.querySelector('.dc-pick').focus({ preventScroll: true });
      }
    }

    function renderStatus(serverMissing) {
      const over = overs(S.cards);
      const lacking = serverMissing || missing(S.cards);
      const n = S.cards.length;
      statusEl.replaceChildren();
      if (over.length) {
        statusEl.className = 'deck-status over';
        statusEl.append(_('Over: the deck has {list}', { list: over.join('; ') }));
      } else if (lacking.length) {
        statusEl.className = 'deck-status short';
        statusEl.append(h('b', { text: _('{n} of {total}', { n, total: DECK_SIZE }) }), h('span', { class: 'ds-sub', text: ' · ' + _('missing {list}', { list: lacking.join(', ') }) }));
      } else {
        statusEl.className = 'deck-status complete';
        const std = standardOf(S.cards), armies = armiesOf(S.cards);
        const sub = std ? _('the {army} standard deck', { army: armyName(std) })
          : armies.length > 1 ? _('a mercenary army ({armies})', { armies: armies.map(armyName).join(', ') })
            : _('a custom {army} deck', { army: armyName(armies[0] || '') });
        statusEl.append(h('b', { text: _('Complete: {n} of {total}', { n, total: DECK_SIZE }) }), h('span', { class: 'ds-sub', text: ` · ${sub}` }));
      }
    }

    function renderSelection() {
      const sel = S.selected !== null ? card(S.cards[S.selected]) : null;
      if (!sel) { swapBar.hidden = true; return; }
      swapBar.replaceChildren(
        h('span', { class: 'grow' }, ...around(_('⇄ Swap out {card} ({army}): pick {a_card} below.', { card: '\u0000', army: armyWord(sel.army), a_card: aRankCard(sel.rank) }),
          h('b', { text: sel.name }))),
        h('span', { class: 'cb-swap-acts' },
          h('button', { type: 'button', class: 'small', 'data-act': 'magnify', text: _('Magnify') }),
          h('button', { type: 'button', class: 'small danger', 'data-act': 'remove', text: _('Take out') }),
          h('button', { type: 'button', class: 'small', 'data-act': 'cancel', text: _('Cancel') })));
      swapBar.hidden = false;
    }

    function updateChrome() {
      const d = dirty();
      $('#deck-dirty').hidden = !d;
      $('#deck-revert').disabled = !d;
      $('#deck-undo').disabled = !S.undo.length;
      $('#deck-redo').disabled = !S.redo.length;
      $('#deck-save').classList.toggle('is-dirty', d);
      const saved = $('#deck-saved');
      saved.textContent = !d && S.savedAt ? _('Saved') : '';
      const untitled = _('Deck');
      document.title = (d ? '● ' : '') + _('{name} · Deck editor · Lords of War', { name: S.name.trim() || untitled });
      const n = counts(S.cards);
      for (const opt of F.rank.options) {
        if (opt.value !== 'all') opt.textContent = `${rankName(opt.value)} ${n[opt.value]}/${NEED[opt.value]}`;
      }
    }

    // ---------------------------------------------------------------------------------------------
    // The card browser
    // ---------------------------------------------------------------------------------------------

    function faceMatches(f) {
      const c = f.card;
      const q = F.q.value.trim().toLowerCase();
      if (F.army.value !== 'all' && c.army !== F.army.value) return false;
      if (F.rank.value !== 'all' && c.rank !== F.rank.value) return false;
      if (F.cls.value !== 'all' && c.class !== F.cls.value) return false;
      if (q && !c.name.toLowerCase().includes(q) && !f.ids.some((id) => id.toLowerCase().includes(q))) return false;
      return true;
    }
    const attackTotal = (c) => Object.values(c.attacks || {}).reduce((a, b) => a + b, 0);
    const SORTS = {
      army: (a, b) => armyIndex(a.card.army) - armyIndex(b.card.army) || RANKS.indexOf(a.card.rank) - RANKS.indexOf(b.card.rank)
        || numOf(a.card.id) - numOf(b.card.id),
      name: (a, b) => a.card.name.localeCompare(b.card.name),
      defence: (a, b) => b.card.defence - a.card.defence,
      attack: (a, b) => attackTotal(b.card) - attackTotal(a.card),
      ranged: (a, b) => ((b.card.ranged || {}).damage || 0) - ((a.card.ranged || {}).damage || 0),
    };

    function renderBrowser(toTop) {
      const faces = F.merge.checked ? FACES.merged : FACES.all;
      const shown = faces.filter(faceMatches);
      shown.sort((a, b) => (SORTS[F.sort.value] || SORTS.army)(a, b) || SORTS.army(a, b));
      const tiles = shown.map((f) => {
        const c = f.card;
        const tile = h('div', { class: 'browser-card', 'data-card': f.ids[0], 'data-ids': f.ids.join(' '), 'data-army': c.army },
          h('div', { class: 'bc-face', title: _('{card}: click to magnify', { card: cardLabel(c) })
            + (f.ids.length > 1 ? '\n' + ngettext('{n} identical copy: {ids}', '{n} identical copies: {ids}', f.ids.length, { ids: f.ids.join(', ') }) : '') },
            LoW.cardEl(f.ids[0], { side: 'bottom', title: false }),
            h('i', { class: 'army-mark' })),
          h('div', { class: 'bc-foot' },
            h('button', { type: 'button', class: 'add-card', text: _('+ Add') }),
            h('span', { class: 'in-deck', hidden: true })));
        tile._face = f;
        return tile;
      });
      const total = faces.length;
      $('#browser-count').textContent = shown.length === total ? cardCount(total)
        : ngettext('{shown} of {n} card', '{shown} of {n} cards', total, { shown: shown.length });
      if (!tiles.length) {
        tiles.push(h('div', { class: 'cb-empty' }, h('p', { text: _('No card matches the search and the filters.') }),
          h('button', { type: 'button', class: 'small', text: _('Clear them'), onclick: clearFilters })));
      }
      resultsEl.replaceChildren(...tiles);
      if (toTop) resultsEl.scrollTop = 0;
      for (const [k, el] of Object.entries(F)) if (el.tagName === 'SELECT' && k !== 'sort') el.classList.toggle('on', el.value !== 'all');
      updateBrowser();
      // the deck's rank highlight follows the rank filter
      const target = S.selected !== null ? (card(S.cards[S.selected]) || {}).rank : (F.rank.value !== 'all' ? F.rank.value : null);
      for (const g of $$('.rank-group', ranksEl)) g.classList.toggle('target', g.dataset.rank === target);
    }

    /** The add buttons' states after the deck changed (without redrawing the cards). */
    function updateBrowser() {
      const n = counts(S.cards);
      const inDeck = {};
      for (const id of S.cards) inDeck[id] = (inDeck[id] || 0) + 1;
      const sel = S.selected !== null ? card(S.cards[S.selected]) : null;
      for (const tile of resultsEl.querySelectorAll('.browser-card')) {
        const f = tile._face;
        if (!f) continue;
        const c = f.card;
        const count = f.ids.reduce((a, id) => a + (inDeck[id] || 0), 0);
        const badge = tile.querySelector('.in-deck');
        badge.hidden = !count;
        badge.textContent = count ? '×' + count : '';
        badge.title = count ? _('{n} in the deck', { n: count }) : '';
        const swap = !!sel && sel.rank === c.rank;
        const full = !swap && n[c.rank] >= NEED[c.rank];
        tile.classList.toggle('swap', swap);
        tile.classList.toggle('rank-full', full);
        const btn = tile.querySelector('.add-card');
        btn.textContent = swap ? _('⇄ Swap') : _('+ Add');
        btn.title = swap ? _('Put {card} in place of {out}', { card: c.name, out: sel.name })
          : full ? _('The {rank} rank is full ({have} of {need}): select {a_card} in the deck to swap it', { rank: rankWord(c.rank), have: n[c.rank], need: NEED[c.rank], a_card: aRankCard(c.rank) })
            : _('Add {card} ({rank}: {have} of {need})', { card: c.name, rank: rankWord(c.rank), have: n[c.rank], need: NEED[c.rank] });
        btn.setAttribute('aria-label', swap ? _('Swap in {card}', { card: c.name }) : _('Add {card}', { card: c.name }));
      }
    }

    function clearFilters() {
      F.q.value = '';
      F.army.value = 'all';
      F.rank.value = 'all';
      F.cls.value = 'all';
      if (S.selected !== null) { S.selected = null; S.prevRank = null; renderDeck(); renderSelection(); }
      renderBrowser(true);
    }

    // ---------------------------------------------------------------------------------------------
    // Statistics (POST /api/decks/analyse; the last answer wins)
    // ---------------------------------------------------------------------------------------------

    let analyseTimer = null;
    function scheduleAnalyse() {
      const key = S.cards.join(',');
      if (key === S.analysed && S.analysis) { statsEl.dataset.state = 'ready'; renderStats(); return; }
      statsEl.dataset.state = 'pending';
      statsEl.classList.add('st-pending');
      clearTimeout(analyseTimer);
      analyseTimer = setTimeout(analyse, 120);
    }
    async function analyse() {
      const seq = ++S.seq;
      const cards = S.cards.slice();
      try {
        const a = await api('POST', '/api/decks/analyse', { cards });
        if (seq !== S.seq) return; // a newer request is under way
        S.analysis = a;
        S.analysed = cards.join(',');
        statsEl.dataset.state = 'ready';
        statsEl.classList.remove('st-pending');
        renderStats();
        if (S.analysed === S.cards.join(',')) renderStatus(a.over ? null : a.missing);
      } catch (e) {
        if (seq !== S.seq) return;
        statsEl.dataset.state = 'ready';
        statsEl.classList.remove('st-pending');
        showMessage(msg, _('The statistics could not be updated: {reason}', { reason: clause(e.message) }), 'error');
      }
    }

    function delta(now, before, digits) {
      if (!dirty() || before === null || before === undefined || now === null || now === undefined) return null;
      const d = +(now - before).toFixed(digits || 0);
      if (!d) return null;
      return h('span', { class: 'delta ' + (d > 0 ? 'up' : 'down'), title: _('change since the last save'), text: (d > 0 ? '+' : '−') + Math.abs(d) });
    }

    function renderStats() {
      const a = S.analysis;
      if (!a) return;
      const st = a.stats;
      const was = S.savedStats || {};
      const n = st.cards;
      statsEl.dataset.cards = String(n);
      const blocks = [h('h2', { class: 'panel-title', text: _('Statistics') })];

      // kind, armies, whether a game can use it
      const armies = Object.entries(st.armies || {});
      const kind = a.standard_army ? ['standard', _('{army} standard', { army: armyName(a.standard_army) })] : armies.length > 1 ? ['mercenary', _('mercenary')]
        : !a.complete && armies.length ? ['draft', _('draft')] : armies.length ? ['custom', _('custom')] : ['', _('empty')];
      const armyBars = armies.map(([army, k]) => h('div', { class: 'st-bar', 'data-army': army },
        h('span', { class: 'lbl', text: armyWord(army) }),
        h('span', { class: 'track' }, h('span', { class: 'fill', style: `width:${(100 * k / Math.max(1, n)).toFixed(1)}%` })),
        h('span', { class: 'num', text: k })));
      let play;
      if (a.complete) {
        const used = armies.map(([x]) => armyName(x));
        const list = used.length > 1 ? _('{list} and {last}', { list: used.slice(0, -1).join(', '), last: used[used.length - 1] }) : used.join('');
        play = h('p', { class: 'st-play' }, ...around(_('Playable in games that allow custom decks from {armies}.', { armies: '\u0000' }), h('b', { text: list })));
      } else {
        const short = DECK_SIZE - n;
        play = h('p', { class: 'st-play no', text: a.over ? sentence(a.over) : ngettext('Not playable yet: {n} card to add.', 'Not playable yet: {n} cards to add.', short) });
      }
      blocks.push(h('div', { class: 'st-block', 'data-stat': 'armies' },
        h('h3', null, _('Armies'), h('span', { class: 'kind ' + kind[0], text: kind[1] })),
        armyBars.length ? h('div', { class: 'st-bars' }, armyBars) : h('p', { class: 'st-note', text: _('No cards yet.') }),
        play));

      // key figures
      const fig = (stat, value, label, d, title) => h('div', { class: 'st-fig', 'data-stat': stat, title: title || null }, h('b', null, h('span', { class: 'v', text: value }), d), h('span', { text: label }));
      const pct = st.support_share === null || st.support_share === undefined ? '–' : Math.round(st.support_share * 100) + '%';
      blocks.push(h('div', { class: 'st-block' },
        h('div', { class: 'st-figs' },
          fig('cards', `${n}`, _('of {n} cards', { n: DECK_SIZE }), delta(n, was.cards)),
          fig('defence', st.average_defence === null ? '–' : st.average_defence.toLocaleString(window.LOW_LANG || 'en', { minimumFractionDigits: 2, maximumFractionDigits: 2 }), _('avg. defence'), delta(st.average_defence, was.average_defence, 2), _('the average defence of the cards')),
          fig('command', `${st.command_units}`, _('command units'), delta(st.command_units, was.command_units), _('the general and the command units: eliminate them to win')),
          fig('ranged', `${st.ranged_units}`, _('ranged units'), delta(st.ranged_units, was.ranged_units), _('units with a ranged weapon')),
          fig('ranged-damage', `${st.ranged_damage}`, _('ranged damage'), delta(st.ranged_damage, was.ranged_damage), _('the total damage of the ranged weapons')),
          fig('support', `${pct}`, _('support ({n})', { n: st.support_units }), delta(st.support_units, was.support_units), _('{n} spear and ranged units: they can open as support units', { n: st.support_units })))));

      // classes
      const maxCls = Math.max(1, ...CLASSES.map((c) => st.classes[c] || 0));
      blocks.push(h('div', { class: 'st-block', 'data-stat': 'classes' },
        h('h3', { text: _('Classes') }),
        h('div', { class: 'st-bars' }, CLASSES.map((c) => h('div', { class: 'st-bar', 'data-class': c },
          h('span', { class: 'lbl', text: classWord(c) }),
          h('span', { class: 'track' }, h('span', { class: 'fill', style: `width:${(100 * (st.classes[c] || 0) / maxCls).toFixed(1)}%` })),
          h('span', { class: 'num' }, String(st.classes[c] || 0), delta(st.classes[c] || 0, (was.classes || {})[c])))))));

      // attack by direction
      blocks.push(h('div', { class: 'st-block', 'data-stat': 'attack' },
        h('h3', { text: _('Attack by direction') }),
        h('div', { class: 'st-compass', title: _("The sum of every card's attack arrow in each direction; the front (F) is up.") }, compass(st.attack, st.attack_total))));

      statsEl.replaceChildren(...blocks);
    }

    /** An 8-direction chart: a unit in the middle, a ray per direction as long as its total. */
    function compass(attack, total) {
      const svg = s('svg', { viewBox: '-112 -108 224 216', role: 'img', 'aria-label': _('Attack by direction: {list}', { list: DIRS.map((d) => `${d} ${attack[d] || 0}`).join(', ') }) });
      const max = Math.max(1, ...DIRS.map((d) => attack[d] || 0));
      svg.append(s('circle', { class: 'cp-ring', r: 27 + 48 }), s('circle', { class: 'cp-ring', r: 27 + 24 }));
      DIRS.forEach((d, i) => {
        const v = attack[d] || 0;
        const corner = i % 2 === 1;
        const base = corner ? 30 : 23; // from the middle to the unit's edge
        const len = v ? 6 + 44 * v / max : 0;
        const w = corner ? 11 : 14;
        const g = s('g', { transform: `rotate(${i * 45})` });
        if (len) {
          const y0 = -base, y1 = -base - len;
          g.append(s('path', { class: 'cp-ray' + (v === max ? ' top' : ''), d: `M ${-w / 2} ${y0} L ${-w / 2} ${y1 + 5} L 0 ${y1} L ${w / 2} ${y1 + 5} L ${w / 2} ${y0} Z` }));
        }
        svg.append(g);
        const rad = (i * 45 - 90) * Math.PI / 180;
        const rv = base + len + 10, rl = 100;
        svg.append(s('text', { class: 'cp-val', 'data-dir': d, x: (Math.cos(rad) * rv).toFixed(1), y: (Math.sin(rad) * rv).toFixed(1) }, String(v)));
        svg.append(s('text', { class: 'cp-lbl', x: (Math.cos(rad) * rl).toFixed(1), y: (Math.sin(rad) * rl).toFixed(1) }, d));
      });
      svg.append(s('rect', { class: 'cp-unit', x: -22, y: -22, width: 44, height: 44, rx: 6 }));
      svg.append(s('rect', { class: 'cp-band', x: -11, y: -23, width: 22, height: 4, rx: 1.5 }));
      svg.append(s('text', { class: 'cp-mid', x: 0, y: -2 }, String(total)));
      svg.append(s('text', { class: 'cp-mid-l', x: 0, y: 11 }, _('total')));
      return svg;
    }

    // ---------------------------------------------------------------------------------------------
    // Saving and the other deck actions
    // ---------------------------------------------------------------------------------------------

    async function save(quiet) {
      if (S.busy) return false;
      const name = S.name.replace(/\s+/g, ' ').trim();
      if (!name) {
        nameInput.classList.add('bad');
        nameInput.focus();
        showMessage(msg, _('A deck needs a name: type one in the box at the top.'), 'error');
        return false;
      }
      if (!dirty()) { if (!quiet) showMessage(msg, _('Nothing to save: the deck is as it was saved.'), 'info'); return true; }
      S.busy = true;
      const btn = $('#deck-save');
      btn.disabled = true;
      btn.classList.add('busy');
      try {
        const doc = await api('PUT', `/api/decks/${S.id}`, { name, cards: S.cards, version: S.version });
        S.version = doc.version;
        S.saved = { name: doc.name, cards: doc.cards.slice() };
        S.savedStats = doc.analysis ? doc.analysis.stats : S.savedStats;
        S.savedAt = Date.now();
        if (S.name !== doc.name) { S.name = doc.name; nameInput.value = doc.name; }
        if (S.cards.join(',') !== doc.cards.join(',')) { S.cards = doc.cards.slice(); renderDeck(); }
        if (doc.analysis) { S.analysis = doc.analysis; S.analysed = doc.cards.join(','); }
        if (!quiet) {
          showMessage(msg, doc.complete ? _('Saved “{name}”: complete and ready to play.', { name: doc.name })
            : _('Saved “{name}” as a draft ({n} of {total}).', { name: doc.name, n: doc.size, total: DECK_SIZE }), 'ok');
        }
        return true;
      } catch (e) {
        let extra = null;
        if (e.status === 409 && e.code === 'stale') {
          extra = h('button', { type: 'button', class: 'small', style: 'margin-left:.6rem', text: _('Reload the saved deck (drops your changes)'), onclick: () => { S.leaving = true; location.reload(); } });
        }
        showMessage(msg, _('Not saved: {reason}', { reason: clause(e.message) }), 'error', extra);
        if (e.code === 'name') nameInput.classList.add('bad');
        return false;
      } finally {
        S.busy = false;
        btn.disabled = false;
        btn.classList.remove('busy');
        updateChrome();
        renderStats();
      }
    }

    function revert() {
      if (!dirty()) return;
      if (!window.confirm(_('Throw away your changes and go back to the saved deck? (Undo brings the cards back.)'))) return;
      S.name = S.saved.name;
      nameInput.value = S.name;
      nameInput.classList.remove('bad');
      commit(S.saved.cards.slice());
      showMessage(msg, _('Back to the saved deck.'), 'ok', h('button', { type: 'button', class: 'small', style: 'margin-left:.6rem', text: _('Undo'), onclick: undo }));
    }

    function leave(url) { S.leaving = true; location.href = url; }

    async function copyDeck() {
      const btn = $('#deck-copy');
      btn.disabled = true;
      try {
        let doc;
        if (!dirty()) {
          doc = await api('POST', `/api/decks/${S.id}/copy`, {});
          setFlash(_('This is a copy of “{name}”.', { name: S.saved.name }), 'ok');
        } else {
          const list = await api('GET', '/api/decks');
          const room = NAME_LIMIT - Array.from(_('{name} (copy)', { name: '' })).length;
          const base = _('{name} (copy)', { name: cut(S.name.replace(/\s+/g, ' ').trim() || S.saved.name, room) });
          doc = await api('POST', '/api/decks', { name: freeName(list.decks.map((d) => d.name), base), cards: S.cards });
          setFlash(_('This is a copy with your unsaved changes; “{name}” itself was not changed.', { name: S.saved.name }), 'ok');
        }
        leave(`/decks/${doc.id}`);
      } catch (e) {
        btn.disabled = false;
        showMessage(msg, _('Not copied: {reason}', { reason: clause(e.message) }), 'error');
      }
    }

    async function exportDeck(format) {
      let savedFirst = false;
      if (dirty()) {
        if (!(await save(true))) return;
        savedFirst = true;
      }
      try {
        const file = await download(`/api/decks/${S.id}/export?format=${format}`);
        showMessage(msg, savedFirst ? _('Saved your changes, then downloaded {file}.', { file }) : _('Downloaded {file}.', { file }), 'ok');
      } catch (e) {
        showMessage(msg, _('Not exported: {reason}', { reason: clause(e.message) }), 'error');
      }
    }

    async function deleteDeck() {
      if (!window.confirm(_('Delete the deck “{name}”? This cannot be undone.', { name: S.saved.name }))) return;
      try {
        await api('DELETE', `/api/decks/${S.id}`);
        setFlash(_('Deleted the deck “{name}”.', { name: S.saved.name }), 'ok');
        leave('/decks');
      } catch (e) {
        showMessage(msg, _('Not deleted: {reason}', { reason: clause(e.message) }), 'error');
      }
    }

    function startAgain() {
      const army = $('#deck-reset-army').value;
      const ids = army ? standardDeck(army) : [];
      if (!army && !S.cards.length) return;
      const q = army
        ? ngettext("Replace the deck's {n} card with the {army} standard deck? (Undo brings them back.)",
          "Replace the deck's {n} cards with the {army} standard deck? (Undo brings them back.)", S.cards.length, { army: armyName(army) })
        : ngettext('Take all {n} card out of the deck? (Undo brings them back.)',
          'Take all {n} cards out of the deck? (Undo brings them back.)', S.cards.length);
      if (!window.confirm(q)) return;
      commit(ids);
      showMessage(msg, army ? _('Started again from the {army} standard deck.', { army: armyName(army) }) : _('The deck is empty: add cards from the browser.'), 'ok',
        h('button', { type: 'button', class: 'small', style: 'margin-left:.6rem', text: _('Undo'), onclick: undo }));
    }

    // ---------------------------------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------------------------------

    ranksEl.addEventListener('click', (ev) => {
      const rm = ev.target.closest('.remove-card');
      const slot = ev.target.closest('.deck-card');
      if (rm && slot) { ev.stopPropagation(); removeAt(Number(slot.dataset.index)); return; }
      if (slot) { select(Number(slot.dataset.index)); return; }
      const empty = ev.target.closest('.slot-empty');
      if (empty) {
        if (S.selected !== null) { S.selected = null; S.prevRank = null; renderDeck(); renderSelection(); }
        F.rank.value = empty.dataset.slotRank;
        renderBrowser(true);
      }
    });
    ranksEl.addEventListener('dblclick', (ev) => {
      const slot = ev.target.closest('.deck-card');
      if (slot && !ev.target.closest('.remove-card')) { LoW.magnify(slot.dataset.card); }
    });
    ranksEl.addEventListener('keydown', (ev) => {
      const slot = ev.target.closest('.deck-card');
      if (!slot || ev.target.closest('.remove-card')) return;
      if (ev.key === 'Enter' || ev.key === ' ') return; // the button's own click selects
      if (ev.key === 'Delete' || ev.key === 'Backspace') { ev.preventDefault(); removeAt(Number(slot.dataset.index)); }
    });
    const onSelectionAct = (ev) => {
      const b = ev.target.closest('[data-act]');
      if (!b || S.selected === null) return;
      if (b.dataset.act === 'magnify') LoW.magnify(S.cards[S.selected]);
      else if (b.dataset.act === 'remove') removeAt(S.selected);
      else if (b.dataset.act === 'cancel') clearSelection(true);
    };
    swapBar.addEventListener('click', onSelectionAct);

    resultsEl.addEventListener('click', (ev) => {
      const tile = ev.target.closest('.browser-card');
      if (!tile || !tile._face) return;
      if (ev.target.closest('.add-card')) {
        addCard(pickId(tile._face.ids));
        tile.classList.remove('pop'); void tile.offsetWidth; tile.classList.add('pop');
      } else if (ev.target.closest('.bc-face')) {
        LoW.magnify(tile._face.ids[0]);
      }
    });

    let searchTimer = null;
    F.q.addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(() => renderBrowser(true), 80); });
    F.q.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') ev.preventDefault();
      if (ev.key === 'Escape' && F.q.value) { ev.preventDefault(); ev.stopPropagation(); F.q.value = ''; renderBrowser(true); }
    });
    for (const el of [F.army, F.cls, F.sort]) el.addEventListener('change', () => renderBrowser(true));
    F.rank.addEventListener('change', () => {
      const sel = S.selected !== null ? card(S.cards[S.selected]) : null;
      if (sel && F.rank.value !== sel.rank) { S.selected = null; S.prevRank = null; renderDeck(); renderSelection(); }
      renderBrowser(true);
    });
    F.merge.addEventListener('change', () => {
      try { localStorage.setItem('low.decks.merge', F.merge.checked ? 'true' : 'false'); } catch (e) { /* private mode */ }
      renderBrowser();
    });
    $('#browser-clear').addEventListener('click', clearFilters);

    nameInput.addEventListener('input', () => {
      S.name = nameInput.value;
      nameInput.classList.toggle('bad', !S.name.trim());
      updateChrome();
    });
    nameInput.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); nameInput.blur(); }
      if (ev.key === 'Escape') { ev.preventDefault(); nameInput.value = S.name = S.saved.name; nameInput.classList.remove('bad'); updateChrome(); nameInput.blur(); }
    });

    $('#deck-save').addEventListener('click', () => save());
    $('#deck-revert').addEventListener('click', revert);
    $('#deck-undo').addEventListener('click', undo);
    $('#deck-redo').addEventListener('click', redo);
    $('#deck-copy').addEventListener('click', copyDeck);
    $('#deck-export-text').addEventListener('click', () => exportDeck('text'));
    $('#deck-export-json').addEventListener('click', () => exportDeck('json'));
    $('#deck-delete').addEventListener('click', deleteDeck);
    $('#deck-reset').addEventListener('click', startAgain);

    document.addEventListener('keydown', (ev) => {
      const typing = ev.target.closest && ev.target.closest('input, textarea, select, [contenteditable]');
      const mod = ev.ctrlKey || ev.metaKey;
      const ov = $('#magnify');
      if (ev.key === 'Escape') {
        if (ov && !ov.hidden) { ov.hidden = true; return; }
        if (S.selected !== null) { clearSelection(true); return; }
      }
      if (mod && !ev.altKey && ev.key.toLowerCase() === 's') { ev.preventDefault(); save(); return; }
      if (typing) return;
      if (mod && !ev.altKey && ev.key.toLowerCase() === 'z') { ev.preventDefault(); if (ev.shiftKey) redo(); else undo(); return; }
      if (mod && !ev.altKey && ev.key.toLowerCase() === 'y') { ev.preventDefault(); redo(); return; }
      if (ev.key === '/' && !mod) { ev.preventDefault(); F.q.focus(); F.q.select(); return; }
      if ((ev.key === 'Delete' || ev.key === 'Backspace') && S.selected !== null) { ev.preventDefault(); removeAt(S.selected); }
    });

    window.addEventListener('beforeunload', (ev) => {
      if (S.leaving || !dirty()) return;
      ev.preventDefault();
      ev.returnValue = '';
    });

    // --- first drawing
    S.cards = sorted(S.cards);
    renderDeck();
    renderStatus();
    renderSelection();
    renderBrowser();
    updateChrome();
    statsEl.dataset.state = 'ready';
    scheduleAnalyse();
  }

  // ---------------------------------------------------------------------------------------------

  function boot() {
    const list = document.getElementById('decks-page');
    if (list) decksPage(list);
    const ed = document.getElementById('deck-editor');
    if (ed) editor(ed);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
