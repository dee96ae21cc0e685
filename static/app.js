// Time Auction page glue: everything except the hold button (hold.js).
// No inline scripts or styles anywhere (CSP), so all behaviour is wired here.
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  // The service worker caches the app shell and serves /offline when a page can't load.
  if ('serviceWorker' in navigator) {
    window.addEventListener('load', function () {
      navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(function () {});
    });
  }

  // Every word the scripts show, in the page's language: partials/words.html (docs/i18n.md).
  var words = null;
  function word(key, fill) {
    if (words === null) {
      var block = document.getElementById('ta-words');
      try { words = block ? JSON.parse(block.textContent) : {}; } catch (e) { words = {}; }
    }
    var text = words[key] || '';
    Object.keys(fill || {}).forEach(function (k) { text = text.split('{' + k + '}').join(fill[k]); });
    return text;
  }
  window.taWord = word;

  function ready(fn) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn);
    else fn();
  }

  function store(key, value) {
    try {
      if (value === undefined) return localStorage.getItem(key);
      localStorage.setItem(key, value);
    } catch (e) { /* private mode: just don't remember */ }
    return null;
  }
  window.taStore = store;   // for feel.js

  // The player's name between games is the server's to remember (a cookie it fills
  // into every name field as it draws the page: docs/ui.md, "Joining").

  var room = null;
  var phase = null;

  // Read the status part's .state and tell the rest of the page (hold.js) about it.
  function sync() {
    var el = room.querySelector('.status .state');
    if (!el) return;
    var d = el.dataset;
    var prev = phase;
    phase = d.phase;
    room.dataset.phase = d.phase;
    room.dataset.seated = d.seated;
    room.dataset.ownBank = d.ownBank;
    applyBankToggle();
    startTimers();
    wakeLock();
    if (phase === 'countdown' && prev !== 'countdown') { showTheButton(); focusHold(); }
    // The end opens on the verdict, the podium and the rematch (first in the page's order),
    // not wherever the last round left the page (the charts, far down).
    if (phase === 'ended' && prev && prev !== 'ended') window.scrollTo(0, 0);
    if (phase === 'ended' && endSeen === null) { endSeen = performance.now(); standIn(); }
    document.dispatchEvent(new CustomEvent('ta:state', { detail: {
      phase: d.phase, prevPhase: prev, round: +d.round, rounds: +d.rounds,
      seated: d.seated === 'true', holding: d.holding === 'true', inRound: d.inRound === 'true',
      bankMs: d.bankMs === '' ? null : +d.bankMs, ownBank: d.ownBank, tie: d.tie,
      readyMs: +d.readyMs, freeMs: +d.freeMs,
      deadlineAtMs: d.deadlineAtMs ? +d.deadlineAtMs : null,
      elapsedMs: d.elapsedMs ? +d.elapsedMs : null, myBidMs: d.myBidMs ? +d.myBidMs : null
    } }));
  }

  // Each countdown starts with the game on screen, whatever the player scrolled to before
  // (a Start reached by scrolling, a result read further down): the page's top, where the
  // token strip, the round and its countdown and the whole button are on a phone. Left as it
  // was, the page stayed scrolled and was pushed further down round after round (the browser's
  // scroll anchoring keeps what the player last looked at, below the button, in place), until
  // the round's number and the countdown were off the screen. Only the top: the other parts of
  // the countdown (the strip in place of the lobby's seats) arrive after this one, so a place
  // measured now would move; at the top, what arrives below moves nothing above it.
  function showTheButton() {
    window.scrollTo(0, 0);
  }

  // A host who has not opened a rematch HOST_TURN_MS after the end is gone (a phone that died):
  // then any seated player may (partials/rematch.html, rules.may_open_rematch). The page counts
  // from the moment it saw the end, which is that moment or later, so the button never shows
  // before the server would take it. Its part may be drawn again meanwhile: shown again each time.
  var endSeen = null;
  function standIn() {
    var waited = performance.now() - endSeen;
    var next = Infinity;
    room.querySelectorAll('.stand-in[data-after-ms]').forEach(function (form) {
      var left = Number(form.dataset.afterMs) - waited;
      if (left <= 0) form.hidden = false;
      else next = Math.min(next, left);
    });
    clearTimeout(standIn.timer);
    if (next < Infinity) standIn.timer = setTimeout(standIn, next + 50);
  }

  // Keyboard players land on the hold button when the game starts (touch players
  // get no focus ring on it: they never used a key).
  var keyboard = false;
  document.addEventListener('keydown', function () { keyboard = true; }, true);
  document.addEventListener('pointerdown', function () { keyboard = false; }, true);
  function focusHold() {
    if (!keyboard) return;
    var active = document.activeElement;
    var hold = document.getElementById('hold');
    if (hold && (!active || active === document.body || !document.body.contains(active))) hold.focus();
  }

  // Countdowns: deadline_ms arrives as a data attribute and is counted down here,
  // so the HTML the server sends never changes with the clock. Once clock.js knows
  // the server's clock, to the deadline's moment on it: a late view moves nothing.
  var timers = [];
  var ticker = null;
  function startTimers() {
    var now = performance.now();
    var state = room.querySelector('.status .state');
    var at = state && state.dataset.deadlineAtMs ? Number(state.dataset.deadlineAtMs) : null;
    var offset = window.taClock ? window.taClock.offset() : null;
    timers = [];
    room.querySelectorAll('[data-deadline-ms]').forEach(function (el) {
      if (el.dataset.deadlineMs === '') return;
      var end = at !== null && offset !== null ? at - offset : now + Number(el.dataset.deadlineMs);
      timers.push({ el: el, end: end });
    });
    // The round's clock (elapsed_ms) counts up from the moment spending began.
    room.querySelectorAll('[data-elapsed-ms]:not(.state)').forEach(function (el) {
      if (el.dataset.elapsedMs !== '') timers.push({ el: el, start: now - Number(el.dataset.elapsedMs) });
    });
    tick();
    if (timers.length && !ticker) ticker = setInterval(tick, 100);
    if (!timers.length && ticker) { clearInterval(ticker); ticker = null; }
  }
  function tick() {
    var now = performance.now();
    timers.forEach(function (t) {
      var left = Math.max(0, t.end - now);
      var up = Math.floor(Math.max(0, now - t.start));
      var text = t.start !== undefined ? word('secs', { s: Math.floor(up / 1000) + '.' + Math.floor(up % 1000 / 100) })
        : t.el.dataset.format === 'tenths'
        ? word('secs', { s: (Math.ceil(left / 100) / 10).toFixed(1) })
        : String(Math.ceil(left / 1000));
      var full = t.el.dataset.say ? t.el.dataset.say.split('{t}').join(text) : text;   // "Next round in {t}"
      if (t.el.textContent !== full) t.el.textContent = full;
    });
  }

  // "Show my bank": a per-device switch, on by default, only where the room allows it.
  function bankShown() { return store('ta-show-bank') !== '0'; }
  function applyBankToggle() {
    var off = room.dataset.ownBank === 'toggle' && !bankShown();
    room.classList.toggle('bank-off', off);
    room.querySelectorAll('[data-bank-toggle]').forEach(function (b) {
      b.setAttribute('aria-pressed', off ? 'false' : 'true');
    });
  }
  document.addEventListener('click', function (e) {
    var toggle = e.target.closest && e.target.closest('[data-bank-toggle]');
    if (!toggle || !room) return;
    store('ta-show-bank', bankShown() ? '0' : '1');
    applyBankToggle();
  });

  // Keep the screen on during a game, where the browser allows it.
  var lock = null;
  function wakeLock() {
    var want = phase && phase !== 'lobby' && phase !== 'ended' && document.visibilityState === 'visible';
    if (want && !lock && navigator.wakeLock) {
      lock = 'pending';
      navigator.wakeLock.request('screen').then(function (l) {
        lock = l;
        l.addEventListener('release', function () { lock = null; });
      }).catch(function () { lock = null; });
    } else if (!want && lock && lock !== 'pending') {
      lock.release().catch(function () {});
      lock = null;
    }
  }
  document.addEventListener('visibilitychange', function () { if (room) wakeLock(); });

  // Errors from htmx posts: a short message instead of silence.
  function toast(text) {
    var el = document.getElementById('toast');
    if (!el) return;
    el.textContent = text;
    el.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { el.hidden = true; }, 4000);
  }
  document.addEventListener('htmx:responseError', function (e) {
    var xhr = e.detail.xhr;
    var type = xhr.getResponseHeader('Content-Type') || '';
    var text = word('error' + xhr.status) || word('errorOther');
    try {
      if (type.indexOf('json') >= 0) text = JSON.parse(xhr.responseText).error || text;
      else if (type.indexOf('text/plain') >= 0 && xhr.responseText.length < 200) text = xhr.responseText;
    } catch (err) { /* keep the generic text */ }
    toast(text);
  });
  document.addEventListener('htmx:sendError', function () { toast(word('noConnection')); });

  // Lobby settings save on change: once the server took a change, its field says so
  // ("Saved", the template's words in data-text) for a few seconds, also across the
  // stream redrawing the settings part, which usually lands just before or after.
  var savedField = null;
  var savedAt = 0;
  var changedField = null;
  document.addEventListener('change', function (e) {
    var form = e.target.closest && e.target.closest('.settings form');
    if (form && e.target.name) changedField = e.target.name;
  }, true);
  function showSaved() {
    var fresh = savedField && performance.now() - savedAt < 3000;
    document.querySelectorAll('[data-saved-for]').forEach(function (el) {
      var text = fresh && el.dataset.savedFor === savedField ? el.dataset.text : '';
      if (el.textContent !== text) el.textContent = text;
    });
  }
  // Heard from the request itself, not from htmx's afterRequest: when the stream's redraw
  // of the settings part lands before the post's answer, the form that posted is out of
  // the page by then, and htmx tells nobody the request ended.
  document.addEventListener('htmx:beforeRequest', function (e) {
    var form = e.detail.elt;
    var field = changedField;
    if (!form.closest || !form.closest('.settings') || !field) return;
    e.detail.xhr.addEventListener('load', function () {
      if (this.status < 200 || this.status >= 400) return;
      savedField = field;
      savedAt = performance.now();
      showSaved();
      clearTimeout(showSaved.timer);
      showSaved.timer = setTimeout(showSaved, 3000);
    });
  });

  // Live updates: show when the stream is down; keep focus across a swapped part.
  var focusId = null;
  document.addEventListener('htmx:sseOpen', function () { var c = document.getElementById('conn'); if (c) c.hidden = true; });
  document.addEventListener('htmx:sseError', function () { var c = document.getElementById('conn'); if (c) c.hidden = false; });
  // What the player typed survives too: a part re-sent with the same form (every
  // stream sends all parts on connect) must not wipe a half-typed name.
  // So does a folded part the player opened (the solo game's "Change the rules").
  var typed = {};
  var opened = [];
  document.addEventListener('htmx:sseBeforeMessage', function (e) {
    var active = document.activeElement;
    focusId = active && active.id && e.target.contains(active) ? active.id : null;
    typed = {};
    e.target.querySelectorAll('input[id]:not([type=hidden]), textarea[id]').forEach(function (el) {
      if (el.value !== el.defaultValue) typed[el.id] = el.value;
    });
    opened = [];
    e.target.querySelectorAll('details[id][open]').forEach(function (el) { opened.push(el.id); });
  });
  document.addEventListener('htmx:sseMessage', function (e) {
    Object.keys(typed).forEach(function (id) {
      var again = document.getElementById(id);
      if (again && e.target.contains(again)) again.value = typed[id];
    });
    typed = {};
    opened.forEach(function (id) {
      var again = document.getElementById(id);
      if (again) again.open = true;
    });
    opened = [];
    if (focusId) {
      var again = document.getElementById(focusId);
      if (again && again !== document.activeElement) again.focus();
      focusId = null;
    }
    // The page is live once the stream's first view is in (tests and bench/ui_figures.py wait for it).
    if (e.target.classList && e.target.classList.contains('settings')) showSaved();
    if (e.target.classList && e.target.classList.contains('status')) { room.dataset.live = 'true'; sync(); }
    else applyBankToggle();
    if (endSeen !== null) standIn();
  });

  // Invite: copy the link, or open the share sheet where there is one.
  document.addEventListener('click', function (e) {
    var copy = e.target.closest && e.target.closest('[data-copy]');
    if (copy) {
      var input = document.querySelector(copy.dataset.copy);
      var was = copy.dataset.label || (copy.dataset.label = copy.textContent);
      var done = function () { copy.textContent = word('copied'); setTimeout(function () { copy.textContent = was; }, 2000); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
      } else { input.select(); document.execCommand('copy'); done(); }
    }
    var share = e.target.closest && e.target.closest('[data-share]');
    if (share && navigator.share) {
      navigator.share({ title: share.dataset.shareTitle, url: share.dataset.share }).catch(function () {});
    }
  });

  ready(function () {
    if (navigator.share) document.querySelectorAll('[data-share]').forEach(function (b) { b.hidden = false; });
    room = document.getElementById('room');
    if (!room) return;
    sync();
    document.addEventListener('ta:clock', startTimers);   // count to the server's moment now
  });
})();
