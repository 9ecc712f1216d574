// patch: targeted edits. `replace` mode: find-and-replace with fuzzy matching in one file.
// `patch` mode: a V4A multi-file patch (update/add/delete/move), applied all-or-nothing.
// The implementation (impl/patch.ts) loads on the first call.
import type { z } from 'zod';
import type { Zod } from './zod.ts';
import { resolvePath } from './read-file.ts';
import { defineTool } from './registry.ts';

const schema = (z: Zod) =>
  z.object({
  mode: z.enum(['replace', 'patch']).optional().describe('replace (default) or patch'),
  path: z.string().optional().describe('replace mode: the file to edit'),
  old_string: z.string().optional().describe('replace mode: the text to find (include enough context to be unique)'),
  new_string: z.string().optional().describe('replace mode: the replacement text'),
  replace_all: z.boolean().optional().describe('replace mode: replace every match (default false)'),
  patch: z.string().optional().describe('patch mode: the V4A patch text'),
});

export type PatchArgs = z.infer<ReturnType<typeof schema>>;

export default defineTool({
  name: 'patch',
  toolset: 'file',
  emoji: '🩹',
  description:
    'Edit files. mode "replace" (default): replace old_string with new_string in one file; old_string must match once ' +
    '(set replace_all to change every match). Matching tolerates whitespace and indentation differences, and the replacement ' +
    'is re-indented to the file. mode "patch": apply a V4A patch across files (*** Begin Patch / *** Update File: / *** Add File: / ' +
    '*** Delete File: / *** Move File: a -> b / *** End Patch; hunks use " " context, "-" removed and "+" added lines, optionally ' +
    'after an "@@ anchor" line). A patch applies completely or not at all. Returns a unified diff.',
  schema,
  paths: (a, s) => (a.mode === 'patch' ? null : a.path ? { read: [], write: [resolvePath(a.path, s.cwd)] } : null),
  async handler(a, ctx) {
    const { runPatch } = await import('./impl/patch.ts');
    return runPatch(a, ctx);
  },
});
