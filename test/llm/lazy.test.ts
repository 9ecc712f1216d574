// The CLI's `--version` must not pay for the SDKs: importing the LLM layer loads neither.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const url = (p: string) => new URL(p, import.meta.url).href;

test('importing src/llm loads no SDK until an adapter needs it', () => {
  const code = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(spec, ctx, next) { seen.push(spec); return next(spec, ctx); } });
    const isSdk = (s) => s === 'openai' || s.startsWith('openai/') || s.startsWith('@anthropic-ai/sdk');
    const llm = await import(${JSON.stringify(url('../../src/llm/index.ts'))});
    llm.resolveRuntime({ env: { OPENROUTER_API_KEY: 'sk-or-v1-abcd' } });
    const before = seen.filter(isSdk);
    await (await import(${JSON.stringify(url('../../src/llm/openai-chat.ts'))})).loadOpenAI();
    await (await import(${JSON.stringify(url('../../src/llm/anthropic.ts'))})).loadAnthropic();
    const afterLoad = seen.filter(isSdk);
    process.stdout.write(JSON.stringify({ before, afterLoad }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
  assert.deepEqual(out.before, []);
  assert.ok(out.afterLoad.includes('openai') && out.afterLoad.includes('@anthropic-ai/sdk'), 'the hook does see the lazy imports');
});
