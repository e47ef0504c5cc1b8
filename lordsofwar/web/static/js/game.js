/* Lords of War — the game page (live play): its state and actions; the entry module of game.html.
 *
 * The mat and the cards are drawn by render.js (shared with the replay and the deck editor), the
 * live channel is socket.js, requests go through api.js. The state lives in one place (S: the
 * server's latest; UI: this page's choices) and render() redraws the page from it.
 *
 * Stable hooks for browser tests:
 *   #game[data-game-id]            root of the game page (class "busy" while an answer is awaited)
 *   #mat[data-bottom]              the battle mat (data-bottom: the player at the bottom of the screen);
 *                                  each square [data-square="d3"] (or "-1,3" off the bordered area),
 *                                  classes: .target (legal destination of the selection: exactly the
 *                                  squares of the selected card's or unit's legal actions), .source
 *                                  (unit with legal actions), .selected, .last (changed in the last
 *                                  turn); a unit is .unit[data-card][data-owner]
 *   Colours follow the owner (.card.col-me: you, or player 1 for a spectator; .col-opp), never the
 *   side of the screen: the flip button (#btn-flip) turns the mat, your cards stay yours.
 *   #hand-bottom .hand-card[data-card="orcs:07"][data-index]   own hand (class .selected, .deployable);
 *                                  after a flip your hand is at the top: #hand-top .opp-card.own
 *   #hand-top .opp-card            opponent's hand (.back when hidden)
 *   #btn-draw #btn-pass            reinforcement buttons (shown only when legal)
 *   #btn-resign → #btn-resign-confirm / #btn-resign-cancel (confirmation dialog #confirm)
 *   #btn-abort (while the state's `abortable`) → #btn-abort-confirm / #btn-resign-cancel (the same dialog)
 *   #btn-offer-draw #btn-accept-draw #btn-decline-draw
 *   #popup [data-menu="shoot"|"move"|"advance"|"recall"|"magnify"]   the unit popup menu
 *   #magnify                       magnified card overlay (click or Esc closes)
 *   #status                        what the player must do now
 *   #result                        the result banner once over (with the rating changes of a rated game; .aborted:
 *                                  "Game aborted" and why); #link-record, #link-replay, #analysis-offer: #btn-analyse-game
 *                                  (signed in, no analysis yet) or the analysis' mistakes and blunders and #link-analysis;
 *                                  #btn-rematch (players)
 *   #log .log-entry[data-n]        one per log entry; .last-turn on the last turn's entries;
 *                                  .log-turn headings, one per turn and acting player [data-player]
 *   #panel-top / #panel-bottom     player panels [data-player]: .pp-name, .tag.army (the army, or
 *                                  "Mercenary" / "Custom orcs"), .clock, .score (hover lists eliminated
 *                                  cards), .deck-count (hover lists what you may know of the cards left:
 *                                  the state's deck_cards)
 *   #zoom (range) #btn-fit #btn-flip #btn-contrast   (high contrast: body.hc, persisted)
 *   #btn-panels                    shows / hides the panels' bodies (root .panels-hidden, persisted);
 *                                  carries both players' rings (.rings) so the counters stay in view
 *   #conn                          "reconnecting…" indicator
 *   #toasts .toast(.error|.info|.hint)   messages, over #status (they cover no control): refusals
 *                                  from the server, and why a click did nothing (.hint)
 *   Keyboard: each square holds a button .sq-key (one with tabindex 0: a roving tabindex; the
 *                                  arrow keys move it, Enter clicks), named by what stands and may be
 *                                  done there; each own hand card a button .card-pick (Enter chooses it
 *                                  and focuses its first lit square). #btn-sr: the screen-reader mode
 *                                  (localStorage low.screenReader): #sr-panel (#sr-text: players, hands,
 *                                  the mat as text); #sr-live (aria-live) announces each event as it
 *                                  arrives, and the lit squares of each choice.
 *   Clicks: a click acts (select, choose a destination); one that cannot says why in a .hint;
 *   double-click or right-click magnifies a card (a click too where nothing can be done).
 *   Tests and debugging: this module exports `live` ({S, UI, render, sync, send, toast, announce});
 *                       tests import it (tests/web/hooks.py): there is no global namespace.
 *   Replay (replay.js): #replay-first #replay-prev #replay-next #replay-last #replay-ply (range),
 *                       #replay-list .replay-item[data-ply] (.current); opens at step 0 (or #ply=N)
 */

import { ApiError, getJSON, postJSON } from './api.js';
import { fmtClock, fmtDeadline } from './clock.js';
import { $, $$, $button, $input, h, targetOf } from './dom.js';
import { _, formatDateTime, ngettext, pgettext, reasonText } from './i18n.js';
import {
  DIRS, DIR_NAMES, applyHighContrast, armyTag, armyWords, cardEl, cardName, card, classWord, closeMagnifier, deckCount, describeText,
  entryEl, entrySquares, fillPanelsButton, fitCellSize, isCustomArmy, loadCards, logHeading, magnify, nodes, noneWord, norm,
  parseSq, playerWord, rankWord, renderMat, resultText, scoreEl, scoreOf, setHighContrast, shotAt, shownName, store,
  theUnit, unknownWord, actionText,
} from './render.js';
import { GameSocket } from './socket.js';

/** @import { Game, View, GameState, LogEntry, DeckInfo, Hint, Names, Seat, Colour, Unit, AnalysisDoc } from './model' */
/** @typedef {import('./mat.js').Ghost} Ghost */
/** @typedef {import('./socket.js').Message} Message */
/** @typedef {import('./socket.js').ConnState} ConnState */
/**
 * The selection: a hand card to deploy ({kind: 'deploy', card, index}) or a unit and what it is to
 * do ({kind: 'shoot' | 'move' | 'advance', from}).
 * @typedef {{kind: string, card?: string, index?: number, from?: string}} Selection
 */
/** A legal action, parsed: its text, kind and squares. @typedef {{t: string, type: string, from?: string, to?: string, card?: string}} Act */
/**
 * Where the keyboard focus goes after a render.
 * @typedef {{mat?: string, hand?: string, top?: boolean, firstTarget?: boolean, fallback?: Focus | null}} Focus
 */
/**
 * The server's latest word.
 * @typedef {object} ServerState
 * @property {Game | null} game
 * @property {View | null} view
 * @property {string[]} legal
 * @property {LogEntry[]} log
 * @property {Record<string, DeckInfo | null> | null} deck
 */
/**
 * This page's own state.
 * @typedef {object} PageState
 * @property {Selection | null} sel
 * @property {boolean} pending an answer is awaited
 * @property {ReturnType<typeof setTimeout> | undefined} pendingTimer
 * @property {boolean} flip
 * @property {boolean} panelsHidden
 * @property {number | 'fit'} zoom
 * @property {number} [zoomCell] the cell size drawn last
 * @property {Ghost[]} ghosts
 * @property {Set<string>} fresh
 * @property {{t: number, clocks: Record<number, number | undefined>} | null} clockBase
 * @property {boolean} sr the screen-reader mode (text view, events announced)
 * @property {string | null} cursor the square of the mat that has the keyboard focus (roving tabindex)
 * @property {Focus | null} wantFocus
 * @property {string | null} lastSelKey the selection last announced
 * @property {Hint | null} [hint]
 * @property {boolean} [hinting]
 * @property {boolean} [suppressClick]
 * @property {'resign' | 'abort'} [confirming] what the confirmation dialog asks about
 * @property {AnalysisDoc | null} [analysis] the finished game's analysis (null: none; undefined: not asked yet)
 * @property {boolean} [analysing] Analyse was clicked, its answer awaited
 */

/** @param {unknown} e */
const errorText = (e) => (e instanceof Error ? e.message : String(e));

const gameRoot = document.getElementById('game');
/** The game page's state and its redraw, for the browser tests and debugging (null on other pages). */
export const live = gameRoot && gameRoot.dataset.gameId ? startLive(gameRoot) : null;

