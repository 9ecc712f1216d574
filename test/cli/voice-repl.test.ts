// Voice mode in the REPL, driven through tmux: /voice on, push-to-talk with Ctrl+B (the recorder
// is a stand-in `rec` on PATH that "records" a prepared clip and stops as sox does after a pause),
// the clip transcribed by the local STT command and sent as the message; /voice tts speaks the
// answer through Edge TTS (a local fake of its protocol) and a player (a stand-in `ffplay`).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempHome } from '../helpers/cli.ts';
import { noFfmpeg, tone } from '../helpers/audio.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startFakeEdge, type FakeEdge } from '../helpers/fake-tts.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const skip = tmuxAvailable() ?? noFfmpeg;
if (skip) console.log(`# skipping the REPL voice test: ${skip}`);

let fake: FakeLlm;
let edge: FakeEdge;
before(async () => {
  if (skip) return;
  fake = await startFakeLlm();
  edge = await startFakeEdge(tone('mp3', 1));
});
after(async () => {
  await fake?.close();
  await edge?.close();
});

const lastUser = (r: RecordedRequest) => {
  const u = [...(r.body.messages as { role: string; content: unknown }[])].reverse().find((m) => m.role === 'user');
  return typeof u?.content === 'string' ? u.content : JSON.stringify(u?.content);
};

describe('REPL voice mode', { skip: skip ?? false }, () => {
  it('/voice on, Ctrl+B records, the transcript is sent; /voice tts speaks the answer', async () => {
    const home = tempHome();
    const bin = join(home, 'fakebin');
    mkdirSync(bin);
    const clip = join(home, 'clip.wav');
    writeFileSync(clip, tone('wav', 1));
    const played = join(home, 'played.txt');
    // sox's `rec` writes the file given before the effects, then stops after a pause.
    writeFileSync(join(bin, 'rec'), `#!/bin/sh\nfor a in "$@"; do case "$a" in *.wav) cp "${clip}" "$a";; esac; done\nexit 0\n`);
    writeFileSync(join(bin, 'ffplay'), `#!/bin/sh\nfor a in "$@"; do last="$a"; done\necho "$last" > "${played}"\n`);
    chmodSync(join(bin, 'rec'), 0o755);
    chmodSync(join(bin, 'ffplay'), 0o755);
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\ntts:\n  provider: edge\n  edge:\n    endpoint: ${edge.endpoint}\n`,
    );
    fake.setHandler((r) => (Array.isArray(r.body.tools) && r.body.tools.length ? { text: `You said: ${lastUser(r)}` } : { text: 'A title' }));
    const t = startHermes([], {
      home,
      env: { PATH: `${bin}:${process.env.PATH}`, HERMES_LOCAL_STT_COMMAND: 'printf "book a table for two"' },
    });
    try {
      await t.waitFor(/❯/, { timeoutMs: 30_000 });
      t.type('/voice on');
      t.keys('Enter');
      await t.waitFor(/Voice mode on: press Ctrl\+B to talk \(recording stops after 3s of silence\)/);
      t.keys('C-b');
      await t.waitFor(/● recording…/);
      await t.waitFor(/You said: book a table for two/, { timeoutMs: 30_000 });
      t.type('/voice tts');
      t.keys('Enter');
      await t.waitFor(/Spoken replies on\./);
      const mark = t.mark();
      t.type('thanks');
      t.keys('Enter');
      await t.waitFor(/You said: thanks/, { after: mark, timeoutMs: 30_000 });
      const deadline = performance.now() + 30_000;
      while (!existsSync(played) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const file = readFileSync(played, 'utf8').trim();
      assert.match(file, /tts_\d{8}_\d{6}_\d{6}\.mp3$/);
      assert.match(edge.requests.at(-1)!.ssml, /You said: thanks/);
      t.type('/voice status');
      t.keys('Enter');
      await t.waitFor(/Voice mode: on · spoken replies: on\nRecorder: sox · player: ffplay\nSpeech to text: local\nText to speech: edge/);
    } finally {
      t.kill();
    }
  });
});
