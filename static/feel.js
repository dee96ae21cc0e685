// The feel of the game: the ring around the button (it fills through the
// countdown and empties through the free window, and turns while the bidding
// runs), the countdown's beat (a pulse of the big number and a short tick, a
// higher tone at go), on the big screen a soft tick through the bidding that
// quickens as the round's clock runs, the sound switch, and a flash on a token
// strip chip that just gained a token.
// Plain DOM and the Web Audio API; motion follows prefers-reduced-motion
// (app.css stops the animations; the ring then moves in steps).
(function () {
  'use strict';
  var room = document.getElementById('room');
  if (!room) return;
  var still = window.matchMedia && matchMedia('(prefers-reduced-motion: reduce)').matches;

  function store(key, value) { return window.taStore(key, value); }   // app.js, loaded first

  // -- sound: short tones, on unless switched off; the audio starts with a gesture
  var Audio = window.AudioContext || window.webkitAudioContext;
  var ctx = null;
  function soundOn() { return store('ta-sound') !== '0'; }
  function showSwitch() {
    document.querySelectorAll('[data-sound]').forEach(function (b) {
      b.hidden = !Audio;
      b.setAttribute('aria-pressed', soundOn() ? 'true' : 'false');
    });
  }
  function wake() {
    // Browsers let a page make sound only after a tap or a key: make the context then.
    if (!Audio || !soundOn()) return;
    if (!ctx) { try { ctx = new Audio(); } catch (e) { Audio = null; return; } }
    if (ctx.state === 'suspended') ctx.resume().catch(function () {});
  }
  ['pointerdown', 'keydown'].forEach(function (type) { document.addEventListener(type, wake, true); });
  function tone(freq, ms, level) {
    if (!ctx || !soundOn()) return;
    var t = ctx.currentTime;
    var osc = ctx.createOscillator();
    var gain = ctx.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(level, t);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + ms / 1000);
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start(t);
    osc.stop(t + ms / 1000);
  }
  document.addEventListener('click', function (e) {
    var toggle = e.target.closest && e.target.closest('[data-sound]');
    if (!toggle) return;
    store('ta-sound', soundOn() ? '0' : '1');
    showSwitch();
    wake();
  });

  // -- the ring and the beat, from the phase and its deadline
  var phase = null, ends = 0, total = 0, lastSecond = null, frame = null;
  function draw() {
    frame = null;
    var left = Math.max(0, ends - performance.now());
    var part = total ? left / total : 0;
    // dashoffset 100 = empty ring, 0 = full.
    // While spending, a quarter arc that app.css / screen.css turn: the round is still on.
    var offset = phase === 'countdown' ? 100 * part : phase === 'free' ? 100 * (1 - part)
      : phase === 'spending' ? 75 : 100;
    if (still) offset = Math.round(offset / 10) * 10;
    // Looked up each time: the big screen's ring is in its status part, redrawn each phase.
    var ring = document.getElementById('ring');
    if (ring) {
      ring.setAttribute('stroke-dashoffset', offset.toFixed(2));
      ring.setAttribute('visibility', offset > 99.5 ? 'hidden' : 'visible');   // no stray cap dot
    }
    if (phase === 'countdown') {
      var second = Math.ceil(left / 1000);
      if (second !== lastSecond && second > 0) beat();
      lastSecond = second;
    }
    if ((phase === 'countdown' || phase === 'free') && left > 0) {
      frame = still ? setTimeout(draw, 250) : requestAnimationFrame(draw);
    }
  }
  function beat() {
    var number = room.querySelector('.status .beat');
    if (number) {
      number.classList.remove('pulse');
      void number.offsetWidth;      // restart the animation
      number.classList.add('pulse');
    }
    cue('tick', 880, 70, 0.15);
  }
  // The big screen plays its own sound files for the countdown and go (tv.js, which hears
  // ta:cue); a phone makes a short tone.
  function cue(name, freq, ms, level) {
    if (bigScreen) document.dispatchEvent(new CustomEvent('ta:cue', { detail: name }));
    else tone(freq, ms, level);
  }
  document.addEventListener('ta:state', function (e) {
    var d = e.detail;
    var timer = room.querySelector('.status [data-deadline-ms]');
    var ms = timer && timer.dataset.deadlineMs !== '' ? Number(timer.dataset.deadlineMs) : 0;
    if (d.phase !== d.prevPhase || d.phase !== phase) {
      if (d.prevPhase === 'countdown' && (d.phase === 'free' || d.phase === 'spending')) cue('go', 1320, 180, 0.2);
      lastSecond = null;
    }
    phase = d.phase;
    total = phase === 'countdown' ? d.readyMs : phase === 'free' ? d.freeMs : 0;
    ends = performance.now() + ms;
    if (frame === null) draw();
    roundStart = d.elapsedMs == null ? null : performance.now() - d.elapsedMs;
    if (phase !== 'spending' && tension) { clearTimeout(tension); tension = null; }
    if (phase === 'spending' && bigScreen && !tension) tension = setTimeout(tense, gap());
  });

  // -- the big screen while spending: the clock pulses and ticks softly, faster as the
  // round goes on (a tick a second at first, four a second after a minute). The cue
  // follows the public clock alone, the same whoever holds.
  var bigScreen = room.classList.contains('screen');
  var tension = null, roundStart = null;
  function gap() { return Math.max(250, 1000 - (performance.now() - roundStart) / 80); }
  function tense() {
    tension = null;
    if (phase !== 'spending' || roundStart === null) return;
    var clock = room.querySelector('.status .tv-clock');
    if (clock) {
      clock.classList.remove('pulse');
      void clock.offsetWidth;      // restart the animation
      clock.classList.add('pulse');
    }
    tone(440, 45, 0.05);
    tension = setTimeout(tense, gap());
  }

  // -- a chip of the token strip that just gained a token flashes
  var before = {};
  document.addEventListener('htmx:sseBeforeMessage', function (e) {
    if (!e.target.classList || !e.target.classList.contains('players')) return;
    before = {};
    e.target.querySelectorAll('.chip[data-pid]').forEach(function (c) { before[c.dataset.pid] = +c.dataset.tokens; });
  });
  document.addEventListener('htmx:sseMessage', function (e) {
    if (!e.target.classList || !e.target.classList.contains('players')) return;
    e.target.querySelectorAll('.chip[data-pid]').forEach(function (c) {
      if (c.dataset.pid in before && +c.dataset.tokens > before[c.dataset.pid]) c.classList.add('gained');
    });
  });

  showSwitch();
})();
