// The big screen as the show (templates/screen.html): it follows the room to its next
// game, pops each arriving name in, and plays the party's sounds -- a tick each second of
// the countdown, a call at go, a chime when a round ends, a fanfare for the podium -- from
// small files (static/sounds/, drawn by tools/make_sounds.py, cached by the service worker).
// Everything it reacts to is the spectator's view the page was sent (the phase, the
// round's end, the rematch's code): nothing it does depends on who holds.
(function () {
  'use strict';
  var room = document.getElementById('room');
  if (!room || !room.classList.contains('screen')) return;
  function store(key, value) { return window.taStore(key, value); }   // app.js, loaded first

  // -- the next game: a rematch takes the TV along (the phones follow theirs in results.js).
  // Unlike a phone, the TV goes even when it was opened after the rematch began: nobody
  // taps a TV. It arrives in the new room a stranger unless it carries that room's
  // invitation (it cannot: the view has none), so it shows the code, not the QR.
  var leaving = false;
  function follow() {
    var next = room.querySelector('[data-tv-next]');
    if (!next || leaving) return;
    leaving = true;
    window.location.replace(next.getAttribute('data-tv-next'));
  }

  // -- names arriving in the lobby pop in; the rest of the list stays still.
  var seen = null;
  function players() {
    var ids = {};
    room.querySelectorAll('.tv-tokens tbody tr[data-pid]').forEach(function (row) { ids[row.dataset.pid] = row; });
    return ids;
  }
  document.addEventListener('htmx:sseBeforeMessage', function (e) {
    if (e.target.classList && e.target.classList.contains('tokens')) seen = players();
  });
  document.addEventListener('htmx:sseMessage', function (e) {
    if (e.target.classList && e.target.classList.contains('tokens') && seen && room.dataset.phase === 'lobby') {
      var now = players();
      Object.keys(now).forEach(function (id) { if (!(id in seen)) now[id].classList.add('arrive'); });
    }
    follow();
  });

  // -- sound: asked for once, remembered (localStorage), off by the Sound switch (feel.js).
  var Ctx = window.AudioContext || window.webkitAudioContext;
  var ctx = null, buffers = {}, ask = room.querySelector('[data-sound-ask]');
  function soundOn() { return store('ta-sound') !== '0'; }
  function asked() { return store('ta-sound-asked') === '1'; }
  function load() {
    ['tick', 'go', 'end', 'podium'].forEach(function (name) {
      var url = room.getAttribute('data-sound-' + name);
      if (!url || buffers[name] !== undefined) return;
      buffers[name] = null;
      fetch(url).then(function (r) { return r.arrayBuffer(); })
        .then(function (data) {
          // The callback form: older Safari's decodeAudioData returns no promise.
          ctx.decodeAudioData(data, function (b) { buffers[name] = b; }, function () { delete buffers[name]; });
        })
        .catch(function () { delete buffers[name]; });
    });
  }
  function start() {
    if (!Ctx || !soundOn()) return;
    if (!ctx) {
      try { ctx = new Ctx(); } catch (e) { Ctx = null; return; }
      ctx.onstatechange = showAsk;
      load();
    }
    if (ctx.state === 'suspended') ctx.resume().then(showAsk, function () {});
    showAsk();
  }
  // The question, large, until the room first answers it; after that only while the
  // browser keeps the sound from playing on a newly opened page (a key brings it).
  function showAsk() {
    if (!ask) return;
    var blocked = !!Ctx && soundOn() && (!ctx || ctx.state !== 'running');
    ask.hidden = !(blocked || (!!Ctx && !asked()));
    ask.classList.toggle('again', asked());
  }
  function gesture() {
    if (!asked()) {
      store('ta-sound-asked', '1');
      if (store('ta-sound') === null) store('ta-sound', '1');
    }
    start();
    showAsk();
  }
  ['pointerdown', 'keydown'].forEach(function (type) { document.addEventListener(type, gesture, true); });
  // The Sound switch (feel.js keeps its state) answers the question too.
  document.addEventListener('click', function (e) {
    if (e.target.closest && e.target.closest('[data-sound]')) setTimeout(showAsk, 0);
  });

  function play(name) {
    if (!ctx || !soundOn() || ctx.state !== 'running' || !buffers[name]) return;
    var source = ctx.createBufferSource();
    source.buffer = buffers[name];
    source.connect(ctx.destination);
    source.start();
    room.dataset.lastSound = name;      // what the room last heard (the browser test reads it)
  }
  document.addEventListener('ta:cue', function (e) { play(e.detail); });    // tick, go (feel.js)
  document.addEventListener('ta:state', function (e) {
    var d = e.detail;
    if (d.phase === d.prevPhase || d.prevPhase === null) return;            // a phase just began
    if (d.phase === 'result') play('end');
    else if (d.phase === 'ended') play('podium');
  });

  // A page opened with the question answered tries at once: some browsers let a site that
  // was given a gesture play on its next page (a rematch's), and then nothing is asked.
  function ready() {
    if (asked()) start();
    showAsk();
    follow();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
