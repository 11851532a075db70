// Applies the reader's remembered theme (crates/app/src/theme) before the
// first paint, so that a page that follows a choice other than the system's
// does not flash in the wrong colours. Without a stored choice, theme.css
// follows the system's setting by itself.
(function () {
  'use strict';
  try {
    var choice = window.localStorage.getItem('proflens-theme');
    if (choice === 'light' || choice === 'dark') {
      document.documentElement.setAttribute('data-theme', choice);
    }
  } catch (err) {
    // localStorage refused (privacy settings): follow the system.
  }
})();
