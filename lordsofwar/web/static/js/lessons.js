/* The lessons (docs/learn.md, "Lessons"): the /learn hub's and the lesson list's progress, and a
 * lesson page, where each exercise is played on the board (board.js) against the server's engine.
 *
 * The lesson API is stateless: the page keeps the actions taken so far and sends them all with
 * each play; the server replays them and answers the learner's view, the legal actions, the
 * status (playing / done / failed) and the words to show. LessonProgressDoc: in this browser
 * (localStorage "low.lessons": {slug: [exercise ids]}) and, signed in, in the account (a guest's
 * progress is added to the account at the next page of a signed-in visit, then forgotten here).
 *
 * Stable hooks for browser tests:
 *   #lesson[data-slug]             the lesson page (class .busy while an answer is awaited)
 *   #lesson-steps .lesson-step[data-exercise]   one per exercise (.current, .solved)
 *   #lesson-prompt                 the task; #lesson-result (.ok | .wrong | .note, aria-live) what happened
 *   #btn-show #btn-retry #btn-next the buttons; #lesson-complete once every exercise is solved
 *   #lesson-board                  the board (board.js hooks inside)
 *   #lesson-progress[data-done]    the hub's count; .lesson-item[data-slug] .lesson-state[data-done] the list's
 */

import { ApiError, getJSON, postJSON } from './api.js';
import { actionSquares, mountBoard } from './board.js';
import { $, $$, ready } from './dom.js';
import { _, ngettext } from './i18n.js';
import { cardName, loadCards } from './render.js';

/** @import { View, LogEvent } from './model' */
/** @typedef {import('./api-types').components['schemas']} Schemas */
/** @typedef {Schemas['LessonDoc']} LessonDoc */
/** @typedef {Schemas['LessonPlayState']} LessonPlayState */
/** @typedef {Record<string, string[]>} Solved  exercise ids by lesson slug */

const STORE = 'low.lessons';
const STEP_MS = 700;

/** @returns {Solved} */
function stored() {
  try {
    const d = JSON.parse(localStorage.getItem(STORE) || '{}');
    if (!d || typeof d !== 'object' || Array.isArray(d)) return {};
    /** @type {Solved} */
    const out = {};
    for (const [k, v] of Object.entries(d)) if (Array.isArray(v)) out[k] = v.filter((x) => typeof x === 'string');
    return out;
  } catch {
    return {};
  }
}

/** @param {string} slug @param {string} id */
function remember(slug, id) {
  const d = stored();
  const list = d[slug] || [];
  if (!list.includes(id)) list.push(id);
  d[slug] = list;
  try { localStorage.setItem(STORE, JSON.stringify(d)); } catch { /* storage full or off: the account still has it */ }
}

/** @param {Schemas['LessonProgressDoc']} doc @returns {Solved} */
const bySlug = (doc) => Object.fromEntries(doc.lessons.map((x) => [x.lesson, x.exercises]));

/** @param {Solved} a @param {Solved} b @returns {Solved} */
function union(a, b) {
  /** @type {Solved} */
  const out = {};
  for (const src of [a, b]) for (const [k, v] of Object.entries(src)) out[k] = [...new Set([...(out[k] || []), ...v])];
  return out;
}

/**
 * Signed in: add this browser's progress to the account (then forget it here); the account's.
 * Signed out: this browser's.
 * @param {boolean} signedIn
 * @returns {Promise<Solved | null>} null: signed in and nothing to add (the page's own numbers stand)
 */
async function progress(signedIn) {
  if (!signedIn) return stored();
  const mine = stored();
  if (!Object.keys(mine).length) return null;
  try {
    /** @type {Schemas['LessonProgressDoc']} */
    const doc = await postJSON('/api/learn/progress', { lessons: mine });
    localStorage.removeItem(STORE);
    return bySlug(doc);
  } catch {
    /** @type {Schemas['LessonProgressDoc']} */
    const doc = await getJSON('/api/learn/progress').catch(() => ({ lessons: [] }));
    return union(mine, bySlug(doc));
  }
}

