/* The deck editor (/decks/{id}, deck_editor.html): the deck by rank, the card browser, live
 * statistics, saving with the deck's version, undo and redo, copy, export, delete. It draws cards
 * with js/cards.js and magnifies them with js/magnifier.js (not the game page); every request goes
 * to the deck API (docs/web-api.md) through js/api.js, a refusal's {"detail"} shown in a visible
 * message, never dropped. Confirmations use window.confirm (tests: page.on("dialog")).
 *
 * Stable hooks for browser tests:
 *   #deck-editor[data-deck-id]     root
 *   #deck-name                     the name field
 *   #deck-save (Ctrl+S)            PUT with the current version; #deck-dirty shown while there are unsaved
 *                                  changes (leaving the page then asks first); #deck-saved "Saved"
 *   #deck-revert #deck-undo #deck-redo #deck-copy #deck-export-text #deck-export-json #deck-delete (confirm)
 *   #deck-reset-army + #deck-reset  start again from a core army's standard deck ("" = empty), after a confirm
 *   #deck-status                   "Complete: 36 of 36" (class complete), or "34 of 36 · missing 2 veteran cards"
 *                                  (class short), or what is over (class over)
 *   #deck-message                  the last action's message, floating at the bottom (.deck-msg.ok | .error |
 *                                  .info; ok fades after 5 s, an error stays until closed), e.g. the refusal
 *                                  "The elite rank is full (4 of 4): take an elite card out before adding Quillshot."
 *   #deck-ranks .rank-group[data-rank="command"]   one per rank (class full | short | over), heading
 *                                  .rank-head: .rn "Command" (shown in capitals by CSS), .rc "3 / 5";
 *                                  .deck-card[data-card="orcs:07"][data-index]
 *                                  (click: select it for a swap, .selected; double click: magnify),
 *                                  .deck-card .remove-card (take it out), .slot-empty (a missing card: click
 *                                  shows that rank in the browser)
 *   #card-browser                  the browser: #card-search (name or id, any case), #filter-army,
 *                                  #filter-rank, #filter-class ("all" = no filter), #browser-sort,
 *                                  #browser-merge (checked, the default: identical printed copies shown once;
 *                                  remembered in localStorage), #browser-clear,
 *                                  #browser-count, #browser-swap (shown while a deck card is selected, with
 *                                  buttons [data-act="magnify"|"remove"|"cancel"])
 *   #browser-results .browser-card[data-card][data-ids]   one per card (or per identical face: data-card is its
 *                                  first id, data-ids all of them: find any id with [data-ids~="templars:24"]);
 *                                  click the card: magnify; .add-card adds it (of a merged face, the copy the
 *                                  deck holds fewest of)
 *                                  (or, while a deck card of the same rank is selected, swaps it in: class .swap
 *                                  on the card); .in-deck the number already in the deck; class .rank-full
 *   #deck-stats[data-state="ready"|"pending"][data-cards="36"]   the statistics of the cards on screen:
 *                                  [data-stat="armies"|"cards"|"defence"|"command"|"ranged"|"ranged-damage"|
 *                                  "support"|"classes"|"attack"], class bars .st-bar[data-class="ranged"] .num,
 *                                  the compass svg .cp-val[data-dir="F"] (attack per direction)
 *   editor.state() (exported)      {id, name, version, cards, dirty, selected, analysis}
 */

import { ApiError } from './api.js';
import { CARDS as LOADED, cardEl, loadCards } from './cards.js';
import { $, h } from './dom.js';
import { ARMIES as ARMY_FACTS } from './facts.js';
import { _, lang, ngettext, pgettext } from './i18n.js';
import { magnify } from './magnifier.js';
import { applyHighContrast } from './prefs.js';
import { DIRS, DIR_NAMES, RANK_ABBR, classWord, rankWord } from './words.js';
import {
  CLASSES, DECK_SIZE, NAME_LIMIT, RANK_COUNTS, RANKS, aRankCard, api, armyName, armyWord, around, cardCount, clause,
  cut, download, freeName, hideMessage, numOf, rankCards, rankName, reason, sentence, setFlash, showMessage,
  takeFlash,
} from './deck-common.js';

