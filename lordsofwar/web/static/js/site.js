/* What every page of the site does (loaded by base.html): no page script of its own needed. */

// The language menu of the top bar: a choice made with the pointer sends its form at once; from
// the keyboard (arrow keys change a closed menu's value) the button beside it is shown instead,
// so that moving through the choices never leaves the page.
const select = /** @type {HTMLSelectElement | null} */ (document.getElementById('language-select'));
const form = select && select.form;
if (select && form) {
  const go = /** @type {HTMLElement | null} */ (form.querySelector('.language-go'));
  if (go) go.hidden = true;
  let pointer = false;
  select.addEventListener('pointerdown', () => { pointer = true; });
  select.addEventListener('keydown', () => { pointer = false; });
  select.addEventListener('change', () => {
    if (pointer) form.submit();
    else if (go) go.hidden = false;
  });
}