/** @param {HTMLElement} root */
function startLive(root) {
  const gameId = Number(root.dataset.gameId);
  /** @type {ServerState} */
  const S = { game: null, view: null, legal: [], log: [], deck: null }; // latest state from the server
  /** @type {PageState} */
  const UI = {
    sel: null,               // {kind:'deploy', card, index} | {kind:'shoot'|'move'|'advance', from}
    pending: false, pendingTimer: undefined,
    flip: false,
    panelsHidden: !!store.get('panelsHidden', false),
    zoom: store.get('zoom', 'fit'),
    ghosts: [], fresh: new Set(),
    clockBase: null,        // {t: performance.now(), clocks: {...}}
    sr: !!store.get('screenReader', false), // the screen-reader mode (text view, events announced)
    cursor: null,           // the square of the mat that has the keyboard focus (roving tabindex)
    wantFocus: null,        // where the focus goes after the next render: {mat: square} | {firstTarget: true}
    lastSelKey: null,       // the selection last announced
  };
  applyHighContrast();

  // ---- derived -------------------------------------------------------------------------------
  // the state once loaded (render() and what it calls run only then)
  const game = () => /** @type {Game} */ (S.game);
  const view = () => /** @type {View} */ (S.view);
  /** @returns {Seat | null} */
  const you = () => (S.game ? S.game.you : null);
  /** @returns {Names} */
  const names = () => {
    const p = (S.game && S.game.players) || {};
    return { 1: shownName(p[1], 1), 2: shownName(p[2], 2) };
  };
  const home = () => you() || 1; // drawn in "my" colour (blue) whichever side of the screen it is on
  const bottom = () => (UI.flip ? 3 - home() : home());
  /** @param {Seat} p @returns {Colour} */
  const colourOf = (p) => (p === home() ? 'me' : 'opp');
  /** @returns {Seat | null} */
  const decider = () => {
    const v = S.view; if (!v || v.result || (S.game && S.game.status === 'over')) return null;
    return (v.turn_state && v.turn_state.decider) || v.to_move;
  };
  const over = () => !!(S.game && (S.game.status === 'over' || S.game.result)) || !!(S.view && S.view.result);

  /**
   * Whether legal action `a` is a destination of the selection `sel`.
   * @param {Act} a
   * @param {Selection | null} sel
   */
  function matchesSel(a, sel) {
    if (!sel) return false;
    if (sel.kind === 'deploy') return a.type === 'deploy' && a.card === sel.card;
    return a.type === sel.kind && a.from != null && a.from === sel.from;
  }

  /** @returns {Act[]} */
  function parsedLegal() {
    return (S.legal || []).map((t) => {
      const p = t.split(' ');
      switch (p[0]) {
        case 'shoot': case 'move': case 'advance': return { t, type: p[0], from: norm(p[1]), to: norm(p[2]) };
        case 'deploy': return { t, type: 'deploy', card: p[1], to: norm(p[2]) };
        case 'recall': return { t, type: 'recall', from: norm(p[1]) };
        default: return { t, type: p[0] };
      }
    });
  }

  // ---- rendering -------------------------------------------------------------------------------
  function cellSize() {
    if (UI.zoom !== 'fit') return Number(UI.zoom) || 90;
    return fitCell();
  }

  function fitCell() {
    const v = S.view;
    const topHand = (v && v.players && v.players[3 - bottom()] && v.players[3 - bottom()].hand) || [];
    const botHand = (v && v.players && v.players[bottom()] && v.players[bottom()].hand) || [];
    // the hands scale with the cell (own hand 0.86, opponent 0.5 or 0.66)
    const handF = (botHand.some((x) => x != null) ? 0.86 : 0.4) + (topHand.some((x) => x != null) ? 0.7 : 0.4) + 0.12;
    return fitCellSize(root, v, handF, 48);
  }

  function render() {
    if (!S.game || !S.view) return;
    root.classList.remove('loading');
    const v = view(), g = game(), b = bottom();
    const logEl = $('#log'); // follows the newest entry unless scrolled back (decided before the layout changes)
    const logStick = !logEl.childElementCount || logEl.scrollHeight - logEl.scrollTop - logEl.clientHeight < 40;
    const refocus = focusBefore();
    const acts = parsedLegal();
    const canAct = !UI.pending && acts.length > 0;
    root.classList.toggle('busy', UI.pending);
    root.classList.toggle('spectator', you() == null);
    root.classList.toggle('my-turn', acts.length > 0);
    root.classList.toggle('over', over());

    // validate selection against legal actions
    if (UI.sel && !acts.some((a) => matchesSel(a, UI.sel))) UI.sel = null;
    autoSelect(acts);

    // sources / targets
    /** @type {Map<string, string[]>} */
    const sources = new Map();
    /** @type {Map<string, string>} */
    const targets = new Map();
    if (canAct) {
      for (const a of acts) {
        if (a.from && ['shoot', 'move', 'advance', 'recall'].includes(a.type)) {
          const k = sources.get(a.from) || [];
          if (!k.includes(a.type)) k.push(a.type);
          sources.set(a.from, k);
        }
      }
      if (UI.sel) {
        for (const a of acts) if (matchesSel(a, UI.sel) && a.to) targets.set(a.to, a.type);
      }
    }
    renderStatus(acts);
    renderControls(acts, canAct);
    const last = lastTurnSquares();
    const cell = UI.zoomCell = cellSize();
    const extra = acts.map((a) => a.to).filter((to) => to != null);
    /** @type {import('./mat.js').MatOpts} */
    const matOpts = {
      view: v, bottom: b, home: home(), cell, targets, sources, last, ghosts: UI.ghosts, fresh: UI.fresh, extraSquares: extra,
      selected: UI.sel && UI.sel.from,
      hinted: UI.hint && UI.hint.version === g.version ? new Set(UI.hint.squares.map(norm)) : null,
    };
    renderMat($('#mat'), matOpts);
    if (UI.zoom === 'fit') {
      const c2 = fitCell(); // unbordered: the size is known only after a first pass
      if (c2 !== cell) renderMat($('#mat'), { ...matOpts, cell: c2 });
      UI.zoomCell = c2;
    }
    root.style.setProperty('--cell', UI.zoomCell + 'px');
    const rootTop = root.getBoundingClientRect().top + window.scrollY;
    root.style.setProperty('--avail-h', Math.max(320, window.innerHeight - rootTop - 18) + 'px');
    const zr = $input('#zoom'); if (zr && document.activeElement !== zr) zr.value = String(UI.zoomCell);
    UI.ghosts = []; UI.fresh = new Set();

    renderHands(acts, canAct);
    renderPanels();
    renderLog(logStick);
    decorateMat(targets, sources);
    announceSelection(targets);
    renderScreenReader(acts);
    focusAfter(refocus);
  }

  // ---- keyboard and screen reader ------------------------------------------------------------------
  // The mat is one tab stop (a roving tabindex): each square holds a transparent button named by
  // what stands there and what may be done there; the arrow keys move from square to square as
  // they lie on the screen, Enter (a click) acts. A hand card is a button too (Enter chooses it
  // and takes the focus to the first lit square). Announcements go to #sr-live (aria-live).
  const DIR_WORDS = DIR_NAMES;
  /** @type {Record<string, string>} */
  const DO_WORDS = { deploy: _('deploy here'), shoot: _('shoot at this'), move: _('move here'), advance: _('advance here') };
  /** @type {Record<string, string>} */
  const VERBS = { deploy: _('deploy'), shoot: _('shoot'), move: _('move'), advance: _('advance'), recall: _('recall') };
  /** @param {string} k */
  const verb = (k) => VERBS[k] || k;

  /** @param {string | null | undefined} id */
  function cardWords(id) {
    const c = card(id);
    if (!c) return _('a hidden card');
    const arrows = c.attacks || {};
    const a = DIRS.filter((d) => arrows[d]).map((d) => `${DIR_WORDS[d]} ${arrows[d]}`);
    const parts = [_('{rank} {class}, defence {defence}', { rank: rankWord(c.rank), class: classWord(c.class), defence: c.defence }),
      a.length ? _('attacks {list}', { list: a.join(', ') }) : _('no attack arrows')];
    if (c.ranged) parts.push(_('ranged {damage}', { damage: c.ranged.damage }));
    if (c.moves && c.moves.length) parts.push(_('moves {list}', { list: c.moves.map((d) => DIR_WORDS[d]).join(', ') }));
    return _('{name} ({details})', { name: c.name, details: parts.join('; ') });
  }
  /** @param {Unit} u */
  function unitWords(u) {
    return u.owner === you() ? _('your {unit}', { unit: cardWords(u.card) }) : _("{player}'s {unit}", { player: names()[u.owner], unit: cardWords(u.card) });
  }

  /**
   * @param {string} name
   * @param {Map<string, string>} targets
   * @param {Map<string, string[]>} sources
   */
  function squareLabel(name, targets, sources) {
    const u = unitAt(name);
    let t = name + ', ' + (u ? unitWords(u) : pgettext('square', 'empty'));
    const lit = targets.get(name);
    if (lit != null) t += ', ' + _('lit: {action}', { action: DO_WORDS[lit] || lit });
    /** @param {string} a @param {string} b */
    const either = (a, b) => _('{a} or {b}', { a, b });
    const kinds = sources.get(name);
    if (kinds) t += ', ' + _('can {actions}', { actions: kinds.map(verb).reduce(either) });
    if (UI.sel && UI.sel.from === name) t += ', ' + _('chosen');
    return t;
  }

  /** The squares in screen order (top row first, left to right). */
  function screenSquares() {
    return $$('.sq', $('#mat')).sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row) || Number(a.dataset.col) - Number(b.dataset.col));
  }

  /**
   * @param {Map<string, string>} targets
   * @param {Map<string, string[]>} sources
   */
  function decorateMat(targets, sources) {
    const sqs = screenSquares();
    /** @param {HTMLElement} e */
    const at = (e) => String(e.dataset.square);
    if (!sqs.some((e) => at(e) === UI.cursor)) {
      const pick = sqs.find((e) => targets.has(at(e))) || sqs.find((e) => UI.sel && at(e) === UI.sel.from)
        || sqs.find((e) => sources.has(at(e))) || sqs.find((e) => at(e) === 'd4') || sqs[0];
      UI.cursor = pick ? at(pick) : null;
    }
    for (const e of sqs) {
      const name = at(e);
      e.prepend(h('button', { type: 'button', class: 'sq-key', tabindex: name === UI.cursor ? '0' : '-1', 'aria-label': squareLabel(name, targets, sources) }));
    }
  }

  /**
   * @param {string | null | undefined} name
   * @param {boolean} scroll
   */
  function focusSquare(name, scroll) {
    const key = name != null && /** @type {HTMLElement | null} */ (document.querySelector(`#mat [data-square="${name}"] > .sq-key`));
    if (!key || name == null) return false;
    for (const k of $$('.sq-key[tabindex="0"]', $('#mat'))) k.tabIndex = -1;
    key.tabIndex = 0;
    UI.cursor = name;
    key.focus({ preventScroll: !scroll });
    return true;
  }

  /**
   * Where the focus is, to put it back on the same square or card after a render.
   * @returns {Focus | null}
   */
  function focusBefore() {
    const want = UI.wantFocus;
    UI.wantFocus = null;
    if (want) return want;
    const ae = document.activeElement;
    if (!ae || ae === document.body) return null;
    const holder = ae.parentElement;
    if (!holder) return null;
    if (ae.classList.contains('sq-key')) return { mat: holder.dataset.square };
    if (ae.classList.contains('card-pick')) return { hand: holder.dataset.index, top: !!ae.closest('#hand-top') };
    return null;
  }
  /** @param {Focus | null} f */
  function focusAfter(f) {
    if (!f) return;
    if (f.firstTarget) {
      const t = screenSquares().find((e) => e.classList.contains('target'));
      if (t) { focusSquare(t.dataset.square, true); return; }
      f = f.fallback || null;
      if (!f) return;
    }
    if (f.mat) { focusSquare(f.mat, false); return; }
    if (f.hand != null) {
      const hand = f.top ? $('#hand-top') : $('#hand-bottom');
      const picks = $$('.card-pick', hand);
      const index = String(f.hand);
      const same = picks.find((b) => b.parentElement && b.parentElement.dataset.index === index) || picks[picks.length - 1];
      if (same) same.focus({ preventScroll: true });
    }
  }

  /** @param {KeyboardEvent} e */
  function onMatKey(e) {
    const key = targetOf(e).closest('.sq-key');
    if (!key) return;
    /** @type {Record<string, [number, number]>} */
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const step = steps[e.key];
    if (!step) return;
    e.preventDefault();
    const sq = key.parentElement;
    if (!sq) return;
    const next = $(`#mat .sq[data-col="${Number(sq.dataset.col) + step[0]}"][data-row="${Number(sq.dataset.row) + step[1]}"]`);
    if (next) focusSquare(next.dataset.square, true);
  }
  /** @param {KeyboardEvent} e */
  function onHandKey(e) {
    const pick = /** @type {HTMLElement | null} */ (targetOf(e).closest('.card-pick'));
    if (!pick || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
    e.preventDefault();
    const picks = $$('.card-pick', pick.closest('.hand'));
    const i = picks.indexOf(pick) + (e.key === 'ArrowRight' ? 1 : -1);
    if (picks[i]) picks[i].focus();
  }
  /** @param {KeyboardEvent} e */
  function onPopupKey(e) {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    const items = $$('[role=menuitem]', $('#popup'));
    const i = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const n = items.length;
    if (n) items[((i < 0 ? 0 : i + (e.key === 'ArrowDown' ? 1 : -1)) + n) % n].focus();
  }

  /**
   * A sentence for screen readers (and the visible Announcements list in the screen-reader mode).
   * @param {string} text
   */
  function announce(text) {
    const box = $('#sr-live');
    if (!box || !text) return;
    box.append(h('p', { text }));
    while (box.firstElementChild && box.childElementCount > 12) box.firstElementChild.remove();
    const wrap = $('#sr-live-box');
    wrap.scrollTop = wrap.scrollHeight; // the newest in view
  }

  /** @param {Map<string, string>} targets */
  function announceSelection(targets) {
    const sel = UI.sel;
    const key = sel && targets.size ? JSON.stringify(sel) : null;
    if (key === UI.lastSelKey) return;
    UI.lastSelKey = key;
    if (!key || !sel) return;
    const squares = [...targets.keys()].sort();
    const selUnit = sel.from != null ? unitAt(sel.from) : null;
    const what = sel.kind === 'deploy' ? _('{card} chosen', { card: cardName(sel.card) })
      : _('{unit} on {square} chosen to {action}', { unit: selUnit ? cardName(selUnit.card) : theUnit, square: sel.from, action: verb(sel.kind) });
    announce(ngettext('{what}: {n} square lit: {squares}', '{what}: {n} squares lit: {squares}', squares.length, { what, squares: squares.join(', ') }));
  }

  /** @param {Act[]} acts */
  function renderScreenReader(acts) {
    const btn = $('#btn-sr');
    if (btn) { btn.setAttribute('aria-pressed', UI.sr ? 'true' : 'false'); btn.classList.toggle('on', UI.sr); }
    root.classList.toggle('sr-mode', UI.sr);
    $('#sr-panel').hidden = !UI.sr;
    $('#sr-live-box').classList.toggle('sr-only', !UI.sr);
    $('#sr-live-box').tabIndex = UI.sr ? 0 : -1; // a scrolling region the keyboard reaches
    if (!UI.sr) return;
    const v = view(), N = names(), me = you(), d = decider();
    const deployable = new Set(acts.filter((a) => a.type === 'deploy').map((a) => a.card));
    const order = me ? [me, 3 - me] : [1, 2];
    /** @type {HTMLElement[]} */
    const out = [h('p', { class: 'sr-status', text: _('Turn {turn}. {status}', { turn: v.turn, status: $('#status').textContent }) })];
    out.push(h('h3', { text: _('Players') }), h('ul', null, order.map((p) => {
      const vp = (v.players || {})[p] || {};
      const deck = Array.isArray(vp.deck) ? vp.deck.length : vp.deck;
      const sc = scoreOf(v, p, false);
      const nHand = (vp.hand || []).length;
      const who = [me === p ? _('{player} (you)', { player: N[p] }) : N[p], playerWord(p)];
      if (vp.army) who.push(armyWords(vp.army));
      if (d === p) who.push(_('to move'));
      return h('li', { text: who.join(', ') + ': '
        + ngettext('{n} card in hand', '{n} cards in hand', nHand) + ', ' + _('{deck} in the deck', { deck: deck == null ? unknownWord : deck }) + '; '
        + _('has eliminated {cmd} of {cneed} command units and {units} of {uneed} units', { cmd: sc.cmd, cneed: sc.cNeed, units: sc.units, uneed: sc.uNeed }) });
    })));
    for (const p of order) {
      const hand = ((v.players || {})[p] || {}).hand || [];
      const known = hand.filter((x) => x != null);
      const title = me === p ? _('Your hand') : _("{player}'s hand", { player: N[p] });
      out.push(h('h3', { text: `${title} (${hand.length})` }));
      if (!hand.length) out.push(h('p', { text: pgettext('hand', 'empty') }));
      else if (!known.length) out.push(h('p', { text: ngettext('{n} hidden card', '{n} hidden cards', hand.length) }));
      else out.push(h('ul', null, hand.map((id) => h('li', { text: id == null ? _('a hidden card') : cardWords(id) + (me === p && deployable.has(id) ? ': ' + _('can be deployed now') : '') }))));
    }
    const units = (v.board || []).map((u) => ({ u, sq: norm(u.square) })).sort((a, b) => {
      const [ax, ay] = parseSq(a.sq), [bx, by] = parseSq(b.sq);
      return by - ay || ax - bx;
    });
    out.push(h('h3', { text: ngettext('Mat ({n} unit)', 'Mat ({n} units)', units.length) }));
    out.push(units.length ? h('ul', null, units.map(({ u, sq }) => h('li', { text: `${sq}: ${unitWords(u)}` }))) : h('p', { text: _('no unit yet') }));
    const shots = Object.entries((v.turn_state && v.turn_state.shots) || {});
    if (shots.length) out.push(h('p', { text: _('Declared shots: {list}', { list: shots.map(([a, b]) => shotAt(norm(a), norm(b))).join(', ') }) }));
    if (UI.sel) {
      const lit = $$('.sq.target', $('#mat')).map((e) => String(e.dataset.square)).sort();
      out.push(h('p', { class: 'sr-lit', text: _('Lit squares: {squares}', { squares: lit.join(', ') || noneWord }) }));
    }
    $('#sr-text').replaceChildren(...out);
  }

  /** @param {Act[]} acts */
  function autoSelect(acts) {
    if (UI.sel || UI.pending) return;
    // a berserker choice (or any decision point with one source and one kind): preselect it
    const kinds = new Set(acts.map((a) => a.type));
    if (kinds.size === 1 && (kinds.has('advance'))) {
      const froms = new Set(acts.map((a) => a.from));
      if (froms.size === 1) UI.sel = { kind: 'advance', from: [...froms][0] };
    }
  }

  function lastTurnSquares() {
    const log = S.log || [];
    const out = new Set();
    if (!log.length) return out;
    const t = log[log.length - 1].turn;
    for (let i = log.length - 1; i >= 0 && log[i].turn === t; i--) entrySquares(log[i], out);
    return out;
  }

  /** @param {Act[]} acts @param {boolean} canAct */
  function renderHands(acts, canAct) {
    const v = view(), b = bottom(), me = you();
    const hb = $('#hand-bottom'), ht = $('#hand-top');
    /** @param {Seat} p */
    const handOf = (p) => ((v.players || {})[p] || {}).hand || [];
    const deployable = new Set(acts.filter((a) => a.type === 'deploy').map((a) => a.card));
    /** @param {Seat} p @param {number} i */
    const hidden = (p, i) => {
      const e = cardEl(null, { colour: colourOf(p), extra: 'opp-card hidden-card' });
      e.dataset.index = String(i);
      e.addEventListener('click', (ev) => { ev.stopPropagation(); say(_("{player}'s hand is hidden: you see only how many cards it holds", { player: names()[p] })); });
      return e;
    };
    /** @param {HTMLElement} e @param {string} id @param {number} i */
    const ownCard = (e, id, i) => {
      e.dataset.index = String(i);
      e.dataset.owner = String(me);
      if (canAct && deployable.has(id)) e.classList.add('deployable');
      if (UI.sel && UI.sel.kind === 'deploy' && UI.sel.index === i) e.classList.add('selected');
      e.addEventListener('click', (ev) => onHandClick(ev, id, i));
      e.addEventListener('pointerdown', (ev) => onHandPointerDown(ev, id, i, e));
      e.addEventListener('dblclick', (ev) => { ev.preventDefault(); magnify(id, { colour: 'me' }); });
      e.addEventListener('contextmenu', (ev) => { ev.preventDefault(); magnify(id, { colour: 'me' }); });
      e.removeAttribute('title');
      const can = canAct && deployable.has(id);
      e.append(h('button', { type: 'button', class: 'card-pick', 'aria-pressed': e.classList.contains('selected') ? 'true' : 'false',
        'aria-label': cardWords(id) + (can ? ', ' + _('can be deployed') : '') }));
      return e;
    };
    // bottom hand
    const bcards = handOf(b).map((id, i) => {
      const own = me != null && b === me;
      if (id == null) return hidden(b, i);
      if (own) return ownCard(cardEl(id, { colour: 'me', extra: 'hand-card' }), id, i);
      const e = cardEl(id, { colour: colourOf(b), extra: 'opp-card face' });
      e.dataset.index = String(i);
      e.addEventListener('click', () => magnify(id, { colour: colourOf(b) }));
      e.removeAttribute('title');
      return e;
    });
    hb.replaceChildren(...bcards);
    hb.dataset.player = String(b);
    hb.setAttribute('aria-label', me === b ? _('Your hand') : _("{player}'s hand", { player: names()[b] }));
    hb.classList.toggle('is-own', me != null && b === me);
    hb.classList.toggle('faces', handOf(b).some((x) => x != null));
    // top hand: backs or faces (visible variant / game over), as they would stand on the mat;
    // after a flip, your own hand is up there (and still yours to play)
    const top = 3 - b;
    const tcards = handOf(top).map((id, i) => {
      if (id == null) return hidden(top, i);
      if (me != null && top === me) return ownCard(cardEl(id, { colour: 'me', rot: true, extra: 'opp-card face own' }), id, i);
      const e = cardEl(id, { colour: colourOf(top), rot: true, extra: 'opp-card face' });
      e.dataset.index = String(i);
      e.addEventListener('click', () => magnify(id, { colour: colourOf(top) }));
      e.removeAttribute('title');
      return e;
    });
    ht.replaceChildren(...tcards);
    ht.dataset.player = String(top);
    ht.setAttribute('aria-label', me === top ? _('Your hand') : _("{player}'s hand", { player: names()[top] }));
    ht.classList.toggle('faces', handOf(top).some((x) => x != null));
    const hint = $('#hand-hint');
    const visible = v.variant && v.variant.hands === 'visible' && !over();
    hint.hidden = !(visible && me != null);
  }

  function renderPanels() {
    const b = bottom();
    fillPanel($('#panel-bottom'), b, 'bottom');
    fillPanel($('#panel-top'), 3 - b, 'top');
    root.classList.toggle('panels-hidden', UI.panelsHidden);
    fillPanelsButton($('#btn-panels'), view(), [3 - b, b], names(), home(), UI.panelsHidden);
    tickClocks();
  }

  /**
   * @param {HTMLElement} el
   * @param {Seat} p
   * @param {'top' | 'bottom'} side
   */
  function fillPanel(el, p, side) {
    const g = game(), v = view(), N = names();
    const pl = (g.players || {})[p] || {};
    const vp = (v.players || {})[p] || {};
    const deck = Array.isArray(vp.deck) ? vp.deck.length : vp.deck;
    const active = decider() === p;
    const me = you();
    el.className = 'player-panel side-' + side + ' col-' + colourOf(p) + (active ? ' active' : '') + (g.result && g.result.winner === p ? ' winner' : '');
    el.dataset.player = String(p);
    const visible = v.variant && v.variant.hands === 'visible';
    const tc = g.time_control || {};
    const info = S.deck ? (S.deck[p] !== undefined ? S.deck[p] : S.deck[String(p)]) : null;
    const deckEl = deckCount(p, info || null, {
      count: deck, colour: colourOf(p), own: me === p, name: shownName(pl, p),
      army: isCustomArmy(vp.army) ? vp.army : null,
    });
    el.replaceChildren(
      h('div', { class: 'pp-head' },
        h('span', { class: 'pp-dot' }),
        h('div', { class: 'pp-id' },
          h('span', { class: 'pp-name', title: pl.name || null, text: shownName(pl, p) }),
          h('span', { class: 'pp-tags' },
            me === p ? h('span', { class: 'tag you', text: _('you') }) : null,
            pl.bot ? h('span', { class: 'tag bot', text: _('bot') }) : null,
            h('span', { class: 'tag pnum', title: playerWord(p), text: _('P{number}', { number: p }) }),
            armyTag(vp.army),
            visible && !over() ? h('span', { class: 'tag vis', title: _("This player's hand is visible to the opponent"), text: '◉ ' + _('hand visible') }) : null)),
        tc.mode === 'live' ? h('span', { class: 'clock', 'data-player': p, text: '' })
          : tc.mode === 'turn' ? h('span', { class: 'clock deadline', 'data-player': p, text: '' }) : null),
      h('div', { class: 'pp-body' },
        scoreEl(v, p, N, { warn: me == null || me !== p, home: home() }),
        h('div', { class: 'pp-counts' },
          deckEl,
          h('span', { class: 'hand-count', title: _('cards in hand') }, nodes(_('{count} hand'), { count: h('b', { text: (vp.hand || []).length }) })),
          // always there (hidden when not to move), so that the panel keeps its height
          h('span', { class: 'to-move' + (active ? '' : ' idle'), 'aria-hidden': active ? null : 'true', text: (active && v.turn_state && v.turn_state.phase === 'advance' && p !== v.to_move) ? _('choosing advance') : _('to move') }))));
  }

  function tickClocks() {
    const g = S.game; if (!g) return;
    for (const el of $$('.clock', root)) {
      const p = Number(el.dataset.player);
      const running = !over() && g.clock_running === p;
      el.classList.toggle('running', running);
      if (el.classList.contains('deadline')) {
        el.textContent = running && g.deadline ? '⏳ ' + fmtDeadline(g.deadline) : '';
        el.title = g.deadline ? _('must act by {time}', { time: formatDateTime(Date.parse(g.deadline)) }) : '';
        continue;
      }
      if (!g.clocks || !UI.clockBase) { el.textContent = ''; continue; }
      let ms = UI.clockBase.clocks[p];
      if (ms == null) { el.textContent = ''; continue; }
      if (running) ms -= performance.now() - UI.clockBase.t;
      el.textContent = fmtClock(ms);
      el.classList.toggle('low', ms < 30000);
    }
  }

  /** @param {Act[]} acts */
  function renderStatus(acts) {
    const st = $('#status'), N = names(), me = you(), g = game(), v = view();
    let text, cls = '';
    const kinds = new Set(acts.map((a) => a.type));
    const d = decider();
    if (over()) {
      text = _('Game over'); cls = 'over';
    } else if (me == null) {
      text = d ? _('{player} to move · turn {turn}', { player: N[d], turn: v.turn }) : _('Spectating');
    } else if (!acts.length) {
      text = d && d !== me ? _('Waiting for {player}…', { player: N[d] }) : _('Waiting…');
      cls = 'waiting';
    } else {
      cls = 'act';
      const ts = /** @type {Partial<import('./model').TurnState>} */ (v.turn_state || {});
      if (kinds.has('advance')) text = _('Choose where your berserker advances');
      else if (kinds.has('deploy')) {
        const shots = kinds.has('shoot'), args = { square: v.to_move };
        if (v.turn <= 2) {
          text = ts.forced
            ? (shots ? _('Forced deployment: deploy a unit (you may first declare shots) on the square marked {square}', args) : _('Forced deployment: deploy a unit on the square marked {square}', args))
            : (shots ? _('Deploy a unit (you may first declare shots) on the square marked {square}', args) : _('Deploy a unit on the square marked {square}', args));
        } else {
          text = ts.forced
            ? (shots ? _('Forced deployment: deploy a unit (you may first declare shots)') : _('Forced deployment: deploy a unit'))
            : (shots ? _('Deploy a unit (you may first declare shots)') : _('Deploy a unit'));
        }
      } else if (kinds.has('shoot') || kinds.has('move')) {
        text = kinds.has('shoot') && kinds.has('move') ? _('Fire shots, move or reinforce')
          : kinds.has('shoot') ? _('Fire shots or reinforce') : _('Move or reinforce');
      } else if (kinds.has('draw') || kinds.has('recall')) {
        text = kinds.has('draw') && kinds.has('recall') ? _('Reinforce: draw a card or recall a unit')
          : kinds.has('draw') ? _('Reinforce: draw a card') : _('Reinforce: recall a unit');
      } else if (kinds.has('pass')) text = _('No reinforcement possible: pass');
      else text = _('Your move');
      if (UI.sel) {
        const what = UI.sel.kind === 'deploy' ? _('{card}: choose a square', { card: cardName(UI.sel.card) }) :
          UI.sel.kind === 'shoot' ? _('choose a target') : UI.sel.kind === 'advance' ? _('choose the square') : _('choose where to move');
        text += ' — ' + what;
      }
    }
    if (UI.pending) cls += ' pending';
    st.textContent = text;
    st.title = text; // the line keeps three lines' height: a longer text is cut there
    st.className = 'status ' + cls;
    document.title = (acts.length && !over() ? '● ' : '') + _('Game {id} · Lords of War', { id: gameId });
    const res = $('#result');
    if (over()) {
      const r = g.result || v.result;
      const won = me && r && r.winner === me, lost = me && r && r.winner && r.winner !== me;
      res.className = 'result-banner' + (g.aborted ? ' aborted' : won ? ' won' : lost ? ' lost' : ' drawn');
      const ratings = g.ratings;
      const rated = ratings ? [1, 2].map((p) => {
        const c = ratings[p];
        const diff = c.after - c.before;
        return `${(N && N[p]) || playerWord(p)} ${c.before} → ${c.after}${c.provisional ? '?' : ''} (${diff >= 0 ? '+' : ''}${diff})`;
      }).join(' · ') : (g.rated ? '' : _('Casual game'));
      // an aborted game has no result: its banner says so and why (the page's own note, when it
      // was loaded aborted, says that no rating changes)
      const said = g.aborted
        ? [h('strong', { text: _('Game aborted') }), h('span', { class: 'result-reason', text: reasonText(r, N) }),
          $('#aborted-note') ? null : h('span', { class: 'rating-change', text: _('No result: no rating changes.') })]
        : [h('strong', { text: resultText(r, N, me) }), h('span', { class: 'rating-change', text: rated })];
      said.push(h('span', { class: 'result-links' },
        h('a', { id: 'link-record', class: 'btn small', href: `/api/games/${gameId}/record`, download: `lordsofwar-game-${gameId}.json`, text: '⬇ ' + _('Download record') }),
        h('a', { id: 'link-replay', class: 'btn small', href: `/games/${gameId}/replay`, text: '▶ ' + _('Replay') })),
      g.aborted ? null : analysisOffer()); // an aborted game has next to nothing to analyse
      res.replaceChildren(...said.filter((x) => x != null));
      res.hidden = false;
      if (UI.analysis === undefined && !g.aborted) loadAnalysis();
    } else res.hidden = true;
  }

  // ---- the game's analysis, offered at game over (docs/bots.md, "Analysis") -------------------------
  /** The banner's part about the analysis: Analyse (signed in, none yet), its progress or its result. */
  function analysisOffer() {
    const a = UI.analysis, N = names();
    const replay = `/games/${gameId}/replay#analysis`;
    if (!a) {
      if (a !== null || !root.dataset.user) return null; // not known yet, or none and signed out
      return h('span', { id: 'analysis-offer', class: 'analysis-offer' },
        h('button', { id: 'btn-analyse-game', class: 'btn small primary', type: 'button', disabled: !!UI.analysing, onclick: analyse,
          title: _('The strongest bot judges every action of the game: its mistakes and blunders, and the win probability') },
        _('Analyse')));
    }
    const link = h('a', { id: 'link-analysis', class: 'btn small', href: replay, text: _('See the analysis') });
    if (a.status === 'done' && a.result) {
      const count = (/** @type {Seat} */ p, /** @type {string} */ verdict) => a.result ? a.result.decisions.filter((d) => d.player === p && d.verdict === verdict).length : 0;
      const lines = [1, 2].map((p) => _('{mistakes} and {blunders} by {name}', {
        name: N[p],
        mistakes: ngettext('{n} mistake', '{n} mistakes', count(p, 'mistake')),
        blunders: ngettext('{n} blunder', '{n} blunders', count(p, 'blunder')),
      }));
      // a player's own marked decisions become exercises (/learn/mistakes/{game})
      const me = you();
      const practise = me && (count(me, 'mistake') || count(me, 'blunder'))
        ? h('a', { id: 'link-mistakes', class: 'btn small', href: `/learn/mistakes/${gameId}`, text: _('Practise your mistakes') }) : null;
      return h('span', { id: 'analysis-offer', class: 'analysis-offer done' },
        h('span', { class: 'analysis-result', text: lines.join(' · ') }), link, practise);
    }
    const state = a.status === 'failed' ? _('The analysis failed: {error}', { error: a.error || '?' })
      : _('Analysing: {done} of {total} actions', { done: a.done, total: a.total });
    return h('span', { id: 'analysis-offer', class: 'analysis-offer' }, h('span', { class: 'analysis-result', text: state }), link);
  }

  /** The stored analysis of the finished game, if any (null: none). */
  async function loadAnalysis() {
    UI.analysis = null;
    try {
      UI.analysis = await getJSON(`/api/games/${gameId}/analysis`);
    } catch (e) {
      if (e instanceof ApiError && e.status !== 404 && e.body && typeof e.body === 'object' && 'status' in e.body) UI.analysis = /** @type {AnalysisDoc} */ (e.body);
    }
    render();
  }

  /** Analyse: asks for the analysis, then the replay shows it (and its progress meanwhile). */
  async function analyse() {
    UI.analysing = true; render();
    try {
      await postJSON(`/api/games/${gameId}/analysis`, {});
      window.location.href = `/games/${gameId}/replay#analysis`;
    } catch (e) {
      UI.analysing = false; render();
      if (e instanceof ApiError) toast(e.detail || _('request failed ({status})', { status: e.status }));
      else toast(_('Network error: {error}', { error: errorText(e) }));
    }
  }

  /** @param {Act[]} acts @param {boolean} canAct */
  function renderControls(acts, canAct) {
    const g = game(), me = you(), N = names();
    const kinds = new Set(acts.map((a) => a.type));
    $('#btn-draw').hidden = !kinds.has('draw');
    $('#btn-pass').hidden = !kinds.has('pass');
    $button('#btn-draw').disabled = $button('#btn-pass').disabled = !canAct;
    const running = !over() && me != null;
    const offer = g.draw_offer;
    $('#btn-resign').hidden = !running;
    $('#btn-abort').hidden = !(running && g.abortable);
    $('#btn-offer-draw').hidden = !(running && !offer);
    $('#btn-accept-draw').hidden = !(running && offer && offer !== me);
    $('#btn-decline-draw').hidden = !(running && offer && offer !== me);
    const dof = $('#draw-offer');
    dof.hidden = !(running && offer);
    dof.textContent = offer === me ? _('You offered a draw') : offer ? _('{player} offers a draw', { player: N[offer] }) : '';
    dof.classList.toggle('incoming', !!offer && offer !== me);
    for (const id of ['#btn-resign', '#btn-abort', '#btn-offer-draw', '#btn-accept-draw', '#btn-decline-draw']) $button(id).disabled = UI.pending;
    // the dialog asks about what can still be done: abort no longer once the first turns are made
    if (!$('#confirm').hidden && ($(UI.confirming === 'abort' ? '#btn-abort' : '#btn-resign').hidden)) closeConfirm();
    const hintBtn = $button('#btn-hint');
    if (hintBtn) {
      const allowed = !!(g.hints && me != null && !over());
      hintBtn.hidden = !allowed;
      hintBtn.disabled = !canAct || !!UI.hinting;
      hintBtn.textContent = UI.hinting ? '… ' + _('Thinking') : '? ' + _('Hint');
    }
    const hintLine = $('#hint-line');
    if (hintLine) {
      const hint = UI.hint;
      const shown = !!hint && hint.version === g.version && !over();
      hintLine.hidden = !shown;
      if (hint && shown) {
        const action = actionText(hint.action);
        hintLine.textContent = hint.win == null ? _('Hint: {action}', { action })
          : _('Hint: {action} (win {percent}%)', { action, percent: Math.round(100 * hint.win) });
        hintLine.dataset.action = hint.action;
      }
    }
    $('#over-links').hidden = !over() || me == null;
    $('#btn-rematch').hidden = !over() || me == null;
    $('#controls').hidden = me == null && !over();
  }

  /** @param {boolean} stick follow the newest entry */
  function renderLog(stick) {
    const el = $('#log');
    const N = names();
    const log = S.log || [];
    const lastTurn = log.length ? log[log.length - 1].turn : null;
    const frag = document.createDocumentFragment();
    const heads = {};
    for (const e of log) {
      const head = logHeading(e, N, heads);
      if (head) frag.append(head);
      frag.append(entryEl(e, N, { home: home(), cls: e.turn === lastTurn ? 'last-turn' : '', colourOf }));
    }
    if (!log.length) frag.append(h('div', { class: 'log-empty', text: _('No actions yet.') }));
    el.replaceChildren(frag);
    if (stick) el.scrollTop = el.scrollHeight;
  }

  // ---- interaction ----------------------------------------------------------------------------
  // Every click that cannot become an action says why (say(): a short message over the status
  // line, gone after a few seconds); magnify is a double-click or a right-click (or a click on
  // anything that has no action at all: an opponent's card, a unit while it is not your turn).

  /** @param {string} text */
  const say = (text) => toast(text, 'hint');
  /** each shown message's timer (it fades out) */
  /** @type {WeakMap<Element, ReturnType<typeof setTimeout>>} */
  const toastTimers = new WeakMap();
  /** A hint is about the position and the click it answered: gone with the next click or change. */
  function clearHints() { for (const t of $$('#toasts .toast.hint', root)) { clearTimeout(toastTimers.get(t)); t.remove(); } }
  /** @param {Unit} u @param {string} sq */
  const unitLabel = (u, sq) => `${cardName(u.card)} (${sq})`;

  /**
   * Why nothing can be done now, or null when the player may act.
   * @returns {string | null}
   */
  function whyNot() {
    if (!S.game) return _('the game is still loading');
    if (over()) return _('the game is over');
    if (you() == null) return _('you are watching this game: only the players act');
    if (UI.pending) return _('waiting for the server to answer…');
    if (!parsedLegal().length) {
      const d = decider(), N = names();
      return d ? _('not your turn: waiting for {player}', { player: N[d] }) : _('not your turn');
    }
    return null;
  }
  /** @param {string} t */
  const cap = (t) => t.replace(/^./, (c) => c.toUpperCase());

  /**
   * What the player can do now, as a hint to follow a refusal.
   * @param {Act[]} acts
   */
  function whatNow(acts) {
    const kinds = new Set(acts.map((a) => a.type));
    if (kinds.has('advance')) return _('choose a lit square for your berserker');
    const out = [];
    if (kinds.has('deploy')) out.push(_('select a card in your hand, then a lit square'));
    if (kinds.has('shoot') || kinds.has('move')) out.push(_('click a unit with a gold ring'));
    if (kinds.has('recall')) out.push(_('click a unit with a gold ring to recall it'));
    if (kinds.has('draw')) out.push(_('press Draw'));
    if (kinds.has('pass')) out.push(_('press Pass'));
    return out.length ? out.reduce((a, b) => _('{a}, or {b}', { a, b })) : _('nothing');
  }

  /**
   * Why the selection cannot go to `square`.
   * @param {Selection} sel
   * @param {string} square
   * @param {Unit | null} unit
   */
  function missText(sel, square, unit) {
    if (sel.kind === 'deploy') return _('{card} ({id}) cannot be deployed on {square}: choose a lit square', { card: cardName(sel.card), id: sel.card, square });
    const from = String(sel.from);
    const su = unitAt(from);
    const who = su ? unitLabel(su, from) : _('the unit on {square}', { square: sel.from });
    if (sel.kind === 'shoot') {
      return unit ? _('{unit} cannot shoot at {card} on {square}: choose a target marked in red', { unit: who, card: cardName(unit.card), square })
        : _('{unit} cannot shoot at {square}: choose a target marked in red', { unit: who, square });
    }
    if (sel.kind === 'advance') return _('the berserker {unit} cannot advance to {square}: choose a lit square', { unit: who, square });
    return _('{unit} cannot move to {square}: choose a lit square', { unit: who, square });
  }

  /**
   * @param {MouseEvent} ev
   * @param {string} id
   * @param {number} index
   */
  function onHandClick(ev, id, index) {
    ev.stopPropagation();
    if (UI.suppressClick) return;
    closePopup();
    clearHints();
    const why = whyNot();
    if (why) { say(cap(why)); return; }
    const acts = parsedLegal();
    const can = acts.some((a) => a.type === 'deploy' && a.card === id);
    if (!can) {
      const deploying = acts.some((a) => a.type === 'deploy');
      say(deploying ? _('{card} ({id}) cannot be deployed now: no square is open to it', { card: cardName(id), id })
        : _('{card} ({id}) cannot be deployed now: this is not the time to deploy — {what}', { card: cardName(id), id, what: whatNow(acts) }));
      return;
    }
    if (UI.sel && UI.sel.kind === 'deploy' && UI.sel.index === index) { magnify(id, { colour: 'me' }); return; }
    UI.sel = { kind: 'deploy', card: id, index };
    if (ev.detail === 0) UI.wantFocus = { firstTarget: true }; // Enter or Space: on to the lit squares
    render();
  }

  // drag a hand card onto the mat (a click still works: select, then click a square)
  /** @type {{id: string, index: number, x: number, y: number, el: HTMLElement, ghost: HTMLElement | null, moved: boolean} | null} */
  let drag = null;
  /**
   * @param {PointerEvent} ev
   * @param {string} id
   * @param {number} index
   * @param {HTMLElement} el
   */
  function onHandPointerDown(ev, id, index, el) {
    if (ev.button !== 0 || UI.pending || !parsedLegal().some((a) => a.type === 'deploy' && a.card === id)) return;
    drag = { id, index, x: ev.clientX, y: ev.clientY, el, ghost: null, moved: false };
    window.addEventListener('pointermove', onDragMove);
    window.addEventListener('pointerup', onDragEnd, { once: true });
  }
  /** @param {PointerEvent} ev */
  function onDragMove(ev) {
    if (!drag) return;
    let ghost = drag.ghost;
    if (!drag.moved || !ghost) {
      if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 6) return;
      drag.moved = true;
      const r = drag.el.getBoundingClientRect();
      ghost = drag.ghost = cardEl(drag.id, { colour: 'me', extra: 'drag-ghost', title: false });
      ghost.style.setProperty('--cs', r.width + 'px');
      document.body.append(ghost);
      UI.sel = { kind: 'deploy', card: drag.id, index: drag.index };
      render();
    }
    ghost.style.left = ev.clientX + 'px';
    ghost.style.top = ev.clientY + 'px';
    for (const t of $$('.sq.drop-hover', root)) t.classList.remove('drop-hover');
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const sq = under && under.closest('#mat .sq.target');
    if (sq) sq.classList.add('drop-hover');
  }
  /** @param {PointerEvent} ev */
  function onDragEnd(ev) {
    window.removeEventListener('pointermove', onDragMove);
    const d = drag; drag = null;
    if (!d || !d.moved) return;
    if (d.ghost) d.ghost.remove();
    UI.suppressClick = true;
    setTimeout(() => { UI.suppressClick = false; }, 0);
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const sq = under && /** @type {HTMLElement | null} */ (under.closest('#mat [data-square]'));
    if (!sq) { say(_('{card} is still selected: drop it on a lit square, or click one', { card: cardName(d.id) })); return; }
    const square = String(sq.dataset.square);
    const a = parsedLegal().find((x) => x.type === 'deploy' && x.card === d.id && x.to === square);
    if (a) sendAction(a.t);
    else say(missText({ kind: 'deploy', card: d.id }, square, null));
  }

  /**
   * The unit on square `name`, or null.
   * @param {string} name
   * @returns {Unit | null}
   */
  function unitAt(name) { return (view().board || []).find((u) => norm(u.square) === name) || null; }

  /** @param {MouseEvent} ev */
  function onMatClick(ev) {
    if (UI.suppressClick) return;
    const sqEl = /** @type {HTMLElement | null} */ (targetOf(ev).closest('[data-square]'));
    if (!sqEl || !S.view) return;
    ev.stopPropagation();
    closePopup();
    clearHints();
    const name = String(sqEl.dataset.square);
    const unit = unitAt(name);
    const why = whyNot();
    if (why) {
      // nothing to act on: a unit is magnified, an empty square says why
      if (unit && !UI.pending) magnify(unit.card, { colour: colourOf(unit.owner) });
      else say(cap(why));
      return;
    }
    const acts = parsedLegal();
    // 1. a destination of the selection
    if (UI.sel) {
      const a = acts.find((x) => matchesSel(x, UI.sel) && x.to === name);
      if (a) { sendAction(a.t); return; }
      if (UI.sel.from === name) { // clicking the selected unit again: magnify
        if (unit) magnify(unit.card, { colour: colourOf(unit.owner) });
        return;
      }
    }
    // 2. a unit with actions of its own
    const own = acts.filter((a) => a.from === name);
    if (own.length) {
      const kinds = [...new Set(own.map((a) => a.type))];
      if (kinds.length === 1 && kinds[0] !== 'recall') {
        UI.sel = { kind: kinds[0], from: name };
        render();
        return;
      }
      openPopup(sqEl, name, kinds, unit);
      return;
    }
    // 3. anything else: say why nothing happens (the selection stays)
    if (UI.sel) { say(cap(missText(UI.sel, name, unit))); return; }
    if (unit) {
      const args = { unit: unitLabel(unit, name), what: whatNow(acts) };
      say(unit.owner === you() ? _('{unit} has no legal action now: {what}', args) : _('{unit} is not yours to command: {what}', args));
    } else say(_('Nothing to do on {square}: {what}', { square: name, what: whatNow(acts) }));
  }

  /** @param {MouseEvent} ev */
  function onMatMagnify(ev) {
    const sqEl = /** @type {HTMLElement | null} */ (targetOf(ev).closest('[data-square]'));
    const unit = sqEl && S.view && unitAt(String(sqEl.dataset.square));
    if (!unit) return;
    ev.preventDefault();
    closePopup();
    magnify(unit.card, { colour: colourOf(unit.owner) });
  }

  /** @type {Record<string, string>} */
  const MENU_LABEL = { shoot: '◎ ' + _('Shoot'), move: '➜ ' + _('Move'), advance: '» ' + _('Advance'), recall: '↩ ' + _('Recall'), magnify: '⌕ ' + _('Magnify') };
  /**
   * The menu of a unit with more than one kind of action.
   * @param {HTMLElement} anchor
   * @param {string} square
   * @param {string[]} kinds
   * @param {Unit | null} unit
   */
  function openPopup(anchor, square, kinds, unit) {
    const pop = $('#popup');
    const items = [...kinds.filter((k) => k !== 'recall'), ...kinds.filter((k) => k === 'recall'), 'magnify'];
    pop.dataset.square = square;
    pop.replaceChildren(...items.map((k) => h('button', {
      type: 'button', role: 'menuitem', class: 'menu-item mi-' + k, 'data-menu': k,
      text: MENU_LABEL[k],
      /** @param {MouseEvent} e */
      onclick: (e) => {
        e.stopPropagation();
        closePopup();
        if (k === 'magnify') { focusSquare(square, false); if (unit) magnify(unit.card, { colour: colourOf(unit.owner) }); return; }
        UI.wantFocus = { mat: square };
        if (k === 'recall') { sendAction('recall ' + square); return; }
        UI.sel = { kind: k, from: square };
        render();
      },
    })));
    pop.hidden = false;
    const r = anchor.getBoundingClientRect();
    const pw = pop.offsetWidth, ph = pop.offsetHeight;
    let left = r.left + window.scrollX + r.width / 2 - pw / 2;
    left = Math.max(window.scrollX + 4, Math.min(left, window.scrollX + window.innerWidth - pw - 4));
    let top = r.top + window.scrollY + r.height * 0.55;
    if (top + ph > window.scrollY + window.innerHeight - 4) top = r.top + window.scrollY - ph + r.height * 0.3;
    pop.style.left = left + 'px';
    pop.style.top = top + 'px';
    const first = pop.querySelector('button'); if (first) first.focus({ preventScroll: true });
  }
  function closePopup() { const p = $('#popup'); if (p) p.hidden = true; }

  /** @param {boolean} on */
  function setPending(on) {
    UI.pending = on;
    clearTimeout(UI.pendingTimer);
    if (on) UI.pendingTimer = setTimeout(() => { UI.pending = false; toast(_('No answer from the server — try again')); sync(); render(); }, 10000);
  }

  /**
   * The confirmation dialog (#confirm) for resigning or aborting: its question and its button.
   * @param {'resign' | 'abort'} what
   */
  function openConfirm(what) {
    UI.confirming = what;
    for (const el of $$('#confirm [data-for]', root)) el.hidden = el.dataset.for !== what;
    $('#confirm .modal-box').setAttribute('aria-labelledby', what === 'abort' ? 'confirm-abort-text' : 'confirm-text');
    $('#confirm').hidden = false;
    $('#btn-resign-cancel').focus();
  }

  /** @param {boolean} [done] confirmed (the focus stays) rather than cancelled (back to the button) */
  function closeConfirm(done) {
    $('#confirm').hidden = true;
    const from = $button(UI.confirming === 'abort' ? '#btn-abort' : '#btn-resign');
    if (!done && !from.hidden) from.focus();
  }

  /** @param {string} text */
  function sendAction(text) {
    if (UI.pending || !S.game) return;
    UI.sel = null;
    setPending(true);
    render();
    const msg = { type: 'action', action: text, version: S.game.version };
    if (!wsSend(msg)) post(`/api/games/${gameId}/actions`, { action: text, version: S.game.version });
  }

  /**
   * A control (resign, draw) over the live channel, else the HTTP API.
   * @param {Message} msg
   * @param {string} path
   * @param {unknown} body
   */
  function sendControl(msg, path, body) {
    if (UI.pending) return;
    setPending(true);
    render();
    if (!wsSend(msg)) post(path, body);
  }

  async function rematch() {
    $button('#btn-rematch').disabled = true;
    try {
      const data = await postJSON(`/api/games/${gameId}/rematch`, {});
      if (data.game) { window.location.href = `/games/${data.game}`; return; }
      toast(_('Rematch offered to {player}: it waits in their lobby.', { player: data.opponent }), 'info');
    } catch (e) {
      if (e instanceof ApiError) toast(e.detail || _('request failed ({status})', { status: e.status }));
      else toast(_('Network error: {error}', { error: errorText(e) }));
      $button('#btn-rematch').disabled = false;
    }
  }

  async function askHint() {
    if (UI.hinting) return;
    UI.hinting = true; render();
    try {
      UI.hint = await postJSON(`/api/games/${gameId}/hint`, {});
    } catch (e) {
      if (e instanceof ApiError) toast(e.detail || _('hint failed ({status})', { status: e.status }));
      else toast(_('Network error: {error}', { error: errorText(e) }));
    } finally {
      UI.hinting = false; render();
    }
  }

  /**
   * @param {string} path
   * @param {unknown} body
   */
  async function post(path, body) {
    try {
      /** @type {GameState | null} */
      const data = await postJSON(path, body);
      if (data && data.game && data.view) applyState(data); else fetchState();
    } catch (e) {
      setPending(false);
      if (e instanceof ApiError) {
        toast(e.detail || _('request failed ({status})', { status: e.status }), 'error', typeof e.body.rule === 'string' ? e.body.rule : undefined);
        if (e.status === 409) fetchState(); else render();
        return;
      }
      toast(_('Network error: {error}', { error: errorText(e) })); render();
    }
  }

  /**
   * A message over the status line (#toasts sits on #status: it covers no control). kind:
   * "error" (a refusal from the server), "info", "hint" (why a click did nothing). The newest
   * replaces the one shown; a click closes it. rule: for an action the rules refuse, the rules
   * guide's section on it (the server's `rule`), shown as a "Why?" link (a new tab: the game stays).
   * @param {string} text
   * @param {'error' | 'info' | 'hint'} [kind]
   * @param {string} [rule]
   */
  function toast(text, kind, rule) {
    const box = $('#toasts');
    kind = kind || 'error';
    for (const old of $$('.toast', box)) { clearTimeout(toastTimers.get(old)); old.remove(); }
    const why = rule && rule.startsWith('/learn/rules#')
      ? h('a', { class: 'toast-rule', href: rule, target: '_blank', rel: 'noopener', text: _('Why? Read the rule') })
      : null;
    const t = h('div', { class: 'toast ' + kind, role: kind === 'error' ? 'alert' : 'status', title: _('click to close'),
      /** @param {MouseEvent} e */
      onclick: (e) => { e.stopPropagation(); t.remove(); } }, h('span', { class: 'toast-text', text }), why ? ' ' : null, why);
    box.append(t);
    toastTimers.set(t, setTimeout(() => { t.classList.add('fade'); setTimeout(() => t.remove(), 400); }, kind === 'error' ? 7000 : kind === 'hint' ? 4500 : 3000));
  }

  // ---- state updates -------------------------------------------------------------------------------
  function noteClock() {
    if (S.game && S.game.clocks) UI.clockBase = { t: performance.now(), clocks: { 1: S.game.clocks[1] ?? S.game.clocks['1'], 2: S.game.clocks[2] ?? S.game.clocks['2'] } };
    else UI.clockBase = null;
  }

  /** @param {GameState} msg */
  function applyState(msg) {
    S.game = msg.game; S.view = msg.view; S.legal = msg.legal || []; S.log = msg.log || [];
    S.deck = msg.deck_cards || null;
    clearHints();
    noteClock();
    setPending(false);
    render();
  }

  /** @param {GameState} msg */
  function applyUpdate(msg) {
    if (!S.game) { sync(); return; }
    const v = msg.game.version, cur = S.game.version;
    if (v <= cur) return; // old news
    const newEntries = msg.log || [];
    const lastN = S.log.length ? S.log[S.log.length - 1].n : 0;
    const contiguous = !newEntries.length || newEntries[0].n == null || newEntries[0].n === Number(lastN) + 1;
    S.game = msg.game; S.view = msg.view; S.legal = msg.legal || [];
    S.deck = msg.deck_cards || null;
    clearHints();
    if (contiguous) S.log = S.log.concat(newEntries);
    if (v > cur + 1 || !contiguous) sync();
    // animations: new units, eliminated units fading out
    for (const e of newEntries) {
      for (const ev of e.events || []) {
        if (ev.type === 'eliminated') UI.ghosts.push({ square: ev.square, card: ev.card, owner: ev.owner });
        else if (ev.type === 'deploy') UI.fresh.add(norm(ev.square));
        else if (ev.type === 'advance' || ev.type === 'move') UI.fresh.add(norm(ev.to));
      }
    }
    noteClock();
    setPending(false);
    render();
    if (UI.sr) for (const e of newEntries) announce(describeText(e, names()));
  }

  async function fetchState() {
    try {
      applyState(await getJSON(`/api/games/${gameId}`));
    } catch (e) {
      if (!S.game) $('#status').textContent = _('Could not load the game: {error}', { error: errorText(e) });
      else toast(_('Could not load the game: {error}', { error: errorText(e) }));
    }
  }

  // ---- the live channel (socket.js) ---------------------------------------------------------------
  const socket = new GameSocket(`/api/games/${gameId}/ws`, { onMessage, onState: setConn });
  /** @param {Message} obj */
  function wsSend(obj) { return socket.send(obj); }
  function sync() { if (!wsSend({ type: 'sync' })) fetchState(); }

  /** @param {ConnState} state */
  function setConn(state) {
    const c = $('#conn');
    c.hidden = state === 'ok';
    c.textContent = state === 'connecting' ? _('connecting…') : _('reconnecting…');
    root.classList.toggle('offline', state !== 'ok');
  }

  /**
   * Tell the chat (chat.js) of a state or update: it reads its history again after a reconnection
   * and when the game ends.
   * @param {Message} msg
   */
  function tellChat(msg) {
    document.dispatchEvent(new CustomEvent('low:game', { detail: { kind: msg.type, status: msg.game ? msg.game.status : null } }));
  }

  /** @param {Message} msg */
  function onMessage(msg) {
    switch (msg.type) {
      case 'state': applyState(/** @type {GameState & Message} */ (msg)); tellChat(msg); break;
      case 'update': applyUpdate(/** @type {GameState & Message} */ (msg)); tellChat(msg); break;
      case 'chat': // for the chat panel (chat.js)
        document.dispatchEvent(new CustomEvent('low:chat', { detail: /** @type {import('./model').ChatSocketMessage} */ (msg).message }));
        break;
      case 'error':
        setPending(false);
        toast(msg.message || _('refused'), 'error', msg.rule || undefined);
        if (S.game && msg.version != null && msg.version !== S.game.version) sync();
        render();
        break;
      case 'pong': break;
      default: break;
    }
  }

  // ---- wiring ----------------------------------------------------------------------------------------
  $('#mat').addEventListener('click', onMatClick);
  $('#mat').addEventListener('keydown', onMatKey);
  $('#mat').addEventListener('focusin', (e) => {
    const t = targetOf(e);
    if (t.classList.contains('sq-key') && t.parentElement) focusSquare(t.parentElement.dataset.square, false);
  });
  $('#hand-bottom').addEventListener('keydown', onHandKey);
  $('#hand-top').addEventListener('keydown', onHandKey);
  $('#popup').addEventListener('keydown', onPopupKey);
  if ($('#btn-sr')) {
    $('#btn-sr').addEventListener('click', () => {
      UI.sr = !UI.sr;
      store.set('screenReader', UI.sr);
      render();
      announce(UI.sr ? _('Screen-reader mode on: the events of the game are read as they come') : _('Screen-reader mode off'));
    });
  }
  $('#mat').addEventListener('dblclick', onMatMagnify);
  $('#mat').addEventListener('contextmenu', onMatMagnify);
  $('#btn-draw').addEventListener('click', () => { if (S.legal.includes('draw')) sendAction('draw'); });
  $('#btn-rematch').addEventListener('click', rematch);
  $('#btn-pass').addEventListener('click', () => { if (S.legal.includes('pass')) sendAction('pass'); });
  $('#btn-resign').addEventListener('click', () => openConfirm('resign'));
  $('#btn-abort').addEventListener('click', () => openConfirm('abort'));
  $('#btn-resign-cancel').addEventListener('click', () => closeConfirm());
  $('#btn-resign-confirm').addEventListener('click', () => {
    closeConfirm(true);
    sendControl({ type: 'resign' }, `/api/games/${gameId}/resign`, {});
  });
  $('#btn-abort-confirm').addEventListener('click', () => {
    closeConfirm(true);
    sendControl({ type: 'abort' }, `/api/games/${gameId}/abort`, {});
  });
  /** @param {'offer' | 'accept' | 'decline'} op */
  const drawOp = (op) => sendControl({ type: 'draw', op }, `/api/games/${gameId}/draw`, { op });
  $('#btn-offer-draw').addEventListener('click', () => drawOp('offer'));
  if ($('#btn-hint')) $('#btn-hint').addEventListener('click', askHint);
  $('#btn-accept-draw').addEventListener('click', () => drawOp('accept'));
  $('#btn-decline-draw').addEventListener('click', () => drawOp('decline'));
  $('#btn-contrast').addEventListener('click', () => { setHighContrast(!document.body.classList.contains('hc')); });
  $('#btn-flip').addEventListener('click', () => { UI.flip = !UI.flip; render(); });
  $('#btn-panels').addEventListener('click', () => { UI.panelsHidden = !UI.panelsHidden; store.set('panelsHidden', UI.panelsHidden); render(); });
  $('#btn-fit').addEventListener('click', () => { UI.zoom = 'fit'; store.set('zoom', 'fit'); render(); });
  $input('#zoom').addEventListener('input', () => { UI.zoom = Number($input('#zoom').value); store.set('zoom', UI.zoom); render(); });
  document.addEventListener('click', (e) => {
    if (UI.suppressClick) return;
    const t = targetOf(e);
    if (!t.closest('#popup')) closePopup();
    if (UI.sel && !t.closest('#mat') && !t.closest('.hand-card, .opp-card.own') && !t.closest('#popup') && !t.closest('#magnify') && !t.closest('#toasts')) { UI.sel = null; render(); }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      if (closeMagnifier()) return;
      if (!$('#popup').hidden) { const sq = $('#popup').dataset.square; closePopup(); focusSquare(sq, true); return; }
      if (!$('#confirm').hidden) { closeConfirm(); return; }
      if (UI.sel) { UI.sel = null; render(); }
    }
  });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let resizeTimer;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { if (UI.zoom === 'fit') render(); }, 80); });
  setInterval(tickClocks, 200);

  // ---- start --------------------------------------------------------------------------------------------
  setConn('connecting');
  loadCards()
    .then(fetchState)
    .catch((e) => { $('#status').textContent = _('Could not load the game: {error}', { error: errorText(e) }); })
    .finally(() => socket.connect());

  // for the browser tests and debugging (tests/web/hooks.py)
  return { S, UI, render, sync, send: wsSend, toast, announce };
}