/** @typedef {import('./deck-common.js').Card} Card */
/** @typedef {import('./deck-common.js').DeckDetail} DeckDetail */
/** @typedef {import('./deck-common.js').DeckAnalysis} DeckAnalysis */
/** @typedef {import('./deck-common.js').DeckList} DeckList */
/** @typedef {DeckAnalysis['stats']} DeckStats */
/** @typedef {{ids: string[], card: Card}} Face */
/**
 * @typedef {object} EditorState
 * @property {number} id
 * @property {number} version
 * @property {string} name
 * @property {string[]} cards
 * @property {{name: string, cards: string[]}} saved
 * @property {DeckStats | null} savedStats
 * @property {DeckAnalysis | null} analysis
 * @property {string} analysed
 * @property {number} seq
 * @property {number | null} selected the index in cards of the card picked for a swap
 * @property {string | null} prevRank the rank filter before a selection changed it
 * @property {string[][]} undo
 * @property {string[][]} redo
 * @property {boolean} busy
 * @property {boolean} leaving
 * @property {number | null} savedAt
 */

/**
 * The attack compass's letter for each direction (the screen reader hears DIR_NAMES' whole words).
 * The context "compass" keeps each letter apart from the same letter elsewhere.
 * @type {Record<string, string>}
 */
const DIR_LETTERS = {
  // TRANSLATORS: the attack compass's letter for the front (a unit's front, "F" in English)
  F: pgettext('compass', 'F'),
  // TRANSLATORS: the attack compass's letters for front-right
  FR: pgettext('compass', 'FR'),
  // TRANSLATORS: the attack compass's letter for right
  R: pgettext('compass', 'R'),
  // TRANSLATORS: the attack compass's letters for back-right
  BR: pgettext('compass', 'BR'),
  // TRANSLATORS: the attack compass's letter for the back
  B: pgettext('compass', 'B'),
  // TRANSLATORS: the attack compass's letters for back-left
  BL: pgettext('compass', 'BL'),
  // TRANSLATORS: the attack compass's letter for left
  L: pgettext('compass', 'L'),
  // TRANSLATORS: the attack compass's letters for front-left
  FL: pgettext('compass', 'FL'),
};

/** The editor's state, for tests: editor.state() once the editor runs. */
export const editor = {
  /** @type {() => object | null} */
  state: () => null,
};

const NO_CARD = /** @type {Partial<Card>} */ ({});
const NO_RANGED = /** @type {{damage?: number}} */ ({});

/** The face each tile of the browser shows. @type {WeakMap<Element, Face>} */
const faceOf = new WeakMap();

const SVG = 'http://www.w3.org/2000/svg';
/**
 * An SVG element.
 * @param {string} tag
 * @param {Record<string, string | number | null | undefined>} [attrs]
 * @param {string} [text]
 */
function s(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}
/**
 * @param {string} sel
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
/**
 * The element that matches `sel` at the event's target or above it.
 * @param {Event} ev
 * @param {string} sel
 * @returns {HTMLElement | null}
 */
const at = (ev, sel) => {
  const t = /** @type {Element | null} */ (ev.target);
  return t && t.closest ? t.closest(sel) : null;
};

