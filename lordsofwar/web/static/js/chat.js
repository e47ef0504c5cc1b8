/* The chat of a game (docs/community.md, "Chat"), on the game page and, read only, in the replay.
 *
 * #chat holds the panel; its data-game-id names the game, data-mode is "live" (the game page:
 * write, quick phrases, turn chat off) or "replay" (read only). The history comes from
 * GET /api/games/{id}/chat; new messages come over the game's socket, which game.js owns: it
 * passes each `chat` message on as a "low:chat" event on the document, and each state or update
 * as "low:game" ({kind, status}), on which the history is read again after a reconnection or when
 * the game ends (its players may then read the spectators' room).
 *
 * Every text is put in with textContent (never HTML), in a <bdi> so that a right-to-left name or
 * text cannot turn the line round; a link is shown as the characters typed. A quick phrase is
 * sent as its key and shown in the reader's own language. In the screen-reader mode (the game
 * page's setting) the rooms are polite live regions: a new message is read out.
 */

import { ApiError, getJSON, postJSON, putJSON } from './api.js';
import { $, h } from './dom.js';
import { _ } from './i18n.js';
import { store } from './prefs.js';
import { sendReport } from './report.js';

/** @typedef {import('./model').ChatMessage} ChatMessage */
/** @typedef {import('./model').ChatHistory} ChatHistory */
/** @typedef {'players' | 'spectators'} Room */

/** The quick phrases' words in the reader's language, by key (the server keeps the keys). */
const PHRASES = /** @type {Record<string, string>} */ ({
  hello: _('Hello'),
  good_luck: _('Good luck'),
  good_game: _('Good game'),
  thanks: _('Thanks'),
  well_played: _('Well played'),
});

/**
 * What a message says in the reader's language: a phrase's words, else the text as written.
 * @param {ChatMessage} m
 */
export function messageText(m) {
  return (m.phrase && PHRASES[m.phrase]) || m.text;
}

const panel = /** @type {HTMLElement | null} */ (document.querySelector('#chat'));
if (panel) start(panel);

