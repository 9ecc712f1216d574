// The stand-ins the bundled SDKs see for Headers, FormData and Response (scripts/sdk-web-globals.ts)
// behave as the real globals do. The real ones are reached only through `globalThis` here, after the
// stand-ins were checked not to need them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FormData, Headers, Response } from '../../scripts/sdk-web-globals.ts';
import { headersFromRaw } from '../../src/llm/fetch-headers.ts';

const undiciLoaded = (): boolean => (process as unknown as { moduleLoadList: string[] }).moduleLoadList.includes('NativeModule internal/deps/undici/undici');

describe('SDK stand-ins for the fetch globals', () => {
  test('instanceof answers without loading undici for objects that cannot be real ones', () => {
    const h = new Headers({ 'X-A': '1' });
    assert.ok(h instanceof Headers);
    assert.equal({} instanceof Headers, false);
    // nodeFetch's response headers are the same class: Headers to the SDKs, without undici.
    const raw = headersFromRaw(['A', 'b']);
    assert.ok(raw instanceof Headers);
    assert.equal(raw.get('a'), 'b');
    assert.equal(Object.prototype.toString.call(raw), '[object Headers]');
    assert.equal(({ a: 1 } as unknown) instanceof FormData, false);
    assert.equal(('x' as unknown) instanceof FormData, false);
    assert.equal(new Map() instanceof Response, false);
    assert.equal(undiciLoaded(), false, 'nothing so far needed undici');
  });

  test('Headers behaves as the real one: validation, normalisation, combining, sorted iteration', () => {
    const RealHeaders = globalThis.Headers;
    const ops: [string, (h: Headers | globalThis.Headers) => unknown][] = [
      ['append and get combine', (h) => (h.append('X-B', ' 1 '), h.append('x-b', '2\t'), h.get('X-B'))],
      ['set replaces', (h) => (h.append('a', '1'), h.set('A', '2'), [...h])],
      ['delete', (h) => (h.append('a', '1'), h.delete('A'), h.has('a'))],
      ['set-cookie kept apart', (h) => (h.append('Set-Cookie', 'a=1'), h.append('set-cookie', 'b=2'), h.append('Z', 'z'), h.append('c', 'd'), [[...h], h.get('set-cookie'), h.getSetCookie()])],
      ['keys and values', (h) => (h.append('b', '2'), h.append('a', '1'), [[...h.keys()], [...h.values()], [...h.entries()]])],
      ['forEach', (h) => (h.append('b', '2'), h.append('a', '1'), ((out: string[]) => (h.forEach((v, k) => out.push(`${k}=${v}`)), out))([]))],
      ['missing is null', (h) => h.get('nope')],
    ];
    for (const [name, op] of ops) assert.deepEqual(op(new Headers()), op(new RealHeaders()), name);
    const bad: [string, (H: new (init?: never) => Headers | globalThis.Headers) => unknown][] = [
      ['invalid name', (H) => new H().append('bad name', 'x')],
      ['CR LF in value', (H) => new H().set('a', 'x\r\ny: z')],
      ['NUL in value', (H) => new H().append('a', 'x\0')],
      ['not a ByteString', (H) => new H().append('a', 'ā')],
      ['pair of 3', (H) => new H([['a', 'b', 'c']] as never)],
      ['null init', (H) => new H(null as never)],
    ];
    for (const [name, op] of bad) {
      assert.throws(() => op(Headers as never), TypeError, name);
      assert.throws(() => op(RealHeaders as never), TypeError, name);
    }
    const inits: unknown[] = [[['A', '1'], ['b', '2']], { A: '1', b: '2' }, new RealHeaders({ a: '1' }), new Headers({ a: '1' }), new Map([['a', '1']])];
    for (const init of inits) assert.deepEqual([...new Headers(init)], [...new RealHeaders(init as HeadersInit)]);
    assert.equal(Object.prototype.toString.call(new Headers()), '[object Headers]');
  });

  test('a real Headers is one too, and the prototype methods work on it', () => {
    const real = new globalThis.Headers({ a: '1' });
    assert.ok(real instanceof Headers);
    Headers.prototype.append.call(real, 'b', '2');
    assert.equal(Headers.prototype.get.call(real, 'b'), '2');
    assert.deepEqual([...(Object.getOwnPropertyDescriptor(Headers.prototype, 'entries')!.value as () => Iterable<unknown>).call(real)], [['a', '1'], ['b', '2']]);
    // A real Headers made from ours (what a fetch other than nodeFetch does with the SDK's headers).
    assert.deepEqual([...new globalThis.Headers(new Headers({ x: 'y' }) as unknown as HeadersInit)], [['x', 'y']]);
  });

  test('FormData and Response are the real globals', async () => {
    const fd = new FormData();
    fd.append('stream', 'true');
    assert.ok(fd instanceof globalThis.FormData);
    assert.ok(fd instanceof FormData);
    assert.equal(fd.get('stream'), 'true');
    const r = new Response('hi', { status: 201 });
    assert.ok(r instanceof globalThis.Response && r instanceof Response);
    assert.equal(await r.text(), 'hi');
    assert.equal(Response.prototype, globalThis.Response.prototype);
    assert.equal(typeof Response.json, 'function');
    class Mine extends globalThis.Response {}
    assert.ok(new Mine() instanceof Response);
  });
});
