// Scans text that will reach the model's prompt (memory entries, project context files, skills) for
// prompt injection, secret exfiltration, backdoors, destructive commands and invisible Unicode.
// Pure: returns findings; callers decide (refuse a write, replace a file with a [BLOCKED: …] marker).

export type ThreatCategory =
  | 'prompt_injection'
  | 'exfiltration'
  | 'secret_access'
  | 'backdoor'
  | 'invisible_unicode'
  | 'destructive'
  | 'supply_chain'
  | 'obfuscation'
  | 'env_access';

export interface ThreatFinding {
  id: string;
  category: ThreatCategory;
  /** dangerous: never allowed; caution: allowed only when a person insists (skills --force). */
  severity: 'dangerous' | 'caution';
  /** The matching text (shortened). */
  match: string;
  line?: number;
}

interface Pattern {
  id: string;
  category: ThreatCategory;
  severity: 'dangerous' | 'caution';
  re: RegExp;
}

/** Text beyond this many characters is not scanned; callers refuse it instead. */
export const MAX_SCAN_CHARS = 100_000;

const INJECTION: Pattern[] = [
  {
    id: 'ignore_previous_instructions',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /\b(ignore|disregard|forget|override|bypass)\s+(all\s+|any\s+|every\s+|the\s+|your\s+|these\s+)*(previous|prior|above|earlier|preceding|existing|original|system)\s+(instructions?|prompts?|rules|directives|guidelines|messages|context)/i,
  },
  {
    id: 'forget_everything',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /\bforget\s+(everything|all)\s+(you\s+(know|were\s+told)|above|before)/i,
  },
  {
    id: 'role_hijack',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /\byou\s+are\s+(now|no\s+longer)\s+(in\s+)?(an?\s+)?(unrestricted|unfiltered|jailbroken|developer\s+mode|DAN\b|evil|without\s+(any\s+)?restrictions)/i,
  },
  {
    id: 'new_system_prompt',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /(\bnew\s+system\s+(prompt|instructions?)\s*:|\bsystem\s+prompt\s+override\b|<\|im_start\|>\s*system|\[\s*system\s*\]\s*:?\s*(you|ignore|new))/i,
  },
  {
    id: 'conceal_from_user',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /\b(do\s+not|don'?t|never)\s+(tell|inform|reveal\s+to|mention\s+(this\s+)?to|let)\s+the\s+user\b/i,
  },
  {
    id: 'hidden_html_instruction',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /<!--[^>]{0,2000}?\b(ignore|instructions?|system\s+prompt|secret|password|api[_ ]?key|exfiltrate|curl|wget|execute|run\s+this)\b[^>]{0,2000}?-->/i,
  },
  {
    id: 'translate_and_execute',
    category: 'prompt_injection',
    severity: 'dangerous',
    re: /\b(decode|translate|decipher)\b[^\n]{0,80}\b(and|then)\s+(execute|run|follow|obey)\b/i,
  },
];

const EXFIL: Pattern[] = [
  {
    id: 'send_secrets',
    category: 'exfiltration',
    severity: 'dangerous',
    re: /\b(send|post|upload|forward|email|exfiltrate|leak|transmit)\b[^\n]{0,60}\b(api[_ -]?keys?|tokens?|passwords?|credentials|secrets?|private\s+keys?|\.env|ssh\s+keys?)\b[^\n]{0,60}\b(to|at|via)\b/i,
  },
  {
    id: 'curl_with_secrets',
    category: 'exfiltration',
    severity: 'dangerous',
    re: /\b(curl|wget|nc|ncat|http(ie)?)\b[^\n]{0,200}(\$\{?[A-Z_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)[A-Z_]*\}?|@?~?\/?\.ssh\/|\.env\b|\.netrc|\/etc\/passwd|\/etc\/shadow|--post-file|-d\s+@|--data(-binary)?\s+@|-T\s+\S)/i,
  },
  {
    id: 'pipe_secrets_to_network',
    category: 'exfiltration',
    severity: 'dangerous',
    re: /(cat|base64|tar|zip|gpg)\s+[^\n|]{0,120}(\.ssh|\.env|\.netrc|\.aws|credentials|id_rsa|id_ed25519|auth\.json)[^\n|]{0,60}\|\s*(curl|wget|nc|ncat|socat|openssl\s+s_client)\b/i,
  },
  {
    id: 'dns_exfil',
    category: 'exfiltration',
    severity: 'dangerous',
    re: /\b(dig|nslookup|host)\s+[^\n]{0,40}\$\(\s*(cat|env|printenv|echo\s+\$)/i,
  },
];

const SECRETS: Pattern[] = [
  {
    id: 'read_secret_files',
    category: 'secret_access',
    severity: 'dangerous',
    re: /\b(cat|less|more|head|tail|cp|scp|type|read)\s+[^\n;|&]{0,40}(~\/\.ssh\/id_[a-z0-9]+\b|\.ssh\/id_(rsa|ed25519|ecdsa)|~\/\.aws\/credentials|~\/\.netrc|\/etc\/shadow|\.hermes\/\.env|\.hermes\/auth\.json)/i,
  },
  { id: 'dump_environment', category: 'secret_access', severity: 'caution', re: /\b(printenv|env)\s*(\||>)\s*\S/ },
];

const BACKDOOR: Pattern[] = [
  {
    id: 'ssh_authorized_keys',
    category: 'backdoor',
    severity: 'dangerous',
    re: /(>>?\s*~?\/?[^\s]*\.ssh\/authorized_keys|authorized_keys[^\n]{0,40}(ssh-(rsa|ed25519)|ecdsa-sha2)|echo\s+['"]?ssh-(rsa|ed25519)\s+AAAA)/i,
  },
  { id: 'reverse_shell', category: 'backdoor', severity: 'dangerous', re: /(bash\s+-i\s+>&\s*\/dev\/tcp\/|nc\s+(-e|-c)\s+\/bin\/(ba)?sh|\/dev\/tcp\/\d{1,3}(\.\d{1,3}){3}\/\d+|socat\s+[^\n]*exec:\/bin\/(ba)?sh)/i },
  { id: 'crontab_persistence', category: 'backdoor', severity: 'caution', re: /\(crontab\s+-l[^\n]*\)\s*\|\s*crontab\s+-|>>\s*\/etc\/cron/i },
];

const DESTRUCTIVE: Pattern[] = [
  { id: 'rm_root', category: 'destructive', severity: 'dangerous', re: /\brm\s+(-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|--recursive\s+--force|--force\s+--recursive)\s+(--no-preserve-root\s+)?(\/|~|\$HOME|\/\*)(\s|$|;)/i },
  { id: 'disk_wipe', category: 'destructive', severity: 'dangerous', re: /\b(mkfs(\.\w+)?\s+\/dev\/|dd\s+[^\n]*of=\/dev\/(sd|nvme|hd|disk)|shred\s+[^\n]*\/dev\/)/i },
  { id: 'fork_bomb', category: 'destructive', severity: 'dangerous', re: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/ },
  { id: 'chmod_root', category: 'destructive', severity: 'caution', re: /\bchmod\s+-R\s+0?777\s+\/(\s|$)/ },
];

const SUPPLY: Pattern[] = [
  { id: 'curl_pipe_shell', category: 'supply_chain', severity: 'caution', re: /\b(curl|wget)\b[^\n|]{0,200}\|\s*(sudo\s+)?(ba|z|da)?sh\b/i },
  { id: 'install_from_url', category: 'supply_chain', severity: 'caution', re: /\b(pip3?|npm|pnpm|yarn)\s+(install|add|i)\s+[^\n]*(git\+https?:|https?:\/\/)/i },
];

const OBFUSCATION: Pattern[] = [
  { id: 'eval_decoded', category: 'obfuscation', severity: 'caution', re: /\b(eval|exec)\s*\(\s*[^\n)]{0,40}(b64decode|base64|atob|fromCharCode|decode\()/i },
  { id: 'base64_to_shell', category: 'obfuscation', severity: 'dangerous', re: /base64\s+(-d|--decode)[^\n|]{0,80}\|\s*(ba|z)?sh\b/i },
];

const ENV: Pattern[] = [
  { id: 'env_secret_read', category: 'env_access', severity: 'caution', re: /(os\.environ|process\.env|getenv)\s*[[.(]\s*['"]?[A-Z_]*(API_KEY|TOKEN|SECRET|PASSWORD)[A-Z_]*/ },
];

export type ScanScope = 'memory' | 'context' | 'skill';

const SCOPES: Record<ScanScope, Pattern[]> = {
  memory: [...INJECTION, ...EXFIL, ...SECRETS, ...BACKDOOR],
  context: [...INJECTION, ...EXFIL, ...SECRETS.filter((p) => p.severity === 'dangerous'), ...BACKDOOR.filter((p) => p.severity === 'dangerous')],
  skill: [...INJECTION, ...EXFIL, ...SECRETS, ...BACKDOOR, ...DESTRUCTIVE, ...SUPPLY, ...OBFUSCATION, ...ENV],
};

// Zero-width characters, bidirectional overrides/isolates, and Unicode tag characters.
const INVISIBLE = /[\u200b-\u200f\u2060-\u2064\u202a-\u202e\u2066-\u2069\u00ad\u180e]|\ufeff|[\u{e0000}-\u{e007f}]/gu;

export function invisibleChars(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(INVISIBLE)) {
    // A byte-order mark at the very start of a file is harmless.
    if (m[0] === '\ufeff' && m.index === 0) continue;
    found.add(`U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return [...found];
}

function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** All findings in `text` for a scope. */
export function scanForThreats(text: string, scope: ScanScope = 'memory'): ThreatFinding[] {
  const body = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  const findings: ThreatFinding[] = [];
  for (const p of SCOPES[scope]) {
    const m = p.re.exec(body);
    if (m) findings.push({ id: p.id, category: p.category, severity: p.severity, match: m[0].slice(0, 120), line: lineAt(body, m.index) });
  }
  const inv = invisibleChars(body);
  if (inv.length)
    findings.push({ id: 'invisible_unicode', category: 'invisible_unicode', severity: 'dangerous', match: inv.join(', '), line: undefined });
  return findings;
}

/** One sentence for a refused write, or null when the text is clean. */
export function firstThreatMessage(text: string, scope: ScanScope = 'memory'): string | null {
  if (text.length > MAX_SCAN_CHARS) return `Content is too large to scan (${text.length.toLocaleString('en-US')} characters).`;
  const f = scanForThreats(text, scope);
  if (!f.length) return null;
  const what = f.map((x) => (x.category === 'invisible_unicode' ? `invisible Unicode characters (${x.match})` : `${x.category.replace(/_/g, ' ')} (${x.id})`));
  return `Blocked: the content looks like ${what.join('; ')}. Content that reaches the system prompt must not carry instructions to the model, secrets or hidden characters. Rephrase it as a plain fact.`;
}

export type Verdict = 'safe' | 'caution' | 'dangerous';

export function verdictOf(findings: ThreatFinding[]): Verdict {
  if (findings.some((f) => f.severity === 'dangerous')) return 'dangerous';
  if (findings.length) return 'caution';
  return 'safe';
}
