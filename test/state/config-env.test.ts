// The environment variables that stand for settings: one table, each naming a real setting, and
// configSetting reading a setting through it (the variable wins, or fills an empty setting).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configSetting, ENV_SETTINGS, envFor } from '../../src/state/config-env.ts';
import { schemaAt } from '../../src/state/config-schema.ts';
import { defaultConfig } from '../../src/state/defaults.ts';

describe('settings from the environment', () => {
  it('each variable stands for a real setting, and each setting has one variable', () => {
    for (const s of ENV_SETTINGS) assert.ok(schemaAt(s.key.split('.')), `${s.env}: ${s.key} is a setting`);
    assert.equal(new Set(ENV_SETTINGS.map((s) => s.key)).size, ENV_SETTINGS.length);
    assert.equal(envFor('state.url'), 'HERMES_DATABASE_URL');
  });

  it('an overriding variable wins over config.yaml; a fallback one fills only an empty setting', () => {
    const config = defaultConfig();
    config.state.url = 'postgres://from-config/db';
    config.timezone = '';
    assert.equal(configSetting(config, 'state.url', {}), 'postgres://from-config/db');
    assert.equal(configSetting(config, 'state.url', { HERMES_DATABASE_URL: 'postgres://from-env/db' }), 'postgres://from-env/db');
    assert.equal(configSetting(config, 'state.url', { HERMES_DATABASE_URL: '  ' }), 'postgres://from-config/db', 'a blank variable is unset');
    assert.equal(configSetting(config, 'agent.max_turns', { HERMES_MAX_ITERATIONS: '7' }), '7');
    assert.equal(configSetting(config, 'agent.max_turns', {}), 90);
    assert.equal(configSetting(config, 'timezone', { HERMES_TIMEZONE: 'Europe/Paris' }), 'Europe/Paris');
    config.timezone = 'Asia/Tokyo';
    assert.equal(configSetting(config, 'timezone', { HERMES_TIMEZONE: 'Europe/Paris' }), 'Asia/Tokyo');
    assert.equal(configSetting(config, 'display.skin', { HERMES_SKIN: 'x' }), 'default', 'a setting without a variable is config.yaml\'s');
  });
});
