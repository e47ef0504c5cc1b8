// The tournament page while it runs (tournament.html): the standings update by themselves, the
// page reloads when the tournament moved on.

const el = document.getElementById('tournament');
if (el) {
  const seen = el.dataset.progress;
  setInterval(async () => {
    try {
      const r = await fetch('/api/tournaments/' + el.dataset.tournament, { headers: { Accept: 'application/json' } });
      if (r.ok && (await r.json()).progress !== seen) location.reload();
    } catch { /* offline for a moment: try again */ }
  }, 5000);
}
