/* Friends, presence and blocking in the page (docs/community.md):
 *
 * - the profile's #social: Follow/Unfollow and Block/Unblock buttons (POST or DELETE
 *   /api/players/{name}/follow and /block); the result is said in #social-status (aria-live);
 * - the friends page's #friends: follow a player by name, unfollow, unblock, and the presence
 *   of each friend and the site's online count refreshed from GET /api/friends every data-poll
 *   seconds while the tab is visible (the challenge buttons are plain forms to the lobby);
 * - the lobby's #online-count: how many players are online, from GET /api/online.
 *
 * Loaded as a module by the profile (of another player, signed in), friends and lobby pages.
 */

import { ApiError, deleteJSON, getJSON, postJSON } from './api.js';
import { $, $$, $button, $input } from './dom.js';
import { _, ngettext } from './i18n.js';

/** @typedef {import('./api-types').components['schemas']['Relation']} Relation */
/** @typedef {import('./api-types').components['schemas']['Friends']} Friends */
/** @typedef {import('./api-types').components['schemas']['Online']} Online */

/** @param {unknown} e */
function refusal(e) {
  if (e instanceof ApiError && e.detail) return e.detail.charAt(0).toUpperCase() + e.detail.slice(1);
  return _('The server could not be reached; nothing changed.');
}

/** @param {string} name */
function playerPath(name) {
  return '/api/players/' + encodeURIComponent(name);
}

/** @param {number} n */
function onlineText(n) {
  return ngettext('{n} player online now', '{n} players online now', n);
}

/** @param {HTMLElement} box the profile's #social */
function profile(box) {
  const name = box.dataset.player || '';
  const status = $('#social-status', box);
  const follow = $button('#follow-button', box);
  const block = $button('#block-button', box);

  /** @param {Relation} rel */
  function show(rel) {
    box.dataset.following = String(rel.following);
    box.dataset.blocking = String(rel.blocking);
    follow.textContent = rel.following ? _('Unfollow') : _('Follow');
    block.textContent = rel.blocking ? _('Unblock') : _('Block');
    const dot = document.getElementById('presence');
    if (dot) {
      dot.hidden = rel.online === null || rel.online === undefined;
      dot.className = 'presence ' + (rel.online ? 'on' : 'off');
      dot.textContent = rel.online ? _('online') : _('offline');
    }
  }

  follow.addEventListener('click', async () => {
    const on = box.dataset.following === 'true';
    follow.disabled = true;
    try {
      /** @type {Relation} */
      const rel = on ? await deleteJSON(playerPath(name) + '/follow') : await postJSON(playerPath(name) + '/follow');
      show(rel);
      status.textContent = rel.following
        ? _('You follow {name}: they are on your friends page.', { name })
        : _('You no longer follow {name}.', { name });
    } catch (e) {
      status.textContent = refusal(e);
    } finally {
      follow.disabled = false;
    }
  });

  block.addEventListener('click', async () => {
    const on = box.dataset.blocking === 'true';
    block.disabled = true;
    try {
      /** @type {Relation} */
      const rel = on ? await deleteJSON(playerPath(name) + '/block') : await postJSON(playerPath(name) + '/block');
      show(rel);
      status.textContent = rel.blocking
        ? _('You block {name}: neither of you can challenge or chat with the other, and they do not see whether you are online. They are not told.', { name })
        : _('You no longer block {name}.', { name });
    } catch (e) {
      status.textContent = refusal(e);
    } finally {
      block.disabled = false;
    }
  });
}

