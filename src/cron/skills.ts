// Finding a job's skills: HERMES_HOME/skills/[<category>/]<name>/SKILL.md. A small stand-in until
// the skills loader (src/state/skills.ts) is merged; then the runner's `loadSkill` switches to it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The SKILL.md text of the named skill, or null when there is none. */
export function loadSkillText(home: string, name: string): string | null {
  if (!NAME_RE.test(name)) return null;
  const root = join(home, 'skills');
  const direct = join(root, name, 'SKILL.md');
  if (existsSync(direct)) return readFileSync(direct, 'utf8');
  let categories: string[] = [];
  try {
    categories = readdirSync(root).filter((d) => !d.startsWith('.'));
  } catch {
    return null;
  }
  for (const c of categories) {
    const p = join(root, c, name, 'SKILL.md');
    try {
      if (statSync(p).isFile()) return readFileSync(p, 'utf8');
    } catch {
      /* not in this category */
    }
  }
  return null;
}
