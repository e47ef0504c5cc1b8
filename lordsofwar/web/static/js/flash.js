// A page that shows a one-time message (a flash) forgets the query that carried it, so that
// reloading the page does not show it again.
history.replaceState(null, '', location.pathname);
