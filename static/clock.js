// The server's clock, as this page keeps it (docs/fairness.md, "The page's clock").
// A countdown counts to its deadline's moment on the server's clock (the status
// part's data-deadline-at-ms; in the countdown: go), not from when the view arrived,
// so a late stream cannot move go on this screen -- nor, with it, the last moment a
// press counts. Loaded before app.js, so its view of go is current before hold.js
// asks (they all hear the same ta:state events, in the order they were added).
(function () {
  'use strict';
  var DRIFT = 5e-5;       // a phone's clock may run 50 ppm off the server's
  var KEEP = 8;           // probes kept: the last few minutes
  var probes = [];
  var go = null;          // this round's go on the server's clock, while counting down
  var goTimer = null;

  // One round trip to GET /clock. The server read its clock between our send and our
  // receipt, so the midpoint is off by at most half the round trip.
  function probe() {
    if (!window.fetch || document.visibilityState === 'hidden') return;
    var sent = performance.now();
    fetch('/clock', { cache: 'no-store', headers: { Accept: 'application/json' } })
      .then(function (r) { return r.json(); })
      .then(function (c) {
        var got = performance.now();
        if (typeof c.now_ms !== 'number') return;
        probes.push({ offset: c.now_ms - (sent + got) / 2, err: (got - sent) / 2, at: got });
        if (probes.length > KEEP) probes.shift();
        watchGo();
        document.dispatchEvent(new CustomEvent('ta:clock'));
      }).catch(function () {});
  }

  // The server's clock minus performance.now(), from the probe that is surest now (half
  // its round trip, plus the drift since); null until a probe is back.
  function offset() {
    var now = performance.now(), best = null, least = Infinity;
    probes.forEach(function (p) {
      var err = p.err + (now - p.at) * DRIFT;
      if (err < least) { least = err; best = p; }
    });
    return best ? best.offset : null;
  }
  function until(at) { var o = offset(); return o === null ? null : at - (performance.now() + o); }
  function pastGo() { var left = go === null ? null : until(go); return left !== null && left <= 0; }

  // At go on the server's clock, tell the page (hold.js stops offering the press then).
  function watchGo() {
    clearTimeout(goTimer);
    var left = go === null ? null : until(go);
    if (left === null) return;
    goTimer = setTimeout(function () { document.dispatchEvent(new CustomEvent('ta:go')); }, Math.max(0, left));
  }
  document.addEventListener('ta:state', function (e) {
    go = e.detail.phase === 'countdown' ? e.detail.deadlineAtMs : null;
    watchGo();
  });

  window.taClock = { offset: offset, pastGo: pastGo };

  // Only a room (or its big screen) counts down. A few probes at first (the first may
  // pay for a new connection), then one every 30 s against drift: each is a few hundred
  // bytes, and the server answers it without its store.
  function start() {
    if (!document.getElementById('room')) return;
    [0, 1000, 3000].forEach(function (ms) { setTimeout(probe, ms); });
    setInterval(probe, 30000);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
