// A job's skills, found by the same loader the REPL and the skills tools use (HERMES_HOME/skills and
// `skills.external_dirs`), so a job names skills exactly as a person invokes them.
import { readFileSync } from 'node:fs';
import { discoverSkills, findSkill } from '../state/skills.ts';

/** The SKILL.md text of the named skill, or null when there is none. */
export function loadSkillText(home: string, name: string, externalDirs: string[] = []): string | null {
  const skill = findSkill(discoverSkills(home, externalDirs), name);
  if (!skill) return null;
  try {
    return readFileSync(skill.path, 'utf8');
  } catch {
    return null;
  }
}