/** The hub and the lesson list: the counts of solved exercises. */
async function showCounts() {
  const root = $('#learn-hub') || $('#lessons');
  const solved = await progress(!!root.dataset.user);
  if (!solved) return;
  const hub = $('#lesson-progress');
  if (hub) {
    const total = Number(hub.dataset.total);
    const done = Object.values(solved).reduce((n, v) => n + v.length, 0);
    hub.dataset.done = String(done);
    hub.textContent = ngettext('{done} of {n} exercise solved', '{done} of {n} exercises solved', total, { done, n: total });
    /** @type {HTMLProgressElement} */ ($('#lesson-meter')).value = done;
  }
  for (const li of $$('.lesson-item')) {
    const ids = String(li.dataset.exercises).split(' ');
    const done = ids.filter((id) => (solved[String(li.dataset.slug)] || []).includes(id)).length;
    const state = $('.lesson-state', li);
    state.dataset.done = String(done);
    state.textContent = ngettext('{done} of {n} exercise solved', '{done} of {n} exercises solved', ids.length, { done, n: ids.length });
    li.classList.toggle('complete', done === ids.length);
  }
}

/** @param {unknown} e */
const errorText = (e) => (e instanceof ApiError || e instanceof Error ? e.message : String(e));
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A lesson page. @param {HTMLElement} root */
async function startLesson(root) {
  /** @type {{lesson: LessonDoc, done: string[]}} */
  const data = JSON.parse($('#lesson-data').textContent || '{}');
  const L = data.lesson;
  const signedIn = !!root.dataset.user;
  const solved = new Set(data.done);
  const merged = await progress(signedIn);
  for (const id of (merged || {})[L.slug] || []) solved.add(id);
  await loadCards();

  let cur = Math.max(0, L.exercises.findIndex((e) => !solved.has(e.id)));
  /** @type {string[]} */
  let actions = [];
  /** @type {LessonPlayState | null} */
  let state = null;
  /** @type {ReturnType<typeof mountBoard> | null} */
  let board = null;
  let showing = false;
  let run = 0; // a new start or "show me" stops an older one's steps

  const ex = () => L.exercises[cur];
  const path = () => `/api/learn/lessons/${L.slug}/exercises/${ex().id}/play`;
  const result = $('#lesson-result');

  /** @param {string} text @param {'ok' | 'wrong' | 'note'} kind */
  function say(text, kind) {
    result.hidden = !text;
    result.className = 'lesson-result ' + kind;
    result.textContent = text;
  }

  function renderSteps() {
    for (const [i, b] of $$('.lesson-step', root).entries()) {
      const id = String(b.dataset.exercise);
      b.classList.toggle('current', i === cur);
      b.classList.toggle('solved', solved.has(id));
      b.setAttribute('aria-pressed', i === cur ? 'true' : 'false');
      if (i === cur) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
      $('.step-solved', b).textContent = solved.has(id) ? _('(solved)') : '';
    }
    $('#lesson-complete').hidden = !L.exercises.every((e) => solved.has(e.id));
  }

  /** What the last action did, in words (for everyone, and the screen reader's announcement). */
  function eventsText(/** @type {LessonPlayState} */ st) {
    /** @type {string[]} */
    const out = [];
    for (const ev of /** @type {LogEvent[]} */ (st.events)) {
      switch (ev.type) {
        case 'eliminated': out.push(_('eliminated: {card} ({square})', { card: cardName(ev.card), square: ev.square })); break;
        case 'advance': out.push(_('berserker {card} advances {from} → {to}', { card: cardName(ev.card), from: ev.from, to: ev.to })); break;
        case 'shot': out.push(_('{card} ({from}) shoots {target} ({square}) for {damage}', { card: cardName(ev.card), from: ev.from, target: cardName(ev.target_card), square: ev.target, damage: ev.damage })); break;
        case 'reveal': if (ev.player === st.you) out.push(_('Your whole hand is shown to the opponent.')); break;
        case 'extra_turn': if (ev.player === st.you) out.push(_('You play an extra turn.')); break;
        case 'result': out.push(ev.winner === st.you ? _('You win the game.') : ev.winner == null ? _('The game ends in a draw.') : _('The opponent wins the game.')); break;
        case 'deploy': if (ev.player !== st.you) out.push(_('The opponent deploys {card} on {square}.', { card: cardName(ev.card), square: ev.square })); break;
        default: break;
      }
    }
    return out.join('; ');
  }

  /**
   * Show the server's answer.
   * @param {LessonPlayState} st
   * @param {Set<string>} [hinted]
   */
  function apply(st, hinted) {
    state = st;
    root.classList.remove('busy');
    const opts = { view: /** @type {View} */ (st.view), legal: st.legal, you: st.you, hinted: hinted || new Set() };
    if (!board) board = mountBoard($('#lesson-board'), { ...opts, onAction, onMiss });
    else board.update(opts);
    const what = eventsText(st);
    if (st.status === 'done') {
      if (!showing && !solved.has(ex().id)) { solved.add(ex().id); remember(L.slug, ex().id); }
      say([st.message || _('Goal reached!'), what].filter(Boolean).join(' — '), 'ok');
    } else if (st.status === 'failed') {
      say([_('Not quite.'), st.message, what].filter(Boolean).join(' '), 'wrong');
    } else if (what) say(what, 'note');
    else if (!actions.length) say('', 'note');
    $('#btn-retry').hidden = st.status !== 'failed' && !(showing && st.status === 'done');
    $('#btn-next').hidden = st.status !== 'done' || cur + 1 >= L.exercises.length;
    $('#btn-show').hidden = st.status !== 'playing' || showing;
    renderSteps();
  }

  /** @param {string | null} [attempt] @returns {Promise<LessonPlayState>} */
  function send(attempt) {
    root.classList.add('busy');
    /** @type {Schemas['LessonPlayBody']} */
    const body = { actions, shown: showing };
    if (attempt) body.attempt = attempt;
    return postJSON(path(), body).finally(() => root.classList.remove('busy'));
  }

  /** @param {string} action */
  async function onAction(action) {
    if (showing) return;
    actions.push(action);
    try {
      apply(await send());
    } catch (e) {
      actions.pop();
      say(errorText(e), 'wrong');
      if (board && state) board.update({ view: /** @type {View} */ (state.view), legal: state.legal });
    }
  }

  /** A try the rules refuse: the server says why (the lesson's words or the engine's). @param {string} attempt */
  async function onMiss(attempt) {
    if (showing || !state || state.status !== 'playing') return;
    try {
      const st = await send(attempt);
      say(st.message || '', 'wrong');
    } catch (e) {
      say(errorText(e), 'wrong');
    }
  }

  /** @param {number} i */
  async function start(i) {
    run++;
    cur = i;
    actions = [];
    showing = false;
    $('#lesson-prompt').textContent = ex().prompt;
    say('', 'note');
    renderSteps();
    try {
      apply(await send());
    } catch (e) {
      say(errorText(e), 'wrong');
    }
  }

  /** "Show me": the expected answer, played step by step with its squares marked. */
  async function show() {
    const mine = ++run;
    /** @type {Schemas['LessonAnswer']} */
    const answer = await getJSON(`/api/learn/lessons/${L.slug}/exercises/${ex().id}/answer`);
    if (mine !== run) return;
    showing = true;
    actions = [];
    apply(await send());
    say(_('Watch: the expected answer is played for you.'), 'note');
    for (const a of answer.actions) {
      if (mine !== run || !state) return;
      board?.update({ view: /** @type {View} */ (state.view), legal: [], hinted: new Set(actionSquares(a)) });
      await sleep(STEP_MS);
      if (mine !== run) return;
      actions.push(a);
      apply(await send(), new Set(actionSquares(a)));
      await sleep(STEP_MS / 2);
    }
  }

  for (const [i, b] of $$('.lesson-step', root).entries()) b.addEventListener('click', () => start(i));
  $('#btn-retry').addEventListener('click', () => start(cur));
  $('#btn-next').addEventListener('click', () => { if (cur + 1 < L.exercises.length) start(cur + 1).then(() => $('#lesson-prompt').focus()); });
  $('#btn-show').addEventListener('click', () => { show().catch((e) => say(errorText(e), 'wrong')); });
  $('#lesson-prompt').tabIndex = -1;
  await start(cur);
}

ready(() => {
  const lesson = document.getElementById('lesson');
  if (lesson) startLesson(lesson).catch((e) => { const r = $('#lesson-result'); r.hidden = false; r.textContent = errorText(e); });
  else if (document.getElementById('learn-hub') || document.getElementById('lessons')) showCounts().catch(() => { /* the page's own numbers stand */ });
});
