// The hold button. Pressing opens the hold WebSocket; letting go closes it.
// The server's own timestamps of open and close are the press and the release:
// this script never reports a time, it only makes sure that anything that looks
// like the finger leaving the button closes the socket at once.
(function () {
  'use strict';
  var room = document.getElementById('room');
  var btn = document.getElementById('hold');
  if (!room || !btn) return;
  var label = document.getElementById('hold-label');
  var clock = document.getElementById('hold-clock');
  var msg = document.getElementById('hold-msg');
  var bankLive = document.getElementById('bank-live');

  var view = { phase: room.dataset.phase, round: 0, seated: false, bankMs: null };
  var state = 'off';      // idle | pressing | in | out | off
  var ws = null;          // the open hold socket, if any
  var pointer = null;     // the one pointer holding the button; others are ignored
  var viaKey = false;     // held with the Space bar
  var outRound = -1;      // the round we let go in (no second press that round)
  var note = '';          // why we are out, shown until the next round
  var spendStart = null;  // when the spending view arrived (the local clock's zero)
  var bankEmpty = false;
  var clockTimer = null;

  var REFUSED = {
    too_late: 'Too late — wait for the next countdown.',
    bank_empty: 'Your bank is empty: you sit out the rest of the game.',
    out_this_round: 'You let go: out until the next round.',
    already_holding: 'You are already holding on another screen.',
    not_seated: 'You are not seated in this game.',
    not_started: 'The game has not started.'
  };

  function fmtSecs(ms) { return Math.floor(ms / 1000) + '.' + Math.floor(ms % 1000 / 100); }
  function fmtBank(ms) {
    var s = Math.floor(ms / 1000) % 60;
    return Math.floor(ms / 60000) + ':' + (s < 10 ? '0' : '') + s + '.' + Math.floor(ms % 1000 / 100);
  }
  function vibrate(pattern) { if (navigator.vibrate) { try { navigator.vibrate(pattern); } catch (e) {} } }

  function spentMs() {
    if (spendStart === null || view.phase !== 'spending') return 0;
    var ms = performance.now() - spendStart;
    return view.bankMs !== null ? Math.min(ms, view.bankMs) : ms;
  }

  // Everything visible about the button follows from (state, phase).
  function render() {
    btn.dataset.state = state;
    var held = state === 'in' || state === 'pressing';
    var text = { idle: 'Press and hold', pressing: 'Hold…', in: 'Holding', out: 'Out', off: 'Wait' }[state];
    var line = '';
    if (state === 'idle') line = 'Hold now to enter round ' + view.round + '.';
    else if (state === 'pressing') line = 'Connecting…';
    else if (state === 'in') {
      line = view.phase === 'countdown' ? 'You are in. Keep holding through go.'
        : view.phase === 'free' ? 'Free window: let go now and it costs nothing.'
        : 'You are bidding. Let go to stop.';
      if (view.phase === 'spending') text = 'Your bid';
    } else if (state === 'out') {
      line = note || (view.phase === 'countdown' ? 'Out until the next round.' : 'You are out this round.');
    } else if (view.phase === 'result') line = 'Next round soon.';
    label.textContent = text;
    if (msg.textContent !== line) msg.textContent = line;
    btn.setAttribute('aria-pressed', held ? 'true' : 'false');
    drawClock();
    var wantTimer = state === 'in' && view.phase === 'spending';
    if (wantTimer && !clockTimer) clockTimer = setInterval(drawClock, 50);
    if (!wantTimer && clockTimer) { clearInterval(clockTimer); clockTimer = null; }
  }

  // Your own clock while holding: counted locally from the spending view's arrival.
  function drawClock() {
    var bidding = state === 'in' && view.phase === 'spending';
    var spent = bidding ? spentMs() : 0;
    var c = bidding ? fmtSecs(spent) + ' s' : '';
    if (clock.textContent !== c) clock.textContent = c;
    var b = view.bankMs === null ? '' : 'Bank ' + fmtBank(Math.max(0, view.bankMs - spent));
    if (bankLive.textContent !== b) bankLive.textContent = b;
  }

  function setState(next, why) {
    state = next;
    if (why !== undefined) note = why;
    render();
  }

  // The state the view implies when we hold nothing.
  function resting() {
    if (!view.seated || view.phase === 'lobby' || view.phase === 'ended' || view.phase === 'result') return 'off';
    if (view.phase !== 'countdown') return 'out';
    if (bankEmpty || outRound === view.round) return 'out';
    return 'idle';
  }

  function press() {
    if (state !== 'idle') return;
    var url = (location.protocol === 'https:' ? 'wss' : 'ws') + '://' + location.host +
      '/r/' + encodeURIComponent(room.dataset.code) + '/hold';
    var sock;
    try { sock = new WebSocket(url); } catch (e) { setState('out', 'Could not connect.'); return; }
    ws = sock;
    setState('pressing', '');
    sock.onmessage = function (ev) {
      if (sock !== ws) return;
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === 'in') setState('in');
      else if (m.type === 'refused') {
        if (m.reason === 'bank_empty') bankEmpty = true;
        drop(REFUSED[m.reason] || 'That press did not count.');
      } else if (m.type === 'released') {
        if (m.reason === 'bank_empty') { bankEmpty = true; vibrate([100, 60, 100]); }
        drop(m.reason === 'bank_empty' ? 'Your bank ran out: you bid everything you had.' : '');
      }
    };
    sock.onclose = function () {
      if (sock === ws) drop('Connection lost — that counts as letting go.');
    };
  }

  // The server ended the hold (or the socket died): forget the socket.
  function drop(why) {
    var sock = ws;
    ws = null;
    outRound = view.round;
    if (sock) { try { sock.close(1000); } catch (e) {} }
    setState(resting() === 'off' ? 'off' : 'out', why);
  }

  // Let go: tell the server, then close. Safe to call any number of times.
  function release() {
    pointer = null;
    viaKey = false;
    if (!ws) return;
    var sock = ws;
    ws = null;
    if (sock.readyState === WebSocket.OPEN) { try { sock.send('{"type":"release"}'); } catch (e) {} }
    try { sock.close(1000); } catch (e) {}
    outRound = view.round;
    setState(resting() === 'off' ? 'off' : 'out',
      view.phase === 'countdown' ? 'You let go before go: out until the next round.'
        : view.phase === 'free' ? 'You let go in the free window: no cost.' : 'You let go.');
  }

  // -- touch and mouse: one pointer, captured, released by anything that looks like letting go
  btn.addEventListener('pointerdown', function (e) {
    e.preventDefault();
    if (pointer !== null || viaKey) return;   // a second finger changes nothing
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    if (state !== 'idle') return;
    pointer = e.pointerId;
    try { btn.setPointerCapture(e.pointerId); } catch (err) {}
    press();
  });
  function pointerGone(e) { if (e.pointerId === pointer) release(); }
  ['pointerup', 'pointercancel', 'lostpointercapture', 'pointerleave'].forEach(function (type) {
    btn.addEventListener(type, pointerGone);
  });
  // Captured pointers never "leave", so sliding off the round button is checked by hand.
  btn.addEventListener('pointermove', function (e) {
    if (e.pointerId !== pointer) return;
    var r = btn.getBoundingClientRect();
    var dx = e.clientX - (r.left + r.width / 2);
    var dy = e.clientY - (r.top + r.height / 2);
    var radius = r.width / 2 * 1.04;
    if (dx * dx + dy * dy > radius * radius) release();
  });
  // A touch the page consumes: no scrolling, no long-press menu, no double-tap zoom.
  btn.addEventListener('touchstart', function (e) { e.preventDefault(); }, { passive: false });
  ['contextmenu', 'selectstart', 'dragstart'].forEach(function (type) {
    btn.addEventListener(type, function (e) { e.preventDefault(); });
  });

  // -- keyboard: hold Space (anywhere but in a field or on another control)
  function spaceIsOurs(target) {
    if (target === btn) return true;
    return !(target.closest && target.closest('input, select, textarea, button, a, summary, [contenteditable]'));
  }
  function isSpace(e) { return e.code === 'Space' || e.key === ' '; }
  document.addEventListener('keydown', function (e) {
    if (!isSpace(e) || state === 'off' || !spaceIsOurs(e.target)) return;
    e.preventDefault();   // no page scroll, no button click
    if (e.repeat || viaKey || pointer !== null) return;
    viaKey = true;
    press();
  });
  document.addEventListener('keyup', function (e) {
    if (!isSpace(e) || !viaKey) return;
    e.preventDefault();
    release();
  });
  // A keyup may never come once the window loses focus.
  window.addEventListener('blur', function () { if (viaKey) release(); });

  // Leaving the page, switching apps or locking the screen is letting go.
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') release();
  });
  window.addEventListener('pagehide', release);

  // -- the view, as app.js reads it from the status part
  document.addEventListener('ta:state', function (e) {
    var d = e.detail;
    var wentGo = d.prevPhase === 'countdown' && (d.phase === 'free' || d.phase === 'spending');
    if (d.phase === 'spending' && view.phase !== 'spending') spendStart = performance.now();
    if (d.round !== view.round) { note = ''; }
    if (d.bankMs !== null) bankEmpty = d.bankMs <= 0;
    view = d;
    if (wentGo && (state === 'in' || state === 'pressing')) vibrate(150);
    if (ws && (d.phase === 'result' || d.phase === 'ended' || d.phase === 'lobby')) {
      // The round is over for everyone; the server closes the socket too.
      var sock = ws; ws = null;
      try { sock.close(1000); } catch (err) {}
    }
    if (!ws) setState(resting());
    else render();
  });

  render();
})();
