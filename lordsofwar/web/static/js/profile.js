// The profile page: each results bar (won, drawn, lost) divided in proportion to its counts.
for (const part of document.querySelectorAll('.wdl [data-share]')) {
  if (part instanceof HTMLElement) part.style.flexGrow = part.dataset.share ?? '1';
}
