// The hold button. Pressing opens the hold WebSocket; letting go closes it.
// The server's own timestamps of open and close are the press and the release:
// this script never reports a time, it only makes sure that anything that looks
// like the finger leaving the button closes the socket at once -- and that the
// button never says more than is true (docs/ui.md, "Honest states").
(function () {
  'use strict';
  var room = document.getElementById('room');
  var btn = document.getElementById('hold');
  if (!room || !btn) return;
  var label = document.getElementById('hold-label');
  var clock = document.getElementById('hold-clock');
  var msg = document.getElementById('hold-msg');
  var bankLive = document.getElementById('bank-live');
  var help = document.getElementById('hold-help');
  // The words of the states below, from the page (templates/room.html), so they are written once.
  var W = (document.getElementById('hold-words') || btn).dataset;
  var say = window.taWord;     // the words every page's scripts share (app.js, loaded first)

  var BEAT_GAP_MS = 1000;      // the server sends a beat every 500 ms while we hold: 2 missed
  var CONNECT_MS = 3000;       // no "in" by then: the link is not carrying the press
  var GUARD_MS = 500;          // a tap this soon after the button appears is not a press
  var SLOP_PX = 12;            // a finger wobbles; sliding off is further than this

  var view = { phase: room.dataset.phase, round: 0, seated: false, bankMs: null, tie: 'tenth' };
  var state = 'off';      // idle | pressing | in | out | off
  var ws = null;          // the open hold socket, if any
  var heard = 0;          // when the hold socket last brought anything
  var watchdog = null;
  var pointer = null;     // the one pointer holding the button; others are ignored
  var pressBox = null;    // the button's box when that pointer went down
  var waiting = null;     // a press held back by the guard: its timer
  var viaKey = false;     // held with the Space bar
  var outRound = -1;      // the round we are out of (no second press that round)
  var note = '';          // why we are out, shown until the next round
  var letGo = false;      // we held this round and let go before the bidding
  var spendStart = null;  // when the spending view arrived (the local clock's zero)
  var roundStart = null;  // when spending began, on this page's clock (the view's elapsed_ms)
  var keys = false;
  var bid = null;         // {round, ms}: this round's bid as this page measured it
  var bankEmpty = false;
  var shownAt = -Infinity;  // when the button last became pressable
  var firstView = true;
  var clockTimer = null;

  // A refusal's words (docs/protocol.md, the hold socket): data-refused-too-late for too_late.
  function refused(reason) {
    return W['refused' + reason.replace(/(^|_)(\w)/g, function (m, s, c) { return c.toUpperCase(); })]
      || W.refusedOther;
  }

  // Seconds to the tenth, truncated: the one rule of render.py's secs(), so a bid reads alike everywhere.
  function fmtSecs(ms) { ms = Math.floor(ms); return Math.floor(ms / 1000) + '.' + Math.floor(ms % 1000 / 100); }
  function fmtBank(ms) {   // m:ss.t, truncated like render.py's clock()
    var s = Math.floor(ms / 1000) % 60;
    return Math.floor(ms / 60000) + ':' + (s < 10 ? '0' : '') + s + '.' + Math.floor(ms % 1000 / 100);
  }
  function vibrate(pattern) { if (navigator.vibrate) { try { navigator.vibrate(pattern); } catch (e) {} } }

  // What a hold of ms costs, the way the rules count it: whole tenths in "same tenth" rooms.
  // The page's own measure runs a little behind the server's (it starts when the
  // spending view has been drawn), so the bank it shows never has to go back up.
  function charge(ms) { return view.tie === 'tenth' ? ms - ms % 100 : ms; }
  function spentUntil(t) {
    if (spendStart === null || view.phase !== 'spending') return 0;
    var ms = Math.max(0, t - spendStart);
    return charge(view.bankMs !== null ? Math.min(ms, view.bankMs) : ms);
  }
  function myBid() { return bid && bid.round === view.round ? bid.ms : 0; }

  // Everything visible about the button follows from (state, phase, note, bid).
  function render() {
    btn.dataset.state = state;
    var live = state === 'idle' || state === 'pressing' || state === 'in';
    btn.setAttribute('aria-disabled', live ? 'false' : 'true');
    btn.setAttribute('aria-pressed', state === 'in' || state === 'pressing' ? 'true' : 'false');
    var text = say({ idle: 'holdIdle', pressing: 'holdPressing', in: 'holdIn', out: 'holdOut', off: 'holdOff' }[state]);
    var line = '';
    if (state === 'idle') line = say('lineIdle', { round: view.round });
    else if (state === 'pressing') line = say('linePressing');
    else if (state === 'in') {
      line = say(view.phase === 'countdown' ? 'lineInCountdown'
        : view.phase === 'free' ? 'lineInFree' : 'lineInSpending');
      if (view.phase === 'spending') text = say('holdBid');
    } else if (state === 'out') {
      line = view.phase === 'countdown' && !pastGo() ? note || say('lineOut') : waitLine();
      if (myBid()) text = say('holdBid');
      if (awaiting()) text = W.roundClock;
    } else if (view.phase === 'result') line = view.round >= view.rounds ? W.lastRound : W.nextRound;
    label.textContent = text;
    if (msg.textContent !== line) msg.textContent = line;
    var h = state === 'out' && view.phase !== 'countdown' ? W.waitHint
      : keys ? W.keysHint : W.touchHint;
    if (help.textContent !== h) help.textContent = h;
    drawClock();
    var wantTimer = (state === 'in' || awaiting()) && view.phase === 'spending';
    if (wantTimer && !clockTimer) clockTimer = setInterval(drawClock, 50);
    if (!wantTimer && clockTimer) { clearInterval(clockTimer); clockTimer = null; }
  }

  // Out of the round while others may still hold: what we did, and that we wait.
  function awaiting() { return state === 'out' && view.phase === 'spending' && roundStart !== null; }
  function waitLine() {
    if (note) return note;
    if (myBid()) return W.letGo.replace('{bid}', say('secs', { s: fmtSecs(myBid()) }));
    return letGo ? W.noCost : W.satOut;
  }

  // The clock on the button: counted locally from the spending view's arrival while
  // bidding, then frozen at the bid; the bank under it drops with it and stays down.
  // Out of the round, it is the round's clock (public: the time since spending began).
  function drawClock() {
    var bidding = state === 'in' && view.phase === 'spending';
    var spent = bidding ? spentUntil(performance.now()) : myBid();
    var c = bidding || spent ? say('secs', { s: fmtSecs(spent) }) : '';
    if (awaiting()) c = say('secs', { s: fmtSecs(Math.max(0, performance.now() - roundStart)) });
    if (clock.textContent !== c) clock.textContent = c;
    var b = view.bankMs === null ? '' : say('bank', { bank: fmtBank(Math.max(0, view.bankMs - spent)) });
    if (bankLive.textContent !== b) bankLive.textContent = b;
  }

  function setState(next, why) { state = next; if (why !== undefined) note = why; render(); }

  // The state the view implies when we hold nothing.
  function resting() {
    if (!view.seated || view.phase === 'lobby' || view.phase === 'ended' || view.phase === 'result') return 'off';
    if (view.phase !== 'countdown' || pastGo()) return 'out';
    if (bankEmpty || outRound === view.round) return 'out';
    return 'idle';
  }

  function press() {
    if (state !== 'idle') return;
    if (pastGo()) { setState('out'); return tooLate(); }
    var url = (location.protocol === 'https:' ? 'wss' : 'ws') + '://' + location.host +
      '/r/' + encodeURIComponent(room.dataset.code) + '/hold';
    var sock;
    try { sock = new WebSocket(url); } catch (e) { setState('out', W.lost); return; }
    ws = sock;
    heard = performance.now();
    if (!watchdog) watchdog = setInterval(watch, 100);
    setState('pressing', '');
    sock.onmessage = function (ev) {
      if (sock !== ws) return;
      heard = performance.now();
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === 'in') setState('in');
      else if (m.type === 'refused') {
        if (m.reason === 'bank_empty') bankEmpty = true;
        drop(refused(String(m.reason)));
      } else if (m.type === 'released') {
        if (m.reason === 'bank_empty') {
          bankEmpty = true;
          bid = { round: view.round, ms: view.bankMs || 0 };
          vibrate([100, 60, 100]);
          drop(W.bankRanOut);
        } else if (m.reason === 'connection_lost') lost();
        else if (m.reason === 'unavailable') {
          // The store went away: the server charged the hold up to its last heartbeat,
          // which the page knows no better than the last moment it heard the server.
          if (view.phase === 'spending' && state === 'in') bid = { round: view.round, ms: spentUntil(heard) };
          drop(W.releasedUnavailable);
        } else drop('');
      }
    };
    sock.onclose = function () { if (sock === ws) lost(); };
  }

  // The link stopped carrying the hold (closed, or silent past the beat gap): the
  // server lets go at the last moment it heard us, and so does the page.
  function lost() {
    if (view.phase === 'spending' && state === 'in') bid = { round: view.round, ms: spentUntil(heard) };
    drop(W.lost);
  }
  function watch() {
    if (!ws) { clearInterval(watchdog); watchdog = null; return; }
    var quiet = performance.now() - heard;
    if ((state === 'in' && quiet > BEAT_GAP_MS) || (state === 'pressing' && quiet > CONNECT_MS)) lost();
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
    if (waiting) { clearTimeout(waiting); waiting = null; }
    if (!ws) return;
    var sock = ws;
    ws = null;
    if (sock.readyState === WebSocket.OPEN) { try { sock.send('{"type":"release"}'); } catch (e) {} }
    try { sock.close(1000); } catch (e) {}
    outRound = view.round;
    var why = view.phase === 'countdown' ? say('lineLetGoEarly') : '';
    letGo = view.phase !== 'spending';
    if (view.phase === 'spending' && state === 'in') bid = { round: view.round, ms: spentUntil(performance.now()) };
    if (state === 'in') vibrate(40);
    setState(resting() === 'off' ? 'off' : 'out', why);
  }

  // A press after go, by someone who held nothing this round: say when a press counts.
  function tooLate() {
    if (state === 'out' && (view.phase !== 'countdown' || pastGo()) && !myBid() && !letGo && !bankEmpty) setState('out', W.tooLate);
  }

  // -- touch and mouse: one pointer, captured, released by anything that looks like letting go
  btn.addEventListener('pointerdown', function (e) {
    e.preventDefault();
    if (pointer !== null || viaKey) return;   // a second finger changes nothing
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    if (state !== 'idle') return tooLate();
    pointer = e.pointerId;
    pressBox = btn.getBoundingClientRect();
    try { btn.setPointerCapture(e.pointerId); } catch (err) {}
    // The button has only just appeared (where Start was, say): a tap now is the
    // tail of a double tap, not a press. A finger that stays down is a press.
    var early = GUARD_MS - (performance.now() - shownAt);
    if (early > 0) {
      var id = e.pointerId;
      waiting = setTimeout(function () { waiting = null; if (pointer === id) press(); }, early);
    } else press();
  });
  function pointerGone(e) { if (e.pointerId === pointer) release(); }
  ['pointerup', 'pointercancel', 'lostpointercapture', 'pointerleave'].forEach(function (type) {
    btn.addEventListener(type, pointerGone);
  });
  // Captured pointers never "leave", so sliding off the round button is checked by hand,
  // against where the button was when the finger went down, with a finger's slop.
  btn.addEventListener('pointermove', function (e) {
    if (e.pointerId !== pointer || !pressBox) return;
    var r = pressBox;
    var dx = e.clientX - (r.left + r.width / 2);
    var dy = e.clientY - (r.top + r.height / 2);
    var radius = r.width / 2 + (e.pointerType === 'mouse' ? 2 : SLOP_PX);
    if (dx * dx + dy * dy > radius * radius) release();
  });
  // A touch the page consumes: no scrolling, no long-press menu, no double-tap zoom.
  btn.addEventListener('touchstart', function (e) { e.preventDefault(); }, { passive: false });
  ['contextmenu', 'selectstart', 'dragstart'].forEach(function (t) { btn.addEventListener(t, function (e) { e.preventDefault(); }); });

  // -- keyboard: hold Space (anywhere but in a field or on another control)
  keys = !!(window.matchMedia && matchMedia('(any-pointer: fine)').matches);   // the hint names the Space bar
  function spaceIsOurs(target) {
    if (target === btn) return true;
    return !(target.closest && target.closest('input, select, textarea, button, a, summary, [contenteditable]'));
  }
  function isSpace(e) { return e.code === 'Space' || e.key === ' '; }
  document.addEventListener('keydown', function (e) {
    if (!isSpace(e) || state === 'off' || !spaceIsOurs(e.target)) return;
    e.preventDefault();   // no page scroll, no button click
    if (!keys) { keys = true; render(); }
    if (e.repeat || viaKey || pointer !== null) return;
    if (state !== 'idle') return tooLate();
    viaKey = true;
    press();
  });
  document.addEventListener('keyup', function (e) { if (isSpace(e) && viaKey) { e.preventDefault(); release(); } });
  // A keyup may never come once the window loses focus.
  window.addEventListener('blur', function () { if (viaKey) release(); });

  // Leaving the page, switching apps or locking the screen is letting go.
  document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'hidden') release(); });
  window.addEventListener('pagehide', release);

  // -- the view, as app.js reads it from the status part; go on the server's clock (clock.js:
  // false until a probe is back, when the countdown's view alone says go, as before)
  function pastGo() { return !!(window.taClock && window.taClock.pastGo()); }
  document.addEventListener('ta:go', function () { if (!ws && state === 'idle') setState(resting()); });
  document.addEventListener('ta:state', function (e) {
    var d = e.detail;
    var wentGo = d.prevPhase === 'countdown' && (d.phase === 'free' || d.phase === 'spending');
    if (d.phase === 'spending' && view.phase !== 'spending') spendStart = performance.now();
    roundStart = d.elapsedMs == null ? null : performance.now() - d.elapsedMs;
    if (d.round !== view.round) { note = ''; letGo = false; }
    // The bid as the round charged it, once its result is in: the same figure everywhere.
    if (d.myBidMs != null) bid = { round: d.round, ms: d.myBidMs };
    if (d.bankMs !== null) bankEmpty = d.bankMs <= 0;
    var round = d.phase === 'countdown' || d.phase === 'free' || d.phase === 'spending';
    // Reopening the page mid-round rejoins the game but sits this round out (docs/design.md, "Online rooms").
    if (firstView && round && d.seated) {
      outRound = d.round;
      note = d.phase === 'countdown' ? W.cameBackCountdown : W.cameBack;
    }
    firstView = false;
    view = d;
    if (wentGo && (state === 'in' || state === 'pressing')) vibrate(150);
    if (ws && (d.phase === 'result' || d.phase === 'ended' || d.phase === 'lobby')) {
      // The round is over for everyone; the server closes the socket too.
      var sock = ws; ws = null;
      try { sock.close(1000); } catch (err) {}
    }
    if (ws) return render();
    var was = state;
    setState(resting());
    if (state === 'idle' && was !== 'idle') shownAt = performance.now();
  });

  render();
})();
