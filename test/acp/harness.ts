// Drives `hermes acp` the way an editor does: the real binary as a child process, the ACP SDK's
// client side over its stdio, session/update notifications collected per session.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk/unstable';
import { BIN, cleanEnv, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

export type Update = acp.SessionUpdate;

export interface PermissionCall {
  params: acp.RequestPermissionRequest;
  respond: (optionId: string | null) => void;
}

export interface Editor {
  conn: acp.ClientConnection;
  agent: acp.ClientConnection['agent'];
  child: ChildProcessWithoutNullStreams;
  home: string;
  work: string;
  stderr: () => string;
  /** Every session/update, by session id, in arrival order. */
  updates: Map<string, Update[]>;
  /** Resolves with the next update of `sessionId` matching `pred` (already received ones count). */
  waitUpdate(sessionId: string, pred: (u: Update) => boolean): Promise<Update>;
  /** Permission requests: answered by `onPermission`, else queued here for the test to answer. */
  permissions: PermissionCall[];
  onPermission: ((p: acp.RequestPermissionRequest) => string | null | Promise<string | null>) | null;
  waitPermission(): Promise<PermissionCall>;
  /** fs/* calls the agent made (when the editor offers file access). */
  fsCalls: { method: string; path: string; content?: string }[];
  /** Editor buffers served by fs/read_text_file and written by fs/write_text_file. */
  buffers: Map<string, string>;
  close(): Promise<void>;
}

/** The session's model is `fake`; titles (generated after the first exchange) come from `titles`. */
export function writeConfig(home: string, fake: FakeLlm, titles: FakeLlm, extra = ''): void {
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n` +
      `auxiliary:\n  title_generation:\n    provider: custom\n    base_url: ${titles.openaiBaseUrl}\n    model: title-model\n    api_key: k\n${extra}`,
  );
}

export async function startEditor(fake: FakeLlm, o: { extraConfig?: string; config?: string; fs?: boolean; env?: Record<string, string>; home?: string } = {}): Promise<Editor> {
  const home = o.home ?? tempHome('hermes-acp-');
  const titles = await startFakeLlm({ defaultReply: { text: 'A generated title' } });
  if (o.config !== undefined) writeFileSync(join(home, 'config.yaml'), o.config);
  else writeConfig(home, fake, titles, o.extraConfig);
  const work = realpathSync(join(home));
  mkdirSync(join(work, 'work'), { recursive: true });
  const child = spawn(process.execPath, [BIN, 'acp', '--verbose'], { cwd: join(work, 'work'), env: cleanEnv(home, o.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const updates = new Map<string, Update[]>();
  const waiters = new Set<() => void>();
  const permissions: PermissionCall[] = [];
  const permWaiters = new Set<() => void>();
  const fsCalls: Editor['fsCalls'] = [];
  const buffers = new Map<string, string>();
  const editor = {} as Editor;
  let app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const list = updates.get(params.sessionId) ?? [];
      list.push(params.update);
      updates.set(params.sessionId, list);
      for (const w of [...waiters]) w();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      if (editor.onPermission) {
        const id = await editor.onPermission(params);
        return { outcome: id ? { outcome: 'selected', optionId: id } : { outcome: 'cancelled' } };
      }
      return new Promise<acp.RequestPermissionResponse>((resolve) => {
        permissions.push({ params, respond: (id) => resolve({ outcome: id ? { outcome: 'selected', optionId: id } : { outcome: 'cancelled' } }) });
        for (const w of [...permWaiters]) w();
      });
    });
  if (o.fs) {
    app = app
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        fsCalls.push({ method: 'read', path: params.path });
        const b = buffers.get(params.path);
        if (b !== undefined) return { content: b };
        const { readFileSync } = await import('node:fs');
        return { content: readFileSync(params.path, 'utf8') };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        fsCalls.push({ method: 'write', path: params.path, content: params.content });
        buffers.set(params.path, params.content);
        return {};
      });
  }
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const conn = app.connect(stream);
  Object.assign(editor, {
    conn,
    agent: conn.agent,
    child,
    home,
    work: join(work, 'work'),
    stderr: () => stderr,
    updates,
    permissions,
    onPermission: null,
    fsCalls,
    buffers,
    waitUpdate(sessionId: string, pred: (u: Update) => boolean) {
      return new Promise<Update>((resolve, reject) => {
        let seen = 0;
        const check = () => {
          const list = updates.get(sessionId) ?? [];
          for (; seen < list.length; seen++)
            if (pred(list[seen])) {
              waiters.delete(check);
              clearTimeout(t);
              resolve(list[seen]);
              return;
            }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching update for ${sessionId}; got ${JSON.stringify((updates.get(sessionId) ?? []).map((u) => u.sessionUpdate))}\nstderr: ${stderr}`));
        }, 20_000);
        waiters.add(check);
        check();
      });
    },
    waitPermission() {
      return new Promise<PermissionCall>((resolve) => {
        const check = () => {
          const p = permissions.shift();
          if (p) {
            permWaiters.delete(check);
            resolve(p);
          }
        };
        permWaiters.add(check);
        check();
      });
    },
    async close() {
      conn.close();
      child.stdin.end();
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      await titles.close();
    },
  } satisfies Partial<Editor>);
  return editor;
}

export async function initialize(e: Editor, fs = false): Promise<acp.InitializeResponse> {
  return e.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
    clientInfo: { name: 'test-editor', version: '1.0.0' },
  });
}

/** Text of the agent_message_chunk updates of a session, from index `from`. */
export function agentText(e: Editor, sessionId: string, from = 0): string {
  return (e.updates.get(sessionId) ?? [])
    .slice(from)
    .filter((u): u is Extract<Update, { sessionUpdate: 'agent_message_chunk' }> => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

export const count = (e: Editor, sessionId: string) => (e.updates.get(sessionId) ?? []).length;
