// vision_analyze with large images: shrunk with ffmpeg to at most 2048 px (JPEG) before they go to
// the vision model; small ones go as they are; without ffmpeg a large one goes at full size while
// providers take it, and is refused past that. Also chat attachments given as file:// URLs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { fitForVision, imageSize } from '../../src/media/image-fit.ts';
import vision from '../../src/tools/defs/vision.ts';
import { noFfmpeg } from '../helpers/audio.ts';
import { scripted } from '../helpers/scripted-stream.ts';
import { call, makeServices, tmp } from '../tools/helpers.ts';

/** A real image of the given size made by ffmpeg. */
function picture(w: number, h: number, ext: 'png' | 'jpg'): Buffer {
  const out = join(tmp('hermes-img-'), `p.${ext}`);
  const r = spawnSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=${w}x${h}`, '-frames:v', '1', out]);
  if (r.status !== 0) throw new Error(String(r.stderr));
  return readFileSync(out);
}

describe('image sizes from headers', () => {
  it('reads PNG, GIF and BMP dimensions', () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    assert.deepEqual(imageSize(png), { width: 1, height: 1 });
    assert.deepEqual(imageSize(Buffer.from('GIF89a\x10\x00\x20\x00', 'latin1')), { width: 16, height: 32 });
    assert.equal(imageSize(Buffer.from('not an image')), null);
  });
});

describe('vision_analyze resizing', { skip: noFfmpeg ?? false }, () => {
  it('reads JPEG dimensions from a file made by ffmpeg', () => {
    assert.deepEqual(imageSize(picture(321, 123, 'jpg')), { width: 321, height: 123 });
  });

  it('shrinks a 4000x3000 image to 2048x1536 JPEG before sending it', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'big.png'), picture(4000, 3000, 'png'));
    const model = scripted([{ text: 'A test pattern.' }]);
    s.auxiliary = () => ({ stream: model.stream, model: 'vis', provider: 'fake' });
    const r = await call(vision, { image_url: pathToFileURL(join(s.cwd, 'big.png')).href, question: 'What is it?' }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(r.json.image_note, 'resized 4000x3000 → 2048x1536 (ffmpeg)');
    const part = (model.requests[0].messages[0].content as { type: string; image_url?: { url: string } }[]).find((p) => p.type === 'image_url')!;
    assert.match(part.image_url!.url, /^data:image\/jpeg;base64,/);
    assert.deepEqual(imageSize(Buffer.from(part.image_url!.url.split(',')[1], 'base64')), { width: 2048, height: 1536 });
  });

  it('leaves small images alone', async () => {
    const small = picture(640, 480, 'png');
    const fitted = await fitForVision(small, 'image/png');
    assert.equal(fitted.bytes, small);
    assert.equal(fitted.note, undefined);
  });

  it('without ffmpeg: a large-but-acceptable image goes at full size, with a note', async () => {
    const big = picture(3000, 2000, 'png');
    const fitted = await fitForVision(big, 'image/png', { PATH: '/nonexistent' });
    assert.equal(fitted.bytes, big);
    assert.match(fitted.note!, /install ffmpeg/);
  });
});