async function start() {
  /** @type {DeckDetail} */
  const deck = JSON.parse($('#deck-data').textContent || '');
  const ARMIES = ARMY_FACTS.map((a) => a.name);
  const msg = $('#deck-message');
  const statusEl = $('#deck-status');
  const nameInput = /** @type {HTMLInputElement} */ ($('#deck-name'));

  /** @type {EditorState} */
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
  Object.assign(editor, {
    state: () => ({ id: S.id, name: S.name, version: S.version, cards: S.cards.slice(), dirty: dirty(), selected: S.selected, analysis: S.analysis }),
  });

  const flash = takeFlash();
  if (flash) showMessage(msg, flash.text, flash.kind);

  try {
    await loadCards();
  } catch (e) {
    statusEl.textContent = _('The cards could not be loaded: reload the page.');
    statusEl.className = 'deck-status over';
    showMessage(msg, sentence(reason(e)), 'error');
    return;
  }
  const CARDS = /** @type {Record<string, Card>} */ (LOADED);
  /** @param {string} id @returns {Card | null} */
  const card = (id) => CARDS[id] || null;
  const ALL = Object.values(CARDS).sort((a, b) => armyIndex(a.army) - armyIndex(b.army) || numOf(a.id) - numOf(b.id));
  /** @param {string} a */
  function armyIndex(a) { const i = ARMIES.indexOf(a); return i < 0 ? 99 : i; }
  /** @param {string} x @param {string} y */
  const cmpDeck = (x, y) => {
    const a = card(x), b = card(y);
    if (!a || !b) return x < y ? -1 : x > y ? 1 : 0;
    return RANKS.indexOf(a.rank) - RANKS.indexOf(b.rank) || (a.army < b.army ? -1 : a.army > b.army ? 1 : 0)
      || numOf(x) - numOf(y) || (x < y ? -1 : x > y ? 1 : 0);
  };
  /** @param {string[]} ids */
  const sorted = (ids) => ids.slice().sort(cmpDeck);
  /** @param {string} army */
  const standardDeck = (army) => ALL.filter((c) => c.army === army).map((c) => c.id);
  /** @param {string[]} ids */
  const counts = (ids) => { const n = /** @type {Record<string, number>} */ ({}); for (const r of RANKS) n[r] = 0; for (const id of ids) { const c = card(id); if (c) n[c.rank]++; } return n; };
  /** @param {string[]} a @param {string[]} b */
  const sameCards = (a, b) => a.length === b.length && sorted(a).join(',') === sorted(b).join(',');
  const dirty = () => S.name.replace(/\s+/g, ' ').trim() !== S.saved.name || !sameCards(S.cards, S.saved.cards);
  /** @param {Card} c */
  const cardLabel = (c) => _('{card} ({army}, {rank} {unitclass})', { card: c.name, army: armyWord(c.army), rank: rankWord(c.rank), unitclass: classWord(c.class) });

  /**
   * What the server's add_problem says, with a/an: why ``id`` cannot join ``ids``, or null.
   * @param {string[]} ids
   * @param {string} id
   */
  function addProblem(ids, id) {
    const c = /** @type {Card} */ (card(id));
    const have = counts(ids)[c.rank], need = RANK_COUNTS[c.rank];
    if (have >= need) return _('The {rank} rank is full ({have} of {need}): take {a_card} out before adding {card}.', { rank: rankWord(c.rank), have, need, a_card: aRankCard(c.rank), card: c.name });
    return null;
  }
  /** @param {string[]} ids */
  function missing(ids) {
    const n = counts(ids);
    return RANKS.filter((r) => n[r] < RANK_COUNTS[r]).map((r) => rankCards(r, RANK_COUNTS[r] - n[r]));
  }
  /** @param {string[]} ids */
  function overs(ids) {
    const n = counts(ids);
    return RANKS.filter((r) => n[r] > RANK_COUNTS[r]).map((r) => _('{cards} ({over} over the {need} allowed)', { cards: rankCards(r, n[r]), over: n[r] - RANK_COUNTS[r], need: RANK_COUNTS[r] }));
  }
  /** @param {string[]} ids */
  function standardOf(ids) {
    if (ids.length !== DECK_SIZE) return null;
    const key = sorted(ids).join(',');
    for (const a of ARMIES) if (sorted(standardDeck(a)).join(',') === key) return a;
    return null;
  }
  /** @param {string[]} ids */
  const armiesOf = (ids) => /** @type {string[]} */ ([...new Set(ids.map((id) => (card(id) || NO_CARD).army).filter(Boolean))]).sort((a, b) => armyIndex(a) - armyIndex(b));

  // --- the browser's faces: one per card, or one per identical printed face -----------------
  /** @param {Card} c */
  const faceKey = (c) => JSON.stringify([c.army, c.name, c.rank, c.class, c.defence, DIRS.map((d) => (c.attacks || {})[d] || 0), c.ranged, c.moves]);
  /** @type {{all: Face[], merged: Face[]}} */
  const FACES = { all: ALL.map((c) => ({ ids: [c.id], card: c })), merged: [] };
  {
    /** @type {Map<string, Face>} */
    const seen = new Map();
    for (const c of ALL) {
      const k = faceKey(c);
      const known = seen.get(k);
      if (known) known.ids.push(c.id);
      else { const f = { ids: [c.id], card: c }; seen.set(k, f); FACES.merged.push(f); }
    }
  }

  // --- elements ---------------------------------------------------------------------------------
  const ranksEl = $('#deck-ranks');
  const resultsEl = $('#browser-results');
  const statsEl = $('#deck-stats');
  const swapBar = $('#browser-swap');
  const F = {
    q: /** @type {HTMLInputElement} */ ($('#card-search')),
    army: /** @type {HTMLSelectElement} */ ($('#filter-army')),
    rank: /** @type {HTMLSelectElement} */ ($('#filter-rank')),
    cls: /** @type {HTMLSelectElement} */ ($('#filter-class')),
    sort: /** @type {HTMLSelectElement} */ ($('#browser-sort')),
    merge: /** @type {HTMLInputElement} */ ($('#browser-merge')),
  };
  try { F.merge.checked = localStorage.getItem('low.decks.merge') !== 'false'; } catch (e) { /* private mode */ }

  // ---------------------------------------------------------------------------------------------
  // Changing the deck
  // ---------------------------------------------------------------------------------------------

  /**
   * @param {string[]} ids
   * @param {{keepSelection?: boolean, fresh?: string}} [opts]
   */
  function commit(ids, opts = {}) {
    S.undo.push(S.cards.slice());
    if (S.undo.length > 300) S.undo.shift();
    S.redo = [];
    S.cards = sorted(ids);
    S.selected = opts.keepSelection ? S.selected : null;
    changed(opts.fresh);
  }

  /** @param {string} [fresh] */
  function changed(fresh) {
    renderDeck(fresh);
    renderStatus();
    renderSelection();
    updateBrowser();
    updateChrome();
    scheduleAnalyse();
  }

  /** @param {string} id */
  function addCard(id) {
    const c = card(id);
    if (!c) return;
    const picked = S.selected;
    const sel = picked !== null ? card(S.cards[picked]) : null;
    if (sel && picked !== null && sel.rank === c.rank) {
      const out = S.cards[picked];
      const ids = S.cards.slice();
      ids.splice(picked, 1, id);
      const outCard = /** @type {Card} */ (card(out));
      commit(ids, { fresh: id });
      showMessage(msg, out === id ? _('{card} stays.', { card: c.name })
        : _('Swapped {out} ({out_army}) for {card} ({army}).', { out: outCard.name, out_army: armyWord(outCard.army), card: c.name, army: armyWord(c.army) }), 'ok');
      return;
    }
    const problem = addProblem(S.cards, id);
    if (problem) {
      showMessage(msg, problem + ' ' + _('Or click {a_card} in the deck to swap it for this one.', { a_card: aRankCard(c.rank) }), 'error');
      const g = /** @type {HTMLElement | null} */ ($(`.rank-group[data-rank="${c.rank}"]`, ranksEl));
      if (g) { g.classList.remove('nudge'); void g.offsetWidth; g.classList.add('nudge'); setTimeout(() => g.classList.remove('nudge'), 1600); }
      return;
    }
    hideMessage(msg);
    commit(S.cards.concat([id]), { fresh: id });
  }

  /**
   * Which id a face adds: the copy the deck holds fewest of (so a standard deck can be rebuilt).
   * @param {string[]} ids
   */
  function pickId(ids) {
    let best = ids[0], fewest = Infinity;
    for (const id of ids) {
      const n = S.cards.filter((x) => x === id).length;
      if (n < fewest) { fewest = n; best = id; }
    }
    return best;
  }

  /** @param {number} index */
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
    S.cards = /** @type {string[]} */ (S.undo.pop());
    S.selected = null;
    hideMessage(msg);
    changed();
  }
  function redo() {
    if (!S.redo.length) return;
    S.undo.push(S.cards.slice());
    S.cards = /** @type {string[]} */ (S.redo.pop());
    S.selected = null;
    hideMessage(msg);
    changed();
  }

  /** @param {number | null} index */
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
  /** @param {boolean} [restore] */
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

  /** @param {string} [fresh] */
  function renderDeck(fresh) {
    const n = counts(S.cards);
    /** @type {HTMLElement[]} */
    const groups = [];
    const target = S.selected !== null ? (card(S.cards[S.selected]) || NO_CARD).rank : (F.rank.value !== 'all' ? F.rank.value : null);
    for (const r of RANKS) {
      const state = n[r] > RANK_COUNTS[r] ? 'over' : n[r] === RANK_COUNTS[r] ? 'full' : 'short';
      const slots = h('div', { class: 'slots' });
      S.cards.forEach((id, i) => {
        const c = card(id);
        if (!c || c.rank !== r) return;
        const el = h('div', {
          class: 'deck-card' + (i === S.selected ? ' selected' : '') + (fresh && id === fresh ? ' fresh' : ''),
          'data-card': id, 'data-index': i, 'data-army': c.army,
        },
        cardEl(id, { side: 'bottom' }),
        h('i', { class: 'army-mark', title: armyName(c.army) }),
        // the focusable part: a transparent button over the card (a control holding the card's
        // text, or the remove button, would be named by neither)
        h('button', { type: 'button', class: 'dc-pick', 'aria-pressed': i === S.selected ? 'true' : 'false',
          'aria-label': _('{card}: select to swap', { card: cardLabel(c) }) }),
        h('button', { type: 'button', class: 'remove-card', title: _('Take out {card}', { card: c.name }), 'aria-label': _('Take out {card}', { card: c.name }), text: '×' }));
        slots.append(el);
      });
      for (let k = n[r]; k < RANK_COUNTS[r]; k++) {
        slots.append(h('button', { type: 'button', class: 'slot-empty', 'data-slot-rank': r, title: _('A missing {rank} card: show the {rank} cards', { rank: rankWord(r) }) },
          '+', h('span', { text: /** @type {Record<string, string>} */ (RANK_ABBR)[r] })));
      }
      groups.push(h('section', { class: `rank-group ${state}` + (target === r ? ' target' : ''), 'data-rank': r, 'aria-label': _('{rank}: {n} of {need}', { rank: rankName(r), n: n[r], need: RANK_COUNTS[r] }) },
        h('h3', { class: 'rank-head' }, h('span', { class: 'rn', text: rankName(r) }), h('span', { class: 'rc', text: `${n[r]} / ${RANK_COUNTS[r]}` })),
        slots));
    }
    const focused = /** @type {HTMLElement | null} */ (document.activeElement && document.activeElement.closest && document.activeElement.closest('.deck-card'));
    const focusIndex = focused ? Number(focused.dataset.index) : null;
    ranksEl.replaceChildren(...groups);
    if (focusIndex !== null) {
      const again = /** @type {HTMLElement | null} */ ($(`.deck-card[data-index="${Math.min(focusIndex, S.cards.length - 1)}"]`, ranksEl));
      if (again) $('.dc-pick', again).focus({ preventScroll: true });
    }
  }

  /** @param {string[] | null} [serverMissing] */
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
    /** @type {HTMLButtonElement} */ ($('#deck-revert')).disabled = !d;
    /** @type {HTMLButtonElement} */ ($('#deck-undo')).disabled = !S.undo.length;
    /** @type {HTMLButtonElement} */ ($('#deck-redo')).disabled = !S.redo.length;
    $('#deck-save').classList.toggle('is-dirty', d);
    const saved = $('#deck-saved');
    saved.textContent = !d && S.savedAt ? _('Saved') : '';
    const untitled = _('Deck');
    document.title = (d ? '● ' : '') + _('{name} · Deck editor · Lords of War', { name: S.name.trim() || untitled });
    const n = counts(S.cards);
    for (const opt of F.rank.options) {
      if (opt.value !== 'all') opt.textContent = `${rankName(opt.value)} ${n[opt.value]}/${RANK_COUNTS[opt.value]}`;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The card browser
  // ---------------------------------------------------------------------------------------------

  /** @param {Face} f */
  function faceMatches(f) {
    const c = f.card;
    const q = F.q.value.trim().toLowerCase();
    if (F.army.value !== 'all' && c.army !== F.army.value) return false;
    if (F.rank.value !== 'all' && c.rank !== F.rank.value) return false;
    if (F.cls.value !== 'all' && c.class !== F.cls.value) return false;
    if (q && !c.name.toLowerCase().includes(q) && !f.ids.some((id) => id.toLowerCase().includes(q))) return false;
    return true;
  }
  /** @param {Card} c */
  const attackTotal = (c) => Object.values(c.attacks || {}).reduce((a, b) => a + b, 0);
  /** @type {Record<string, (a: Face, b: Face) => number>} */
  const SORTS = {
    army: (a, b) => armyIndex(a.card.army) - armyIndex(b.card.army) || RANKS.indexOf(a.card.rank) - RANKS.indexOf(b.card.rank)
      || numOf(a.card.id) - numOf(b.card.id),
    name: (a, b) => a.card.name.localeCompare(b.card.name),
    defence: (a, b) => b.card.defence - a.card.defence,
    attack: (a, b) => attackTotal(b.card) - attackTotal(a.card),
    ranged: (a, b) => ((b.card.ranged || NO_RANGED).damage || 0) - ((a.card.ranged || NO_RANGED).damage || 0),
  };

  /** @param {boolean} [toTop] */
  function renderBrowser(toTop) {
    const faces = F.merge.checked ? FACES.merged : FACES.all;
    const shown = faces.filter(faceMatches);
    shown.sort((a, b) => (SORTS[F.sort.value] || SORTS.army)(a, b) || SORTS.army(a, b));
    const tiles = shown.map((f) => {
      const c = f.card;
      const tile = h('div', { class: 'browser-card', 'data-card': f.ids[0], 'data-ids': f.ids.join(' '), 'data-army': c.army },
        h('div', { class: 'bc-face', title: _('{card}: click to magnify', { card: cardLabel(c) })
          + (f.ids.length > 1 ? '\n' + ngettext('{n} identical copy: {ids}', '{n} identical copies: {ids}', f.ids.length, { ids: f.ids.join(', ') }) : '') },
          cardEl(f.ids[0], { side: 'bottom', title: false }),
          h('i', { class: 'army-mark' })),
        h('div', { class: 'bc-foot' },
          h('button', { type: 'button', class: 'add-card', text: _('+ Add') }),
          h('span', { class: 'in-deck', hidden: true })));
      faceOf.set(tile, f);
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
    const target = S.selected !== null ? (card(S.cards[S.selected]) || NO_CARD).rank : (F.rank.value !== 'all' ? F.rank.value : null);
    for (const g of $$('.rank-group', ranksEl)) g.classList.toggle('target', g.dataset.rank === target);
  }

  /** The add buttons' states after the deck changed (without redrawing the cards). */
  function updateBrowser() {
    const n = counts(S.cards);
    /** @type {Record<string, number>} */
    const inDeck = {};
    for (const id of S.cards) inDeck[id] = (inDeck[id] || 0) + 1;
    const sel = S.selected !== null ? card(S.cards[S.selected]) : null;
    for (const tile of resultsEl.querySelectorAll('.browser-card')) {
      const f = faceOf.get(tile);
      if (!f) continue;
      const c = f.card;
      const count = f.ids.reduce((a, id) => a + (inDeck[id] || 0), 0);
      const badge = $('.in-deck', tile);
      badge.hidden = !count;
      badge.textContent = count ? '×' + count : '';
      badge.title = count ? _('{n} in the deck', { n: count }) : '';
      const swap = !!sel && sel.rank === c.rank;
      const full = !swap && n[c.rank] >= RANK_COUNTS[c.rank];
      tile.classList.toggle('swap', swap);
      tile.classList.toggle('rank-full', full);
      const btn = $('.add-card', tile);
      btn.textContent = swap ? _('⇄ Swap') : _('+ Add');
      btn.title = swap ? _('Put {card} in place of {out}', { card: c.name, out: /** @type {Card} */ (sel).name })
        : full ? _('The {rank} rank is full ({have} of {need}): select {a_card} in the deck to swap it', { rank: rankWord(c.rank), have: n[c.rank], need: RANK_COUNTS[c.rank], a_card: aRankCard(c.rank) })
          : _('Add {card} ({rank}: {have} of {need})', { card: c.name, rank: rankWord(c.rank), have: n[c.rank], need: RANK_COUNTS[c.rank] });
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

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let analyseTimer;
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
      /** @type {DeckAnalysis} */
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
      showMessage(msg, _('The statistics could not be updated: {reason}', { reason: clause(reason(e)) }), 'error');
    }
  }

  /**
   * @param {number | null | undefined} now
   * @param {number | null | undefined} before
   * @param {number} [digits]
   */
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
    const was = /** @type {Partial<DeckStats>} */ (S.savedStats || {});
    const n = st.cards;
    statsEl.dataset.cards = String(n);
    const blocks = [h('h2', { class: 'panel-title', text: _('Statistics') })];

    // kind, armies, whether a game can use it
    const armies = Object.entries(st.armies || {});
    /** @type {[string, string]} */
    const kind = a.standard_army ? ['standard', _('{army} standard', { army: armyName(a.standard_army) })] : armies.length > 1 ? ['mercenary', _('mercenary')]
      : !a.complete && armies.length ? ['draft', _('draft')] : armies.length ? ['custom', _('custom')] : ['', pgettext('deck', 'empty')];
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
    /**
     * @param {string} stat @param {string} value @param {string} label @param {Node | null} d
     * @param {string} [title]
     */
    const fig = (stat, value, label, d, title) => h('div', { class: 'st-fig', 'data-stat': stat, title: title || null }, h('b', null, h('span', { class: 'v', text: value }), d), h('span', { text: label }));
    const pct = st.support_share === null || st.support_share === undefined ? '–' : Math.round(st.support_share * 100) + '%';
    blocks.push(h('div', { class: 'st-block' },
      h('div', { class: 'st-figs' },
        fig('cards', `${n}`, ngettext('of {n} card', 'of {n} cards', DECK_SIZE), delta(n, was.cards)),
        fig('defence', st.average_defence === null ? '–' : st.average_defence.toLocaleString(lang || 'en', { minimumFractionDigits: 2, maximumFractionDigits: 2 }), _('avg. defence'), delta(st.average_defence, was.average_defence, 2), _('the average defence of the cards')),
        fig('command', `${st.command_units}`, ngettext('command unit', 'command units', st.command_units), delta(st.command_units, was.command_units), _('the general and the command units: eliminate them to win')),
        fig('ranged', `${st.ranged_units}`, ngettext('ranged unit', 'ranged units', st.ranged_units), delta(st.ranged_units, was.ranged_units), _('units with a ranged weapon')),
        fig('ranged-damage', `${st.ranged_damage}`, ngettext('point of ranged damage', 'points of ranged damage', st.ranged_damage), delta(st.ranged_damage, was.ranged_damage), _('the total damage of the ranged weapons')),
        fig('support', `${pct}`, _('support ({n})', { n: st.support_units }), delta(st.support_units, was.support_units), ngettext('{n} spear or ranged unit: it can open as a support unit', '{n} spear and ranged units: they can open as support units', st.support_units)))));

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
      h('div', { class: 'st-compass', title: _("The sum of every card's attack arrow in each direction; the front ({front}) is up.", { front: DIR_LETTERS.F }) }, compass(st.attacks, st.attack_total))));

    statsEl.replaceChildren(...blocks);
  }

  /**
   * An 8-direction chart: a unit in the middle, a ray per direction as long as its total.
   * @param {Record<string, number>} attack
   * @param {number} total
   */
  function compass(attack, total) {
    const svg = s('svg', { viewBox: '-112 -108 224 216', role: 'img', 'aria-label': _('Attack by direction: {list}', { list: DIRS.map((d) => `${DIR_NAMES[d] || d} ${attack[d] || 0}`).join(', ') }) });
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
      // the letter, and the whole word on hover
      const word = s('g', { class: 'cp-dir' });
      word.append(s('title', {}, DIR_NAMES[d] || d), s('text', { class: 'cp-lbl', 'data-dir': d, x: (Math.cos(rad) * rl).toFixed(1), y: (Math.sin(rad) * rl).toFixed(1) }, DIR_LETTERS[d] || d));
      svg.append(word);
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

  /** @param {boolean} [quiet] */
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
    const btn = /** @type {HTMLButtonElement} */ ($('#deck-save'));
    btn.disabled = true;
    btn.classList.add('busy');
    try {
      /** @type {DeckDetail} */
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
      const refusal = e instanceof ApiError ? e : null;
      let extra = null;
      if (refusal && refusal.status === 409 && refusal.code === 'stale') {
        extra = h('button', { type: 'button', class: 'small', style: 'margin-left:.6rem', text: _('Reload the saved deck (drops your changes)'), onclick: () => { S.leaving = true; location.reload(); } });
      }
      showMessage(msg, _('Not saved: {reason}', { reason: clause(reason(e)) }), 'error', extra);
      if (refusal && refusal.code === 'name') nameInput.classList.add('bad');
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

  /** @param {string} url */
  function leave(url) { S.leaving = true; location.href = url; }

  async function copyDeck() {
    const btn = /** @type {HTMLButtonElement} */ ($('#deck-copy'));
    btn.disabled = true;
    try {
      /** @type {DeckDetail} */
      let doc;
      if (!dirty()) {
        doc = await api('POST', `/api/decks/${S.id}/copy`, {});
        setFlash(_('This is a copy of “{name}”.', { name: S.saved.name }), 'ok');
      } else {
        /** @type {DeckList} */
        const list = await api('GET', '/api/decks');
        const room = NAME_LIMIT - Array.from(_('{name} (copy)', { name: '' })).length;
        const base = _('{name} (copy)', { name: cut(S.name.replace(/\s+/g, ' ').trim() || S.saved.name, room) });
        doc = await api('POST', '/api/decks', { name: freeName(list.decks.map((d) => d.name), base), cards: S.cards });
        setFlash(_('This is a copy with your unsaved changes; “{name}” itself was not changed.', { name: S.saved.name }), 'ok');
      }
      leave(`/decks/${doc.id}`);
    } catch (e) {
      btn.disabled = false;
      showMessage(msg, _('Not copied: {reason}', { reason: clause(reason(e)) }), 'error');
    }
  }

  /** @param {'text' | 'json'} format */
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
      showMessage(msg, _('Not exported: {reason}', { reason: clause(reason(e)) }), 'error');
    }
  }

  async function deleteDeck() {
    if (!window.confirm(_('Delete the deck “{name}”? This cannot be undone.', { name: S.saved.name }))) return;
    try {
      await api('DELETE', `/api/decks/${S.id}`);
      setFlash(_('Deleted the deck “{name}”.', { name: S.saved.name }), 'ok');
      leave('/decks');
    } catch (e) {
      showMessage(msg, _('Not deleted: {reason}', { reason: clause(reason(e)) }), 'error');
    }
  }

  function startAgain() {
    const army = /** @type {HTMLSelectElement} */ ($('#deck-reset-army')).value;
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
    const rm = at(ev, '.remove-card');
    const slot = at(ev, '.deck-card');
    if (rm && slot) { ev.stopPropagation(); removeAt(Number(slot.dataset.index)); return; }
    if (slot) { select(Number(slot.dataset.index)); return; }
    const empty = at(ev, '.slot-empty');
    if (empty) {
      if (S.selected !== null) { S.selected = null; S.prevRank = null; renderDeck(); renderSelection(); }
      F.rank.value = empty.dataset.slotRank || 'all';
      renderBrowser(true);
    }
  });
  ranksEl.addEventListener('dblclick', (ev) => {
    const slot = at(ev, '.deck-card');
    if (slot && !at(ev, '.remove-card')) { magnify(slot.dataset.card || ''); }
  });
  ranksEl.addEventListener('keydown', (ev) => {
    const slot = at(ev, '.deck-card');
    if (!slot || at(ev, '.remove-card')) return;
    if (ev.key === 'Enter' || ev.key === ' ') return; // the button's own click selects
    if (ev.key === 'Delete' || ev.key === 'Backspace') { ev.preventDefault(); removeAt(Number(slot.dataset.index)); }
  });
  const onSelectionAct = (/** @type {Event} */ ev) => {
    const b = at(ev, '[data-act]');
    if (!b || S.selected === null) return;
    if (b.dataset.act === 'magnify') magnify(S.cards[S.selected]);
    else if (b.dataset.act === 'remove') removeAt(S.selected);
    else if (b.dataset.act === 'cancel') clearSelection(true);
  };
  swapBar.addEventListener('click', onSelectionAct);

  resultsEl.addEventListener('click', (ev) => {
    const tile = at(ev, '.browser-card');
    const face = tile && faceOf.get(tile);
    if (!tile || !face) return;
    if (at(ev, '.add-card')) {
      addCard(pickId(face.ids));
      tile.classList.remove('pop'); void tile.offsetWidth; tile.classList.add('pop');
    } else if (at(ev, '.bc-face')) {
      magnify(face.ids[0]);
    }
  });

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let searchTimer;
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
    const typing = at(ev, 'input, textarea, select, [contenteditable]');
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

applyHighContrast();
if (document.getElementById('deck-editor')) start();
