// The environment a command, script or execute_code child gets: credentials removed by name (Hermes's
// names and the common shapes) and by value (a URL carrying a password), ordinary variables kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeExecEnv, filteredEnv, isSecretEnv } from '../../src/policy/secrets-env.ts';

const SECRET: Record<string, string> = {
  OPENAI_API_KEY: 'sk-x',
  GITHUB_TOKEN: 'ghp_x',
  AWS_SECRET_ACCESS_KEY: 'x',
  AWS_ACCESS_KEY_ID: 'AKIA',
  MINIO_SECRET_KEY: 'x',
  DJANGO_SECRET_KEY: 'x',
  STORAGE_ACCESS_KEY: 'x',
  GITHUB_APP_PRIVATE_KEY_PATH: '/k.pem',
  SSH_PRIVATE_KEY: '-----BEGIN',
  PRIVATE_KEY: 'x',
  GOOGLE_APPLICATION_CREDENTIALS: '/creds.json',
  AZURE_CREDENTIALS: '{}',
  DOCKER_CREDENTIAL: 'x',
  GH_PAT: 'x',
  GITLAB_PAT: 'x',
  MYSQL_PWD: 'x',
  PGPASSWORD: 'x',
  EMAIL_PASSWORD: 'x',
  SMTP_PASSWD: 'x',
  FAL_KEY: 'x',
  MODAL_TOKEN_ID: 'x',
  MODAL_TOKEN_SECRET: 'x',
  HASS_TOKEN: 'x',
  DATABASE_URL: 'postgres://app:s3cret@db:5432/app',
  REDIS_URL: 'redis://:onlypass@cache:6379/0',
  UPSTREAM: 'https://user:tok3n@git.example.com/repo.git',
};
const KEPT: Record<string, string> = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  PWD: '/home/me/project',
  OLDPWD: '/home/me',
  LANG: 'C.UTF-8',
  TERM: 'xterm',
  EDITOR: 'vim',
  KEYBOARD_LAYOUT: 'us',
  PUBLIC_URL: 'https://example.com/app',
  PROXY_URL: 'http://proxy:3128',
  GIT_AUTHOR_EMAIL: 'me@example.com',
  CLASSPATH: '/usr/share/java',
  SSH_AUTH_SOCK: '/run/user/1000/ssh',
};

describe('the child-process environment filter', () => {
  it('removes credentials by name and by value', () => {
    const out = filteredEnv({ ...SECRET, ...KEPT });
    assert.deepEqual(Object.keys(out).sort(), Object.keys(KEPT).sort());
    for (const [k, v] of Object.entries(SECRET)) assert.equal(isSecretEnv(k, v), true, k);
    for (const [k, v] of Object.entries(KEPT)) assert.equal(isSecretEnv(k, v), false, k);
  });

  it('keeps what the user passes through and drops .env names and Hermes internals', () => {
    const out = filteredEnv({ ...SECRET, FOO: 'bar', HERMES_YOLO_MODE: '1' }, { passthrough: ['GH_PAT', 'DATABASE_URL'], dotenvNames: ['FOO'] });
    assert.deepEqual(Object.keys(out).sort(), ['DATABASE_URL', 'GH_PAT']);
  });

  it('execute_code drops the same, and more', () => {
    const out = codeExecEnv({ ...SECRET, ...KEPT, HERMES_HOME: '/h', HERMES_MAX_ITERATIONS: '3' });
    for (const k of Object.keys(SECRET)) assert.ok(!(k in out), k);
    assert.equal(out.HERMES_HOME, '/h');
    assert.equal(out.PATH, '/usr/bin');
    assert.ok(!('HERMES_MAX_ITERATIONS' in out));
  });
});
