/* Small DOM helpers shared by every page's modules. */

/**
 * @typedef {Record<string, any>} Attrs  attributes: `class`, `text` (the text content), `style`
 *   (set through the CSSOM, which the page's Content-Security-Policy allows), `onX` (a listener of
 *   event X), anything else an attribute (true: present, null/undefined/false: left out)
 * @typedef {Node | string | number | null | undefined | false} Child
 */

/**
 * A new element: h('span', { class: 'tag', text: 'bot' }), h('ul', null, items).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'style') e.style.cssText = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/**
 * The first element that matches `sel` (in `root`, else the document); the pages' own elements,
 * which are there, are typed as HTMLElement (a missing one fails at its first use).
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} sel
 * @param {ParentNode | null} [root]
 * @returns {E}
 */
export function $(sel, root) {
  return /** @type {E} */ ((root || document).querySelector(sel));
}

/**
 * Run `f` once the document is parsed (module scripts run after parsing: at once, then).
 * @param {() => void} f
 */
export function ready(f) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', f, { once: true });
  else f();
}

/**
 * The button that matches `sel` (a page's own: it is there).
 * @param {string} sel
 * @param {ParentNode | null} [root]
 * @returns {HTMLButtonElement}
 */
export function $button(sel, root) {
  return /** @type {HTMLButtonElement} */ ((root || document).querySelector(sel));
}

/**
 * The input (or range) that matches `sel` (a page's own: it is there).
 * @param {string} sel
 * @param {ParentNode | null} [root]
 * @returns {HTMLInputElement}
 */
export function $input(sel, root) {
  return /** @type {HTMLInputElement} */ ((root || document).querySelector(sel));
}

/**
 * The element an event happened on (events of the page's elements have one).
 * @param {Event} e
 * @returns {HTMLElement}
 */
export function targetOf(e) {
  return /** @type {HTMLElement} */ (e.target);
}

/**
 * Every element that matches `sel` (in `root`, else the document), as an array.
 * @param {string} sel
 * @param {ParentNode | null} [root]
 * @returns {HTMLElement[]}
 */
export function $$(sel, root) {
  return /** @type {HTMLElement[]} */ ([...(root || document).querySelectorAll(sel)]);
}
