// The skills browser (/skills without a filter): installed skills by category; typing filters names,
// descriptions and tags; the selected skill's details show below the list. Enter puts
// `/<skill> ` in the input to add an instruction and send it.

import { readFileSync } from 'node:fs';
import { discoverSkills, parseFrontmatter, skillOnPlatform, type Skill } from '../../state/skills.ts';
import { ListState, type PickItem } from './list.ts';

export class SkillsBrowser {
  readonly kind = 'skills';
  readonly title = 'Skills';
  readonly help = 'type to filter · ↑↓ move · Enter use the skill (/name in the input) · Esc close';
  readonly list = new ListState();
  error = '';
  private skills: Skill[] = [];
  private bodies = new Map<string, string[]>();

  constructor(home: string, externalDirs: string[]) {
    try {
      this.skills = discoverSkills(home, externalDirs).sort((a, b) => (a.category ?? 'general').localeCompare(b.category ?? 'general') || a.name.localeCompare(b.name));
    } catch (e) {
      this.error = `Could not read the skills: ${(e as Error).message}`;
    }
    if (!this.skills.length && !this.error) this.error = 'No skills installed. Install one with `hermes skills install <folder|git URL|SKILL.md URL>`.';
    this.refresh();
  }

  refresh(): void {
    const q = this.list.query.text.trim().toLowerCase();
    const items: PickItem[] = this.skills
      .filter((s) => !q || s.name.includes(q) || s.description.toLowerCase().includes(q) || s.tags.some((t) => t.toLowerCase().includes(q)) || (s.category ?? '').includes(q))
      .map((s) => ({ key: s.name, label: `/${s.name}`, hint: `${s.category ?? 'general'} · ${s.description}${skillOnPlatform(s, process.platform) ? '' : ' (not for this OS)'}` }));
    this.list.setItems(items);
  }

  get selected(): Skill | undefined {
    const key = this.list.current?.key;
    return key ? this.skills.find((s) => s.name === key) : undefined;
  }

  /** The selected skill's details (where it lives, what it needs) and its instructions (Markdown). */
  details(maxLines: number): { head: string[]; body: string[] } {
    const s = this.selected;
    if (!s) return { head: [], body: [] };
    const head = [`${s.name}${s.version ? ` ${s.version}` : ''} — ${s.description}`, `${s.path}`];
    if (s.tags.length) head.push(`tags: ${s.tags.join(', ')}`);
    if (s.requiredEnv.length) head.push(`needs: ${s.requiredEnv.map((e) => e.name).join(', ')}`);
    let body = this.bodies.get(s.name);
    if (!body) {
      try {
        body = parseFrontmatter(readFileSync(s.path, 'utf8')).body.split('\n').filter((l, i, a) => l.trim() || (i > 0 && a[i - 1].trim()));
      } catch {
        body = [];
      }
      this.bodies.set(s.name, body);
    }
    return { head, body: body.slice(0, Math.max(0, maxLines - head.length)) };
  }
}
