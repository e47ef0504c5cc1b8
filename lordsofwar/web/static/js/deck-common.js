/* What the two deck pages share ("Your decks", js/decks.js, and the deck editor,
 * js/deck-editor.js): the deck's rules in numbers, the words for ranks and armies, the deck API's
 * requests with their refusals in the pages' words, downloads, messages that survive a page
 * change, and the message boxes. */

import { ApiError, NetworkError, request } from './api.js';
import { h } from './dom.js';
import { DECK } from './facts.js';
import { _, lang, ngettext } from './i18n.js';
import { ARMY_NAMES, ARMY_WORDS } from './words.js';

/** @typedef {import('./api-types').components['schemas']['DeckDetail']} DeckDetail */
/** @typedef {import('./api-types').components['schemas']['DeckAnalysis']} DeckAnalysis */
/** @typedef {import('./api-types').components['schemas']['DeckList']} DeckList */
/**
 * A card of GET /api/cards.
 * @typedef {{id: string, army: string, name: string, rank: string, class: string, defence: number,
 *   attacks?: Record<string, number>, ranged?: {damage: number} | null, moves?: string[]}} Card
 */
/** @typedef {'ok' | 'error' | 'info'} MessageKind */
/** @typedef {{text: string, kind: MessageKind, highlight?: number}} Flash */

// the deck's rules in numbers: the server's (js/facts.js, lordsofwar.rules.cards, lordsofwar.decks)
/** The ranks, general first. */
export const RANKS = DECK.ranks;
/** The cards of each rank in a deck (clarifications 8.4). */
export const RANK_COUNTS = DECK.counts;
export const DECK_SIZE = DECK.size;
/** The longest deck name, in characters. */
export const NAME_LIMIT = DECK.nameLimit;
/** The longest deck file, in characters. */
export const FILE_LIMIT = DECK.fileLimit;
export const CLASSES = DECK.classes;
const FLASH_KEY = 'low.decks.flash';

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

/** @param {string} w */
export const cap = (w) => (w ? w[0].toUpperCase() + w.slice(1) : w);
// the data's keys in the page's language (lordsofwar/i18n.py ARMIES, RANKS, CLASSES): as names
// ("Orcs", "Elite") and as words inside a sentence ("orcs", "elite")
/** @type {Record<string, string>} */
const RANK_NAMES = {
  general: _('General'), command: _('Command'), special: _('Special'), elite: _('Elite'),
  veteran: _('Veteran'), regular: _('Regular'), recruit: _('Recruit'),
};
/** "a veteran card", "an elite card" @type {Record<string, string>} */
const A_RANK_CARD = {
  general: _('a general card'), command: _('a command card'), special: _('a special card'), elite: _('an elite card'),
  veteran: _('a veteran card'), regular: _('a regular card'), recruit: _('a recruit card'),
};
/** @param {string} k */
export const armyName = (k) => /** @type {Record<string, string>} */ (ARMY_NAMES)[k] || cap(k);
/** @param {string} k */
export const rankName = (k) => RANK_NAMES[k] || cap(k);
/** @param {string} k */
export const armyWord = (k) => /** @type {Record<string, string>} */ (ARMY_WORDS)[k] || k;
/** @param {string} k */
export const aRankCard = (k) => A_RANK_CARD[k] || `${/^[aeiou]/i.test(k) ? 'an' : 'a'} ${k} card`;
/**
 * "2 veteran cards"
 * @param {string} rank
 * @param {number} n
 */
