// The welcome banner: version, model and provider, tools and toolsets, skills, where commands run.

import { sandboxReport } from '../../sandbox/report.ts';
import type { Skin } from '../../state/skins.ts';
import { homedir } from 'node:os';
import { sep } from 'node:path';
import pkg from '../../../package.json' with { type: 'json' };
import type { Session } from '../../session/session.ts';
import { expandHome, paths } from '../../state/paths.ts';
import { countSkills } from '../../state/skills.ts';
import type { Style } from './style.ts';
import { t } from '../../i18n/index.ts';

function toolsLines(count: number, toolsets: string[], label: string, s: Style, width: number): string[] {
  if (!toolsets.length) return [`  ${label} ${count} ${s.dim('(none)')}`];
  const head = `  tools    ${count} (`;
  const wrapped = wrapList(toolsets, head.length, width - 1, head.length);
  return wrapped.map((l, i) => (i === 0 ? `  ${label} ${count} ${s.dim(`(${l}${wrapped.length === 1 ? ')' : ''}`)}` : s.dim(`${' '.repeat(head.length)}${l}${i === wrapped.length - 1 ? ')' : ''}`)));
}

const tilde = (p: string) => {
  const h = homedir();
  return h && (p === h || p.startsWith(h + sep)) ? `~${p.slice(h.length)}` : p;
};

/** Joins items with ', ' into lines of at most `width` columns, continuation lines indented. */
export function wrapList(items: string[], first: number, width: number, indent: number): string[] {
  const lines: string[] = [];
  let cur = '';
  let room = Math.max(20, width - first);
  for (const item of items) {
    const piece = cur ? `, ${item}` : item;
    if (cur && cur.length + piece.length + 1 > room) {
      lines.push(`${cur},`);
      cur = item;
      room = Math.max(20, width - indent);
    } else cur += piece;
  }
  if (cur) lines.push(cur);
  return lines;
}

export function banner(session: Session, style: Style, width = 100, skin?: Skin): string[] {
  const s = style;
  const rt = session.runtime;
  const cfg = session.settings.config;
  const toolsets = [...new Set(session.tools.map((t) => t.toolset))].sort();
  const ext = Array.isArray(cfg.skills?.external_dirs) ? cfg.skills.external_dirs.map((d) => expandHome(String(d))) : [];
  const skills = countSkills([paths.skills(session.info.home), ...ext]);
  const label = (t: string) => s.dim(t.padEnd(8));
  const lines = [
    `${s.gold('⚕')} ${s.bold(skin && skin.name !== 'default' ? s.rgb(skin.colors.banner_title, skin.branding.agent_name ?? 'Hermes Agent') : 'Hermes Agent')} ${s.dim(`v${pkg.version}`)}`,
    `  ${label('model')} ${s.bold(rt.model)} ${s.dim(`via ${rt.provider}`)}`,
    ...toolsLines(session.tools.length, toolsets, label('tools'), s, width),
    `  ${label('skills')} ${skills} installed`,
    `  ${label('cwd')} ${tilde(session.info.cwd)} ${s.dim(`· terminal: ${cfg.terminal?.backend ?? 'local'}`)}`,
  ];
  if (session.runnerKind === 'codex_app_server') lines.push(`  ${label('runtime')} ${s.bold('codex app-server')} ${s.dim('(shell, file edits and MCP tools run inside codex)')}`);
  const sb = sandboxReport(cfg, session.services.env, session.info.home);
  if (sb.state === 'none') lines.push(`  ${s.yellow(`\u26a0 Sandbox ${sb.line}.`)} ${s.dim(`To fix: ${sb.hint}`)}`);
  else if (sb.state === 'off') lines.push(`  ${s.yellow(`\u26a0 Sandbox ${sb.line}`)}`);
  if (session.services.yolo) lines.push(`  ${s.yellow('⚠ YOLO: dangerous commands run without asking (hardline blocks still apply)')}`);
  const hints = ['help', 'tab', 'newline', 'interrupt', 'quit'].map((k) => t(`cli.hint_${k}`));
  let line = '';
  for (const h of hints) {
    if (line && line.length + 3 + h.length > width - 1) {
      lines.push(s.dim(`  ${line}`));
      line = h;
    } else line = line ? `${line} · ${h}` : h;
  }
  lines.push(s.dim(`  ${line}`), '');
  return lines;
}
