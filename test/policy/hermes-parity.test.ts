// Parity with Python Hermes's approval decisions on the commands its own tests use
// (test/policy/hermes-corpus.ts): everything Hermes asks about is asked about (or blocked) here,
// everything it blocks is blocked, and what it lets run without asking runs here too.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { describe, it } from 'node:test';
import { classifyCommand } from '../../src/policy/dangerous.ts';
import { ALLOW, ASK, BLOCK, NOT_BLOCKED, STRICTER } from './hermes-corpus.ts';

// The real home, and a HERMES_HOME elsewhere (a profile outside ~/.hermes), as Hermes resolves them.
const HOME = homedir();
const HH = '/tmp/hermes-parity-home';
const fill = (c: string) => c.replaceAll('<HOME>', HOME).replaceAll('<HH>', HH);
const verdict = (c: string) => classifyCommand(fill(c), { home: HOME, hermesHome: HH });

describe('parity with Python Hermes (its own test commands)', () => {
  it(`asks about (or blocks) all ${ASK.length} commands Hermes asks about`, () => {
    assert.deepEqual(ASK.filter((c) => verdict(c).action === 'allow'), []);
  });

  it(`blocks all ${BLOCK.length} commands Hermes never runs`, () => {
    assert.deepEqual(
      BLOCK.filter((c) => verdict(c).action !== 'block').map((c) => `${JSON.stringify(c)} → ${verdict(c).action}`),
      [],
    );
  });

  it(`does not block the ${NOT_BLOCKED.length} look-alikes Hermes does not block (stricter only where listed)`, () => {
    assert.deepEqual(NOT_BLOCKED.filter((c) => verdict(c).action === 'block' && !(c in STRICTER)), []);
  });

  it('keeps every STRICTER entry stricter than Hermes (a stale entry fails)', () => {
    for (const c of Object.keys(STRICTER)) assert.ok([...ALLOW, ...NOT_BLOCKED].includes(c), `${c} is in neither ALLOW nor NOT_BLOCKED`);
    assert.deepEqual(
      Object.keys(STRICTER).filter((c) => (ALLOW.includes(c) ? verdict(c).action === 'allow' : verdict(c).action !== 'block')),
      [],
    );
  });

  it(`runs ${ALLOW.length} commands Hermes runs without asking (stricter only where listed)`, () => {
    const flagged = ALLOW.filter((c) => verdict(c).action !== 'allow' && !(c in STRICTER));
    assert.deepEqual(
      flagged.map((c) => {
        const v = verdict(c);
        return `${JSON.stringify(c)} → ${v.action === 'allow' ? '' : v.description}`;
      }),
      [],
    );
  });
});
