// Dangerous-command detection. Pure: returns a decision as data.

export type CommandVerdict =
  | { action: 'allow' }
  | { action: 'ask'; description: string; key: string }
  | { action: 'block'; description: string };

/** Never allowed, even with --yolo. */
const HARDLINE: [RegExp, string][] = [
  [/\brm\s+(-[a-z]*r[a-z]*f?|-[a-z]*f[a-z]*r|--recursive)\b[^;&|]*\s\/(\s|\*|$)/i, 'recursive delete of the root filesystem'],
  [/--no-preserve-root/, 'rm --no-preserve-root'],
  [/:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, 'fork bomb'],
  [/\bmkfs(\.\w+)?\s+\/dev\//, 'formatting a block device'],
  [/\bdd\b[^;&|]*\bof=\/dev\/(sd|nvme|hd|vd|xvd|mmcblk)/, 'overwriting a block device with dd'],
];

const DANGEROUS: [RegExp, string][] = [
  [/\brm\s+(-[a-z]*r|--recursive)/i, 'recursive delete'],
  [/\bchmod\s+(-R\s+)?(0?777|0?666|[ao]\+w)\b/, 'world-writable permissions'],
  [/\bchown\s+-R\s+root\b/, 'recursive chown to root'],
  [/\bmkfs\b/, 'filesystem format'],
  [/\bdd\s+if=/, 'raw disk copy (dd)'],
  [/>\s*\/dev\/sd/, 'write to a block device'],
  [/\b(DROP\s+(TABLE|DATABASE)|TRUNCATE\s+TABLE)\b/i, 'SQL drop/truncate'],
  [/\bDELETE\s+FROM\s+\w+\s*(;|$)/i, 'SQL delete without WHERE'],
  [/(>|\btee\b|\bcp\b|\bmv\b|sed\s+-i)[^;&|]*\s\/etc\//, 'overwriting a file in /etc'],
  [/\bsystemctl\s+(stop|restart|disable|mask)\b/, 'stopping a system service'],
  [/\bkill\s+-9\s+-1\b|\bpkill\s+-9\b/, 'killing all processes'],
  [/\b(curl|wget)\b[^|]*\|\s*(ba|z|k)?sh\b/, 'piping a download into a shell'],
  [/\b(ba|z|k)?sh\s+-[a-z]*c\b/, 'running a shell string (sh -c)'],
  [/\bxargs\b[^;&|]*\brm\b/, 'xargs rm'],
  [/\bfind\b[^;&|]*(-delete|-exec\s+rm)\b/, 'find -delete / -exec rm'],
];

export function classifyCommand(command: string): CommandVerdict {
  const normalized = command.replace(/(["'])\1/g, '').replace(/\s+/g, ' ');
  for (const [re, description] of HARDLINE) if (re.test(normalized)) return { action: 'block', description };
  for (const [re, description] of DANGEROUS) if (re.test(normalized)) return { action: 'ask', description, key: description };
  return { action: 'allow' };
}
