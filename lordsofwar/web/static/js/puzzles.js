/* The puzzle pages (docs/learn.md, "Puzzles"): the start page (/learn/puzzles) and the solving
 * page (/learn/puzzles/{id}, /daily, /streak).
 *
 * The solving page mounts the board (board.js) with the puzzle's view and the legal actions the
 * server's engine listed; the chosen action goes to the server, which judges it and answers
 * with the solution and the themes. Nothing is judged here.
 *
 * A guest's progress is kept in this browser (localStorage "low.puzzles": the tried puzzles and
 * whether each was solved; "low.puzzleStreak": the streak run's seed, step and best). An
 * account's is kept on the server.
 *
 * Hooks for browser tests: #puzzle-page[data-state] is "solving", "waiting", "right" or "wrong";
 * #verdict holds the announcement (aria-live).
 */

import { ApiError, getJSON, postJSON } from './api.js';
import { actionSquares, mountBoard } from './board.js';
import { $, $$, $button, h, ready } from './dom.js';
import { _, ngettext } from './i18n.js';
import { actionText, cardName, loadCards, store } from './render.js';

/** @typedef {import('./api-types').components['schemas']['PuzzleToSolve']} PuzzleToSolve */
/** @typedef {import('./api-types').components['schemas']['PuzzleVerdict']} Verdict */
/** @typedef {import('./api-types').components['schemas']['PuzzleStreak']} StreakState */
/** @typedef {import('./model').View} View */
/** @typedef {import('./board.js').Board} Board */
/** @typedef {{mode: string, signed_in: boolean, puzzle?: PuzzleToSolve, date?: string, streak?: StreakState | null}} PageData */
/** @typedef {{seed: number, step: number, best: number}} GuestRun */

const PROGRESS = 'puzzles';
const RUN = 'puzzleStreak';

/** @returns {Record<string, boolean>} a guest's tried puzzles: id → solved */
function progress() {
  const p = store.get(PROGRESS, /** @type {Record<string, boolean>} */ ({}));
  return p && typeof p === 'object' ? p : {};
}

/** @param {string} id @param {boolean} solved */
function remember(id, solved) {
  const p = progress();
  p[id] = !!p[id] || solved;
  store.set(PROGRESS, p);
}

/** @returns {GuestRun} */
function guestRun() {
  const r = store.get(RUN, /** @type {GuestRun | null} */ (null));
  if (r && Number.isInteger(r.seed) && Number.isInteger(r.step) && Number.isInteger(r.best)) return r;
  const fresh = { seed: Math.floor(Math.random() * 2 ** 31), step: 0, best: r && Number.isInteger(r.best) ? r.best : 0 };
  store.set(RUN, fresh);
  return fresh;
}

/** @param {unknown} e */
const reason = (e) => (e instanceof ApiError ? e.detail || e.message : e instanceof Error ? e.message : String(e));

/** The start page: a guest's progress and next puzzle, from this browser. */
function startPage() {
  const root = $('#puzzles-home');
  if (root.dataset.signedIn === 'yes') return;
  const mine = progress();
  const tried = Object.keys(mine);
  const solved = tried.filter((id) => mine[id]).length;
  const run = store.get(RUN, /** @type {GuestRun | null} */ (null));
  const best = run && Number.isInteger(run.best) ? run.best : 0;
  $('#guest-progress').textContent = tried.length
    ? ngettext('This browser has tried {n} puzzle and solved {solved}.', 'This browser has tried {n} puzzles and solved {solved}.', tried.length, { n: tried.length, solved })
      + ' ' + _('Best streak: {best}.', { best })
    : '';
  for (const row of $$('#puzzle-list tr[data-puzzle]')) {
    const id = row.dataset.puzzle || '';
    if (id in mine) $('.puzzle-status', row).textContent = mine[id] ? _('solved') : _('missed');
  }
  const theme = root.dataset.theme || '';
  const q = new URLSearchParams({ skip: tried.join(',') });
  if (theme) q.set('theme', theme);
  getJSON(`/api/learn/puzzles/next?${q}`).then(
    (/** @type {PuzzleToSolve} */ p) => { $('#next-puzzle').setAttribute('href', `/learn/puzzles/${p.id}` + (theme ? `?theme=${theme}` : '')); },
    () => { /* none left untried: the link keeps the list's first puzzle */ });
}

