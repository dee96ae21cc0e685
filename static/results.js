// After the game: follow a rematch the host opened, and share the results page.
// A static file because the CSP allows no inline script.
(function () {
  'use strict';

  // The end screen's stream carries the rematch link once the host opens one
  // (partials/rematch.html). Follow it when it *arrives*: a page opened after
  // the rematch began shows the link and lets the reader stay.
  // The host's own page is already on its way there (the form's 303): leave it be.
  var seenAtLoad = null;
  var leaving = false;
  function rematchLink() { return document.querySelector('#room [data-rematch-follow]'); }
  document.addEventListener('submit', function (e) {
    if (/\/rematch$/.test(e.target.getAttribute('action') || '')) leaving = true;
  });
  document.addEventListener('htmx:sseMessage', function () {
    var link = rematchLink();
    if (link && !seenAtLoad && !leaving) {
      leaving = true;
      window.location.assign(link.getAttribute('href'));
    }
  });

  // Share: the system share sheet where there is one, else copy the link.
  function say(text) {
    var status = document.getElementById('share-status');
    if (status) status.textContent = text;
  }
  function copy(url) {
    var input = document.getElementById('results-url');
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(function () { say(window.taWord('linkCopied')); }, function () {
        if (input) input.select();
        say(window.taWord('copyAbove'));
      });
    } else if (input) {
      input.select();
      say(window.taWord(document.execCommand('copy') ? 'linkCopied' : 'copyAbove'));
    }
  }
  document.addEventListener('click', function (e) {
    var button = e.target.closest && e.target.closest('#share-results');
    if (!button) return;
    var url = button.dataset.shareUrl;
    if (navigator.share) {
      navigator.share({ title: button.dataset.shareTitle, url: url }).then(function () {
        say(window.taWord('shared'));
      }, function (err) {
        if (!err || err.name !== 'AbortError') copy(url);   // cancelled: nothing to do
      });
    } else {
      copy(url);
    }
  });

  function ready() { seenAtLoad = !!rematchLink(); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
