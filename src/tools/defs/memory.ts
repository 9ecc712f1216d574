import { MemoryStore, type MemoryTarget } from '../../state/memory.ts';
import { paths } from '../../state/paths.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import type { ToolSession } from '../types.ts';

/** The session's memory store (through the manager when the session has one). */
export function memoryStoreFor(s: ToolSession): MemoryStore {
  if (s.memory) return s.memory.builtin.store;
  const m = s.config.memory ?? {};
  return new MemoryStore(paths.memories(s.home), { memory: m.memory_char_limit, user: m.user_char_limit });
}

function targetEnabled(s: ToolSession, target: MemoryTarget): boolean {
  if (s.memory) return s.memory.builtin.targetEnabled(target);
  const m = s.config.memory ?? {};
  return target === 'user' ? m.user_profile_enabled !== false : m.memory_enabled !== false;
}

export default defineTool({
  name: 'memory',
  toolset: 'memory',
  emoji: '💾',
  description:
    'Save lasting facts for every future session: target "user" (who they are, preferences) or "memory" (your notes). add, replace or remove (old_text: a unique piece of the entry); operations: several, all or none.',
  schema: (z) =>
    z.object({
    action: z.enum(['add', 'replace', 'remove']).optional(),
    target: z.enum(['memory', 'user']).default('memory'),
    content: z.string().optional(),
    old_text: z.string().optional(),
    operations: z
      .array(z.object({ action: z.enum(['add', 'replace', 'remove']), content: z.string().optional(), old_text: z.string().optional() }))
      .optional()
      .describe('Several changes at once'),
  }),
  check: (s) => targetEnabled(s, 'memory') || targetEnabled(s, 'user'),
  requirement: 'memory is off: memory.memory_enabled and memory.user_profile_enabled are both false in config.yaml',
  handler(a, ctx) {
    const s = ctx;
    if (!targetEnabled(s, a.target)) return fail(`The ${a.target === 'user' ? 'user profile' : 'memory'} store is turned off in config.yaml (memory.${a.target === 'user' ? 'user_profile_enabled' : 'memory_enabled'}).`);
    const store = memoryStoreFor(s);
    if (a.operations?.length) {
      const r = store.applyBatch(a.target, a.operations);
      if (!r.success) return { content: JSON.stringify(r), isError: true };
      for (const op of a.operations) s.memory?.onMemoryWrite(op.action, a.target, op.content ?? op.old_text ?? '');
      return { content: ok(r), display: { kind: 'memory', action: 'batch', target: a.target, message: r.message } };
    }
    if (!a.action) return fail('Give `action` (add, replace or remove) with content/old_text, or a list of `operations`.');
    let r;
    if (a.action === 'add') r = store.add(a.target, a.content ?? '');
    else if (a.action === 'replace') r = store.replace(a.target, a.old_text ?? '', a.content ?? '');
    else r = store.remove(a.target, a.old_text ?? '');
    if (!r.success) return { content: JSON.stringify(r), isError: true };
    s.memory?.onMemoryWrite(a.action, a.target, a.content ?? a.old_text ?? '');
    return { content: ok(r), display: { kind: 'memory', action: a.action, target: a.target, message: r.message } };
  },
});
