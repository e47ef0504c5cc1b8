/* The board: an interactive position for the learning pages (lessons, puzzles, mistakes).
 *
 * It draws the mat (renderMat of mat.js), both hands as the viewer may see them, and lets the
 * viewer choose ONE action among `legal` (the server's engine's action texts, notation §4), by
 * mouse or keyboard, lighting exactly the legal destinations of the chosen card or unit. No rule
 * is decided here: what may be done comes from `legal`, what it does comes back from the server.
 *
 * A page that mounts a board links /static/game.css (the mat and the cards) and /static/board.css.
 *
 *   const board = mountBoard(el, { view, legal, you: 1, onAction: (a) => send(a) });
 *   board.update({ view: next.view, legal: next.legal });   // the server's answer
 *   board.destroy();
 *
 * After an action is chosen the board waits (class .busy, nothing clickable) until the next
 * update(); update({ legal: [] }) shows a position with nothing to do.
 *
 * Stable hooks for browser tests (inside the root):
 *   .board[data-you]                    the board (class .busy while an answer is awaited)
 *   .board-mat [data-square="d3"]       squares: .target (a legal destination of the selection,
 *                                       exactly those of `legal`), .source (a unit with legal
 *                                       actions), .selected, .hinted; a unit is .unit[data-card][data-owner]
 *   .board-hand-own .hand-card[data-card][data-index]   the viewer's hand (.deployable, .selected)
 *   .board-hand-opp .opp-card           the opponent's hand (.back when hidden)
 *   .board-menu [data-menu="shoot"|"move"|"advance"|"recall"]   a unit's menu (more than one kind)
 *   .board-draw .board-pass             reinforcement buttons (shown only when legal)
 *   .board-note                         why a click did nothing, what is chosen (aria-live)
 * Keyboard: the mat is one tab stop (roving tabindex over .sq-key buttons; the arrow keys move,
 * Enter acts), each hand card holds a .card-pick button (Enter chooses it and goes to its first
 * lit square), Escape drops the choice.
 */

import { $$, h, targetOf } from './dom.js';
import { _, ngettext, pgettext } from './i18n.js';
import { CARDS, card, cardEl, cardName, classWord, loadCards, magnify, norm, rankWord, renderMat } from './render.js';

/** @import { View, Seat, Unit } from './model' */

/**
 * @typedef {object} BoardOpts
 * @property {View} view the viewer's view of the position (the opponent's hidden cards are null)
 * @property {string[]} legal the legal actions of the decision point (notation §4), from the server
 * @property {Seat} you the viewer's seat: drawn at the bottom, in "my" colour
 * @property {(action: string) => void} onAction called with the chosen action's text
 * @property {Set<string>} [hinted] squares to mark (a hint, the expected answer)
 * @property {(action: string) => void} [onMiss] called with the action a click asked for that is not
 *   legal (a chosen card or unit and a square that is not lit, or a recall of a unit that cannot go
 *   back): the page may ask the server why; without it the board says in a line what to do
 * @property {number} [cell] the largest square size in px (84); smaller when the root is narrow
 */
/** @typedef {{update: (opts: Partial<BoardOpts>) => void, destroy: () => void, root: HTMLElement}} Board */
/** A selection: a hand card to deploy, or a unit and what it is to do. @typedef {{kind: string, card?: string, index?: number, from?: string}} Selection */
/** A legal action, parsed. @typedef {{t: string, type: string, from?: string, to?: string, card?: string}} Act */

/**
 * A legal action's parts.
 * @param {string} t
 * @returns {Act}
 */
export function parseAction(t) {
  const p = t.split(' ');
  switch (p[0]) {
    case 'shoot': case 'move': case 'advance': return { t, type: p[0], from: norm(p[1]), to: norm(p[2]) };
    case 'deploy': return { t, type: 'deploy', card: p[1], to: norm(p[2]) };
    case 'recall': return { t, type: 'recall', from: norm(p[1]) };
    default: return { t, type: p[0] };
  }
}

/**
 * The squares an action names (to mark them: a hint, an expected answer).
 * @param {string} t
 * @returns {string[]}
 */
