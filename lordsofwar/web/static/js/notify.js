/* The turn counter of every page, for a signed-in player (docs/web.md, "Notifications in the
 * page"): the nav's #turn-counter says how many running games wait for the player ("2 games
 * waiting", a link to the lobby's Your turn list, or straight to the game when there is one) and
 * the tab's title starts with "(2) ". It asks GET /api/your-turn every data-poll seconds while
 * the tab is visible, three times slower while it is hidden, at once when it comes back, and
 * backs off (up to five minutes) while the server does not answer. On a game's own page that
 * game is left out: the page shows its turn itself.
 *
 * #turn-notify is the opt-in to the browser's notifications: the permission is asked on its
 * click only, the choice is kept in localStorage (low.notify). While the tab is hidden, a game
 * that starts waiting for the player (it was not waiting at the previous answer) makes one
 * notification, "Your turn against bob"; a click on it brings the tab forward and opens the
 * game. A spell of waiting is notified once, whichever tab saw it first (low.turns.told).
 *
 * localStorage low.turns.poll (seconds, at least 1) overrides the interval: tests use it.
 *
 * Loaded as a module by every page of a signed-in player (base.html).
 */

import { _, ngettext } from './i18n.js';

/** @typedef {import('./api-types').components['schemas']['Waiting']} Waiting */
/** @typedef {import('./api-types').components['schemas']['WaitingGame']} WaitingGame */

const turnCounter = /** @type {HTMLAnchorElement | null} */ (document.getElementById('turn-counter'));
if (turnCounter && 'fetch' in window) start(turnCounter);