/** @param {HTMLElement} box the friends page's #friends */
function friendsPage(box) {
  const status = $('#friends-status');
  const list = $('#friend-list');
  const blockList = $('#block-list');
  const template = /** @type {HTMLTemplateElement} */ ($('#friend-row'));

  /** @param {Friends} data */
  function show(data) {
    $('#online-total').textContent = onlineText(data.online);
    const known = new Map($$('li[data-friend]', list).map((li) => [li.dataset.friend || '', li]));
    const rows = data.friends.map((f) => {
      let li = known.get(f.name);
      if (!li) {
        const copy = /** @type {DocumentFragment} */ (template.content.cloneNode(true));
        li = /** @type {HTMLElement} */ (copy.querySelector('li'));
        li.dataset.friend = f.name;
        const link = /** @type {HTMLAnchorElement} */ (li.querySelector('a'));
        link.href = '/players/' + encodeURIComponent(f.name);
        link.textContent = f.name;
        $input('input[name="opponent"]', li).value = f.name;
        $button('form button', li).setAttribute('aria-label', _('Challenge {name}', { name: f.name }));
        const unfollow = $button('button.unfollow', li);
        unfollow.dataset.name = f.name;
        unfollow.setAttribute('aria-label', _('Unfollow {name}', { name: f.name }));
      }
      const dot = $('[data-presence]', li);
      dot.className = 'presence ' + (f.online ? 'on' : 'off');
      dot.textContent = f.online ? _('online') : _('offline');
      return li;
    });
    list.replaceChildren(...rows);
    $('#no-friends').hidden = rows.length > 0;
    const blocked = new Set(data.blocks);
    for (const li of $$('li[data-blocked]', blockList)) if (!blocked.has(li.dataset.blocked || '')) li.remove();
    $('#no-blocks').hidden = data.blocks.length > 0;
  }

  async function refresh() {
    try {
      show(await getJSON('/api/friends'));
    } catch (e) {
      /* the next poll tries again */
    }
  }

  $('#follow-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const input = $input('#follow-name');
    const name = input.value.trim();
    if (!name) return;
    try {
      /** @type {Relation} */
      const rel = await postJSON(playerPath(name) + '/follow');
      input.value = '';
      status.textContent = _('You follow {name}: they are on your friends page.', { name: rel.name });
      await refresh();
    } catch (e) {
      status.textContent = refusal(e);
    }
  });

  box.addEventListener('click', async (ev) => {
    const target = ev.target instanceof Element ? ev.target.closest('button.unfollow') : null;
    if (!(target instanceof HTMLButtonElement)) return;
    const name = target.dataset.name || '';
    try {
      await deleteJSON(playerPath(name) + '/follow');
      status.textContent = _('You no longer follow {name}.', { name });
      await refresh();
      $input('#follow-name').focus();
    } catch (e) {
      status.textContent = refusal(e);
    }
  });

  blockList.addEventListener('click', async (ev) => {
    const target = ev.target instanceof Element ? ev.target.closest('button.unblock') : null;
    if (!(target instanceof HTMLButtonElement)) return;
    const name = target.dataset.name || '';
    try {
      await deleteJSON(playerPath(name) + '/block');
      $('#blocks-status').textContent = _('You no longer block {name}.', { name });
      await refresh();
      $('#blocks h2').focus();
    } catch (e) {
      $('#blocks-status').textContent = refusal(e);
    }
  });

  const every = 1000 * Math.max(1, Number(box.dataset.poll) || 20);
  setInterval(() => { if (!document.hidden) refresh(); }, every);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) refresh(); });
}

/** @param {HTMLElement} line the lobby's #online-count */
async function onlineCount(line) {
  try {
    /** @type {Online} */
    const data = await getJSON('/api/online');
    line.textContent = onlineText(data.count);
    line.hidden = false;
  } catch (e) {
    line.hidden = true;
  }
}

const socialBox = document.getElementById('social');
if (socialBox) profile(socialBox);
const friendsBox = document.getElementById('friends');
if (friendsBox) friendsPage(friendsBox);
const countLine = document.getElementById('online-count');
if (countLine) {
  onlineCount(countLine);
  setInterval(() => { if (!document.hidden) onlineCount(countLine); }, 30000);
}