/** @param {HTMLElement} root */
function start(root) {
  const gameId = root.dataset.gameId;
  const live = root.dataset.mode === 'live';
  const signedIn = root.dataset.signedIn === 'yes';
  /** @type {ChatHistory | null} */
  let history = null;
  /** @type {Set<number>} */
  const seen = new Set();
  /** @type {string | null} */
  let status = null;
  let loading = false;
  /** the signed-in reader's name: their own messages have no Report button */
  let me = '';

  const rooms = /** @type {Record<Room, HTMLElement>} */ ({ players: $('#chat-players', root), spectators: $('#chat-spectators', root) });
  // the writing parts are on the game page only
  const form = /** @type {HTMLFormElement | null} */ (root.querySelector('#chat-form'));
  const input = /** @type {HTMLInputElement | null} */ (root.querySelector('#chat-input'));
  const error = /** @type {HTMLElement | null} */ (root.querySelector('#chat-error'));
  const phrases = /** @type {HTMLElement | null} */ (root.querySelector('#chat-phrases'));
  const signIn = /** @type {HTMLElement | null} */ (root.querySelector('#chat-signin'));

  /** @param {string} text */
  function showError(text) {
    if (!error) return;
    error.textContent = text;
    error.hidden = !text;
  }

  /** The live regions follow the game page's screen-reader mode. */
  function politeness() {
    const sr = live && !!store.get('screenReader', false);
    for (const box of Object.values(rooms)) box.querySelector('.chat-log')?.setAttribute('aria-live', sr ? 'polite' : 'off');
  }

  /** @param {ChatMessage} m */
  function line(m) {
    const when = new Date(m.at);
    return h(
      'li',
      { class: m.phrase ? 'chat-line chat-phrase' : 'chat-line', 'data-id': String(m.id) },
      h('time', { class: 'chat-time', datetime: m.at, text: when.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) }),
      ' ',
      h('bdi', { class: 'chat-who', text: m.user }),
      h('span', { class: 'chat-colon', 'aria-hidden': 'true', text: ': ' }),
      h('bdi', { class: 'chat-text', text: messageText(m) }),
      ...(signedIn && error && m.user !== me ? [' ', reportButton(m)] : []),
    );
  }

  /** A message's Report button: it opens the report form for that message (docs/community.md). @param {ChatMessage} m */
  function reportButton(m) {
    const button = h('button', {
      class: 'link chat-report', type: 'button', text: _('Report'),
      'aria-label': _('Report this message of {name} to the moderators', { name: m.user }),
    });
    if (reported.has(m.id)) button.setAttribute('disabled', '');
    button.addEventListener('click', () => openReport(m));
    return button;
  }

  // the report form: one for the panel, filled with the message whose Report button was pressed
  const reportForm = /** @type {HTMLFormElement | null} */ (root.querySelector('#chat-report'));
  /** @type {ChatMessage | null} */
  let reporting = null;
  /** the messages reported from this page: their buttons stay off when the lines are drawn again */
  /** @type {Set<ChatMessage['id']>} */
  const reported = new Set();

  /** The message's Report button as the list shows it now (render() may have drawn the lines again
   * since the form opened). @param {ChatMessage} m */
  function buttonOf(m) {
    return /** @type {HTMLElement | null} */ (root.querySelector(`li[data-id="${m.id}"] .chat-report`));
  }

  /** @param {ChatMessage} m */
  function openReport(m) {
    if (!reportForm) return;
    reporting = m;
    reportForm.reset();
    $('#chat-report-title', reportForm).textContent = _('Report the message of {name} to the moderators: “{text}”', { name: m.user, text: messageText(m) });
    reportForm.hidden = false;
    showError('');
    /** @type {HTMLElement} */ ($('#chat-report-reason', reportForm)).focus();
  }

  function closeReport() {
    if (!reportForm || !reporting) return;
    reportForm.hidden = true;
    const button = buttonOf(reporting);
    if (button && !button.hasAttribute('disabled')) button.focus();
    else if (input && !input.closest('[hidden]')) input.focus();
    reporting = null;
  }

  if (reportForm) {
    reportForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!reporting) return;
      const message = reporting;
      const data = new FormData(reportForm);
      const send = /** @type {HTMLButtonElement} */ (reportForm.querySelector('button[type=submit]'));
      send.disabled = true;
      const said = await sendReport({
        reason: /** @type {import('./api-types').components['schemas']['MessageReport']['reason']} */ (String(data.get('reason'))),
        text: String(data.get('text') || ''),
        message: message.id,
      });
      send.disabled = false;
      if (said.ok) {
        reported.add(message.id);
        buttonOf(message)?.setAttribute('disabled', '');
        if (reporting === message) closeReport(); // not another message's form opened meanwhile
      }
      showError(said.text);
    });
    $('#chat-report-cancel', reportForm).addEventListener('click', closeReport);
    reportForm.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') closeReport();
    });
  }

  /** @param {ChatMessage} m */
  function append(m) {
    if (seen.has(m.id)) return;
    const box = rooms[m.room];
    if (!box || box.hidden) return;
    seen.add(m.id);
    /** @type {HTMLElement} */ (box.querySelector('ol')).append(line(m));
    box.querySelector('.chat-empty')?.remove();
    const log = /** @type {HTMLElement} */ (box.querySelector('.chat-log'));
    log.scrollTop = log.scrollHeight; // the newest in view
  }

  function render() {
    const hist = history;
    root.hidden = !hist || !hist.available;
    if (!hist || !hist.available) return;
    const off = !hist.enabled;
    $('#chat-off', root).hidden = !off;
    $('#chat-body', root).hidden = off;
    const toggle = /** @type {HTMLButtonElement | null} */ (root.querySelector('#chat-toggle'));
    if (toggle) toggle.hidden = off || !signedIn;
    if (off) return;
    seen.clear();
    for (const room of /** @type {Room[]} */ (['players', 'spectators'])) {
      const box = rooms[room];
      const messages = hist.rooms[room];
      box.hidden = !messages;
      const list = /** @type {HTMLElement} */ (box.querySelector('ol'));
      list.replaceChildren();
      box.querySelector('.chat-empty')?.remove();
      if (!messages) continue;
      if (!messages.length) box.append(h('p', { class: 'chat-empty muted', text: _('No messages yet.') }));
      for (const m of messages) append(m);
    }
    const both = !!hist.rooms.players && !!hist.rooms.spectators;
    for (const box of Object.values(rooms)) box.querySelector('h3')?.toggleAttribute('hidden', !both);
    const writing = live && !!hist.room;
    if (form) form.hidden = !writing;
    if (phrases) phrases.hidden = !writing;
    if (input) input.maxLength = hist.max_length;
    if (signIn) signIn.hidden = signedIn;
    politeness();
  }

  async function load() {
    if (loading) return;
    loading = true;
    try {
      if (signedIn && !me) me = await getJSON('/api/session').then((s) => (s.user ? s.user.name : '')).catch(() => '');
      history = await getJSON(`/api/games/${gameId}/chat`);
      render();
    } catch (e) {
      root.hidden = true; // no chat to show (a private game's spectator is refused the page anyway)
    } finally {
      loading = false;
    }
  }

  /** @param {{text?: string, phrase?: string}} body */
  async function send(body) {
    showError('');
    try {
      const m = await postJSON(`/api/games/${gameId}/chat`, body);
      append(/** @type {ChatMessage} */ (m));
      return true;
    } catch (e) {
      showError(e instanceof ApiError && e.detail ? e.detail : _('The message could not be sent; try again.'));
      return false;
    }
  }

  /** @param {boolean} on */
  async function setEnabled(on) {
    showError('');
    try {
      await putJSON('/api/chat/settings', { enabled: on });
      await load();
      const focus = /** @type {HTMLElement | null} */ (root.querySelector(on ? '#chat-input' : '#chat-on'));
      if (focus && !focus.closest('[hidden]')) focus.focus();
    } catch (e) {
      showError(e instanceof ApiError && e.detail ? e.detail : _('The setting could not be saved; try again.'));
    }
  }

  if (live && form && input && phrases) {
    for (const [key, words] of Object.entries(PHRASES)) {
      phrases.append(h('button', { class: 'btn chat-phrase-btn', type: 'button', 'data-phrase': key, text: words, onclick: () => send({ phrase: key }) }));
    }
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const text = input.value;
      if (!text.trim()) return;
      input.disabled = true;
      const sent = await send({ text });
      input.disabled = false;
      if (sent) input.value = '';
      input.focus();
    });
    root.querySelector('#chat-toggle')?.addEventListener('click', () => setEnabled(false));
    root.querySelector('#chat-on')?.addEventListener('click', () => setEnabled(true));
    document.addEventListener('low:chat', (e) => {
      const m = /** @type {CustomEvent<ChatMessage>} */ (e).detail;
      if (history && history.enabled && m && typeof m.id === 'number') {
        politeness();
        append(m);
      }
    });
    document.addEventListener('low:game', (e) => {
      const d = /** @type {CustomEvent<{kind: string, status: string | null}>} */ (e).detail || { kind: '', status: null };
      const changed = status !== null && d.status !== null && d.status !== status;
      if (d.status) status = d.status;
      if (d.kind === 'state' || changed) load();
    });
    $('#btn-sr')?.addEventListener('click', () => setTimeout(politeness, 0));
  }
  load();
}
