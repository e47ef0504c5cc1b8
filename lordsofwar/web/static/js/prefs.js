/* The player's display choices, kept in the browser (localStorage, keys "low.NAME"). */

import { $ } from './dom.js';

export const store = {
  /**
   * @template T
   * @param {string} k
   * @param {T} d the value when none is kept (or storage is unavailable)
   * @returns {T}
   */
  get(k, d) { try { const v = localStorage.getItem('low.' + k); return v === null ? d : JSON.parse(v); } catch (e) { return d; } },
  /**
   * @param {string} k
   * @param {unknown} v
   */
  set(k, v) { try { localStorage.setItem('low.' + k, JSON.stringify(v)); } catch (e) { /* private mode */ } },
};

/**
 * High contrast (body.hc), kept for the next pages; #btn-contrast shows it.
 * @param {boolean} on
 */
export function setHighContrast(on) {
  document.body.classList.toggle('hc', !!on);
  store.set('highContrast', !!on);
  const b = $('#btn-contrast');
  if (b) { b.setAttribute('aria-pressed', on ? 'true' : 'false'); b.classList.toggle('on', !!on); }
}

/** The kept high-contrast choice, applied to this page. */
export function applyHighContrast() {
  setHighContrast(store.get('highContrast', false));
}
