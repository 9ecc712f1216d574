// Tool lines (`┊ {emoji} {verb} {detail}`): every call shows its main argument — Hermes's tools,
// MCP tools and the items Codex runs (its shell unwrapped to the command itself).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toolDetail } from '../../src/session/activity.ts';
import { activityLine } from '../../src/session/describe.ts';

describe('tool lines', () => {
  it('show the main argument of every kind of call', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['terminal', { command: 'ls -la', timeout: 30 }, 'ls -la'],
      ['exec_command', { command: "/bin/bash -lc 'echo it'\\''s > out.txt'", cwd: '/w' }, "echo it's > out.txt"],
      ['exec_command', { command: 'pwd' }, 'pwd'],
      ['apply_patch', { changes: [{ kind: 'add', path: '/w/a.txt' }, { kind: 'update', path: '/w/b.txt' }] }, '/w/a.txt, /w/b.txt'],
      ['search_files', { pattern: 'TODO', path: 'src' }, 'TODO in src'],
      ['kanban_create', { title: 'Write docs', assignee: 'writer' }, 'Write docs → writer'],
      ['kanban_show', { task_id: 't_1' }, 't_1'],
      ['ha_call_service', { domain: 'light', service: 'turn_on', entity_id: 'light.desk' }, 'light.turn_on light.desk'],
      ['browser_click', { ref: 'e12' }, 'e12'],
      ['image_generate', { prompt: 'a pelican' }, 'a pelican'],
      ['mcp.fs.read_text_file', { path: '/etc/hosts' }, '/etc/hosts'],
      ['mcp__everything__echo', { message: 'hi' }, 'hi'],
      ['some_plugin_tool', { flavour: 'mint', size: 2 }, 'flavour=mint'],
      ['browser_back', {}, ''],
    ];
    for (const [name, args, want] of cases) assert.equal(toolDetail(name, args), want, name);
    assert.equal(activityLine('exec_command', { command: "/bin/bash -lc 'npm test'" }, 1200), '┊ 💻 $ npm test  1.2s');
    assert.equal(activityLine('apply_patch', { changes: [{ kind: 'add', path: 'x.txt' }] }, null), '┊ 🔧 patch x.txt');
    assert.match(activityLine('mcp.fs.read', { path: '/a' }, null), /^┊ 🔌 mcp\.fs\.read \/a$/);
  });
});
