// patch: targeted edits. `replace` mode: find-and-replace with fuzzy matching in one file.
// `patch` mode: a V4A multi-file patch (update/add/delete/move), applied all-or-nothing.
// The implementation (impl/patch.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) =>
  z.object({
  mode: z.enum(['replace', 'patch']).optional(),
  path: z.string().optional(),
  old_string: z.string().optional(),
  new_string: z.string().optional(),
  replace_all: z.boolean().optional(),
  patch: z.string().optional(),
});

export type PatchArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'patch',
  toolset: 'file',
  emoji: '🩹',
  description:
    'Edit files. Default: replace old_string (unique, whitespace-tolerant) with new_string in path. mode "patch": a V4A patch over several files (*** Begin Patch ... *** End Patch), all or nothing. Returns a diff.',
  schema,
  paths: (a, s) => (a.mode === 'patch' ? null : a.path ? { read: [], write: [resolvePath(a.path, s.cwd)] } : null),
  async handler(a, ctx) {
    const { runPatch } = await import('../impl/patch.ts');
    return runPatch(a, ctx);
  },
});
