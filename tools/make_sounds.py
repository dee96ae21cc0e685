"""Writes the big screen's sounds, static/sounds/*.wav, from nothing but arithmetic.

The TV plays four short sounds a room can hear (static/tv.js): a tick for each second
of the countdown, a rising call at go, a chime when a round ends and a fanfare for the
podium. They are drawn here rather than downloaded so that their licence is the
project's and they can be changed by editing numbers. 8-bit mono PCM WAV at
11,025 Hz: every browser plays it, and each file is a few kilobytes (the service
worker caches them with the shell). Run it again after a change:

    .venv/bin/python tools/make_sounds.py
"""

from __future__ import annotations

import math
import random
import wave
from pathlib import Path

RATE = 11_025
OUT = Path(__file__).resolve().parent.parent / "static" / "sounds"


def note(freq: float, start: float, length: float, level: float, decay: float,
         partials: tuple[tuple[float, float], ...] = ((1, 1),), attack: float = 0.004):
    """A struck or plucked note: partials (ratio, weight) under an exponential decay."""
    def at(t: float) -> float:
        t -= start
        if t < 0 or t > length:
            return 0.0
        envelope = min(1.0, t / attack) * math.exp(-t / decay)
        # The last 10 ms fade to silence, so no note ends in a click.
        envelope *= min(1.0, (length - t) / 0.01)
        return level * envelope * sum(w * math.sin(2 * math.pi * freq * r * t) for r, w in partials)
    return at


def write(name: str, seconds: float, notes) -> None:
    rng = random.Random(name)       # the same bytes every run
    frames = bytearray()
    for i in range(int(seconds * RATE)):
        t = i / RATE
        value = sum(n(t) for n in notes)
        value = max(-1.0, min(1.0, value))
        # Triangular dither: 8 bits leave a faint hiss instead of a gritty tail.
        dither = (rng.random() - rng.random()) / 127
        frames.append(max(0, min(255, round(128 + 127 * (value + dither)))))
    with wave.open(str(OUT / name), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(RATE)
        out.writeframes(bytes(frames))


WOOD = ((1, 1.0), (2.7, 0.35), (5.2, 0.1))          # a woodblock's knock
BELL = ((1, 1.0), (2.0, 0.45), (3.01, 0.25), (4.2, 0.12))
BRASS = ((1, 1.0), (2, 0.5), (3, 0.33), (4, 0.2), (5, 0.12))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    # Countdown: one dry knock a second, short enough never to blur into the next.
    write("tick.wav", 0.09, [note(1_100, 0, 0.09, 0.45, 0.022, WOOD)])
    # Go: two quick rising notes, bright, the second held a little.
    write("go.wav", 0.42, [note(784, 0, 0.12, 0.32, 0.09, BRASS),
                           note(1_175, 0.1, 0.32, 0.36, 0.14, BRASS)])
    # A round's end: a two-note bell, falling a fifth, that rings out.
    write("end.wav", 0.8, [note(1_319, 0, 0.8, 0.32, 0.22, BELL),
                           note(880, 0.14, 0.66, 0.36, 0.26, BELL)])
    # The podium: a major arpeggio up to a held chord.
    arpeggio = [note(f, 0.11 * i, 0.22, 0.26, 0.12, BRASS) for i, f in enumerate((523, 659, 784))]
    chord = [note(f, 0.33, 0.72, 0.16, 0.35, BRASS) for f in (523, 659, 784, 1_047)]
    write("podium.wav", 1.05, arpeggio + chord)


if __name__ == "__main__":
    main()
