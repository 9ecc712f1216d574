// OAuth state of one MCP server on disk, in Python Hermes's layout (tools/mcp_oauth.py):
// HERMES_HOME/mcp-tokens/<server>.json (tokens: the token response plus `expires_at`, absolute epoch
// seconds, and `hermes_issuer`, the authorization server that granted them), `<server>.client.json`
// (the client registration) and `<server>.meta.json` (authorization server metadata). Files are
// written 0600 in a 0700 directory; nothing here logs a token.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

type Obj = Record<string, unknown>;

/** Hermes's file name for a server: anything outside [A-Za-z0-9_-] becomes `_`. */
export function tokenFileStem(server: string): string {
  return server.replace(/[^\w-]/g, '_').replace(/^_+|_+$/g, '').slice(0, 128) || 'default';
}

export const tokenDir = (home: string): string => join(home, 'mcp-tokens');

function readJson(path: string): Obj | null {
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null;
  } catch {
    return null; // a corrupt file counts as absent (never echoed: it holds tokens)
  }
}

function writeJson(path: string, data: Obj): void {
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    /* not ours to tighten */
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export class McpTokenStore {
  readonly server: string;
  private readonly stem: string;
  private readonly dir: string;

  constructor(home: string, server: string) {
    this.server = server;
    this.stem = tokenFileStem(server);
    this.dir = tokenDir(home);
  }

  get tokensPath(): string {
    return join(this.dir, `${this.stem}.json`);
  }
  get clientPath(): string {
    return join(this.dir, `${this.stem}.client.json`);
  }
  get metaPath(): string {
    return join(this.dir, `${this.stem}.meta.json`);
  }

  /** The stored tokens with `expires_in` counted from now and `issuer` from `hermes_issuer`. */
  tokens(): (OAuthTokens & { expires_at?: number }) | undefined {
    const d = readJson(this.tokensPath);
    if (!d || typeof d.access_token !== 'string') return undefined;
    const out: Obj = { ...d };
    const issuer = d.hermes_issuer ?? d.issuer;
    delete out.hermes_issuer;
    delete out.issuer;
    if (typeof issuer === 'string' && issuer) out.issuer = issuer;
    if (typeof d.expires_at === 'number') out.expires_in = Math.max(0, Math.floor(d.expires_at - Date.now() / 1000));
    return out as OAuthTokens & { expires_at?: number };
  }

  saveTokens(tokens: OAuthTokens): void {
    const data: Obj = { ...tokens };
    delete data.issuer;
    if (typeof tokens.expires_in === 'number') data.expires_at = Date.now() / 1000 + tokens.expires_in;
    if (tokens.issuer) data.hermes_issuer = tokens.issuer;
    if (!tokens.refresh_token) {
      // A refresh that returns no new refresh token keeps the old one (RFC 6749 §6), when it came
      // from the same authorization server.
      const old = readJson(this.tokensPath);
      if (old && typeof old.refresh_token === 'string' && (old.hermes_issuer ?? null) === (tokens.issuer ?? null)) data.refresh_token = old.refresh_token;
    }
    writeJson(this.tokensPath, data);
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const d = readJson(this.clientPath);
    if (!d || typeof d.client_id !== 'string') return undefined;
    const out: Obj = { ...d };
    const issuer = d.hermes_issuer ?? d.issuer;
    delete out.hermes_issuer;
    delete out.issuer;
    if (typeof issuer === 'string' && issuer) out.issuer = issuer;
    // Hermes: a secret without a method means client_secret_post (some registrations omit it).
    if (out.client_secret && (!out.token_endpoint_auth_method || out.token_endpoint_auth_method === 'none')) out.token_endpoint_auth_method = 'client_secret_post';
    return out as unknown as OAuthClientInformationMixed;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    const data: Obj = { ...(info as Obj) };
    const issuer = data.issuer;
    delete data.issuer;
    if (typeof issuer === 'string' && issuer) data.hermes_issuer = issuer;
    writeJson(this.clientPath, data);
  }

  saveMetadata(meta: Obj): void {
    writeJson(this.metaPath, meta);
  }

  clearTokens(): void {
    rmSync(this.tokensPath, { force: true });
  }

  clearClient(): void {
    rmSync(this.clientPath, { force: true });
    rmSync(this.metaPath, { force: true });
  }

  /** Whether anything is stored for the server (tokens or a registration). */
  has(): boolean {
    return existsSync(this.tokensPath) || existsSync(this.clientPath);
  }

  /** Deletes everything stored for the server (`hermes mcp logout`). Returns whether anything was there. */
  remove(): boolean {
    const had = this.has() || existsSync(this.metaPath);
    for (const p of [this.tokensPath, this.clientPath, this.metaPath, join(this.dir, `${this.stem}.cimd-off`)]) rmSync(p, { force: true });
    return had;
  }
}