/** The solving page. */
function solvePage() {
  const page = $('#puzzle-page');
  const data = /** @type {PageData} */ (JSON.parse($('#puzzle-data').textContent || '{}'));
  const mode = data.mode;
  const theme = new URLSearchParams(location.search).get('theme') || '';
  const verdictEl = $('#verdict');
  const after = $('#puzzle-after');
  const tryAgain = $button('#try-again');
  const nextBtn = $button('#next-button');
  const restart = $button('#streak-restart');
  /** @type {Board | null} */
  let board = null;
  /** @type {PuzzleToSolve | null} */
  let puzzle = null;
  /** @type {StreakState | null} */
  let nextRun = null;

  /** @param {string} s */
  const setState = (s) => { page.dataset.state = s; };

  /** @param {PuzzleToSolve} p */
  function show(p) {
    puzzle = p;
    page.dataset.puzzle = p.id;
    $('#puzzle-task').textContent = (p.player === 1 ? _('You are player 1: find the best action.') : _('You are player 2: find the best action.'))
      + ' ' + _('Puzzle {id}, rating {rating}.', { id: p.id, rating: p.rating });
    $('#deck-line').textContent = _('Your deck holds: {cards}.', { cards: p.deck.map(cardName).join(', ') });
    $('#known-line').textContent = p.known.length
      ? _("You have seen these cards in the opponent's hand: {cards}.", { cards: p.known.map(cardName).join(', ') })
      : _("You have seen none of the opponent's hand cards.");
    verdictEl.textContent = '';
    verdictEl.className = 'verdict';
    after.hidden = true;
    tryAgain.hidden = true;
    nextBtn.hidden = true;
    restart.hidden = true;
    const opts = { view: /** @type {View} */ (/** @type {unknown} */ (p.view)), legal: p.legal, you: p.player, onAction: send, hinted: new Set() };
    if (board) board.update(opts);
    else board = mountBoard($('#puzzle-board'), opts);
    setState('solving');
  }

  /** @param {string} action */
  async function send(action) {
    if (!puzzle) return;
    const p = puzzle;
    setState('waiting');
    verdictEl.textContent = _('Checking {action}…', { action: actionText(action) });
    const streakAnswer = mode === 'streak' && data.signed_in;
    try {
      /** @type {Verdict} */
      const v = await postJSON(`/api/learn/puzzles/${p.id}/answer`, { action, streak: streakAnswer });
      judged(p, v);
    } catch (e) {
      verdictEl.textContent = reason(e);
      verdictEl.className = 'verdict error';
      if (e instanceof ApiError && e.code === 'stale') { nextBtn.hidden = false; setState('wrong'); return; }
      if (board) board.update({ legal: p.legal });
      setState('solving');
    }
  }

  /** @param {PuzzleToSolve} p @param {Verdict} v */
  function judged(p, v) {
    const mine = actionText(v.action);
    verdictEl.className = 'verdict ' + (v.correct ? 'right' : 'wrong');
    verdictEl.textContent = v.correct
      ? _('Right! {action} is the best action.', { action: mine })
      : _('Not this one: {action} is not the best action.', { action: mine });
    $('#solution-line').textContent = _('The solution: {action}.', { action: actionText(v.solution) });
    $('#themes-line').textContent = _('Themes: {themes}.', { themes: v.theme_names.join(', ') });
    const rating = $('#rating-line');
    if (v.rated && v.you && v.change !== null) {
      const change = (v.change > 0 ? '+' : v.change < 0 ? '−' : '±') + Math.abs(v.change);
      rating.textContent = _('Your puzzle rating: {rating} ({change}). The puzzle is now rated {puzzle}.', { rating: v.you.rating, change, puzzle: v.puzzle_rating });
    } else if (data.signed_in) {
      rating.textContent = _('Not rated: only your first try at a puzzle is.');
    } else {
      rating.textContent = _('Not rated: sign in to get a puzzle rating.');
    }
    after.hidden = false;
    if (board) board.update({ legal: [], hinted: new Set(actionSquares(v.solution)) });
    if (!data.signed_in) remember(p.id, v.correct);
    setState(v.correct ? 'right' : 'wrong');
    if (mode === 'streak') streakJudged(v);
    else {
      tryAgain.hidden = v.correct;
      nextBtn.hidden = false;
      (v.correct ? nextBtn : tryAgain).focus();
    }
  }

  /** @param {Verdict} v */
  function streakJudged(v) {
    let count = 0;
    let best;
    if (data.signed_in && v.streak) {
      nextRun = v.streak;  // the run after this answer: the next step, or a new run after a miss
      count = v.streak.streak;
      best = v.streak.best;
    } else {
      const run = guestRun();
      if (v.correct) {
        run.step += 1;
        run.best = Math.max(run.best, run.step);
        count = run.step;
      } else {
        run.best = Math.max(run.best, run.step);
        run.seed = Math.floor(Math.random() * 2 ** 31);
        run.step = 0;
      }
      store.set(RUN, run);
      best = run.best;
    }
    $('#streak-count').textContent = String(count);
    $('#streak-best').textContent = String(best);
    if (v.correct) {
      verdictEl.textContent += ' ' + ngettext('Your streak: {n} puzzle.', 'Your streak: {n} puzzles.', count, { n: count });
      nextBtn.hidden = false;
      nextBtn.focus();
    } else {
      verdictEl.textContent += ' ' + _('The streak ends here.');
      restart.hidden = false;
      restart.focus();
    }
  }

  /** The streak run's puzzle (an account's from the server, a guest's by its seed and step). */
  async function streakPuzzle() {
    /** @type {StreakState} */
    let run;
    if (nextRun) { run = nextRun; nextRun = null; }
    else if (data.signed_in && data.streak) { run = data.streak; data.streak = null; }
    else if (data.signed_in) run = await getJSON('/api/learn/puzzles/streak');
    else {
      const mine = guestRun();
      run = await getJSON(`/api/learn/puzzles/streak?seed=${mine.seed}&step=${mine.step}&best=${mine.best}`);
    }
    $('#streak-count').textContent = String(run.streak);
    $('#streak-best').textContent = String(run.best);
    if (run.puzzle) show(run.puzzle);
    else {
      verdictEl.className = 'verdict right';
      verdictEl.textContent = _('You solved a puzzle of every difficulty: the streak is complete.');
      if (board) board.update({ legal: [] });
      restart.hidden = false;
      setState('right');
    }
  }

  async function goNext() {
    if (mode === 'streak') { await streakPuzzle(); return; }
    const q = new URLSearchParams();
    if (!data.signed_in) q.set('skip', Object.keys(progress()).join(','));
    if (theme) q.set('theme', theme);
    try {
      /** @type {PuzzleToSolve} */
      const p = await getJSON(`/api/learn/puzzles/next?${q}`);
      location.assign(`/learn/puzzles/${p.id}` + (theme ? `?theme=${theme}` : ''));
    } catch (e) {
      verdictEl.textContent = e instanceof ApiError && e.status === 404
        ? _('You have tried every puzzle here: the list has them all to try again.')
        : reason(e);
    }
  }

  tryAgain.addEventListener('click', () => { if (puzzle) show(puzzle); });
  nextBtn.addEventListener('click', () => { goNext().catch((e) => { verdictEl.textContent = reason(e); }); });
  restart.addEventListener('click', () => {
    const go = async () => {
      if (data.signed_in && !nextRun) nextRun = await postJSON('/api/learn/puzzles/streak/restart');
      else { const run = guestRun(); store.set(RUN, { seed: Math.floor(Math.random() * 2 ** 31), step: 0, best: Math.max(run.best, run.step) }); }
      await streakPuzzle();
    };
    go().catch((e) => { verdictEl.textContent = reason(e); });
  });

  loadCards().then(() => {
    if (mode === 'streak') return streakPuzzle();
    if (data.puzzle) show(data.puzzle);
    return undefined;
  }).catch((e) => {
    $('#puzzle-board').replaceChildren(h('p', { class: 'error', text: reason(e) }));
  });
}

ready(() => {
  if (document.getElementById('puzzles-home')) startPage();
  if (document.getElementById('puzzle-page')) solvePage();
});
