// `hermes skills publish <path> --to github --repo owner/repo`, as Hermes does it: the skill is scanned
// by the skills guard (a dangerous verdict stops it), then proposed to the repository as a pull request
// through the GitHub REST API: fork the repository, branch `add-skill-<name>` off the default branch
// of the fork, upload each file under `skills/<name>/`, open the pull request against the original.
// The API base is `skills.hub.github_api` (GitHub Enterprise or a mirror), the token GITHUB_TOKEN.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SkillInstallError } from './skills-hub.ts';
import { GITHUB_API } from './skills-sources.ts';

export interface PublishOptions {
  dir: string;
  name: string;
  repo: string;
  token: string;
  api?: string;
  /** Progress lines. */
  say?: (line: string) => void;
}

function skillFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === '.DS_Store') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) files.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return files.sort();
}

/** Opens the pull request; returns its URL. Throws SkillInstallError with what failed. */
export async function publishToGithub(o: PublishOptions): Promise<string> {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(o.repo)) throw new SkillInstallError(`"${o.repo}" is not a GitHub repository (owner/name).`);
  const api = (o.api || GITHUB_API).replace(/\/+$/, '');
  const headers = { Accept: 'application/vnd.github+json', Authorization: `Bearer ${o.token}`, 'Content-Type': 'application/json', 'User-Agent': 'hermes-agent' };
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; text: string }> => {
    const res = await fetch(`${api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) }).catch((e: Error) => {
      throw new SkillInstallError(`Could not reach ${api} (${e.message}).`);
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      /* not JSON: keep the text for the message */
    }
    return { status: res.status, json, text };
  };
  const say = o.say ?? (() => {});
  const fork = await call('POST', `/repos/${o.repo}/forks`);
  if (fork.status === 403 || fork.status === 401) throw new SkillInstallError(`The GitHub token may not fork ${o.repo} (HTTP ${fork.status}). Use a token with the public_repo (or repo) scope.`);
  if (fork.status !== 200 && fork.status !== 202) throw new SkillInstallError(`Could not fork ${o.repo} (HTTP ${fork.status}).`);
  const forkRepo = String(fork.json.full_name ?? '');
  if (!forkRepo.includes('/')) throw new SkillInstallError(`GitHub did not say where the fork of ${o.repo} is.`);
  say(`Forked ${o.repo} → ${forkRepo}`);
  const meta = await call('GET', `/repos/${o.repo}`);
  const base = typeof meta.json.default_branch === 'string' ? meta.json.default_branch : 'main';
  const ref = await call('GET', `/repos/${forkRepo}/git/ref/heads/${encodeURIComponent(base)}`);
  const sha = (ref.json.object as { sha?: string } | undefined)?.sha;
  if (ref.status !== 200 || !sha) throw new SkillInstallError(`Could not read branch ${base} of ${forkRepo} (HTTP ${ref.status}).`);
  const branch = `add-skill-${o.name}`;
  const created = await call('POST', `/repos/${forkRepo}/git/refs`, { ref: `refs/heads/${branch}`, sha });
  if (created.status !== 201 && created.status !== 422) throw new SkillInstallError(`Could not create branch ${branch} on ${forkRepo} (HTTP ${created.status}).`);
  for (const rel of skillFiles(o.dir)) {
    const path = `skills/${o.name}/${rel}`;
    const existing = await call('GET', `/repos/${forkRepo}/contents/${path.split('/').map(encodeURIComponent).join('/')}?ref=${encodeURIComponent(branch)}`);
    const body: Record<string, unknown> = { message: `Add ${o.name} skill: ${rel}`, content: readFileSync(join(o.dir, ...rel.split('/'))).toString('base64'), branch };
    if (existing.status === 200 && typeof existing.json.sha === 'string') body.sha = existing.json.sha;
    const put = await call('PUT', `/repos/${forkRepo}/contents/${path.split('/').map(encodeURIComponent).join('/')}`, body);
    if (put.status !== 200 && put.status !== 201) throw new SkillInstallError(`Could not upload ${rel} (HTTP ${put.status}).`);
    say(`  uploaded ${path}`);
  }
  const pr = await call('POST', `/repos/${o.repo}/pulls`, {
    title: `Add skill: ${o.name}`,
    body: `Submitting the \`${o.name}\` skill via Hermes Skills Hub.\n\nThis skill was scanned by the Hermes Skills Guard before submission.`,
    head: `${forkRepo.split('/')[0]}:${branch}`,
    base,
  });
  if (pr.status !== 201) throw new SkillInstallError(`Could not open the pull request (HTTP ${pr.status}${pr.text ? `: ${pr.text.slice(0, 200)}` : ''}).`);
  return String(pr.json.html_url ?? '');
}
