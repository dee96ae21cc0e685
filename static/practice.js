// The practice hold: a pretend round run on this page alone, so a newcomer can feel
// the button before a game. It opens no socket and sends no request: the countdown,
// the free window, the bid and the pretend bank are all counted here. The touch
// handling follows hold.js (one pointer, captured; lifting, cancelling or sliding off
// is letting go; a second tap right after the last one is not a new press).
// Every word comes from the section's data-say-* attributes (templates/partials/practice.html).
// The section may be redrawn by the room's stream (the solo lobby), so events are
// caught on the document and each round remembers its own section.
(function () {
  'use strict';
  var GUARD_MS = 500;    // a tap this soon after letting go is the tail of a double tap
  var SLOP_PX = 12;      // a finger wobbles; sliding off is further than this
  var still = window.matchMedia && matchMedia('(prefers-reduced-motion: reduce)').matches;

  var run = null;        // the pretend round under way: {root, btn, pointer, box, key, start, ...}
  var lastUp = -Infinity;
  var waiting = null;    // a press held back by the guard: its timer
  var pending = null;    // and its pointer

  function fmtSecs(ms) { return window.taWord('secs', { s: Math.floor(ms / 1000) + '.' + Math.floor(ms % 1000 / 100) }); }
  function fmtBank(ms) {
    var s = Math.floor(ms / 1000) % 60;
    return Math.floor(ms / 60000) + ':' + (s < 10 ? '0' : '') + s + '.' + Math.floor(ms % 1000 / 100);
  }
  function num(root, name) { return parseInt(root.dataset[name], 10) || 0; }
  function say(root, key, fill) {
    var text = root.dataset['say' + key] || '';
    Object.keys(fill || {}).forEach(function (k) { text = text.replace('{' + k + '}', fill[k]); });
    return text;
  }
  function part(root, name) { return root.querySelector('.practice-' + name); }
  function put(el, text) { if (el && el.textContent !== text) el.textContent = text; }

  // Bids count in whole tenths, as in the "same tenth" rule books.
  function bidAt(r, t) {
    var ms = Math.max(0, t - r.start - r.ready - r.free);
    return Math.min(ms - ms % 100, r.bank);
  }
  function phaseAt(r, t) {
    var in_ = t - r.start;
    if (in_ < r.ready) return 'countdown';
    if (in_ < r.ready + r.free) return 'free';
    return 'spending';
  }

  function draw() {
    var r = run;
    if (!r) return;
    if (!r.root.isConnected) { stop(); return; }   // redrawn by the stream: the round is gone
    var t = performance.now();
    var phase = phaseAt(r, t);
    var root = r.root, bid = bidAt(r, t);
    // The countdown's number and the free window's word stand where the bid will tick.
    put(part(root, 'label'), say(root, phase === 'spending' ? 'Bidding' : 'Holding'));
    put(part(root, 'clock'), phase === 'countdown' ? String(Math.ceil((r.start + r.ready - t) / 1000))
      : phase === 'free' ? say(root, 'FreeLabel') : fmtSecs(bid));
    put(part(root, 'msg'), say(root, phase === 'countdown' ? 'Countdown' : phase === 'free' ? 'Free' : 'Spending'));
    put(part(root, 'bank'), say(root, 'Bank', { bank: fmtBank(r.bank - bid) }));
    r.btn.dataset.phase = phase;
    // The ring fills through the countdown and empties through the free window, like the game's.
    var ring = part(root, 'ring');
    var into = t - r.start;
    var offset = phase === 'countdown' ? 100 * (1 - into / r.ready)
      : phase === 'free' ? 100 * (into - r.ready) / r.free : 100;
    if (still) offset = Math.round(offset / 10) * 10;
    ring.setAttribute('stroke-dashoffset', offset.toFixed(2));
    ring.setAttribute('visibility', offset > 99.5 ? 'hidden' : 'visible');
    if (phase === 'spending' && bid >= r.bank) { letGo(true); return; }
    r.frame = still ? setTimeout(draw, 100) : requestAnimationFrame(draw);
  }

  function stop() {
    if (!run) return;
    if (run.frame !== null) { cancelAnimationFrame(run.frame); clearTimeout(run.frame); }
    run = null;
  }

  function begin(root, btn, pointer, box, key) {
    stop();
    run = { root: root, btn: btn, pointer: pointer, box: box, key: key, start: performance.now(),
            ready: num(root, 'readyMs'), free: num(root, 'freeMs'), bank: num(root, 'bankMs'), frame: null };
    btn.dataset.state = 'in';
    btn.setAttribute('aria-pressed', 'true');
    draw();
  }

  // Let go (or the pretend bank ran out): say what that would have meant. Safe to call twice.
  function letGo(empty) {
    if (waiting) { clearTimeout(waiting); waiting = null; }
    var r = run;
    if (!r) return;
    var t = performance.now();
    var phase = phaseAt(r, t), bid = bidAt(r, t), root = r.root;
    stop();
    lastUp = t;
    if (!root.isConnected) return;
    r.btn.dataset.state = 'idle';
    r.btn.dataset.phase = '';
    r.btn.setAttribute('aria-pressed', 'false');
    var ring = part(root, 'ring');
    ring.setAttribute('stroke-dashoffset', '100');
    ring.setAttribute('visibility', 'hidden');
    put(part(root, 'label'), say(root, 'Again'));
    put(part(root, 'clock'), phase === 'spending' ? fmtSecs(bid) : '');
    put(part(root, 'bank'), say(root, 'Bank', { bank: fmtBank(r.bank - (phase === 'spending' ? bid : 0)) }));
    put(part(root, 'msg'), phase === 'countdown' ? say(root, 'Early') : phase === 'free' ? say(root, 'FreeOut')
      : say(root, empty === true ? 'Empty' : 'Bid', { bid: fmtSecs(bid) }));
  }

  function practiceButton(target) {
    var btn = target && target.closest && target.closest('.practice-hold');
    return btn ? { btn: btn, root: btn.closest('[data-practice]') } : null;
  }

  // -- touch and mouse: one pointer, captured, let go by anything that looks like letting go
  document.addEventListener('pointerdown', function (e) {
    var hit = practiceButton(e.target);
    if (!hit || !hit.root) return;
    e.preventDefault();
    if (run || waiting) return;                    // a second finger changes nothing
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    var btn = hit.btn, id = e.pointerId;
    try { btn.setPointerCapture(id); } catch (err) {}
    var box = btn.getBoundingClientRect();
    var early = GUARD_MS - (performance.now() - lastUp);
    if (early > 0) {
      // Just let go: a finger that stays down is a press; a quick second tap is not.
      pending = id;
      waiting = setTimeout(function () { waiting = null; pending = null; begin(hit.root, btn, id, box, false); }, early);
    } else begin(hit.root, btn, id, box, false);
  });
  function pointerGone(e) {
    if (waiting && e.pointerId === pending) { clearTimeout(waiting); waiting = null; pending = null; return; }
    if (run && !run.key && e.pointerId === run.pointer) letGo();
  }
  ['pointerup', 'pointercancel', 'lostpointercapture'].forEach(function (type) {
    document.addEventListener(type, pointerGone);
  });
  // Captured pointers never leave, so sliding off the round button is checked by hand.
  document.addEventListener('pointermove', function (e) {
    if (!run || run.key || e.pointerId !== run.pointer) return;
    var r = run.box;
    var dx = e.clientX - (r.left + r.width / 2), dy = e.clientY - (r.top + r.height / 2);
    var radius = r.width / 2 + (e.pointerType === 'mouse' ? 2 : SLOP_PX);
    if (dx * dx + dy * dy > radius * radius) letGo();
  });
  // A touch on the button scrolls nothing, opens no menu, zooms nothing.
  document.addEventListener('touchstart', function (e) {
    if (practiceButton(e.target)) e.preventDefault();
  }, { passive: false });
  ['contextmenu', 'selectstart', 'dragstart'].forEach(function (type) {
    document.addEventListener(type, function (e) { if (practiceButton(e.target)) e.preventDefault(); });
  });

  // -- keyboard: hold Space (or Enter) on the focused button
  function holdKey(e) { return e.code === 'Space' || e.key === ' ' || e.key === 'Enter'; }
  document.addEventListener('keydown', function (e) {
    var hit = practiceButton(e.target);
    if (!hit || !hit.root || !holdKey(e)) return;
    e.preventDefault();
    if (e.repeat || run) return;
    begin(hit.root, hit.btn, null, null, true);
  });
  document.addEventListener('keyup', function (e) {
    if (run && run.key && holdKey(e)) { e.preventDefault(); letGo(); }
  });
  window.addEventListener('blur', function () { if (run && run.key) letGo(); });
  // Switching apps or locking the screen is letting go, as in a game.
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') letGo();
  });
  window.addEventListener('pagehide', function () { letGo(); });
})();
