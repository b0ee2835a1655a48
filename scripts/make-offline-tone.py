#!/usr/bin/env python3
"""Prints the offline provider's tone (Sources/StoryFunctions/Offline/OfflineTone.swift) as base64.

A soft two-partial tone (218 Hz and 327 Hz) whose loudness breathes once a second, encoded by LAME as MPEG-1
Layer III, 32 kHz, 32 kbps, mono, constant bitrate, without the bit reservoir (--nores: every frame holds its own
audio, so frames can be repeated) and without an Info frame (-t). The signal repeats every 28 frames (1.008 s), so
28 consecutive frames past the encoder's start-up repeat seamlessly. Needs python3 and lame (apt-get install lame).
"""
import base64, math, os, struct, subprocess, tempfile, wave

RATE, FRAME, LOOP_FRAMES, LOOPS = 32000, 1152, 28, 4
LOOP = FRAME * LOOP_FRAMES

with tempfile.TemporaryDirectory() as folder:
    wav, mp3 = os.path.join(folder, "tone.wav"), os.path.join(folder, "tone.mp3")
    samples = []
    for n in range(LOOP * LOOPS):
        envelope = 0.6 + 0.4 * math.cos(2 * math.pi * (n % LOOP) / LOOP)
        value = 0.18 * envelope * (math.sin(2 * math.pi * 220 * n / LOOP) + 0.5 * math.sin(2 * math.pi * 330 * n / LOOP))
        samples.append(struct.pack("<h", int(round(value * 32767))))
    with wave.open(wav, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"".join(samples))
    subprocess.run(["lame", "--quiet", "--nores", "-t", "--cbr", "-b", "32", "-m", "m", "--resample", "32", "-q", "2", wav, mp3], check=True)
    frames = open(mp3, "rb").read()
    loop = frames[2 * LOOP_FRAMES * 144 : 3 * LOOP_FRAMES * 144]
    assert loop == frames[LOOP_FRAMES * 144 : 2 * LOOP_FRAMES * 144], "the encoded frames do not repeat"
    text = base64.b64encode(loop).decode()
    print("\n".join(text[i : i + 112] for i in range(0, len(text), 112)))
