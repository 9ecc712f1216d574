// test-timeout: 60
// HEIC (iPhone photos) and AVIF are accepted wherever images are: recognised from their bytes,
// converted to JPEG with ffmpeg when it can decode them (most providers take only PNG, JPEG, GIF and
// WebP), sent as they are with a note otherwise (Gemini reads HEIC), for vision_analyze, chat
// attachments from the gateway and the REPL's /image.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { imageDataUrl } from '../../src/commands/display.ts';
import { buildPrompt } from '../../src/gateway/inbound.ts';
import { kindOf, mimeOf } from '../../src/gateway/media.ts';
import { commonImageFormat, fitForVision } from '../../src/media/image-fit.ts';
import { sniffImage } from '../../src/tools/impl/vision.ts';
import { noFfmpeg } from '../helpers/audio.ts';
import { tmp } from '../tools/helpers.ts';

/** The start of an iPhone HEIC file: an ftyp box with brand heic (the rest is not decodable). */
const HEIC = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64)]);
const noPath = { PATH: '/nonexistent' };

function avif(): Buffer {
  const out = join(tmp('hermes-avif-'), 'p.avif');
  const r = spawnSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1', '-c:v', 'libaom-av1', '-still-picture', '1', out]);
  if (r.status !== 0) throw new Error(String(r.stderr));
  return readFileSync(out);
}

describe('HEIC and AVIF images', () => {
  it('are recognised by bytes, extension and MIME type', () => {
    assert.equal(sniffImage(HEIC), 'image/heic');
    const avifHead = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypavif\0\0\0\0avifmif1miafMA1A', 'latin1')]);
    assert.equal(sniffImage(avifHead), 'image/avif');
    assert.equal(kindOf(undefined, 'IMG_0001.HEIC'), 'image');
    assert.equal(kindOf(undefined, 'photo.avif'), 'image');
    assert.equal(mimeOf('/x/IMG_0001.heic'), 'image/heic');
  });

  it('without ffmpeg a HEIC goes as it is, with a note saying how to convert it', async () => {
    const r = await fitForVision(HEIC, 'image/heic', noPath);
    assert.equal(r.mime, 'image/heic');
    assert.equal(r.bytes, HEIC);
    assert.match(r.note ?? '', /sent as HEIC \(install ffmpeg/);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    assert.deepEqual(await commonImageFormat(png, 'image/png', noPath), { bytes: png, mime: 'image/png' });
  });

  it('/image accepts a .heic file', async () => {
    const dir = tmp('hermes-heic-');
    writeFileSync(join(dir, 'IMG_1.heic'), HEIC);
    const r = await imageDataUrl('IMG_1.heic', dir, noPath);
    assert.ok('url' in r && r.url.startsWith('data:image/heic;base64,'), JSON.stringify(r).slice(0, 200));
    const bad = await imageDataUrl('IMG_1.heic.txt', dir, noPath);
    assert.ok('error' in bad);
  });

  describe('with ffmpeg', { skip: noFfmpeg ?? false }, () => {
    it('an AVIF is converted to JPEG for vision_analyze, gateway attachments and /image', async () => {
      const bytes = avif();
      const fitted = await fitForVision(bytes, 'image/avif');
      assert.equal(fitted.mime, 'image/jpeg');
      assert.deepEqual([...fitted.bytes.subarray(0, 2)], [0xff, 0xd8]);
      assert.match(fitted.note ?? '', /converted AVIF → JPEG \(ffmpeg\)/);

      const dir = tmp('hermes-avif-in-');
      writeFileSync(join(dir, 'photo.avif'), bytes);
      writeFileSync(join(dir, 'IMG_2.heic'), HEIC);
      const turn = await buildPrompt(
        [
          {
            source: { platform: 'telegram', chatId: '1', chatType: 'dm', userId: '7' },
            messageId: 'm1',
            text: 'look',
            attachments: [
              { kind: 'image', path: join(dir, 'photo.avif'), mimeType: 'image/avif' },
              { kind: 'image', path: join(dir, 'IMG_2.heic'), mimeType: 'application/octet-stream' },
            ],
          },
        ],
        { home: dir, config: {}, env: process.env, keyOpts: {}, log: () => undefined },
      );
      assert.ok(typeof turn !== 'string');
      const urls = (turn.content as { type: string; image_url?: { url: string } }[]).filter((p) => p.type === 'image_url').map((p) => p.image_url!.url);
      // The AVIF became JPEG; the undecodable HEIC still goes, typed by its extension.
      assert.equal(urls.length, 2);
      assert.ok(urls[0].startsWith('data:image/jpeg;base64,/9j/'), urls[0].slice(0, 40));
      assert.equal(urls[1], `data:image/heic;base64,${HEIC.toString('base64')}`);

      const r = await imageDataUrl('photo.avif', dir);
      assert.ok('url' in r && r.url.startsWith('data:image/jpeg;base64,') && /converted AVIF/.test(r.note ?? ''));
    });
  });
});
