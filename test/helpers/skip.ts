// Suites that need something the machine may lack (sshd, a Docker engine, tmux, an old Node…).
// `describe(name, { skip })` hides a suite's tests from the summary: node:test reports "skipped 0"
// and the tests are simply not counted. A gated suite registers every test instead, each skipped
// with the reason, so the summary's counts tell the truth; its hooks do not run.
//
//   const { describe, it, before, after } = gatedSuite(noSshd);   // null = run normally
import * as nt from 'node:test';

type TestFn = (t: nt.TestContext) => unknown;
type SuiteFn = (s: nt.SuiteContext) => unknown;
type HookFn = (...args: never[]) => unknown;

export interface GatedSuite {
  describe(name: string, fn: SuiteFn): void;
  describe(name: string, options: nt.TestOptions, fn: SuiteFn): void;
  it(name: string, fn: TestFn): void;
  it(name: string, options: nt.TestOptions, fn: TestFn): void;
  before(fn: HookFn): void;
  after(fn: HookFn): void;
  beforeEach(fn: HookFn): void;
  afterEach(fn: HookFn): void;
}

export function gatedSuite(reason: string | null | undefined): GatedSuite {
  if (!reason) {
    return {
      describe: nt.describe as GatedSuite['describe'],
      it: nt.it as GatedSuite['it'],
      before: nt.before as GatedSuite['before'],
      after: nt.after as GatedSuite['after'],
      beforeEach: nt.beforeEach as GatedSuite['beforeEach'],
      afterEach: nt.afterEach as GatedSuite['afterEach'],
    };
  }
  const noop = () => {};
  return {
    describe: ((name: string, a: nt.TestOptions | SuiteFn, b?: SuiteFn) => {
      const fn = typeof a === 'function' ? a : b!;
      nt.describe(name, (s) => {
        fn(s);
      });
    }) as GatedSuite['describe'],
    it: ((name: string) => {
      nt.it(name, { skip: reason }, noop);
    }) as GatedSuite['it'],
    before: noop,
    after: noop,
    beforeEach: noop,
    afterEach: noop,
  };
}