/** @param {HTMLAnchorElement} counter */
function start(counter) {
  const bell = /** @type {HTMLButtonElement | null} */ (document.getElementById('turn-notify'));
  const store = {
    /** @param {string} k */
    get(k) { try { return localStorage.getItem('low.' + k); } catch (e) { return null; } },
    /** @param {string} k @param {string} v */
    set(k, v) { try { localStorage.setItem('low.' + k, v); } catch (e) { /* private mode */ } },
  };
  const here = /^\/games\/(\d+)\/?$/.exec(location.pathname);
  const viewing = here ? Number(here[1]) : 0;
  const every = 1000 * Math.max(1, Number(store.get('turns.poll')) || Number(counter.dataset.poll) || 20);
  const everyHidden = 3 * every;
  const MAX_BACKOFF = 300000;

  // --- the tab's title: "(2) " before whatever the page makes it ---------------------------------
  let prefix = '';
  const bare = (/** @type {string} */ t) => t.replace(/^\(\d+\) /, '');
  function title() {
    const wanted = prefix + bare(document.title);
    if (document.title !== wanted) document.title = wanted;
  }
  const titleEl = document.querySelector('head > title');
  if (titleEl && window.MutationObserver) {
    // pages change their own titles (game.js, lobby.js, decks.js): keep the count in front
    new MutationObserver(title).observe(titleEl, { childList: true, characterData: true, subtree: true });
  }

  // --- the counter --------------------------------------------------------------------------------
  /** @param {Waiting} data */
  function show(data) {
    const n = data.count;
    const games = data.games || [];
    counter.dataset.count = String(n);
    counter.hidden = n === 0;
    counter.replaceChildren();
    const pill = document.createElement('span');
    pill.className = 'turn-count';
    pill.textContent = String(n);
    // the whole sentence is translated; the count's pill takes the place of {n}
    const sentence = ngettext('{n} game waiting', '{n} games waiting', n, { n: '\u0000' });
    const at = sentence.indexOf('\u0000');
    if (at < 0) counter.append(pill, ' ', sentence);
    else {
      const before = sentence.slice(0, at), after = sentence.slice(at + 1);
      if (before) counter.append(before);
      counter.append(pill);
      if (after) counter.append(after);
    }
    if (n === 1 && games.length === 1) {
      counter.href = '/games/' + games[0].id;
      counter.title = _('Your turn against {name}', { name: games[0].opponent });
    } else {
      counter.href = '/#your-turn';
      const names = games.slice(0, 5).map((g) => g.opponent);
      counter.title = names.length ? _('Your turn against {name}', { name: names.join(', ') + (n > names.length ? '…' : '') }) : '';
    }
    prefix = n ? '(' + n + ') ' : '';
    title();
  }

  // --- notifications ------------------------------------------------------------------------------
  const canNotify = 'Notification' in window;
  const optedIn = () => store.get('notify') === 'on';
  function paint() {
    if (!bell) return;
    if (!canNotify) { bell.hidden = true; return; }
    const permission = Notification.permission;
    const on = optedIn() && permission === 'granted';
    bell.hidden = false;
    bell.disabled = permission === 'denied';
    bell.setAttribute('aria-pressed', on ? 'true' : 'false');
    bell.textContent = permission === 'denied' ? _('Notifications blocked') : on ? _('✓ Notifying') : _('Notify me');
    bell.title = permission === 'denied'
      ? _("Notifications are blocked for this site in the browser's settings")
      : on ? _('A notification when a game starts waiting for you while this tab is hidden (click to stop)')
        : _('Get a notification when a game starts waiting for you while this tab is hidden');
  }
  if (bell) {
    bell.addEventListener('click', async () => {
      if (!canNotify) return;
      if (optedIn() && Notification.permission === 'granted') { store.set('notify', 'off'); paint(); return; }
      let permission = Notification.permission;
      if (permission === 'default') {
        try { permission = await Notification.requestPermission(); } catch (e) { permission = 'default'; }
      }
      store.set('notify', permission === 'granted' ? 'on' : 'off');
      paint();
    });
    window.addEventListener('storage', (e) => { if (e.key === 'low.notify') paint(); });
    paint();
  }

  /** @type {Set<number> | null} */
  let known = null; // the games waiting at the previous answer (null: none yet)
  /** @param {WaitingGame[]} games */
  function tell(games) {
    const before = known;
    known = new Set(games.map((g) => g.id));
    if (before === null) return; // what waited already when the page opened is no news
    if (!canNotify || !optedIn() || Notification.permission !== 'granted' || !document.hidden) return;
    /** @type {string[]} */
    let told;
    try { told = JSON.parse(store.get('turns.told') || '[]'); } catch (e) { told = []; }
    if (!Array.isArray(told)) told = [];
    for (const g of games) {
      const spell = g.id + '@' + g.since;
      if (before.has(g.id) || told.includes(spell)) continue;
      told.push(spell);
      try {
        const note = new Notification(_('Your turn against {name}', { name: g.opponent }), {
          body: _('Game {id} · Lords of War', { id: g.id }), tag: 'low-turn-' + g.id,
        });
        note.onclick = () => { window.focus(); note.close(); location.assign('/games/' + g.id); };
      } catch (e) { /* a browser that only notifies from a service worker: the counter is enough */ }
    }
    store.set('turns.told', JSON.stringify(told.slice(-200)));
  }

  // --- asking ---------------------------------------------------------------------------------------
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let failures = 0;
  let asking = false;
  let last = 0;
  async function poll() {
    clearTimeout(timer);
    if (asking) return;
    asking = true;
    let wait = document.hidden ? everyHidden : every;
    try {
      const r = await fetch('/api/your-turn' + (viewing ? '?exclude=' + viewing : ''), {
        credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' },
      });
      if (r.status === 401) { show({ count: 0, games: [] }); return; } // signed out meanwhile: stop
      if (!r.ok) {
        const after = Number(r.headers.get('Retry-After'));
        throw new Error(after > 0 ? String(after * 1000) : 'status ' + r.status);
      }
      const data = /** @type {Waiting} */ (await r.json());
      failures = 0;
      show(data);
      tell(data.games || []);
    } catch (e) {
      failures += 1;
      const asked = Number(e instanceof Error && e.message);
      wait = Math.min(MAX_BACKOFF, Math.max(asked > 0 ? asked : 0, every * 2 ** failures));
    } finally {
      asking = false;
      last = Date.now();
    }
    timer = setTimeout(poll, wait);
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && failures === 0 && Date.now() - last > 1000) poll();
  });
  poll();
}
