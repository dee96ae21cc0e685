"""What the hold zone said when the finger lifted, read back after the fact.

When the player was the last one holding, letting go ends the round: the round's
result replaces "You let go at 0.4 s" a round trip later, a few milliseconds on a
quick machine -- too soon for a test that polls the page to see it. So the page
keeps its own record of every change of the hold zone, with the time of each and
of the last finger lifted, and the tests read the bid from that record. The same
strings serve Playwright (``page.evaluate``) and Selenium (``({...})()``).
"""

# Start (or restart) the record; call it before the finger lifts.
RECORD = """() => {
  const zone = document.querySelector('.hold-zone');
  if (!window.__said) {
    new MutationObserver(() => window.__said.push([performance.now(), zone.innerText]))
      .observe(zone, {childList: true, characterData: true, subtree: true});
    document.addEventListener('pointerup', () => { window.__upAt = performance.now(); }, true);
  }
  window.__said = [];
  window.__upAt = null;
}"""

# The first bid the zone showed once the finger lifted, and how many ms after: [bid, ms] or null.
FIRST = """() => {
  const up = window.__upAt;
  if (up === null || !window.__said) return null;
  for (const [t, text] of window.__said) {
    const m = t >= up && /You let go at (\\d+\\.\\d) s/.exec(text);
    if (m) return [m[1], t - up];
  }
  return null;
}"""
