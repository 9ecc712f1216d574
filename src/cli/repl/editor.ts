// Ctrl+G: the input opens in $VISUAL / $EDITOR (vi by default) in a private temporary file; what the
// editor saves comes back as the input. Both interactive surfaces use it; each hands the terminal
// over its own way (`cooked`).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The edited text, or a one-line warning when the editor failed (the input then stays as it was). */
export async function editInEditor(text: string, cooked: <T>(fn: () => T) => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<{ text: string } | { warning: string }> {
  const editor = env.VISUAL || env.EDITOR || 'vi';
  const dir = mkdtempSync(join(tmpdir(), 'hermes-edit-'));
  const file = join(dir, 'prompt.md');
  writeFileSync(file, text, { mode: 0o600 });
  try {
    const r = await cooked(() => spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true }));
    if (r.status === 0) return { text: readFileSync(file, 'utf8').replace(/\n+$/, '') };
    return { warning: `⚠ The editor (${editor}) exited with status ${r.status}; the input is unchanged.` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
