/* Presence (docs/community.md): while a signed-in player has a page of the site open, one
 * WebSocket to /api/presence/ws is open; the server counts them as online while it is, and for a
 * short fade after it closed, so that going from page to page never blinks them out. Nothing
 * travels on it. Refused at connect (4401 signed out, 4403 another site): no retry; otherwise it
 * reconnects, waiting longer after each failure (up to a minute).
 *
 * Loaded as a module by every page of a signed-in player (base.html).
 */

const path = '/api/presence/ws';
let wait = 1000;

function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  try {
    ws = new WebSocket(proto + '//' + location.host + path);
  } catch (e) {
    return;
  }
  ws.addEventListener('open', () => { wait = 1000; });
  ws.addEventListener('close', (e) => {
    if (e.code === 4401 || e.code === 4403) return;
    setTimeout(connect, wait);
    wait = Math.min(60000, wait * 2);
  });
}

if ('WebSocket' in window) connect();
