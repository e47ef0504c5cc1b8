/* The players' clocks in words: a live game's time left and a turn-based game's deadline.
   The clock rules (which clock runs, the openings using no clock time, increments, deadlines)
   are the server's alone, in lordsofwar/web/games/clock.py: the game page counts down only the
   clock the server's `clock_running` names, from the server's `clocks`, and decides nothing. */

import { _ } from './i18n.js';

/**
 * Time left as the clock shows it: "4:05", "1:02:03"; under ten seconds with tenths ("9.4").
 * @param {number} ms
 */
export function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return (ms / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  return (hh ? hh + ':' + String(mm).padStart(2, '0') : mm) + ':' + String(ss).padStart(2, '0');
}
/**
 * The time left to a deadline ("2d 3h", "5h 10m", "45m", "time up"); '' for an unreadable date.
 * @param {string} iso
 */
export function fmtDeadline(iso) {
  const ms = Date.parse(iso) - Date.now();
  if (isNaN(ms)) return '';
  if (ms <= 0) return _('time up');
  const m = Math.floor(ms / 60000), d = Math.floor(m / 1440), hh = Math.floor((m % 1440) / 60), mm = m % 60;
  return d ? _('{days}d {hours}h', { days: d, hours: hh }) : hh ? _('{hours}h {minutes}m', { hours: hh, minutes: mm }) : _('{minutes}m', { minutes: mm });
}
