// `hermes status` says why a media tool is unavailable and how to enable it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';

describe('hermes status: media tools', () => {
  it('names what is missing for the browser, image generation and speech', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), 'tts:\n  provider: elevenlabs\n');
    const r = await hermes(['status'], { home, env: { BROWSER_EXECUTABLE_PATH: '/nonexistent/chromium' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /○ browser_navigate unavailable: BROWSER_EXECUTABLE_PATH points at \/nonexistent\/chromium, which does not exist/);
    assert.match(r.stdout, /○ image_generate unavailable: the fal image provider needs FAL_KEY \(get one at https:\/\/fal\.ai\)/);
    assert.match(r.stdout, /○ text_to_speech unavailable: the elevenlabs TTS provider needs ELEVENLABS_API_KEY/);
    const j = await hermes(['status', '--json'], { home, env: { FAL_KEY: 'k', ELEVENLABS_API_KEY: 'e' } });
    const status = JSON.parse(j.stdout);
    const names = (status.unavailable_tools as { name: string }[]).map((u) => u.name);
    assert.ok(names.includes('web_search'), 'the list is there');
    assert.ok(!names.includes('image_generate') && !names.includes('text_to_speech'), j.stdout);
    assert.ok((status.tools as string[]).includes('image_generate'));
  });
});
