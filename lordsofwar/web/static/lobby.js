/* The lobby keeps itself current: it asks /api/lobby every few seconds and, when challenges or
 * games changed, reloads the lists (unless the player is filling in the new-game form, in which
 * case a notice offers the reload). */
(function () {
  'use strict';
  const notice = document.getElementById('lobby-changed');
  const form = document.getElementById('new-game-form');
  let touched = false;
  if (form) form.addEventListener('input', () => { touched = true; });
  const key = (d) => JSON.stringify([d.open, d.incoming, d.outgoing, d.your_turn, d.running].map(
    (list) => (list || []).map((x) => [x.id, x.status, x.your_turn, x.turns]),
  ));
  let first = null;
  async function poll() {
    try {
      const r = await fetch('/api/lobby', { credentials: 'same-origin', cache: 'no-store' });
      if (r.ok) {
        const k = key(await r.json());
        if (first === null) first = k;
        else if (k !== first) {
          if (!touched) { window.location.reload(); return; }
          if (notice) notice.hidden = false;
        }
      }
    } catch (e) { /* offline for a moment: try again later */ }
    setTimeout(poll, document.hidden ? 15000 : 4000);
  }
  poll();
})();
