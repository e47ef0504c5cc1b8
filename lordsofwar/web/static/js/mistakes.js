/* Learning from your mistakes (/learn/mistakes/{game}): each of your flagged decisions of an
 * analysed game on the board (js/board.js), as you saw it then; a try goes to the server, which
 * judges it against the analysis (docs/learn.md, "Learning from your mistakes") and only then
 * names the analysis' preferred action, which the board marks. No judging happens here. */

import { ApiError, getJSON, postJSON } from './api.js';
import { actionSquares, mountBoard } from './board.js';
import { $, $$, h, ready } from './dom.js';
import { _ } from './i18n.js';
import { actionText, loadCards } from './render.js';

/** @import { View, Seat } from './model' */
/** @typedef {import('./api-types').components['schemas']} Schemas */
/** @typedef {Schemas['Exercise']} Exercise */
/** @typedef {Schemas['Judgement']} Judgement */

ready(async () => {
  const root = $('#mistakes');
  const gameId = Number(root.dataset.game);
  await loadCards();
  /** @type {Schemas['Exercises']} */
  let doc;
  try {
    doc = await getJSON(`/api/learn/mistakes/${gameId}`);
  } catch (e) {
    $('#mx-prompt').textContent = e instanceof Error ? e.message : String(e);
    return;
  }
  const you = /** @type {Seat} */ (doc.player);
  const list = doc.exercises;
  /** @type {Set<number>} */
  const solved = new Set();
  let cur = 0;
  /** @type {ReturnType<typeof mountBoard> | null} */
  let board = null;
  /** @type {Set<string>} */
  let marked = new Set();
  const result = $('#mx-result');

  const steps = $('#mx-steps');
  steps.replaceChildren(...list.map((ex, i) => h('li', null,
    h('button', { type: 'button', class: 'button small mx-step', 'data-n': ex.n, onclick: () => show(i) },
      _('Turn {turn}', { turn: ex.turn })))));

  /** @param {string} text @param {'ok' | 'wrong' | 'note'} kind @param {string} [verdict] */
  function say(text, kind, verdict) {
    result.hidden = !text;
    result.className = 'mx-result ' + kind;
    result.dataset.verdict = verdict || '';
    result.textContent = text;
  }

  function renderSteps() {
    for (const [i, b] of $$('.mx-step', steps).entries()) {
      b.classList.toggle('solved', solved.has(list[i].n));
      if (i === cur) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
    }
  }

  /** @param {boolean} open whether a try may be made */
  function draw(open) {
    const ex = list[cur];
    const opts = { view: /** @type {View} */ (/** @type {unknown} */ (ex.view)), legal: open ? ex.legal : [], you, hinted: marked };
    if (!board) board = mountBoard($('#mx-board'), { ...opts, onAction });
    else board.update(opts);
  }

  /** @param {number} i */
  function show(i) {
    cur = i;
    const ex = list[i];
    $('#mx-title').textContent = _('Exercise {n} of {total}', { n: i + 1, total: list.length });
    const what = actionText(ex.played);
    $('#mx-prompt').textContent = (ex.verdict === 'blunder'
      ? _('In turn {turn} you played: {action}. The analysis marked it a blunder (the marked squares). Find a better action.', { turn: ex.turn, action: what })
      : _('In turn {turn} you played: {action}. The analysis marked it a mistake (the marked squares). Find a better action.', { turn: ex.turn, action: what }));
    $('#mx-prompt').dataset.played = ex.played;
    marked = new Set(ex.played_squares);
    say('', 'note');
    $('#mx-retry').hidden = true;
    $('#mx-next').hidden = true;
    draw(true);
    renderSteps();
  }

  /** @param {string} action */
  async function onAction(action) {
    const ex = list[cur];
    /** @type {Judgement} */
    let j;
    try {
      say(_('The analysis is judging your action…'), 'note', 'waiting');
      j = await postJSON(`/api/learn/mistakes/${gameId}/${ex.n}`, { action });
    } catch (e) {
      say(e instanceof ApiError || e instanceof Error ? e.message : String(e), 'wrong', 'error');
      draw(true);
      return;
    }
    const args = { action: actionText(action), best: j.best ? actionText(j.best) : '', drop: Math.round(100 * Number(j.drop || 0)) };
    if (j.verdict === 'unjudged') {
      say(_('The analysis never looked at {action}, so it cannot judge it. Try another action.', args), 'note', 'unjudged');
      draw(true);
      return;
    }
    marked = new Set(j.best ? actionSquares(j.best) : []);
    $('#mx-prompt').dataset.best = j.best || '';
    if (j.correct) {
      solved.add(ex.n);
      say(j.verdict === 'best'
        ? _('Right: {action} is the analysis\u2019 own choice (now marked).', args)
        : _('Right: {action} is as good as the analysis\u2019 choice, {best} (now marked), within {drop} points.', args), 'ok', j.verdict);
    } else if (j.verdict === 'played') {
      say(_('That is what you played in the game: the mistake itself. The analysis prefers {best} (now marked).', args), 'wrong', j.verdict);
    } else {
      say(_('Not better: {action} is {drop} points below the analysis\u2019 choice, {best} (now marked).', args), 'wrong', j.verdict);
    }
    draw(false);
    $('#mx-retry').hidden = !!j.correct;
    $('#mx-next').hidden = cur + 1 >= list.length;
    renderSteps();
  }

  $('#mx-retry').addEventListener('click', () => { say('', 'note'); $('#mx-retry').hidden = true; draw(true); });
  $('#mx-next').addEventListener('click', () => show(Math.min(cur + 1, list.length - 1)));
  show(0);
  root.classList.add('mx-ready');
});
