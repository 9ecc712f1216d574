// `hermes setup` with Anthropic: the wizard recommends an API key, and warns when the key it finds
// is a Claude Pro/Max subscription token (docs/security.md).
import assert from 'node:assert/strict';
import { tempHome } from '../helpers/cli.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const wizard = gatedSuite(tmuxAvailable());
wizard.describe('hermes setup with Anthropic', () => {
  wizard.it('recommends an API key, in the list and once Anthropic is picked', async () => {
    const t = startHermes(['setup'], { home: tempHome(), cols: 160, rows: 40 });
    try {
      await t.waitFor(/Which inference provider\?/);
      t.type('anthropic');
      await t.waitFor(/● Anthropic.*ANTHROPIC_API_KEY from console\.anthropic\.com \(recommended; not a Claude Pro\/Max sign-in\)/);
      t.keys('Enter');
      await t.waitFor(/Anthropic: use an API key from https:\/\/console\.anthropic\.com \(recommended\)\. Signing in with a Claude Pro\/Max subscription is against Anthropic's consumer terms/);
      await t.waitFor(/API key for Anthropic/);
      t.keys('C-c');
    } finally {
      t.kill();
    }
  });

  wizard.it('warns when the key already set is a subscription token, and does not suggest using it', async () => {
    const t = startHermes(['setup'], { home: tempHome(), cols: 160, rows: 40, env: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-from-the-env' } });
    try {
      await t.waitFor(/Which inference provider\?/);
      t.type('anthropic');
      await t.waitFor(/● Anthropic/);
      t.keys('Enter');
      const s = await t.waitFor(/Use the CLAUDE_CODE_OAUTH_TOKEN already set/);
      assert.match(s, /warning: this is a Claude Pro\/Max sign-in; Anthropic's consumer terms allow those tokens only in Claude Code and claude\.ai/);
      assert.doesNotMatch(s, /sk-ant-oat01-from-the-env/, 'the token itself is masked');
      // The default answer is No: Enter goes on to ask for a key.
      t.keys('Enter');
      await t.waitFor(/API key for Anthropic/);
      t.keys('C-c');
    } finally {
      t.kill();
    }
  });
});
