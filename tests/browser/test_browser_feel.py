"""The feel of a party game: the countdown's beat and ring, sound behind a switch,
haptics, the token strip, the winner's reveal, the podium, and reduced motion."""

from __future__ import annotations

import time

import phone

# Records every tone started (Web Audio), every vibration, and the ring's fill.
PROBE = """
window.__tones = []; window.__buzz = []; window.__ring = [];
const make = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  const osc = make.call(this);
  const start = osc.start.bind(osc);
  osc.start = (t) => { window.__tones.push(osc.frequency.value); start(t); };
  return osc;
};
Object.defineProperty(Navigator.prototype, 'vibrate', {configurable: true,
  value: function (p) {
    const st = document.querySelector('.status .state');
    window.__buzz.push([st && st.dataset.phase, p]); return true; }});
setInterval(() => {
  const ring = document.getElementById('ring'), st = document.querySelector('.status .state');
  if (ring && st) window.__ring.push([st.dataset.phase, +ring.getAttribute('stroke-dashoffset')]);
}, 100);
"""


def test_countdown_beat_ring_sound_haptics_reveal_and_podium(server, open_phone):
    page = open_phone(touch=True)
    page.context.add_init_script(PROBE)
    code = phone.room_with_ai(page, server.url, "Fay", rounds=2, ready_ms=3_000, free_ms=2_000)

    # The host's lobby: the room code, large.
    size = page.eval_on_selector(".invite .big-code", "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 40, size
    assert page.inner_text(".invite .big-code") == code
    sound = page.locator("[data-sound]")
    assert sound.is_visible() and sound.get_attribute("aria-pressed") == "true"
    assert sound.inner_text().replace("\n", "") == "Sound: on"   # the state in words (flex items: a line each in innerText)
    finger = phone.Finger(page)
    finger.down(20, 300)                   # any touch lets the page make sound later
    finger.up()

    phone.start(page, server.url, code)
    strip = page.locator(".strip").bounding_box()
    assert strip["y"] >= 0 and strip["y"] + strip["height"] <= 844
    assert page.locator(".strip .chip").count() == 2
    finger.down()
    phone.button(page, "in")
    phone.wait_state(page, "free", 1)
    phone.wait_state(page, "spending", 1)
    time.sleep(0.3)
    finger.up()
    phone.released(page)
    phone.wait_round_over(page, 1)

    tones = page.evaluate("window.__tones")
    assert tones.count(880) >= 2 and 1320 in tones, tones      # ticks, then go
    buzz = page.evaluate("window.__buzz")
    assert buzz == [["free", 150], ["spending", 40]], buzz       # at go, then as I let go
    ring = page.evaluate("window.__ring")
    counting = [v for p, v in ring if p == "countdown"]
    free = [v for p, v in ring if p == "free"]
    assert counting[0] > 60 and counting[-1] < 25 and counting == sorted(counting, reverse=True), counting
    assert free[0] < 30 and free[-1] > 75 and free == sorted(free), free

    # The winner's reveal: a name, large, animated in.
    who = page.locator(".result .reveal-who")
    assert who.is_visible() and who.inner_text().strip()
    assert who.evaluate("e => getComputedStyle(e).animationName") == "reveal"
    assert who.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 28

    # Sound off: round 2's countdown makes no sound.
    sound.tap()
    assert sound.get_attribute("aria-pressed") == "false"
    assert sound.inner_text().replace("\n", "") == "Sound: off"
    heard = len(page.evaluate("window.__tones"))
    phone.wait_state(page, "countdown", 2)
    time.sleep(1.5)
    assert len(page.evaluate("window.__tones")) == heard

    # The podium, with the winner on the top step.
    phone.wait_state(page, "ended", timeout_s=2 * phone.ROUND_S)
    first = page.locator(".final .standings tbody tr").first.locator("th").inner_text()
    assert page.inner_text(".podium .step-1 .step-name") == first
    assert page.eval_on_selector(".podium .step", "e => getComputedStyle(e).animationName") == "rise"

    # prefers-reduced-motion: nothing moves.
    page.emulate_media(reduced_motion="reduce")
    for selector in (".podium .step", ".podium .step-1"):
        assert page.eval_on_selector(selector, "e => getComputedStyle(e).animationName") == "none"