export function rankCards(rank, n) {
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
/** @param {number} n */
export const cardCount = (n) => ngettext('{n} card', '{n} cards', n);
/**
 * A translated sentence with \u0000 in place of an element: its pieces, the element between.
 * @param {string} text
 * @param {Node} el
 * @returns {(string | Node)[]}
 */
export const around = (text, el) => {
  const at = text.indexOf('\u0000');
  if (at < 0) return [text, ' ', el];
  return [text.slice(0, at), el, text.slice(at + 1)].filter((x) => x !== '');
};
/**
 * The same, to follow a colon ("Not saved: you already have...").
 * @param {string | null | undefined} m
 */
export const clause = (m) => { m = String(m || '').trim(); return !m || /[.!?]$/.test(m) ? m : m + '.'; };
/**
 * A server message ("you already have a deck called 'x'") as a sentence.
 * @param {string | null | undefined} m
 */
export const sentence = (m) => cap(clause(m));
/** @param {string} id */
export const numOf = (id) => parseInt(String(id).split(':')[1], 10) || 0;
/**
 * What went wrong, in words (a refusal's sentence, or the error's message).
 * @param {unknown} e
 */
export const reason = (e) => (e instanceof Error ? e.message : String(e));

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

const unreachable = () => _('the server could not be reached: check your connection and try again');

/**
 * JSON request to the deck API (js/api.js); a refusal throws ApiError whose message is the
 * server's detail, or the page's words for a sign-out, an answer without one, no answer at all.
 * @template [T=any]
 * @param {string} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
export async function api(method, url, body) {
  try {
    return await request(url, { method, body, cache: 'no-store' });
  } catch (e) {
    if (e instanceof NetworkError) throw new ApiError(0, { detail: unreachable() });
    if (!(e instanceof ApiError)) throw e;
    let detail = e.detail || _('the server answered {status} {text}', { status: e.status, text: '' }).trim();
    if (e.status === 401) detail = _('you are signed out: sign in again (in another tab, to keep this page) and retry');
    throw new ApiError(e.status, { ...e.body, detail, code: e.code });
  }
}

/**
 * Download an export through fetch, so that a refusal shows as a message, not a broken file.
 * @param {string} url
 * @returns {Promise<string>} the file's name
 */
export async function download(url) {
  let r;
  try {
    r = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new ApiError(0, { detail: unreachable() });
  }
  if (!r.ok) {
    let detail = _('the server answered {status}', { status: r.status });
    /** @type {{detail?: unknown, code?: unknown} | null} */
    let data = null;
    try { data = await r.json(); if (data && typeof data.detail === 'string') detail = data.detail; } catch (e) { /* not JSON */ }
    throw new ApiError(r.status, { detail, code: data && typeof data.code === 'string' ? data.code : undefined });
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

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/**
 * A message that survives a page change (shown by the next deck page).
 * @param {string} text
 * @param {MessageKind} [kind]
 * @param {{highlight?: number}} [extra]
 */
export function setFlash(text, kind, extra) {
  try { sessionStorage.setItem(FLASH_KEY, JSON.stringify({ text, kind: kind || 'ok', ...(extra || {}) })); } catch (e) { /* private mode */ }
}
/** @returns {Flash | null} */
export function takeFlash() {
  try {
    const v = sessionStorage.getItem(FLASH_KEY);
    sessionStorage.removeItem(FLASH_KEY);
    return v ? JSON.parse(v) : null;
  } catch (e) { return null; }
}

/** @type {WeakMap<HTMLElement, ReturnType<typeof setTimeout>>} */
const fading = new WeakMap();

/**
 * Show a message in a .deck-msg box; ok and info messages fade after a while.
 * @param {HTMLElement | null} box
 * @param {string} text
 * @param {MessageKind} [kind]
 * @param {Node | null} [extra]
 */
export function showMessage(box, text, kind, extra) {
  if (!box) return;
  clearTimeout(fading.get(box));
  box.className = 'deck-msg ' + (kind || 'ok');
  const close = h('button', { type: 'button', class: 'msg-close', 'aria-label': _('Close'), title: _('Close'), text: '×', onclick: () => { box.hidden = true; } });
  box.replaceChildren(close, h('span', { class: 'msg-text', text }), extra || '');
  box.hidden = false;
  if (kind !== 'error') fading.set(box, setTimeout(() => { box.hidden = true; }, kind === 'info' ? 9000 : 5000));
}
/** @param {HTMLElement | null} box */
export function hideMessage(box) { if (box) { clearTimeout(fading.get(box)); box.hidden = true; } }

// ---------------------------------------------------------------------------------------------
// Times and names
// ---------------------------------------------------------------------------------------------

/** @param {string} iso */
const parseTime = (iso) => Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : iso + 'Z');

/**
 * ISO time → "just now", "5 min ago", "yesterday", "12 Mar 2025". Naive times are UTC.
 * @param {string | null} iso
 */
export function ago(iso) {
  if (!iso) return '';
  const t = parseTime(iso);
  if (Number.isNaN(t)) return iso.slice(0, 10);
  const sec = Math.max(0, (Date.now() - t) / 1000);
  if (sec < 45) return _('just now');
  if (sec < 3600) return _('{n} min ago', { n: Math.round(sec / 60) });
  if (sec < 86400) return ngettext('{n} hour ago', '{n} hours ago', Math.round(sec / 3600));
  if (sec < 2 * 86400) return _('yesterday');
  if (sec < 7 * 86400) return ngettext('{n} day ago', '{n} days ago', Math.floor(sec / 86400));
  return new Date(t).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}
/** @param {string} iso */
export const fullTime = (iso) => {
  const t = parseTime(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleString(lang || undefined);
};

/**
 * The first ``n`` characters of ``s``, counted as the server counts them (code points: an
 * emoji is never cut in half).
 * @param {string} s
 * @param {number} n
 */
export const cut = (s, n) => Array.from(s).slice(0, n).join('');

/**
 * ``base``, or ``base (2)``... whichever none of ``names`` takes (as the server picks copies' names).
 * @param {string[]} names
 * @param {string} base
 */
export function freeName(names, base) {
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
