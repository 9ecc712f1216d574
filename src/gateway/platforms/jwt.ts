// RS256 JWT verification against a JWKS (Bot Framework's inbound activities, Google Chat's event
// tokens): keys come from an OpenID metadata document's `jwks_uri` (or a JWKS / x509-cert URL) and
// are cached for an hour, refetched once when a token names an unknown key.
import { createPublicKey, verify as verifySig, type KeyObject, X509Certificate } from 'node:crypto';

export interface JwtClaims {
  iss?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  [k: string]: unknown;
}

interface CachedKey {
  key: KeyObject;
  endorsements?: string[];
}

const b64url = (s: string) => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');

export class JwksVerifier {
  private keys = new Map<string, CachedKey>();
  private fetchedAt = 0;
  private readonly source: { metadataUrl?: string; jwksUrl?: string; x509Url?: string };
  private readonly fetchFn: typeof fetch;

  constructor(source: { metadataUrl?: string; jwksUrl?: string; x509Url?: string }, fetchFn: typeof fetch = fetch) {
    this.source = source;
    this.fetchFn = fetchFn;
  }

  private async load(): Promise<void> {
    const get = async (url: string) => {
      const r = await this.fetchFn(url, { signal: AbortSignal.timeout(15_000) });
      if (!r.ok) throw new Error(`key download ${url}: HTTP ${r.status}`);
      return r.json() as Promise<Record<string, unknown>>;
    };
    const keys = new Map<string, CachedKey>();
    if (this.source.x509Url) {
      // Google's service-account certificates: { kid: PEM }
      for (const [kid, pem] of Object.entries(await get(this.source.x509Url))) keys.set(kid, { key: new X509Certificate(String(pem)).publicKey });
    } else {
      let jwks = this.source.jwksUrl;
      if (!jwks && this.source.metadataUrl) jwks = String((await get(this.source.metadataUrl)).jwks_uri ?? '');
      if (!jwks) throw new Error('no jwks_uri in the OpenID metadata');
      const body = (await get(jwks)) as { keys?: (Record<string, unknown> & { kid?: string; endorsements?: string[] })[] };
      for (const k of body.keys ?? []) {
        if (!k.kid || k.kty !== 'RSA') continue;
        keys.set(k.kid, { key: createPublicKey({ key: k as never, format: 'jwk' }), endorsements: Array.isArray(k.endorsements) ? k.endorsements : undefined });
      }
    }
    this.keys = keys;
    this.fetchedAt = Date.now();
  }

  /** Verifies the signature and the standard claims; returns the claims and the key's endorsements. */
  async verify(token: string, o: { issuers: string[]; audiences: string[]; skewSec?: number }): Promise<{ claims: JwtClaims; endorsements?: string[] }> {
    const parts = token.split('.');
    if (parts.length !== 3) throw new Error('not a JWT');
    let header: { alg?: string; kid?: string };
    let claims: JwtClaims;
    try {
      header = JSON.parse(b64url(parts[0]).toString('utf8'));
      claims = JSON.parse(b64url(parts[1]).toString('utf8'));
    } catch {
      throw new Error('malformed JWT');
    }
    if (header.alg !== 'RS256') throw new Error(`unexpected JWT algorithm ${header.alg}`);
    if (!header.kid) throw new Error('JWT without a key id');
    if (!this.keys.size || Date.now() - this.fetchedAt > 3600_000) await this.load();
    let k = this.keys.get(header.kid);
    if (!k && Date.now() - this.fetchedAt > 60_000) {
      await this.load();
      k = this.keys.get(header.kid);
    }
    if (!k) throw new Error('JWT signed by an unknown key');
    if (!verifySig('RSA-SHA256', Buffer.from(`${parts[0]}.${parts[1]}`), k.key, b64url(parts[2]))) throw new Error('bad JWT signature');
    const now = Date.now() / 1000;
    const skew = o.skewSec ?? 300;
    if (typeof claims.exp !== 'number' || claims.exp < now - skew) throw new Error('JWT expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now + skew) throw new Error('JWT not yet valid');
    if (!claims.iss || !o.issuers.includes(claims.iss)) throw new Error(`JWT issuer ${claims.iss} not accepted`);
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.some((a) => typeof a === 'string' && o.audiences.includes(a))) throw new Error('JWT audience does not match');
    return { claims, endorsements: k.endorsements };
  }
}