export function actionSquares(t) {
  const a = parseAction(t);
  return /** @type {string[]} */ ([a.from, a.to].filter((s) => s != null));
}

/** @type {Record<string, string>} */
const MENU_LABEL = { shoot: '◎ ' + _('Shoot'), move: '➜ ' + _('Move'), advance: '» ' + _('Advance'), recall: '↩ ' + _('Recall') };
/** @type {Record<string, string>} */
const DO_WORDS = { deploy: _('deploy here'), shoot: _('shoot at this'), move: _('move here'), advance: _('advance here') };

/**
 * Mount an interactive position in `root` (its content is replaced).
 * @param {HTMLElement} root
 * @param {BoardOpts} opts
 * @returns {Board}
 */
export function mountBoard(root, opts) {
  /** @type {BoardOpts} */
  const O = { ...opts };
  /** @type {Selection | null} */
  let sel = null;
  let busy = false;
  /** @type {string | null} */
  let cursor = null;
  let wantFirstTarget = false;
  /** @type {string | null} */
  let focusSq = null;
  let alive = true;

  const oppHand = h('div', { class: 'hand opp-hand board-hand-opp', role: 'group' });
  const mat = h('div', { class: 'mat board-mat', role: 'group', 'aria-label': _('Battle mat: the arrow keys move from square to square, Enter acts') });
  const matWrap = h('div', { class: 'mat-wrap board-mat-wrap' }, mat);
  const ownHand = h('div', { class: 'hand own-hand is-own board-hand-own', role: 'group', 'aria-label': _('Your hand') });
  const drawBtn = h('button', { type: 'button', class: 'btn primary board-draw', text: _('Draw'), hidden: true });
  const passBtn = h('button', { type: 'button', class: 'btn primary board-pass', text: _('Pass'), hidden: true });
  const menu = h('div', { class: 'popup board-menu', role: 'menu', hidden: true });
  const note = h('p', { class: 'board-note', role: 'status', 'aria-live': 'polite' });
  const board = h('div', { class: 'board' },
    h('div', { class: 'hand-row top-hand' }, oppHand),
    matWrap,
    h('div', { class: 'hand-row bottom-hand' }, ownHand, h('div', { class: 'turn-actions board-actions' }, drawBtn, passBtn)),
    menu, note);
  root.replaceChildren(board);

  const acts = () => (O.legal || []).map(parseAction);
  /** @param {Act} a @param {Selection | null} s */
  const matches = (a, s) => !!s && (s.kind === 'deploy' ? a.type === 'deploy' && a.card === s.card : a.type === s.kind && a.from === s.from);
  /** @param {string} name @returns {Unit | null} */
  const unitAt = (name) => (O.view.board || []).find((u) => norm(u.square) === name) || null;
  /** @param {string} text */
  const say = (text) => { note.textContent = text; };
  /** @param {Seat} owner */
  const colourOf = (owner) => (owner === O.you ? 'me' : 'opp');

  /** @param {string | null | undefined} id */
  function cardWords(id) {
    const c = card(id);
    if (!c) return _('a hidden card');
    return _('{name} ({details})', { name: c.name, details: _('{rank} {class}, defence {defence}', { rank: rankWord(c.rank), class: classWord(c.class), defence: c.defence }) });
  }

  function cellSize() {
    const most = O.cell || 84;
    const width = root.clientWidth || window.innerWidth;
    return Math.max(36, Math.min(most, Math.floor((width - 14) / 7)));
  }

  function render() {
    if (!alive) return;
    const all = busy ? [] : acts();
    if (sel && !all.some((a) => matches(a, sel))) sel = null;
    if (!sel) {
      const kinds = new Set(all.map((a) => a.type));
      const froms = new Set(all.map((a) => a.from));
      if (kinds.size === 1 && kinds.has('advance') && froms.size === 1) sel = { kind: 'advance', from: String([...froms][0]) };
    }
    /** @type {Map<string, string[]>} */
    const sources = new Map();
    /** @type {Map<string, string>} */
    const targets = new Map();
    for (const a of all) {
      if (a.from && a.type !== 'deploy') {
        const k = sources.get(a.from) || [];
        if (!k.includes(a.type)) k.push(a.type);
        sources.set(a.from, k);
      }
      if (matches(a, sel) && a.to) targets.set(a.to, a.type);
    }
    board.classList.toggle('busy', busy);
    board.dataset.you = String(O.you);
    const cell = cellSize();
    board.style.setProperty('--cell', cell + 'px');
    renderMat(mat, { view: O.view, bottom: O.you, home: O.you, cell, targets, sources, selected: sel ? sel.from || null : null, hinted: O.hinted || null });
    decorate(targets, sources);
    renderHands(all);
    drawBtn.hidden = !all.some((a) => a.type === 'draw');
    passBtn.hidden = !all.some((a) => a.type === 'pass');
    if (wantFirstTarget) {
      wantFirstTarget = false;
      const first = screenSquares().find((e) => e.classList.contains('target'));
      if (first) focusSquare(String(first.dataset.square));
    } else if (focusSq) focusSquare(focusSq);
    focusSq = null;
  }

  /** The squares in screen order (top row first, left to right). */
  function screenSquares() {
    return $$('.sq', mat).sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row) || Number(a.dataset.col) - Number(b.dataset.col));
  }

  /**
   * The keyboard's buttons, one per square, named by what stands and may be done there.
   * @param {Map<string, string>} targets
   * @param {Map<string, string[]>} sources
   */
  function decorate(targets, sources) {
    const sqs = screenSquares();
    /** @param {HTMLElement} e */
    const at = (e) => String(e.dataset.square);
    if (!sqs.some((e) => at(e) === cursor)) {
      const pick = sqs.find((e) => targets.has(at(e))) || sqs.find((e) => sources.has(at(e))) || sqs.find((e) => at(e) === 'd4') || sqs[0];
      cursor = pick ? at(pick) : null;
    }
    for (const e of sqs) {
      const name = at(e);
      const u = unitAt(name);
      let label = name + ', ' + (u ? (u.owner === O.you ? _('your {unit}', { unit: cardWords(u.card) }) : _("the opponent's {unit}", { unit: cardWords(u.card) })) : pgettext('square', 'empty'));
      const lit = targets.get(name);
      if (lit) label += ', ' + _('lit: {action}', { action: DO_WORDS[lit] || lit });
      const kinds = sources.get(name);
      if (kinds) label += ', ' + _('can {actions}', { actions: kinds.map((k) => (MENU_LABEL[k] || k).replace(/^\S+ /, '')).join(' / ') });
      e.prepend(h('button', { type: 'button', class: 'sq-key', tabindex: name === cursor ? '0' : '-1', 'aria-label': label }));
    }
  }

  /** @param {string} name */
  function focusSquare(name) {
    const key = /** @type {HTMLElement | null} */ (mat.querySelector(`[data-square="${name}"] > .sq-key`));
    if (!key) return;
    for (const k of $$('.sq-key[tabindex="0"]', mat)) k.tabIndex = -1;
    key.tabIndex = 0;
    cursor = name;
    key.focus({ preventScroll: false });
  }

  /** @param {Act[]} all */
  function renderHands(all) {
    const v = O.view, me = O.you, opp = 3 - me;
    /** @param {Seat} p @returns {(string | null)[]} */
    const handOf = (p) => ((v.players || {})[p] || {}).hand || [];
    const deployable = new Set(all.filter((a) => a.type === 'deploy').map((a) => a.card));
    const theirs = handOf(opp).map((id, i) => {
      const e = cardEl(id, { colour: 'opp', rot: id != null, extra: 'opp-card' + (id == null ? ' hidden-card' : ' face') });
      e.dataset.index = String(i);
      e.addEventListener('click', () => { if (id != null) magnify(id, { colour: 'opp' }); else say(_("The opponent's hand is hidden: you see only how many cards it holds")); });
      return e;
    });
    oppHand.replaceChildren(...theirs);
    oppHand.classList.toggle('faces', handOf(opp).some((x) => x != null));
    oppHand.setAttribute('aria-label', ngettext("The opponent's hand: {n} card", "The opponent's hand: {n} cards", theirs.length));
    const mine = handOf(me).map((id, i) => {
      if (id == null) return cardEl(null, { colour: 'me', extra: 'hand-card hidden-card' });
      const e = cardEl(id, { colour: 'me', extra: 'hand-card' });
      e.dataset.index = String(i);
      e.removeAttribute('title');
      const can = deployable.has(id);
      if (can) e.classList.add('deployable');
      const chosen = !!sel && sel.kind === 'deploy' && sel.index === i;
      if (chosen) e.classList.add('selected');
      e.addEventListener('click', (ev) => onHandClick(ev, id, i));
      e.addEventListener('dblclick', (ev) => { ev.preventDefault(); magnify(id, { colour: 'me' }); });
      e.append(h('button', { type: 'button', class: 'card-pick', 'aria-pressed': chosen ? 'true' : 'false', 'aria-label': cardWords(id) + (can ? ', ' + _('can be deployed') : '') }));
      return e;
    });
    ownHand.replaceChildren(...mine);
  }

  /** @param {string} text */
  function act(text) {
    sel = null;
    busy = true;
    closeMenu();
    say('');
    render();
    O.onAction(text);
  }

  /**
   * @param {MouseEvent} ev
   * @param {string} id
   * @param {number} index
   */
  function onHandClick(ev, id, index) {
    ev.stopPropagation();
    closeMenu();
    if (busy) return;
    const all = acts();
    if (!all.some((a) => a.type === 'deploy' && a.card === id)) {
      say(all.some((a) => a.type === 'deploy') ? _('{card} cannot be deployed now: no square is open to it', { card: cardName(id) })
        : _('{card} cannot be deployed now: this is not the moment to deploy', { card: cardName(id) }));
      return;
    }
    if (sel && sel.kind === 'deploy' && sel.index === index) { magnify(id, { colour: 'me' }); return; }
    sel = { kind: 'deploy', card: id, index };
    if (ev.detail === 0) wantFirstTarget = true; // Enter or Space: on to the lit squares
    render();
    const n = mat.querySelectorAll('.sq.target').length;
    say(ngettext('{card} chosen: {n} square lit', '{card} chosen: {n} squares lit', n, { card: cardName(id) }));
  }

  /** @param {MouseEvent} ev */
  function onMatClick(ev) {
    const sqEl = /** @type {HTMLElement | null} */ (targetOf(ev).closest('[data-square]'));
    if (!sqEl) return;
    ev.stopPropagation();
    closeMenu();
    const name = String(sqEl.dataset.square);
    const unit = unitAt(name);
    if (busy) return;
    const all = acts();
    if (sel) {
      const a = all.find((x) => matches(x, sel) && x.to === name);
      if (a) { act(a.t); return; }
      if (sel.from === name) { if (unit) magnify(unit.card, { colour: colourOf(unit.owner) }); return; }
    }
    const own = all.filter((a) => a.from === name && a.type !== 'deploy');
    if (own.length) {
      const kinds = [...new Set(own.map((a) => a.type))];
      if (kinds.length === 1 && kinds[0] !== 'recall') {
        sel = { kind: kinds[0], from: name };
        focusSq = ev.detail === 0 ? name : null;
        if (ev.detail === 0) wantFirstTarget = true;
        render();
        const n = mat.querySelectorAll('.sq.target').length;
        say(ngettext('{unit} on {square} chosen: {n} square lit', '{unit} on {square} chosen: {n} squares lit', n, { unit: unit ? cardName(unit.card) : name, square: name }));
        return;
      }
      openMenu(sqEl, name, kinds);
      return;
    }
    if (sel) {
      const verb = sel.kind === 'deploy' ? 'deploy ' + sel.card : sel.kind + ' ' + sel.from;
      if (O.onMiss) O.onMiss(verb + ' ' + name);
      else say(_('Nothing to do on {square} with this choice: choose a lit square', { square: name }));
      return;
    }
    if (!all.length) { if (unit) magnify(unit.card, { colour: colourOf(unit.owner) }); return; }
    if (unit && unit.owner === O.you && O.onMiss && all.some((a) => a.type === 'draw' || a.type === 'recall' || a.type === 'pass')) {
      O.onMiss('recall ' + name); // the reinforcement step: why this unit cannot go back to the hand
      return;
    }
    if (unit && unit.owner !== O.you) say(_("{unit} on {square} is the opponent's", { unit: cardName(unit.card), square: name }));
    else if (unit) say(_('{unit} on {square} has nothing to do now', { unit: cardName(unit.card), square: name }));
    else say(_('Nothing to do on {square}: choose a card of your hand or a unit with a gold ring', { square: name }));
  }

  /**
   * The menu of a unit with more than one kind of action (or a recall).
   * @param {HTMLElement} anchor
   * @param {string} square
   * @param {string[]} kinds
   */
  function openMenu(anchor, square, kinds) {
    const items = [...kinds.filter((k) => k !== 'recall'), ...kinds.filter((k) => k === 'recall')];
    menu.replaceChildren(...items.map((k) => h('button', {
      type: 'button', role: 'menuitem', class: 'menu-item mi-' + k, 'data-menu': k, text: MENU_LABEL[k] || k,
      /** @param {MouseEvent} e */
      onclick: (e) => {
        e.stopPropagation();
        closeMenu();
        if (k === 'recall') { act('recall ' + square); return; }
        sel = { kind: k, from: square };
        focusSq = square;
        if (e.detail === 0) wantFirstTarget = true;
        render();
      },
    })));
    menu.hidden = false;
    const r = anchor.getBoundingClientRect(), b = board.getBoundingClientRect();
    menu.style.left = Math.max(0, Math.min(r.left - b.left + r.width / 2 - menu.offsetWidth / 2, b.width - menu.offsetWidth)) + 'px';
    menu.style.top = (r.top - b.top + r.height * 0.6) + 'px';
    const first = /** @type {HTMLElement | null} */ (menu.querySelector('button'));
    if (first) first.focus({ preventScroll: true });
  }
  function closeMenu() { menu.hidden = true; }

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (e.key === 'Escape') {
      if (!menu.hidden) { closeMenu(); if (cursor) focusSquare(cursor); return; }
      if (sel) { sel = null; focusSq = cursor; render(); say(_('Choice dropped')); }
      return;
    }
    const t = targetOf(e);
    if (t.closest('.board-menu') && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      const items = $$('[role=menuitem]', menu);
      const i = items.indexOf(t);
      const n = items.length;
      if (n) items[((i < 0 ? 0 : i + (e.key === 'ArrowDown' ? 1 : -1)) + n) % n].focus();
      return;
    }
    if (t.classList.contains('card-pick') && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      e.preventDefault();
      const picks = $$('.card-pick', ownHand);
      const i = picks.indexOf(t) + (e.key === 'ArrowRight' ? 1 : -1);
      if (picks[i]) picks[i].focus();
      return;
    }
    if (!t.classList.contains('sq-key')) return;
    /** @type {Record<string, [number, number]>} */
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const step = steps[e.key];
    const sq = t.parentElement;
    if (!step || !sq) return;
    e.preventDefault();
    const next = /** @type {HTMLElement | null} */ (mat.querySelector(`.sq[data-col="${Number(sq.dataset.col) + step[0]}"][data-row="${Number(sq.dataset.row) + step[1]}"]`));
    if (next) focusSquare(String(next.dataset.square));
  }

  mat.addEventListener('click', onMatClick);
  board.addEventListener('keydown', onKey);
  drawBtn.addEventListener('click', () => { if (!busy && (O.legal || []).includes('draw')) act('draw'); });
  passBtn.addEventListener('click', () => { if (!busy && (O.legal || []).includes('pass')) act('pass'); });
  let lastWidth = root.clientWidth;
  const resized = new ResizeObserver(() => {
    if (root.clientWidth === lastWidth) return;
    lastWidth = root.clientWidth;
    render();
  });
  resized.observe(root);

  render();
  if (!Object.keys(CARDS).length) loadCards().then(render, (e) => say(String(e instanceof Error ? e.message : e)));

  return {
    root: board,
    update(next) {
      Object.assign(O, next);
      busy = false;
      render();
    },
    destroy() {
      alive = false;
      resized.disconnect();
      root.replaceChildren();
    },
  };
}
